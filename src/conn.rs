//! Connections: open, close, interrupt, busy timeout and the counters SQLite keeps.

use std::collections::HashSet;
use std::ffi::{c_char, c_int, CString};
use std::hash::{BuildHasherDefault, Hasher};
use std::mem::MaybeUninit;
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::error::{sqlbatch_error, Error, ErrorSink, LastError};
use crate::ffi::{try_bytes, try_mut};
use crate::panic::{boundary, ffi_boundary, lock};
use crate::state::FetchBuffers;
use crate::stmt::sqlbatch_stmt;
use crate::worker::Worker;

/// A database connection. Opaque; created by `sqlbatch_conn_open`, destroyed by `sqlbatch_conn_close`.
pub struct sqlbatch_conn {
    pub(crate) shared: Arc<ConnShared>,
}

/// What a connection shares with its statements (which may outlive it).
pub(crate) struct ConnShared {
    /// The SQLite handle; NULL once the connection is closed.
    db: AtomicPtr<ffi::sqlite3>,
    /// Interrupts in progress. `close` takes the handle out of `db` and then waits for this
    /// to drop to zero, so an interrupt from another thread (or a signal handler) never
    /// touches a handle that is being closed, without taking a lock.
    interrupts: AtomicUsize,
    last_error: Mutex<LastError>,
    /// Whether fetches may read result values directly (see `mem.rs`): only without
    /// SQLite's per-call mutex, i.e. when one thread uses the connection at a time.
    direct_reads: bool,
    /// Set by `sqlbatch_conn_interrupt`, cleared when a script or bulk write starts. SQLite
    /// forgets an interrupt whenever no statement is running, which happens between the
    /// statements of a script and the rows of a bulk write; they check this flag there.
    interrupt: AtomicBool,
    /// The statements prepared through `sqlbatch_stmt_prepare` and not yet finalized, which
    /// `close` finalizes. Only these: virtual table modules (FTS3/4/5, R*Tree) keep prepared
    /// statements of their own on the connection and finalize them themselves when it closes.
    stmts: Mutex<Statements>,
    /// Whether `stmts.deferred` may hold statements (read on every call, without the lock).
    deferred: AtomicBool,
    /// The unfinished backups this connection is the destination of: SQLite keeps a closed
    /// source connection alive for its backups, but not a destination, so `close` finishes
    /// these first (their handles then say `SQLBATCH_E_CLOSED`).
    backups: Mutex<Vec<Arc<AtomicPtr<ffi::sqlite3_backup>>>>,
    /// How many of `backups` there are: while any, every call but the backup's own steps,
    /// `interrupt` and `close` is refused with `SQLITE_BUSY`.
    backup_destination: AtomicUsize,
    /// The open blob handles: SQLite keeps a closed connection alive for a blob handle only
    /// while the handle's statement lives, which a read that met a changed row ends, so
    /// `close` closes these first (their handles then say `SQLBATCH_E_CLOSED`).
    blobs: Handles<ffi::sqlite3_blob>,
    /// The live sessions (`session.rs`), which SQLite requires deleted before the connection
    /// closes: `close` deletes these first (their handles then say `SQLBATCH_E_CLOSED`).
    sessions: Handles<ffi::sqlite3_session>,
    /// The hook dispatcher; SQLite's hooks point at it, so it lives here, with the state
    /// that outlives the handle, and its registrations are released once the handle closed.
    hooks: crate::hooks::Hooks,
    /// The thread that fetches ahead and writes behind (see `worker.rs`), started on first use.
    worker: Worker,
    /// How many times `sqlbatch_conn_interrupt` was called: a batch fetched ahead while it
    /// was called is dropped (see `ahead.rs`).
    interrupt_count: AtomicU64,
    /// Whether statements prepared on the connection fetch ahead (`SQLBATCH_OPEN_FETCH_AHEAD`).
    fetch_ahead: bool,
}

