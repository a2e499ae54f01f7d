//! The statement handle (`sqlbatch_stmt`): a prepared statement with its fetch state, its
//! fetch-ahead state and its queue of bulk writes, the protocol that admits a call into it
//! (a callback of a call on a statement must not step or free it under that call), and what
//! prepare, bind, metadata and finalize do.

use std::alloc::Layout;
use std::collections::VecDeque;
use std::ffi::{c_char, c_int, CStr, CString};
use std::mem::ManuallyDrop;
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::engine::ahead::{self, Ahead};
use crate::engine::conn::{ConnShared, StmtOps, StmtRef, StmtSlot};
use crate::engine::fetch::{fetch_now, sqlbatch_batch, Bound};
use crate::engine::rows::BoundRows;
use crate::engine::sql_text::{second_statement_error, StackSql};
use crate::engine::state::FetchState;
use crate::engine::value::{
    bind_all, param_count, param_count_error, sqlbatch_str, sqlbatch_value, Binder, Lifetime, Params,
};
use crate::engine::write::Queued;
use crate::error::{check_sql, check_utf8, Error};
use crate::ffi::non_empty;

/// Prepare flag: the statement will be kept and reused many times (`SQLITE_PREPARE_PERSISTENT`).
pub const SQLBATCH_PREPARE_PERSISTENT: u32 = 0x01;
/// Prepare flag: refuse SQL that holds more than one statement, with
/// `SQLBATCH_E_MULTIPLE_STATEMENTS` (whitespace, comments and lone semicolons may follow the
/// statement). A library flag, not passed to SQLite.
pub const SQLBATCH_PREPARE_SINGLE: u32 = 0x0001_0000;

/// The flags `sqlbatch_stmt_prepare` accepts.
pub(crate) const PREPARE_FLAGS_ALLOWED: u32 = SQLBATCH_PREPARE_PERSISTENT | SQLBATCH_PREPARE_SINGLE;

/// A prepared statement. Opaque; created by `sqlbatch_stmt_prepare`, destroyed by
/// `sqlbatch_stmt_finalize`.
pub struct sqlbatch_stmt {
    pub(crate) conn: Arc<ConnShared>,
    /// NULL when the SQL held no statement (only whitespace or comments).
    pub(crate) raw: *mut ffi::sqlite3_stmt,
    /// Its entry in its connection's list of live statements (see `ConnShared::adopt`).
    entry: usize,
    pub(crate) fetch: FetchState,
    /// Fetch-ahead's state, once it was turned on for the statement.
    pub(crate) ahead: Option<Box<Ahead>>,
    /// What few statements need (metadata handed out, bulk writes queued), made by the
    /// first call that does: a statement prepared, run and finalized has none to make or free.
    /// Dropped by `sqlbatch_stmt`'s `drop`, which tests it inline (the drop glue of an
    /// `Option<Box<_>>` is a call).
    cold: ManuallyDrop<Option<Box<Cold>>>,
    /// Set while a call that takes the statement mutably runs (`ffi_boundary!(stmt: ..)`):
    /// a callback of that call (an SQL function its step runs) that calls the statement
    /// again is refused with `SQLITE_MISUSE`, and one that finalizes it is deferred, instead
    /// of stepping, resetting or freeing it under the call (a stack overflow, or a
    /// use-after-free). Atomic, as a callback on the worker reads it (see `admit`).
    entered: AtomicBool,
    /// Whether the connection's worker has a job on the statement (a batch stepped ahead, or
    /// a bulk write queued) at the end of the last call on it: a callback of that job, on the
    /// worker, must not use the statement. Written when a call leaves.
    with_worker: AtomicBool,
}

impl Drop for sqlbatch_stmt {
    #[inline]
    fn drop(&mut self) {
        if self.cold.is_some() {
            // SAFETY: dropped once, here; the statement is not used again.
            unsafe { ManuallyDrop::drop(&mut self.cold) }
        }
    }
}

