// Package capi is the raw layer of the Go binding: the only package that imports "C".
//
// Every function here is a thin wrapper over one function of include/sqlbatch.h that takes
// and returns Go types, so that nothing else in the module touches C types. The wrappers
// make no policy decisions (no error objects, no retries); the root package sqlbatch does.
//
// # Pointer rules
//
// Go memory passed to C never contains Go pointers: parameter values ([]Value) carry
// offsets into a []byte instead of addresses, SQL text is passed as the bytes of a Go string,
// and out-parameters are Go stack variables that C fills in before returning. The
// sqlbatch_params struct, which does hold pointers, is never Go memory: small static C
// helpers of the preamble take its arrays as arguments and build it on the C stack. A
// function that takes a pointer is declared "#cgo noescape" (C keeps no Go pointer after the
// call, so the out-parameters stay on the stack), and one that never calls back into Go
// "#cgo nocallback"; those that may call back (a step that runs an SQL function, a hook or a
// virtual table's methods; a bind that closes a virtual table's cursor) are declared neither
// way. Batches point at C memory owned by the statement; Go reads it with unsafe.Slice.
//
// Empty arrays the ABI hands out (the cells and bytes of a batch, the column and parameter
// arrays) are NULL: a pointer field of Go type may hold them across a stack growth or a
// garbage collection, which would die on a dangling non-NULL pointer such as 0x8. Go reads
// them only with their counts (unsafe.Slice(nil, 0) is an empty slice), never by pointer
// arithmetic.
//
// # Linking
//
// The link flags live in link_*.go: by default the per-platform module of GOOS/GOARCH (one
// file per platform), or one file per build tag (sqlbatch_dynamic, sqlbatch_pkgconfig,
// sqlbatch_external); see the module's README. sqlbatch.h here is a copy of the repository's
// include/sqlbatch.h (a module holds only its own files), written and checked by
// tests/header_in_sync.rs.
package capi

