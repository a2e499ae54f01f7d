//! Entry points: batched fetch (into the statement's arena or the caller's buffer, a checked read of a cell) and fetch-ahead.

use crate::codes::*;
use crate::error::Error;
use crate::ffi::*;

use crate::engine::fetch::sqlbatch_batch;
use crate::engine::fetch::Bound;
use crate::engine::stmt::sqlbatch_stmt;
use crate::engine::value::sqlbatch_value;

/// sqlbatch_stmt_fetch runs `stmt` forward by up to `max_rows` rows and writes them to
/// `*out_batch`, with their TEXT and BLOB bytes in an arena owned by the statement.
///
/// The batch also ends once it holds `max_bytes` or more (counting 16 bytes per cell plus the
/// TEXT and BLOB bytes). Rows are never split, and every batch has at least one row, however
/// large, so a result of any size streams in memory bounded by `max_bytes` plus one row.
/// Pass `SIZE_MAX` for no byte bound.
///
/// Each cell carries its own type (SQLite's types are per value). The call reports the end of
/// the result as soon as it reaches it, also when the last row fills the batch: after
/// `SQLBATCH_DONE`, further fetches return `SQLBATCH_DONE` with no rows until the statement is
/// reset. If a step fails after some rows were collected (an interrupt, a constraint), those
/// rows are returned with `SQLBATCH_ROW` and the next fetch returns the error; a failed
/// statement keeps returning its error until it is reset.
///
/// Lifetime: the batch borrows memory owned by `stmt`; it stays valid until the next fetch,
/// bind, reset, bulk write or finalize on `stmt`, or until the connection is closed.
/// NULL: `stmt` or `out_batch` NULL gives `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_ROW` (more rows may follow), `SQLBATCH_DONE` (the batch holds the last
/// rows, possibly none), `SQLBATCH_E_RANGE` if `max_rows` is 0, `SQLBATCH_E_CLOSED`, or the
/// error SQLite reported while stepping (e.g. `SQLITE_INTERRUPT`, `SQLITE_BUSY`,
/// `SQLITE_CONSTRAINT_*`). `*out_batch` is written only with `SQLBATCH_ROW` and `SQLBATCH_DONE`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_fetch(
    stmt: *mut sqlbatch_stmt,
    max_rows: usize,
    max_bytes: usize,
    out_batch: *mut sqlbatch_batch,
) -> i32 {
    // SAFETY: the statement is open on this thread (checked by `handles`), its handle is
    // live, and the pointers are valid as the header states (the caller's contract).
    ffi_boundary!(stmt: stmt => |s| unsafe {
        if let Some(r) = s.fetch_served(max_rows, Bound::Bytes(max_bytes), out_batch) {
            return r;
        }
        let (db, raw) = s.handles()?;
        let out = try_mut(out_batch, "out_batch")?;
        let r = s.fetch(db, raw, max_rows, Bound::Bytes(max_bytes), out);
        s.conn.hooks().end_call(db, r)
    })
}

/// sqlbatch_stmt_fetch_into works like `sqlbatch_stmt_fetch`, but writes the TEXT and BLOB
/// bytes into the caller's buffer `buf` of `buf_len` bytes, so that a garbage-collected caller
/// can keep zero-copy slices of a batch for as long as it keeps the buffer.
///
/// The batch ends before the first row whose bytes do not fit in what is left of `buf`. If not
/// even the batch's first row fits, the call returns `SQLBATCH_E_BUFFER_TOO_SMALL`, sets
/// `out_batch->data_len` to the number of bytes that row needs (and `n_rows` to 0), and keeps
/// the row for the next call, which should pass a buffer at least that large.
///
/// Ownership: `buf` stays the caller's; `out_batch->data` is set to NULL (the bytes of a TEXT or
/// BLOB cell `v` are at `buf + v.bits`), so that no pointer to the caller's memory is written
/// into the caller's memory (which a garbage collector would not see). `cells` belong to `stmt`,
/// with the same lifetime as for `sqlbatch_stmt_fetch`; the bytes in `buf` are never touched
/// again by sqlbatch after this call returns.
/// NULL: `stmt` or `out_batch` NULL, or `buf` NULL with `buf_len > 0`: `SQLBATCH_E_NULL_PARAMETER`.
/// @return as `sqlbatch_stmt_fetch`, plus `SQLBATCH_E_BUFFER_TOO_SMALL`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_fetch_into(
    stmt: *mut sqlbatch_stmt,
    max_rows: usize,
    buf: *mut u8,
    buf_len: usize,
    out_batch: *mut sqlbatch_batch,
) -> i32 {
    // SAFETY: the caller's contract.
    ffi_boundary!(stmt: stmt => |s| unsafe { fetch_into(s, max_rows, buf, buf_len, out_batch) })
}