/// The part of a statement that few statements use (see `sqlbatch_stmt::cold`).
#[derive(Default)]
struct Cold {
    columns: Vec<sqlbatch_column>,
    /// Owns the bytes `columns` points to.
    column_strings: Vec<CString>,
    params: Option<Vec<sqlbatch_str>>,
    /// Owns the bytes `params` points to.
    param_strings: Vec<CString>,
    /// What the last `sqlbatch_stmt_expanded_sql` gave (None before the first).
    expanded: Option<CString>,
    /// The bulk writes `sqlbatch_stmt_execute_many_start` queued (at most two, oldest
    /// first), each until its wait.
    queued: VecDeque<Queued>,
}

/// Metadata of one result column, from `sqlbatch_stmt_columns`.
///
/// Each string is NUL-terminated; `ptr` is NULL where SQLite has no answer (no declared type,
/// or a column computed from an expression rather than read from a table).
#[repr(C)]
pub struct sqlbatch_column {
    /// The column's name (`AS` name if given), `sqlite3_column_name`.
    pub name: sqlbatch_str,
    /// The declared type of the table column it reads, e.g. "INTEGER", "DATETIME"
    /// (`sqlite3_column_decltype`).
    pub decl_type: sqlbatch_str,
    /// The database ("main", "temp", an attached name) of the table column it reads.
    pub database: sqlbatch_str,
    /// The table it reads from (`sqlite3_column_table_name`).
    pub table: sqlbatch_str,
    /// The name of the table column it reads (`sqlite3_column_origin_name`).
    pub origin: sqlbatch_str,
}

impl sqlbatch_stmt {
    /// Whether a call on the live statement `p` is running (see `entered`), read without
    /// making a reference to it.
    #[inline]
    pub(crate) fn entered(p: *const sqlbatch_stmt) -> bool {
        // SAFETY: `p` is live (the caller's contract); only the flag is referenced.
        unsafe { (*std::ptr::addr_of!((*p).entered)).load(Ordering::Acquire) }
    }

    /// Whether the worker had a job on the live statement `p` when the last call on it left.
    #[inline]
    fn with_worker(p: *const sqlbatch_stmt) -> bool {
        // SAFETY: `p` is live (the caller's contract); only the flag is referenced.
        unsafe { (*std::ptr::addr_of!((*p).with_worker)).load(Ordering::Relaxed) }
    }

    /// Whether a call is running on the live statement `p`, or the worker had a job on it.
    #[inline]
    pub(crate) fn flagged(p: *const sqlbatch_stmt) -> bool {
        Self::entered(p) || Self::with_worker(p)
    }

    /// Whether a call on the live statement `p` must pass `admit` first: a call runs on it,
    /// or the connection's worker is busy (a callback of its job may use the statement). A
    /// few loads, without making a reference to the statement.
    #[inline]
    pub(crate) fn needs_admit(p: *const sqlbatch_stmt) -> bool {
        // SAFETY: `p` is live (the caller's contract); only its connection is referenced,
        // which no call replaces.
        Self::entered(p) || unsafe { (*std::ptr::addr_of!((*p).conn)).worker().busy() }
    }

    /// Whether a call on the statement `p` that `needs_admit` may go on (`mutable`: one that
    /// takes it mutably, and marks it entered).
    ///
    /// - From a callback of a job on the worker: only if no call is in the statement and the
    ///   worker has no job on it (the statement is then the caller's thread's: that thread
    ///   enters one only while the worker is idle or has a job on it).
    /// - On the caller's thread: a callback on the worker may be in the statement, unless the
    ///   worker has a job on it (then its callbacks are refused it); once the worker is idle,
    ///   none is, and none can start before this thread starts a job. So this waits for the
    ///   worker, and then only a call of this thread, further up its stack, can be in the
    ///   statement: a callback of that call using it mutably is refused.
    #[cold]
    pub(crate) fn admit(p: *const sqlbatch_stmt, mutable: bool) -> bool {
        if crate::engine::worker::Worker::on_worker() {
            return !Self::flagged(p);
        }
        // SAFETY: `p` is live; only its connection is read, which no call replaces.
        let worker = unsafe { (*std::ptr::addr_of!((*p).conn)).worker() };
        if worker.busy() && !Self::with_worker(p) {
            worker.wait();
        }
        !(mutable && Self::entered(p))
    }

