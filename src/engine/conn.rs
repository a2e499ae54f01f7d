//! The connection handle (`sqlbatch_conn`) and what a connection shares with its statements
//! (`ConnShared`): the SQLite handle and its last error; the statements, blobs, backups and
//! sessions its close must end first; its hooks and its worker; opening, interrupting and
//! closing it.

use std::alloc::Layout;
use std::ffi::{c_int, CString};
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::engine::cipher::{self, sqlbatch_cipher};
use crate::engine::run;
use crate::engine::state::FetchBuffers;
use crate::engine::worker::Worker;
use crate::error::{sqlbatch_error, Error, ErrorSink, LastError};
use crate::panic::lock;

/// Open flag: open read-only (SQLite's `SQLITE_OPEN_READONLY`).
pub const SQLBATCH_OPEN_READONLY: u32 = 0x0000_0001;
/// Open flag: open for reading and writing (`SQLITE_OPEN_READWRITE`).
pub const SQLBATCH_OPEN_READWRITE: u32 = 0x0000_0002;
/// Open flag: create the database if it does not exist (`SQLITE_OPEN_CREATE`); needs READWRITE.
pub const SQLBATCH_OPEN_CREATE: u32 = 0x0000_0004;
/// Open flag: interpret the path as a `file:` URI (`SQLITE_OPEN_URI`).
pub const SQLBATCH_OPEN_URI: u32 = 0x0000_0040;
/// Open flag: a private in-memory database (`SQLITE_OPEN_MEMORY`).
pub const SQLBATCH_OPEN_MEMORY: u32 = 0x0000_0080;
/// Open flag: keep SQLite's per-connection mutex (`SQLITE_OPEN_FULLMUTEX`). Without it the
/// connection is opened with `SQLITE_OPEN_NOMUTEX` (see "Thread model").
pub const SQLBATCH_OPEN_FULLMUTEX: u32 = 0x0001_0000;
/// Open flag: enable shared-cache mode for this connection (`SQLITE_OPEN_SHAREDCACHE`).
pub const SQLBATCH_OPEN_SHAREDCACHE: u32 = 0x0002_0000;
/// Open flag: disable shared-cache mode for this connection (`SQLITE_OPEN_PRIVATECACHE`).
pub const SQLBATCH_OPEN_PRIVATECACHE: u32 = 0x0004_0000;
/// Open flag: refuse to open a path that is a symbolic link (`SQLITE_OPEN_NOFOLLOW`).
pub const SQLBATCH_OPEN_NOFOLLOW: u32 = 0x0100_0000;
/// Open flag, sqlbatch's own: every statement prepared on the connection fetches ahead (see
/// `sqlbatch_stmt_set_fetch_ahead`, which turns it off or on per statement).
pub const SQLBATCH_OPEN_FETCH_AHEAD: u32 = 0x4000_0000;
/// Open flag, sqlbatch's own: the file may come from anyone (a download, a user's document):
/// the open applies SQLite's defenses for untrusted databases
/// (<https://sqlite.org/security.html>) and checks the file first. It turns on
/// `SQLITE_DBCONFIG_DEFENSIVE` (no writes to the schema table, no `PRAGMA writable_schema`,
/// no journal or WAL tricks), turns off `SQLITE_DBCONFIG_TRUSTED_SCHEMA` (the schema's views
/// and triggers cannot call functions with side effects or virtual tables not marked
/// innocuous), sets `PRAGMA cell_size_check=ON` (pages are checked as they are read: a little
/// slower) and `PRAGMA mmap_size=0` (no memory-mapped reads, whose faults SQLite cannot
/// catch), and runs `PRAGMA quick_check`, which reads the whole file once: the open fails
/// with `SQLITE_CORRUPT` (and the check's first finding as its message) or `SQLITE_NOTADB`
/// when the file is not sound. A connection opened so stays as wary for its life.
pub const SQLBATCH_OPEN_UNTRUSTED: u32 = 0x2000_0000;

