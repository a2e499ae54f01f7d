//! Status codes: the numbers every fallible function of the C ABI returns, and their names.
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
/// `sqlbatch_stmt_prepare` with `SQLBATCH_PREPARE_SINGLE`: the SQL holds more than one
/// statement; `token_offset` is where the second one starts.
pub const SQLBATCH_E_MULTIPLE_STATEMENTS: i32 = 1009;
/// `sqlbatch_stmt_execute_many_wait`: the bulk write did not run, because the one queued
/// before it on the same statement failed (no row runs after a failing one).
pub const SQLBATCH_E_SKIPPED: i32 = 1010;
/// This build of the library lacks what the call needs: the key calls in a build without
/// encryption (`sqlbatch_cipher_version` returns NULL there).
pub const SQLBATCH_E_UNSUPPORTED: i32 = 1011;

/// The description of any code: the library's own, or SQLite's (`sqlite3_errstr`).
pub(crate) fn description(code: i32) -> *const c_char {
    match library_code_str(code) {
        Some(s) => s.as_ptr(),
        // SAFETY: sqlite3_errstr accepts any int and returns a static string.
        None => unsafe { libsqlite3_sys::sqlite3_errstr(code) },
    }
}

/// The symbolic name of a code (`"SQLITE_CONSTRAINT_UNIQUE"`, `"SQLBATCH_E_RANGE"`), or None.
pub(crate) fn name(code: i32) -> Option<&'static CStr> {
    if let Some(name) = library_code_name(code) {
        return Some(name);
    }
    SQLITE_CODE_NAMES.binary_search_by_key(&code, |&(c, _)| c).ok().map(|i| SQLITE_CODE_NAMES[i].1)
}

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
        SQLBATCH_E_MULTIPLE_STATEMENTS => c"more than one statement",
        SQLBATCH_E_SKIPPED => c"not run: an earlier queued write failed",
        SQLBATCH_E_UNSUPPORTED => c"not supported by this build",
        _ => return None,
    })
}

/// The symbolic name of a library code, or None for codes that belong to SQLite.
fn library_code_name(code: i32) -> Option<&'static CStr> {
    Some(match code {
        SQLBATCH_OK => c"SQLBATCH_OK",
        SQLBATCH_ROW => c"SQLBATCH_ROW",
        SQLBATCH_DONE => c"SQLBATCH_DONE",
        SQLBATCH_E_NULL_PARAMETER => c"SQLBATCH_E_NULL_PARAMETER",
        SQLBATCH_E_PANIC => c"SQLBATCH_E_PANIC",
        SQLBATCH_E_INVALID_UTF8 => c"SQLBATCH_E_INVALID_UTF8",
        SQLBATCH_E_RANGE => c"SQLBATCH_E_RANGE",
        SQLBATCH_E_PARAM_COUNT => c"SQLBATCH_E_PARAM_COUNT",
        SQLBATCH_E_STALE_BATCH => c"SQLBATCH_E_STALE_BATCH",
        SQLBATCH_E_CLOSED => c"SQLBATCH_E_CLOSED",
        SQLBATCH_E_INVALID_ARGUMENT => c"SQLBATCH_E_INVALID_ARGUMENT",
        SQLBATCH_E_BUFFER_TOO_SMALL => c"SQLBATCH_E_BUFFER_TOO_SMALL",
        SQLBATCH_E_MULTIPLE_STATEMENTS => c"SQLBATCH_E_MULTIPLE_STATEMENTS",
        SQLBATCH_E_SKIPPED => c"SQLBATCH_E_SKIPPED",
        SQLBATCH_E_UNSUPPORTED => c"SQLBATCH_E_UNSUPPORTED",
        _ => return None,
    })
}