    /// The statement's rarely used part, made on first use.
    fn cold(&mut self) -> &mut Cold {
        self.cold.get_or_insert_with(Default::default)
    }

    /// The bulk writes queued on the statement (see `bulk.rs`), oldest first; None for none.
    pub(crate) fn queued(&self) -> Option<&VecDeque<Queued>> {
        self.cold.as_ref().map(|c| &c.queued)
    }

    /// The bulk writes queued on the statement, to add or take one.
    pub(crate) fn queued_mut(&mut self) -> &mut VecDeque<Queued> {
        &mut self.cold().queued
    }

    /// Whether a bulk write is queued on the statement.
    #[inline]
    pub(crate) fn writes_queued(&self) -> bool {
        self.cold.as_ref().is_some_and(|c| !c.queued.is_empty())
    }

    #[inline]
    pub(crate) fn enter(&self) {
        self.entered.store(true, Ordering::Relaxed);
    }

    /// The call on the statement ends: records whether the worker has a job on it, then
    /// clears `entered` (in that order, for a callback on the worker reading both).
    #[inline]
    pub(crate) fn leave(&self) {
        let jobs = self.writes_queued() || self.ahead.as_ref().is_some_and(|a| a.launched());
        self.with_worker.store(jobs, Ordering::Relaxed);
        self.entered.store(false, Ordering::Release);
    }

    /// The error of a call on a statement that `admit` refused.
    #[cold]
    pub(crate) fn reentered() -> Error {
        Error::new(
            ffi::SQLITE_MISUSE,
            "the statement was used from a callback of a call or of a worker's job running on it \
             (an SQL function of its own step), or from a callback on the worker while the caller's \
             thread uses it",
        )
    }

    /// The live database and statement handles, once the connection's worker is idle;
    /// `SQLBATCH_E_CLOSED` once the connection closed, `SQLITE_MISUSE` while a bulk write
    /// queued on the statement was not waited for.
    pub(crate) fn handles(&self) -> Result<(*mut ffi::sqlite3, *mut ffi::sqlite3_stmt), Error> {
        if self.writes_queued() {
            return Err(Error::new(
                ffi::SQLITE_MISUSE,
                "a bulk write queued by sqlbatch_stmt_execute_many_start was not waited for",
            ));
        }
        Ok((self.conn.db()?, self.raw))
    }

    /// `sqlbatch_stmt_reset`: once the connection is open and its worker idle ([`Self::handles`]),
    /// [`Self::rewind`].
    pub(crate) fn reset(&mut self) -> Result<(), Error> {
        self.handles()?;
        self.rewind();
        Ok(())
    }

    /// Resets the statement if it has run since it was last reset; the current batch ends.
    pub(crate) fn rewind(&mut self) {
        if let Some(ahead) = &mut self.ahead {
            ahead.discard();
        }
        // SAFETY: `raw` is NULL or this statement's live handle (it is only used while the
        // connection is open, which every caller checked through `handles`).
        unsafe { self.fetch.rewind(self.raw) }
    }
}

/// The statement operations of [`StmtRef`] (see `ConnShared::finalize`).
static STMT_OPS: StmtOps = StmtOps {
    // SAFETY (all three): `wrapper` is a live `sqlbatch_stmt` of the library's (the contract of
    // `StmtOps`).
    in_call: |wrapper, on_worker| {
        let p = wrapper as *const sqlbatch_stmt;
        if on_worker {
            sqlbatch_stmt::flagged(p)
        } else {
            sqlbatch_stmt::entered(p)
        }
    },
    dismantle: |wrapper| unsafe {
        let p = wrapper as *mut sqlbatch_stmt;
        let buffers = (*p).fetch.take_buffers();
        ptr::drop_in_place(p);
        // SAFETY: `p` came from `Box` (see `prepare`): an allocation of this layout, now empty.
        (buffers, StmtSlot::from_raw(NonNull::new_unchecked(p.cast()), Layout::new::<sqlbatch_stmt>()))
    },
    free: |wrapper| unsafe { drop(Box::from_raw(wrapper as *mut sqlbatch_stmt)) },
};

