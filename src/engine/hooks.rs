//! Hooks: callbacks SQLite makes while statements run (update, preupdate, commit, rollback,
//! WAL, progress, busy, authorizer, trace), and two batched forms of the update hook that
//! collect its events and hand them over many at a time, so that a binding pays one crossing
//! of its FFI boundary per batch of changed rows instead of one per row: the change feed, per
//! transaction, and the batched update hook, which delivers them no later than they could be
//! seen to differ from the per-event hook's (before any other callback of the connection runs,
//! and before the call that made them returns).
//!
//! Each connection has one dispatcher ([`Hooks`]) that owns SQLite's hook slots: the update,
//! commit and rollback slots serve both the per-event hooks and the feed. The registrations
//! live behind a mutex that is held only to read or change them, never while a callback runs,
//! so a callback that runs SQL (which SQLite allows for some hooks) cannot deadlock. While a
//! callback runs, registrations cannot change (`SQLBATCH_E_INVALID_ARGUMENT`): replacing one
//! would destroy the user data of a callback that is still running.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use std::sync::Mutex;

use libsqlite3_sys as ffi;

use crate::engine::callback::sqlbatch_destroy_fn;
use crate::engine::cells::Cells;
use crate::engine::value::{sqlbatch_str, sqlbatch_value};
use crate::error::Error;
use crate::panic::{boundary_value, lock};

pub(crate) mod batch;
pub(crate) mod trace;
pub use batch::*;
use batch::{Batched, Feed};
pub use trace::*;

use crate::engine::callback::InCallback;

/// An update hook: a row of table `table` (NUL-terminated UTF-8) of database `schema` was
/// inserted (`op` 18, `SQLITE_INSERT`), deleted (9, `SQLITE_DELETE`) or updated (23,
/// `SQLITE_UPDATE`); `rowid` is its rowid (the new one for an insert). Not called for
/// WITHOUT ROWID tables, or for rows a truncating DELETE removes. The strings are valid during
/// the call. It must not use the connection (SQLite's rule for this hook).
pub type sqlbatch_update_hook_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        op: i32,
        schema: *const c_char,
        table: *const c_char,
        rowid: i64,
    ),
>;

/// A row about to change, for a preupdate hook (`sqlbatch_conn_preupdate_hook`). Everything
/// it points to is valid during the callback only.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sqlbatch_preupdate {
    /// `SQLITE_INSERT` (18), `SQLITE_DELETE` (9) or `SQLITE_UPDATE` (23).
    pub op: i32,
    /// 0 for a change the statement itself makes, 1 for one a trigger it fired makes, 2 for a
    /// trigger of that trigger, and so on (`sqlite3_preupdate_depth`).
    pub depth: i32,
    /// The database: "main", "temp" or an attached name (NUL-terminated).
    pub schema: sqlbatch_str,
    /// The table (NUL-terminated).
    pub table: sqlbatch_str,
    /// DELETE and UPDATE: the row's rowid before the change; 0 for an INSERT. Not defined for
    /// WITHOUT ROWID tables.
    pub old_rowid: i64,
    /// INSERT and UPDATE: the row's rowid after the change; 0 for a DELETE. Not defined for
    /// WITHOUT ROWID tables.
    pub new_rowid: i64,
    /// The table's number of columns (`sqlite3_preupdate_count`).
    pub n_cols: usize,
    /// With `SQLBATCH_PREUPDATE_OLD`, for a DELETE or UPDATE: the row before the change,
    /// `n_cols` cells (bytes at `data + bits`); NULL otherwise.
    pub old_values: *const sqlbatch_value,
    /// With `SQLBATCH_PREUPDATE_NEW`, for an INSERT or UPDATE: the row after the change,
    /// `n_cols` cells; NULL otherwise.
    pub new_values: *const sqlbatch_value,
    /// The base of the TEXT and BLOB bytes of both rows (NULL when none has bytes).
    pub data: *const u8,
    /// -1, or, when the change is a write through an incremental blob handle
    /// (`sqlbatch_blob_write`; `op` is then `SQLITE_DELETE` and the new row is not known), the
    /// column being written (`sqlite3_preupdate_blobwrite`).
    pub blob_column: i32,
}

