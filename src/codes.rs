//! Status codes, value types and open flags: the numbers of the C ABI.
//!
//! Every fallible function returns an `int32_t` status. `SQLBATCH_OK`, `SQLBATCH_ROW` and
//! `SQLBATCH_DONE` are not errors. Errors from SQLite are passed through as SQLite's
//! *extended* result codes (the primary code is `code & 0xff`). The library's own codes
//! live in 1000..1023, a range no SQLite result code falls in: their low byte (232..255) is
//! never a SQLite primary code, so `code & 0xff` always tells the two apart.

use std::ffi::{c_char, CStr};

/// Success.
pub const SQLBATCH_OK: i32 = 0;
/// `sqlbatch_stmt_fetch`: the batch holds rows, and more rows may follow.
pub const SQLBATCH_ROW: i32 = 100;
/// `sqlbatch_stmt_fetch`: the statement has finished; the batch holds its last rows (possibly none).
pub const SQLBATCH_DONE: i32 = 101;

/// A required pointer argument was NULL.
pub const SQLBATCH_E_NULL_PARAMETER: i32 = 1000;
/// A Rust panic was caught at the FFI boundary (a bug in sqlbatch); the message says where.
pub const SQLBATCH_E_PANIC: i32 = 1001;
/// SQL text (or a parameter name) is not valid UTF-8; `token_offset` is the first bad byte.
pub const SQLBATCH_E_INVALID_UTF8: i32 = 1002;
/// A size or index is out of range: a value offset past the end of `data`, a row or column
/// past the end of a batch, `max_rows == 0`, or a length SQLite cannot take (over 2 GiB).
pub const SQLBATCH_E_RANGE: i32 = 1003;
/// The number of parameter values does not match what the statement (or script) takes.
pub const SQLBATCH_E_PARAM_COUNT: i32 = 1004;
/// A batch was read through `sqlbatch_batch_get` after its statement moved on
/// (a later fetch, a reset, a bind or a bulk write).
pub const SQLBATCH_E_STALE_BATCH: i32 = 1005;
/// The connection was closed: the statement was finalized by `sqlbatch_conn_close`.
pub const SQLBATCH_E_CLOSED: i32 = 1006;
/// An argument has a value the function does not accept: an unknown value type tag,
/// open flags that contradict each other, a NUL byte inside a path.
pub const SQLBATCH_E_INVALID_ARGUMENT: i32 = 1007;
/// `sqlbatch_stmt_fetch_into`: the caller's buffer cannot hold the next row on its own.
/// The batch out-parameter says how many bytes that row needs; the row is kept for the next call.
pub const SQLBATCH_E_BUFFER_TOO_SMALL: i32 = 1008;

/// Cell type: a 64-bit signed integer, stored in `bits`.
pub const SQLBATCH_INTEGER: u8 = 1;
/// Cell type: an IEEE-754 double, whose bit pattern is stored in `bits`.
pub const SQLBATCH_FLOAT: u8 = 2;
/// Cell type: UTF-8 text of `len` bytes at `data + bits` (not NUL-terminated).
pub const SQLBATCH_TEXT: u8 = 3;
/// Cell type: a blob of `len` bytes at `data + bits`.
pub const SQLBATCH_BLOB: u8 = 4;
/// Cell type: SQL NULL.
pub const SQLBATCH_NULL: u8 = 5;

/// Open flag: open read-only (SQLite's `SQLITE_OPEN_READONLY`).
pub const SQLBATCH_OPEN_READONLY: u32 = 0x0000_0001;
/// Open flag: open for reading and writing (`SQLITE_OPEN_READWRITE`).
pub const SQLBATCH_OPEN_READWRITE: u32 = 0x0000_0002;
/// Open flag: create the database if it does not exist (`SQLITE_OPEN_CREATE`); needs READWRITE.
pub const SQLBATCH_OPEN_CREATE: u32 = 0x0000_0004;
/// Open flag: interpret the path as a `file:` URI (`SQLITE_OPEN_URI`).
pub const SQLBATCH_OPEN_URI: u32 = 0x0000_0040;
/// Open flag: a private in-memory database (`SQLITE_OPEN_MEMORY`).
pub const SQLBATCH_OPEN_MEMORY: u32 = 0x0000_0080;
/// Open flag: keep SQLite's per-connection mutex (`SQLITE_OPEN_FULLMUTEX`). Without it the
/// connection is opened with `SQLITE_OPEN_NOMUTEX` (see "Thread model").
pub const SQLBATCH_OPEN_FULLMUTEX: u32 = 0x0001_0000;
/// Open flag: enable shared-cache mode for this connection (`SQLITE_OPEN_SHAREDCACHE`).
pub const SQLBATCH_OPEN_SHAREDCACHE: u32 = 0x0002_0000;
/// Open flag: disable shared-cache mode for this connection (`SQLITE_OPEN_PRIVATECACHE`).
pub const SQLBATCH_OPEN_PRIVATECACHE: u32 = 0x0004_0000;
/// Open flag: refuse to open a path that is a symbolic link (`SQLITE_OPEN_NOFOLLOW`).
pub const SQLBATCH_OPEN_NOFOLLOW: u32 = 0x0100_0000;

