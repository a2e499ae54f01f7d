//! Batched write: bind and run one prepared statement for N parameter rows in one call.

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::conn::ConnShared;
use crate::error::Error;
use crate::ffi::write_opt;
use crate::panic::ffi_boundary;
use crate::run::{step_to_done, Changes};
use crate::stmt::sqlbatch_stmt;
use crate::value::{bind_all, param_count, sqlbatch_params, Lifetime, Params};

/// What `sqlbatch_stmt_execute_many` did; written also when it fails.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct sqlbatch_write_result {
    /// Parameter rows that ran to completion. After a failure, this is also the index of the
    /// row that failed.
    pub rows: u64,
    /// Rows inserted, updated or deleted directly by those runs, summed.
    pub changes: i64,
    /// `sqlite3_last_insert_rowid` after the call.
    pub last_insert_rowid: i64,
}

/// sqlbatch_stmt_execute_many runs `stmt` once per parameter row, in one call: the typical
/// bulk insert. `rows->values` holds `n_rows * n_cols` values, row-major (row r is
/// `values[r * n_cols .. (r + 1) * n_cols]`), where `n_cols` is the statement's parameter
/// count: `rows->n_values` must be exactly `n_rows` times it. `rows->names` must be NULL
/// (parameters are bound by position). `rows` may be NULL for a statement without
/// parameters, which then runs `n_rows` times. Each run is stepped to completion (rows a
/// statement returns are discarded).
///
/// TEXT and BLOB bytes are not copied: they are only read during the call. The statement is
/// reset before the first row (its current batch becomes invalid) and after each row; its
/// bindings are cleared at the end. It does not open a transaction: wrap the call in
/// BEGIN/COMMIT for speed and atomicity.
///
/// On failure the rows before the failing one have run; `row_index` of the connection's last
/// error, and `out_result->rows`, give the failing row.
/// `*out_result` (if `out_result` is not NULL) is written in every case.
/// NULL: `stmt` NULL, or a NULL array in `rows` with a non-zero count: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`, `SQLBATCH_E_PARAM_COUNT`, `SQLBATCH_E_RANGE`,
/// `SQLBATCH_E_INVALID_ARGUMENT` (names given, a bad kind, bytes without a base),
/// `SQLBATCH_E_CLOSED`, or SQLite's error for the failing row (e.g.
/// `SQLITE_CONSTRAINT_PRIMARYKEY`, `SQLITE_INTERRUPT`).
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_execute_many(
    stmt: *mut sqlbatch_stmt,
    rows: *const sqlbatch_params,
    n_rows: usize,
    out_result: *mut sqlbatch_write_result,
) -> i32 {
    let mut result = sqlbatch_write_result::default();
    let rc = ffi_boundary!(stmt: stmt => |s| {
        let (db, raw) = s.handles()?;
        // SAFETY: the caller vouches for `rows`.
        let params = unsafe { Params::from_c(rows)? };
        // SAFETY: as above.
        let names_given = unsafe { rows.as_ref() }.is_some_and(|r| !r.names.is_null());
        if names_given {
            return Err(Error::new(
                SQLBATCH_E_INVALID_ARGUMENT,
                "execute_many binds by position: rows->names must be NULL",
            ));
        }
        // SAFETY: `raw` is NULL or live.
        let n_cols = unsafe { param_count(raw) };
        if n_rows.checked_mul(n_cols) != Some(params.values.len()) {
            return Err(Error::new(
                SQLBATCH_E_PARAM_COUNT,
                format!(
                    "{n_rows} row(s) of a statement that takes {n_cols} parameter(s) need {} value(s), but {} were given",
                    n_rows.saturating_mul(n_cols),
                    params.values.len()
                ),
            ));
        }
        s.rewind();
        s.fetch.generation += 1;
        if raw.is_null() {
            // An empty statement: every run does nothing.
            result.rows = n_rows as u64;
            return Ok(SQLBATCH_OK);
        }
        s.conn.start_call();
        // SAFETY: `raw` is a live statement of `db` taking `n_cols` parameters, and `params`
        // holds `n_rows * n_cols` values.
        unsafe {
            let outcome = run_rows(db, &s.conn, raw, n_rows, n_cols, &params, &mut result);
            ffi::sqlite3_reset(raw);
            ffi::sqlite3_clear_bindings(raw);
            result.last_insert_rowid = ffi::sqlite3_last_insert_rowid(db);
            outcome.map(|()| SQLBATCH_OK)
        }
    });
    // SAFETY: a non-NULL `out_result` is valid for writes.
    unsafe { write_opt(out_result, result) };
    rc
}

/// The row loop of `sqlbatch_stmt_execute_many`.
///
/// Changes are counted the way [`Changes`] does for a script, with one shortcut for the
/// common case: a statement that writes (not read-only) and is INSERT, UPDATE or DELETE sets
/// `sqlite3_changes64` at the end of every run, so summing that alone per row is exact for it;
/// any other statement that may write (DDL, PRAGMA, ...) leaves `sqlite3_total_changes64` where
/// it was, so if the total did not move over the whole call, the sum is 0. That saves one of the
/// two calls `Changes` makes per run (each with its API check and mutex calls). Read-only
/// statements, which cannot change rows directly, but whose SQL functions could run other
/// statements that do, are counted run by run as in a script.
///
/// # Safety
/// `raw` must be a live statement of `db` (`conn`'s, used by this thread only) taking
/// `n_cols` parameters, and `params` must hold `n_rows * n_cols` values whose bytes are
/// readable during the call.
unsafe fn run_rows(
    db: *mut ffi::sqlite3,
    conn: &ConnShared,
    raw: *mut ffi::sqlite3_stmt,
    n_rows: usize,
    n_cols: usize,
    params: &Params<'_>,
    result: &mut sqlbatch_write_result,
) -> Result<(), Error> {
    // The row goes in `row_index`; the message stays SQLite's, as callers compare it.
    let at_row = |mut e: Error, row: usize| {
        e.row_index = row as i64;
        e
    };
    // SAFETY (every block in this function): as for this function.
    let by_run = unsafe { ffi::sqlite3_stmt_readonly(raw) } != 0;
    // Without `by_run`, `counter` is never advanced: `moved` then compares with the start.
    let mut counter = unsafe { Changes::new(db) };
    let mut sum = 0;
    let mut outcome = Ok(());
    for row in 0..n_rows {
        if conn.interrupt_requested() {
            outcome = Err(at_row(Error::interrupted(), row));
            break;
        }
        let values = &params.values[row * n_cols..(row + 1) * n_cols];
        if let Err(e) = unsafe { bind_all(db, raw, values, params, Lifetime::Call) } {
            outcome = Err(at_row(e, row));
            break;
        }
        if let Err(e) = unsafe { step_to_done(db, raw) } {
            outcome = Err(at_row(e, row));
            break;
        }
        sum += unsafe {
            if by_run {
                counter.of_last_run()
            } else {
                ffi::sqlite3_changes64(db)
            }
        };
        unsafe { ffi::sqlite3_reset(raw) };
        result.rows += 1;
    }
    result.changes = if by_run || unsafe { counter.moved() } { sum } else { 0 };
    outcome
}
