package capi

/*
#include <stdbool.h>
#include <stdint.h>
#include "sqlbatch.h"

// The callbacks the library calls (vtab_tramp.c): they pass the module's user data and the
// tables' and cursors' states on to the exported Go functions of this file as integers
// (cgo.Handle values), never as pointers.
int32_t gosb_vtab_connect_tramp(void *ud, sqlbatch_vtab_call *call, bool create, const sqlbatch_str *args, size_t n_args, void **out_table);
int32_t gosb_vtab_best_index_tramp(void *ud, sqlbatch_vtab_call *call, void *table, sqlbatch_vtab_index *index);
int32_t gosb_vtab_open_tramp(void *ud, sqlbatch_vtab_call *call, void *table, void **out_cursor);
int32_t gosb_vtab_filter_tramp(void *ud, sqlbatch_vtab_call *call, void *cursor, int32_t idx_num, const sqlbatch_vtab_arg *args, size_t n_args, const uint8_t *data);
int32_t gosb_vtab_fill_tramp(void *ud, sqlbatch_vtab_call *call, void *cursor, size_t max_rows);
void gosb_vtab_close_tramp(void *ud, void *cursor);
void gosb_vtab_disconnect_tramp(void *ud, void *table, bool destroy);
int32_t gosb_vtab_update_tramp(void *ud, sqlbatch_vtab_call *call, void *table, const sqlbatch_vtab_change *change, int64_t *out_rowid);
void gosb_vtab_destroy_tramp(void *ud);

// gosb_create_module registers the Go module of handle h (h 0 removes the module of that
// name). Every callback is set, update too: a table that does not implement it refuses
// changes with a message of its own (as mattn/go-sqlite3's modules do).
static inline int32_t gosb_create_module(sqlbatch_conn *conn, const char *name, size_t name_len, uint32_t flags,
		size_t batch_rows, uintptr_t h) {
	if (!h) {
		return sqlbatch_conn_create_module(conn, name, name_len, NULL, 0, NULL, NULL);
	}
	sqlbatch_vtab_module m = {gosb_vtab_connect_tramp, gosb_vtab_best_index_tramp, gosb_vtab_open_tramp,
		gosb_vtab_filter_tramp, gosb_vtab_fill_tramp, gosb_vtab_close_tramp, gosb_vtab_disconnect_tramp,
		gosb_vtab_update_tramp, batch_rows};
	return sqlbatch_conn_create_module(conn, name, name_len, &m, flags, (void *)h, gosb_vtab_destroy_tramp);
}

// gosb_vtab_push builds the sqlbatch_params of a fill's rows on the C stack: the cells, bytes
// and rowids are Go memory that holds no Go pointer, copied by the library during the call.
static inline int32_t gosb_vtab_push(sqlbatch_vtab_call *call, const sqlbatch_value *values, size_t n_values,
		const uint8_t *data, size_t data_len, size_t n_cols, const int64_t *rowids) {
	sqlbatch_params p = {values, NULL, n_values, data, data_len, 0};
	return sqlbatch_vtab_push(call, &p, n_cols, rowids);
}

// push and error run inside a callback and never call back into Go. declare parses the
// table's schema, which could run the authorizer: it is neither nocallback nor noescape. The
// create call may call back (the destroy callback of a replaced module).
#cgo noescape gosb_vtab_push
#cgo nocallback gosb_vtab_push
#cgo noescape sqlbatch_vtab_error
#cgo nocallback sqlbatch_vtab_error
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Module flags and constraint operators, with the header's values.
const (
	VtabEponymous     = C.SQLBATCH_VTAB_EPONYMOUS
	VtabEponymousOnly = C.SQLBATCH_VTAB_EPONYMOUS_ONLY

	VtabInsert = C.SQLBATCH_VTAB_INSERT
	VtabUpdate = C.SQLBATCH_VTAB_UPDATE
	VtabDelete = C.SQLBATCH_VTAB_DELETE

	IndexEQ        = C.SQLBATCH_INDEX_EQ
	IndexGT        = C.SQLBATCH_INDEX_GT
	IndexLE        = C.SQLBATCH_INDEX_LE
	IndexLT        = C.SQLBATCH_INDEX_LT
	IndexGE        = C.SQLBATCH_INDEX_GE
	IndexMatch     = C.SQLBATCH_INDEX_MATCH
	IndexLike      = C.SQLBATCH_INDEX_LIKE
	IndexGlob      = C.SQLBATCH_INDEX_GLOB
	IndexRegexp    = C.SQLBATCH_INDEX_REGEXP
	IndexNE        = C.SQLBATCH_INDEX_NE
	IndexIsNot     = C.SQLBATCH_INDEX_ISNOT
	IndexIsNotNull = C.SQLBATCH_INDEX_ISNOTNULL
	IndexIsNull    = C.SQLBATCH_INDEX_ISNULL
	IndexIs        = C.SQLBATCH_INDEX_IS
	IndexLimit     = C.SQLBATCH_INDEX_LIMIT
	IndexOffset    = C.SQLBATCH_INDEX_OFFSET

	// SQLiteConstraint is SQLITE_CONSTRAINT: from best_index, "this plan cannot be used".
	SQLiteConstraint = 19
)

// VtabConstraint mirrors sqlbatch_vtab_constraint.
type VtabConstraint struct {
	Column int32
	Op     uint8
	Usable bool
	InList bool
	Value  Value
}

// VtabOrder mirrors sqlbatch_vtab_order.
type VtabOrder struct {
	Column int32
	Desc   bool
}

// VtabUse mirrors sqlbatch_vtab_use.
type VtabUse struct {
	ArgIndex  int32
	Omit      bool
	WholeList bool
}

// VtabIndex mirrors sqlbatch_vtab_index: a planning call, in C memory. Its arrays are C
// memory valid during the call (read them with the methods).
type VtabIndex struct {
	constraints     *VtabConstraint
	nConstraints    uintptr
	orderBy         *VtabOrder
	nOrderBy        uintptr
	ColumnsUsed     uint64
	Data            *byte
	uses            *VtabUse
	IdxNum          int32
	OrderByConsumed bool
	Unique          bool
	EstimatedCost   float64
	EstimatedRows   int64
}

// Constraints is a view of the call's constraints.
func (ix *VtabIndex) Constraints() []VtabConstraint {
	return unsafe.Slice(ix.constraints, int(ix.nConstraints))
}

// OrderBy is a view of the call's ORDER BY terms.
func (ix *VtabIndex) OrderBy() []VtabOrder { return unsafe.Slice(ix.orderBy, int(ix.nOrderBy)) }

// Uses is a view of the uses to write, one per constraint.
func (ix *VtabIndex) Uses() []VtabUse { return unsafe.Slice(ix.uses, int(ix.nConstraints)) }

// VtabArg mirrors sqlbatch_vtab_arg: a value of filter, or a whole IN list.
type VtabArg struct {
	Value Value
	list  *Value
	nList uintptr
}

// List is a view of the list's values (nil for a single value or an empty list); IsList
// says which.
func (a *VtabArg) List() []Value { return unsafe.Slice(a.list, int(a.nList)) }

// IsList reports whether the argument is a whole IN list.
func (a *VtabArg) IsList() bool { return a.Value.Kind == KindUndefined }

// VtabChange mirrors sqlbatch_vtab_change.
type VtabChange struct {
	Op       int32
	OldRowID int64
	NewRowID Value
	values   *Value
	nValues  uintptr
	Data     *byte
}

// Values is a view of the new row's values.
func (ch *VtabChange) Values() []Value { return unsafe.Slice(ch.values, int(ch.nValues)) }

// Compile-time checks that the mirrors have the C types' sizes and field offsets.
var (
	_ [unsafe.Sizeof(VtabConstraint{}) - unsafe.Sizeof(C.sqlbatch_vtab_constraint{})]struct{}
	_ [unsafe.Sizeof(C.sqlbatch_vtab_constraint{}) - unsafe.Sizeof(VtabConstraint{})]struct{}
	_ [unsafe.Offsetof(VtabConstraint{}.Value) - unsafe.Offsetof(C.sqlbatch_vtab_constraint{}.value)]struct{}
	_ [unsafe.Offsetof(C.sqlbatch_vtab_constraint{}.value) - unsafe.Offsetof(VtabConstraint{}.Value)]struct{}
	_ [unsafe.Offsetof(VtabConstraint{}.InList) - unsafe.Offsetof(C.sqlbatch_vtab_constraint{}.in_list)]struct{}
	_ [unsafe.Offsetof(C.sqlbatch_vtab_constraint{}.in_list) - unsafe.Offsetof(VtabConstraint{}.InList)]struct{}
	_ [unsafe.Sizeof(VtabOrder{}) - unsafe.Sizeof(C.sqlbatch_vtab_order{})]struct{}
	_ [unsafe.Sizeof(C.sqlbatch_vtab_order{}) - unsafe.Sizeof(VtabOrder{})]struct{}
	_ [unsafe.Sizeof(VtabUse{}) - unsafe.Sizeof(C.sqlbatch_vtab_use{})]struct{}
	_ [unsafe.Sizeof(C.sqlbatch_vtab_use{}) - unsafe.Sizeof(VtabUse{})]struct{}
	_ [unsafe.Offsetof(VtabUse{}.WholeList) - unsafe.Offsetof(C.sqlbatch_vtab_use{}.whole_list)]struct{}
	_ [unsafe.Offsetof(C.sqlbatch_vtab_use{}.whole_list) - unsafe.Offsetof(VtabUse{}.WholeList)]struct{}
	_ [unsafe.Sizeof(VtabIndex{}) - unsafe.Sizeof(C.sqlbatch_vtab_index{})]struct{}
	_ [unsafe.Sizeof(C.sqlbatch_vtab_index{}) - unsafe.Sizeof(VtabIndex{})]struct{}
	_ [unsafe.Offsetof(VtabIndex{}.ColumnsUsed) - unsafe.Offsetof(C.sqlbatch_vtab_index{}.columns_used)]struct{}
	_ [unsafe.Offsetof(C.sqlbatch_vtab_index{}.columns_used) - unsafe.Offsetof(VtabIndex{}.ColumnsUsed)]struct{}
	_ [unsafe.Offsetof(VtabIndex{}.uses) - unsafe.Offsetof(C.sqlbatch_vtab_index{}.uses)]struct{}
	_ [unsafe.Offsetof(C.sqlbatch_vtab_index{}.uses) - unsafe.Offsetof(VtabIndex{}.uses)]struct{}
	_ [unsafe.Offsetof(VtabIndex{}.IdxNum) - unsafe.Offsetof(C.sqlbatch_vtab_index{}.idx_num)]struct{}
	_ [unsafe.Offsetof(C.sqlbatch_vtab_index{}.idx_num) - unsafe.Offsetof(VtabIndex{}.IdxNum)]struct{}
	_ [unsafe.Offsetof(VtabIndex{}.Unique) - unsafe.Offsetof(C.sqlbatch_vtab_index{}.unique)]struct{}
	_ [unsafe.Offsetof(C.sqlbatch_vtab_index{}.unique) - unsafe.Offsetof(VtabIndex{}.Unique)]struct{}
	_ [unsafe.Offsetof(VtabIndex{}.EstimatedCost) - unsafe.Offsetof(C.sqlbatch_vtab_index{}.estimated_cost)]struct{}
	_ [unsafe.Offsetof(C.sqlbatch_vtab_index{}.estimated_cost) - unsafe.Offsetof(VtabIndex{}.EstimatedCost)]struct{}
	_ [unsafe.Offsetof(VtabIndex{}.EstimatedRows) - unsafe.Offsetof(C.sqlbatch_vtab_index{}.estimated_rows)]struct{}
	_ [unsafe.Offsetof(C.sqlbatch_vtab_index{}.estimated_rows) - unsafe.Offsetof(VtabIndex{}.EstimatedRows)]struct{}
	_ [unsafe.Sizeof(VtabArg{}) - unsafe.Sizeof(C.sqlbatch_vtab_arg{})]struct{}
	_ [unsafe.Sizeof(C.sqlbatch_vtab_arg{}) - unsafe.Sizeof(VtabArg{})]struct{}
	_ [unsafe.Offsetof(VtabArg{}.nList) - unsafe.Offsetof(C.sqlbatch_vtab_arg{}.n_list)]struct{}
	_ [unsafe.Offsetof(C.sqlbatch_vtab_arg{}.n_list) - unsafe.Offsetof(VtabArg{}.nList)]struct{}
	_ [unsafe.Sizeof(VtabChange{}) - unsafe.Sizeof(C.sqlbatch_vtab_change{})]struct{}
	_ [unsafe.Sizeof(C.sqlbatch_vtab_change{}) - unsafe.Sizeof(VtabChange{})]struct{}
	_ [unsafe.Offsetof(VtabChange{}.NewRowID) - unsafe.Offsetof(C.sqlbatch_vtab_change{}.new_rowid)]struct{}
	_ [unsafe.Offsetof(C.sqlbatch_vtab_change{}.new_rowid) - unsafe.Offsetof(VtabChange{}.NewRowID)]struct{}
	_ [unsafe.Offsetof(VtabChange{}.Data) - unsafe.Offsetof(C.sqlbatch_vtab_change{}.data)]struct{}
	_ [unsafe.Offsetof(C.sqlbatch_vtab_change{}.data) - unsafe.Offsetof(VtabChange{}.Data)]struct{}
)

// VtabCall is the sqlbatch_vtab_call of one callback: valid only until the callback returns.
type VtabCall struct{ p *C.sqlbatch_vtab_call }

// Declare is sqlbatch_vtab_declare.
func (c VtabCall) Declare(sql string) int32 {
	s, n := reqstr(sql)
	return int32(C.sqlbatch_vtab_declare(c.p, s, n))
}

// Push is sqlbatch_vtab_push: the rows of values (nCols a row, their bytes in data) and one
// rowid a row, or nil rowids (numbered by the library).
func (c VtabCall) Push(values []Value, data []byte, nCols int, rowids []int64) int32 {
	return int32(C.gosb_vtab_push(c.p, vptr(values), C.size_t(len(values)), bptr(data), C.size_t(len(data)),
		C.size_t(nCols), (*C.int64_t)(unsafe.Pointer(unsafe.SliceData(rowids)))))
}

// Error is sqlbatch_vtab_error: the message of the error the callback returns.
func (c VtabCall) Error(msg string) {
	s, n := reqstr(msg)
	C.sqlbatch_vtab_error(c.p, s, n)
}

// VtabModule is the Go side of a virtual table module. Tables and cursors are the module's
// own integers (cgo.Handle values it makes and deletes), passed back as they were given.
// The methods that return a status return OK (Row or Done for Fill) or an SQLite or library
// code, with the message given to call.Error.
type VtabModule interface {
	Connect(call VtabCall, create bool, args []string) (table uintptr, rc int32)
	BestIndex(call VtabCall, table uintptr, ix *VtabIndex) int32
	Open(call VtabCall, table uintptr) (cursor uintptr, rc int32)
	Filter(call VtabCall, cursor uintptr, idxNum int32, args []VtabArg, data *byte) int32
	Fill(call VtabCall, cursor uintptr, maxRows int) int32
	Close(cursor uintptr)
	Disconnect(table uintptr, destroy bool)
	Update(call VtabCall, table uintptr, ch *VtabChange, rowid *int64) int32
	// Destroy is called once, when the registration ends.
	Destroy()
}

// CreateModule is sqlbatch_conn_create_module with m as user data (nil m removes the module
// of that name).
func (c Conn) CreateModule(name string, flags uint32, batchRows int, m VtabModule) int32 {
	n, nl := reqstr(name)
	if m == nil {
		return int32(C.gosb_create_module(c.p, n, nl, 0, 0, 0))
	}
	h := NewHandle(m)
	return int32(C.gosb_create_module(c.p, n, nl, C.uint32_t(flags), C.size_t(batchRows), C.uintptr_t(h)))
}

// recoverVtab turns a panic of a module's callback into its error: a Go panic must never
// unwind into C.
func recoverVtab(call VtabCall, rc *C.int32_t) {
	if r := recover(); r != nil {
		call.Error(fmt.Sprint("panic: ", r))
		*rc = SQLiteError
	}
}

func vtabModule(ud C.uintptr_t) VtabModule { return HandleValue(uintptr(ud)).(VtabModule) }

//export gosbVtabConnect
func gosbVtabConnect(ud C.uintptr_t, call *C.sqlbatch_vtab_call, create C.bool, args *C.sqlbatch_str, nArgs C.size_t, out *C.uintptr_t) (rc C.int32_t) {
	c := VtabCall{call}
	defer recoverVtab(c, &rc)
	strs := unsafe.Slice(args, int(nArgs))
	goArgs := make([]string, len(strs))
	for i, s := range strs {
		goArgs[i] = gostr(s)
	}
	t, r := vtabModule(ud).Connect(c, bool(create), goArgs)
	if r == OK {
		*out = C.uintptr_t(t)
	}
	return C.int32_t(r)
}

//export gosbVtabBestIndex
func gosbVtabBestIndex(ud C.uintptr_t, call *C.sqlbatch_vtab_call, table C.uintptr_t, index *C.sqlbatch_vtab_index) (rc C.int32_t) {
	c := VtabCall{call}
	defer recoverVtab(c, &rc)
	return C.int32_t(vtabModule(ud).BestIndex(c, uintptr(table), (*VtabIndex)(unsafe.Pointer(index))))
}

//export gosbVtabOpen
func gosbVtabOpen(ud C.uintptr_t, call *C.sqlbatch_vtab_call, table C.uintptr_t, out *C.uintptr_t) (rc C.int32_t) {
	c := VtabCall{call}
	defer recoverVtab(c, &rc)
	cur, r := vtabModule(ud).Open(c, uintptr(table))
	if r == OK {
		*out = C.uintptr_t(cur)
	}
	return C.int32_t(r)
}

//export gosbVtabFilter
func gosbVtabFilter(ud C.uintptr_t, call *C.sqlbatch_vtab_call, cursor C.uintptr_t, idxNum C.int32_t, args *C.sqlbatch_vtab_arg, nArgs C.size_t, data *C.uint8_t) (rc C.int32_t) {
	c := VtabCall{call}
	defer recoverVtab(c, &rc)
	a := unsafe.Slice((*VtabArg)(unsafe.Pointer(args)), int(nArgs))
	return C.int32_t(vtabModule(ud).Filter(c, uintptr(cursor), int32(idxNum), a, (*byte)(unsafe.Pointer(data))))
}

//export gosbVtabFill
func gosbVtabFill(ud C.uintptr_t, call *C.sqlbatch_vtab_call, cursor C.uintptr_t, maxRows C.size_t) (rc C.int32_t) {
	c := VtabCall{call}
	defer recoverVtab(c, &rc)
	return C.int32_t(vtabModule(ud).Fill(c, uintptr(cursor), int(maxRows)))
}

//export gosbVtabClose
func gosbVtabClose(ud C.uintptr_t, cursor C.uintptr_t) {
	defer func() { _ = recover() }() // nothing to report it to: the cursor is gone either way
	vtabModule(ud).Close(uintptr(cursor))
}

//export gosbVtabDisconnect
func gosbVtabDisconnect(ud C.uintptr_t, table C.uintptr_t, destroy C.bool) {
	defer func() { _ = recover() }() // as for Close
	vtabModule(ud).Disconnect(uintptr(table), bool(destroy))
}

//export gosbVtabUpdate
func gosbVtabUpdate(ud C.uintptr_t, call *C.sqlbatch_vtab_call, table C.uintptr_t, change *C.sqlbatch_vtab_change, rowid *C.int64_t) (rc C.int32_t) {
	c := VtabCall{call}
	defer recoverVtab(c, &rc)
	return C.int32_t(vtabModule(ud).Update(c, uintptr(table), (*VtabChange)(unsafe.Pointer(change)), (*int64)(unsafe.Pointer(rowid))))
}

//export gosbVtabDestroy
func gosbVtabDestroy(ud C.uintptr_t) {
	defer DeleteHandle(uintptr(ud))
	defer func() { _ = recover() }()
	vtabModule(ud).Destroy()
}