/// Handles of one kind that a connection's close must end first (blobs, sessions): each is
/// shared with its owner's wrapper, which finds NULL in it once the connection ended it.
pub(crate) struct Handles<T>(Mutex<Vec<Arc<AtomicPtr<T>>>>);

impl<T> Default for Handles<T> {
    fn default() -> Self {
        Handles(Mutex::new(Vec::new()))
    }
}

impl<T> Handles<T> {
    /// Records a handle, for `close` to end.
    pub fn adopt(&self, raw: &Arc<AtomicPtr<T>>) {
        lock(&self.0).push(raw.clone());
    }

    /// Forgets a handle that its owner is ending, and takes it (NULL if `close` ended it).
    pub fn release(&self, raw: &Arc<AtomicPtr<T>>) -> *mut T {
        lock(&self.0).retain(|b| !Arc::ptr_eq(b, raw));
        raw.swap(ptr::null_mut(), Ordering::SeqCst)
    }

    /// Takes every live handle (their wrappers then hold NULL).
    fn take_all(&self) -> Vec<*mut T> {
        let all = std::mem::take(&mut *lock(&self.0));
        all.iter().map(|h| h.swap(ptr::null_mut(), Ordering::SeqCst)).filter(|p| !p.is_null()).collect()
    }
}

/// The statements of a connection (see `ConnShared::stmts`) and the fetch buffers of
/// finalized ones.
#[derive(Default)]
struct Statements {
    live: HashSet<usize, BuildHasherDefault<AddressHasher>>,
    spare: Vec<FetchBuffers>,
    /// The allocations of finalized statements' wrappers, for the next prepares (a malloc
    /// and a free less for each statement of a prepare-run-finalize loop).
    slots: Vec<StmtSlot>,
    /// Statements finalized from inside a hook (`sqlbatch_stmt` pointer, SQLite handle), their
    /// handles still in `live` (see `ConnShared::finalize`). One left in the middle of its
    /// rows keeps its place, and any lock it holds, until the connection closes.
    deferred: Vec<(usize, usize)>,
}

/// The allocation of a finalized statement's wrapper, empty.
pub(crate) struct StmtSlot(pub(crate) Box<MaybeUninit<sqlbatch_stmt>>);

// SAFETY: an empty allocation holds no value (no pointer, nothing shared): any thread may
// hold it, fill it or free it.
unsafe impl Send for StmtSlot {}

impl Statements {
    /// How many finalized statements' buffers (and wrapper allocations) are kept.
    const SPARE: usize = 4;
}

/// Hashes a statement's address with one multiplication (SipHash, the default, costs about a
/// hundred instructions per insert or remove, on a path taken by every prepare and finalize).
/// The addresses are the library's own allocations, not input an attacker chooses.
#[derive(Default)]
struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_usize(self.0 as usize ^ b as usize);
        }
    }
    fn write_usize(&mut self, n: usize) {
        // Fibonacci hashing; the fold brings the well-mixed high bits down to the low ones
        // that pick the bucket (heap addresses have their low 4 bits zero).
        let m = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = m ^ (m >> 29);
    }
}

extern "C" {
    // In the bundled SQLite, but not in libsqlite3-sys's generated bindings.
    fn sqlite3_close_v2(db: *mut ffi::sqlite3) -> c_int;
}

impl ConnShared {
    /// The open SQLite handle, or `SQLBATCH_E_CLOSED`, once the connection's worker has
    /// finished its job, if it has one (on the worker itself, at once).
    pub fn db(&self) -> Result<*mut ffi::sqlite3, Error> {
        self.worker.wait();
        let db = self.open_db()?;
        if self.hooks.forbid_use() {
            // SQLite forbids hooks (but the WAL hook) to use their connection, and does not
            // check: a statement run or finalized from an update hook can corrupt the one
            // running, or free it under its own step.
            Err(Error::new(
                ffi::SQLITE_MISUSE,
                "a hook used its own connection, which SQLite forbids (only the WAL hook may)",
            ))
        } else {
            if self.deferred.load(Ordering::Relaxed) && !self.hooks.running() {
                self.finalize_deferred();
            }
            Ok(db)
        }
    }