/*
#cgo CFLAGS: -I${SRCDIR} -O2

#include "sqlbatch.h"

// The calls that take a sqlbatch_params go through these helpers, which build the struct on
// the C stack from arrays passed as arguments: a sqlbatch_params in Go memory would be Go
// memory holding Go pointers (values, names, data), which cgo does not let Go pass to C.
// They are static inline, so the compiler folds them into the cgo stub: no extra call.

static inline int32_t gosb_conn_exec(sqlbatch_conn *conn, const char *sql, size_t sql_len,
		const sqlbatch_value *values, const sqlbatch_value *names, size_t n_values,
		const uint8_t *data, size_t data_len, sqlbatch_exec_result *out_result) {
	sqlbatch_params p = {values, names, n_values, data, data_len, 0};
	return sqlbatch_conn_exec(conn, sql, sql_len, &p, out_result);
}

static inline int32_t gosb_stmt_bind(sqlbatch_stmt *stmt, const sqlbatch_value *values,
		const sqlbatch_value *names, size_t n_values, const uint8_t *data, size_t data_len) {
	sqlbatch_params p = {values, names, n_values, data, data_len, 0};
	return sqlbatch_stmt_bind(stmt, &p);
}

static inline int32_t gosb_stmt_execute_many(sqlbatch_stmt *stmt, const sqlbatch_value *values,
		const sqlbatch_value *names, size_t n_values, const uint8_t *data, size_t data_len,
		size_t n_rows, sqlbatch_write_result *out_result) {
	sqlbatch_params p = {values, names, n_values, data, data_len, 0};
	return sqlbatch_stmt_execute_many(stmt, &p, n_rows, out_result);
}

// Table-valued parameters (sqlbatch_stmt_bind_rows): the tables of one run are bound in the
// crossing that binds its other parameters. Each gosb_table_ref says where a table's cells are
// in one array of cells shared by every table of the run (cells[first .. first + n]), whose
// TEXT and BLOB bytes are in one block (data); the refs, cells and bytes are Go memory that
// holds no Go pointer, read during the call only. The table's parameter was bound to NULL by
// the sqlbatch_stmt_bind before (the ABI binds every parameter there).
typedef struct { uint64_t index, first, n, n_cols; } gosb_table_ref;
typedef struct { int32_t rc; size_t failed; } gosb_tables_ret;

static inline gosb_tables_ret gosb_bind_tables(sqlbatch_stmt *stmt, const gosb_table_ref *refs, size_t n_refs,
		const sqlbatch_value *cells, const uint8_t *data, size_t data_len) {
	gosb_tables_ret out = {SQLBATCH_OK, 0};
	for (size_t i = 0; i < n_refs; i++) {
		sqlbatch_params p = {refs[i].n ? cells + refs[i].first : NULL, NULL, (size_t)refs[i].n, data, data_len, 0};
		out.rc = sqlbatch_stmt_bind_rows(stmt, (size_t)refs[i].index, &p, (size_t)refs[i].n_cols);
		if (out.rc != SQLBATCH_OK) {
			out.failed = i;
			return out;
		}
	}
	return out;
}

// gosb_stmt_bind_tables is gosb_stmt_bind and then the tables, in one crossing; failed is the
// index of the table whose bind failed (bind_rc is the parameters' bind, rc the tables').
typedef struct { int32_t bind_rc; int32_t rc; size_t failed; } gosb_bind_tables_ret;
static inline gosb_bind_tables_ret gosb_stmt_bind_tables(sqlbatch_stmt *stmt, const sqlbatch_value *values,
		size_t n_values, const uint8_t *data, size_t data_len, const gosb_table_ref *refs, size_t n_refs,
		const sqlbatch_value *tcells, const uint8_t *tdata, size_t tdata_len) {
	gosb_bind_tables_ret out = {0};
	sqlbatch_params p = {values, NULL, n_values, data, data_len, 0};
	out.bind_rc = sqlbatch_stmt_bind(stmt, &p);
	if (out.bind_rc == SQLBATCH_OK) {
		gosb_tables_ret t = gosb_bind_tables(stmt, refs, n_refs, tcells, tdata, tdata_len);
		out.rc = t.rc;
		out.failed = t.failed;
	}
	return out;
}


// stack: a callback may grow the goroutine's stack and move it under C. Their out-parameters
// are therefore on the C stack of these helpers, which return them by value.
typedef struct { int32_t rc; sqlbatch_batch b; } gosb_fetch_ret;
typedef struct { int32_t rc; sqlbatch_exec_result r; } gosb_exec_ret;
typedef struct { int32_t rc; sqlbatch_write_result r; } gosb_write_ret;
typedef struct { int32_t rc; sqlbatch_stmt *s; size_t tail; size_t nparams; } gosb_prepare_ret;

// gosb_stmt_prepare prepares and, in the same crossing, reads the statement's parameter
// count (sqlbatch_stmt_param_count, which does not build the names: they are asked for
// through sqlbatch_stmt_params only when a named argument is bound or a name is read), which
// every Stmt needs (database/sql's NumInput, Bind).
static inline gosb_prepare_ret gosb_stmt_prepare(sqlbatch_conn *conn, const char *sql, size_t sql_len, uint32_t flags) {
	gosb_prepare_ret out = {0};
	out.rc = sqlbatch_stmt_prepare(conn, sql, sql_len, flags, &out.s, &out.tail);
	if (out.rc == SQLBATCH_OK && out.s != NULL) {
		if (sqlbatch_stmt_param_count(out.s, &out.nparams) != SQLBATCH_OK) {
			out.nparams = (size_t)-1; // unknown: asked again through Params
		}
	}
	return out;
}

static inline gosb_fetch_ret gosb_stmt_fetch(sqlbatch_stmt *stmt, size_t max_rows, size_t max_bytes) {
	gosb_fetch_ret out = {0};
	out.rc = sqlbatch_stmt_fetch(stmt, max_rows, max_bytes, &out.b);
	return out;
}

// gosb_stmt_fetch_first is gosb_stmt_fetch for the first fetch of a run, which may have
// recompiled the statement (a schema change): it also reads, in the same crossing, the
// statement's count of recompilations (SQLITE_STMTSTATUS_REPREPARE), by which the Go side
// knows whether its columns can have changed; -1 if that could not be read.
typedef struct { int32_t rc; sqlbatch_batch b; int64_t reprepares; } gosb_fetch_first_ret;
static inline gosb_fetch_first_ret gosb_stmt_fetch_first(sqlbatch_stmt *stmt, size_t max_rows, size_t max_bytes) {
	gosb_fetch_first_ret out = {0};
	out.rc = sqlbatch_stmt_fetch(stmt, max_rows, max_bytes, &out.b);
	if (sqlbatch_stmt_status(stmt, 5, false, &out.reprepares) != SQLBATCH_OK) { // 5: SQLITE_STMTSTATUS_REPREPARE
		out.reprepares = -1;
	}
	return out;
}

// gosb_stmt_bind_fetch_first is gosb_stmt_bind and then, if the bind succeeded,
// gosb_stmt_fetch_first, in one crossing (bind_rc is the bind's status, rc the fetch's). The
// values and bytes are read by the bind only; they must be Go heap memory (a callback the
// fetch runs may move the goroutine's stack).
typedef struct { int32_t bind_rc; int32_t rc; sqlbatch_batch b; int64_t reprepares; } gosb_bind_fetch_ret;
static inline gosb_bind_fetch_ret gosb_stmt_bind_fetch_first(sqlbatch_stmt *stmt, const sqlbatch_value *values,
		const sqlbatch_value *names, size_t n_values, const uint8_t *data, size_t data_len,
		size_t max_rows, size_t max_bytes) {
	gosb_bind_fetch_ret out = {0};
	out.bind_rc = gosb_stmt_bind(stmt, values, names, n_values, data, data_len);
	if (out.bind_rc == SQLBATCH_OK) {
		gosb_fetch_first_ret f = gosb_stmt_fetch_first(stmt, max_rows, max_bytes);
		out.rc = f.rc;
		out.b = f.b;
		out.reprepares = f.reprepares;
	}
	return out;
}

// gosb_stmt_bind_tables_fetch_first is gosb_stmt_bind_tables and, if both succeeded,
// gosb_stmt_fetch_first, in one crossing.
typedef struct { int32_t bind_rc; int32_t tables_rc; size_t failed; int32_t rc; sqlbatch_batch b; int64_t reprepares; } gosb_bind_tables_fetch_ret;
static inline gosb_bind_tables_fetch_ret gosb_stmt_bind_tables_fetch_first(sqlbatch_stmt *stmt,
		const sqlbatch_value *values, size_t n_values, const uint8_t *data, size_t data_len,
		const gosb_table_ref *refs, size_t n_refs, const sqlbatch_value *tcells, const uint8_t *tdata,
		size_t tdata_len, size_t max_rows, size_t max_bytes) {
	gosb_bind_tables_fetch_ret out = {0};
	gosb_bind_tables_ret b = gosb_stmt_bind_tables(stmt, values, n_values, data, data_len, refs, n_refs, tcells, tdata, tdata_len);
	out.bind_rc = b.bind_rc;
	out.tables_rc = b.rc;
	out.failed = b.failed;
	if (b.bind_rc == SQLBATCH_OK && b.rc == SQLBATCH_OK) {
		gosb_fetch_first_ret f = gosb_stmt_fetch_first(stmt, max_rows, max_bytes);
		out.rc = f.rc;
		out.b = f.b;
		out.reprepares = f.reprepares;
	}
	return out;
}

// gosb_stmt_bind_tables_exec is gosb_stmt_bind_tables and, if both succeeded, a run of the
// statement to its end (rows it returns are dropped), in one crossing: a run with a bound
// table cannot go through sqlbatch_stmt_execute_many, which binds every parameter per row.
// Then the statement is reset and its bindings cleared (the tables' copies freed), as
// execute_many leaves it. changes is the statement's (sqlbatch_conn_changes) if the
// connection's total moved during the run, else 0, as execute_many counts a run.
typedef struct { int32_t bind_rc; int32_t tables_rc; size_t failed; int32_t rc; int64_t changes; int64_t last_rowid; } gosb_bind_tables_exec_ret;
static inline gosb_bind_tables_exec_ret gosb_stmt_bind_tables_exec(sqlbatch_conn *conn, sqlbatch_stmt *stmt,
		const sqlbatch_value *values, size_t n_values, const uint8_t *data, size_t data_len,
		const gosb_table_ref *refs, size_t n_refs, const sqlbatch_value *tcells, const uint8_t *tdata,
		size_t tdata_len) {
	gosb_bind_tables_exec_ret out = {0};
	gosb_bind_tables_ret b = gosb_stmt_bind_tables(stmt, values, n_values, data, data_len, refs, n_refs, tcells, tdata, tdata_len);
	out.bind_rc = b.bind_rc;
	out.tables_rc = b.rc;
	out.failed = b.failed;
	if (b.bind_rc == SQLBATCH_OK && b.rc == SQLBATCH_OK) {
		int64_t before = 0, after = 0;
		sqlbatch_conn_total_changes(conn, &before);
		sqlbatch_batch batch;
		do {
			out.rc = sqlbatch_stmt_fetch(stmt, 256, (size_t)-1, &batch);
		} while (out.rc == SQLBATCH_ROW);
		if (out.rc == SQLBATCH_DONE) {
			out.rc = SQLBATCH_OK;
			sqlbatch_conn_total_changes(conn, &after);
			if (after != before) {
				sqlbatch_conn_changes(conn, &out.changes);
			}
			sqlbatch_conn_last_insert_rowid(conn, &out.last_rowid);
		}
	}
	sqlbatch_stmt_reset(stmt);
	sqlbatch_stmt_clear_bindings(stmt);
	return out;
}

static inline gosb_fetch_ret gosb_stmt_fetch_into(sqlbatch_stmt *stmt, size_t max_rows, uint8_t *buf, size_t buf_len) {
	gosb_fetch_ret out = {0};
	out.rc = sqlbatch_stmt_fetch_into(stmt, max_rows, buf, buf_len, &out.b);
	return out;
}

static inline gosb_exec_ret gosb_conn_exec_v(sqlbatch_conn *conn, const char *sql, size_t sql_len,
		const sqlbatch_value *values, const sqlbatch_value *names, size_t n_values,
		const uint8_t *data, size_t data_len) {
	gosb_exec_ret out = {0};
	out.rc = gosb_conn_exec(conn, sql, sql_len, values, names, n_values, data, data_len, &out.r);
	return out;
}

// The write-behind pair (sqlbatch_stmt_execute_many_start / _wait). start reads the
// sqlbatch_params struct before it returns (built here on the C stack, as for the others), and
// the arrays it points at until the wait: the Go side pins them (runtime.Pinner) in between.
static inline int32_t gosb_stmt_execute_many_start(sqlbatch_stmt *stmt, const sqlbatch_value *values,
		const sqlbatch_value *names, size_t n_values, const uint8_t *data, size_t data_len, size_t n_rows) {
	sqlbatch_params p = {values, names, n_values, data, data_len, 0};
	return sqlbatch_stmt_execute_many_start(stmt, &p, n_rows);
}

static inline gosb_write_ret gosb_stmt_execute_many_wait(sqlbatch_stmt *stmt) {
	gosb_write_ret out = {0};
	out.rc = sqlbatch_stmt_execute_many_wait(stmt, &out.r);
	return out;
}

static inline gosb_write_ret gosb_stmt_execute_many_v(sqlbatch_stmt *stmt, const sqlbatch_value *values,
		const sqlbatch_value *names, size_t n_values, const uint8_t *data, size_t data_len, size_t n_rows) {
	gosb_write_ret out = {0};
	out.rc = gosb_stmt_execute_many(stmt, values, names, n_values, data, data_len, n_rows, &out.r);
	return out;
}

// Functions that take pointers and cannot call back: C keeps none of them after the call, so
// Go memory passed to them (out-parameters on the Go stack, parameter values, SQL text) need
// not escape. The calls that can call back (exec, execute_many, fetch, fetch_into) are not
// listed: the Go memory they are given (SQL text, parameter values, a fetch buffer) must stay
// put during a callback, so it escapes to the heap, where it already is in practice.
#cgo noescape sqlbatch_conn_open
#cgo noescape sqlbatch_conn_last_error
#cgo noescape sqlbatch_conn_changes
#cgo noescape sqlbatch_conn_total_changes
#cgo noescape sqlbatch_conn_last_insert_rowid
#cgo noescape sqlbatch_conn_autocommit
#cgo noescape sqlbatch_stmt_columns
#cgo noescape sqlbatch_stmt_column_not_null
#cgo noescape sqlbatch_stmt_params
#cgo noescape sqlbatch_stmt_param_index
#cgo noescape sqlbatch_stmt_readonly
#cgo noescape sqlbatch_stmt_sql
#cgo noescape sqlbatch_stmt_expanded_sql
#cgo noescape sqlbatch_value_convert

// The calls that cannot call back into Go. The others can, once a Go function, aggregate,
// collation, virtual table module or hook is registered on the connection (function.go,
// vtab.go, hooks.go): fetch, fetch_into, exec and execute_many run SQL that calls them (and
// every hook); reset and finalize end a statement mid-aggregate, which runs the groups'
// finish callbacks, or mid-scan, which closes a virtual table's cursor; bind resets a
// statement that ran (gosb_stmt_bind is therefore neither listed here nor noescape: the
// values it is given are heap memory, Params'); close runs
// the registrations' destroy callbacks and may roll back (the rollback hook); prepare runs the
// authorizer, and reading the schema runs the busy and progress handlers (so it is neither
// nocallback nor noescape: its out-parameters are on the C stack of gosb_stmt_prepare).
#cgo nocallback sqlbatch_code_str
#cgo nocallback sqlbatch_code_name
#cgo nocallback sqlbatch_version
#cgo nocallback sqlbatch_sqlite_version
#cgo nocallback sqlbatch_conn_open
#cgo nocallback sqlbatch_conn_interrupt
#cgo nocallback sqlbatch_conn_busy_timeout
#cgo nocallback sqlbatch_conn_last_error
#cgo nocallback sqlbatch_conn_changes
#cgo nocallback sqlbatch_conn_total_changes
#cgo nocallback sqlbatch_conn_last_insert_rowid
#cgo nocallback sqlbatch_conn_autocommit
#cgo nocallback sqlbatch_stmt_clear_bindings
#cgo nocallback sqlbatch_stmt_columns
#cgo nocallback sqlbatch_stmt_column_not_null
#cgo nocallback sqlbatch_stmt_params
#cgo nocallback sqlbatch_stmt_param_index
#cgo nocallback sqlbatch_stmt_readonly
#cgo nocallback sqlbatch_stmt_sql
#cgo nocallback sqlbatch_stmt_expanded_sql
#cgo nocallback sqlbatch_value_convert
#cgo nocallback sqlbatch_stmt_set_fetch_ahead
*/
import "C"

