package capi

/*
#include <stdbool.h>
#include <stdint.h>
#include "sqlbatch.h"

// Online backup, serialize/deserialize, incremental blob I/O, limits, db_config, checkpoints,
// status counters, txn_state, readonly, filename.
//
// Some of these run SQL or take locks, and so may call back into Go once a Go hook is set
// (hooks.go): backup_step takes the source's and destination's locks (the busy handler);
// backup_finish ends the destination's transaction; backup_to_file and restore_from_file step
// a whole backup; checkpoint waits on locks (busy handler); serialize runs a PRAGMA and
// deserialize an ATTACH (authorizer, progress handler); blob_open and blob_reopen step a small
// program (authorizer at its prepare, progress handler), blob_read_many reopens for each row;
// blob_close finalizes that program, which commits a writable handle's transaction in
// autocommit mode (commit and WAL hooks); blob_write runs the preupdate hook (SQLite reports
// a write through a blob handle to it as a DELETE, preupdate.go). Those are neither nocallback nor noescape: what
// they write goes to the C stack of the gosb_* helpers below and comes back by value, and the
// Go memory they read (names, paths, the buffer of deserialize, the ranges and buffer of
// read_many) escapes to the heap, where a callback growing the stack cannot move it.
//
// The others take no lock, run no SQL and change no row: nocallback, and noescape for the Go
// memory (names, the buffer of blob_read, out-parameters on the Go stack) that they read or
// write during the call only.

typedef struct { int32_t rc; sqlbatch_blob *b; } gosb_blob_ret;
typedef struct { int32_t rc; int32_t log; int32_t ckpt; } gosb_ckpt_ret;
typedef struct { int32_t rc; size_t n; } gosb_many_ret;
typedef struct { int32_t rc; uint8_t *data; size_t n; } gosb_ser_ret;

static inline gosb_blob_ret gosb_blob_open(sqlbatch_conn *c, const char *s, size_t sl,
		const char *t, size_t tl, const char *col, size_t cl, int64_t rowid, bool w) {
	gosb_blob_ret out = {0};
	out.rc = sqlbatch_blob_open(c, s, sl, t, tl, col, cl, rowid, w, &out.b);
	return out;
}

static inline gosb_ckpt_ret gosb_checkpoint(sqlbatch_conn *c, const char *s, size_t sl, int32_t mode) {
	gosb_ckpt_ret out = {0};
	out.rc = sqlbatch_conn_checkpoint(c, s, sl, mode, &out.log, &out.ckpt);
	return out;
}

static inline gosb_many_ret gosb_blob_read_many(sqlbatch_blob *b, sqlbatch_blob_range *r,
		size_t n, uint8_t *buf, size_t len) {
	gosb_many_ret out = {0};
	out.rc = sqlbatch_blob_read_many(b, r, n, buf, len, &out.n);
	return out;
}

static inline gosb_ser_ret gosb_serialize(sqlbatch_conn *c, const char *s, size_t sl) {
	gosb_ser_ret out = {0};
	out.rc = sqlbatch_conn_serialize(c, s, sl, &out.data, &out.n);
	return out;
}

#cgo noescape sqlbatch_backup_init
#cgo noescape sqlbatch_backup_remaining
#cgo noescape sqlbatch_backup_pagecount
#cgo noescape sqlbatch_blob_size
#cgo noescape sqlbatch_blob_read
#cgo noescape sqlbatch_conn_limit
#cgo noescape sqlbatch_conn_db_config
#cgo noescape sqlbatch_conn_status
#cgo noescape sqlbatch_stmt_status
#cgo noescape sqlbatch_conn_txn_state
#cgo noescape sqlbatch_conn_readonly
#cgo noescape sqlbatch_conn_filename

#cgo nocallback sqlbatch_backup_init
#cgo nocallback sqlbatch_backup_remaining
#cgo nocallback sqlbatch_backup_pagecount
#cgo nocallback sqlbatch_free
#cgo nocallback sqlbatch_blob_size
#cgo nocallback sqlbatch_blob_read
#cgo nocallback sqlbatch_conn_limit
#cgo nocallback sqlbatch_conn_db_config
#cgo nocallback sqlbatch_conn_status
#cgo nocallback sqlbatch_stmt_status
#cgo nocallback sqlbatch_conn_txn_state
#cgo nocallback sqlbatch_conn_readonly
#cgo nocallback sqlbatch_conn_filename
*/
import "C"