/// The flags `sqlbatch_conn_open` accepts.
pub(crate) const OPEN_FLAGS_ALLOWED: u32 = SQLBATCH_OPEN_READONLY
    | SQLBATCH_OPEN_READWRITE
    | SQLBATCH_OPEN_CREATE
    | SQLBATCH_OPEN_URI
    | SQLBATCH_OPEN_MEMORY
    | SQLBATCH_OPEN_FULLMUTEX
    | SQLBATCH_OPEN_SHAREDCACHE
    | SQLBATCH_OPEN_PRIVATECACHE
    | SQLBATCH_OPEN_NOFOLLOW
    | SQLBATCH_OPEN_FETCH_AHEAD
    | SQLBATCH_OPEN_UNTRUSTED;

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
    hooks: crate::engine::hooks::Hooks,
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
    live: Live,
    /// What finalized statements left for the next prepares: the allocations of their
    /// wrappers (a malloc and a free less for each statement of a prepare-run-finalize loop),
    /// each with the statement's fetch buffers if they were small.
    spare: Vec<(StmtSlot, FetchBuffers)>,
    /// Statements finalized from inside a hook, their handles still in `live` (see
    /// `ConnShared::finalize`). One left in the middle of its rows keeps its place, and any
    /// lock it holds, until the connection closes.
    deferred: Vec<StmtRef>,
}

/// A statement handle (`sqlbatch_stmt`) as its connection sees it: enough to finalize and
/// free it, or to put that off, without knowing its type (the statement module, above this
/// one, supplies `ops`).
#[derive(Clone, Copy)]
pub(crate) struct StmtRef {
    /// The handle, a live allocation of the library's.
    pub wrapper: usize,
    /// Its SQLite statement.
    pub raw: usize,
    /// Its entry in the connection's list of live statements (see [`ConnShared::adopt`]).
    pub entry: usize,
    pub ops: &'static StmtOps,
}

/// What a connection asks of a statement handle (see [`StmtRef`]).
pub(crate) struct StmtOps {
    /// Whether a call is in the handle, or, asked on the worker, the worker had a job on it
    /// when its last call left: finalizing it is then put off. Reads its flags without
    /// making a reference to it.
    pub in_call: unsafe fn(wrapper: usize, on_worker: bool) -> bool,
    /// Drops the handle in place, and hands back its fetch buffers and its allocation.
    pub dismantle: unsafe fn(wrapper: usize) -> (FetchBuffers, StmtSlot),
    /// Drops and frees the handle (its SQLite statement is finalized already).
    pub free: unsafe fn(wrapper: usize),
}

/// The allocation of a finalized statement handle, empty, kept for the next prepare.
pub(crate) struct StmtSlot {
    ptr: NonNull<u8>,
    layout: Layout,
}

// SAFETY: an empty allocation holds no value (no pointer, nothing shared): any thread may
// hold it, fill it or free it.
unsafe impl Send for StmtSlot {}

impl StmtSlot {
    /// # Safety
    /// `ptr` is an allocation of the global allocator with `layout`, holding no value, that
    /// the slot now owns.
    pub unsafe fn from_raw(ptr: NonNull<u8>, layout: Layout) -> Self {
        StmtSlot { ptr, layout }
    }

    /// The allocation, if it has `layout`; the caller then owns it.
    pub fn into_raw(self, layout: Layout) -> Option<NonNull<u8>> {
        let slot = std::mem::ManuallyDrop::new(self);
        if slot.layout == layout {
            Some(slot.ptr)
        } else {
            drop(std::mem::ManuallyDrop::into_inner(slot));
            None
        }
    }
}