    /// The SQLite handle if the connection is open and may be used, without waiting for the
    /// worker (for a bulk write queued behind one the worker may be running, whose hooks may
    /// be running too: the check that a hook does not use its connection is `db`'s alone).
    pub fn open_db(&self) -> Result<*mut ffi::sqlite3, Error> {
        let db = self.db.load(Ordering::Acquire);
        if db.is_null() {
            Err(Error::closed())
        } else if self.backup_destination.load(Ordering::Acquire) != 0 {
            // SQLite requires that nothing else touches a backup's destination until the
            // backup is finished (it does not check, and breaks if it happens).
            Err(Error::new(ffi::SQLITE_BUSY, "the connection is the destination of an unfinished backup"))
        } else {
            Ok(db)
        }
    }

    /// Finalizes the statement `stmt` of this connection (and frees it) now, or later if a
    /// hook of the connection runs: a hook may finalize a statement, even the one whose step
    /// called it, which SQLite would free under that step, and the caller of that step still
    /// uses `stmt`. A deferred statement is finalized by the first call on the connection
    /// made outside hooks once it is not in the middle of a run (`sqlite3_stmt_busy`; a
    /// function called by its step may make that call), or by `close`.
    ///
    /// # Safety
    /// `stmt` came from `sqlbatch_stmt_prepare` on this connection, which is open, and is
    /// finalized once; its handle is live.
    pub unsafe fn finalize(&self, stmt: *mut sqlbatch_stmt) {
        // A job may be stepping it.
        self.worker.wait();
        // From a callback of a job on the worker, the statement may be the job's own.
        if self.hooks.running()
            || sqlbatch_stmt::entered(stmt)
            || (Worker::on_worker() && sqlbatch_stmt::flagged(stmt))
        {
            // SAFETY: `stmt` is live (the caller's contract); its SQLite handle is kept beside
            // it, so that deciding later whether it can go reads SQLite's state only, not the
            // wrapper, which a call further up the stack may still be using.
            let raw = unsafe { (*stmt).raw };
            lock(&self.stmts).deferred.push((stmt as usize, raw as usize));
            self.deferred.store(true, Ordering::Relaxed);
            return;
        }
        // SAFETY: the caller's contract.
        unsafe { self.finalize_now(stmt) };
    }

    /// # Safety
    /// As for [`ConnShared::finalize`].
    unsafe fn finalize_now(&self, stmt: *mut sqlbatch_stmt) {
        // SAFETY: the caller's contract: `stmt` is ours to free, its handle live.
        unsafe {
            // The wrapper is dropped in place; its allocation is kept for the next prepare.
            let raw = (*stmt).raw;
            let buffers = (*stmt).fetch.take_buffers();
            ptr::drop_in_place(stmt);
            self.release(raw, buffers, StmtSlot(Box::from_raw(stmt.cast())));
            ffi::sqlite3_finalize(raw);
        }
    }

    /// Finalizes the statements whose finalization a callback deferred, but those in the
    /// middle of a run and those a call is in (further up this thread's stack, or, on the
    /// worker, on the caller's thread, or with a job on the worker).
    #[cold]
    fn finalize_deferred(&self) {
        let on_worker = Worker::on_worker();
        let ready: Vec<(usize, usize)> = {
            let mut stmts = lock(&self.stmts);
            // SAFETY: each handle is a live statement of this connection and each wrapper
            // is live (deferred, not finalized).
            let (busy, ready) =
                std::mem::take(&mut stmts.deferred).into_iter().partition(|&(p, raw)| unsafe {
                    let p = p as *const sqlbatch_stmt;
                    ffi::sqlite3_stmt_busy(raw as *mut ffi::sqlite3_stmt) != 0
                        || if on_worker { sqlbatch_stmt::flagged(p) } else { sqlbatch_stmt::entered(p) }
                });
            stmts.deferred = busy;
            self.deferred.store(!stmts.deferred.is_empty(), Ordering::Relaxed);
            ready
        };
        for (p, _) in ready {
            // SAFETY: deferred by `finalize`, whose contract holds; taken off the list above;
            // not in the middle of a run nor in a call, so no call on it is on any stack.
            unsafe { self.finalize_now(p as *mut sqlbatch_stmt) };
        }
    }

