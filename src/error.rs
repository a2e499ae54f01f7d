//! Errors: the internal `Error` value, the per-connection "last error" that C reads back
//! through `sqlbatch_conn_last_error`, and the `sqlbatch_error` struct it is read into.

use std::borrow::Cow;
use std::ffi::{c_char, CStr, CString};

use libsqlite3_sys as ffi;

use crate::codes::*;

/// What went wrong in one call. `code` is what the exported function returns.
#[derive(Debug, Clone)]
pub(crate) struct Error {
    pub code: i32,
    pub message: Cow<'static, str>,
    pub token_offset: i64,
    pub statement_index: i64,
    pub statement_offset: i64,
    pub row_index: i64,
}

impl Error {
    /// An error raised by sqlbatch itself.
    pub fn new(code: i32, message: impl Into<Cow<'static, str>>) -> Self {
        Error {
            code,
            message: message.into(),
            token_offset: -1,
            statement_index: -1,
            statement_offset: -1,
            row_index: -1,
        }
    }

    pub fn null(what: &'static str) -> Self {
        Self::new(SQLBATCH_E_NULL_PARAMETER, format!("{what} is NULL"))
    }

    /// The call was interrupted by `sqlbatch_conn_interrupt` between two statements or rows,
    /// where SQLite itself would not have seen it.
    pub fn interrupted() -> Self {
        Self::new(libsqlite3_sys::SQLITE_INTERRUPT, "interrupted")
    }

    /// A panic caught at the boundary, with its message.
    pub fn panic(what: &str) -> Self {
        Self::new(SQLBATCH_E_PANIC, format!("internal error (panic): {what}"))
    }

    /// An SQLite result code with SQLite's description of it (for calls whose error is not
    /// kept on a connection, such as a backup step).
    pub fn code(rc: i32) -> Self {
        // SAFETY: sqlite3_errstr returns a static NUL-terminated string for any code.
        let text = unsafe { CStr::from_ptr(ffi::sqlite3_errstr(rc)) };
        Self::new(rc, text.to_string_lossy().into_owned())
    }

    pub fn closed() -> Self {
        Self::new(SQLBATCH_E_CLOSED, "the connection was closed")
    }

    /// The error SQLite just reported on `db` for a call that returned `rc`.
    ///
    /// # Safety
    /// `db` must be an open connection.
    pub unsafe fn from_db(db: *mut ffi::sqlite3, rc: i32) -> Self {
        // SAFETY: `db` is open (the caller's contract); the message lives until the next call on it.
        let msg = unsafe { ffi::sqlite3_errmsg(db) };
        let message = if msg.is_null() {
            Cow::Borrowed("out of memory")
        } else {
            // SAFETY: SQLite's messages are NUL-terminated.
            owned_text(unsafe { CStr::from_ptr(msg) }.to_bytes())
        };
        // sqlite3_errmsg describes the most recent call; if that call was not the one that
        // failed (it can't be here, but be safe), fall back to the code's description.
        // SAFETY: as above.
        let (ext, offset) = unsafe { (ffi::sqlite3_extended_errcode(db), ffi::sqlite3_error_offset(db)) };
        let code = if rc & 0xff == ext & 0xff { ext } else { rc };
        Error { code, message, token_offset: offset as i64, ..Self::new(code, "") }
    }

    /// Invalid UTF-8 in `what`, first bad byte at `at`.
    pub fn utf8(what: &str, at: usize) -> Self {
        Error {
            token_offset: at as i64,
            ..Self::new(
                SQLBATCH_E_INVALID_UTF8,
                format!("{what} is not valid UTF-8 (first invalid byte at offset {at})"),
            )
        }
    }
}

/// A copy of a message's bytes (invalid UTF-8 replaced by U+FFFD), made without aborting the
/// program when memory runs out: a message can carry a host's text of any length (a function's
/// or a virtual table's error), so its copy is one of the allocations whose size the data
/// sets. Out of memory, the copy is a fixed text that says so.
pub(crate) fn owned_text(bytes: &[u8]) -> Cow<'static, str> {
    let mut text = String::new();
    for chunk in bytes.utf8_chunks() {
        let (valid, bad) = (chunk.valid(), !chunk.invalid().is_empty());
        let more = valid.len() + if bad { char::REPLACEMENT_CHARACTER.len_utf8() } else { 0 };
        if text.try_reserve(more).is_err() {
            return Cow::Borrowed("out of memory copying an error message");
        }
        text.push_str(valid);
        if bad {
            text.push(char::REPLACEMENT_CHARACTER);
        }
    }
    Cow::Owned(text)
}