import "unsafe"

// Constants of the header for this part of the ABI.
const (
	CheckpointPassive  = C.SQLBATCH_CHECKPOINT_PASSIVE
	CheckpointFull     = C.SQLBATCH_CHECKPOINT_FULL
	CheckpointRestart  = C.SQLBATCH_CHECKPOINT_RESTART
	CheckpointTruncate = C.SQLBATCH_CHECKPOINT_TRUNCATE

	TxnNone  = C.SQLBATCH_TXN_NONE
	TxnRead  = C.SQLBATCH_TXN_READ
	TxnWrite = C.SQLBATCH_TXN_WRITE

	DeserializeReadOnly   = C.SQLBATCH_DESERIALIZE_READONLY
	DeserializeResizeable = C.SQLBATCH_DESERIALIZE_RESIZEABLE
)

// Backup is a sqlbatch_backup handle. The zero Backup is a NULL handle.
type Backup struct{ p *C.sqlbatch_backup }

// Blob is a sqlbatch_blob handle. The zero Blob is a NULL handle.
type Blob struct{ p *C.sqlbatch_blob }

// IsNil reports whether b is a NULL handle.
func (b Backup) IsNil() bool { return b.p == nil }

// IsNil reports whether b is a NULL handle.
func (b Blob) IsNil() bool { return b.p == nil }

// optstr passes an optional name: NULL for "" (the ABI's default, "main" or every database).
func optstr(s string) (*C.char, C.size_t) {
	if s == "" {
		return nil, 0
	}
	return cstr(s), C.size_t(len(s))
}

// empty is the address passed for a required string that is empty, so that the library
// (not a NULL check) judges it.
var empty = [1]byte{0}

// reqstr passes a required string, never as NULL.
func reqstr(s string) (*C.char, C.size_t) {
	if s == "" {
		return (*C.char)(unsafe.Pointer(&empty[0])), 0
	}
	return cstr(s), C.size_t(len(s))
}

// BackupInit is sqlbatch_backup_init (dest is c).
func (c Conn) BackupInit(destSchema string, src Conn, srcSchema string) (Backup, int32) {
	var p *C.sqlbatch_backup
	ds, dl := optstr(destSchema)
	ss, sl := optstr(srcSchema)
	rc := C.sqlbatch_backup_init(c.p, ds, dl, src.p, ss, sl, &p)
	return Backup{p}, int32(rc)
}

// Step is sqlbatch_backup_step.
func (b Backup) Step(pages int32) int32 {
	return int32(C.sqlbatch_backup_step(b.p, C.int32_t(pages)))
}

// Remaining is sqlbatch_backup_remaining.
func (b Backup) Remaining() (int64, int32) {
	var n C.int64_t
	rc := C.sqlbatch_backup_remaining(b.p, &n)
	return int64(n), int32(rc)
}

// PageCount is sqlbatch_backup_pagecount.
func (b Backup) PageCount() (int64, int32) {
	var n C.int64_t
	rc := C.sqlbatch_backup_pagecount(b.p, &n)
	return int64(n), int32(rc)
}

// Finish is sqlbatch_backup_finish. It must be called once per handle.
func (b Backup) Finish() int32 { return int32(C.sqlbatch_backup_finish(b.p)) }

// BackupToFile is sqlbatch_conn_backup_to_file.
func (c Conn) BackupToFile(schema, path string) int32 {
	s, sl := optstr(schema)
	p, pl := reqstr(path)
	return int32(C.sqlbatch_conn_backup_to_file(c.p, s, sl, p, pl))
}

