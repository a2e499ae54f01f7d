package capi

/*
#include <stdint.h>
#include "sqlbatch.h"

// The callbacks the library calls (function_tramp.c): they pass user data and state on to the
// exported Go functions of this file as integers (cgo.Handle values), never as pointers.
void gosb_function_tramp(sqlbatch_call *call, void *ud, const sqlbatch_value *args, size_t n_args, const uint8_t *data);
void gosb_step_tramp(sqlbatch_call *call, void *ud, void **state, const sqlbatch_value *args, size_t n_rows, size_t n_args, const uint8_t *data);
void gosb_finish_tramp(sqlbatch_call *call, void *ud, void *state);
void gosb_inverse_tramp(sqlbatch_call *call, void *ud, void **state, const sqlbatch_value *args, size_t n_rows, size_t n_args, const uint8_t *data);
void gosb_value_tramp(sqlbatch_call *call, void *ud, void *state);
int32_t gosb_collation_tramp(void *ud, const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len);
void gosb_destroy_tramp(void *ud);

static inline int32_t gosb_create_function(sqlbatch_conn *conn, const char *name, size_t name_len,
		int32_t n_args, uint32_t flags, uintptr_t h, int del) {
	return sqlbatch_conn_create_function(conn, name, name_len, n_args, flags,
		del ? NULL : gosb_function_tramp, (void *)h, del ? NULL : gosb_destroy_tramp);
}

static inline int32_t gosb_create_aggregate(sqlbatch_conn *conn, const char *name, size_t name_len,
		int32_t n_args, uint32_t flags, size_t batch_rows, size_t batch_bytes, uintptr_t h, int window) {
	sqlbatch_aggregate fns = {gosb_step_tramp, gosb_finish_tramp,
		window ? gosb_inverse_tramp : NULL, window ? gosb_value_tramp : NULL, batch_rows, batch_bytes};
	return sqlbatch_conn_create_aggregate(conn, name, name_len, n_args, flags, &fns, (void *)h,
		gosb_destroy_tramp);
}

static inline int32_t gosb_create_collation(sqlbatch_conn *conn, const char *name, size_t name_len,
		uintptr_t h, int del) {
	return sqlbatch_conn_create_collation(conn, name, name_len, del ? NULL : gosb_collation_tramp,
		(void *)h, del ? NULL : gosb_destroy_tramp);
}

// The result setters run inside a callback and never call back into Go.
#cgo noescape sqlbatch_call_result
#cgo nocallback sqlbatch_call_result
#cgo noescape sqlbatch_call_error
#cgo nocallback sqlbatch_call_error
// The create_* calls may call back (the destroy callback of a replaced registration), so
// they are neither nocallback nor noescape (the name must not be on the Go stack).

*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Function flags, with the header's values.
const (
	FunctionDeterministic = C.SQLBATCH_FUNCTION_DETERMINISTIC
	FunctionDirectOnly    = C.SQLBATCH_FUNCTION_DIRECTONLY
	FunctionInnocuous     = C.SQLBATCH_FUNCTION_INNOCUOUS
)

// SQLiteError is SQLITE_ERROR, the code of a failed Go callback.
const SQLiteError = 1

// Call is the sqlbatch_call of one callback: valid only until the callback returns.
type Call struct{ p *C.sqlbatch_call }

// Result is sqlbatch_call_result: v's TEXT or BLOB bytes are data[v.Bits:v.Bits+v.Len]
// (copied by the library).
func (c Call) Result(v *Value, data []byte) int32 {
	return int32(C.sqlbatch_call_result(c.p, (*C.sqlbatch_value)(unsafe.Pointer(v)), bptr(data), C.size_t(len(data))))
}

// Store puts a number or NULL in the call's result field (call->result), with plain stores
// and no call into C; a result set through Result or ResultText takes precedence.
func (c Call) Store(v Value) {
	*(*Value)(unsafe.Pointer(&c.p.result)) = v
}

// ResultText is Result for a TEXT or BLOB v whose bytes are those of s (v.Bits 0).
func (c Call) ResultText(v *Value, s string) int32 {
	return int32(C.sqlbatch_call_result(c.p, (*C.sqlbatch_value)(unsafe.Pointer(v)),
		(*C.uint8_t)(unsafe.Pointer(unsafe.StringData(s))), C.size_t(len(s))))
}

// Error is sqlbatch_call_error.
func (c Call) Error(code int32, msg string) {
	C.sqlbatch_call_error(c.p, C.int32_t(code), cstr(msg), C.size_t(len(msg)))
}

// Function is the Go side of a scalar function. args are the call's cells; the bytes of a
// TEXT or BLOB cell are at data + Bits (C memory, valid during the call; see Bytes).
type Function interface {
	Call(call Call, args []Value, data *byte)
}

// Aggregate is the Go side of an aggregate. Step gets nRows rows of nArgs cells (row-major)
// and the group's state (0 at the group's first call: Step sets it); Finish gets the state
// once per group (0 if the group had no row) and releases it.
type Aggregate interface {
	Step(call Call, state *uintptr, args []Value, nRows, nArgs int, data *byte)
	Finish(call Call, state uintptr)
}

// Window is the Go side of a window function: an Aggregate with Inverse (rows leaving the
// frame) and Value (the current result, keeping the state).
type Window interface {
	Aggregate
	Inverse(call Call, state *uintptr, args []Value, nRows, nArgs int, data *byte)
	Value(call Call, state uintptr)
}

// Collation is the Go side of a collation; a and b are C memory valid during the call.
type Collation interface {
	Compare(a, b []byte) int
}

// CreateFunction is sqlbatch_conn_create_function with f as user data (nil f deletes).
func (c Conn) CreateFunction(name string, nArgs int32, flags uint32, f Function) int32 {
	if f == nil {
		return int32(C.gosb_create_function(c.p, cstr(name), C.size_t(len(name)), C.int32_t(nArgs), C.uint32_t(flags), 0, 1))
	}
	h := NewHandle(f)
	return int32(C.gosb_create_function(c.p, cstr(name), C.size_t(len(name)), C.int32_t(nArgs), C.uint32_t(flags), C.uintptr_t(h), 0))
}

// CreateAggregate is sqlbatch_conn_create_aggregate with a as user data: a window function
// when a is a Window.
func (c Conn) CreateAggregate(name string, nArgs int32, flags uint32, batchRows, batchBytes int, a Aggregate) int32 {
	window := 0
	if _, ok := a.(Window); ok {
		window = 1
	}
	h := NewHandle(a)
	return int32(C.gosb_create_aggregate(c.p, cstr(name), C.size_t(len(name)), C.int32_t(nArgs), C.uint32_t(flags),
		C.size_t(batchRows), C.size_t(batchBytes), C.uintptr_t(h), C.int(window)))
}

// CreateCollation is sqlbatch_conn_create_collation with col as user data (nil deletes).
func (c Conn) CreateCollation(name string, col Collation) int32 {
	if col == nil {
		return int32(C.gosb_create_collation(c.p, cstr(name), C.size_t(len(name)), 0, 1))
	}
	h := NewHandle(col)
	return int32(C.gosb_create_collation(c.p, cstr(name), C.size_t(len(name)), C.uintptr_t(h), 0))
}

// recoverInto turns a panic of a callback into the call's error: a Go panic must never
// unwind into C.
func recoverInto(call Call) {
	if r := recover(); r != nil {
		call.Error(SQLiteError, fmt.Sprint("panic: ", r))
	}
}

//export gosbFunction
func gosbFunction(call *C.sqlbatch_call, ud C.uintptr_t, args *C.sqlbatch_value, nArgs C.size_t, data *C.uint8_t) {
	c := Call{call}
	defer recoverInto(c)
	HandleValue(uintptr(ud)).(Function).Call(c, cells(args, int(nArgs)), (*byte)(unsafe.Pointer(data)))
}

//export gosbStep
func gosbStep(call *C.sqlbatch_call, ud C.uintptr_t, state *C.uintptr_t, args *C.sqlbatch_value, nRows, nArgs C.size_t, data *C.uint8_t) {
	c := Call{call}
	defer recoverInto(c)
	HandleValue(uintptr(ud)).(Aggregate).Step(c, (*uintptr)(unsafe.Pointer(state)),
		cells(args, int(nRows)*int(nArgs)), int(nRows), int(nArgs), (*byte)(unsafe.Pointer(data)))
}

//export gosbFinish
func gosbFinish(call *C.sqlbatch_call, ud C.uintptr_t, state C.uintptr_t) {
	c := Call{call}
	defer recoverInto(c)
	HandleValue(uintptr(ud)).(Aggregate).Finish(c, uintptr(state))
}

//export gosbInverse
func gosbInverse(call *C.sqlbatch_call, ud C.uintptr_t, state *C.uintptr_t, args *C.sqlbatch_value, nRows, nArgs C.size_t, data *C.uint8_t) {
	c := Call{call}
	defer recoverInto(c)
	HandleValue(uintptr(ud)).(Window).Inverse(c, (*uintptr)(unsafe.Pointer(state)),
		cells(args, int(nRows)*int(nArgs)), int(nRows), int(nArgs), (*byte)(unsafe.Pointer(data)))
}

//export gosbValue
func gosbValue(call *C.sqlbatch_call, ud C.uintptr_t, state C.uintptr_t) {
	c := Call{call}
	defer recoverInto(c)
	HandleValue(uintptr(ud)).(Window).Value(c, uintptr(state))
}

//export gosbCollation
func gosbCollation(ud C.uintptr_t, a *C.uint8_t, aLen C.size_t, b *C.uint8_t, bLen C.size_t) (r C.int32_t) {
	// A collation cannot fail: a panic compares as equal.
	defer func() {
		if recover() != nil {
			r = 0
		}
	}()
	av := unsafe.Slice((*byte)(unsafe.Pointer(a)), int(aLen))
	bv := unsafe.Slice((*byte)(unsafe.Pointer(b)), int(bLen))
	n := HandleValue(uintptr(ud)).(Collation).Compare(av, bv)
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

//export gosbDestroy
func gosbDestroy(ud C.uintptr_t) {
	if ud != 0 {
		DeleteHandle(uintptr(ud))
	}
}