impl Drop for StmtSlot {
    fn drop(&mut self) {
        // SAFETY: the slot owns the allocation, made with `layout` (see `from_raw`).
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

impl Statements {
    /// How many finalized statements' wrapper allocations (and buffers) are kept.
    const SPARE: usize = 4;
}

/// The SQLite handles of a connection's live statements: a slab, each statement holding the
/// index of its entry, so that recording and forgetting one is a few loads and stores (a hash
/// set of the addresses cost about 40 instructions for each, on a path taken by every prepare
/// and finalize). An entry holds a handle (its address, whose low bit is 0), or, once free,
/// the link to the next free entry: `(next + 1) << 1 | 1`, `next + 1` being 0 at the end of
/// the list. The slab grows to the most statements live at once, and is reused from then on.
#[derive(Default)]
struct Live {
    entries: Vec<usize>,
    /// The first free entry plus 1; 0 when none is free.
    free: usize,
}

impl Live {
    /// Records the handle `raw` (not NULL); returns its entry.
    fn insert(&mut self, raw: usize) -> usize {
        debug_assert!(raw != 0 && raw & 1 == 0);
        match self.free.checked_sub(1).and_then(|i| Some((i, self.entries.get_mut(i)?))) {
            Some((i, e)) => {
                self.free = *e >> 1;
                *e = raw;
                i
            }
            None => {
                self.entries.push(raw);
                self.entries.len() - 1
            }
        }
    }

    /// Forgets the handle `raw` of entry `i` (nothing if the entry holds another).
    fn remove(&mut self, i: usize, raw: usize) {
        if let Some(e) = self.entries.get_mut(i).filter(|e| **e == raw) {
            *e = self.free << 1 | 1;
            self.free = i + 1;
        }
    }

    /// Takes every live handle.
    fn take_all(&mut self) -> impl Iterator<Item = usize> {
        self.free = 0;
        std::mem::take(&mut self.entries).into_iter().filter(|e| e & 1 == 0)
    }
}

extern "C" {
    // In the bundled SQLite, but not in libsqlite3-sys's generated bindings.
    fn sqlite3_close_v2(db: *mut ffi::sqlite3) -> c_int;
}

/// What every new connection gets before it is handed out: the `sqlbatch_rows` module,
/// extension loading off, and with `SQLBATCH_OPEN_UNTRUSTED` the defenses and the check of
/// the file.
///
/// # Safety
/// `db` is open and used by this thread only.
unsafe fn set_up(db: *mut ffi::sqlite3, flags: u32) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    unsafe {
        let rc = crate::engine::rows::register(db);
        if rc != ffi::SQLITE_OK {
            return Err(Error::from_db(db, rc));
        }
        // The bundled SQLite turns C-API extension loading on for every connection
        // (SQLITE_ENABLE_LOAD_EXTENSION); off until sqlbatch_conn_enable_load_extension.
        let off = |op: c_int, on: c_int| ffi::sqlite3_db_config(db, op, on, ptr::null_mut::<c_int>());
        off(ffi::SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0);
        if flags & SQLBATCH_OPEN_UNTRUSTED == 0 {
            return Ok(());
        }
        for (op, on) in [(ffi::SQLITE_DBCONFIG_DEFENSIVE, 1), (ffi::SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0)] {
            let rc = off(op, on);
            if rc != ffi::SQLITE_OK {
                return Err(Error::from_db(db, rc));
            }
        }
        run::exec(db, c"PRAGMA cell_size_check=ON; PRAGMA mmap_size=0")?;
        quick_check(db)
    }
}

/// `PRAGMA quick_check` of every database of `db`: `SQLITE_CORRUPT` with its first finding
/// unless it says "ok" (or SQLite's error, `SQLITE_NOTADB` for a file that is no database).
///
/// # Safety
/// `db` is open and used by this thread only.
unsafe fn quick_check(db: *mut ffi::sqlite3) -> Result<(), Error> {
    // SAFETY: the caller's contract; the text is copied while the statement is on its row.
    let finding = unsafe {
        run::first_row(db, c"PRAGMA quick_check(1)", |stmt| {
            run::text0(stmt).map(|f| f.to_string_lossy().into_owned())
        })
    }?;
    // A page the check could not read for lack of memory is reported as a finding
    // ("unable to get the page. error code=7"), not as the pragma's error: that, or no
    // text at all, is out of memory, not a damaged file.
    let nomem = || Error::new(ffi::SQLITE_NOMEM, "out of memory checking the database file");
    match finding {
        Some(Some(f)) if f == "ok" => Ok(()),
        Some(Some(f)) if f.contains("error code=7") || f.contains("error code=3082") => Err(nomem()),
        Some(Some(f)) => {
            Err(Error::new(ffi::SQLITE_CORRUPT, format!("the database failed PRAGMA quick_check: {f}")))
        }
        Some(None) => Err(nomem()),
        None => Err(Error::new(ffi::SQLITE_ERROR, "PRAGMA quick_check gave no answer")),
    }
}

impl ConnShared {
    /// The shared state of a connection to `db` (SQLite's handle; null for one never opened)
    /// opened with `flags`.
    fn new(db: *mut ffi::sqlite3, flags: u32) -> Arc<ConnShared> {
        Arc::new(ConnShared {
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
        })
    }