// RestoreFromFile is sqlbatch_conn_restore_from_file.
func (c Conn) RestoreFromFile(schema, path string) int32 {
	s, sl := optstr(schema)
	p, pl := reqstr(path)
	return int32(C.sqlbatch_conn_restore_from_file(c.p, s, sl, p, pl))
}

// Serialize is sqlbatch_conn_serialize, the bytes copied into Go memory and the library's
// buffer freed (nil for a database of no pages).
func (c Conn) Serialize(schema string) ([]byte, int32) {
	s, sl := optstr(schema)
	ret := C.gosb_serialize(c.p, s, sl)
	rc, data, n := ret.rc, ret.data, ret.n
	if rc != OK {
		return nil, int32(rc)
	}
	if data == nil {
		return []byte{}, OK
	}
	out := make([]byte, int(n))
	copy(out, unsafe.Slice((*byte)(unsafe.Pointer(data)), int(n)))
	C.sqlbatch_free(unsafe.Pointer(data))
	return out, OK
}

// Deserialize is sqlbatch_conn_deserialize (the library copies b).
func (c Conn) Deserialize(schema string, b []byte, flags uint32) int32 {
	s, sl := optstr(schema)
	return int32(C.sqlbatch_conn_deserialize(c.p, s, sl, bptr(b), C.size_t(len(b)), C.uint32_t(flags)))
}

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

// Limit is sqlbatch_conn_limit: the old value; value < 0 only reads.
func (c Conn) Limit(id, value int32) (int32, int32) {
	var old C.int32_t
	rc := C.sqlbatch_conn_limit(c.p, C.int32_t(id), C.int32_t(value), &old)
	return int32(old), int32(rc)
}

// DBConfig is sqlbatch_conn_db_config: the switch's state after the call; value -1 reads.
func (c Conn) DBConfig(op, value int32) (int32, int32) {
	var out C.int32_t
	rc := C.sqlbatch_conn_db_config(c.p, C.int32_t(op), C.int32_t(value), &out)
	return int32(out), int32(rc)
}

// Checkpoint is sqlbatch_conn_checkpoint.
func (c Conn) Checkpoint(schema string, mode int32) (log, checkpointed int32, rc int32) {
	s, sl := optstr(schema)
	out := C.gosb_checkpoint(c.p, s, sl, C.int32_t(mode))
	return int32(out.log), int32(out.ckpt), int32(out.rc)
}

// Status is sqlbatch_conn_status.
func (c Conn) Status(op int32, reset bool) (cur, high int64, rc int32) {
	var cu, hi C.int64_t
	r := C.sqlbatch_conn_status(c.p, C.int32_t(op), C.bool(reset), &cu, &hi)
	return int64(cu), int64(hi), int32(r)
}

// Status is sqlbatch_stmt_status.
func (s Stmt) Status(op int32, reset bool) (int64, int32) {
	var n C.int64_t
	rc := C.sqlbatch_stmt_status(s.p, C.int32_t(op), C.bool(reset), &n)
	return int64(n), int32(rc)
}

// TxnState is sqlbatch_conn_txn_state.
func (c Conn) TxnState(schema string) (int32, int32) {
	s, sl := optstr(schema)
	var out C.int32_t
	rc := C.sqlbatch_conn_txn_state(c.p, s, sl, &out)
	return int32(out), int32(rc)
}

// Readonly is sqlbatch_conn_readonly.
func (c Conn) Readonly(schema string) (bool, int32) {
	s, sl := optstr(schema)
	var out C.bool
	rc := C.sqlbatch_conn_readonly(c.p, s, sl, &out)
	return bool(out), int32(rc)
}

// Filename is sqlbatch_conn_filename, copied into Go memory.
func (c Conn) Filename(schema string) (string, int32) {
	s, sl := optstr(schema)
	var out *C.char
	rc := C.sqlbatch_conn_filename(c.p, s, sl, &out)
	if rc != OK || out == nil {
		return "", int32(rc)
	}
	return C.GoString(out), OK
}
