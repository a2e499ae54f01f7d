//! Entry points: hooks (update, preupdate, commit, rollback, WAL, progress, busy, authorizer), the update events in batches, and tracing.

use std::ffi::c_void;

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::engine::hooks::batch::{Batched, Feed};
use crate::error::Error;
use crate::panic::lock;

use crate::engine::callback::sqlbatch_destroy_fn;
use crate::engine::conn::sqlbatch_conn;
use crate::engine::hooks::batch::sqlbatch_change_feed_fn;
use crate::engine::hooks::batch::sqlbatch_update_batch_fn;
use crate::engine::hooks::sqlbatch_authorizer_fn;
use crate::engine::hooks::sqlbatch_busy_fn;
use crate::engine::hooks::sqlbatch_commit_hook_fn;
use crate::engine::hooks::sqlbatch_preupdate_fn;
use crate::engine::hooks::sqlbatch_progress_fn;
use crate::engine::hooks::sqlbatch_rollback_hook_fn;
use crate::engine::hooks::sqlbatch_update_hook_fn;
use crate::engine::hooks::sqlbatch_wal_hook_fn;
use crate::engine::hooks::trace::sqlbatch_trace_fn;
use crate::engine::hooks::trace::SQLBATCH_TRACE_CLOSE;
use crate::engine::hooks::trace::SQLBATCH_TRACE_EXPANDED;
use crate::engine::hooks::trace::SQLBATCH_TRACE_PROFILE;
use crate::engine::hooks::trace::SQLBATCH_TRACE_ROW;
use crate::engine::hooks::trace::SQLBATCH_TRACE_STMT;
use crate::engine::hooks::Hooks;
use crate::engine::hooks::SQLBATCH_PREUPDATE_NEW;
use crate::engine::hooks::SQLBATCH_PREUPDATE_OLD;

use crate::engine::hooks::busy_tramp;
use crate::engine::hooks::progress_tramp;
use crate::engine::hooks::trace::trace_tramp;
use crate::engine::hooks::Slots;

use crate::engine::hooks::reg;