    /// Opens a connection to `path` (UTF-8, no NUL inside) with `flags` (`SQLBATCH_OPEN_*`,
    /// see `sqlbatch_conn_open`). Like `sqlite3_open_v2`, SQLite's failure to open still
    /// gives a connection (its handle says why; the error is recorded on it too), beside the
    /// error, and so does a key or cipher settings refused before anything is opened (a
    /// connection that was never open, holding the error); `Err` only when there is none (bad
    /// path or flags, out of memory).
    pub(crate) fn open(
        bytes: &[u8],
        flags: u32,
        key: Option<(&[u8], Option<&sqlbatch_cipher>)>,
    ) -> Result<(Arc<ConnShared>, Result<(), Error>), Error> {
        crate::error::check_utf8(bytes, "path")?;
        let cpath = CString::new(bytes)
            .map_err(|_| Error::new(SQLBATCH_E_INVALID_ARGUMENT, "path contains a NUL byte"))?;
        if flags & !OPEN_FLAGS_ALLOWED != 0 {
            return Err(Error::new(
                SQLBATCH_E_INVALID_ARGUMENT,
                format!("unknown open flags {:#x}", flags & !OPEN_FLAGS_ALLOWED),
            ));
        }
        let mut f = (flags & !(SQLBATCH_OPEN_FETCH_AHEAD | SQLBATCH_OPEN_UNTRUSTED)) as c_int;
        if flags & (SQLBATCH_OPEN_READONLY | SQLBATCH_OPEN_READWRITE) == 0 {
            f |= ffi::SQLITE_OPEN_READWRITE | ffi::SQLITE_OPEN_CREATE;
        }
        if flags & SQLBATCH_OPEN_FULLMUTEX == 0 {
            f |= ffi::SQLITE_OPEN_NOMUTEX;
        }
        f |= ffi::SQLITE_OPEN_EXRESCODE;
        if let Some(Err(e)) = key.map(|(key, settings)| cipher::check(key, settings)) {
            // Refused before SQLite opens (or creates) the file: a handle for the message.
            let shared = ConnShared::new(ptr::null_mut(), flags);
            shared.record(&e);
            return Ok((shared, Err(e)));
        }
        let mut db = ptr::null_mut();
        // SAFETY: `cpath` is NUL-terminated; `db` receives the handle.
        let rc = unsafe { ffi::sqlite3_open_v2(cpath.as_ptr(), &mut db, f, ptr::null()) };
        if db.is_null() {
            return Err(Error::new(ffi::SQLITE_NOMEM, "out of memory"));
        }
        let shared = ConnShared::new(db, flags);
        let opened = if rc == ffi::SQLITE_OK {
            // SAFETY: `db` is open and used by this thread only.
            unsafe {
                cipher::quiet_log(db);
                match key {
                    None => set_up(db, flags),
                    // The key before anything reads the file (the untrusted check does).
                    Some((key, cipher)) => cipher::apply(db, c"main", key, cipher)
                        .and_then(|()| set_up(db, flags).map_err(|e| cipher::explain(e, c"main")))
                        .and_then(|()| cipher::verify(db, c"main")),
                }
            }
        } else {
            // SAFETY: `db` is a handle, if a failed one: its error can be read.
            Err(unsafe { Error::from_db(db, rc) })
        };
        if let Err(e) = &opened {
            shared.record(e);
        }
        Ok((shared, opened))
    }

    /// Makes the SQL running on the connection stop as soon as possible (see
    /// `sqlbatch_conn_interrupt`): from any thread, without a lock or an allocation.
    pub(crate) fn interrupt(&self) {
        self.interrupts.fetch_add(1, Ordering::SeqCst);
        let db = self.db.load(Ordering::SeqCst);
        if !db.is_null() {
            self.interrupt_count.fetch_add(1, Ordering::SeqCst);
            self.interrupt.store(true, Ordering::Relaxed);
            // SAFETY: `close` waits for `interrupts` to drop to 0 before it closes `db`.
            unsafe { ffi::sqlite3_interrupt(db) };
        }
        self.interrupts.fetch_sub(1, Ordering::SeqCst);
    }

    /// The details of the most recent failing call, borrowed from the connection until the
    /// next failure (see `sqlbatch_conn_last_error`).
    pub(crate) fn last_error(&self) -> sqlbatch_error {
        lock(&self.last_error).view()
    }

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
    pub unsafe fn finalize(&self, stmt: StmtRef) {
        // A job may be stepping it.
        self.worker.wait();
        // From a callback of a job on the worker, the statement may be the job's own.
        // SAFETY: `stmt` is live (the caller's contract).
        if self.hooks.running() || unsafe { (stmt.ops.in_call)(stmt.wrapper, Worker::on_worker()) } {
            // Its SQLite handle is kept beside it, so that deciding later whether it can go
            // reads SQLite's state only, not the wrapper, which a call further up the stack
            // may still be using.
            lock(&self.stmts).deferred.push(stmt);
            self.deferred.store(true, Ordering::Relaxed);
            return;
        }
        // SAFETY: the caller's contract.
        unsafe { self.finalize_now(stmt) };
    }

