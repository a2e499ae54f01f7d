//! The update hook's events in batches: the change feed (handed over per transaction: when
//! full, at commit, at rollback) and the batched update hook (handed over no later than the
//! difference from per-event calls could be seen), sharing one collector.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::atomic::Ordering;

use libsqlite3_sys as ffi;

use super::{lock, reg, str_of, Hooks, Reg};
use crate::engine::callback::sqlbatch_destroy_fn;
use crate::engine::value::sqlbatch_str;
use crate::error::Error;

/// One change of a batch of the change feed.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sqlbatch_change {
    /// The row's rowid (the new one for an insert).
    pub rowid: i64,
    /// `SQLITE_INSERT` (18), `SQLITE_DELETE` (9) or `SQLITE_UPDATE` (23).
    pub op: i32,
    /// Index of its table in the batch's `tables`.
    pub table: u32,
}

/// A table of a batch of the change feed.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sqlbatch_change_table {
    /// The database: "main", "temp" or an attached name (NUL-terminated).
    pub schema: sqlbatch_str,
    /// The table (NUL-terminated).
    pub name: sqlbatch_str,
}

/// Change feed `reason`: the feed's buffer is full in the middle of a transaction (these
/// changes may still be rolled back; a later batch says how the transaction ended).
pub const SQLBATCH_FEED_FULL: i32 = 0;
/// The transaction committed: these are its last changes.
pub const SQLBATCH_FEED_COMMIT: i32 = 1;
/// The transaction rolled back: these changes were undone (and so were those of the batches
/// since its last COMMIT batch).
pub const SQLBATCH_FEED_ROLLBACK: i32 = 2;

/// The change feed's callback: `n_changes` changes in the order they happened (`changes`),
/// naming their tables by index into `tables` (`n_tables` of them). Both arrays and their
/// strings are valid during the call only. It must not use the connection.
pub type sqlbatch_change_feed_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        changes: *const sqlbatch_change,
        n_changes: usize,
        tables: *const sqlbatch_change_table,
        n_tables: usize,
        reason: i32,
    ),
>;

/// The batched update hook's callback (`sqlbatch_conn_update_hook_batched`): `n_changes`
/// update events in the order they happened (`changes`), naming their tables by index into
/// `tables` (`n_tables` of them). Both arrays and their strings are valid during the call only.
/// It must not use the connection. It returns 0 to go on, or non-zero to stop: see
/// `sqlbatch_conn_update_hook_batched`.
pub type sqlbatch_update_batch_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        changes: *const sqlbatch_change,
        n_changes: usize,
        tables: *const sqlbatch_change_table,
        n_tables: usize,
    ) -> i32,
>;

/// Update events collected between deliveries (by the change feed and the batched update
/// hook).
#[derive(Default)]
pub(crate) struct Collected {
    changes: Vec<sqlbatch_change>,
    /// (schema, table) of each index used by `changes`.
    tables: Vec<(CString, CString)>,
    /// SQLite's name pointers of the last event and its table's index: the rows a statement
    /// changes name their table with the same pointers, so the next event's are compared with
    /// these first (and then by content, as a table dropped and another created could reuse
    /// the addresses).
    last: Option<(*const c_char, *const c_char, u32)>,
}

impl Collected {
    /// Adds an event; returns how many are collected.
    ///
    /// # Safety
    /// `schema` and `table` are NUL-terminated.
    pub(super) unsafe fn push(
        &mut self,
        op: c_int,
        schema: *const c_char,
        table: *const c_char,
        rowid: i64,
    ) -> usize {
        let index = match self.last {
            // SAFETY: NUL-terminated (the caller's contract).
            Some((sc, tb, i))
                if sc == schema
                    && tb == table
                    && unsafe {
                        same(schema, &self.tables[i as usize].0) && same(table, &self.tables[i as usize].1)
                    } =>
            {
                i
            }
            _ => {
                // SAFETY: as above.
                let (sc, tb) = unsafe { (CStr::from_ptr(schema), CStr::from_ptr(table)) };
                let i = match self.tables.iter().position(|(a, b)| a.as_c_str() == sc && b.as_c_str() == tb) {
                    Some(i) => i,
                    None => {
                        self.tables.push((sc.to_owned(), tb.to_owned()));
                        self.tables.len() - 1
                    }
                } as u32;
                self.last = Some((schema, table, i));
                i
            }
        };
        self.changes.push(sqlbatch_change { rowid, op, table: index });
        self.changes.len()
    }

    fn with_capacity(max: usize) -> Collected {
        Collected { changes: Vec::with_capacity(max.min(1 << 16)), ..Default::default() }
    }

    /// Takes the events out, leaving empty buffers.
    fn take(&mut self) -> Collected {
        self.last = None;
        std::mem::take(self)
    }

    /// Puts emptied buffers back, keeping their capacity for the next batch.
    fn put_back(&mut self, mut used: Collected) {
        if self.changes.is_empty() && self.tables.is_empty() {
            used.changes.clear();
            used.tables.clear();
            used.last = None;
            *self = used;
        }
    }

    /// Hands the events to `f` (with `call`, which runs a callback).
    fn hand_to<R>(
        &self,
        call: impl FnOnce(*const sqlbatch_change, usize, *const sqlbatch_change_table, usize) -> R,
    ) -> R {
        let view: Vec<sqlbatch_change_table> = self
            .tables
            .iter()
            .map(|(s, t)| sqlbatch_change_table { schema: str_of(s), name: str_of(t) })
            .collect();
        call(self.changes.as_ptr(), self.changes.len(), view.as_ptr(), view.len())
    }
}

