//! The knobs and counters of a connection: limits, `db_config` switches, WAL checkpoints,
//! status counters, and what state a database is in.

use std::ffi::{c_int, CStr};

use libsqlite3_sys as ffi;

use crate::engine::run;
use crate::error::Error;

/// The `sqlite3_db_config` switches (on/off options) that `sqlbatch_conn_db_config` takes:
/// the others (lookaside, the main database's name) configure memory or names, not behaviour.
pub(crate) const SWITCHES: [c_int; 20] = [
    ffi::SQLITE_DBCONFIG_ENABLE_FKEY,
    ffi::SQLITE_DBCONFIG_ENABLE_TRIGGER,
    ffi::SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER,
    ffi::SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION,
    ffi::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
    ffi::SQLITE_DBCONFIG_ENABLE_QPSG,
    ffi::SQLITE_DBCONFIG_TRIGGER_EQP,
    ffi::SQLITE_DBCONFIG_RESET_DATABASE,
    ffi::SQLITE_DBCONFIG_DEFENSIVE,
    ffi::SQLITE_DBCONFIG_WRITABLE_SCHEMA,
    ffi::SQLITE_DBCONFIG_LEGACY_ALTER_TABLE,
    ffi::SQLITE_DBCONFIG_DQS_DML,
    ffi::SQLITE_DBCONFIG_DQS_DDL,
    ffi::SQLITE_DBCONFIG_ENABLE_VIEW,
    ffi::SQLITE_DBCONFIG_LEGACY_FILE_FORMAT,
    ffi::SQLITE_DBCONFIG_TRUSTED_SCHEMA,
    ffi::SQLITE_DBCONFIG_STMT_SCANSTATUS,
    ffi::SQLITE_DBCONFIG_REVERSE_SCANORDER,
    ffi::SQLITE_DBCONFIG_ENABLE_ATTACH_CREATE,
    ffi::SQLITE_DBCONFIG_ENABLE_ATTACH_WRITE,
];

/// `sqlbatch_conn_checkpoint` mode: as much as can be done without waiting (`SQLITE_CHECKPOINT_PASSIVE`).
pub const SQLBATCH_CHECKPOINT_PASSIVE: i32 = 0;
/// Waits for writers, then checkpoints the whole log (`SQLITE_CHECKPOINT_FULL`).
pub const SQLBATCH_CHECKPOINT_FULL: i32 = 1;
/// FULL, then waits for readers so that the next writer restarts the log (`SQLITE_CHECKPOINT_RESTART`).
pub const SQLBATCH_CHECKPOINT_RESTART: i32 = 2;
/// RESTART, and truncates the log file to zero bytes (`SQLITE_CHECKPOINT_TRUNCATE`).
pub const SQLBATCH_CHECKPOINT_TRUNCATE: i32 = 3;

/// `sqlbatch_conn_encoding`: the database's text is UTF-8 (`SQLITE_UTF8`).
pub const SQLBATCH_ENCODING_UTF8: i32 = 1;
/// UTF-16, little-endian (`SQLITE_UTF16LE`).
pub const SQLBATCH_ENCODING_UTF16LE: i32 = 2;
/// UTF-16, big-endian (`SQLITE_UTF16BE`).
pub const SQLBATCH_ENCODING_UTF16BE: i32 = 3;

/// `sqlbatch_conn_txn_state` states (`SQLITE_TXN_*`): no transaction.
pub const SQLBATCH_TXN_NONE: i32 = 0;
/// A read transaction.
pub const SQLBATCH_TXN_READ: i32 = 1;
/// A write transaction.
pub const SQLBATCH_TXN_WRITE: i32 = 2;

pub(crate) fn unknown_schema(name: Option<&CStr>) -> Error {
    let name = name.map_or("".into(), |n| n.to_string_lossy());
    Error::new(ffi::SQLITE_ERROR, format!("unknown database {name}"))
}

/// The text encoding of the main database of `db` (`SQLBATCH_ENCODING_*`).
///
/// # Safety
/// `db` is open and used by this thread only.
pub(crate) unsafe fn encoding(db: *mut ffi::sqlite3) -> Result<i32, Error> {
    // SAFETY: the caller's contract; the text is read while the statement is on its row.
    let name = unsafe {
        run::first_row(db, c"PRAGMA main.encoding", |stmt| match run::text0(stmt).map(CStr::to_bytes) {
            Some(b"UTF-16le") => SQLBATCH_ENCODING_UTF16LE,
            Some(b"UTF-16be") => SQLBATCH_ENCODING_UTF16BE,
            _ => SQLBATCH_ENCODING_UTF8,
        })
    }?;
    Ok(name.unwrap_or(SQLBATCH_ENCODING_UTF8))
}
