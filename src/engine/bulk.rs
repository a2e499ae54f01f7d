//! Bulk writes on a statement (`sqlbatch_stmt_execute_many` and its write-behind pair
//! `_start` / `_wait`): the checks, the statement's rewind, and where the rows run (now, on
//! this thread, or on the connection's worker, queued behind at most one other write).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::engine::stmt::sqlbatch_stmt;
use crate::engine::value::{param_count, sqlbatch_params};
use crate::engine::worker::Worker;
use crate::engine::write::{check_params, sqlbatch_write_result, Outcome, Queued, Write};
use crate::error::Error;
use crate::panic::{catch, lock};

/// Checks a bulk write of `n_rows` rows from `rows` on `s` and rewinds the statement; `None`
/// when there is nothing to run (an empty statement, whose runs are counted in `result`).
///
/// # Safety
/// As for `sqlbatch_stmt_execute_many`'s `rows`, which must stay valid while the result runs.
pub(crate) unsafe fn start_write(
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

/// Runs a bulk write of `n_rows` rows from `rows` on `s` now (`sqlbatch_stmt_execute_many`);
/// what it did goes to `result`, also when it fails.
///
/// # Safety
/// As for `sqlbatch_stmt_execute_many`'s `rows`.
pub(crate) unsafe fn execute_many(
    s: &mut sqlbatch_stmt,
    rows: *const sqlbatch_params,
    n_rows: usize,
    result: &mut sqlbatch_write_result,
) -> Result<(), Error> {
    // SAFETY: the caller vouches for `rows`.
    let Some(w) = (unsafe { start_write(s, rows, n_rows, result)? }) else {
        return Ok(());
    };
    // SAFETY: `start_write`'s result is ready to run, on this thread.
    unsafe { w.run(result) }
}

/// Queues a bulk write of `n_rows` rows from `rows` on `s` (`sqlbatch_stmt_execute_many_start`),
/// behind the one queued before it, if any.
///
/// # Safety
/// As for `sqlbatch_stmt_execute_many_start`'s `rows`, which the caller keeps until the wait.
pub(crate) unsafe fn start(
    s: &mut sqlbatch_stmt,
    rows: *const sqlbatch_params,
    n_rows: usize,
) -> Result<(), Error> {
    let mut result = sqlbatch_write_result::default();
    let (n_queued, last) = s.queued().map_or((0, None), |q| (q.len(), q.back()));
    let behind = match last {
        None => None,
        Some(_) if n_queued >= 2 => {
            return Err(Error::new(
                ffi::SQLITE_MISUSE,
                "two bulk writes are already queued on this statement: wait for one first",
            ));
        }
        // From a callback (an SQL function of this statement's own write on the worker,
        // say), the rows would run inside the step that called it.
        Some(_) if Worker::run_here(s.conn.hooks()) => {
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
        s.queued_mut().push_back(queued);
        return Ok(());
    };
    let is_behind = after.is_some();
    let job = move || {
        let mut result = sqlbatch_write_result::default();
        let ran = if after.is_some_and(|f| f.load(Ordering::SeqCst)) {
            Err(Error::new(
                SQLBATCH_E_SKIPPED,
                "not run: the bulk write queued before it on this statement failed",
            ))
        } else {
            // SAFETY: the worker runs this while the connection is its alone; the caller
            // keeps the parameter memory until the wait.
            catch(|| unsafe { w.run(&mut result) })
        };
        if ran.is_err() {
            failed.store(true, Ordering::SeqCst);
        }
        *lock(&outcome) = Some((ran, result));
    };
    let worker = s.conn.worker();
    if Worker::run_here(s.conn.hooks()) {
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
    s.queued_mut().push_back(queued);
    Ok(())
}

/// Waits for the oldest bulk write queued on `s` (`sqlbatch_stmt_execute_many_wait`); what it
/// did goes to `result`, also when it failed.
pub(crate) fn wait(s: &mut sqlbatch_stmt, result: &mut sqlbatch_write_result) -> Result<(), Error> {
    let Some(queued) = s.queued_mut().pop_front() else {
        return Err(Error::new(ffi::SQLITE_MISUSE, "no bulk write is queued on this statement"));
    };
    // The last write's wait waits for the worker to be idle, as every call on the
    // connection would (a job another call queued meanwhile included); an earlier one's
    // only for its own write.
    if !s.writes_queued() {
        s.conn.worker().wait();
    } else {
        s.conn.worker().wait_for(queued.ticket);
    }
    let (outcome, r) = lock(&queued.outcome).take().expect("the write's job finished: it ran");
    *result = r;
    outcome
}