    /// # Safety
    /// As for [`ConnShared::finalize`].
    unsafe fn finalize_now(&self, stmt: StmtRef) {
        // SAFETY: the caller's contract: `stmt` is ours to free, its handle live.
        unsafe {
            // The wrapper is dropped in place; its allocation is kept for the next prepare.
            let (buffers, slot) = (stmt.ops.dismantle)(stmt.wrapper);
            let raw = stmt.raw as *mut ffi::sqlite3_stmt;
            self.release(stmt.entry, raw, buffers, slot);
            ffi::sqlite3_finalize(raw);
        }
    }

    /// Finalizes the statements whose finalization a callback deferred, but those in the
    /// middle of a run and those a call is in (further up this thread's stack, or, on the
    /// worker, on the caller's thread, or with a job on the worker).
    #[cold]
    fn finalize_deferred(&self) {
        let on_worker = Worker::on_worker();
        let ready: Vec<StmtRef> = {
            let mut stmts = lock(&self.stmts);
            // SAFETY: each handle is a live statement of this connection and each wrapper
            // is live (deferred, not finalized).
            let (busy, ready) = std::mem::take(&mut stmts.deferred).into_iter().partition(|s| unsafe {
                ffi::sqlite3_stmt_busy(s.raw as *mut ffi::sqlite3_stmt) != 0
                    || (s.ops.in_call)(s.wrapper, on_worker)
            });
            stmts.deferred = busy;
            self.deferred.store(!stmts.deferred.is_empty(), Ordering::Relaxed);
            ready
        };
        for s in ready {
            // SAFETY: deferred by `finalize`, whose contract holds; taken off the list above;
            // not in the middle of a run nor in a call, so no call on it is on any stack.
            unsafe { self.finalize_now(s) };
        }
    }

    /// The stride for direct reads of result values on this connection, 0 for none.
    #[inline]
    pub fn direct_read_stride(&self) -> usize {
        if self.direct_reads {
            crate::engine::mem::stride()
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
    /// Returns the statement's entry in the list, for `release`.
    pub fn adopt(&self, raw: *mut ffi::sqlite3_stmt) -> (usize, FetchBuffers, Option<StmtSlot>) {
        let mut stmts = lock(&self.stmts);
        let entry = stmts.live.insert(raw as usize);
        match stmts.spare.pop() {
            Some((slot, buffers)) => (entry, buffers, Some(slot)),
            None => (entry, FetchBuffers::default(), None),
        }
    }

    /// Forgets a statement handle that its owner is about to finalize, and keeps its fetch
    /// buffers for the next statement if they are small (at most `Statements::SPARE` sets),
    /// and the allocation of its wrapper.
    fn release(&self, entry: usize, raw: *mut ffi::sqlite3_stmt, buffers: FetchBuffers, slot: StmtSlot) {
        // Large buffers are freed here, before the lock.
        let buffers = if buffers.small() { buffers } else { FetchBuffers::default() };
        let mut stmts = lock(&self.stmts);
        stmts.live.remove(entry, raw as usize);
        if stmts.spare.len() < Statements::SPARE {
            stmts.spare.push((slot, buffers));
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
    pub(crate) fn hooks(&self) -> &crate::engine::hooks::Hooks {
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
    pub(crate) fn close_refused(&self) -> bool {
        let refused = crate::engine::callback::InCallback::of(&self.hooks) || {
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
    pub(crate) fn close(&self) {
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
                (stmts.live.take_all().collect::<Vec<_>>(), std::mem::take(&mut stmts.deferred))
            };
            for raw in live {
                ffi::sqlite3_finalize(raw as *mut ffi::sqlite3_stmt);
            }
            // Statements a hook finalized: their handles went with `live`, their wrappers now.
            for s in deferred {
                (s.ops.free)(s.wrapper);
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

#[cfg(test)]
mod tests {
    use super::Live;

    #[test]
    fn live_statements_reuse_their_entries() {
        let mut live = Live::default();
        let (a, b, c) = (live.insert(0x10), live.insert(0x20), live.insert(0x30));
        assert_eq!((a, b, c), (0, 1, 2));
        live.remove(b, 0x20);
        live.remove(a, 0x10);
        // A stale or mismatched removal changes nothing.
        live.remove(b, 0x20);
        live.remove(c, 0x40);
        // The free entries come back last freed first; then the slab grows again.
        assert_eq!(live.insert(0x50), a);
        assert_eq!(live.insert(0x60), b);
        assert_eq!(live.insert(0x70), 3);
        let mut all: Vec<usize> = live.take_all().collect();
        all.sort();
        assert_eq!(all, [0x30, 0x50, 0x60, 0x70]);
        assert_eq!(live.insert(0x80), 0);
    }
}
