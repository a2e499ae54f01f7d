package capi

/*
#include <stdbool.h>
#include <stdint.h>
#include "sqlbatch.h"

// Incremental blob I/O. blob_open and blob_reopen step a small program (the authorizer at
// its prepare, the progress handler), blob_read_many reopens for each row, blob_close
// finalizes that program, which commits a writable handle's transaction in autocommit mode
// (commit and WAL hooks), and blob_write runs the preupdate hook (SQLite reports a write
// through a blob handle to it as a DELETE, preupdate.go): once a Go hook is set (hooks.go)
// they may call back into Go, so they are neither nocallback nor noescape. What they write
// goes to the C stack of the gosb_* helpers below and comes back by value, and the Go memory
// they read (names, the ranges and buffer of read_many) escapes to the heap, where a
// callback growing the stack cannot move it. blob_size and blob_read take no lock, run no
// SQL and change no row: nocallback, and noescape for the Go memory (the buffer of
// blob_read, out-parameters on the Go stack) that they use during the call only.

typedef struct { int32_t rc; sqlbatch_blob *b; } gosb_blob_ret;
typedef struct { int32_t rc; size_t n; } gosb_many_ret;

static inline gosb_blob_ret gosb_blob_open(sqlbatch_conn *c, const char *s, size_t sl,
		const char *t, size_t tl, const char *col, size_t cl, int64_t rowid, bool w) {
	gosb_blob_ret out = {0};
	out.rc = sqlbatch_blob_open(c, s, sl, t, tl, col, cl, rowid, w, &out.b);
	return out;
}

static inline gosb_many_ret gosb_blob_read_many(sqlbatch_blob *b, sqlbatch_blob_range *r,
		size_t n, uint8_t *buf, size_t len) {
	gosb_many_ret out = {0};
	out.rc = sqlbatch_blob_read_many(b, r, n, buf, len, &out.n);
	return out;
}

#cgo noescape sqlbatch_blob_size
#cgo noescape sqlbatch_blob_read

#cgo nocallback sqlbatch_blob_size
#cgo nocallback sqlbatch_blob_read
*/
import "C"

import "unsafe"

// Blob is a sqlbatch_blob handle. The zero Blob is a NULL handle.
type Blob struct{ p *C.sqlbatch_blob }

// IsNil reports whether b is a NULL handle.
func (b Blob) IsNil() bool { return b.p == nil }

// BlobOpen is sqlbatch_blob_open.
func (c Conn) BlobOpen(schema, table, column string, rowid int64, writable bool) (Blob, int32) {
	s, sl := optstr(schema)
	t, tl := reqstr(table)
	col, cl := reqstr(column)
	out := C.gosb_blob_open(c.p, s, sl, t, tl, col, cl, C.int64_t(rowid), C.bool(writable))
	return Blob{out.b}, int32(out.rc)
}

// Size is sqlbatch_blob_size.
func (b Blob) Size() (uint64, int32) {
	var n C.uint64_t
	rc := C.sqlbatch_blob_size(b.p, &n)
	return uint64(n), int32(rc)
}

// Read is sqlbatch_blob_read into all of buf.
func (b Blob) Read(offset uint64, buf []byte) int32 {
	return int32(C.sqlbatch_blob_read(b.p, C.uint64_t(offset), bptr(buf), C.size_t(len(buf))))
}

// Write is sqlbatch_blob_write of all of buf.
func (b Blob) Write(offset uint64, buf []byte) int32 {
	return int32(C.sqlbatch_blob_write(b.p, C.uint64_t(offset), bptr(buf), C.size_t(len(buf))))
}

// Reopen is sqlbatch_blob_reopen.
func (b Blob) Reopen(rowid int64) int32 {
	return int32(C.sqlbatch_blob_reopen(b.p, C.int64_t(rowid)))
}

// Close is sqlbatch_blob_close. It must be called once per handle.
func (b Blob) Close() { C.sqlbatch_blob_close(b.p) }

// BlobRange mirrors sqlbatch_blob_range; the unsigned fields of C are int64 here (a Len of
// -1 is SQLBATCH_BLOB_TO_END, UINT64_MAX).
type BlobRange struct {
	RowID  int64
	Offset int64
	Len    int64
	At     int64
}

// Compile-time checks that BlobRange and sqlbatch_blob_range have the same layout.
var (
	_ [unsafe.Sizeof(BlobRange{}) - unsafe.Sizeof(C.sqlbatch_blob_range{})]struct{}
	_ [unsafe.Sizeof(C.sqlbatch_blob_range{}) - unsafe.Sizeof(BlobRange{})]struct{}
	_ [unsafe.Offsetof(BlobRange{}.Offset) - unsafe.Offsetof(C.sqlbatch_blob_range{}.offset)]struct{}
	_ [unsafe.Offsetof(C.sqlbatch_blob_range{}.offset) - unsafe.Offsetof(BlobRange{}.Offset)]struct{}
	_ [unsafe.Offsetof(BlobRange{}.Len) - unsafe.Offsetof(C.sqlbatch_blob_range{}.len)]struct{}
	_ [unsafe.Offsetof(C.sqlbatch_blob_range{}.len) - unsafe.Offsetof(BlobRange{}.Len)]struct{}
	_ [unsafe.Offsetof(BlobRange{}.At) - unsafe.Offsetof(C.sqlbatch_blob_range{}.at)]struct{}
	_ [unsafe.Offsetof(C.sqlbatch_blob_range{}.at) - unsafe.Offsetof(BlobRange{}.At)]struct{}
	_ = [1]struct{}{}[uint64(C.SQLBATCH_BLOB_TO_END)-^uint64(0)]
)

// ReadMany is sqlbatch_blob_read_many; done is the number of ranges read.
func (b Blob) ReadMany(ranges []BlobRange, buf []byte) (done int, rc int32) {
	out := C.gosb_blob_read_many(b.p, (*C.sqlbatch_blob_range)(unsafe.Pointer(unsafe.SliceData(ranges))),
		C.size_t(len(ranges)), bptr(buf), C.size_t(len(buf)))
	return int(out.n), int32(out.rc)
}
