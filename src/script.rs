//! Script exec: every statement of a multi-statement SQL string in one call.
//!
//! The loop is `sqlite3_exec`'s (prepare the next statement at the tail, step it to the end,
//! finalize), plus parameters consumed in order across the statements and an exact report of
//! where a failure happened. It allocates nothing per statement beyond what SQLite does.

use std::ffi::c_char;

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::conn::{sqlbatch_conn, ConnShared};
use crate::error::{check_sql, Error};
use crate::ffi::{try_bytes, write_opt};
use crate::panic::ffi_boundary;
use crate::run::{run_to_done, step_to_done, Changes};
use crate::sql_text::{second_statement_error, skip_space_and_comments, StackSql};
use crate::stmt::prepare_raw;
use crate::value::{sqlbatch_params, Binder, Lifetime, Params};

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

/// sqlbatch_conn_exec runs every statement of a SQL script (`sql_len` bytes of UTF-8, e.g. a
/// dump of thousands of statements) in one call, stepping each to completion and discarding any
/// rows, like `sqlite3_exec` without a callback.
///
/// Parameters (`params`, NULL for none): the positional values are consumed in order across
/// the statements: each statement takes as many as its parameter count (its largest index;
/// `?3` alone takes three), parameter `i` of a statement getting the `i`-th of its share.
/// Where `params->names[i]` is a TEXT value, `values[i]` goes to every parameter of that name
/// (`:x`, `@x`, `$x`) in any statement, and is not consumed positionally. A name given with its
/// prefix matches only that spelling (":id" matches `:id`); a name given without one matches
/// every prefix ("id" matches `:id`, `@id` and `$id`), as `sqlbatch_stmt_param_index` does.
/// The bytes of values and names are only read during the call. Whitespace and comments after
/// the last statement are fine (but for a comment opener with nothing after it at the very
/// end, which SQLite reads as a slash: a syntax error). A script without statements does
/// nothing and succeeds.
///
/// One statement: with `SQLBATCH_PARAMS_SINGLE` in `params->flags`, the SQL must hold one
/// statement taking exactly the values given, or nothing runs (see that flag): a second
/// statement is `SQLBATCH_E_MULTIPLE_STATEMENTS` with `token_offset` where it starts, another
/// number of values `SQLBATCH_E_PARAM_COUNT`, both with `statement_index` 0. Once the
/// statement ran to its end, the call succeeds. This is the call for a statement run once
/// (prepare, bind, run, finalize): the bytes are bound without a copy, and there is no
/// statement handle to allocate and finalize.
///
/// On failure, the statements before the failing one have run and stay run (wrap the script in
/// a transaction to make it all-or-nothing); the error records the failing statement's index
/// (`statement_index`), where it starts (`statement_offset`), and the offending token relative to
/// the whole script (`token_offset`). If positional values are left over after the last
/// statement, the whole script has run and `SQLBATCH_E_PARAM_COUNT` is returned (not with
/// `SQLBATCH_PARAMS_SINGLE`, which refuses them before the statement runs).
///
/// `*out_result` (if `out_result` is not NULL) is written in every case, saying what ran.
/// Thread: the caller of `conn` (see "Thread model").
/// NULL: `conn` NULL, `sql` NULL with `sql_len > 0`, or a NULL array in `params` with a
/// non-zero count: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_INVALID_UTF8` or `SQLBATCH_E_INVALID_ARGUMENT` (a NUL byte
/// in the SQL) before anything runs, with `token_offset` at the offending byte;
/// `SQLBATCH_E_PARAM_COUNT`, `SQLBATCH_E_RANGE`, `SQLBATCH_E_INVALID_ARGUMENT` (a bad value
/// kind, bytes without a base, bad params flags), `SQLBATCH_E_MULTIPLE_STATEMENTS` (with
/// `SQLBATCH_PARAMS_SINGLE`), `SQLBATCH_E_CLOSED`, or the error of the
/// failing statement (e.g. `SQLITE_ERROR`, `SQLITE_CONSTRAINT_UNIQUE`, `SQLITE_INTERRUPT`).
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_exec(
    conn: *mut sqlbatch_conn,
    sql: *const c_char,
    sql_len: usize,
    params: *const sqlbatch_params,
    out_result: *mut sqlbatch_exec_result,
) -> i32 {
    let mut result = sqlbatch_exec_result::default();
    let rc = ffi_boundary!(conn: conn => |conn| {
        let db = conn.shared.db()?;
        // SAFETY: the caller vouches for `sql` and `params`.
        let bytes = unsafe { try_bytes(sql, sql_len, "sql")? };
        check_sql(bytes)?;
        let params = unsafe { Params::from_c(params)? };
        let single = params.single;
        let mut binder = Binder::new(params);
        conn.shared.start_call();
        // Counting changes and reading the last rowid cost a few SQLite calls per statement:
        // only for a caller who wants the result.
        let counted = !out_result.is_null();
        // SAFETY: `db` is open and used by this thread only.
        let outcome = unsafe { exec_script(db, &conn.shared, bytes, &mut binder, single, counted, &mut result) };
        if counted {
            // SAFETY: as above.
            result.last_insert_rowid = unsafe { ffi::sqlite3_last_insert_rowid(db) };
        }
        // SAFETY: as above.
        unsafe { conn.shared.hooks().end_call(db, outcome) }?;
        let left = binder.positional_left();
        if left > 0 {
            return Err(Error::new(
                SQLBATCH_E_PARAM_COUNT,
                format!("too many parameter values: {left} left over after the last statement"),
            ));
        }
        Ok(SQLBATCH_OK)
    });
    // SAFETY: a non-NULL `out_result` is valid for writes.
    unsafe { write_opt(out_result, result) };
    rc
}

/// The statement loop of `sqlbatch_conn_exec`. With `single` (`SQLBATCH_PARAMS_SINGLE`),
/// a second statement and values that are not exactly the first one's are refused before
/// it runs. `result.changes` is counted only if `counted`.
///
/// # Safety
/// `db` must be `conn`'s open handle, used by this thread only, and the bytes of `params`
/// readable during the call.
unsafe fn exec_script(
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
            long.reserve_exact(len + 1);
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
