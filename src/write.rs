//! Batched write: bind and run one prepared statement for N parameter rows in one call.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

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
    // SAFETY: `raw` is NULL or live.
    let n_cols = unsafe { param_count(raw) };
    // SAFETY: the caller vouches for `rows`.
    let params = unsafe { check_params(rows, n_rows, n_cols)? };
    s.rewind();
    s.fetch.generation += 1;
    if raw.is_null() {
        // An empty statement: every run does nothing.
        result.rows = n_rows as u64;
        return Ok(None);
    }
    s.conn.start_call();
    Ok(Some(Write { db, conn: Arc::as_ptr(&s.conn), raw, n_rows, n_cols, params }))
}

/// Checks that `rows` holds `n_rows` rows of `n_cols` values bound by position.
///
/// # Safety
/// As for `sqlbatch_stmt_execute_many`'s `rows`.
unsafe fn check_params(
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

/// What a queued bulk write did, once it ran (written by whoever ran it).
type Outcome = Arc<Mutex<Option<(Result<(), Error>, sqlbatch_write_result)>>>;

/// A bulk write queued by `sqlbatch_stmt_execute_many_start`, until its wait.
pub(crate) struct Queued {
    outcome: Outcome,
    /// Raised once it failed or was skipped: a write queued behind it is then skipped.
    failed: Arc<AtomicBool>,
    /// Its ticket on the connection's worker (0: it ran before the start returned).
    ticket: u64,
    /// The database handle and the statement's parameter count, for a write queued behind
    /// it (which cannot ask the connection, whose worker may be running this one).
    db: *mut ffi::sqlite3,
    n_cols: usize,
}

/// sqlbatch_stmt_execute_many_start queues a bulk write, the same as
/// `sqlbatch_stmt_execute_many` (same arguments, same checks, same rows run), and returns
/// without waiting for it: the connection's worker thread (see
/// `sqlbatch_stmt_set_fetch_ahead`) runs the rows while the caller prepares the next batch.
/// `sqlbatch_stmt_execute_many_wait` waits for the oldest write queued and reports what it
/// did.
///
/// Up to two writes can be queued on a statement; the worker runs them in order, going from
/// one straight to the next, so a bulk load keeps the worker busy with three parameter
/// buffers: start(b0); fill b1; start(b1); fill b2; wait() (b0 is done); start(b2); fill b0;
/// wait() (b1); start(b0); ...; wait(); wait(). With two buffers and one write queued at a
/// time (start(b0); fill b1; wait(); start(b1); fill b0; wait(); ...) it works as well, but
/// the worker idles from the end of each write until the caller's next start, which costs a
/// wake-up of each thread per batch (about 10% of a 4,096-row insert on a 2-core machine).
///
/// If a write fails, a write queued behind it on the statement does not run: its wait
/// returns `SQLBATCH_E_SKIPPED` (with `rows` 0), so that no row runs after a failing one, as
/// with the synchronous calls. Writes queued after every queued write was waited for run
/// again.
///
/// Ownership: the parameter memory (`rows->values` and the bytes at `rows->data`; not the
/// `sqlbatch_params` struct itself, which is read before the call returns) is read while the
/// rows run, so it must stay valid and unchanged until the wait that reports this write
/// returns. A garbage-collected caller pins it or allocates it outside its heap.
///
/// While a write is queued on a statement (until the wait of the last one), every other call
/// on `stmt` fails with `SQLITE_MISUSE` (but `sqlbatch_stmt_finalize`, which waits for the
/// writes and drops their results). Calls on the connection and its other statements wait
/// for the writes to finish; `sqlbatch_conn_interrupt` stops the one running as it would the
/// synchronous call (then the one behind it is skipped; an interrupt that comes after the
/// first write's last row stops the second). Errors found before any row runs (NULL arrays,
/// counts, kinds) are returned by this call, and nothing is queued; errors of the rows come
/// from the wait. The first start waits for the worker to be idle, as other calls do; a
/// second start does not wait for the write before it. Called from a callback (an SQL
/// function, aggregate or collation, or the WAL hook, on any thread: the step that runs it is
/// still using the connection), or if no thread can be started, the rows run before this call
/// returns (the wait still reports them); from a callback, a second start is `SQLITE_MISUSE`.
/// NULL: `stmt` NULL, or a NULL array in `rows` with a non-zero count: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK` (queued), `SQLITE_MISUSE` (two writes are already queued and not
/// waited for), `SQLBATCH_E_CLOSED`, or the errors of `sqlbatch_stmt_execute_many` that come
/// before any row runs.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_execute_many_start(
    stmt: *mut sqlbatch_stmt,
    rows: *const sqlbatch_params,
    n_rows: usize,
) -> i32 {
    ffi_boundary!(stmt: stmt => |s| {
        let mut result = sqlbatch_write_result::default();
        let behind = match s.queued.back() {
            None => None,
            Some(_) if s.queued.len() >= 2 => {
                return Err(Error::new(
                    ffi::SQLITE_MISUSE,
                    "two bulk writes are already queued on this statement: wait for one first",
                ));
            }
            // From a callback (an SQL function of this statement's own write on the worker,
            // say), the rows would run inside the step that called it.
            Some(_) if crate::worker::Worker::run_here(s.conn.hooks()) => {
                return Err(Error::new(
                    ffi::SQLITE_MISUSE,
                    "a bulk write cannot be queued from a callback while one is queued on the statement",
                ));
            }
            Some(q) => Some((q.db, q.n_cols, q.failed.clone(), q.ticket)),
        };
        let (w, db, n_cols, after) = match behind {
            // SAFETY: the caller vouches for `rows`, and keeps its memory until the wait.
            None => match unsafe { start_write(s, rows, n_rows, &mut result)? } {
                Some(w) => {
                    let (db, n_cols) = (w.db, w.n_cols);
                    (Some(w), db, n_cols, None)
                }
                None => (None, std::ptr::null_mut(), 0, None),
            },
            // Behind a queued write: the statement was rewound by the first one's start and
            // is reset by its run, and the connection (whose worker may run that write) is
            // not asked for anything; the write's interrupt window is the first one's.
            Some((db, n_cols, failed, ticket)) => {
                s.conn.open_db()?;
                // Once the write before has finished, this one is a call of its own: an
                // interrupt left from the calls since (which all waited for that write) is
                // forgotten, as every script and bulk write forgets it when it starts. While
                // that write runs, no other call can have run, and an interrupt is meant for
                // the writes in flight.
                if s.conn.worker().finished(ticket) {
                    s.conn.start_call();
                }
                // SAFETY: the caller vouches for `rows`.
                let params = unsafe { check_params(rows, n_rows, n_cols)? };
                if s.raw.is_null() {
                    // An empty statement, as in `start_write`.
                    result.rows = n_rows as u64;
                    (None, db, n_cols, Some(failed))
                } else {
                    let w = Write { db, conn: Arc::as_ptr(&s.conn), raw: s.raw, n_rows, n_cols, params };
                    (Some(w), db, n_cols, Some(failed))
                }
            }
        };
        let outcome: Outcome = Default::default();
        let failed = Arc::new(AtomicBool::new(false));
        let mut queued = Queued { outcome: outcome.clone(), failed: failed.clone(), ticket: 0, db, n_cols };
        let Some(w) = w else {
            *lock(&outcome) = Some((Ok(()), result));
            s.queued.push_back(queued);
            return Ok(SQLBATCH_OK);
        };
        let is_behind = after.is_some();
        let job = move || {
            let mut result = sqlbatch_write_result::default();
            let ran = if after.is_some_and(|f| f.load(Ordering::SeqCst)) {
                Err(Error::new(SQLBATCH_E_SKIPPED, "not run: the bulk write queued before it on this statement failed"))
            } else {
                // SAFETY: the worker runs this while the connection is its alone; the caller
                // keeps the parameter memory until the wait.
                crate::panic::catch(|| unsafe { w.run(&mut result) })
            };
            if ran.is_err() {
                failed.store(true, Ordering::SeqCst);
            }
            *lock(&outcome) = Some((ran, result));
        };
        let worker = s.conn.worker();
        if crate::worker::Worker::run_here(s.conn.hooks()) {
            job();
        } else {
            let queue = if is_behind { worker.run_next(Box::new(job)) } else { worker.run(Box::new(job)) };
            match queue {
                Ok(ticket) => queued.ticket = ticket,
                Err(job) => {
                    // No thread: what is queued ran already, on this thread.
                    job();
                }
            }
        }
        s.queued.push_back(queued);
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_stmt_execute_many_wait waits for the oldest bulk write
/// `sqlbatch_stmt_execute_many_start` queued on `stmt` (not for one queued after it; the
/// wait of the last write queued waits for the worker to be idle), and reports it exactly as
/// `sqlbatch_stmt_execute_many` would have: its status, `*out_result`
/// (if `out_result` is not NULL, written in every case) and, on failure, the connection's last
/// error (with the failing row in `row_index`). After it, that write's parameter memory is the
/// caller's again.
/// NULL: `stmt` NULL gives `SQLBATCH_E_NULL_PARAMETER`.
/// @return what `sqlbatch_stmt_execute_many` returns, `SQLBATCH_E_SKIPPED` for a write queued
/// behind one that failed (see `sqlbatch_stmt_execute_many_start`), or `SQLITE_MISUSE` if no
/// write is queued on `stmt`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_execute_many_wait(
    stmt: *mut sqlbatch_stmt,
    out_result: *mut sqlbatch_write_result,
) -> i32 {
    let mut result = sqlbatch_write_result::default();
    let rc = ffi_boundary!(stmt: stmt => |s| {
        let Some(queued) = s.queued.pop_front() else {
            return Err(Error::new(ffi::SQLITE_MISUSE, "no bulk write is queued on this statement"));
        };
        // The last write's wait waits for the worker to be idle, as every call on the
        // connection would (a job another call queued meanwhile included); an earlier one's
        // only for its own write.
        if s.queued.is_empty() {
            s.conn.worker().wait();
        } else {
            s.conn.worker().wait_for(queued.ticket);
        }
        let (outcome, r) = lock(&queued.outcome).take().expect("the write's job finished: it ran");
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