impl sqlbatch_stmt {
    /// Compiles the first statement of `sql` on `conn`, whose open handle is `db` (see
    /// `sqlbatch_stmt_prepare`): the new handle, which the caller owns, and the byte offset
    /// where the rest of `sql` begins.
    pub(crate) fn prepare(
        conn: &Arc<ConnShared>,
        db: *mut ffi::sqlite3,
        sql: &[u8],
        flags: u32,
    ) -> Result<(*mut sqlbatch_stmt, usize), Error> {
        // UTF-8, and no NUL: SQLite would stop at one silently, and a tail that never
        // advances loops callers forever.
        check_sql(sql)?;
        if flags & !PREPARE_FLAGS_ALLOWED != 0 {
            return Err(Error::new(SQLBATCH_E_INVALID_ARGUMENT, format!("unknown prepare flags {flags:#x}")));
        }
        let mut room = StackSql::new();
        let terminated = room.terminate(sql).unwrap_or(sql);
        // SAFETY: `db` is open and used by this thread only.
        let (raw, tail) = unsafe { prepare_raw(db, terminated, flags & !SQLBATCH_PREPARE_SINGLE)? };
        if flags & SQLBATCH_PREPARE_SINGLE != 0 {
            if let Some(e) = second_statement_error(sql, tail) {
                // SAFETY: `raw` is NULL or the statement just prepared, finalized once.
                unsafe { ffi::sqlite3_finalize(raw) };
                return Err(e);
            }
        }
        let (entry, buffers, slot) = if raw.is_null() { Default::default() } else { conn.adopt(raw) };
        // SAFETY: `raw` is NULL or the statement just prepared.
        let ahead = if conn.fetch_ahead() { Some(unsafe { Ahead::new(raw) }) } else { None };
        let stmt = sqlbatch_stmt {
            conn: conn.clone(),
            raw,
            entry,
            fetch: FetchState::new(buffers),
            ahead,
            cold: ManuallyDrop::new(None),
            entered: AtomicBool::new(false),
            with_worker: AtomicBool::new(false),
        };
        let p = match slot.and_then(|s| s.into_raw(Layout::new::<sqlbatch_stmt>())) {
            Some(p) => {
                let p = p.as_ptr().cast::<sqlbatch_stmt>();
                // SAFETY: the slot is an empty allocation for a `sqlbatch_stmt`, now ours, which
                // `Box` frees (see `STMT_OPS`).
                unsafe { p.write(stmt) };
                p
            }
            None => Box::into_raw(Box::new(stmt)),
        };
        Ok((p, tail))
    }

    /// Finalizes the statement `p` and frees its handle (see `sqlbatch_stmt_finalize`).
    ///
    /// # Safety
    /// `p` came from [`sqlbatch_stmt::prepare`] and is finalized once.
    pub(crate) unsafe fn finalize(p: *mut sqlbatch_stmt) {
        // SAFETY: the caller's contract.
        let s = unsafe { &*p };
        // After sqlbatch_conn_close the handle was already finalized with the connection.
        if s.conn.is_open() && !s.raw.is_null() {
            let conn = s.conn.clone();
            let stmt = StmtRef { wrapper: p as usize, raw: s.raw as usize, entry: s.entry, ops: &STMT_OPS };
            // SAFETY: as above; the connection is open, so the handle is live.
            unsafe { conn.finalize(stmt) };
        } else {
            // SAFETY: as above.
            drop(unsafe { Box::from_raw(p) });
        }
    }

