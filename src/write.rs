//! Batched write: bind and run one prepared statement for N parameter rows in one call.

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::conn::ConnShared;
use crate::error::Error;
use crate::ffi::write_opt;
use crate::run::{step_to_done, Changes};
use crate::stmt::{sqlbatch_stmt, with_stmt};
use crate::value::{bind_all, param_count, param_count_error, sqlbatch_value, Lifetime, Params};

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
/// bulk insert. `values` holds `n_rows * n_cols` values, row-major (row r is
/// `values[r * n_cols .. (r + 1) * n_cols]`), and `n_cols` must equal the statement's parameter
/// count. Each run is stepped to completion (rows a statement returns are discarded).
///
/// TEXT and BLOB bytes are at `data + bits` (or at address `bits` when `data` is NULL) and are
/// not copied: they are only read during the call. The statement is reset before the first
/// row (its current batch becomes invalid) and after each row; its bindings are cleared at the
/// end. It does not open a transaction: wrap the call in BEGIN/COMMIT for speed and atomicity.
///
/// On failure the rows before the failing one have run; `row_index` of the connection's last
/// error, and `out_result->rows`, give the failing row.
/// `*out_result` (if `out_result` is not NULL) is written in every case.
/// NULL: `stmt` NULL, or `values` NULL with `n_rows * n_cols > 0`: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`, `SQLBATCH_E_PARAM_COUNT`, `SQLBATCH_E_RANGE`,
/// `SQLBATCH_E_INVALID_ARGUMENT`, `SQLBATCH_E_CLOSED`, or SQLite's error for the failing row
/// (e.g. `SQLITE_CONSTRAINT_PRIMARYKEY`, `SQLITE_INTERRUPT`).
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_execute_many(
    stmt: *mut sqlbatch_stmt,
    values: *const sqlbatch_value,
    n_rows: usize,
    n_cols: usize,
    data: *const u8,
    data_len: usize,
    out_result: *mut sqlbatch_write_result,
) -> i32 {
    let mut result = sqlbatch_write_result::default();
    let rc = with_stmt(stmt, |s| {
        let (db, raw) = s.handles()?;
        let n = n_rows
            .checked_mul(n_cols)
            .ok_or_else(|| Error::new(SQLBATCH_E_RANGE, "n_rows * n_cols overflows"))?;
        let params = Params::new(values, n, data, data_len)?;
        let expected = param_count(raw);
        if n_cols != expected {
            return Err(param_count_error(expected, n_cols));
        }
        s.rewind();
        s.fetch.generation += 1;
        if raw.is_null() {
            // An empty statement: every run does nothing.
            result.rows = n_rows as u64;
            return Ok(SQLBATCH_OK);
        }
        s.conn.start_call();
        let outcome = run_rows(db, &s.conn, raw, n_rows, n_cols, &params, &mut result);
        ffi::sqlite3_reset(raw);
        ffi::sqlite3_clear_bindings(raw);
        result.last_insert_rowid = ffi::sqlite3_last_insert_rowid(db);
        outcome.map(|()| SQLBATCH_OK)
    });
    write_opt(out_result, result);
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
unsafe fn run_rows(
    db: *mut ffi::sqlite3,
    conn: &ConnShared,
    raw: *mut ffi::sqlite3_stmt,
    n_rows: usize,
    n_cols: usize,
    params: &Params<'_>,
    result: &mut sqlbatch_write_result,
) -> Result<(), Error> {
    let at_row = |mut e: Error, row: usize| {
        e.row_index = row as i64;
        e.message = format!("row {row}: {}", e.message).into();
        e
    };
    let by_run = ffi::sqlite3_stmt_readonly(raw) != 0;
    // Without `by_run`, `counter` is never advanced: `moved` then compares with the start.
    let mut counter = Changes::new(db);
    let mut sum = 0;
    let mut outcome = Ok(());
    for row in 0..n_rows {
        if conn.interrupt_requested() {
            outcome = Err(at_row(Error::interrupted(), row));
            break;
        }
        let values = &params.values[row * n_cols..(row + 1) * n_cols];
        if let Err(e) = bind_all(db, raw, values, params, Lifetime::Call) {
            outcome = Err(at_row(e, row));
            break;
        }
        if let Err(e) = step_to_done(db, raw) {
            outcome = Err(at_row(e, row));
            break;
        }
        sum += if by_run { counter.of_last_run() } else { ffi::sqlite3_changes64(db) };
        ffi::sqlite3_reset(raw);
        result.rows += 1;
    }
    result.changes = if by_run || counter.moved() { sum } else { 0 };
    outcome
}