/// Where the errors of a call are recorded: a connection, for `sqlbatch_conn_last_error`.
pub(crate) trait ErrorSink {
    fn record(&self, e: &Error);
}

/// Checks that SQL text holds no NUL byte: SQLite would silently stop reading there.
pub(crate) fn check_no_nul(sql: &[u8]) -> Result<(), Error> {
    if !sql.contains(&0) {
        return Ok(());
    }
    let at = sql.iter().position(|&b| b == 0).unwrap_or(0);
    Err(Error {
        token_offset: at as i64,
        ..Error::new(
            crate::codes::SQLBATCH_E_INVALID_ARGUMENT,
            format!("the SQL contains a NUL byte at offset {at}"),
        )
    })
}

/// Checks SQL text as `check_utf8(sql, "SQL")` and then `check_no_nul` do, with the same
/// errors, in one pass for the common case: short ASCII text (a statement an application
/// prepares or a `BEGIN`), where the two separate scans cost more than the rest of the call.
#[inline]
pub(crate) fn check_sql(sql: &[u8]) -> Result<(), Error> {
    if plain_sql(sql) {
        Ok(())
    } else {
        check_sql_slow(sql)
    }
}

/// Whether `sql` is short text of ASCII bytes other than NUL: 8 bytes at a time, the last 8
/// bytes read as one word (overlapping the word before). A word at a time and a branch per
/// word: statements are tens of bytes, for which a vectorized loop costs more to start.
#[inline]
fn plain_sql(sql: &[u8]) -> bool {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    // Whether a byte of `w` is >= 0x80 or zero (the classic has-zero-byte test, whose false
    // positives need a zero byte in the word, flagged anyway).
    let flagged = |w: u64| (w | (w.wrapping_sub(ONES) & !w)) & HIGH != 0;
    let word = |at: usize| u64::from_le_bytes(sql[at..at + 8].try_into().unwrap_or_default());
    let n = sql.len();
    if n < 8 {
        return sql.iter().all(|&b| b != 0 && b < 0x80);
    }
    if n > 4096 {
        return false;
    }
    let mut at = 0;
    while at + 8 < n {
        if flagged(word(at)) {
            return false;
        }
        at += 8;
    }
    !flagged(word(n - 8))
}

#[cold]
#[inline(never)]
fn check_sql_slow(sql: &[u8]) -> Result<(), Error> {
    check_utf8(sql, "SQL")?;
    check_no_nul(sql)
}

/// Checks that `bytes` is UTF-8, naming `what` in the error.
pub(crate) fn check_utf8<'a>(bytes: &'a [u8], what: &str) -> Result<&'a str, Error> {
    std::str::from_utf8(bytes).map_err(|e| Error::utf8(what, e.valid_up_to()))
}

/// The error details of a connection, read back with `sqlbatch_conn_last_error`.
#[repr(C)]
pub struct sqlbatch_error {
    /// The status the failing call returned (an extended SQLite code or a library code);
    /// `SQLBATCH_OK` if no call on the connection has failed yet.
    pub code: i32,
    /// `code & 0xff` for SQLite codes (e.g. `SQLITE_CONSTRAINT` for `SQLITE_CONSTRAINT_UNIQUE`);
    /// equal to `code` for library codes.
    pub primary_code: i32,
    /// The message, NUL-terminated UTF-8. Borrowed from the connection: valid until the next
    /// failing call on the connection (or on one of its statements), or until it is closed.
    pub message: *const c_char,
    /// Length of `message` in bytes, without the NUL.
    pub message_len: usize,
    /// Byte offset of the token the error is about in the SQL text the failing call was given
    /// (for a script, counted from the start of the whole script); -1 if none.
    pub token_offset: i64,
    /// `sqlbatch_conn_exec`: index (from 0) of the statement that failed; -1 otherwise.
    pub statement_index: i64,
    /// `sqlbatch_conn_exec`: byte offset where the failing statement starts; -1 otherwise.
    pub statement_offset: i64,
    /// `sqlbatch_stmt_execute_many`: index (from 0) of the parameter row that failed; -1 otherwise.
    pub row_index: i64,
}