    /// The stride for direct reads of result values on this connection, 0 for none.
    #[inline]
    pub fn direct_read_stride(&self) -> usize {
        if self.direct_reads {
            crate::mem::stride()
        } else {
            0
        }
    }

    /// A script or bulk write starts: an interrupt that came before it does not apply.
    pub fn start_call(&self) {
        self.interrupt.store(false, Ordering::Relaxed);
    }

    /// Whether `sqlbatch_conn_interrupt` was called since the current call started.
    #[inline]
    pub fn interrupt_requested(&self) -> bool {
        self.interrupt.load(Ordering::Relaxed)
    }

    pub fn is_open(&self) -> bool {
        !self.db.load(Ordering::Acquire).is_null()
    }

    /// Records a statement handle that `close` must finalize, and hands out the fetch
    /// buffers a finalized statement left, if any (so that a statement prepared, run once and
    /// finalized, as an ORM without a statement cache does, allocates nothing to fetch).
    pub fn adopt(&self, raw: *mut ffi::sqlite3_stmt) -> (FetchBuffers, Option<StmtSlot>) {
        let mut stmts = lock(&self.stmts);
        stmts.live.insert(raw as usize);
        (stmts.spare.pop().unwrap_or_default(), stmts.slots.pop())
    }

    /// Forgets a statement handle that its owner is about to finalize, and keeps its fetch
    /// buffers for the next statement if they are small (at most `Statements::SPARE` sets),
    /// and the allocation of its wrapper.
    fn release(&self, raw: *mut ffi::sqlite3_stmt, buffers: FetchBuffers, slot: StmtSlot) {
        let mut stmts = lock(&self.stmts);
        stmts.live.remove(&(raw as usize));
        if stmts.spare.len() < Statements::SPARE && buffers.small() {
            stmts.spare.push(buffers);
        }
        if stmts.slots.len() < Statements::SPARE {
            stmts.slots.push(slot);
        }
    }

    /// Records a backup this connection is the destination of, for `close` to finish.
    pub fn adopt_backup(&self, raw: &Arc<AtomicPtr<ffi::sqlite3_backup>>) {
        let mut backups = lock(&self.backups);
        backups.push(raw.clone());
        self.backup_destination.store(backups.len(), Ordering::Release);
    }

    /// Forgets a backup that its owner is finishing.
    pub fn release_backup(&self, raw: &Arc<AtomicPtr<ffi::sqlite3_backup>>) {
        let mut backups = lock(&self.backups);
        backups.retain(|b| !Arc::ptr_eq(b, raw));
        self.backup_destination.store(backups.len(), Ordering::Release);
    }

    /// The hook dispatcher.
    pub(crate) fn hooks(&self) -> &crate::hooks::Hooks {
        &self.hooks
    }

    /// The thread that fetches ahead and writes behind.
    pub(crate) fn worker(&self) -> &Worker {
        &self.worker
    }

    /// How many interrupts the connection has seen.
    pub fn interrupts_seen(&self) -> u64 {
        self.interrupt_count.load(Ordering::SeqCst)
    }

    /// Whether statements prepared on the connection fetch ahead.
    pub fn fetch_ahead(&self) -> bool {
        self.fetch_ahead
    }

    /// The open blob handles, for `close` to close.
    pub fn blobs(&self) -> &Handles<ffi::sqlite3_blob> {
        &self.blobs
    }

    /// The live sessions, for `close` to delete.
    pub fn sessions(&self) -> &Handles<ffi::sqlite3_session> {
        &self.sessions
    }