    /// Binds `params` to the statement (see `sqlbatch_stmt_bind`); rewinds it first. The
    /// caller checked `handles`, which gave `db`.
    pub(crate) fn bind(&mut self, db: *mut ffi::sqlite3, params: Params) -> Result<(), Error> {
        let raw = self.raw;
        let positional = params.names.is_empty();
        if positional {
            // SAFETY: `raw` is NULL or live.
            let expected = unsafe { param_count(raw) };
            if params.values.len() != expected {
                return Err(param_count_error(expected, params.values.len()));
            }
        }
        self.rewind();
        if raw.is_null() {
            return Ok(());
        }
        // SAFETY: `raw` is a live statement of `db`; the bytes are copied.
        unsafe {
            if positional {
                // Exactly its parameter count, as checked above: they bind in order.
                bind_all(db, raw, params.values, &params, Lifetime::Copy)
            } else {
                Binder::new(params).bind_single(db, raw, Lifetime::Copy).map(drop)
            }
        }
    }

    /// Binds the table `rows` (`n_cols` values a row) to parameter `index` (from 1), for the
    /// `sqlbatch_rows` virtual table to read (see `sqlbatch_stmt_bind_rows`); rewinds the
    /// statement first. The caller checked `handles`.
    pub(crate) fn bind_rows(
        &mut self,
        db: *mut ffi::sqlite3,
        index: usize,
        rows: Params,
        n_cols: usize,
    ) -> Result<(), Error> {
        let count = self.param_count();
        if index == 0 || index > count {
            return Err(Error::new(
                SQLBATCH_E_RANGE,
                format!("parameter {index} out of range (the statement has {count})"),
            ));
        }
        // SAFETY: `rows` came from `Params::from_c`, whose contract the caller kept.
        let table = unsafe { BoundRows::copy(&rows, n_cols)? };
        self.rewind();
        // SAFETY: `raw` is live (it has parameters) and rewound; `index` is in range.
        let rc = unsafe { table.bind(self.raw, index as c_int) };
        if rc != ffi::SQLITE_OK {
            // SAFETY: `db` is open.
            return Err(unsafe { Error::from_db(db, rc) });
        }
        Ok(())
    }

    /// Sets every parameter to NULL. The caller checked `handles`.
    pub(crate) fn clear_bindings(&mut self) {
        if !self.raw.is_null() {
            // SAFETY: `raw` is live.
            unsafe { ffi::sqlite3_clear_bindings(self.raw) };
        }
    }

    /// The metadata of every result column (see `sqlbatch_stmt_columns`), kept in the
    /// statement until the next call. The caller checked `handles`.
    pub(crate) fn columns(&mut self) -> Result<&[sqlbatch_column], Error> {
        let raw = self.raw;
        // SAFETY: `raw` is NULL or live; SQLite's strings are copied before the next call.
        unsafe {
            let n = if raw.is_null() { 0 } else { ffi::sqlite3_column_count(raw) };
            let mut columns = Vec::with_capacity(n as usize);
            let mut store = Vec::new();
            for i in 0..n {
                let name = ffi::sqlite3_column_name(raw, i);
                if name.is_null() {
                    return Err(Error::new(ffi::SQLITE_NOMEM, "out of memory"));
                }
                columns.push(sqlbatch_column {
                    name: own(&mut store, name),
                    decl_type: own(&mut store, ffi::sqlite3_column_decltype(raw, i)),
                    database: own(&mut store, ffi::sqlite3_column_database_name(raw, i)),
                    table: own(&mut store, ffi::sqlite3_column_table_name(raw, i)),
                    origin: own(&mut store, ffi::sqlite3_column_origin_name(raw, i)),
                });
            }
            let cold = self.cold();
            cold.columns = columns;
            cold.column_strings = store;
            Ok(&cold.columns)
        }
    }