import (
	"unsafe"
)

// Status codes and constants of the ABI, with the header's values.
const (
	OK   = C.SQLBATCH_OK
	Row  = C.SQLBATCH_ROW
	Done = C.SQLBATCH_DONE

	ENullParameter  = C.SQLBATCH_E_NULL_PARAMETER
	EPanic          = C.SQLBATCH_E_PANIC
	EInvalidUTF8    = C.SQLBATCH_E_INVALID_UTF8
	ERange          = C.SQLBATCH_E_RANGE
	EParamCount     = C.SQLBATCH_E_PARAM_COUNT
	EStaleBatch     = C.SQLBATCH_E_STALE_BATCH
	EClosed         = C.SQLBATCH_E_CLOSED
	EInvalidArg     = C.SQLBATCH_E_INVALID_ARGUMENT
	EBufferTooSmall = C.SQLBATCH_E_BUFFER_TOO_SMALL
	EMultipleStmts  = C.SQLBATCH_E_MULTIPLE_STATEMENTS
	ESkipped        = C.SQLBATCH_E_SKIPPED
	EUnsupported    = C.SQLBATCH_E_UNSUPPORTED

	KindInteger = C.SQLBATCH_INTEGER
	KindFloat   = C.SQLBATCH_FLOAT
	KindText    = C.SQLBATCH_TEXT
	KindBlob    = C.SQLBATCH_BLOB
	KindNull    = C.SQLBATCH_NULL

	OpenReadOnly     = C.SQLBATCH_OPEN_READONLY
	OpenReadWrite    = C.SQLBATCH_OPEN_READWRITE
	OpenCreate       = C.SQLBATCH_OPEN_CREATE
	OpenURI          = C.SQLBATCH_OPEN_URI
	OpenMemory       = C.SQLBATCH_OPEN_MEMORY
	OpenFullMutex    = C.SQLBATCH_OPEN_FULLMUTEX
	OpenSharedCache  = C.SQLBATCH_OPEN_SHAREDCACHE
	OpenPrivateCache = C.SQLBATCH_OPEN_PRIVATECACHE
	OpenNoFollow     = C.SQLBATCH_OPEN_NOFOLLOW
	OpenFetchAhead   = C.SQLBATCH_OPEN_FETCH_AHEAD
	OpenUntrusted    = C.SQLBATCH_OPEN_UNTRUSTED

	PreparePersistent = C.SQLBATCH_PREPARE_PERSISTENT
	PrepareSingle     = C.SQLBATCH_PREPARE_SINGLE
)