/// `sqlbatch_conn_preupdate_hook` flag: hand each event the row before the change.
pub const SQLBATCH_PREUPDATE_OLD: u32 = 1;
/// `sqlbatch_conn_preupdate_hook` flag: hand each event the row after the change.
pub const SQLBATCH_PREUPDATE_NEW: u32 = 2;

/// A preupdate hook: a row is about to be inserted, deleted or updated (`change`, valid during
/// the call). Called for WITHOUT ROWID tables too, and for the changes triggers make. It must
/// not use the connection.
pub type sqlbatch_preupdate_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, change: *const sqlbatch_preupdate)>;

/// A commit hook: a transaction is about to commit; returning non-zero turns the commit into
/// a rollback (the statement then fails with `SQLITE_CONSTRAINT_COMMITHOOK`). It must not use
/// the connection.
pub type sqlbatch_commit_hook_fn = Option<unsafe extern "C" fn(user_data: *mut c_void) -> i32>;

/// A rollback hook: a transaction was rolled back (not called for `ROLLBACK TO`, nor when the
/// connection closes with a transaction open). It must not use the connection.
pub type sqlbatch_rollback_hook_fn = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

/// A WAL hook: a transaction committed in WAL mode; `pages` frames are now in the log of
/// database `schema` (NUL-terminated). Returns an SQLite code: `SQLITE_OK` (0), or an error,
/// which the committing statement then reports (the commit itself stands). It may run SQL, e.g.
/// a checkpoint.
pub type sqlbatch_wal_hook_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, schema: *const c_char, pages: i32) -> i32>;

/// A progress handler: called about every N virtual machine steps of a running statement;
/// returning non-zero interrupts it (`SQLITE_INTERRUPT`). It must not use the connection.
pub type sqlbatch_progress_fn = Option<unsafe extern "C" fn(user_data: *mut c_void) -> i32>;

/// A busy handler: a table is locked by another connection; `count` is how many times it was
/// called for this lock. Returning non-zero retries, zero gives up (`SQLITE_BUSY`). It must
/// not use the connection.
pub type sqlbatch_busy_fn = Option<unsafe extern "C" fn(user_data: *mut c_void, count: i32) -> i32>;

/// An authorizer: called while statements are prepared, once per action (`action` an
/// `SQLITE_*` authorizer code, e.g. `SQLITE_READ` 20, `SQLITE_INSERT` 18, `SQLITE_PRAGMA` 19),
/// with up to four NUL-terminated strings that depend on the action (each may be NULL; `schema`
/// is the database, `trigger` the innermost trigger or view). Returns `SQLITE_OK` (0),
/// `SQLITE_DENY` (1: the prepare fails with `SQLITE_AUTH`) or `SQLITE_IGNORE` (2: the column
/// reads as NULL, or the action is skipped). It must not use the connection.
pub type sqlbatch_authorizer_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        action: i32,
        a: *const c_char,
        b: *const c_char,
        schema: *const c_char,
        trigger: *const c_char,
    ) -> i32,
>;

/// A registration: the callback, its user data and the destructor that releases it once.
pub(crate) struct Reg<F: Copy> {
    f: F,
    user: *mut c_void,
    destroy: sqlbatch_destroy_fn,
}

impl<F: Copy> Drop for Reg<F> {
    fn drop(&mut self) {
        if let Some(d) = self.destroy {
            // SAFETY: the caller's destructor, called once with its user data.
            boundary_value((), || unsafe { d(self.user) });
        }
    }
}

#[derive(Default)]
pub(crate) struct Slots {
    pub update: Option<Reg<sqlbatch_update_hook_fn>>,
    pub preupdate: Option<Reg<sqlbatch_preupdate_fn>>,
    /// The `SQLBATCH_PREUPDATE_*` bits asked for.
    pub preupdate_flags: u32,
    pub commit: Option<Reg<sqlbatch_commit_hook_fn>>,
    pub rollback: Option<Reg<sqlbatch_rollback_hook_fn>>,
    pub wal: Option<Reg<sqlbatch_wal_hook_fn>>,
    pub progress: Option<Reg<sqlbatch_progress_fn>>,
    pub busy: Option<Reg<sqlbatch_busy_fn>>,
    pub authorizer: Option<Reg<sqlbatch_authorizer_fn>>,
    pub trace: Option<Reg<sqlbatch_trace_fn>>,
    /// The `SQLBATCH_TRACE_*` bits asked for, with `SQLBATCH_TRACE_EXPANDED`.
    pub trace_mask: u32,
    pub feed: Option<Feed>,
    pub batched: Option<Batched>,
}