    /// Whether `close` must not run now, as it is called from a callback of this connection
    /// (an SQL function or a hook, on this thread or on the worker): the step that called
    /// the callback would go on with its statement finalized and its connection freed.
    /// Records why on the connection.
    fn close_refused(&self) -> bool {
        let refused = crate::hooks::InCallback::of(&self.hooks) || {
            // On the caller's thread, once the worker is idle, a hook running is one of this
            // thread's; on the worker, one of the job's.
            self.worker.wait();
            self.hooks.running()
        };
        if refused {
            self.record(&Error::new(
                ffi::SQLITE_MISUSE,
                "sqlbatch_conn_close was called from a callback of the connection, and did nothing: \
                 close it after the call that ran the callback returns",
            ));
        }
        refused
    }

    /// Finalizes every statement prepared through sqlbatch and closes the connection. Idempotent.
    fn close(&self) {
        // The worker's job uses the handle; the thread itself goes too.
        self.worker.stop();
        let db = self.db.swap(ptr::null_mut(), Ordering::SeqCst);
        if db.is_null() {
            return;
        }
        // An interrupt that loaded `db` before the swap is finishing its sqlite3_interrupt.
        while self.interrupts.load(Ordering::SeqCst) != 0 {
            std::thread::yield_now();
        }
        // SAFETY: `db` is open and no longer reachable through `self.db`; statements check
        // `is_open` before touching their handles, so finalizing them here is their end.
        // (Not every statement `sqlite3_next_stmt` lists: those of virtual table modules are
        // theirs to finalize, which they do as the connection closes.)
        unsafe {
            self.backup_destination.store(0, Ordering::Release);
            for b in std::mem::take(&mut *lock(&self.backups)) {
                let raw = b.swap(ptr::null_mut(), Ordering::SeqCst);
                if !raw.is_null() {
                    ffi::sqlite3_backup_finish(raw);
                }
            }
            for b in self.blobs.take_all() {
                ffi::sqlite3_blob_close(b);
            }
            for s in self.sessions.take_all() {
                ffi::sqlite3session_delete(s);
            }
            let (live, deferred) = {
                let mut stmts = lock(&self.stmts);
                (std::mem::take(&mut stmts.live), std::mem::take(&mut stmts.deferred))
            };
            for raw in live {
                ffi::sqlite3_finalize(raw as *mut ffi::sqlite3_stmt);
            }
            // Statements a hook finalized: their handles went with `live`, their wrappers now.
            for (p, _) in deferred {
                drop(Box::from_raw(p as *mut sqlbatch_stmt));
            }
            sqlite3_close_v2(db);
        }
        // After the handle, so that no hook can run with released user data.
        self.hooks.clear();
    }
}

impl ErrorSink for ConnShared {
    /// Stores `e` as the connection's last error.
    fn record(&self, e: &Error) {
        lock(&self.last_error).set(e);
    }
}

impl Drop for ConnShared {
    fn drop(&mut self) {
        self.close();
    }
}

