package capi

/*
#include <stdint.h>
#include "sqlbatch.h"

// The callbacks the library calls (session_tramp.c), passing the user data on to the exported
// Go functions of this file as an integer (a cgo.Handle value).
void gosb_preupdate_tramp(void *ud, const sqlbatch_preupdate *change);
void gosb_trace_tramp(void *ud, const sqlbatch_trace_event *event);
void gosb_destroy_tramp(void *ud);

// h 0 removes the hook (no user data, no destroy callback).
static inline int32_t gosb_set_preupdate_hook(sqlbatch_conn *conn, uint32_t flags, uintptr_t h) {
	return sqlbatch_conn_preupdate_hook(conn, flags, h ? gosb_preupdate_tramp : NULL, (void *)h,
		h ? gosb_destroy_tramp : NULL);
}

static inline int32_t gosb_set_trace(sqlbatch_conn *conn, uint32_t mask, uintptr_t h) {
	return sqlbatch_conn_trace(conn, mask, h ? gosb_trace_tramp : NULL, (void *)h,
		h ? gosb_destroy_tramp : NULL);
}

// The setters call back into Go (the destroy callback of the registration they replace, or of
// this one when the call fails) and take no Go memory: neither nocallback nor noescape.
*/
import "C"

import "unsafe"

// Constants of the header for the preupdate hook and tracing.
const (
	PreUpdateOld = C.SQLBATCH_PREUPDATE_OLD
	PreUpdateNew = C.SQLBATCH_PREUPDATE_NEW

	TraceStmt     = C.SQLBATCH_TRACE_STMT
	TraceProfile  = C.SQLBATCH_TRACE_PROFILE
	TraceRow      = C.SQLBATCH_TRACE_ROW
	TraceClose    = C.SQLBATCH_TRACE_CLOSE
	TraceExpanded = C.SQLBATCH_TRACE_EXPANDED

	// KindUndefined is SQLBATCH_UNDEFINED: a cell with no value (a column an UPDATE in a
	// changeset does not carry; a value SQLite could not produce).
	KindUndefined = C.SQLBATCH_UNDEFINED
)

// PreUpdate is a Go view of a sqlbatch_preupdate. Schema, Table, Old, New and the bytes at
// Data are C memory, valid during the hook's call only; Old and New are nil where the C
// struct has NULL (a row not asked for, or that the change does not have).
type PreUpdate struct {
	Op, Depth          int32
	Schema, Table      []byte
	OldRowID, NewRowID int64
	NCols              int
	Old, New           []Value
	Data               *byte
	BlobColumn         int32
}

// PreUpdateHook is the Go side of a preupdate hook.
type PreUpdateHook interface {
	PreUpdate(p PreUpdate)
}

// TraceEvent is a sqlbatch_trace_event: SQL and ExpandedSQL are views of C memory valid
// during the call (nil where absent).
type TraceEvent struct {
	Event       uint32
	AutoCommit  bool
	Stmt        uint64
	SQL         []byte
	ExpandedSQL []byte
	NS          int64
}

// Tracer is the Go side of a trace callback.
type Tracer interface {
	Trace(e TraceEvent)
}

// SetPreUpdateHook is sqlbatch_conn_preupdate_hook with h as user data (nil removes it); flags
// are SQLBATCH_PREUPDATE_* bits. The handle is released by the destroy callback, also when
// the call fails.
func (c Conn) SetPreUpdateHook(flags uint32, h PreUpdateHook) int32 {
	if h == nil {
		return int32(C.gosb_set_preupdate_hook(c.p, C.uint32_t(flags), 0))
	}
	return int32(C.gosb_set_preupdate_hook(c.p, C.uint32_t(flags), C.uintptr_t(NewHandle(h))))
}

// SetTrace is sqlbatch_conn_trace with t as user data (nil, or no event bit in mask, removes
// it).
func (c Conn) SetTrace(mask uint32, t Tracer) int32 {
	if t == nil {
		return int32(C.gosb_set_trace(c.p, C.uint32_t(mask), 0))
	}
	return int32(C.gosb_set_trace(c.p, C.uint32_t(mask), C.uintptr_t(NewHandle(t))))
}

// The exported callbacks. The root package's implementations recover every panic of the
// user's functions (and report it); these have no recover of their own, as the update hook's
// (a second deferred recover per event costs measurably there).

//export gosbPreUpdate
func gosbPreUpdate(ud C.uintptr_t, p *C.sqlbatch_preupdate) {
	n := int(p.n_cols)
	HandleValue(uintptr(ud)).(PreUpdateHook).PreUpdate(PreUpdate{
		Op:         int32(p.op),
		Depth:      int32(p.depth),
		Schema:     cbytes(p.schema),
		Table:      cbytes(p.table),
		OldRowID:   int64(p.old_rowid),
		NewRowID:   int64(p.new_rowid),
		NCols:      n,
		Old:        rowCells(p.old_values, n),
		New:        rowCells(p.new_values, n),
		Data:       (*byte)(unsafe.Pointer(p.data)),
		BlobColumn: int32(p.blob_column),
	})
}

//export gosbTrace
func gosbTrace(ud C.uintptr_t, e *C.sqlbatch_trace_event) {
	HandleValue(uintptr(ud)).(Tracer).Trace(TraceEvent{
		Event:       uint32(e.event),
		AutoCommit:  e.autocommit != 0,
		Stmt:        uint64(e.stmt),
		SQL:         cbytes(e.sql),
		ExpandedSQL: cbytes(e.expanded_sql),
		NS:          int64(e.nanoseconds),
	})
}