/// A connection's hook dispatcher. Its address is what SQLite's hooks get as their argument,
/// so it lives as long as the connection's shared state, which outlives the SQLite handle.
#[derive(Default)]
pub(crate) struct Hooks {
    pub(crate) slots: Mutex<Slots>,
    /// Callbacks running now (hooks may nest: a WAL hook's checkpoint, say).
    running: AtomicUsize,
    /// Those of them that must not use the connection: all but the WAL hook's (SQLite's rule;
    /// `ConnShared::db` refuses every call on the connection while one runs).
    forbidding: AtomicUsize,
    /// Live sessions (`session.rs`): they own SQLite's one preupdate slot while they exist.
    sessions: AtomicUsize,
    /// The preupdate hook's rows, reused from event to event.
    scratch: Mutex<Cells>,
    /// Whether the batched update hook holds events (read before every callback and at the
    /// end of every call that runs statements, without the lock).
    pending: AtomicBool,
    /// The connection, for the interrupt that a batched update hook's stop answer asks for
    /// (set when a hook is installed).
    db: AtomicPtr<ffi::sqlite3>,
    /// Whether SQLite's WAL slot holds the WAL hook's trampoline. The slot is otherwise
    /// SQLite's automatic checkpointer (`PRAGMA wal_autocheckpoint`), which is left alone
    /// unless a WAL hook is set or removed.
    wal_installed: AtomicBool,
}

// The user data pointers are the caller's, used as the header says (on the thread running the
// connection's statements); the dispatcher itself is behind a mutex.
unsafe impl Send for Hooks {}
unsafe impl Sync for Hooks {}

impl Hooks {
    /// Replaces one registration (`slot` picks it; `new` None removes it) and points
    /// SQLite's hooks at what is registered then; returns the registration replaced, for the
    /// caller to drop (its destructor runs then) once the change is complete. A preupdate
    /// hook cannot be set while the connection has sessions (`SQLITE_MISUSE`; `new` is
    /// dropped).
    ///
    /// # Safety
    /// `db` is the connection's open handle, used by this thread only.
    pub(crate) unsafe fn replace<T>(
        &self,
        db: *mut ffi::sqlite3,
        new: Option<T>,
        slot: impl Fn(&mut Slots) -> &mut Option<T>,
    ) -> Result<Option<T>, Error> {
        let mut s = lock(&self.slots);
        let old = std::mem::replace(slot(&mut s), new);
        if s.preupdate.is_some() && self.sessions.load(Ordering::SeqCst) > 0 {
            // Only the preupdate hook's registration gets here: put the old one back.
            let refused = std::mem::replace(slot(&mut s), old);
            drop(s);
            drop(refused);
            return Err(Error::new(ffi::SQLITE_MISUSE, PREUPDATE_OR_SESSIONS));
        }
        // SAFETY: `db` is open and used by this thread only (the caller's contract); `self`
        // outlives it.
        unsafe { self.install(db, &s) };
        Ok(old)
    }

    /// Runs a user callback that must not use the connection, with both counts held, after
    /// handing the batched update hook its events (so that every callback sees the update
    /// events before it, as with the per-event hook).
    pub(crate) fn call<R>(&self, f: impl FnOnce() -> R) -> R {
        self.before_callback();
        self.call_now(f)
    }

    fn call_now<R>(&self, f: impl FnOnce() -> R) -> R {
        let _callback = InCallback::enter(self);
        self.forbidding.fetch_add(1, Ordering::SeqCst);
        self.running.fetch_add(1, Ordering::SeqCst);
        let r = f();
        self.running.fetch_sub(1, Ordering::SeqCst);
        self.forbidding.fetch_sub(1, Ordering::SeqCst);
        r
    }