    /// Whether result column `col` can never be NULL: 1, 0, or -1 when nothing is known (see
    /// `sqlbatch_stmt_column_not_null`). The caller checked `handles`, which gave `db`.
    pub(crate) fn column_not_null(&self, db: *mut ffi::sqlite3, col: usize) -> Result<i32, Error> {
        let raw = self.raw;
        // SAFETY: `raw` is NULL or a live statement of the open `db`.
        unsafe {
            let n = if raw.is_null() { 0 } else { ffi::sqlite3_column_count(raw) as usize };
            if col >= n {
                return Err(Error::new(
                    SQLBATCH_E_RANGE,
                    format!("column {col} out of range (the statement has {n})"),
                ));
            }
            let c = col as c_int;
            let (dbname, table, origin) = (
                ffi::sqlite3_column_database_name(raw, c),
                ffi::sqlite3_column_table_name(raw, c),
                ffi::sqlite3_column_origin_name(raw, c),
            );
            if dbname.is_null() || table.is_null() || origin.is_null() {
                return Ok(-1);
            }
            let (mut decl, mut coll) = (ptr::null(), ptr::null());
            let (mut not_null, mut pk, mut autoinc) = (0, 0, 0);
            let rc = ffi::sqlite3_table_column_metadata(
                db,
                dbname,
                table,
                origin,
                &mut decl,
                &mut coll,
                &mut not_null,
                &mut pk,
                &mut autoinc,
            );
            if rc != ffi::SQLITE_OK {
                return Ok(-1);
            }
            let integer_pk = pk != 0
                && !decl.is_null()
                && CStr::from_ptr(decl).to_bytes().eq_ignore_ascii_case(b"INTEGER");
            Ok(i32::from(not_null != 0 || integer_pk))
        }
    }

    /// The number of parameters (the largest index). The caller checked `handles`.
    pub(crate) fn param_count(&self) -> usize {
        // SAFETY: `raw` is NULL or live.
        unsafe { param_count(self.raw) }
    }

    /// The names of all parameters (see `sqlbatch_stmt_params`), built on first use and kept
    /// in the statement. The caller checked `handles`.
    pub(crate) fn param_names(&mut self) -> &[sqlbatch_str] {
        let raw = self.raw;
        let cold = self.cold();
        if cold.params.is_none() {
            let store = &mut cold.param_strings;
            // SAFETY: `raw` is NULL or live; SQLite's strings are copied.
            let names = (1..=unsafe { param_count(raw) })
                .map(|i| unsafe { own(store, ffi::sqlite3_bind_parameter_name(raw, i as c_int)) });
            cold.params = Some(names.collect());
        }
        cold.params.as_deref().unwrap_or_default()
    }

    /// The index of the parameter `name` answers to, 0 if none (see
    /// `sqlbatch_stmt_param_index`). The caller checked `handles`.
    pub(crate) fn param_index(&self, name: &[u8]) -> Result<usize, Error> {
        check_utf8(name, "parameter name")?;
        // SAFETY: `raw` is NULL or live.
        Ok(unsafe { param_index(self.raw, name) })
    }

    /// Whether the statement makes no direct change to the database file. The caller
    /// checked `handles`.
    pub(crate) fn readonly(&self) -> bool {
        // SAFETY: `raw` is NULL or live.
        self.raw.is_null() || unsafe { ffi::sqlite3_stmt_readonly(self.raw) } != 0
    }

    /// The SQL text as prepared, owned by SQLite's statement ("" for an empty one). The
    /// caller checked `handles`.
    pub(crate) fn sql(&self) -> sqlbatch_str {
        // SAFETY: `raw` is NULL or live; `sqlite3_sql` is NULL or NUL-terminated.
        unsafe {
            let p = if self.raw.is_null() { ptr::null() } else { ffi::sqlite3_sql(self.raw) };
            if p.is_null() {
                sqlbatch_str { ptr: c"".as_ptr(), len: 0 }
            } else {
                sqlbatch_str { ptr: p, len: CStr::from_ptr(p).to_bytes().len() }
            }
        }
    }