/// The stored copy of a connection's most recent error.
pub(crate) struct LastError {
    error: Error,
    message: CString,
}

impl Default for LastError {
    fn default() -> Self {
        LastError { error: Error::new(SQLBATCH_OK, "not an error"), message: c"not an error".to_owned() }
    }
}

impl LastError {
    pub fn set(&mut self, e: &Error) {
        // The message is kept once, as the C string read back; its copy may be as long as a
        // host's message, so it is made without aborting when memory runs out.
        let mut bytes = Vec::new();
        let message = if bytes.try_reserve(e.message.len() + 1).is_ok() {
            bytes.extend(e.message.bytes().filter(|&b| b != 0));
            // Cannot fail: NUL bytes were removed.
            CString::new(bytes).unwrap_or_default()
        } else {
            c"out of memory copying an error message".to_owned()
        };
        self.message = message;
        self.error = Error { message: Cow::Borrowed(""), ..*e };
    }

    pub fn view(&self) -> sqlbatch_error {
        let e = &self.error;
        sqlbatch_error {
            code: e.code,
            primary_code: primary(e.code),
            message: self.message.as_ptr(),
            message_len: self.message.as_bytes().len(),
            token_offset: e.token_offset,
            statement_index: e.statement_index,
            statement_offset: e.statement_offset,
            row_index: e.row_index,
        }
    }
}

/// The primary code of a status: the low byte for SQLite codes, the code itself otherwise.
pub(crate) fn primary(code: i32) -> i32 {
    if library_code_str(code).is_some() {
        code
    } else {
        code & 0xff
    }
}

/// A copy of `message` that SQLite frees (`sqlite3_free`): what its `zErrMsg`-style
/// out-parameters take (a virtual table's error, a module's failed connect).
pub(crate) fn sqlite_message(message: &str) -> *mut std::ffi::c_char {
    let text = std::ffi::CString::new(message.replace('\0', " ")).unwrap_or_default();
    // SAFETY: a NUL-terminated format and argument.
    unsafe { libsqlite3_sys::sqlite3_mprintf(c"%s".as_ptr(), text.as_ptr()) }
}

/// Fails the current call on the virtual table `vtab` with `message`, which SQLite reports
/// as the statement's error; returns `rc`.
///
/// # Safety
/// `vtab` is a live virtual table of a module of this library.
pub(crate) unsafe fn vtab_error(
    vtab: *mut libsqlite3_sys::sqlite3_vtab,
    rc: std::ffi::c_int,
    message: &str,
) -> std::ffi::c_int {
    // SAFETY: the caller's contract; SQLite frees the previous message and this one.
    unsafe {
        libsqlite3_sys::sqlite3_free((*vtab).zErrMsg.cast());
        (*vtab).zErrMsg = sqlite_message(message);
    }
    rc
}

#[cfg(test)]
mod tests {
    use super::plain_sql;

    #[test]
    fn plain_sql_is_ascii_without_nul() {
        let naive = |s: &[u8]| s.len() <= 4096 && s.iter().all(|&b| b != 0 && b < 0x80);
        for n in 0..48 {
            let base: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
            assert!(plain_sql(&base), "length {n}");
            for at in 0..n {
                for bad in [0x00, 0x01, 0x7f, 0x80, 0xc3, 0xff] {
                    let mut s = base.clone();
                    s[at] = bad;
                    assert_eq!(plain_sql(&s), naive(&s), "length {n}, {bad:#x} at {at}");
                }
            }
        }
        // A 0x01 after a NUL (where the zero test's borrow lands), and the length bound.
        assert!(!plain_sql(b"SELECT 1\x00\x01;  "));
        assert!(plain_sql(&[b' '; 4096]));
        assert!(!plain_sql(&[b' '; 4097]));
    }
}