/// Whether the NUL-terminated string at `p` is `s`.
///
/// # Safety
/// `p` is NUL-terminated.
#[inline]
unsafe fn same(p: *const c_char, s: &CStr) -> bool {
    let b = s.to_bytes_with_nul();
    // SAFETY: `p` is NUL-terminated: every byte read is at or before its NUL, as the loop
    // stops at the first difference and `b` ends with a NUL.
    b.iter().enumerate().all(|(i, &c)| unsafe { *p.add(i) } as u8 == c)
}

/// A batched form of the update hook (the change feed, the batched update hook): its
/// registration, its bound and what it holds between deliveries.
pub(crate) struct Batching<F: Copy> {
    reg: Reg<F>,
    pub(super) max: usize,
    pub(super) collected: Collected,
}

impl<F: Copy> Batching<F> {
    /// The registration of `f` (none, with `user_data` released, when `f` is NULL), holding at
    /// most `max_changes` changes (0: 1024).
    pub(crate) fn new(
        f: Option<F>,
        user_data: *mut c_void,
        destroy: sqlbatch_destroy_fn,
        max_changes: usize,
    ) -> Option<Self> {
        let max = if max_changes == 0 { 1024 } else { max_changes };
        reg(f, user_data, destroy).map(|reg| Batching { reg, max, collected: Collected::with_capacity(max) })
    }
}

pub(crate) type Feed = Batching<sqlbatch_change_feed_fn>;
pub(crate) type Batched = Batching<sqlbatch_update_batch_fn>;

impl Hooks {
    /// Before a callback of the connection (a hook, an SQL function, a collation, a conflict
    /// handler): the batched update hook gets the events collected so far; if it answers stop,
    /// the running statement is interrupted.
    #[inline]
    pub(crate) fn before_callback(&self) {
        if self.pending.load(Ordering::Relaxed) && self.flush_batched() {
            self.interrupt();
        }
    }

    fn interrupt(&self) {
        let db = self.db.load(Ordering::Relaxed);
        if !db.is_null() {
            // SAFETY: the connection is open while its statements run (`db` is cleared by
            // nothing: the dispatcher is only reached through the open connection's calls).
            unsafe { ffi::sqlite3_interrupt(db) };
        }
    }

    /// Hands the batched update hook's events to it; returns whether it answered stop.
    #[cold]
    pub(super) fn flush_batched(&self) -> bool {
        let (f, user, collected) = {
            let mut s = lock(&self.slots);
            self.pending.store(false, Ordering::Relaxed);
            let Some(b) = s.batched.as_mut() else { return false };
            if b.collected.changes.is_empty() {
                return false;
            }
            (b.reg.f, b.reg.user, b.collected.take())
        };
        let Some(f) = f else { return false };
        // SAFETY: the caller's callback; the arrays live until it returns.
        let answer = collected.hand_to(|c, n, t, nt| self.call_now(|| unsafe { f(user, c, n, t, nt) }));
        if let Some(b) = lock(&self.slots).batched.as_mut() {
            b.collected.put_back(collected);
        }
        answer != 0
    }

    /// At the end of a call that ran statements on `db`: the batched update hook gets the
    /// events that are left. If it answers stop, what an interrupt of the statement would have
    /// undone is undone: an open transaction is rolled back (SQLite's rule for an interrupted
    /// write inside a transaction; without one, the events were handed over before the
    /// commit, which the stop vetoed), and the call fails with `SQLITE_INTERRUPT` unless it
    /// failed already.
    ///
    /// # Safety
    /// `db` is the open connection of this dispatcher, used by this thread only.
    #[inline]
    pub(crate) unsafe fn end_call<T>(&self, db: *mut ffi::sqlite3, r: Result<T, Error>) -> Result<T, Error> {
        if !self.pending.load(Ordering::Relaxed) || !self.flush_batched() {
            return r;
        }
        // SAFETY: the caller's contract.
        unsafe {
            if ffi::sqlite3_get_autocommit(db) == 0 {
                ffi::sqlite3_exec(db, c"ROLLBACK".as_ptr(), None, std::ptr::null_mut(), std::ptr::null_mut());
            }
        }
        r.and(Err(Error::new(
            ffi::SQLITE_INTERRUPT,
            "interrupted: the batched update hook stopped the statement (its transaction was rolled back)",
        )))
    }

    /// Hands the feed's pending changes to its callback, if there are any.
    pub(super) fn deliver(&self, reason: i32) {
        let (f, user, collected) = {
            let mut s = lock(&self.slots);
            let Some(feed) = s.feed.as_mut() else { return };
            if feed.collected.changes.is_empty() {
                return;
            }
            (feed.reg.f, feed.reg.user, feed.collected.take())
        };
        if let Some(f) = f {
            // SAFETY: the caller's callback; the arrays live until it returns.
            collected.hand_to(|c, n, t, nt| self.call(|| unsafe { f(user, c, n, t, nt, reason) }));
        }
        if let Some(feed) = lock(&self.slots).feed.as_mut() {
            feed.collected.put_back(collected);
        }
    }
}