    /// The SQL text with the bound parameters written in, kept in the statement until the
    /// next call (see `sqlbatch_stmt_expanded_sql`). The caller checked `handles`.
    pub(crate) fn expanded_sql(&mut self) -> Result<sqlbatch_str, Error> {
        let raw = self.raw;
        let cold = self.cold();
        cold.expanded = None;
        if !raw.is_null() {
            // SAFETY: `raw` is live; SQLite's string is copied, then freed.
            unsafe {
                let p = ffi::sqlite3_expanded_sql(raw);
                if p.is_null() {
                    return Err(Error::new(ffi::SQLITE_NOMEM, "out of memory expanding the SQL"));
                }
                // The copy is as long as the values bound: made without aborting.
                let text = CStr::from_ptr(p).to_bytes_with_nul();
                let mut copy = Vec::new();
                let copied = copy.try_reserve_exact(text.len()).is_ok();
                if copied {
                    copy.extend_from_slice(text);
                }
                ffi::sqlite3_free(p.cast());
                if !copied {
                    return Err(Error::new(ffi::SQLITE_NOMEM, "out of memory copying the expanded SQL"));
                }
                cold.expanded = CString::from_vec_with_nul(copy).ok();
            }
        }
        let text: &CStr = cold.expanded.as_deref().unwrap_or(c"");
        Ok(sqlbatch_str { ptr: text.as_ptr(), len: text.to_bytes().len() })
    }
}

impl sqlbatch_stmt {
    /// A fetch that the rest of a fetched-ahead batch answers without waiting for the
    /// connection's worker (see `ahead::fetch_served`), or None.
    ///
    /// # Safety
    /// `out` is NULL or valid for writes; a `Bound::Buffer` holds that many writable bytes.
    #[inline]
    pub(crate) unsafe fn fetch_served(
        &mut self,
        max_rows: usize,
        bound: Bound,
        out: *mut sqlbatch_batch,
    ) -> Option<Result<i32, Error>> {
        let a = self.ahead.as_deref_mut()?;
        // `writes_queued`, read beside the borrow of `ahead`.
        let writes_queued = self.cold.as_ref().is_some_and(|c| !c.queued.is_empty());
        // SAFETY: the caller's contract.
        unsafe { ahead::fetch_served(&mut self.fetch, a, &self.conn, writes_queued, max_rows, bound, out) }
    }

    /// Fetches the next batch (`sqlbatch_stmt_fetch`, `sqlbatch_stmt_fetch_into`): through
    /// fetch-ahead if the statement fetches ahead, else now, on this thread.
    ///
    /// # Safety
    /// `db` and `raw` are the statement's live handles (from `handles`), used by this thread
    /// only; a `Bound::Buffer` holds that many writable bytes.
    #[inline(always)]
    pub(crate) unsafe fn fetch(
        &mut self,
        db: *mut ffi::sqlite3,
        raw: *mut ffi::sqlite3_stmt,
        max_rows: usize,
        bound: Bound,
        out: &mut sqlbatch_batch,
    ) -> Result<i32, Error> {
        // SAFETY: the caller's contract.
        unsafe {
            match self.ahead.as_deref_mut() {
                Some(a) => ahead::fetch(&mut self.fetch, a, &self.conn, db, raw, max_rows, bound, out),
                None => {
                    fetch_now(&mut self.fetch, db, raw, max_rows, bound, out, self.conn.direct_read_stride())
                }
            }
        }
    }

    /// Turns fetch-ahead on or off for the statement (see `sqlbatch_stmt_set_fetch_ahead`).
    /// The caller checked `handles`.
    pub(crate) fn set_fetch_ahead(&mut self, on: bool) {
        match &mut self.ahead {
            Some(a) => a.on = on,
            // SAFETY: `raw` is NULL or the statement's live handle.
            None if on => self.ahead = Some(unsafe { Ahead::new(self.raw) }),
            None => {}
        }
    }

    /// Cell (`row`, `col`) of `batch`, checked to be the statement's current batch and to
    /// hold that cell (see `sqlbatch_batch_get`).
    pub(crate) fn batch_cell(
        &self,
        b: &sqlbatch_batch,
        row: usize,
        col: usize,
    ) -> Result<sqlbatch_value, Error> {
        if b.generation != self.fetch.generation || b.cells != non_empty(self.fetch.batch_cells()) {
            return Err(Error::new(
                SQLBATCH_E_STALE_BATCH,
                "the batch is no longer valid: its statement was fetched, bound, reset or written since",
            ));
        }
        if row >= b.n_rows || col >= b.n_cols {
            return Err(Error::new(
                SQLBATCH_E_RANGE,
                format!(
                    "cell ({row}, {col}) is outside the batch ({} rows x {} columns)",
                    b.n_rows, b.n_cols
                ),
            ));
        }
        let mut v = self.fetch.batch_cells()[row * b.n_cols + col];
        if v.has_bytes() {
            v.bits = b.data.wrapping_add(v.bits as usize) as u64;
        }
        Ok(v)
    }
}

