//! Entry points: connections (open, close, interrupt, busy timeout, the counters SQLite keeps, the last error).

use std::ffi::c_char;
use std::ptr;

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::engine::conn::{sqlbatch_conn, ConnShared};
use crate::error::Error;
use crate::ffi::*;
use crate::panic::{boundary, boundary_value};

use crate::error::sqlbatch_error;

/// sqlbatch_conn_open opens a database connection.
///
/// `path` is a file name (UTF-8, `path_len` bytes, no NUL inside; it need not be
/// NUL-terminated), ":memory:" for a private in-memory database, "" for a private temporary
/// file, or a `file:` URI when `SQLBATCH_OPEN_URI` is set. `flags` is a bitwise OR of
/// `SQLBATCH_OPEN_*` (they have SQLite's values, but `SQLBATCH_OPEN_FETCH_AHEAD`, which is
/// sqlbatch's own); with neither READONLY nor READWRITE set, READWRITE|CREATE is used. See
/// <https://sqlite.org/c3ref/open.html>.
///
/// The connection reports extended result codes, and is opened without SQLite's per-call
/// mutex unless `SQLBATCH_OPEN_FULLMUTEX` is given (see "Thread model" above).
/// Loading extensions from shared libraries is off until `sqlbatch_conn_enable_load_extension`.
///
/// Ownership: like `sqlite3_open_v2`, `*out_conn` is set whenever a handle could be allocated,
/// **even when opening fails**, so that `sqlbatch_conn_last_error` can say why; the caller
/// owns it and must release it with `sqlbatch_conn_close` in every case. It is set to NULL only
/// when no handle exists (NULL parameters, bad flags, out of memory).
/// NULL: `out_conn` NULL, or `path` NULL with `path_len > 0`, gives `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_INVALID_UTF8` or `SQLBATCH_E_INVALID_ARGUMENT` for a bad
/// path or flags; otherwise SQLite's error, e.g. `SQLITE_CANTOPEN`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_open(
    path: *const c_char,
    path_len: usize,
    flags: u32,
    out_conn: *mut *mut sqlbatch_conn,
) -> i32 {
    if out_conn.is_null() {
        return SQLBATCH_E_NULL_PARAMETER;
    }
    // SAFETY: `out_conn` is valid for writes (the caller's contract).
    unsafe { out_conn.write(ptr::null_mut()) };
    boundary(None, || {
        // SAFETY: the caller vouches for `path`.
        let bytes = unsafe { try_bytes(path, path_len, "path")? };
        let (shared, opened) = ConnShared::open(bytes, flags, None)?;
        // SAFETY: as above.
        unsafe { out_conn.write(Box::into_raw(Box::new(sqlbatch_conn { shared }))) };
        opened.map(|()| SQLBATCH_OK)
    })
}

/// sqlbatch_conn_close finalizes every statement still open on `conn`, closes the connection
/// and frees the handle.
///
/// Statement handles of the connection stay allocated: every later call on them returns
/// `SQLBATCH_E_CLOSED`, and each must still be released with `sqlbatch_stmt_finalize`, before
/// or after this call (the order does not matter, which suits garbage-collected callers).
/// Closing cannot fail: SQLite's `sqlite3_close_v2` defers what it cannot free yet (an
/// unfinished backup, say) until it can. Calling with NULL is a harmless no-op. Must not be
/// called twice with the same handle, and must not run while another thread uses `conn`,
/// except `sqlbatch_conn_interrupt`. Called from a callback of `conn` (an SQL function,
/// aggregate or collation, or a hook, whose step would go on without its statement), it does
/// nothing and records `SQLITE_MISUSE` as the connection's last error: the handle stays open.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_close(conn: *mut sqlbatch_conn) {
    if conn.is_null() {
        return;
    }
    crate::panic::boundary_value((), || {
        // SAFETY: `conn` came from sqlbatch_conn_open and is live (the caller's contract).
        if unsafe { (*conn).shared.close_refused() } {
            return;
        }
        // SAFETY: as above, and it is freed once (the caller's contract).
        let conn = unsafe { Box::from_raw(conn) };
        conn.shared.close();
    })
}

/// sqlbatch_conn_interrupt makes the SQL running on `conn` stop as soon as possible with
/// `SQLITE_INTERRUPT` (a fetch, a script or a bulk write), as `sqlite3_interrupt` does. A script
/// or bulk write also notices an interrupt that arrives between two of its statements or rows,
/// which SQLite alone would forget (no statement runs at that moment).
///
/// This is the one function that may be called from any thread while another thread is
/// using `conn` (Go's context cancellation, Haskell's asynchronous exceptions). It takes no
/// lock and allocates nothing (atomic operations and `sqlite3_interrupt` only), so it is also
/// safe to call from a signal handler. Calls that start after the interrupted ones have
/// finished are not affected. A no-op on a closed connection; `conn` itself must not be freed
/// (by `sqlbatch_conn_close`) concurrently, which is the caller's to order.
/// NULL: a no-op.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_interrupt(conn: *const sqlbatch_conn) {
    // SAFETY: a non-NULL `conn` is a live connection handle (the caller's contract).
    let Some(conn) = (unsafe { conn.as_ref() }) else { return };
    boundary_value((), || conn.shared.interrupt())
}

