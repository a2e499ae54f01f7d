//! Script exec: every statement of a multi-statement SQL string in one call.
//!
//! The loop is `sqlite3_exec`'s (prepare the next statement at the tail, step it to the end,
//! finalize), plus parameters consumed in order across the statements and an exact report of
//! where a failure happened. It allocates nothing per statement beyond what SQLite does.

use libsqlite3_sys as ffi;

use crate::engine::conn::ConnShared;
use crate::engine::run::{run_to_done, step_to_done, Changes};
use crate::engine::sql_text::{second_statement_error, skip_space_and_comments, StackSql};
use crate::engine::stmt::prepare_raw;
use crate::engine::value::{Binder, Lifetime};
use crate::error::Error;

/// What `sqlbatch_conn_exec` did; written also when it fails, to say what ran before.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct sqlbatch_exec_result {
    /// Statements that ran to completion.
    pub statements: u64,
    /// Parameters bound by those statements (a named value counts each time it is bound).
    pub params_used: u64,
    /// Rows inserted, updated or deleted directly by those statements, summed.
    pub changes: i64,
    /// `sqlite3_last_insert_rowid` after the call.
    pub last_insert_rowid: i64,
    /// Byte offset where execution stopped: `sql_len` after success, the first byte of the
    /// failing statement after a failure.
    pub end_offset: usize,
}

/// Owns a prepared statement for the length of one script step.
struct Finalize(*mut ffi::sqlite3_stmt);

impl Drop for Finalize {
    fn drop(&mut self) {
        // SAFETY: the handle came from sqlite3_prepare_v3 and is finalized once.
        unsafe { ffi::sqlite3_finalize(self.0) };
    }
}

/// The statement loop of `sqlbatch_conn_exec`. With `single` (`SQLBATCH_PARAMS_SINGLE`),
/// a second statement and values that are not exactly the first one's are refused before
/// it runs. `result.changes` is counted only if `counted`.
///
/// # Safety
/// `db` must be `conn`'s open handle, used by this thread only, and the bytes of `params`
/// readable during the call.
pub(crate) unsafe fn exec_script(
    db: *mut ffi::sqlite3,
    conn: &ConnShared,
    script: &[u8],
    params: &mut Binder<'_>,
    single: bool,
    counted: bool,
    result: &mut sqlbatch_exec_result,
) -> Result<(), Error> {
    // SQLite copies SQL that does not end in a NUL byte before compiling it: given each
    // statement's tail in turn, that would copy the rest of the script once per statement
    // (quadratic). One NUL-terminated copy of the whole script avoids it; a short one (a
    // `BEGIN`, a `COMMIT`) is copied on the stack rather than allocated.
    let len = script.len();
    let (mut room, mut long) = (StackSql::new(), Vec::new());
    let terminated: &[u8] = match room.terminate(script) {
        Some(t) => t,
        None => {
            long.try_reserve_exact(len + 1)
                .map_err(|_| Error::new(ffi::SQLITE_NOMEM, "out of memory copying the script"))?;
            long.extend_from_slice(script);
            long.push(0);
            &long
        }
    };
    // SAFETY: `db` is open.
    let mut counter = if counted { Some(unsafe { Changes::new(db) }) } else { None };
    let mut pos = 0;
    while pos < len {
        // SQLite skips whitespace and comments itself (its tokenizer decides what they are);
        // `start`, where the statement's first token is, only serves to report errors.
        let start = skip_space_and_comments(script, pos).min(len);
        result.end_offset = start;
        let locate = |mut e: Error, statements: u64| {
            if e.token_offset >= 0 {
                e.token_offset += pos as i64;
            }
            e.statement_index = statements as i64;
            e.statement_offset = match e.token_offset {
                t if t >= 0 => (start as i64).min(t),
                _ => start as i64,
            };
            e
        };
        if conn.interrupt_requested() {
            return Err(locate(Error::interrupted(), result.statements));
        }
        // The slice ends with the NUL, so that SQLite compiles in place.
        // SAFETY: as for this function.
        let (raw, consumed) =
            unsafe { prepare_raw(db, &terminated[pos..], 0) }.map_err(|e| locate(e, result.statements))?;
        let next = pos + consumed;
        if raw.is_null() {
            if next <= pos {
                let e = Error::new(ffi::SQLITE_ERROR, "SQLite made no progress through the script");
                return Err(locate(e, result.statements));
            }
            // A lone ";", or only whitespace and comments left.
            pos = next;
            continue;
        }
        let stmt = Finalize(raw);
        let used = if single {
            if let Some(e) = second_statement_error(script, next) {
                return Err(locate(e, result.statements));
            }
            // SAFETY: `stmt.0` is a live statement of `db`; the bytes outlive its run.
            unsafe { params.bind_single(db, stmt.0, Lifetime::Call) }
        } else {
            // SAFETY: as above.
            unsafe { params.bind(db, stmt.0, Lifetime::Call) }
        }
        .map_err(|e| locate(e, result.statements))?;
        // SAFETY: as above.
        let changes = match counter.as_mut() {
            // SAFETY: as above.
            Some(counter) => unsafe { run_to_done(db, stmt.0, counter) },
            // SAFETY: as above.
            None => unsafe { step_to_done(db, stmt.0) }.map(|()| 0),
        }
        .map_err(|e| locate(e, result.statements))?;
        drop(stmt);
        result.statements += 1;
        result.params_used += used;
        result.changes += changes;
        if single {
            // Only whitespace, comments and semicolons follow (checked before the run): done,
            // with nothing left that could fail after the statement ran (an interrupt that
            // came during its run, a prepare of the rest).
            result.end_offset = len;
            return Ok(());
        }
        pos = next;
    }
    result.end_offset = len;
    Ok(())
}
