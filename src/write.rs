//! Batched write: bind and run one prepared statement for N parameter rows in one call.

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::conn::ConnShared;
use crate::error::Error;
use crate::ffi::write_opt;
use crate::panic::{ffi_boundary, lock};
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
        // SAFETY: the caller vouches for `rows`.
        let Some(w) = (unsafe { start_write(s, rows, n_rows, &mut result)? }) else {
            return Ok(SQLBATCH_OK);
        };
        // SAFETY: `start_write`'s result is ready to run, on this thread.
        unsafe { w.run(&mut result) }.map(|()| SQLBATCH_OK)
    });
    // SAFETY: a non-NULL `out_result` is valid for writes.
    unsafe { write_opt(out_result, result) };
    rc
}

/// A bulk write checked and ready to run: everything `run` needs, on any thread.
struct Write {
    db: *mut ffi::sqlite3,
    conn: *const ConnShared,
    raw: *mut ffi::sqlite3_stmt,
    n_rows: usize,
    n_cols: usize,
    params: Params<'static>,
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
    unsafe fn run(self, result: &mut sqlbatch_write_result) -> Result<(), Error> {
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

/// Checks a bulk write of `n_rows` rows from `rows` on `s` and rewinds the statement; `None`
/// when there is nothing to run (an empty statement, whose runs are counted in `result`).
///
/// # Safety
/// As for `sqlbatch_stmt_execute_many`'s `rows`, which must stay valid while the result runs.
unsafe fn start_write(
    s: &mut sqlbatch_stmt,
    rows: *const sqlbatch_params,
    n_rows: usize,
    result: &mut sqlbatch_write_result,
) -> Result<Option<Write>, Error> {
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
        return Ok(None);
    }
    s.conn.start_call();
    Ok(Some(Write { db, conn: std::sync::Arc::as_ptr(&s.conn), raw, n_rows, n_cols, params }))
}

/// What a bulk write queued by `sqlbatch_stmt_execute_many_start` did, once it ran.
pub(crate) type Queued = std::sync::Arc<std::sync::Mutex<Option<(Result<(), Error>, sqlbatch_write_result)>>>;

/// sqlbatch_stmt_execute_many_start queues a bulk write, the same as
/// `sqlbatch_stmt_execute_many` (same arguments, same checks, same rows run), and returns
/// without waiting for it: the connection's worker thread (see
/// `sqlbatch_stmt_set_fetch_ahead`) runs the rows while the caller prepares the next batch.
/// `sqlbatch_stmt_execute_many_wait` waits for it and reports what it did. The pattern of a
/// bulk load with two parameter buffers: start(b0); fill b1; wait(); start(b1); fill b0;
/// wait(); start(b0); ...; wait().
///
/// Ownership: the parameter memory (`rows->values` and the bytes at `rows->data`; not the
/// `sqlbatch_params` struct itself, which is read before the call returns) is read while the
/// rows run, so it must stay valid and unchanged until `sqlbatch_stmt_execute_many_wait`
/// returns. A garbage-collected caller pins it or allocates it outside its heap.
///
/// One write is queued per statement at a time: until `sqlbatch_stmt_execute_many_wait`,
/// every other call on `stmt` fails with `SQLITE_MISUSE` (but `sqlbatch_stmt_finalize`, which
/// waits for the write and drops its result). Calls on the connection and its other
/// statements wait for the write to finish; `sqlbatch_conn_interrupt` stops it as it would the
/// synchronous call. Errors found before any row runs (NULL arrays, counts, kinds) are
/// returned by this call, and nothing is queued; errors of the rows come from the wait.
/// Called from a callback running on the worker, or if no thread can be started, the rows run
/// before this call returns (the wait still reports them).
/// NULL: `stmt` NULL, or a NULL array in `rows` with a non-zero count: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK` (queued), `SQLITE_MISUSE` (a write is already queued), or the errors
/// of `sqlbatch_stmt_execute_many` that come before any row runs.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_execute_many_start(
    stmt: *mut sqlbatch_stmt,
    rows: *const sqlbatch_params,
    n_rows: usize,
) -> i32 {
    ffi_boundary!(stmt: stmt => |s| {
        let mut result = sqlbatch_write_result::default();
        // SAFETY: the caller vouches for `rows`, and keeps its memory until the wait.
        let w = unsafe { start_write(s, rows, n_rows, &mut result)? };
        let queued: Queued = Default::default();
        s.queued = Some(queued.clone());
        let Some(w) = w else {
            *lock(&queued) = Some((Ok(()), result));
            return Ok(SQLBATCH_OK);
        };
        let job = move || {
            let mut result = sqlbatch_write_result::default();
            // SAFETY: the worker runs this while the connection is its alone; the caller keeps
            // the parameter memory until the wait.
            let outcome = crate::panic::catch(|| unsafe { w.run(&mut result) });
            *lock(&queued) = Some((outcome, result));
        };
        if crate::worker::Worker::on_worker() {
            job();
        } else if let Err(job) = s.conn.worker().run(Box::new(job)) {
            job();
        }
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_stmt_execute_many_wait waits for the bulk write `sqlbatch_stmt_execute_many_start`
/// queued on `stmt`, and reports it exactly as `sqlbatch_stmt_execute_many` would have: its
/// status, `*out_result` (if `out_result` is not NULL, written in every case) and, on failure,
/// the connection's last error (with the failing row in `row_index`). After it, the parameter
/// memory is the caller's again.
/// NULL: `stmt` NULL gives `SQLBATCH_E_NULL_PARAMETER`.
/// @return what `sqlbatch_stmt_execute_many` returns, or `SQLITE_MISUSE` if no write is queued
/// on `stmt`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_execute_many_wait(
    stmt: *mut sqlbatch_stmt,
    out_result: *mut sqlbatch_write_result,
) -> i32 {
    let mut result = sqlbatch_write_result::default();
    let rc = ffi_boundary!(stmt: stmt => |s| {
        let Some(queued) = s.queued.take() else {
            return Err(Error::new(ffi::SQLITE_MISUSE, "no bulk write is queued on this statement"));
        };
        s.conn.worker().wait();
        let (outcome, r) = lock(&queued).take().expect("the worker is idle: the write ran");
        result = r;
        outcome.map(|()| SQLBATCH_OK)
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
