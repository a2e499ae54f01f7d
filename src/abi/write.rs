//! Entry points: batched writes (N parameter rows in one call), now or behind the caller.

use crate::codes::*;
use crate::engine::bulk;
use crate::ffi::*;

use crate::engine::stmt::sqlbatch_stmt;
use crate::engine::value::sqlbatch_params;
use crate::engine::write::sqlbatch_write_result;

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
    // SAFETY: the caller vouches for `rows`.
    let rc = ffi_boundary!(stmt: stmt => |s| unsafe { bulk::execute_many(s, rows, n_rows, &mut result) }
        .map(|()| SQLBATCH_OK));
    // SAFETY: a non-NULL `out_result` is valid for writes.
    unsafe { write_opt(out_result, result) };
    rc
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
    // SAFETY: the caller vouches for `rows`, and keeps its memory until the wait.
    ffi_boundary!(stmt: stmt => |s| unsafe { bulk::start(s, rows, n_rows) }.map(|()| SQLBATCH_OK))
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
    let rc = ffi_boundary!(stmt: stmt => |s| bulk::wait(s, &mut result).map(|()| SQLBATCH_OK));
    // SAFETY: a non-NULL `out_result` is valid for writes.
    unsafe { write_opt(out_result, result) };
    rc
}
