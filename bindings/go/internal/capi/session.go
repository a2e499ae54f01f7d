package capi

/*
#include <stdbool.h>
#include <stdint.h>
#include "sqlbatch.h"

// Sessions, changesets and their application.
//
// What may call back into Go: session_changeset, _patchset and _diff read the tables (they
// prepare and step statements: the authorizer, progress, busy and trace callbacks);
// session_create and _attach may read the schema; apply_changeset runs the changes (every
// hook) and calls the filter and conflict callbacks. session_delete runs no SQL, but is left
// undeclared too: a call made once per session gains nothing from nocallback.
// Their out-parameters are on the C stack of the gosb_* helpers below and come back by value,
// and the Go memory they read (names, the changeset's bytes) escapes to the heap, where a
// callback growing the stack cannot move it.
//
// session_set_enabled, _set_indirect and _is_empty only flip or read a flag of SQLite's
// session, and changeset_invert and _concat involve no connection: nocallback, and noescape
// for the Go memory they read during the call only.

int32_t gosb_filter_tramp(void *ud, const char *table);
int32_t gosb_conflict_tramp(void *ud, const sqlbatch_conflict *conflict);
int32_t gosb_changeset_read_tramp(void *ud, const sqlbatch_changeset_change *changes, size_t n,
	const uint8_t *data);

typedef struct { int32_t rc; sqlbatch_session *s; } gosb_session_ret;
typedef struct { int32_t rc; uint8_t *data; size_t n; } gosb_buf_ret;

static inline gosb_session_ret gosb_session_create(sqlbatch_conn *c, const char *s, size_t sl) {
	gosb_session_ret out = {0};
	out.rc = sqlbatch_session_create(c, s, sl, &out.s);
	return out;
}

static inline gosb_buf_ret gosb_session_changeset(sqlbatch_session *s, int patch) {
	gosb_buf_ret out = {0};
	out.rc = patch ? sqlbatch_session_patchset(s, &out.data, &out.n)
		: sqlbatch_session_changeset(s, &out.data, &out.n);
	return out;
}

static inline gosb_buf_ret gosb_changeset_invert(const uint8_t *data, size_t len) {
	gosb_buf_ret out = {0};
	out.rc = sqlbatch_changeset_invert(data, len, &out.data, &out.n);
	return out;
}

static inline gosb_buf_ret gosb_changeset_concat(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
	gosb_buf_ret out = {0};
	out.rc = sqlbatch_changeset_concat(a, al, b, bl, &out.data, &out.n);
	return out;
}

// h 0: no callbacks (the policy settles every conflict).
static inline int32_t gosb_apply_changeset(sqlbatch_conn *c, const uint8_t *data, size_t len,
		uint32_t flags, int32_t policy, uintptr_t h, int filter, int conflict) {
	return sqlbatch_conn_apply_changeset(c, data, len, flags, policy,
		(h && conflict) ? gosb_conflict_tramp : NULL, (h && filter) ? gosb_filter_tramp : NULL, (void *)h);
}

// changeset_read calls back into Go (once per batch of changes); the changeset's bytes it
// reads escape to the heap, as apply_changeset's.
static inline int32_t gosb_changeset_read(const uint8_t *data, size_t len, uint32_t flags,
		size_t max_changes, uintptr_t h) {
	return sqlbatch_changeset_read(data, len, flags, max_changes, gosb_changeset_read_tramp, (void *)h);
}

#cgo noescape gosb_changeset_invert
#cgo noescape gosb_changeset_concat
#cgo noescape sqlbatch_session_is_empty
#cgo nocallback gosb_changeset_invert
#cgo nocallback gosb_changeset_concat
#cgo nocallback sqlbatch_session_set_enabled
#cgo nocallback sqlbatch_session_set_indirect
#cgo nocallback sqlbatch_session_is_empty
*/
import "C"

import "unsafe"

// Constants of the header for sessions and changesets.
const (
	ChangesetOmit    = C.SQLBATCH_CHANGESET_OMIT
	ChangesetReplace = C.SQLBATCH_CHANGESET_REPLACE
	ChangesetAbort   = C.SQLBATCH_CHANGESET_ABORT

	ConflictData       = C.SQLBATCH_CONFLICT_DATA
	ConflictNotFound   = C.SQLBATCH_CONFLICT_NOTFOUND
	ConflictConflict   = C.SQLBATCH_CONFLICT_CONFLICT
	ConflictConstraint = C.SQLBATCH_CONFLICT_CONSTRAINT
	ConflictForeignKey = C.SQLBATCH_CONFLICT_FOREIGN_KEY

	ApplyNoSavepoint = C.SQLBATCH_APPLY_NOSAVEPOINT
	ApplyInvert      = C.SQLBATCH_APPLY_INVERT
	ApplyIgnoreNoop  = C.SQLBATCH_APPLY_IGNORENOOP
	ApplyFKNoAction  = C.SQLBATCH_APPLY_FKNOACTION

	ChangesetReadInvert = C.SQLBATCH_CHANGESET_READ_INVERT
)