/// sqlbatch_conn_open opens a database connection.
///
/// `path` is a file name (UTF-8, `path_len` bytes, no NUL inside; it need not be
/// NUL-terminated), ":memory:" for a private in-memory database, "" for a private temporary
/// file, or a `file:` URI when `SQLBATCH_OPEN_URI` is set. `flags` is a bitwise OR of
/// `SQLBATCH_OPEN_*` (they have SQLite's values, but `SQLBATCH_OPEN_FETCH_AHEAD`, which is
/// sqlbatch's own); with neither READONLY nor READWRITE set, READWRITE|CREATE is used. See
/// <https://sqlite.org/c3ref/open.html>.
///
/// The connection reports extended result codes, and is opened without SQLite's per-call
/// mutex unless `SQLBATCH_OPEN_FULLMUTEX` is given (see "Thread model" above).
/// Loading extensions from shared libraries is off until `sqlbatch_conn_enable_load_extension`.
///
/// Ownership: like `sqlite3_open_v2`, `*out_conn` is set whenever a handle could be allocated,
/// **even when opening fails**, so that `sqlbatch_conn_last_error` can say why; the caller
/// owns it and must release it with `sqlbatch_conn_close` in every case. It is set to NULL only
/// when no handle exists (NULL parameters, bad flags, out of memory).
/// NULL: `out_conn` NULL, or `path` NULL with `path_len > 0`, gives `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_INVALID_UTF8` or `SQLBATCH_E_INVALID_ARGUMENT` for a bad
/// path or flags; otherwise SQLite's error, e.g. `SQLITE_CANTOPEN`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_open(
    path: *const c_char,
    path_len: usize,
    flags: u32,
    out_conn: *mut *mut sqlbatch_conn,
) -> i32 {
    if out_conn.is_null() {
        return SQLBATCH_E_NULL_PARAMETER;
    }
    // SAFETY: `out_conn` is valid for writes (the caller's contract).
    unsafe { out_conn.write(ptr::null_mut()) };
    boundary(None, || {
        // SAFETY: the caller vouches for `path`.
        let bytes = unsafe { try_bytes(path, path_len, "path")? };
        crate::error::check_utf8(bytes, "path")?;
        let cpath = CString::new(bytes)
            .map_err(|_| Error::new(SQLBATCH_E_INVALID_ARGUMENT, "path contains a NUL byte"))?;
        if flags & !OPEN_FLAGS_ALLOWED != 0 {
            return Err(Error::new(
                SQLBATCH_E_INVALID_ARGUMENT,
                format!("unknown open flags {:#x}", flags & !OPEN_FLAGS_ALLOWED),
            ));
        }
        let mut f = (flags & !SQLBATCH_OPEN_FETCH_AHEAD) as c_int;
        if flags & (SQLBATCH_OPEN_READONLY | SQLBATCH_OPEN_READWRITE) == 0 {
            f |= ffi::SQLITE_OPEN_READWRITE | ffi::SQLITE_OPEN_CREATE;
        }
        if flags & SQLBATCH_OPEN_FULLMUTEX == 0 {
            f |= ffi::SQLITE_OPEN_NOMUTEX;
        }
        f |= ffi::SQLITE_OPEN_EXRESCODE;
        let mut db = ptr::null_mut();
        // SAFETY: `cpath` is NUL-terminated; `db` receives the handle.
        let rc = unsafe { ffi::sqlite3_open_v2(cpath.as_ptr(), &mut db, f, ptr::null()) };
        if db.is_null() {
            return Err(Error::new(ffi::SQLITE_NOMEM, "out of memory"));
        }
        let shared = Arc::new(ConnShared {
            db: AtomicPtr::new(db),
            interrupts: AtomicUsize::new(0),
            last_error: Mutex::new(LastError::default()),
            direct_reads: flags & SQLBATCH_OPEN_FULLMUTEX == 0,
            interrupt: AtomicBool::new(false),
            stmts: Mutex::new(Statements::default()),
            deferred: AtomicBool::new(false),
            backups: Mutex::new(Vec::new()),
            backup_destination: AtomicUsize::new(0),
            blobs: Handles::default(),
            sessions: Handles::default(),
            hooks: Default::default(),
            worker: Worker::default(),
            interrupt_count: AtomicU64::new(0),
            fetch_ahead: flags & SQLBATCH_OPEN_FETCH_AHEAD != 0,
        });
        if rc == ffi::SQLITE_OK {
            // The bundled SQLite turns C-API extension loading on for every connection
            // (SQLITE_ENABLE_LOAD_EXTENSION); off until sqlbatch_conn_enable_load_extension.
            // SAFETY: `db` is open.
            unsafe {
                ffi::sqlite3_db_config(
                    db,
                    ffi::SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION,
                    0 as c_int,
                    ptr::null_mut::<c_int>(),
                )
            };
        }
        let result = if rc == ffi::SQLITE_OK {
            Ok(SQLBATCH_OK)
        } else {
            // SAFETY: `db` is a handle, if a failed one: its error can be read.
            let e = unsafe { Error::from_db(db, rc) };
            shared.record(&e);
            Err(e)
        };
        // SAFETY: as above.
        unsafe { out_conn.write(Box::into_raw(Box::new(sqlbatch_conn { shared }))) };
        result
    })
}

