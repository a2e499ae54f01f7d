//! Entry points: limits, switches, checkpoints, counters and connection facts.

use std::ffi::{c_char, c_int};

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::error::Error;
use crate::ffi::*;

use crate::engine::config::SQLBATCH_CHECKPOINT_PASSIVE;
use crate::engine::config::SQLBATCH_CHECKPOINT_TRUNCATE;
use crate::engine::conn::sqlbatch_conn;
use crate::engine::stmt::sqlbatch_stmt;

use crate::engine::config::unknown_schema;
use crate::engine::config::SWITCHES;

/// sqlbatch_conn_limit reads, and when `value` >= 0 sets, the run-time limit `id` of `conn`
/// (an `SQLITE_LIMIT_*` value, e.g. `SQLITE_LIMIT_LENGTH` 0, `SQLITE_LIMIT_SQL_LENGTH` 1,
/// `SQLITE_LIMIT_VARIABLE_NUMBER` 9; <https://sqlite.org/c3ref/c_limit_attached.html>).
/// `*out_old` (if not NULL) gets the value before the call. SQLite lowers a value above the
/// compile-time maximum to that maximum.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_RANGE` (an unknown `id`); `SQLBATCH_E_CLOSED`;
/// `SQLBATCH_E_NULL_PARAMETER`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_limit(
    conn: *mut sqlbatch_conn,
    id: i32,
    value: i32,
    out_old: *mut i32,
) -> i32 {
    ffi_boundary!(conn: conn => |c| {
        let db = c.shared.db()?;
        // SAFETY: `db` is open and used by this thread only; reading with -1 changes nothing.
        let old = unsafe { ffi::sqlite3_limit(db, id, -1) };
        if old < 0 {
            return Err(Error::new(SQLBATCH_E_RANGE, format!("no limit {id}")));
        }
        if value >= 0 {
            // SAFETY: as above.
            unsafe { ffi::sqlite3_limit(db, id, value) };
        }
        // SAFETY: the caller vouches for `out_old`.
        unsafe { crate::ffi::write_opt(out_old, old) };
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_conn_db_config reads, and when `value` is 0 or 1 sets, one on/off switch of
/// `conn` (`sqlite3_db_config` with an `SQLITE_DBCONFIG_*` switch: `ENABLE_FKEY` 1002,
/// `ENABLE_TRIGGER` 1003, `DEFENSIVE` 1010, `DQS_DML` 1013, `DQS_DDL` 1014, `ENABLE_VIEW` 1015,
/// `TRUSTED_SCHEMA` 1017, `RESET_DATABASE` 1009, and the rest of SQLite's switches;
/// <https://sqlite.org/c3ref/c_dbconfig_defensive.html>); `value` -1 only reads. `*out_value`
/// (if not NULL) gets the switch's state after the call, 0 or 1. Loading extensions
/// (`ENABLE_LOAD_EXTENSION`) is the same switch as `sqlbatch_conn_enable_load_extension`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_INVALID_ARGUMENT` (not a switch, or a `value` other
/// than -1, 0, 1); `SQLBATCH_E_CLOSED`; `SQLBATCH_E_NULL_PARAMETER`; SQLite's error.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_db_config(
    conn: *mut sqlbatch_conn,
    op: i32,
    value: i32,
    out_value: *mut i32,
) -> i32 {
    ffi_boundary!(conn: conn => |c| {
        let db = c.shared.db()?;
        if !SWITCHES.contains(&op) {
            return Err(Error::new(SQLBATCH_E_INVALID_ARGUMENT, format!("{op} is not an on/off db_config switch")));
        }
        if !(-1..=1).contains(&value) {
            return Err(Error::new(SQLBATCH_E_INVALID_ARGUMENT, format!("a switch is -1 (read), 0 or 1, not {value}")));
        }
        let mut now: c_int = 0;
        // SAFETY: `db` is open and used by this thread only; a switch takes (int, int*).
        let rc = unsafe { ffi::sqlite3_db_config(db, op, value as c_int, &mut now as *mut c_int) };
        if rc != ffi::SQLITE_OK {
            // SAFETY: as above.
            return Err(unsafe { Error::from_db(db, rc) });
        }
        // SAFETY: the caller vouches for `out_value`.
        unsafe { crate::ffi::write_opt(out_value, now) };
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_conn_checkpoint runs a WAL checkpoint of database `schema` (NULL: every attached
/// database) in `mode` (`SQLBATCH_CHECKPOINT_*`; `sqlite3_wal_checkpoint_v2`). `*out_log`
/// and `*out_checkpointed` (each if not NULL) get the frames in the log and the frames
/// checkpointed, -1 when the database is not in WAL mode; they are written also when the call
/// returns `SQLITE_BUSY` (another connection held a lock: the checkpoint did what it could).
/// @return `SQLBATCH_OK`; `SQLITE_BUSY`; `SQLBATCH_E_INVALID_ARGUMENT` (a bad mode);
/// `SQLITE_ERROR` (no such schema); `SQLBATCH_E_CLOSED`; `SQLBATCH_E_NULL_PARAMETER`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_checkpoint(
    conn: *mut sqlbatch_conn,
    schema: *const c_char,
    schema_len: usize,
    mode: i32,
    out_log: *mut i32,
    out_checkpointed: *mut i32,
) -> i32 {
    ffi_boundary!(conn: conn => |c| {
        let db = c.shared.db()?;
        if !(SQLBATCH_CHECKPOINT_PASSIVE..=SQLBATCH_CHECKPOINT_TRUNCATE).contains(&mode) {
            return Err(Error::new(SQLBATCH_E_INVALID_ARGUMENT, format!("no checkpoint mode {mode}")));
        }
        // SAFETY: the caller vouches for the pointers; NULL schema means every database.
        let name = if schema.is_null() { None } else { Some(unsafe { schema_name(schema, schema_len)? }) };
        let (mut log, mut done) = (-1 as c_int, -1 as c_int);
        // SAFETY: `db` is open and used by this thread only.
        let rc = unsafe {
            ffi::sqlite3_wal_checkpoint_v2(db, name.as_ref().map_or(std::ptr::null(), |n| n.as_ptr()), mode, &mut log, &mut done)
        };
        // SAFETY: as above.
        unsafe {
            crate::ffi::write_opt(out_log, log);
            crate::ffi::write_opt(out_checkpointed, done);
        }
        if rc != ffi::SQLITE_OK {
            // SAFETY: as above.
            return Err(unsafe { Error::from_db(db, rc) });
        }
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_conn_status reads connection status counter `op` (an `SQLITE_DBSTATUS_*` value,
/// e.g. `CACHE_USED` 1, `CACHE_HIT` 7, `CACHE_MISS` 8, `CACHE_WRITE` 9;
/// <https://sqlite.org/c3ref/c_dbstatus_options.html>) into `*out_current` and
/// `*out_highwater` (each if not NULL), and resets its high-water mark (or, for the hit and
/// miss counters, the counter) when `reset` is set (`sqlite3_db_status64`).
/// @return `SQLBATCH_OK`; `SQLBATCH_E_RANGE` (an unknown `op`); `SQLBATCH_E_CLOSED`;
/// `SQLBATCH_E_NULL_PARAMETER`; `SQLITE_BUSY` on a backup's destination and `SQLITE_MISUSE`
/// with a queued bulk write, as every call on a statement.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_status(
    conn: *mut sqlbatch_conn,
    op: i32,
    reset: bool,
    out_current: *mut i64,
    out_highwater: *mut i64,
) -> i32 {
    ffi_boundary!(conn: conn => |c| {
        let db = c.shared.db()?;
        let (mut cur, mut hi) = (0i64, 0i64);
        // SAFETY: `db` is open and used by this thread only.
        let rc = unsafe { ffi::sqlite3_db_status64(db, op, &mut cur, &mut hi, reset as c_int) };
        if rc != ffi::SQLITE_OK {
            return Err(Error::new(SQLBATCH_E_RANGE, format!("no status counter {op}")));
        }
        // SAFETY: the caller vouches for the pointers.
        unsafe {
            crate::ffi::write_opt(out_current, cur);
            crate::ffi::write_opt(out_highwater, hi);
        }
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_stmt_status reads statement counter `op` (an `SQLITE_STMTSTATUS_*` value, e.g.
/// `FULLSCAN_STEP` 1, `SORT` 2, `VM_STEP` 4, `RUN` 6, `MEMUSED` 99;
/// <https://sqlite.org/c3ref/c_stmtstatus_counter.html>) into `*out_value`, resetting it when
/// `reset` is set (`sqlite3_stmt_status`). A statement of no SQL reads 0.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_RANGE` (an unknown `op`); `SQLBATCH_E_CLOSED`;
/// `SQLBATCH_E_NULL_PARAMETER`; `SQLITE_BUSY` on a backup's destination and `SQLITE_MISUSE`
/// with a queued bulk write, as every call on a statement.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_status(
    stmt: *mut sqlbatch_stmt,
    op: i32,
    reset: bool,
    out_value: *mut i64,
) -> i32 {
    ffi_boundary!(stmt: stmt => |s| {
        // SAFETY: the caller vouches for `out_value`.
        let out_value = unsafe { try_mut(out_value, "out_value")? };
        // Closed, a backup's destination, a bulk write queued, and the worker's job done.
        s.handles()?;
        let known = [1, 2, 3, 4, 5, 6, 7, 8, 99];
        if !known.contains(&op) {
            return Err(Error::new(SQLBATCH_E_RANGE, format!("no statement counter {op}")));
        }
        *out_value = if s.raw.is_null() {
            0
        } else {
            // SAFETY: a live statement of an open connection, used by this thread only.
            unsafe { ffi::sqlite3_stmt_status(s.raw, op, reset as c_int) as i64 }
        };
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_conn_encoding writes to `*out_encoding` the text encoding of `conn`'s main
/// database (`PRAGMA encoding`): `SQLBATCH_ENCODING_UTF8`, `_UTF16LE` or `_UTF16BE`. A new
/// database takes its encoding when its first table is made, so ask after that. What it is
/// for: `sqlbatch_value_convert` of a BLOB to a number in a UTF-16 database
/// (`SQLBATCH_CONVERT_UTF16LE`, `_BE`).
/// @return `SQLBATCH_OK`; `SQLBATCH_E_CLOSED`; `SQLBATCH_E_NULL_PARAMETER`; SQLite's error.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_encoding(conn: *const sqlbatch_conn, out_encoding: *mut i32) -> i32 {
    ffi_boundary!(conn: conn => |c| {
        let db = c.shared.db()?;
        // SAFETY: the caller vouches for `out_encoding`.
        let out = unsafe { try_mut(out_encoding, "out_encoding")? };
        // SAFETY: `db` is open and used by this thread only.
        *out = unsafe { crate::engine::config::encoding(db)? };
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_conn_txn_state writes to `*out_state` the transaction state of database `schema` of
/// `conn` (NULL: the most advanced state over every attached database): `SQLBATCH_TXN_NONE`,
/// `_READ` or `_WRITE` (`sqlite3_txn_state`).
/// @return `SQLBATCH_OK`; `SQLITE_ERROR` (no such schema); `SQLBATCH_E_CLOSED`;
/// `SQLBATCH_E_NULL_PARAMETER`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_txn_state(
    conn: *const sqlbatch_conn,
    schema: *const c_char,
    schema_len: usize,
    out_state: *mut i32,
) -> i32 {
    ffi_boundary!(conn: conn => |c| {
        let db = c.shared.db()?;
        // SAFETY: the caller vouches for the pointers.
        let out_state = unsafe { try_mut(out_state, "out_state")? };
        let name = if schema.is_null() { None } else { Some(unsafe { schema_name(schema, schema_len)? }) };
        // SAFETY: `db` is open and used by this thread only.
        let state = unsafe { ffi::sqlite3_txn_state(db, name.as_ref().map_or(std::ptr::null(), |n| n.as_ptr())) };
        if state < 0 {
            return Err(unknown_schema(name.as_deref()));
        }
        *out_state = state;
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_conn_readonly writes to `*out_readonly` whether database `schema` (NULL: "main") of `conn`
/// is read-only: true for a connection opened read-only or a file it could only open for
/// reading (`sqlite3_db_readonly`; a buffer deserialized read-only refuses writes but reads
/// false here, as SQLite reports it).
/// @return `SQLBATCH_OK`; `SQLITE_ERROR` (no such schema); `SQLBATCH_E_CLOSED`;
/// `SQLBATCH_E_NULL_PARAMETER`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_readonly(
    conn: *const sqlbatch_conn,
    schema: *const c_char,
    schema_len: usize,
    out_readonly: *mut bool,
) -> i32 {
    ffi_boundary!(conn: conn => |c| {
        let db = c.shared.db()?;
        // SAFETY: the caller vouches for the pointers.
        let out_readonly = unsafe { try_mut(out_readonly, "out_readonly")? };
        let name = unsafe { schema_name(schema, schema_len)? };
        // SAFETY: `db` is open and used by this thread only.
        match unsafe { ffi::sqlite3_db_readonly(db, name.as_ptr()) } {
            -1 => Err(unknown_schema(Some(&name))),
            r => {
                *out_readonly = r == 1;
                Ok(SQLBATCH_OK)
            }
        }
    })
}

/// sqlbatch_conn_filename writes to `*out_filename` the absolute path of the file behind database
/// `schema` (NULL: "main") of `conn`, NUL-terminated UTF-8, or "" for an in-memory or
/// temporary database (`sqlite3_db_filename`).
///
/// Ownership: the string is the library's, valid until the database is detached or the
/// connection closed.
/// @return `SQLBATCH_OK`; `SQLITE_ERROR` (no such schema); `SQLBATCH_E_CLOSED`;
/// `SQLBATCH_E_NULL_PARAMETER`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_filename(
    conn: *const sqlbatch_conn,
    schema: *const c_char,
    schema_len: usize,
    out_filename: *mut *const c_char,
) -> i32 {
    ffi_boundary!(conn: conn => |c| {
        let db = c.shared.db()?;
        // SAFETY: the caller vouches for the pointers.
        let out_filename = unsafe { try_mut(out_filename, "out_filename")? };
        let name = unsafe { schema_name(schema, schema_len)? };
        // SAFETY: `db` is open and used by this thread only.
        let f = unsafe { ffi::sqlite3_db_filename(db, name.as_ptr()) };
        if f.is_null() {
            return Err(unknown_schema(Some(&name)));
        }
        *out_filename = f;
        Ok(SQLBATCH_OK)
    })
}