// HeaderVersion is SQLBATCH_VERSION of the header this package was compiled against.
const HeaderVersion = C.SQLBATCH_VERSION

// Value mirrors sqlbatch_value: one 16-byte tagged cell. For TEXT and BLOB, Bits is the
// offset of the bytes from the base pointer that travels beside the values.
type Value struct {
	Bits uint64
	Len  uint32
	Kind uint8
	_    [3]uint8
}

// Compile-time checks that Value and sqlbatch_value have the same layout.
var (
	_ [unsafe.Sizeof(Value{}) - unsafe.Sizeof(C.sqlbatch_value{})]struct{}
	_ [unsafe.Sizeof(C.sqlbatch_value{}) - unsafe.Sizeof(Value{})]struct{}
	_ [unsafe.Offsetof(Value{}.Len) - unsafe.Offsetof(C.sqlbatch_value{}.len)]struct{}
	_ [unsafe.Offsetof(C.sqlbatch_value{}.len) - unsafe.Offsetof(Value{}.Len)]struct{}
	_ [unsafe.Offsetof(Value{}.Kind) - unsafe.Offsetof(C.sqlbatch_value{}.kind)]struct{}
	_ [unsafe.Offsetof(C.sqlbatch_value{}.kind) - unsafe.Offsetof(Value{}.Kind)]struct{}
)