/// sqlbatch_conn_close finalizes every statement still open on `conn`, closes the connection
/// and frees the handle.
///
/// Statement handles of the connection stay allocated: every later call on them returns
/// `SQLBATCH_E_CLOSED`, and each must still be released with `sqlbatch_stmt_finalize`, before
/// or after this call (the order does not matter, which suits garbage-collected callers).
/// Closing cannot fail: SQLite's `sqlite3_close_v2` defers what it cannot free yet (an
/// unfinished backup, say) until it can. Calling with NULL is a harmless no-op. Must not be
/// called twice with the same handle, and must not run while another thread uses `conn`,
/// except `sqlbatch_conn_interrupt`. Called from a callback of `conn` (an SQL function,
/// aggregate or collation, or a hook, whose step would go on without its statement), it does
/// nothing and records `SQLITE_MISUSE` as the connection's last error: the handle stays open.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_close(conn: *mut sqlbatch_conn) {
    if conn.is_null() {
        return;
    }
    crate::panic::boundary_value((), || {
        // SAFETY: `conn` came from sqlbatch_conn_open and is live (the caller's contract).
        if unsafe { (*conn).shared.close_refused() } {
            return;
        }
        // SAFETY: as above, and it is freed once (the caller's contract).
        let conn = unsafe { Box::from_raw(conn) };
        conn.shared.close();
    })
}

/// sqlbatch_conn_interrupt makes the SQL running on `conn` stop as soon as possible with
/// `SQLITE_INTERRUPT` (a fetch, a script or a bulk write), as `sqlite3_interrupt` does. A script
/// or bulk write also notices an interrupt that arrives between two of its statements or rows,
/// which SQLite alone would forget (no statement runs at that moment).
///
/// This is the one function that may be called from any thread while another thread is
/// using `conn` (Go's context cancellation, Haskell's asynchronous exceptions). It takes no
/// lock and allocates nothing (atomic operations and `sqlite3_interrupt` only), so it is also
/// safe to call from a signal handler. Calls that start after the interrupted ones have
/// finished are not affected. A no-op on a closed connection; `conn` itself must not be freed
/// (by `sqlbatch_conn_close`) concurrently, which is the caller's to order.
/// NULL: a no-op.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_interrupt(conn: *const sqlbatch_conn) {
    // SAFETY: a non-NULL `conn` is a live connection handle (the caller's contract).
    let Some(conn) = (unsafe { conn.as_ref() }) else { return };
    crate::panic::boundary_value((), || {
        let shared = &conn.shared;
        shared.interrupts.fetch_add(1, Ordering::SeqCst);
        let db = shared.db.load(Ordering::SeqCst);
        if !db.is_null() {
            shared.interrupt_count.fetch_add(1, Ordering::SeqCst);
            shared.interrupt.store(true, Ordering::Relaxed);
            // SAFETY: `close` waits for `interrupts` to drop to 0 before it closes `db`.
            unsafe { ffi::sqlite3_interrupt(db) };
        }
        shared.interrupts.fetch_sub(1, Ordering::SeqCst);
    })
}

/// sqlbatch_conn_busy_timeout makes SQLite retry for up to `ms` milliseconds when a table is
/// locked by another connection, instead of failing at once with `SQLITE_BUSY`; `ms <= 0`
/// turns retrying off. See <https://sqlite.org/c3ref/busy_timeout.html>.
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_busy_timeout(conn: *mut sqlbatch_conn, ms: i32) -> i32 {
    // SAFETY: `conn` is NULL or live (the caller's contract); `db` is open and used by this
    // thread only.
    unsafe {
        with_db(conn, |db| {
            let rc = ffi::sqlite3_busy_timeout(db, ms);
            if rc == ffi::SQLITE_OK {
                Ok(())
            } else {
                Err(Error::from_db(db, rc))
            }
        })
    }
}

