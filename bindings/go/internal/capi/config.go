package capi

/*
#include <stdbool.h>
#include <stdint.h>
#include "sqlbatch.h"

// Serialize and deserialize, the text encoding, limits, db_config, checkpoints, status counters, txn_state,
// readonly, filename.
//
// checkpoint waits on locks (the busy handler), serialize and encoding run a PRAGMA and deserialize an
// ATTACH (the authorizer, the progress handler): once a Go hook is set (hooks.go) they may
// call back into Go, so they are neither nocallback nor noescape. What they write goes to the
// C stack of the gosb_* helpers below and comes back by value, and the Go memory they read
// (names, the buffer of deserialize) escapes to the heap, where a callback growing the stack
// cannot move it.
//
// The others take no lock, run no SQL and change no row: nocallback, and noescape for the Go
// memory (names, out-parameters on the Go stack) that they read or write during the call
// only.

typedef struct { int32_t rc; int32_t log; int32_t ckpt; } gosb_ckpt_ret;
typedef struct { int32_t rc; uint8_t *data; size_t n; } gosb_ser_ret;
typedef struct { int32_t rc; int32_t enc; } gosb_enc_ret;

static inline gosb_ckpt_ret gosb_checkpoint(sqlbatch_conn *c, const char *s, size_t sl, int32_t mode) {
	gosb_ckpt_ret out = {0};
	out.rc = sqlbatch_conn_checkpoint(c, s, sl, mode, &out.log, &out.ckpt);
	return out;
}

static inline gosb_enc_ret gosb_encoding(sqlbatch_conn *c) {
	gosb_enc_ret out = {0};
	out.rc = sqlbatch_conn_encoding(c, &out.enc);
	return out;
}

static inline gosb_ser_ret gosb_serialize(sqlbatch_conn *c, const char *s, size_t sl) {
	gosb_ser_ret out = {0};
	out.rc = sqlbatch_conn_serialize(c, s, sl, &out.data, &out.n);
	return out;
}

#cgo noescape sqlbatch_conn_limit
#cgo noescape sqlbatch_conn_db_config
#cgo noescape sqlbatch_conn_status
#cgo noescape sqlbatch_stmt_status
#cgo noescape sqlbatch_conn_txn_state
#cgo noescape sqlbatch_conn_readonly
#cgo noescape sqlbatch_conn_filename

#cgo nocallback sqlbatch_free
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

	EncodingUTF8    = C.SQLBATCH_ENCODING_UTF8
	EncodingUTF16LE = C.SQLBATCH_ENCODING_UTF16LE
	EncodingUTF16BE = C.SQLBATCH_ENCODING_UTF16BE

	DeserializeReadOnly   = C.SQLBATCH_DESERIALIZE_READONLY
	DeserializeResizeable = C.SQLBATCH_DESERIALIZE_RESIZEABLE
)

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

// Encoding is sqlbatch_conn_encoding (it runs a PRAGMA: a Go hook may be called).
func (c Conn) Encoding() (int32, int32) {
	out := C.gosb_encoding(c.p)
	return int32(out.enc), int32(out.rc)
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