    /// Runs a user callback that may use the connection (the WAL hook's) with the "running"
    /// count held.
    fn call_may_use<R>(&self, f: impl FnOnce() -> R) -> R {
        self.before_callback();
        let _callback = InCallback::enter(self);
        self.running.fetch_add(1, Ordering::SeqCst);
        let r = f();
        self.running.fetch_sub(1, Ordering::SeqCst);
        r
    }

    /// Whether a callback is running (on the thread using the connection: the only one that
    /// may ask).
    pub(crate) fn running(&self) -> bool {
        self.running.load(Ordering::Relaxed) != 0
    }

    /// Whether a callback that must not use the connection is running.
    pub(crate) fn forbid_use(&self) -> bool {
        self.forbidding.load(Ordering::Relaxed) != 0
    }

    /// Releases every registration (their destructors run): the connection has closed.
    pub(crate) fn clear(&self) {
        let old = std::mem::take(&mut *lock(&self.slots));
        drop(old);
    }

    /// Counts a session in, before it is created; `SQLITE_MISUSE` while a preupdate hook is set
    /// (SQLite has one preupdate slot, which sessions need).
    pub(crate) fn add_session(&self) -> Result<(), Error> {
        let s = lock(&self.slots);
        if s.preupdate.is_some() {
            return Err(Error::new(ffi::SQLITE_MISUSE, PREUPDATE_OR_SESSIONS));
        }
        self.sessions.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }

    /// Counts a session out, once it is deleted (or its creation failed).
    pub(crate) fn remove_session(&self) {
        self.sessions.fetch_sub(1, Ordering::SeqCst);
    }

    /// Points SQLite's slots at the trampolines for what is registered, or clears them.
    ///
    /// # Safety
    /// `db` is open and used by this thread only; `self` outlives it.
    unsafe fn install(&self, db: *mut ffi::sqlite3, s: &Slots) {
        let me = self as *const Hooks as *mut c_void;
        self.db.store(db, Ordering::Relaxed);
        // SAFETY: as for this function.
        unsafe {
            // The batched update hook needs the commit and rollback slots too: it hands its
            // events over before a commit (whose veto its stop answer is) and a rollback.
            let feed = s.feed.is_some() || s.batched.is_some();
            ffi::sqlite3_update_hook(db, (s.update.is_some() || feed).then_some(update_tramp as _), me);
            // Sessions use the same slot (and read its argument as their list): while one lives,
            // no preupdate hook can be set (`register`), and the slot is theirs. Cleared, the
            // slot's argument must be NULL too: the next session takes it as the head of its
            // list (valgrind caught a session walking into the dispatcher).
            if self.sessions.load(Ordering::SeqCst) == 0 {
                match s.preupdate.is_some() {
                    true => ffi::sqlite3_preupdate_hook(db, Some(preupdate_tramp), me),
                    false => ffi::sqlite3_preupdate_hook(db, None, std::ptr::null_mut()),
                };
            }
            ffi::sqlite3_commit_hook(db, (s.commit.is_some() || feed).then_some(commit_tramp as _), me);
            ffi::sqlite3_rollback_hook(db, (s.rollback.is_some() || feed).then_some(rollback_tramp as _), me);
            // The WAL slot is SQLite's automatic checkpointer's until a WAL hook is set:
            // clearing it whenever another hook changed turned automatic checkpoints off, and
            // a WAL grew without bound under any connection with, say, a commit hook.
            if s.wal.is_some() {
                ffi::sqlite3_wal_hook(db, Some(wal_tramp), me);
                self.wal_installed.store(true, Ordering::Relaxed);
            } else if self.wal_installed.swap(false, Ordering::Relaxed) {
                ffi::sqlite3_wal_hook(db, None, std::ptr::null_mut());
            }
            ffi::sqlite3_set_authorizer(db, s.authorizer.is_some().then_some(auth_tramp as _), me);
        }
    }
}

fn str_of(s: &CStr) -> sqlbatch_str {
    sqlbatch_str { ptr: s.as_ptr(), len: s.to_bytes().len() }
}

/// The dispatcher behind a hook's argument.
///
/// # Safety
/// `p` is the argument a trampoline was installed with.
unsafe fn hooks<'a>(p: *mut c_void) -> &'a Hooks {
    // SAFETY: the caller's contract.
    unsafe { &*(p as *const Hooks) }
}