// Bytes is a view of the bytes of a TEXT or BLOB cell v whose base is data (C memory).
func Bytes(data *byte, v *Value) []byte {
	if v.Len == 0 || data == nil {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(data), uintptr(v.Bits))), int(v.Len))
}

// cells is a view of the n cells at p (a callback's arguments; p is NULL when n is 0).
func cells(p *C.sqlbatch_value, n int) []Value {
	return unsafe.Slice((*Value)(unsafe.Pointer(p)), n)
}

// rowCells is a view of the n cells of a row at p (nil for NULL: a row that is not there).
func rowCells(p *C.sqlbatch_value, n int) []Value {
	if p == nil {
		return nil
	}
	return unsafe.Slice((*Value)(unsafe.Pointer(p)), n)
}

// Conn is a sqlbatch_conn handle. The zero Conn is a NULL handle.
type Conn struct{ p *C.sqlbatch_conn }

// Stmt is a sqlbatch_stmt handle. The zero Stmt is a NULL handle.
type Stmt struct{ p *C.sqlbatch_stmt }

// IsNil reports whether c is a NULL handle.
func (c Conn) IsNil() bool { return c.p == nil }

// IsNil reports whether s is a NULL handle.
func (s Stmt) IsNil() bool { return s.p == nil }

// cstr passes the bytes of a Go string to C without copying. C only reads them during the
// call (every input of the ABI is copied or finished with before the call returns).
func cstr(s string) *C.char { return (*C.char)(unsafe.Pointer(unsafe.StringData(s))) }

// vptr is the address of v's values for C; NULL for a nil slice (names not given).
func vptr(v []Value) *C.sqlbatch_value {
	return (*C.sqlbatch_value)(unsafe.Pointer(unsafe.SliceData(v)))
}

// bptr is the address of b's bytes for C. Every TEXT or BLOB value with bytes has them in
// b, so b is not empty then and its address is not NULL: offsets always have a base.
func bptr(b []byte) *C.uint8_t { return (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(b))) }

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

// CodeStr is sqlbatch_code_str.
func CodeStr(code int32) string { return C.GoString(C.sqlbatch_code_str(C.int32_t(code))) }

// CodeName is sqlbatch_code_name: the C name of a status code ("SQLITE_CONSTRAINT_UNIQUE",
// "SQLBATCH_E_RANGE"), or ok false for a code the library does not know. The string is the
// library's static C string, not a copy.
func CodeName(code int32) (name string, ok bool) {
	p := C.sqlbatch_code_name(C.int32_t(code))
	if p == nil {
		return "", false
	}
	return unsafe.String((*byte)(unsafe.Pointer(p)), int(C.strlen(p))), true
}

// Version is sqlbatch_version.
func Version() string { return C.GoString(C.sqlbatch_version()) }

// SQLiteVersion is sqlbatch_sqlite_version.
func SQLiteVersion() string { return C.GoString(C.sqlbatch_sqlite_version()) }

// Open is sqlbatch_conn_open. The handle may be non-nil even when the code is not OK (so
// that LastError can say why); the caller must Close it in every case.
func Open(path string, flags uint32) (Conn, int32) {
	var p *C.sqlbatch_conn
	rc := C.sqlbatch_conn_open(cstr(path), C.size_t(len(path)), C.uint32_t(flags), &p)
	return Conn{p}, int32(rc)
}

// Close is sqlbatch_conn_close.
func (c Conn) Close() { C.sqlbatch_conn_close(c.p) }

// Interrupt is sqlbatch_conn_interrupt: callable from any goroutine while c is open.
func (c Conn) Interrupt() { C.sqlbatch_conn_interrupt(c.p) }

// BusyTimeout is sqlbatch_conn_busy_timeout.
func (c Conn) BusyTimeout(ms int32) int32 {
	return int32(C.sqlbatch_conn_busy_timeout(c.p, C.int32_t(ms)))
}

// Changes is sqlbatch_conn_changes.
func (c Conn) Changes() (int64, int32) {
	var n C.int64_t
	rc := C.sqlbatch_conn_changes(c.p, &n)
	return int64(n), int32(rc)
}

// TotalChanges is sqlbatch_conn_total_changes.
func (c Conn) TotalChanges() (int64, int32) {
	var n C.int64_t
	rc := C.sqlbatch_conn_total_changes(c.p, &n)
	return int64(n), int32(rc)
}

// LastInsertRowID is sqlbatch_conn_last_insert_rowid.
func (c Conn) LastInsertRowID() (int64, int32) {
	var n C.int64_t
	rc := C.sqlbatch_conn_last_insert_rowid(c.p, &n)
	return int64(n), int32(rc)
}

// Autocommit is sqlbatch_conn_autocommit.
func (c Conn) Autocommit() (bool, int32) {
	var b C.bool
	rc := C.sqlbatch_conn_autocommit(c.p, &b)
	return bool(b), int32(rc)
}

// ErrorInfo is a Go copy of sqlbatch_error.
type ErrorInfo struct {
	Code, Primary   int32
	Msg             string
	TokenOffset     int64
	StatementIndex  int64
	StatementOffset int64
	RowIndex        int64
}

// LastError is sqlbatch_conn_last_error, with the message copied into Go memory.
func (c Conn) LastError() (ErrorInfo, int32) {
	var e C.sqlbatch_error
	rc := C.sqlbatch_conn_last_error(c.p, &e)
	if rc != OK {
		return ErrorInfo{}, int32(rc)
	}
	info := ErrorInfo{
		Code:            int32(e.code),
		Primary:         int32(e.primary_code),
		TokenOffset:     int64(e.token_offset),
		StatementIndex:  int64(e.statement_index),
		StatementOffset: int64(e.statement_offset),
		RowIndex:        int64(e.row_index),
	}
	if e.message != nil {
		info.Msg = C.GoStringN(e.message, C.int(e.message_len))
	}
	return info, OK
}

