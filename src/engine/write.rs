//! Batched write: one prepared statement bound and run for N parameter rows. A checked write
//! ready to run on any thread (`Write`), its row loop, and what a write queued behind the
//! caller leaves for its wait (`Queued`); `bulk.rs` decides where it runs.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::engine::conn::ConnShared;
use crate::engine::run::{step_to_done, Changes};
use crate::engine::value::{bind_all, sqlbatch_params, Lifetime, Params};
use crate::error::Error;

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

/// A bulk write checked and ready to run: everything `run` needs, on any thread.
pub(crate) struct Write {
    pub db: *mut ffi::sqlite3,
    pub conn: *const ConnShared,
    pub raw: *mut ffi::sqlite3_stmt,
    pub n_rows: usize,
    pub n_cols: usize,
    pub params: Params<'static>,
}

// SAFETY: a `Write` runs on the worker while the connection is the worker's alone (every call
// on it waits for the job), and the caller keeps the parameter memory as the header states.
unsafe impl Send for Write {}

impl Write {
    /// Runs the rows, then resets the statement and clears its bindings.
    ///
    /// # Safety
    /// The connection is used by this thread only while it runs; the parameter memory is
    /// still valid and unchanged.
    pub(crate) unsafe fn run(self, result: &mut sqlbatch_write_result) -> Result<(), Error> {
        // SAFETY: `raw` is a live statement of `db` taking `n_cols` parameters, `params`
        // holds `n_rows * n_cols` values (checked by `start_write`), `conn` outlives it.
        unsafe {
            let outcome =
                run_rows(self.db, &*self.conn, self.raw, self.n_rows, self.n_cols, &self.params, result);
            ffi::sqlite3_reset(self.raw);
            ffi::sqlite3_clear_bindings(self.raw);
            result.last_insert_rowid = ffi::sqlite3_last_insert_rowid(self.db);
            (*self.conn).hooks().end_call(self.db, outcome)
        }
    }
}

/// Checks that `rows` holds `n_rows` rows of `n_cols` values bound by position.
///
/// # Safety
/// As for `sqlbatch_stmt_execute_many`'s `rows`.
pub(crate) unsafe fn check_params(
    rows: *const sqlbatch_params,
    n_rows: usize,
    n_cols: usize,
) -> Result<Params<'static>, Error> {
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
    Ok(params)
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

/// What a queued bulk write did, once it ran (written by whoever ran it).
pub(crate) type Outcome = Arc<Mutex<Option<(Result<(), Error>, sqlbatch_write_result)>>>;

/// A bulk write queued by `sqlbatch_stmt_execute_many_start`, until its wait.
pub(crate) struct Queued {
    pub outcome: Outcome,
    /// Raised once it failed or was skipped: a write queued behind it is then skipped.
    pub failed: Arc<AtomicBool>,
    /// Its ticket on the connection's worker (0: it ran before the start returned).
    pub ticket: u64,
    /// The database handle and the statement's parameter count, for a write queued behind
    /// it (which cannot ask the connection, whose worker may be running this one).
    pub db: *mut ffi::sqlite3,
    pub n_cols: usize,
}
