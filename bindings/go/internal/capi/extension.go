package capi

/*
#include <stdbool.h>
#include "sqlbatch.h"

// Neither enabling nor the automatic-extension registry runs an extension or any callback
// (an automatic extension runs later, inside sqlbatch_conn_open), and they take no Go memory.
#cgo nocallback sqlbatch_conn_enable_load_extension
#cgo nocallback sqlbatch_auto_extension
#cgo nocallback sqlbatch_cancel_auto_extension

// load_extension and init_extension run the extension's entry point, which calls SQLite
// only, but what it does there can call into Go: registering a function, collation or
// module under a name a Go registration of the connection holds replaces that registration,
// and SQLite then runs its destroy callback (gosbDestroy). So they are not nocallback, and
// not noescape either (the path and entry strings must not be on the Go stack while Go runs).
*/
import "C"

import "unsafe"

// EnableLoadExtension is sqlbatch_conn_enable_load_extension.
func (c Conn) EnableLoadExtension(on bool) int32 {
	return int32(C.sqlbatch_conn_enable_load_extension(c.p, C.bool(on)))
}

// LoadExtension is sqlbatch_conn_load_extension; an empty entry passes NULL (SQLite's
// default entry point).
func (c Conn) LoadExtension(path, entry string) int32 {
	var e *C.char
	if entry != "" {
		e = cstr(entry)
	}
	return int32(C.sqlbatch_conn_load_extension(c.p, cstr(path), C.size_t(len(path)), e, C.size_t(len(entry))))
}

// initFn is init, the address of a C function with the sqlbatch_extension_init_fn signature
// (nil gives a NULL entry point, which the library refuses).
func initFn(init unsafe.Pointer) C.sqlbatch_extension_init_fn {
	return C.sqlbatch_extension_init_fn(init)
}

// InitExtension is sqlbatch_conn_init_extension.
func (c Conn) InitExtension(init unsafe.Pointer) int32 {
	return int32(C.sqlbatch_conn_init_extension(c.p, initFn(init)))
}

// AutoExtension is sqlbatch_auto_extension.
func AutoExtension(init unsafe.Pointer) int32 {
	return int32(C.sqlbatch_auto_extension(initFn(init)))
}

// CancelAutoExtension is sqlbatch_cancel_auto_extension: OK if init was registered, Done if
// it was not.
func CancelAutoExtension(init unsafe.Pointer) int32 {
	return int32(C.sqlbatch_cancel_auto_extension(initFn(init)))
}