/// Replaces one registration of `conn` (`fn` NULL removes it), then points SQLite's slots at
/// what is registered. The replaced registration's destructor runs after the change; the new
/// one's runs now when the call fails.
///
/// # Safety
/// `conn` NULL or live; `user`/`destroy` the caller's.
unsafe fn register<T>(
    conn: *mut sqlbatch_conn,
    new: Option<T>,
    slot: impl Fn(&mut Slots) -> &mut Option<T>,
    after: impl FnOnce(*mut ffi::sqlite3, &Hooks, bool),
) -> i32 {
    ffi_boundary!(conn: conn => |c| {
        let h = c.shared.hooks();
        if h.running() {
            return Err(Error::new(SQLBATCH_E_INVALID_ARGUMENT, "hooks cannot change while a hook runs"));
        }
        let db = c.shared.db()?;
        let set = new.is_some();
        // SAFETY: `db` is open and used by this thread only.
        let old = unsafe { h.replace(db, new, slot)? };
        after(db, h, set);
        drop(old);
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_conn_update_hook sets the update hook of `conn` (`fn` NULL removes it): `fn` is
/// called with `user_data` for every row inserted, updated or deleted, as it happens
/// (`sqlite3_update_hook`), on the thread running the statement. The change feed
/// (`sqlbatch_conn_change_feed`) gets the same events in batches; both may be set.
///
/// Ownership: `destroy` (if not NULL) is called with `user_data` exactly once: when the hook
/// is replaced or removed, when `conn` closes, or at once if this call fails or `fn` is NULL.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_CLOSED`; `SQLBATCH_E_INVALID_ARGUMENT` (called from
/// inside a hook); `SQLBATCH_E_NULL_PARAMETER`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_update_hook(
    conn: *mut sqlbatch_conn,
    fn_: sqlbatch_update_hook_fn,
    user_data: *mut c_void,
    destroy: sqlbatch_destroy_fn,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { register(conn, reg(fn_.map(Some), user_data, destroy), |s| &mut s.update, |_, _, _| {}) }
}

/// sqlbatch_conn_preupdate_hook sets the preupdate hook of `conn` (`fn` NULL removes it): `fn`
/// is called with `user_data` before every row is inserted, updated or deleted
/// (`sqlite3_preupdate_hook`), on the thread running the statement, with the whole change in
/// one `sqlbatch_preupdate`: with `SQLBATCH_PREUPDATE_OLD` in `flags` the row before it, with
/// `SQLBATCH_PREUPDATE_NEW` the row after it, as cells (reading them costs the decoding of the
/// row; without the flags the event carries only what changes where). Unlike the update hook,
/// it also sees WITHOUT ROWID tables.
///
/// SQLite has one preupdate slot, which sessions (`sqlbatch_session_create`) also need: while
/// a session of `conn` lives, this call fails with `SQLITE_MISUSE`, and while a preupdate hook
/// is set, so does creating a session.
/// Ownership: as for `sqlbatch_conn_update_hook`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_CLOSED`; `SQLBATCH_E_INVALID_ARGUMENT` (called from
/// inside a hook, unknown flags); `SQLITE_MISUSE` (a session lives); `SQLBATCH_E_NULL_PARAMETER`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_preupdate_hook(
    conn: *mut sqlbatch_conn,
    flags: u32,
    fn_: sqlbatch_preupdate_fn,
    user_data: *mut c_void,
    destroy: sqlbatch_destroy_fn,
) -> i32 {
    if flags & !(SQLBATCH_PREUPDATE_OLD | SQLBATCH_PREUPDATE_NEW) != 0 {
        let _ = reg::<sqlbatch_preupdate_fn>(None, user_data, destroy);
        return ffi_boundary!(conn: conn => |_c| Err(Error::new(SQLBATCH_E_INVALID_ARGUMENT, format!("unknown preupdate flags {flags:#x}"))));
    }
    // SAFETY: the caller's contract.
    unsafe {
        register(
            conn,
            reg(fn_.map(Some), user_data, destroy),
            |s| &mut s.preupdate,
            |_, h, _| lock(&h.slots).preupdate_flags = flags,
        )
    }
}

/// sqlbatch_conn_commit_hook sets the commit hook of `conn` (`fn` NULL removes it): called
/// before each commit; non-zero makes it a rollback (`sqlite3_commit_hook`). Ownership and
/// errors as for `sqlbatch_conn_update_hook`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_commit_hook(
    conn: *mut sqlbatch_conn,
    fn_: sqlbatch_commit_hook_fn,
    user_data: *mut c_void,
    destroy: sqlbatch_destroy_fn,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { register(conn, reg(fn_.map(Some), user_data, destroy), |s| &mut s.commit, |_, _, _| {}) }
}

/// sqlbatch_conn_rollback_hook sets the rollback hook of `conn` (`fn` NULL removes it)
/// (`sqlite3_rollback_hook`). Ownership and errors as for `sqlbatch_conn_update_hook`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_rollback_hook(
    conn: *mut sqlbatch_conn,
    fn_: sqlbatch_rollback_hook_fn,
    user_data: *mut c_void,
    destroy: sqlbatch_destroy_fn,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { register(conn, reg(fn_.map(Some), user_data, destroy), |s| &mut s.rollback, |_, _, _| {}) }
}

/// sqlbatch_conn_wal_hook sets the WAL hook of `conn` (`fn` NULL removes it), called after
/// each commit in WAL mode (`sqlite3_wal_hook`). It replaces SQLite's automatic checkpoints
/// (`PRAGMA wal_autocheckpoint`), which use the same slot: set it back with that pragma after
/// removing the hook. No other hook of this section touches that slot. Ownership and errors
/// as for `sqlbatch_conn_update_hook`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_wal_hook(
    conn: *mut sqlbatch_conn,
    fn_: sqlbatch_wal_hook_fn,
    user_data: *mut c_void,
    destroy: sqlbatch_destroy_fn,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { register(conn, reg(fn_.map(Some), user_data, destroy), |s| &mut s.wal, |_, _, _| {}) }
}