/// sqlbatch_stmt_reset_fetch_into is `sqlbatch_stmt_reset` followed by
/// `sqlbatch_stmt_fetch_into` in one call, with the same results: for a statement run again
/// (a `BEGIN` or `COMMIT` kept prepared, a query asked again with the same parameters), whose
/// reset costs about as much again in checks as the reset itself.
///
/// The fetch is made only if the reset succeeds; the statement's bound parameters are kept.
/// NULL: as `sqlbatch_stmt_fetch_into`.
/// @return as `sqlbatch_stmt_fetch_into` (`SQLBATCH_E_CLOSED`, `SQLBATCH_E_NULL_PARAMETER` and
/// the other errors of the reset included).
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_reset_fetch_into(
    stmt: *mut sqlbatch_stmt,
    max_rows: usize,
    buf: *mut u8,
    buf_len: usize,
    out_batch: *mut sqlbatch_batch,
) -> i32 {
    // SAFETY: the caller's contract.
    ffi_boundary!(stmt: stmt => |s| unsafe {
        s.reset()?;
        fetch_into(s, max_rows, buf, buf_len, out_batch)
    })
}

/// The body of `sqlbatch_stmt_fetch_into`.
///
/// # Safety
/// `s` is entered by this thread; the pointers are valid as the header states.
#[inline(always)]
unsafe fn fetch_into(
    s: &mut sqlbatch_stmt,
    max_rows: usize,
    buf: *mut u8,
    buf_len: usize,
    out_batch: *mut sqlbatch_batch,
) -> Result<i32, Error> {
    // SAFETY: the statement is open on this thread (checked by `handles`), its handle is
    // live, and the pointers are valid as the header states (the caller's contract).
    unsafe {
        if s.ahead.is_some() && !(buf.is_null() && buf_len > 0) {
            if let Some(r) = s.fetch_served(max_rows, Bound::Buffer(buf, buf_len), out_batch) {
                return r;
            }
        }
        let (db, raw) = s.handles()?;
        let out = try_mut(out_batch, "out_batch")?;
        if buf.is_null() && buf_len > 0 {
            return Err(Error::null("buf"));
        }
        let r = s.fetch(db, raw, max_rows, Bound::Buffer(buf, buf_len), out);
        s.conn.hooks().end_call(db, r)
    }
}