/// sqlbatch_conn_busy_timeout makes SQLite retry for up to `ms` milliseconds when a table is
/// locked by another connection, instead of failing at once with `SQLITE_BUSY`; `ms <= 0`
/// turns retrying off. See <https://sqlite.org/c3ref/busy_timeout.html>.
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_busy_timeout(conn: *mut sqlbatch_conn, ms: i32) -> i32 {
    // SAFETY: `conn` is NULL or live (the caller's contract); `db` is open and used by this
    // thread only.
    unsafe {
        with_db(conn, |db| {
            let rc = ffi::sqlite3_busy_timeout(db, ms);
            if rc == ffi::SQLITE_OK {
                Ok(())
            } else {
                Err(Error::from_db(db, rc))
            }
        })
    }
}

/// Runs `f` on the open database of `conn`, recording errors on it.
///
/// # Safety
/// `conn` must be NULL or a live connection handle.
unsafe fn with_db(conn: *const sqlbatch_conn, f: impl FnOnce(*mut ffi::sqlite3) -> Result<(), Error>) -> i32 {
    ffi_boundary!(conn: conn => |c| {
        f(c.shared.db()?)?;
        Ok(SQLBATCH_OK)
    })
}

/// Reads one counter of an open connection into `out` with `read`, a SQLite getter.
///
/// # Safety
/// `conn` as for [`with_db`]; a non-NULL `out` must be valid for writes.
unsafe fn getter<T, R>(
    conn: *const sqlbatch_conn,
    out: *mut T,
    what: &'static str,
    read: unsafe extern "C" fn(*mut ffi::sqlite3) -> R,
    convert: impl FnOnce(R) -> T,
) -> i32 {
    // SAFETY: as for this function.
    unsafe {
        with_db(conn, |db| {
            let out = try_mut(out, what)?;
            // SAFETY: `db` is open and used by this thread only.
            *out = convert(read(db));
            Ok(())
        })
    }
}

/// sqlbatch_conn_changes writes to `*out_changes` the number of rows inserted, updated or deleted by
/// the most recent INSERT, UPDATE or DELETE on `conn` (`sqlite3_changes64`).
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_changes(conn: *const sqlbatch_conn, out_changes: *mut i64) -> i32 {
    // SAFETY: the caller's contract is `getter`'s.
    unsafe { getter(conn, out_changes, "out_changes", ffi::sqlite3_changes64, |n| n) }
}

/// sqlbatch_conn_total_changes writes to `*out_total_changes` the number of rows inserted, updated or
/// deleted since `conn` was opened (`sqlite3_total_changes64`).
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_total_changes(
    conn: *const sqlbatch_conn,
    out_total_changes: *mut i64,
) -> i32 {
    // SAFETY: as above.
    unsafe { getter(conn, out_total_changes, "out_total_changes", ffi::sqlite3_total_changes64, |n| n) }
}

/// sqlbatch_conn_last_insert_rowid writes to `*out_rowid` the rowid of the most recent successful
/// INSERT into a rowid table on `conn` (`sqlite3_last_insert_rowid`), 0 if there was none.
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_last_insert_rowid(
    conn: *const sqlbatch_conn,
    out_rowid: *mut i64,
) -> i32 {
    // SAFETY: as above.
    unsafe { getter(conn, out_rowid, "out_rowid", ffi::sqlite3_last_insert_rowid, |n| n) }
}

/// sqlbatch_conn_autocommit writes to `*out_autocommit` whether `conn` is in autocommit mode, i.e. not
/// inside a transaction opened by BEGIN (`sqlite3_get_autocommit`).
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_autocommit(
    conn: *const sqlbatch_conn,
    out_autocommit: *mut bool,
) -> i32 {
    // SAFETY: as above.
    unsafe { getter(conn, out_autocommit, "out_autocommit", ffi::sqlite3_get_autocommit, |a| a != 0) }
}

/// sqlbatch_conn_last_error writes the details of the most recent failing call on `conn`,
/// or on one of its statements, to `*out_error`.
///
/// Successful calls do not clear it, and reading it changes nothing, so it can be read at any
/// time after a call returned an error. If nothing has failed yet, `code` is `SQLBATCH_OK`.
/// Errors of calls that had no connection to report to (NULL handles) are not recorded.
/// Lifetime: `out_error->message` is borrowed from `conn`; it stays valid until the next
/// failing call on `conn` or its statements, or until `conn` is closed.
/// @return `SQLBATCH_OK` or `SQLBATCH_E_NULL_PARAMETER`. Works on a handle whose open failed.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_last_error(
    conn: *const sqlbatch_conn,
    out_error: *mut sqlbatch_error,
) -> i32 {
    // SAFETY: a non-NULL `conn` is a live connection handle.
    let (Some(conn), false) = (unsafe { conn.as_ref() }, out_error.is_null()) else {
        return SQLBATCH_E_NULL_PARAMETER;
    };
    boundary(None, || {
        // SAFETY: `out_error` is valid for writes (the caller's contract).
        unsafe { out_error.write(conn.shared.last_error()) };
        Ok(SQLBATCH_OK)
    })
}