/// sqlbatch_conn_progress_handler sets the progress handler of `conn`, called about every
/// `every` virtual machine steps (`sqlite3_progress_handler`); `fn` NULL or `every` < 1
/// removes it. Ownership and errors as for `sqlbatch_conn_update_hook`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_progress_handler(
    conn: *mut sqlbatch_conn,
    every: i32,
    fn_: sqlbatch_progress_fn,
    user_data: *mut c_void,
    destroy: sqlbatch_destroy_fn,
) -> i32 {
    let f = if every < 1 { None } else { fn_.map(Some) };
    // SAFETY: the caller's contract; the dispatcher outlives the handle.
    unsafe {
        register(
            conn,
            reg(f, user_data, destroy),
            |s| &mut s.progress,
            |db, h, set| {
                let me = h as *const Hooks as *mut c_void;
                ffi::sqlite3_progress_handler(db, every, set.then_some(progress_tramp as _), me);
            },
        )
    }
}

/// sqlbatch_conn_busy_handler sets the busy handler of `conn` (`fn` NULL removes it)
/// (`sqlite3_busy_handler`). It replaces `sqlbatch_conn_busy_timeout`'s handler, and a later
/// busy timeout replaces it (SQLite keeps one). Ownership and errors as for
/// `sqlbatch_conn_update_hook`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_busy_handler(
    conn: *mut sqlbatch_conn,
    fn_: sqlbatch_busy_fn,
    user_data: *mut c_void,
    destroy: sqlbatch_destroy_fn,
) -> i32 {
    // SAFETY: the caller's contract; the dispatcher outlives the handle.
    unsafe {
        register(
            conn,
            reg(fn_.map(Some), user_data, destroy),
            |s| &mut s.busy,
            |db, h, set| {
                let me = h as *const Hooks as *mut c_void;
                ffi::sqlite3_busy_handler(db, set.then_some(busy_tramp as _), me);
            },
        )
    }
}

/// sqlbatch_conn_authorizer sets the authorizer of `conn` (`fn` NULL removes it), consulted
/// while statements are prepared (`sqlite3_set_authorizer`). Statements prepared before keep
/// their verdicts. Ownership and errors as for `sqlbatch_conn_update_hook`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_authorizer(
    conn: *mut sqlbatch_conn,
    fn_: sqlbatch_authorizer_fn,
    user_data: *mut c_void,
    destroy: sqlbatch_destroy_fn,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { register(conn, reg(fn_.map(Some), user_data, destroy), |s| &mut s.authorizer, |_, _, _| {}) }
}

/// sqlbatch_conn_change_feed sets the change feed of `conn` (`fn` NULL removes it): the
/// update events of `sqlbatch_conn_update_hook`, collected and handed to `fn` up to
/// `max_changes` at a time (0: 1024), so that one call serves many changed rows. A batch is
/// handed over when it is full (`SQLBATCH_FEED_FULL`), when its transaction commits (with
/// whatever is pending, `SQLBATCH_FEED_COMMIT`: outside an explicit transaction, every
/// statement is one) or rolls back (`SQLBATCH_FEED_ROLLBACK`). It holds at most
/// `max_changes` changes (16 bytes each) and the names of their tables. `ROLLBACK TO` a
/// savepoint is not reported (SQLite reports none). Ownership and errors as for
/// `sqlbatch_conn_update_hook`; changes still pending when the feed is removed or replaced
/// are dropped.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_change_feed(
    conn: *mut sqlbatch_conn,
    max_changes: usize,
    fn_: sqlbatch_change_feed_fn,
    user_data: *mut c_void,
    destroy: sqlbatch_destroy_fn,
) -> i32 {
    let new = Feed::new(fn_.map(Some), user_data, destroy, max_changes);
    // SAFETY: the caller's contract.
    unsafe { register(conn, new, |s| &mut s.feed, |_, _, _| {}) }
}