/// sqlbatch_batch_get copies cell (`row`, `col`) of `batch` to `*out_value`, after checking
/// that the batch is still the current one of `stmt` and that the cell exists. For TEXT and
/// BLOB, `out_value->bits` becomes `batch->data + bits`: the address of the bytes for a batch
/// from `sqlbatch_stmt_fetch`, and still the offset into `buf` for one from
/// `sqlbatch_stmt_fetch_into`. This is the checked, slower way to read a batch; reading
/// `batch->cells` directly is the fast one.
/// NULL: any pointer NULL gives `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`, `SQLBATCH_E_STALE_BATCH` if `stmt` moved on since the batch was
/// fetched, `SQLBATCH_E_RANGE` for a cell outside the batch.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_batch_get(
    stmt: *const sqlbatch_stmt,
    batch: *const sqlbatch_batch,
    row: usize,
    col: usize,
    out_value: *mut sqlbatch_value,
) -> i32 {
    // SAFETY: the pointers are valid as the header states (the caller's contract).
    ffi_boundary!(stmt_ref: stmt => |s| unsafe {
        let b = try_ref(batch, "batch")?;
        let out = try_mut(out_value, "out_value")?;
        *out = s.batch_cell(b, row, col)?;
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_stmt_set_fetch_ahead turns fetch-ahead on or off for `stmt` (statements start
/// with their connection's `SQLBATCH_OPEN_FETCH_AHEAD`; this overrides it, at any time).
///
/// With it on, each `sqlbatch_stmt_fetch` or `sqlbatch_stmt_fetch_into` that returns
/// `SQLBATCH_ROW` hands the statement to the connection's worker, a native thread the library
/// starts the first time (one per connection, ended by `sqlbatch_conn_close`), which steps the
/// next batch, with the same `max_rows` and byte bound (`max_bytes`, or `buf_len`), into a
/// second set of buffers while the caller reads this one. The next fetch waits for it if it
/// has not finished and hands it over; the work per row then costs the larger of SQLite's
/// time and the caller's rather than their sum, at the price of a second core busy while
/// both run.
///
/// Small batches (cut by `max_rows`, under 64 KiB together, counting 16 bytes a cell and the
/// TEXT and BLOB bytes) cost less to step than a hand-over to the worker: for them a job steps
/// up to 16 batches at once, each cut as a synchronous fetch would cut it, and the fetches
/// hand them out one by one, from memory, without waiting for the worker, which already steps
/// the next job.
///
/// Nothing else changes for the caller. The rows, their order, the errors and where they
/// come (rows collected before a failing step first, then the error) are those of the
/// synchronous calls; a batch stays valid until the next fetch, bind, reset, bulk write or
/// finalize of its statement; at most two batches per statement exist (a job of several
/// small ones counting as one). Where a fetch asks for smaller bounds than the one before,
/// the batch stepped ahead is handed out in parts within them; with larger ones, a batch may
/// hold fewer rows than the call allows. One difference can be seen: the statement may reach
/// the end of its result, and so end its read of the database (its locks, its snapshot), up
/// to one job earlier than the caller's fetches would have. An interrupt
/// (`sqlbatch_conn_interrupt`) that arrives while a batch is stepped ahead ends the statement
/// as it would have synchronously: the next fetch returns the one row the statement stood on
/// (`SQLBATCH_ROW`), and the fetch after it `SQLITE_INTERRUPT`.
/// Any other call on the connection, its statements, blobs or backups waits for the worker
/// first (a reset or finalize drops the batch stepped ahead), so the connection is still used
/// by one thread at a time. With `sqlbatch_stmt_fetch_into`, the worker fills the statement's
/// own arena and the next fetch copies the bytes into `buf`.
///
/// Only read-only statements (`sqlite3_stmt_readonly`) fetch ahead; others stay synchronous,
/// and so do fetches made by a callback (an SQL function, aggregate or collation, or the WAL
/// hook, on any thread: the step that runs it is still using the connection). With it on,
/// callbacks the stepping runs (SQL functions, collations, the progress handler, the trace
/// and busy handlers) may run on the worker thread: a binding whose runtime cannot take calls from a thread it did not
/// start should not turn this on. Worth it when the caller does real work per row and the
/// batches are large enough (hundreds of rows) to cover the hand-over, a few microseconds.
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`, `SQLITE_MISUSE` while a
/// bulk write queued on `stmt` was not waited for, `SQLITE_BUSY` on a backup's destination.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_set_fetch_ahead(stmt: *mut sqlbatch_stmt, on: bool) -> i32 {
    ffi_boundary!(stmt: stmt => |s| {
        s.handles()?;
        s.set_fetch_ahead(on);
        Ok(SQLBATCH_OK)
    })
}