// ExecResult is a Go copy of sqlbatch_exec_result.
type ExecResult struct {
	Statements, ParamsUsed   uint64
	Changes, LastInsertRowID int64
	EndOffset                int
}

// Exec is sqlbatch_conn_exec with the parameter set (values, names, data): names is nil
// (all positional) or has len(values) entries.
func (c Conn) Exec(sql string, values, names []Value, data []byte) (ExecResult, int32) {
	out := C.gosb_conn_exec_v(c.p, cstr(sql), C.size_t(len(sql)), vptr(values), vptr(names),
		C.size_t(len(values)), bptr(data), C.size_t(len(data)))
	r, rc := out.r, out.rc
	return ExecResult{
		Statements:      uint64(r.statements),
		ParamsUsed:      uint64(r.params_used),
		Changes:         int64(r.changes),
		LastInsertRowID: int64(r.last_insert_rowid),
		EndOffset:       int(r.end_offset),
	}, int32(rc)
}

// Prepare is sqlbatch_stmt_prepare; tail is the byte offset just past the first statement,
// and nparams the statement's parameter count (sqlbatch_stmt_param_count, read in the same
// call into C), -1 if that failed.
func (c Conn) Prepare(sql string, flags uint32) (s Stmt, tail, nparams int, rc int32) {
	out := C.gosb_stmt_prepare(c.p, cstr(sql), C.size_t(len(sql)), C.uint32_t(flags))
	return Stmt{out.s}, int(out.tail), int(int64(out.nparams)), int32(out.rc)
}

// Finalize is sqlbatch_stmt_finalize.
func (s Stmt) Finalize() { C.sqlbatch_stmt_finalize(s.p) }

// Reset is sqlbatch_stmt_reset.
func (s Stmt) Reset() int32 { return int32(C.sqlbatch_stmt_reset(s.p)) }

// ClearBindings is sqlbatch_stmt_clear_bindings.
func (s Stmt) ClearBindings() int32 { return int32(C.sqlbatch_stmt_clear_bindings(s.p)) }

// Bind is sqlbatch_stmt_bind with the parameter set (values, names, data): names is nil
// (values[i] to parameter i+1) or has len(values) entries. It may call back into Go (a bind
// resets a statement that ran, closing its virtual table cursors), so values and data must
// be heap memory.
func (s Stmt) Bind(values, names []Value, data []byte) int32 {
	return int32(C.gosb_stmt_bind(s.p, vptr(values), vptr(names), C.size_t(len(values)), bptr(data), C.size_t(len(data))))
}

// TableRef mirrors gosb_table_ref: a table bound to parameter Index (from 1), whose N cells,
// row-major, NCols a row, start at cell First of the cells passed beside it.
type TableRef struct {
	Index, First, N, NCols uint64
}

var (
	_ [unsafe.Sizeof(TableRef{}) - unsafe.Sizeof(C.gosb_table_ref{})]struct{}
	_ [unsafe.Sizeof(C.gosb_table_ref{}) - unsafe.Sizeof(TableRef{})]struct{}
)

func refsPtr(r []TableRef) *C.gosb_table_ref {
	return (*C.gosb_table_ref)(unsafe.Pointer(unsafe.SliceData(r)))
}

// BindTables is Bind (positional values only) and then sqlbatch_stmt_bind_rows for each of
// refs, in one call into C: bindRC is the bind's status, rc the tables' (0 if the bind
// failed), failed the index in refs of the table that failed. The tables' cells are tcells,
// their bytes tdata; all of it must be heap memory.
func (s Stmt) BindTables(values []Value, data []byte, refs []TableRef, tcells []Value, tdata []byte) (bindRC, rc int32, failed int) {
	out := C.gosb_stmt_bind_tables(s.p, vptr(values), C.size_t(len(values)), bptr(data), C.size_t(len(data)),
		refsPtr(refs), C.size_t(len(refs)), vptr(tcells), bptr(tdata), C.size_t(len(tdata)))
	return int32(out.bind_rc), int32(out.rc), int(out.failed)
}

// BindTablesFetchFirst is BindTables and then, if both succeeded, FetchFirst, in one call
// into C.
func (s Stmt) BindTablesFetchFirst(values []Value, data []byte, refs []TableRef, tcells []Value, tdata []byte,
	maxRows int, maxBytes uint) (b Batch, reprepares int64, bindRC, tablesRC int32, failed int, rc int32) {
	out := C.gosb_stmt_bind_tables_fetch_first(s.p, vptr(values), C.size_t(len(values)), bptr(data), C.size_t(len(data)),
		refsPtr(refs), C.size_t(len(refs)), vptr(tcells), bptr(tdata), C.size_t(len(tdata)),
		C.size_t(maxRows), C.size_t(maxBytes))
	if out.bind_rc != OK || out.tables_rc != OK {
		return Batch{}, 0, int32(out.bind_rc), int32(out.tables_rc), int(out.failed), 0
	}
	return batchOf(&out.b), int64(out.reprepares), OK, OK, 0, int32(out.rc)
}

// BindTablesExec is BindTables and then, if both succeeded, a run of the statement to its
// end, in one call into C; the statement is then reset and its bindings cleared. rc is the
// run's status (OK when it ran to its end); changes and lastRowID are those of the run.
func (s Stmt) BindTablesExec(c Conn, values []Value, data []byte, refs []TableRef, tcells []Value, tdata []byte) (changes, lastRowID int64, bindRC, tablesRC int32, failed int, rc int32) {
	out := C.gosb_stmt_bind_tables_exec(c.p, s.p, vptr(values), C.size_t(len(values)), bptr(data), C.size_t(len(data)),
		refsPtr(refs), C.size_t(len(refs)), vptr(tcells), bptr(tdata), C.size_t(len(tdata)))
	return int64(out.changes), int64(out.last_rowid), int32(out.bind_rc), int32(out.tables_rc), int(out.failed), int32(out.rc)
}