// Session is a sqlbatch_session handle. The zero Session is a NULL handle.
type Session struct{ p *C.sqlbatch_session }

// IsNil reports whether s is a NULL handle.
func (s Session) IsNil() bool { return s.p == nil }

// Buffer is a buffer the library handed over (a changeset): Bytes views it, Free releases it
// (sqlbatch_free). The zero Buffer is empty.
type Buffer struct {
	p *C.uint8_t
	n C.size_t
}

// Bytes is a view of the buffer's C memory, valid until Free (nil when empty).
func (b Buffer) Bytes() []byte {
	if b.p == nil {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(b.p)), int(b.n))
}

// Copy returns the buffer's bytes in Go memory and frees it (nil when empty).
func (b Buffer) Copy() []byte {
	if b.p == nil {
		return nil
	}
	out := make([]byte, int(b.n))
	copy(out, b.Bytes())
	b.Free()
	return out
}

// Free is sqlbatch_free (a no-op for an empty buffer).
func (b Buffer) Free() {
	if b.p != nil {
		C.sqlbatch_free(unsafe.Pointer(b.p))
	}
}

func bufOf(r C.gosb_buf_ret) (Buffer, int32) {
	if r.rc != OK {
		return Buffer{}, int32(r.rc) // the library left no buffer
	}
	return Buffer{r.data, r.n}, OK
}

// SessionCreate is sqlbatch_session_create ("" is "main").
func (c Conn) SessionCreate(schema string) (Session, int32) {
	s, sl := optstr(schema)
	r := C.gosb_session_create(c.p, s, sl)
	return Session{r.s}, int32(r.rc)
}

// Attach is sqlbatch_session_attach ("" attaches every table).
func (s Session) Attach(table string) int32 {
	t, tl := optstr(table)
	return int32(C.sqlbatch_session_attach(s.p, t, tl))
}

// SetEnabled is sqlbatch_session_set_enabled.
func (s Session) SetEnabled(on bool) int32 {
	return int32(C.sqlbatch_session_set_enabled(s.p, C.bool(on)))
}

// SetIndirect is sqlbatch_session_set_indirect.
func (s Session) SetIndirect(on bool) int32 {
	return int32(C.sqlbatch_session_set_indirect(s.p, C.bool(on)))
}

// IsEmpty is sqlbatch_session_is_empty.
func (s Session) IsEmpty() (bool, int32) {
	var b C.bool
	rc := C.sqlbatch_session_is_empty(s.p, &b)
	return bool(b), int32(rc)
}

// Changeset is sqlbatch_session_changeset, or with patch sqlbatch_session_patchset: the
// caller frees the buffer.
func (s Session) Changeset(patch bool) (Buffer, int32) {
	p := C.int(0)
	if patch {
		p = 1
	}
	return bufOf(C.gosb_session_changeset(s.p, p))
}

// Diff is sqlbatch_session_diff.
func (s Session) Diff(fromSchema, table string) int32 {
	f, fl := reqstr(fromSchema)
	t, tl := reqstr(table)
	return int32(C.sqlbatch_session_diff(s.p, f, fl, t, tl))
}

// Delete is sqlbatch_session_delete.
func (s Session) Delete() int32 { return int32(C.sqlbatch_session_delete(s.p)) }

// ChangesetInvert is sqlbatch_changeset_invert: the caller frees the buffer.
func ChangesetInvert(data []byte) (Buffer, int32) {
	return bufOf(C.gosb_changeset_invert(bptr(data), C.size_t(len(data))))
}

// ChangesetConcat is sqlbatch_changeset_concat: the caller frees the buffer.
func ChangesetConcat(a, b []byte) (Buffer, int32) {
	return bufOf(C.gosb_changeset_concat(bptr(a), C.size_t(len(a)), bptr(b), C.size_t(len(b))))
}

// Conflict is a Go view of a sqlbatch_conflict: Table, the rows and the bytes at Data are C
// memory, valid during the conflict callback only; a row is nil where the C struct has NULL.
type Conflict struct {
	Kind, Op              int32
	Table                 []byte
	Indirect              bool
	NCols                 int
	Old, New, Conflicting []Value
	Data                  *byte
	FKViolations          int32
}