/// Prepare flag: the statement will be kept and reused many times (`SQLITE_PREPARE_PERSISTENT`).
pub const SQLBATCH_PREPARE_PERSISTENT: u32 = 0x01;

/// The flags `sqlbatch_conn_open` accepts.
pub(crate) const OPEN_FLAGS_ALLOWED: u32 = SQLBATCH_OPEN_READONLY
    | SQLBATCH_OPEN_READWRITE
    | SQLBATCH_OPEN_CREATE
    | SQLBATCH_OPEN_URI
    | SQLBATCH_OPEN_MEMORY
    | SQLBATCH_OPEN_FULLMUTEX
    | SQLBATCH_OPEN_SHAREDCACHE
    | SQLBATCH_OPEN_PRIVATECACHE
    | SQLBATCH_OPEN_NOFOLLOW;

/// The flags `sqlbatch_stmt_prepare` accepts.
pub(crate) const PREPARE_FLAGS_ALLOWED: u32 = SQLBATCH_PREPARE_PERSISTENT;

/// The description of a library code, or None for codes that belong to SQLite.
pub(crate) fn library_code_str(code: i32) -> Option<&'static CStr> {
    Some(match code {
        SQLBATCH_OK => c"not an error",
        SQLBATCH_ROW => c"another row available",
        SQLBATCH_DONE => c"no more rows available",
        SQLBATCH_E_NULL_PARAMETER => c"NULL pointer argument",
        SQLBATCH_E_PANIC => c"internal error (panic caught at the FFI boundary)",
        SQLBATCH_E_INVALID_UTF8 => c"invalid UTF-8",
        SQLBATCH_E_RANGE => c"size or index out of range",
        SQLBATCH_E_PARAM_COUNT => c"wrong number of parameter values",
        SQLBATCH_E_STALE_BATCH => c"batch read after its statement moved on",
        SQLBATCH_E_CLOSED => c"connection closed",
        SQLBATCH_E_INVALID_ARGUMENT => c"invalid argument",
        SQLBATCH_E_BUFFER_TOO_SMALL => c"buffer too small for the next row",
        _ => return None,
    })
}

/// sqlbatch_code_str describes a status code in English.
///
/// Works for the library's own codes and for every SQLite result code, primary or extended
/// (through `sqlite3_errstr`). Unknown codes give "unknown error".
///
/// Lifetime: the string is static, NUL-terminated, and must not be freed.
/// @return never NULL.
#[no_mangle]
pub extern "C" fn sqlbatch_code_str(code: i32) -> *const c_char {
    match library_code_str(code) {
        Some(s) => s.as_ptr(),
        // SAFETY: sqlite3_errstr accepts any int and returns a static string.
        None => unsafe { libsqlite3_sys::sqlite3_errstr(code) },
    }
}

/// sqlbatch_version returns the version of this library, e.g. "0.1.0".
///
/// Lifetime: static, NUL-terminated, must not be freed. It equals the `SQLBATCH_VERSION` macro
/// of the header the caller was compiled against when the two match.
#[no_mangle]
pub extern "C" fn sqlbatch_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// sqlbatch_sqlite_version returns the version of the SQLite library built into sqlbatch, e.g. "3.54.1".
///
/// Lifetime: static, NUL-terminated, must not be freed.
#[no_mangle]
pub extern "C" fn sqlbatch_sqlite_version() -> *const c_char {
    // SAFETY: sqlite3_libversion returns a static string.
    unsafe { libsqlite3_sys::sqlite3_libversion() }
}