unsafe extern "C" fn update_tramp(
    p: *mut c_void,
    op: c_int,
    schema: *const c_char,
    table: *const c_char,
    rowid: i64,
) {
    boundary_value((), || {
        // SAFETY: installed with our dispatcher; SQLite's strings are NUL-terminated.
        let h = unsafe { hooks(p) };
        let (cb, full, batch_full) = {
            let mut s = lock(&h.slots);
            let cb = s.update.as_ref().map(|r| (r.f, r.user));
            // SAFETY: as above.
            let full = s
                .feed
                .as_mut()
                .is_some_and(|feed| unsafe { feed.collected.push(op, schema, table, rowid) } >= feed.max);
            let batch_full = s.batched.as_mut().is_some_and(|b| {
                h.pending.store(true, Ordering::Relaxed);
                // SAFETY: as above.
                unsafe { b.collected.push(op, schema, table, rowid) >= b.max }
            });
            (cb, full, batch_full)
        };
        if let Some((Some(f), user)) = cb {
            // SAFETY: the caller's callback with SQLite's arguments.
            h.call(|| unsafe { f(user, op, schema, table, rowid) });
        }
        if full {
            h.deliver(SQLBATCH_FEED_FULL);
        }
        if batch_full {
            h.before_callback();
        }
    })
}

pub(crate) const PREUPDATE_OR_SESSIONS: &str =
    "a preupdate hook and sessions cannot be used together on one connection (SQLite has one preupdate slot)";

unsafe extern "C" fn preupdate_tramp(
    p: *mut c_void,
    db: *mut ffi::sqlite3,
    op: c_int,
    schema: *const c_char,
    table: *const c_char,
    key1: i64,
    key2: i64,
) {
    boundary_value((), || {
        // SAFETY: installed with our dispatcher.
        let h = unsafe { hooks(p) };
        let (cb, flags) = {
            let s = lock(&h.slots);
            (s.preupdate.as_ref().map(|r| (r.f, r.user)), s.preupdate_flags)
        };
        let Some((Some(f), user)) = cb else { return };
        let mut rows = std::mem::take(&mut *lock(&h.scratch));
        rows.clear();
        // SAFETY: SQLite calls this with `db` inside its preupdate window, where these calls
        // are allowed; the strings are NUL-terminated.
        let change = unsafe {
            let n = ffi::sqlite3_preupdate_count(db).max(0);
            let blob_column = ffi::sqlite3_preupdate_blobwrite(db);
            let want_old = flags & SQLBATCH_PREUPDATE_OLD != 0 && op != ffi::SQLITE_INSERT;
            let want_new = flags & SQLBATCH_PREUPDATE_NEW != 0 && op != ffi::SQLITE_DELETE;
            if want_old {
                rows.push_from(n, |i, v| ffi::sqlite3_preupdate_old(db, i, v));
            }
            let n_old = rows.cells.len();
            if want_new {
                rows.push_from(n, |i, v| ffi::sqlite3_preupdate_new(db, i, v));
            }
            sqlbatch_preupdate {
                op,
                depth: ffi::sqlite3_preupdate_depth(db),
                schema: str_of(CStr::from_ptr(schema)),
                table: str_of(CStr::from_ptr(table)),
                old_rowid: if op == ffi::SQLITE_INSERT { 0 } else { key1 },
                new_rowid: if op == ffi::SQLITE_DELETE { 0 } else { key2 },
                n_cols: n as usize,
                old_values: if want_old { rows.cells_ptr() } else { std::ptr::null() },
                new_values: if want_new { rows.cells_from(n_old) } else { std::ptr::null() },
                data: rows.data_ptr(),
                blob_column,
            }
        };
        // SAFETY: the caller's callback; `change` and the rows live until it returns.
        h.call(|| unsafe { f(user, &change) });
        *lock(&h.scratch) = rows;
    })
}