// Batch is a Go copy of sqlbatch_batch. Cells and Data point at C memory owned by the
// statement, and are nil when empty: Cells when the batch has no cells, Data when it has no
// bytes, and always after FetchInto (the bytes are in the caller's buffer).
type Batch struct {
	Cells   *Value
	Data    *byte
	DataLen int
	NRows   int
	NCols   int
}

func batchOf(b *C.sqlbatch_batch) Batch {
	return Batch{
		Cells:   (*Value)(unsafe.Pointer(b.cells)),
		Data:    (*byte)(unsafe.Pointer(b.data)),
		DataLen: int(b.data_len),
		NRows:   int(b.n_rows),
		NCols:   int(b.n_cols),
	}
}

// NoByteBound is the max_bytes of a fetch without a byte bound (SIZE_MAX).
const NoByteBound = ^uint(0)

// Fetch is sqlbatch_stmt_fetch.
func (s Stmt) Fetch(maxRows int, maxBytes uint) (Batch, int32) {
	out := C.gosb_stmt_fetch(s.p, C.size_t(maxRows), C.size_t(maxBytes))
	return batchOf(&out.b), int32(out.rc)
}

// FetchFirst is Fetch that also returns the statement's count of recompilations
// (sqlbatch_stmt_status with SQLITE_STMTSTATUS_REPREPARE, in the same call into C; -1 if
// unknown), for the first fetch of a run.
func (s Stmt) FetchFirst(maxRows int, maxBytes uint) (Batch, int64, int32) {
	out := C.gosb_stmt_fetch_first(s.p, C.size_t(maxRows), C.size_t(maxBytes))
	return batchOf(&out.b), int64(out.reprepares), int32(out.rc)
}

// BindFetchFirst is Bind and then, if it returned OK, FetchFirst, in one call into C:
// bindRC is the bind's status, and the rest is FetchFirst's (zero if the bind failed). The
// values and data must be heap memory (see gosb_stmt_bind_fetch_first).
func (s Stmt) BindFetchFirst(values, names []Value, data []byte, maxRows int, maxBytes uint) (b Batch, reprepares int64, bindRC, rc int32) {
	out := C.gosb_stmt_bind_fetch_first(s.p, vptr(values), vptr(names), C.size_t(len(values)), bptr(data), C.size_t(len(data)),
		C.size_t(maxRows), C.size_t(maxBytes))
	if out.bind_rc != OK {
		return Batch{}, 0, int32(out.bind_rc), 0
	}
	return batchOf(&out.b), int64(out.reprepares), OK, int32(out.rc)
}

// Reprepares is the statement's count of recompilations (SQLITE_STMTSTATUS_REPREPARE), -1
// if it cannot be read.
func (s Stmt) Reprepares() int64 {
	var n C.int64_t
	if C.sqlbatch_stmt_status(s.p, 5, false, &n) != OK {
		return -1
	}
	return int64(n)
}

// FetchInto is sqlbatch_stmt_fetch_into. The returned Batch's Data is nil: the bytes are
// in buf. After EBufferTooSmall, DataLen is what the next row needs.
func (s Stmt) FetchInto(maxRows int, buf []byte) (Batch, int32) {
	r := C.gosb_stmt_fetch_into(s.p, C.size_t(maxRows), bptr(buf), C.size_t(len(buf)))
	out := batchOf(&r.b)
	out.Data = nil
	return out, int32(r.rc)
}

func gostr(s C.sqlbatch_str) string {
	if s.ptr == nil {
		return ""
	}
	return C.GoStringN(s.ptr, C.int(s.len))
}

// cview is a C string of n bytes as a view of them (nil for NULL).
func cview(p *C.char, n C.size_t) []byte {
	if p == nil {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), int(n))
}

// ColumnBytes is the metadata of one result column as it is in C memory (nil where there is
// no string), valid until the next Columns or ColumnsBytes call on the statement.
type ColumnBytes struct {
	Name, DeclType, Database, Table, Origin []byte
}

func cbytes(s C.sqlbatch_str) []byte {
	if s.ptr == nil {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(s.ptr)), int(s.len))
}

// columnsArray is sqlbatch_stmt_columns: a view of the statement's array of columns (nil
// when there are none).
func (s Stmt) columnsArray() ([]C.sqlbatch_column, int32) {
	var p *C.sqlbatch_column
	var n C.size_t
	rc := C.sqlbatch_stmt_columns(s.p, &p, &n)
	if rc != OK {
		return nil, int32(rc)
	}
	return unsafe.Slice(p, int(n)), OK // p is NULL when n is 0
}

// ColumnsBytes is sqlbatch_stmt_columns without copying: dst[:0] filled with views of the
// statement's C memory.
func (s Stmt) ColumnsBytes(dst []ColumnBytes) ([]ColumnBytes, int32) {
	cols, rc := s.columnsArray()
	if rc != OK {
		return dst[:0], rc
	}
	dst = dst[:0]
	for _, c := range cols {
		dst = append(dst, ColumnBytes{cbytes(c.name), cbytes(c.decl_type), cbytes(c.database), cbytes(c.table), cbytes(c.origin)})
	}
	return dst, OK
}

// ColumnNotNull is sqlbatch_stmt_column_not_null: 1 NOT NULL, 0 nullable, -1 unknown.
func (s Stmt) ColumnNotNull(col int) (int32, int32) {
	var out C.int32_t
	rc := C.sqlbatch_stmt_column_not_null(s.p, C.size_t(col), &out)
	return int32(out), int32(rc)
}