/// sqlbatch_conn_update_hook_batched sets the batched update hook of `conn` (`fn` NULL
/// removes it): the events of `sqlbatch_conn_update_hook`, in the order they happen, handed to
/// `fn` up to `max_changes` at a time (0: 1024), but never later than they could be seen to
/// differ from the per-event hook's. They are handed over before any other callback of the
/// connection runs (a hook, an SQL function or collation, a changeset filter or conflict
/// handler; before a commit, ahead of the commit hook; before a rollback), when `max_changes`
/// are collected, and before the call that ran their statements returns
/// (`sqlbatch_stmt_fetch`, `_fetch_into`, `_execute_many`, `sqlbatch_conn_exec`,
/// `sqlbatch_conn_apply_changeset`, `sqlbatch_conn_load_extension`; for a write-behind,
/// before its job ends). So a binding can call a per-event handler for each change, with
/// every callback and return seeing the same order of events as with the per-event hook, at
/// one crossing per batch. It holds at most `max_changes` changes (16 bytes each) and the
/// names of their tables.
///
/// `fn` returns 0 to go on, or non-zero to stop the statement, with the effect that
/// interrupting it from a per-event hook has: handed over while the statement runs, it is
/// interrupted (`SQLITE_INTERRUPT`; inside a transaction SQLite then rolls the transaction
/// back); handed over before a commit, the commit is vetoed (the statement fails with
/// `SQLITE_CONSTRAINT_COMMITHOOK`); handed over at the end of a call, the open transaction is
/// rolled back and the call fails with `SQLITE_INTERRUPT`, unless it failed already.
///
/// Called on the thread running the statement (the connection's worker for a write-behind).
/// It must not use the connection. It may be set beside the update hook and the change feed.
/// Ownership and errors as for `sqlbatch_conn_update_hook`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_update_hook_batched(
    conn: *mut sqlbatch_conn,
    max_changes: usize,
    fn_: sqlbatch_update_batch_fn,
    user_data: *mut c_void,
    destroy: sqlbatch_destroy_fn,
) -> i32 {
    let new = Batched::new(fn_.map(Some), user_data, destroy, max_changes);
    // SAFETY: the caller's contract.
    unsafe { register(conn, new, |s| &mut s.batched, |_, _, _| {}) }
}

/// sqlbatch_conn_trace sets the trace callback of `conn` for the events in `mask` (a bitwise
/// OR of `SQLBATCH_TRACE_STMT`, `_PROFILE`, `_ROW`, `_CLOSE`, and `SQLBATCH_TRACE_EXPANDED`
/// for statements' text with their parameters' values as well; `sqlite3_trace_v2`); `fn` NULL
/// or no event bit removes it. Each call gets a `sqlbatch_trace_event`: the statement's text
/// and identity, the autocommit state, and the run time for `PROFILE`. (No error code: at a
/// `PROFILE` event SQLite's connection error is not the statement's, 100 after a query's rows
/// and 0 after a failed insert; the statement's own call returns its error.)
/// Called on the thread running the statement. Ownership and errors as for
/// `sqlbatch_conn_update_hook`, and `SQLBATCH_E_INVALID_ARGUMENT` for unknown bits.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_trace(
    conn: *mut sqlbatch_conn,
    mask: u32,
    fn_: sqlbatch_trace_fn,
    user_data: *mut c_void,
    destroy: sqlbatch_destroy_fn,
) -> i32 {
    const KNOWN: u32 = SQLBATCH_TRACE_STMT
        | SQLBATCH_TRACE_PROFILE
        | SQLBATCH_TRACE_ROW
        | SQLBATCH_TRACE_CLOSE
        | SQLBATCH_TRACE_EXPANDED;
    if mask & !KNOWN != 0 {
        // SAFETY: the caller's destructor, once.
        let _ = reg::<sqlbatch_trace_fn>(None, user_data, destroy);
        return ffi_boundary!(conn: conn => |_c| Err(Error::new(SQLBATCH_E_INVALID_ARGUMENT, format!("unknown trace bits {:#x}", mask & !KNOWN))));
    }
    let events = mask & !SQLBATCH_TRACE_EXPANDED;
    let f = if events == 0 { None } else { fn_.map(Some) };
    // SAFETY: the caller's contract; the dispatcher outlives the handle.
    unsafe {
        register(
            conn,
            reg(f, user_data, destroy),
            |s| &mut s.trace,
            |db, h, set| {
                lock(&h.slots).trace_mask = mask;
                let me = h as *const Hooks as *mut c_void;
                ffi::sqlite3_trace_v2(db, if set { events } else { 0 }, set.then_some(trace_tramp as _), me);
            },
        )
    }
}
