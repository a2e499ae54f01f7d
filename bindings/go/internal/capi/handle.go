package capi

import (
	"runtime/cgo"
	"sync/atomic"
)

// The user data of every callback (functions, hooks, sessions) crosses to C and back as a
// cgo.Handle made here, an integer, never as a Go pointer.

var liveHandles atomic.Int64

// LiveHandles is the number of cgo.Handles this package holds for registrations and
// aggregate groups (for tests: it returns to its old value once they are destroyed).
func LiveHandles() int64 { return liveHandles.Load() }

// NewHandle wraps cgo.NewHandle, counted by LiveHandles.
func NewHandle(v any) uintptr {
	liveHandles.Add(1)
	return uintptr(cgo.NewHandle(v))
}

// HandleValue is the value of a handle made by NewHandle.
func HandleValue(h uintptr) any { return cgo.Handle(h).Value() }

// DeleteHandle deletes a handle made by NewHandle.
func DeleteHandle(h uintptr) {
	cgo.Handle(h).Delete()
	liveHandles.Add(-1)
}