// paramsArray is sqlbatch_stmt_params: a view of the statement's array of names (nil when
// there are no parameters).
func (s Stmt) paramsArray() ([]C.sqlbatch_str, int32) {
	var p *C.sqlbatch_str
	var n C.size_t
	rc := C.sqlbatch_stmt_params(s.p, &p, &n)
	if rc != OK {
		return nil, int32(rc)
	}
	return unsafe.Slice(p, int(n)), OK // p is NULL when n is 0
}

// Params is sqlbatch_stmt_params: the name of each parameter ("" for a nameless "?").
func (s Stmt) Params() ([]string, int32) {
	arr, rc := s.paramsArray()
	if rc != OK {
		return nil, rc
	}
	names := make([]string, len(arr))
	for i, name := range arr {
		names[i] = gostr(name)
	}
	return names, OK
}

// ParamIndex is sqlbatch_stmt_param_index: the index (from 1) of the parameter called name,
// 0 if none; a name without a prefix matches :name, then @name, then $name.
func (s Stmt) ParamIndex(name string) (int, int32) {
	var idx C.size_t
	rc := C.sqlbatch_stmt_param_index(s.p, cstr(name), C.size_t(len(name)), &idx)
	return int(idx), int32(rc)
}

// Readonly is sqlbatch_stmt_readonly.
func (s Stmt) Readonly() (bool, int32) {
	var b C.bool
	rc := C.sqlbatch_stmt_readonly(s.p, &b)
	return bool(b), int32(rc)
}

// SQL is sqlbatch_stmt_sql.
func (s Stmt) SQL() (string, int32) {
	var out C.sqlbatch_str
	rc := C.sqlbatch_stmt_sql(s.p, &out)
	return gostr(out), int32(rc)
}

// ExpandedSQL is sqlbatch_stmt_expanded_sql.
func (s Stmt) ExpandedSQL() (string, int32) {
	var out C.sqlbatch_str
	rc := C.sqlbatch_stmt_expanded_sql(s.p, &out)
	return gostr(out), int32(rc)
}

// WriteResult is a Go copy of sqlbatch_write_result.
type WriteResult struct {
	Rows            uint64
	Changes         int64
	LastInsertRowID int64
}

// ExecuteMany is sqlbatch_stmt_execute_many: nRows rows of the statement's parameter count
// each, row-major, in values (with their bytes in data). names must be nil (the ABI refuses
// names here); it is passed on so that the ABI, not Go, says so.
func (s Stmt) ExecuteMany(values, names []Value, nRows int, data []byte) (WriteResult, int32) {
	out := C.gosb_stmt_execute_many_v(s.p, vptr(values), vptr(names), C.size_t(len(values)),
		bptr(data), C.size_t(len(data)), C.size_t(nRows))
	r, rc := out.r, out.rc
	return WriteResult{Rows: uint64(r.rows), Changes: int64(r.changes), LastInsertRowID: int64(r.last_insert_rowid)}, int32(rc)
}

// ExecuteManyStart is sqlbatch_stmt_execute_many_start: ExecuteMany's rows, queued for the
// connection's worker thread. The memory of values, names and data is read until
// ExecuteManyWait returns: the caller must keep it alive, pinned and unchanged until then.
func (s Stmt) ExecuteManyStart(values, names []Value, nRows int, data []byte) int32 {
	return int32(C.gosb_stmt_execute_many_start(s.p, vptr(values), vptr(names), C.size_t(len(values)),
		bptr(data), C.size_t(len(data)), C.size_t(nRows)))
}

// ExecuteManyWait is sqlbatch_stmt_execute_many_wait.
func (s Stmt) ExecuteManyWait() (WriteResult, int32) {
	out := C.gosb_stmt_execute_many_wait(s.p)
	r, rc := out.r, out.rc
	return WriteResult{Rows: uint64(r.rows), Changes: int64(r.changes), LastInsertRowID: int64(r.last_insert_rowid)}, int32(rc)
}

// SetFetchAhead is sqlbatch_stmt_set_fetch_ahead.
func (s Stmt) SetFetchAhead(on bool) int32 {
	return int32(C.sqlbatch_stmt_set_fetch_ahead(s.p, C.bool(on)))
}

// ConvertBufLen is the size of the buffer sqlbatch_value_convert renders a number into.
const ConvertBufLen = 32

// Flags of Convert's to: a BLOB of a UTF-16 database becomes a number as text of that
// encoding (as sqlite3_column_int64 and _double read it there).
const (
	ConvertUTF16LE = C.SQLBATCH_CONVERT_UTF16LE
	ConvertUTF16BE = C.SQLBATCH_CONVERT_UTF16BE
)

// Convert is sqlbatch_value_convert: v read as storage class to, exactly as
// sqlite3_column_int64, _double, _text or _blob would read it. The bytes of a TEXT or BLOB v
// are data[v.Bits : v.Bits+v.Len]. An INTEGER or FLOAT result is in out.Bits; a TEXT or BLOB
// rendering of a number is written to buf (out.Bits is 0, out.Len its length); a TEXT or
// BLOB v read as TEXT or BLOB keeps its bytes (out.Bits, out.Len those of v). A NULL (or a
// NaN) read as TEXT or BLOB gives a NULL-kind out.
func Convert(v *Value, data []byte, to uint8, buf *[ConvertBufLen]byte) (out Value, rc int32) {
	r := C.sqlbatch_value_convert((*C.sqlbatch_value)(unsafe.Pointer(v)), bptr(data), C.size_t(len(data)),
		C.uint8_t(to), (*C.sqlbatch_value)(unsafe.Pointer(&out)), (*C.uint8_t)(unsafe.Pointer(buf)), ConvertBufLen)
	return out, int32(r)
}