/// Copies a string SQLite returned into `store`, returning a view of the copy.
///
/// # Safety
/// `s` must be NULL or NUL-terminated.
pub(crate) unsafe fn own(store: &mut Vec<CString>, s: *const c_char) -> sqlbatch_str {
    if s.is_null() {
        return sqlbatch_str::NONE;
    }
    // SAFETY: `s` is NUL-terminated (the caller's contract).
    let owned = unsafe { CStr::from_ptr(s) }.to_owned();
    // The bytes live on the heap: moving the CString into `store` does not move them.
    let view = sqlbatch_str { ptr: owned.as_ptr(), len: owned.as_bytes().len() };
    store.push(owned);
    view
}

/// Compiles the first statement of `sql`; returns the handle (NULL if there was none) and the
/// byte offset where the rest begins.
///
/// # Safety
/// `db` must be open and used by this thread only.
#[inline]
pub(crate) unsafe fn prepare_raw(
    db: *mut ffi::sqlite3,
    sql: &[u8],
    flags: u32,
) -> Result<(*mut ffi::sqlite3_stmt, usize), Error> {
    let len =
        c_int::try_from(sql.len()).map_err(|_| Error::new(SQLBATCH_E_RANGE, "SQL text longer than 2 GiB"))?;
    let mut raw = ptr::null_mut();
    let mut tail: *const c_char = ptr::null();
    let base = sql.as_ptr().cast::<c_char>();
    // SAFETY: `db` is open and used by this thread only (the caller's contract); `sql` is
    // `len` readable bytes, and SQLite sets `tail` inside them.
    let rc = unsafe { ffi::sqlite3_prepare_v3(db, base, len, flags, &mut raw, &mut tail) };
    if rc != ffi::SQLITE_OK {
        // SAFETY: as above.
        return Err(unsafe { prepare_error(db, rc) });
    }
    // SAFETY: `tail` points into `sql`.
    let consumed = if tail.is_null() { sql.len() } else { (unsafe { tail.offset_from(base) }) as usize };
    Ok((raw, consumed))
}

/// The error of a prepare that returned `rc`.
///
/// # Safety
/// `db` must be open.
#[cold]
#[inline(never)]
unsafe fn prepare_error(db: *mut ffi::sqlite3, rc: c_int) -> Error {
    // SAFETY: the caller's contract.
    unsafe { Error::from_db(db, rc) }
}

/// The index of the parameter `name` answers to (see `sqlbatch_stmt_param_index`), 0 if none.
///
/// # Safety
/// `raw` must be NULL or a live statement.
pub(crate) unsafe fn param_index(raw: *mut ffi::sqlite3_stmt, name: &[u8]) -> usize {
    if raw.is_null() || name.is_empty() || name.contains(&0) {
        return 0;
    }
    let lookup = |spelled: &[u8]| {
        let c = CString::new(spelled).unwrap_or_default();
        // SAFETY: `raw` is live; `c` is NUL-terminated.
        unsafe { ffi::sqlite3_bind_parameter_index(raw, c.as_ptr()) as usize }
    };
    if matches!(name[0], b':' | b'@' | b'$' | b'?') {
        return lookup(name);
    }
    let mut spelled = Vec::with_capacity(name.len() + 1);
    for prefix in [b':', b'@', b'$'] {
        spelled.clear();
        spelled.push(prefix);
        spelled.extend_from_slice(name);
        match lookup(&spelled) {
            0 => continue,
            i => return i,
        }
    }
    0
}