unsafe extern "C" fn commit_tramp(p: *mut c_void) -> c_int {
    boundary_value(0, || {
        // SAFETY: installed with our dispatcher.
        let h = unsafe { hooks(p) };
        if h.pending.load(Ordering::Relaxed) && h.flush_batched() {
            return 1; // the batched update hook said stop: veto (the rollback hook follows)
        }
        let cb = lock(&h.slots).commit.as_ref().map(|r| (r.f, r.user));
        if let Some((Some(f), user)) = cb {
            // SAFETY: the caller's callback.
            if h.call(|| unsafe { f(user) }) != 0 {
                return 1; // a rollback follows, and the rollback hook delivers the feed
            }
        }
        h.deliver(SQLBATCH_FEED_COMMIT);
        0
    })
}

unsafe extern "C" fn rollback_tramp(p: *mut c_void) {
    boundary_value((), || {
        // SAFETY: installed with our dispatcher.
        let h = unsafe { hooks(p) };
        // The batched update hook's events come first, as with the per-event hook (its answer
        // changes nothing: the transaction is rolled back).
        h.before_callback();
        let cb = lock(&h.slots).rollback.as_ref().map(|r| (r.f, r.user));
        if let Some((Some(f), user)) = cb {
            // SAFETY: the caller's callback.
            h.call(|| unsafe { f(user) });
        }
        h.deliver(SQLBATCH_FEED_ROLLBACK);
    })
}

unsafe extern "C" fn wal_tramp(
    p: *mut c_void,
    _db: *mut ffi::sqlite3,
    schema: *const c_char,
    pages: c_int,
) -> c_int {
    boundary_value(ffi::SQLITE_ERROR, || {
        // SAFETY: installed with our dispatcher.
        let h = unsafe { hooks(p) };
        let cb = lock(&h.slots).wal.as_ref().map(|r| (r.f, r.user));
        match cb {
            // SAFETY: the caller's callback.
            Some((Some(f), user)) => h.call_may_use(|| unsafe { f(user, schema, pages) }),
            _ => ffi::SQLITE_OK,
        }
    })
}

pub(crate) unsafe extern "C" fn progress_tramp(p: *mut c_void) -> c_int {
    boundary_value(1, || {
        // SAFETY: installed with our dispatcher.
        let h = unsafe { hooks(p) };
        let cb = lock(&h.slots).progress.as_ref().map(|r| (r.f, r.user));
        match cb {
            // SAFETY: the caller's callback.
            Some((Some(f), user)) => h.call(|| unsafe { f(user) }),
            _ => 0,
        }
    })
}

pub(crate) unsafe extern "C" fn busy_tramp(p: *mut c_void, count: c_int) -> c_int {
    boundary_value(0, || {
        // SAFETY: installed with our dispatcher.
        let h = unsafe { hooks(p) };
        let cb = lock(&h.slots).busy.as_ref().map(|r| (r.f, r.user));
        match cb {
            // SAFETY: the caller's callback.
            Some((Some(f), user)) => h.call(|| unsafe { f(user, count) }),
            _ => 0,
        }
    })
}

unsafe extern "C" fn auth_tramp(
    p: *mut c_void,
    action: c_int,
    a: *const c_char,
    b: *const c_char,
    schema: *const c_char,
    trigger: *const c_char,
) -> c_int {
    boundary_value(ffi::SQLITE_DENY, || {
        // SAFETY: installed with our dispatcher.
        let h = unsafe { hooks(p) };
        let cb = lock(&h.slots).authorizer.as_ref().map(|r| (r.f, r.user));
        match cb {
            // SAFETY: the caller's callback.
            Some((Some(f), user)) => h.call(|| unsafe { f(user, action, a, b, schema, trigger) }),
            _ => ffi::SQLITE_OK,
        }
    })
}

/// A registration of the callback `f`, or None to remove one (whose `user_data` is then
/// released at once).
pub(crate) fn reg<F: Copy>(f: Option<F>, user: *mut c_void, destroy: sqlbatch_destroy_fn) -> Option<Reg<F>> {
    match f {
        Some(f) => Some(Reg { f, user, destroy }),
        None => {
            // Removing: the user data given with no callback is not kept, so release it now.
            if let Some(d) = destroy {
                // SAFETY: the caller's destructor, called once with its user data.
                boundary_value((), || unsafe { d(user) });
            }
            None
        }
    }
}