// Applier is the Go side of a changeset apply's callbacks: Filter says whether the changes
// to table (C memory, valid during the call) are applied (positive), skipped (0), or the
// apply stopped and undone (negative); Conflict answers SQLBATCH_CHANGESET_OMIT, _REPLACE or
// _ABORT.
type Applier interface {
	Filter(table []byte) int32
	Conflict(c Conflict) int32
}

// ApplyChangeset is sqlbatch_conn_apply_changeset, with a's Filter called when filter is set
// and its Conflict when conflict is set (a nil a: neither; policy settles every conflict).
// The handle made for a lives for the call only.
func (c Conn) ApplyChangeset(data []byte, flags uint32, policy int32, a Applier, filter, conflict bool) int32 {
	var h uintptr
	if a != nil && (filter || conflict) {
		h = NewHandle(a)
		defer DeleteHandle(h)
	}
	f, k := C.int(0), C.int(0)
	if filter {
		f = 1
	}
	if conflict {
		k = 1
	}
	return int32(C.gosb_apply_changeset(c.p, bptr(data), C.size_t(len(data)), C.uint32_t(flags),
		C.int32_t(policy), C.uintptr_t(h), f, k))
}

//export gosbFilter
func gosbFilter(ud C.uintptr_t, table *C.char, tableLen C.size_t) C.int32_t {
	return C.int32_t(HandleValue(uintptr(ud)).(Applier).Filter(cview(table, tableLen)))
}

//export gosbConflict
func gosbConflict(ud C.uintptr_t, p *C.sqlbatch_conflict) C.int32_t {
	n := int(p.n_cols)
	return C.int32_t(HandleValue(uintptr(ud)).(Applier).Conflict(Conflict{
		Kind:         int32(p.kind),
		Op:           int32(p.op),
		Table:        cbytes(p.table),
		Indirect:     bool(p.indirect),
		NCols:        n,
		Old:          rowCells(p.old_values, n),
		New:          rowCells(p.new_values, n),
		Conflicting:  rowCells(p.conflict_values, n),
		Data:         (*byte)(unsafe.Pointer(p.data)),
		FKViolations: int32(p.fk_violations),
	}))
}

// ChangesetChange is a Go view of a sqlbatch_changeset_change: Table, PrimaryKey (one byte
// per column, 1 for a key column), Old and New are C memory, valid during the reader's call
// only; Old and New are nil where the C struct has NULL.
type ChangesetChange struct {
	Table      []byte
	Op         int32
	Indirect   bool
	PrimaryKey []byte
	Old, New   []Value
}

// ChangesetReader is the Go side of sqlbatch_changeset_read: Changes gets one batch of
// changes, in the changeset's order, whose TEXT and BLOB bytes are at data (views valid
// during the call), and returns 0 to go on, anything else to stop reading.
type ChangesetReader interface {
	Changes(changes []ChangesetChange, data *byte) int32
}

// changesetRead is what a read's handle holds: the reader, and the views of the batch being
// handed over, reused from one batch to the next.
type changesetRead struct {
	r     ChangesetReader
	batch []ChangesetChange
}

// ChangesetRead is sqlbatch_changeset_read (flags: ChangesetReadInvert; maxChanges 0: the
// library's default), handing r each batch of changes: one cgo callback per batch. The
// handle made for r lives for the call only.
func ChangesetRead(data []byte, flags uint32, maxChanges int, r ChangesetReader) int32 {
	h := NewHandle(&changesetRead{r: r})
	defer DeleteHandle(h)
	return int32(C.gosb_changeset_read(bptr(data), C.size_t(len(data)), C.uint32_t(flags),
		C.size_t(maxChanges), C.uintptr_t(h)))
}

//export gosbChangesetRead
func gosbChangesetRead(ud C.uintptr_t, p *C.sqlbatch_changeset_change, n C.size_t, data *C.uint8_t) C.int32_t {
	cr := HandleValue(uintptr(ud)).(*changesetRead)
	if int(n) == 0 {
		return 0
	}
	batch := cr.batch[:0]
	for _, x := range unsafe.Slice(p, int(n)) {
		nc := int(x.n_cols)
		var pk []byte
		if x.primary_key != nil {
			pk = unsafe.Slice((*byte)(unsafe.Pointer(x.primary_key)), nc)
		}
		batch = append(batch, ChangesetChange{
			Table:      cbytes(x.table),
			Op:         int32(x.op),
			Indirect:   bool(x.indirect),
			PrimaryKey: pk,
			Old:        rowCells(x.old_values, nc),
			New:        rowCells(x.new_values, nc),
		})
	}
	cr.batch = batch
	rc := cr.r.Changes(batch, (*byte)(unsafe.Pointer(data)))
	clear(batch) // drop the views of C memory
	return C.int32_t(rc)
}