/// Runs `f` on the open database of `conn`, recording errors on it.
///
/// # Safety
/// `conn` must be NULL or a live connection handle.
unsafe fn with_db(conn: *const sqlbatch_conn, f: impl FnOnce(*mut ffi::sqlite3) -> Result<(), Error>) -> i32 {
    ffi_boundary!(conn: conn => |c| {
        f(c.shared.db()?)?;
        Ok(SQLBATCH_OK)
    })
}

/// Reads one counter of an open connection into `out` with `read`, a SQLite getter.
///
/// # Safety
/// `conn` as for [`with_db`]; a non-NULL `out` must be valid for writes.
unsafe fn getter<T, R>(
    conn: *const sqlbatch_conn,
    out: *mut T,
    read: unsafe extern "C" fn(*mut ffi::sqlite3) -> R,
    convert: impl FnOnce(R) -> T,
) -> i32 {
    // SAFETY: as for this function.
    unsafe {
        with_db(conn, |db| {
            let out = try_mut(out, "out")?;
            // SAFETY: `db` is open and used by this thread only.
            *out = convert(read(db));
            Ok(())
        })
    }
}

/// sqlbatch_conn_changes writes to `*out` the number of rows inserted, updated or deleted by
/// the most recent INSERT, UPDATE or DELETE on `conn` (`sqlite3_changes64`).
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_changes(conn: *const sqlbatch_conn, out: *mut i64) -> i32 {
    // SAFETY: the caller's contract is `getter`'s.
    unsafe { getter(conn, out, ffi::sqlite3_changes64, |n| n) }
}

/// sqlbatch_conn_total_changes writes to `*out` the number of rows inserted, updated or
/// deleted since `conn` was opened (`sqlite3_total_changes64`).
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_total_changes(conn: *const sqlbatch_conn, out: *mut i64) -> i32 {
    // SAFETY: as above.
    unsafe { getter(conn, out, ffi::sqlite3_total_changes64, |n| n) }
}

/// sqlbatch_conn_last_insert_rowid writes to `*out` the rowid of the most recent successful
/// INSERT into a rowid table on `conn` (`sqlite3_last_insert_rowid`), 0 if there was none.
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_last_insert_rowid(conn: *const sqlbatch_conn, out: *mut i64) -> i32 {
    // SAFETY: as above.
    unsafe { getter(conn, out, ffi::sqlite3_last_insert_rowid, |n| n) }
}

/// sqlbatch_conn_autocommit writes to `*out` whether `conn` is in autocommit mode, i.e. not
/// inside a transaction opened by BEGIN (`sqlite3_get_autocommit`).
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_autocommit(conn: *const sqlbatch_conn, out: *mut bool) -> i32 {
    // SAFETY: as above.
    unsafe { getter(conn, out, ffi::sqlite3_get_autocommit, |a| a != 0) }
}

/// sqlbatch_conn_last_error writes the details of the most recent failing call on `conn`,
/// or on one of its statements, to `*out_error`.
///
/// Successful calls do not clear it, and reading it changes nothing, so it can be read at any
/// time after a call returned an error. If nothing has failed yet, `code` is `SQLBATCH_OK`.
/// Errors of calls that had no connection to report to (NULL handles) are not recorded.
/// Lifetime: `out_error->message` is borrowed from `conn`; it stays valid until the next
/// failing call on `conn` or its statements, or until `conn` is closed.
/// @return `SQLBATCH_OK` or `SQLBATCH_E_NULL_PARAMETER`. Works on a handle whose open failed.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_last_error(
    conn: *const sqlbatch_conn,
    out_error: *mut sqlbatch_error,
) -> i32 {
    // SAFETY: a non-NULL `conn` is a live connection handle.
    let (Some(conn), false) = (unsafe { conn.as_ref() }, out_error.is_null()) else {
        return SQLBATCH_E_NULL_PARAMETER;
    };
    boundary(None, || {
        // SAFETY: `out_error` is valid for writes (the caller's contract).
        unsafe { out_error.write(lock(&conn.shared.last_error).view()) };
        Ok(SQLBATCH_OK)
    })
}