/// Every primary and extended result code of the bundled SQLite (from its sqlite3.h), by value;
/// generated by scripts/gen-code-names.py.
const SQLITE_CODE_NAMES: &[(i32, &CStr)] = &[
    (1, c"SQLITE_ERROR"),
    (2, c"SQLITE_INTERNAL"),
    (3, c"SQLITE_PERM"),
    (4, c"SQLITE_ABORT"),
    (5, c"SQLITE_BUSY"),
    (6, c"SQLITE_LOCKED"),
    (7, c"SQLITE_NOMEM"),
    (8, c"SQLITE_READONLY"),
    (9, c"SQLITE_INTERRUPT"),
    (10, c"SQLITE_IOERR"),
    (11, c"SQLITE_CORRUPT"),
    (12, c"SQLITE_NOTFOUND"),
    (13, c"SQLITE_FULL"),
    (14, c"SQLITE_CANTOPEN"),
    (15, c"SQLITE_PROTOCOL"),
    (16, c"SQLITE_EMPTY"),
    (17, c"SQLITE_SCHEMA"),
    (18, c"SQLITE_TOOBIG"),
    (19, c"SQLITE_CONSTRAINT"),
    (20, c"SQLITE_MISMATCH"),
    (21, c"SQLITE_MISUSE"),
    (22, c"SQLITE_NOLFS"),
    (23, c"SQLITE_AUTH"),
    (24, c"SQLITE_FORMAT"),
    (25, c"SQLITE_RANGE"),
    (26, c"SQLITE_NOTADB"),
    (27, c"SQLITE_NOTICE"),
    (28, c"SQLITE_WARNING"),
    (256, c"SQLITE_OK_LOAD_PERMANENTLY"),
    (257, c"SQLITE_ERROR_MISSING_COLLSEQ"),
    (261, c"SQLITE_BUSY_RECOVERY"),
    (262, c"SQLITE_LOCKED_SHAREDCACHE"),
    (264, c"SQLITE_READONLY_RECOVERY"),
    (266, c"SQLITE_IOERR_READ"),
    (267, c"SQLITE_CORRUPT_VTAB"),
    (270, c"SQLITE_CANTOPEN_NOTEMPDIR"),
    (275, c"SQLITE_CONSTRAINT_CHECK"),
    (279, c"SQLITE_AUTH_USER"),
    (283, c"SQLITE_NOTICE_RECOVER_WAL"),
    (284, c"SQLITE_WARNING_AUTOINDEX"),
    (512, c"SQLITE_OK_SYMLINK"),
    (513, c"SQLITE_ERROR_RETRY"),
    (516, c"SQLITE_ABORT_ROLLBACK"),
    (517, c"SQLITE_BUSY_SNAPSHOT"),
    (518, c"SQLITE_LOCKED_VTAB"),
    (520, c"SQLITE_READONLY_CANTLOCK"),
    (522, c"SQLITE_IOERR_SHORT_READ"),
    (523, c"SQLITE_CORRUPT_SEQUENCE"),
    (526, c"SQLITE_CANTOPEN_ISDIR"),
    (531, c"SQLITE_CONSTRAINT_COMMITHOOK"),
    (539, c"SQLITE_NOTICE_RECOVER_ROLLBACK"),
    (769, c"SQLITE_ERROR_SNAPSHOT"),
    (773, c"SQLITE_BUSY_TIMEOUT"),
    (776, c"SQLITE_READONLY_ROLLBACK"),
    (778, c"SQLITE_IOERR_WRITE"),
    (779, c"SQLITE_CORRUPT_INDEX"),
    (782, c"SQLITE_CANTOPEN_FULLPATH"),
    (787, c"SQLITE_CONSTRAINT_FOREIGNKEY"),
    (795, c"SQLITE_NOTICE_RBU"),
    (1025, c"SQLITE_ERROR_RESERVESIZE"),
    (1032, c"SQLITE_READONLY_DBMOVED"),
    (1034, c"SQLITE_IOERR_FSYNC"),
    (1038, c"SQLITE_CANTOPEN_CONVPATH"),
    (1043, c"SQLITE_CONSTRAINT_FUNCTION"),
    (1281, c"SQLITE_ERROR_KEY"),
    (1288, c"SQLITE_READONLY_CANTINIT"),
    (1290, c"SQLITE_IOERR_DIR_FSYNC"),
    (1294, c"SQLITE_CANTOPEN_DIRTYWAL"),
    (1299, c"SQLITE_CONSTRAINT_NOTNULL"),
    (1537, c"SQLITE_ERROR_UNABLE"),
    (1544, c"SQLITE_READONLY_DIRECTORY"),
    (1546, c"SQLITE_IOERR_TRUNCATE"),
    (1550, c"SQLITE_CANTOPEN_SYMLINK"),
    (1555, c"SQLITE_CONSTRAINT_PRIMARYKEY"),
    (1802, c"SQLITE_IOERR_FSTAT"),
    (1811, c"SQLITE_CONSTRAINT_TRIGGER"),
    (2058, c"SQLITE_IOERR_UNLOCK"),
    (2067, c"SQLITE_CONSTRAINT_UNIQUE"),
    (2314, c"SQLITE_IOERR_RDLOCK"),
    (2323, c"SQLITE_CONSTRAINT_VTAB"),
    (2570, c"SQLITE_IOERR_DELETE"),
    (2579, c"SQLITE_CONSTRAINT_ROWID"),
    (2826, c"SQLITE_IOERR_BLOCKED"),
    (2835, c"SQLITE_CONSTRAINT_PINNED"),
    (3082, c"SQLITE_IOERR_NOMEM"),
    (3091, c"SQLITE_CONSTRAINT_DATATYPE"),
    (3338, c"SQLITE_IOERR_ACCESS"),
    (3594, c"SQLITE_IOERR_CHECKRESERVEDLOCK"),
    (3850, c"SQLITE_IOERR_LOCK"),
    (4106, c"SQLITE_IOERR_CLOSE"),
    (4362, c"SQLITE_IOERR_DIR_CLOSE"),
    (4618, c"SQLITE_IOERR_SHMOPEN"),
    (4874, c"SQLITE_IOERR_SHMSIZE"),
    (5130, c"SQLITE_IOERR_SHMLOCK"),
    (5386, c"SQLITE_IOERR_SHMMAP"),
    (5642, c"SQLITE_IOERR_SEEK"),
    (5898, c"SQLITE_IOERR_DELETE_NOENT"),
    (6154, c"SQLITE_IOERR_MMAP"),
    (6410, c"SQLITE_IOERR_GETTEMPPATH"),
    (6666, c"SQLITE_IOERR_CONVPATH"),
    (6922, c"SQLITE_IOERR_VNODE"),
    (7178, c"SQLITE_IOERR_AUTH"),
    (7434, c"SQLITE_IOERR_BEGIN_ATOMIC"),
    (7690, c"SQLITE_IOERR_COMMIT_ATOMIC"),
    (7946, c"SQLITE_IOERR_ROLLBACK_ATOMIC"),
    (8202, c"SQLITE_IOERR_DATA"),
    (8458, c"SQLITE_IOERR_CORRUPTFS"),
    (8714, c"SQLITE_IOERR_IN_PAGE"),
    (8970, c"SQLITE_IOERR_BADKEY"),
    (9226, c"SQLITE_IOERR_CODEC"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_a_name_and_a_description() {
        assert!(SQLITE_CODE_NAMES.windows(2).all(|w| w[0].0 < w[1].0), "sorted, no duplicates");
        for &(code, name) in SQLITE_CODE_NAMES {
            assert_eq!(super::name(code), Some(name));
            let primary = code & 0xff;
            let prefix = SQLITE_CODE_NAMES.iter().find(|&&(c, _)| c == primary).map(|&(_, n)| n);
            // An extended code's name starts with its primary code's (SQLITE_OK_* aside).
            if let Some(p) = prefix {
                assert!(name.to_bytes().starts_with(p.to_bytes()), "{name:?} vs {p:?}");
            }
        }
        let named = |c: i32| super::name(c).unwrap().to_str().unwrap().to_owned();
        assert_eq!(named(libsqlite3_sys::SQLITE_CONSTRAINT_UNIQUE), "SQLITE_CONSTRAINT_UNIQUE");
        assert_eq!(named(libsqlite3_sys::SQLITE_BUSY), "SQLITE_BUSY");
        assert_eq!(named(libsqlite3_sys::SQLITE_IOERR_SHORT_READ), "SQLITE_IOERR_SHORT_READ");
        assert_eq!(named(SQLBATCH_E_RANGE), "SQLBATCH_E_RANGE");
        assert_eq!(named(SQLBATCH_OK), "SQLBATCH_OK");
        for code in 1000..=1023 {
            assert_eq!(library_code_str(code).is_some(), library_code_name(code).is_some(), "{code}");
        }
        assert!(super::name(999).is_none());
        assert!(super::name(-1).is_none());
    }
}
