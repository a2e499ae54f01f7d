//! SQLite's allocator failing at every allocation, as SQLite's own `malloc` tests do, over every
//! family of the ABI: a counting allocator installed with `SQLITE_CONFIG_MALLOC` fails the Nth
//! allocation (and, in the persistent mode, every one after it), for every N, while a family's
//! workload runs through the ABI (connections; statements and fetch; bulk writes; functions;
//! virtual tables; hooks; knobs and counters; backup; serialization; blob I/O; sessions;
//! conversions). In every run:
//! - every call either succeeds or returns an out-of-memory error (or the error of a step that
//!   an earlier failure left behind: see [`tolerable`]); without a failure, every call succeeds;
//! - every handle closes, and every user data the library was given is released exactly once;
//! - SQLite's live allocations come back to where they were, and so do the Rust heap's bytes
//!   (a counting `#[global_allocator]`): the library leaks nothing of either;
//! - every transaction the library reported committed is in the file, and where a call
//!   completed, its answer is right (rows fetched, an aggregate's value, a conversion).
//!
//! SQLite's lookaside memory is off, so that its small allocations fail too. A run that
//! finds a bug names it in the panic message (the `FOUND` comments below say what each family
//! found, since fixed). `SQLBATCH_MALLOC_FAMILY=stmt` runs one family.

mod common;
use common::*;
use libsqlite3_sys as sq;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::ptr;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering::SeqCst};
use std::sync::{Arc, Mutex, Once};
use std::time::Instant;

// ---- SQLite's allocator, counting and failing ------------------------------------------------

/// Allocations made since the counter was reset.
static COUNT: AtomicU64 = AtomicU64::new(0);
/// The allocation that fails (0: none).
static FAIL_AT: AtomicU64 = AtomicU64::new(0);
/// Whether every allocation after FAIL_AT fails too.
static PERSISTENT: AtomicU64 = AtomicU64::new(0);
/// Allocations that failed in this run.
static FAILED: AtomicU64 = AtomicU64::new(0);
/// While above 0, allocations are neither counted nor failed (see [`quietly`]).
static QUIET: AtomicU64 = AtomicU64::new(0);
/// SQLite's live allocations.
static LIVE: AtomicI64 = AtomicI64::new(0);

static mut DEFAULT: sq::sqlite3_mem_methods = sq::sqlite3_mem_methods {
    xMalloc: None,
    xFree: None,
    xRealloc: None,
    xSize: None,
    xRoundup: None,
    xInit: None,
    xShutdown: None,
    pAppData: std::ptr::null_mut(),
};

fn default() -> &'static sq::sqlite3_mem_methods {
    // SAFETY: written once by `install` before any allocation, then only read.
    unsafe { &*std::ptr::addr_of!(DEFAULT) }
}

/// Whether this allocation fails.
fn fails() -> bool {
    if QUIET.load(SeqCst) != 0 {
        return false;
    }
    let n = COUNT.fetch_add(1, SeqCst) + 1;
    let at = FAIL_AT.load(SeqCst);
    let fail = at != 0 && (n == at || (n > at && PERSISTENT.load(SeqCst) != 0));
    if fail {
        FAILED.fetch_add(1, SeqCst);
    }
    fail
}

unsafe extern "C" fn x_malloc(n: c_int) -> *mut c_void {
    if fails() {
        return std::ptr::null_mut();
    }
    let p = unsafe { default().xMalloc.unwrap()(n) };
    if !p.is_null() {
        LIVE.fetch_add(1, SeqCst);
    }
    p
}

unsafe extern "C" fn x_free(p: *mut c_void) {
    if !p.is_null() {
        LIVE.fetch_sub(1, SeqCst);
    }
    unsafe { default().xFree.unwrap()(p) }
}

unsafe extern "C" fn x_realloc(p: *mut c_void, n: c_int) -> *mut c_void {
    if fails() {
        return std::ptr::null_mut();
    }
    let q = unsafe { default().xRealloc.unwrap()(p, n) };
    if p.is_null() && !q.is_null() {
        LIVE.fetch_add(1, SeqCst);
    }
    q
}

unsafe extern "C" fn x_size(p: *mut c_void) -> c_int {
    unsafe { default().xSize.unwrap()(p) }
}

unsafe extern "C" fn x_roundup(n: c_int) -> c_int {
    unsafe { default().xRoundup.unwrap()(n) }
}

unsafe extern "C" fn x_init(p: *mut c_void) -> c_int {
    unsafe { default().xInit.unwrap()(p) }
}

unsafe extern "C" fn x_shutdown(p: *mut c_void) {
    unsafe { default().xShutdown.unwrap()(p) }
}

/// Installs the counting allocator, before SQLite's first use in this process.
fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| unsafe {
        let mut d: sq::sqlite3_mem_methods = std::mem::zeroed();
        assert_eq!(
            sq::sqlite3_config(sq::SQLITE_CONFIG_GETMALLOC, &mut d as *mut sq::sqlite3_mem_methods),
            sq::SQLITE_OK
        );
        std::ptr::addr_of_mut!(DEFAULT).write(d);
        let mine = Box::leak(Box::new(sq::sqlite3_mem_methods {
            xMalloc: Some(x_malloc),
            xFree: Some(x_free),
            xRealloc: Some(x_realloc),
            xSize: Some(x_size),
            xRoundup: Some(x_roundup),
            xInit: Some(x_init),
            xShutdown: Some(x_shutdown),
            pAppData: d.pAppData,
        }));
        assert_eq!(
            sq::sqlite3_config(sq::SQLITE_CONFIG_MALLOC, mine as *mut sq::sqlite3_mem_methods),
            sq::SQLITE_OK
        );
        // No lookaside memory: every allocation, however small, goes through the counting
        // allocator (with it, most of a connection's small allocations never do).
        assert_eq!(sq::sqlite3_config(sq::SQLITE_CONFIG_LOOKASIDE, 0 as c_int, 0 as c_int), sq::SQLITE_OK);
        assert_eq!(sq::sqlite3_initialize(), sq::SQLITE_OK);
    });
}

/// Runs `f` with no allocation counted or failed: the opening of a family's connection, and
/// the checks a run makes of what the library did. No other thread may allocate meanwhile
/// (the connection's worker, if any, is idle).
fn quietly<T>(f: impl FnOnce() -> T) -> T {
    QUIET.fetch_add(1, SeqCst);
    let t = f();
    QUIET.fetch_sub(1, SeqCst);
    t
}

// ---- the Rust heap, counting -----------------------------------------------------------------

/// Bytes of the Rust heap live, counted on the threads that take part in the runs: the test's
/// thread while it runs the families, the library's workers and this file's conversion
/// threads. Not on libtest's threads (its main thread prints while the test runs; another
/// test's thread may start or end meanwhile).
static RUST_LIVE: AtomicI64 = AtomicI64::new(0);

thread_local! {
    /// 0: not known yet (see `counted`); 1: not counted; 2: counted.
    static ROLE: Cell<u8> = const { Cell::new(0) };
}

extern "C" {
    fn prctl(option: c_int, ...) -> c_int;
}

/// The names (as the kernel keeps them, 15 bytes at most) of the threads counted without
/// asking: the library's workers, and the threads of `convert_family`.
const COUNTED_THREADS: [&[u8]; 2] = [b"sqlbatch-worker", b"malloc-convert"];

fn counted() -> bool {
    ROLE.try_with(|r| match r.get() {
        0 => {
            // The thread's name, read without allocating (PR_GET_NAME: 16 bytes). A thread is
            // named once it runs its own code (before, it has its parent's name): only a
            // yes is remembered.
            let mut name = [0u8; 16];
            unsafe { prctl(16, name.as_mut_ptr()) };
            let yes = COUNTED_THREADS.iter().any(|n| name.starts_with(n));
            if yes {
                r.set(2);
            }
            yes
        }
        role => role == 2,
    })
    .unwrap_or(false)
}

struct Counting;

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() && counted() {
            RUST_LIVE.fetch_add(l.size() as i64, SeqCst);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(l) };
        if !p.is_null() && counted() {
            RUST_LIVE.fetch_add(l.size() as i64, SeqCst);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        if counted() {
            RUST_LIVE.fetch_sub(l.size() as i64, SeqCst);
        }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() && counted() {
            RUST_LIVE.fetch_add(new as i64 - l.size() as i64, SeqCst);
        }
        q
    }
}

#[global_allocator]
static A: Counting = Counting;

/// User data handed to the library (a registration's, a virtual table's, a cursor's) still
/// live: each must be released exactly once, so this comes back to 0 after every run.
static TOKENS: AtomicI64 = AtomicI64::new(0);

struct Token;

impl Token {
    fn new() -> Token {
        TOKENS.fetch_add(1, SeqCst);
        Token
    }
}

impl Drop for Token {
    fn drop(&mut self) {
        TOKENS.fetch_sub(1, SeqCst);
    }
}

/// `v` boxed, as user data whose destroy callback is `release::<T>`.
fn give<T>(v: T) -> *mut c_void {
    Box::into_raw(Box::new(v)).cast()
}

unsafe extern "C" fn release<T>(p: *mut c_void) {
    drop(unsafe { Box::from_raw(p.cast::<T>()) })
}

// ---- one run ---------------------------------------------------------------------------------

/// Whether `rc` is what a call may return when an allocation failed under it or before it:
/// `SQLITE_NOMEM` (SQLite's API turns its internal `SQLITE_IOERR_NOMEM` into it), or
/// `SQLITE_ERROR` where an earlier failure left something missing: a transaction that
/// SQLite rolled back on running out of memory, as it documents
/// (<https://sqlite.org/lang_transaction.html>, "Response To Errors Within A Transaction":
/// then "cannot commit - no transaction is active"), or a registration that failed ("no such
/// function", "no such module"). These are the only ones the runs meet.
fn tolerable(rc: i32) -> bool {
    matches!(rc, SQLBATCH_OK | SQLBATCH_ROW | SQLBATCH_DONE)
        || rc == sq::SQLITE_NOMEM
        || rc == sq::SQLITE_ERROR
}

/// A transaction the library reported committed: the row `(run, "{tag} {k}")` of table `log`
/// in file `file`. (No heap: a run's records must not count as its allocations.)
#[derive(Clone, Copy, Debug)]
struct Commit {
    file: &'static str,
    run: i64,
    tag: &'static str,
    k: u32,
}

/// The text of the row of a commit.
fn what(tag: &str, k: u32) -> String {
    format!("{tag} {k}")
}

/// One run of a family's workload.
struct Run<'a> {
    dir: &'a Path,
    /// The run's number: the allocation that fails (0 for the warm-up run, which fails none).
    n: i64,
    /// Without a failure, every call must succeed.
    strict: bool,
    /// Calls whose status was not tolerable, and answers that were wrong.
    bad: RefCell<Vec<(&'static str, i64)>>,
    commits: RefCell<Vec<Commit>>,
}

impl<'a> Run<'a> {
    fn new(dir: &'a Path, n: i64) -> Run<'a> {
        Run {
            dir,
            n,
            strict: n == 0,
            bad: RefCell::new(Vec::with_capacity(64)),
            commits: RefCell::new(Vec::with_capacity(128)),
        }
    }

    fn path(&self, file: &str) -> String {
        self.dir.join(file).to_str().unwrap().to_owned()
    }

    /// Checks a status: tolerable, or (in the run without a failure) a success, or one of `also`.
    fn expect(&self, what: &'static str, rc: i32, also: &[i32]) -> i32 {
        let fine = if self.strict {
            matches!(rc, SQLBATCH_OK | SQLBATCH_ROW | SQLBATCH_DONE)
        } else {
            tolerable(rc)
        };
        if !fine && !also.contains(&rc) {
            self.wrong(what, rc as i64);
        }
        rc
    }

    fn check(&self, what: &'static str, rc: i32) -> i32 {
        self.expect(what, rc, &[])
    }

    fn ok(&self, what: &'static str, rc: i32) -> bool {
        self.check(what, rc) == SQLBATCH_OK
    }

    /// Checks the status of a call on `c` or its statements, which records an error as the
    /// connection's last error.
    fn on(&self, c: &Conn, what: &'static str, rc: i32) -> i32 {
        self.on_expecting(c, what, rc, &[])
    }

    /// `on`, where the statuses `also` may come too.
    fn on_expecting(&self, c: &Conn, what: &'static str, rc: i32, also: &[i32]) -> i32 {
        self.expect(what, rc, also);
        if !matches!(rc, SQLBATCH_OK | SQLBATCH_ROW | SQLBATCH_DONE) {
            let code = last_error_of(c.0).0.code;
            if code != rc {
                self.wrong("last_error code after a failed call", code as i64);
            }
        }
        rc
    }

    /// Records something the run found wrong.
    fn wrong(&self, what: &'static str, got: i64) {
        self.bad.borrow_mut().push((what, got));
    }

    fn commit(&self, file: &'static str, tag: &'static str, k: u32) {
        self.commits.borrow_mut().push(Commit { file, run: self.n, tag, k });
    }

    /// Opens `path` (a file of the run's directory, or ":memory:") as a caller would, failures
    /// injected; a handle whose open failed is closed too.
    fn open(&self, path: &str, flags: u32) -> Option<Conn> {
        self.open_expecting(path, flags, &[])
    }

    /// `open`, where the statuses `also` may come too.
    fn open_expecting(&self, path: &str, flags: u32, also: &[i32]) -> Option<Conn> {
        let mut c = ptr::null_mut();
        let rc = unsafe { sqlbatch_conn_open(path.as_ptr().cast(), path.len(), flags, &mut c) };
        let conn = Conn(c);
        self.expect("open", rc, also);
        if rc == SQLBATCH_OK {
            return Some(conn);
        }
        if !c.is_null() && last_error_of(c).0.code != rc {
            self.wrong("last_error code after a failed open", last_error_of(c).0.code as i64);
        }
        None
    }

    /// Opens a file of the run's directory with no failure injected (the family's subject is
    /// what comes after), not syncing: no process dies here, and a sync costs milliseconds.
    fn open_quietly(&self, file: &str) -> Conn {
        quietly(|| {
            let c = Conn::open(&self.path(file));
            c.exec("PRAGMA synchronous=OFF");
            c
        })
    }

    /// Runs a script; whether it succeeded.
    fn exec(&self, c: &Conn, what: &'static str, sql: &str) -> bool {
        self.on(c, what, c.try_exec(sql).0) == SQLBATCH_OK
    }

    /// Runs a script whose `:run` parameters are this run's number; whether it succeeded.
    fn exec_run(&self, c: &Conn, what: &'static str, sql: &str) -> bool {
        let mut p = Params::default();
        p.push_named(b":run", &Val::Int(self.n));
        self.on(c, what, c.try_exec_with(sql, &p).0) == SQLBATCH_OK
    }

    /// Rolls back what a failure left open (a failed statement in a transaction, a failed COMMIT).
    fn settle(&self, c: &Conn) {
        if !c.autocommit() {
            self.exec(c, "rollback", "ROLLBACK");
        }
    }

    /// Fetches `s` to its end in batches of up to `max_rows` rows; its rows, if it got there.
    fn drain(&self, c: &Conn, what: &'static str, s: &Stmt, max_rows: usize) -> Option<Rows> {
        let mut rows = Vec::new();
        let rc = s.each_batch(max_rows, 1 << 12, |b| {
            rows.extend(batch_rows(b));
            true
        });
        (self.on(c, what, rc) == SQLBATCH_DONE).then_some(rows)
    }

    /// The rows of a query, if it ran to its end.
    fn query(&self, c: &Conn, what: &'static str, sql: &str) -> Option<Rows> {
        let (rc, s, _) = c.try_prepare(sql.as_bytes(), 0);
        self.on(c, what, rc);
        self.drain(c, what, &s?, 16)
    }

    /// The one integer a query answers, if it ran to its end.
    fn int(&self, c: &Conn, what: &'static str, sql: &str) -> Option<i64> {
        match self.query(c, what, sql)?.as_slice() {
            [row] => match row[0] {
                Val::Int(i) => Some(i),
                _ => None,
            },
            _ => None,
        }
    }
}

// ---- the harness -----------------------------------------------------------------------------

/// A family of the ABI and its workload.
struct Family {
    name: &'static str,
    run: fn(&Run),
}

/// The rows of the files every family starts from: `log` holds SEEDS rows of negative runs
/// (texts 'seed X ' and X % 120 zeros).
const SEEDS: i64 = 200;

/// Makes the files a family's runs start from: `main.db` and `replica.db`, in WAL mode, each
/// with `log` (the seed rows) and `blobs` (8 rows of 2,000 zero bytes).
fn setup(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    for file in ["main.db", "replica.db"] {
        let c = Conn::open(dir.join(file).to_str().unwrap());
        c.exec(&format!(
            "PRAGMA journal_mode=WAL;
             CREATE TABLE log(id INTEGER PRIMARY KEY, run INTEGER NOT NULL, what TEXT);
             CREATE INDEX log_run ON log(run);
             CREATE TABLE blobs(id INTEGER PRIMARY KEY, b BLOB);
             WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x < {last})
               INSERT INTO log(run, what)
               SELECT -1 - x % 5, 'seed ' || x || ' ' || substr(hex(zeroblob(60)), 1, x % 120) FROM i;
             WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < 8)
               INSERT INTO blobs SELECT x, zeroblob(2000) FROM i",
            last = SEEDS - 1
        ));
    }
}

/// Checks that every transaction of `commits` (those of runs `from` on) is in its file (read
/// with plain SQLite).
fn verify(dir: &Path, commits: &[Commit], from: i64) {
    let files: HashSet<&str> = commits.iter().map(|c| c.file).collect();
    for file in files {
        let raw = Raw::open(dir.join(file).to_str().unwrap());
        let rows: HashSet<(i64, Vec<u8>)> = raw
            .rows(&format!("SELECT run, what FROM log WHERE run >= {from}"))
            .into_iter()
            .filter_map(|r| match (&r[0], &r[1]) {
                (Val::Int(run), Val::Text(w)) => Some((*run, w.clone())),
                _ => None,
            })
            .collect();
        for c in commits.iter().filter(|c| c.file == file && c.run >= from) {
            assert!(
                rows.contains(&(c.run, what(c.tag, c.k).into_bytes())),
                "{c:?} was reported committed but is not in {file}"
            );
        }
    }
}

/// Disarms the failing allocator, also when a run panics.
struct Disarm;

impl Drop for Disarm {
    fn drop(&mut self) {
        FAIL_AT.store(0, SeqCst);
        QUIET.store(0, SeqCst);
    }
}

/// Runs a family's workload once without a failure (to check the workload and to fill what a
/// process fills once), then failing its Nth allocation, for N = 1, 2, ... until a run makes
/// fewer than N allocations; returns the number of runs that failed an allocation.
fn every_failure(fam: &Family, persistent: bool, dir: &Path) -> u64 {
    setup(dir);
    // Held open (with the WAL open: after a read) while the family runs, so that the runs'
    // connections are never the last of their file: closing one does not checkpoint and
    // delete the WAL each time.
    let _keepers = ["main.db", "replica.db"].map(|f| {
        let keeper = Raw::open(dir.join(f).to_str().unwrap());
        keeper.rows("SELECT count(*) FROM log");
        keeper
    });
    let mut history: Vec<Commit> = Vec::new();
    let mut n = 0u64;
    loop {
        let r = Run::new(dir, n as i64);
        let (sqlite0, rust0, tokens0) = (LIVE.load(SeqCst), RUST_LIVE.load(SeqCst), TOKENS.load(SeqCst));
        let failed = {
            let _disarm = Disarm;
            PERSISTENT.store(u64::from(persistent), SeqCst);
            COUNT.store(0, SeqCst);
            FAILED.store(0, SeqCst);
            FAIL_AT.store(n, SeqCst);
            (fam.run)(&r);
            FAIL_AT.store(0, SeqCst);
            FAILED.load(SeqCst)
        };
        let (sqlite1, rust1, tokens1) = (LIVE.load(SeqCst), RUST_LIVE.load(SeqCst), TOKENS.load(SeqCst));
        let what = format!("{}: failing allocation {n} (persistent {persistent})", fam.name);
        let bad = r.bad.borrow();
        assert!(bad.is_empty(), "{what}: {bad:?}");
        // The warm-up run fills what a process or thread fills once (this thread's converter
        // of value_convert, std's first thread): nothing to compare.
        if n > 0 {
            assert_eq!(tokens1, tokens0, "{what}: user data released {} times too few", tokens1 - tokens0);
            assert_eq!(
                sqlite1, sqlite0,
                "{what}: SQLite's live allocations {sqlite0} before, {sqlite1} after"
            );
            assert_eq!(rust1, rust0, "{what}: Rust heap bytes live {rust0} before, {rust1} after");
        }
        // This run's transactions, and now and then (and at the end) every run's: a later run
        // must not lose them either.
        history.extend(r.commits.borrow().iter().copied());
        let end = n > 0 && failed == 0;
        verify(dir, &history, if end || n % 128 == 0 { 0 } else { n as i64 });
        if end {
            break; // the run made fewer than n allocations: every one has failed
        }
        n += 1;
    }
    std::fs::remove_dir_all(dir).unwrap();
    n - 1
}

/// The tests take turns: the counters are the process's.
static SERIAL: Mutex<()> = Mutex::new(());

/// Runs every failure of every family of `families`, in both modes; prints the runs of each.
fn run_families(families: &[Family]) {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    install();
    ROLE.with(|r| r.set(2));
    // In memory where the system has such a directory: the runs sync files thousands of times
    // (the files of sqlbatch_conn_backup_to_file), and no process dies here.
    let tmp =
        Some(Path::new("/dev/shm")).filter(|p| p.is_dir()).map_or_else(std::env::temp_dir, Path::to_path_buf);
    let base = tmp.join(format!("sqlbatch-malloc-{}", std::process::id()));
    let mut failures = Vec::new();
    let start = Instant::now();
    // SQLBATCH_MALLOC_FAMILY=name runs one family.
    let only = std::env::var("SQLBATCH_MALLOC_FAMILY").ok();
    for fam in families.iter().filter(|f| only.as_deref().map_or(true, |o| o == f.name)) {
        let t = Instant::now();
        let mut runs = [0u64; 2];
        for (i, persistent) in [false, true].into_iter().enumerate() {
            let dir = base.join(format!("{}-{persistent}", fam.name));
            match catch_unwind(AssertUnwindSafe(|| every_failure(fam, persistent, &dir))) {
                Ok(n) if n < 20 => {
                    failures.push(format!("{}: the workload made only {n} allocations", fam.name))
                }
                Ok(n) => runs[i] = n,
                Err(e) => failures.push(
                    e.downcast_ref::<String>()
                        .cloned()
                        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default(),
                ),
            }
        }
        eprintln!(
            "malloc faults, {}: {} runs failing once, {} failing from there on ({:.1} s)",
            fam.name,
            runs[0],
            runs[1],
            t.elapsed().as_secs_f64()
        );
    }
    eprintln!("malloc faults: {:.1} s in all", start.elapsed().as_secs_f64());
    let _ = std::fs::remove_dir_all(&base);
    ROLE.with(|r| r.set(1));
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_family_of_the_abi_under_every_allocation_failure() {
    run_families(FAMILIES);
}

const FAMILIES: &[Family] = &[
    Family { name: "conn", run: conn_family },
    Family { name: "stmt", run: stmt_family },
    Family { name: "write", run: write_family },
    Family { name: "functions", run: functions_family },
    Family { name: "vtab", run: vtab_family },
    Family { name: "hooks", run: hooks_family },
    Family { name: "config", run: config_family },
    Family { name: "backup", run: backup_family },
    Family { name: "serialize", run: serialize_family },
    Family { name: "blob", run: blob_family },
    Family { name: "session", run: session_family },
    Family { name: "convert", run: convert_family },
    Family { name: "untrusted", run: untrusted_family },
];

// ---- conn: open, scripts with parameters, the connection's counters and knobs ---------------

fn conn_family(r: &Run) {
    let path = r.path("main.db");
    let ahead = if ahead_mode() { SQLBATCH_OPEN_FETCH_AHEAD } else { 0 };
    if let Some(c) = r.open(&path, ahead) {
        r.check("busy_timeout", unsafe { sqlbatch_conn_busy_timeout(c.0, 2000) });
        // A transaction by a script, with positional and named parameters.
        let mut p = Params::default();
        p.push(&Val::Int(r.n))
            .push_named(b":what", &t(&what("conn", 0)))
            .push(&Val::Int(r.n))
            .push_named(b"second", &t(&what("conn", 1)));
        let (rc, res) = c.try_exec_with(
            "BEGIN; INSERT INTO log(run, what) VALUES (?, :what); \
             INSERT INTO log(run, what) VALUES (?, @second); COMMIT",
            &p,
        );
        if r.on(&c, "exec", rc) == SQLBATCH_OK {
            r.commit("main.db", "conn", 0);
            r.commit("main.db", "conn", 1);
            if res.statements != 4 || res.params_used != 4 {
                r.wrong("exec: statements run", res.statements as i64);
            }
        }
        r.settle(&c);
        // One statement, its values bound without a copy.
        let mut p = Params::of(&[Val::Int(r.n), t(&what("conn", 2))]);
        p.flags = SQLBATCH_PARAMS_SINGLE;
        if r.on(&c, "exec one statement", c.try_exec_with("INSERT INTO log(run, what) VALUES (?, ?)", &p).0)
            == 0
        {
            r.commit("main.db", "conn", 2);
        }
        let mut v = 0i64;
        r.check("changes", unsafe { sqlbatch_conn_changes(c.0, &mut v) });
        r.check("total_changes", unsafe { sqlbatch_conn_total_changes(c.0, &mut v) });
        r.check("last_insert_rowid", unsafe { sqlbatch_conn_last_insert_rowid(c.0, &mut v) });
        let mut e: sqlbatch_error = unsafe { std::mem::zeroed() };
        if r.ok("last_error", unsafe { sqlbatch_conn_last_error(c.0, &mut e) }) && e.message.is_null() {
            r.wrong("last_error: no message", e.code as i64);
        }
        // An interrupt of the idle connection stops nothing that starts after it.
        unsafe { sqlbatch_conn_interrupt(c.0) };
        r.int(&c, "a query after an interrupt", "SELECT count(*) FROM log");
    }
    // Read-only: it reads, and refuses to write.
    if let Some(c) = r.open(&path, SQLBATCH_OPEN_READONLY | ahead) {
        r.int(&c, "a query on a read-only connection", "SELECT count(*) FROM log WHERE run < 0");
        let rc = c.try_exec("INSERT INTO log(run, what) VALUES (0, 'no')").0;
        if r.expect("a write on a read-only connection", rc, &[sq::SQLITE_READONLY]) == SQLBATCH_OK {
            r.wrong("a write on a read-only connection: done", 0);
        }
    }
    // A file that is not there, not to be created; a database in memory.
    r.open_expecting(&r.path("missing.db"), SQLBATCH_OPEN_READWRITE, &[sq::SQLITE_CANTOPEN]);
    if let Some(c) = r.open(":memory:", SQLBATCH_OPEN_READWRITE | SQLBATCH_OPEN_CREATE | SQLBATCH_OPEN_MEMORY)
    {
        r.int(&c, "a query in memory", "SELECT 1");
    }
    // The file again, fetching ahead: the worker thread steps the seed rows.
    if let Some(c) = r.open(&path, SQLBATCH_OPEN_FETCH_AHEAD) {
        let (rc, s, _) = c.try_prepare(b"SELECT id, what FROM log WHERE run < 0 ORDER BY id", 0);
        r.on(&c, "prepare", rc);
        if let Some(rows) = s.and_then(|s| r.drain(&c, "fetch ahead", &s, 16)) {
            if rows.len() as i64 != SEEDS {
                r.wrong("fetch ahead: rows", rows.len() as i64);
            }
        }
    }
}

// ---- untrusted: a file from anyone, checked first and defended --------------------------------

// FOUND, fixed (src/engine/conn.rs, `quick_check`): SQLite's PRAGMA quick_check reports a page it
// could not get for want of memory as a finding ("Tree 3 page 15: unable to get the page.
// error code=7"; it turns only SQLITE_IOERR_NOMEM into an error), and the library reported
// every finding as SQLITE_CORRUPT: an untrusted open of a sound file failed with
// SQLITE_CORRUPT ("the database failed PRAGMA quick_check: ...") when an allocation failed
// during its check. Such a finding is SQLITE_NOMEM now.
fn untrusted_family(r: &Run) {
    if r.n == 0 {
        // Some 60 pages: more than SQLite's page cache takes at once (20), so that the check
        // allocates pages as it reads.
        quietly(|| {
            Conn::open(&r.path("main.db")).exec(
                "WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x < 499)
                   INSERT INTO log(run, what) SELECT 0, 'untrusted ' || x || hex(zeroblob(200)) FROM i",
            )
        });
    }
    let ahead = if ahead_mode() { SQLBATCH_OPEN_FETCH_AHEAD } else { 0 };
    if let Some(c) = r.open(&r.path("main.db"), SQLBATCH_OPEN_UNTRUSTED | ahead) {
        r.int(&c, "a query on an untrusted file", "SELECT count(*) FROM log WHERE run < 0");
    }
}

// ---- stmt: prepare, parameters, bind, fetch, fetch_into, fetch-ahead, metadata, reset ------

/// The seed rows whose text starts with 'seed 1'.
fn seeds_of_1() -> usize {
    (0..SEEDS).filter(|x| x.to_string().starts_with('1')).count()
}

fn stmt_family(r: &Run) {
    let c = r.open_quietly("main.db");
    let sql = "SELECT id, run, what, length(what) AS n, CAST(? AS BLOB) AS tag FROM log \
               WHERE run < :lim AND what LIKE :pat ORDER BY id";
    let (rc, s, _) = c.try_prepare(sql.as_bytes(), SQLBATCH_PREPARE_PERSISTENT);
    r.on(&c, "prepare", rc);
    let Some(s) = s else { return };
    let mut n = 0usize;
    if r.ok("param_count", unsafe { sqlbatch_stmt_param_count(s.0, &mut n) }) && n != 3 {
        r.wrong("param_count", n as i64);
    }
    let (mut names, mut k) = (ptr::null(), 0usize);
    r.check("params", unsafe { sqlbatch_stmt_params(s.0, &mut names, &mut k) });
    let (rc, i) = s.param_index(b"pat");
    if r.ok("param_index", rc) && i != 3 {
        r.wrong("param_index", i as i64);
    }
    let mut p = Params::default();
    p.push(&Val::Blob(vec![1, 2, 3])).push_named(b":lim", &Val::Int(0)).push_named(b"pat", &t("seed 1%"));
    let expected = seeds_of_1();
    if r.on(&c, "bind", s.bind(&p)) == SQLBATCH_OK {
        if let Some(rows) = r.drain(&c, "fetch", &s, 7) {
            if rows.len() != expected {
                r.wrong("fetch: rows", rows.len() as i64);
            }
        }
        // One batch, checked cell by cell.
        r.on(&c, "reset", unsafe { sqlbatch_stmt_reset(s.0) });
        let (rc, b) = s.fetch(5, usize::MAX);
        // (Fewer rows than asked when a step failed after some: the error comes next.)
        if r.on(&c, "fetch", rc) == SQLBATCH_ROW && b.n_rows == 5 {
            let mut v = sqlbatch_value::NULL;
            if r.ok("batch_get", unsafe { sqlbatch_batch_get(s.0, &b, 4, 2, &mut v) })
                && v.kind != SQLBATCH_TEXT
            {
                r.wrong("batch_get: kind", v.kind as i64);
            }
        }
    }
    // Metadata.
    let (mut cols, mut nc) = (ptr::null(), 0usize);
    if r.on(&c, "columns", unsafe { sqlbatch_stmt_columns(s.0, &mut cols, &mut nc) }) == SQLBATCH_OK
        && nc != 5
    {
        r.wrong("columns", nc as i64);
    }
    let mut not_null = 0;
    r.check("column_not_null", unsafe { sqlbatch_stmt_column_not_null(s.0, 1, &mut not_null) });
    let mut ro = false;
    r.check("readonly", unsafe { sqlbatch_stmt_readonly(s.0, &mut ro) });
    let mut text = sqlbatch_str { ptr: ptr::null(), len: 0 };
    r.check("sql", unsafe { sqlbatch_stmt_sql(s.0, &mut text) });
    r.on(&c, "expanded_sql", unsafe { sqlbatch_stmt_expanded_sql(s.0, &mut text) });
    let mut steps = 0i64;
    r.check("stmt_status", unsafe {
        sqlbatch_stmt_status(s.0, sq::SQLITE_STMTSTATUS_VM_STEP, false, &mut steps)
    });
    // Bound again, fetched into the caller's buffer, fetching ahead.
    r.on(&c, "reset", unsafe { sqlbatch_stmt_reset(s.0) });
    r.on(&c, "clear_bindings", unsafe { sqlbatch_stmt_clear_bindings(s.0) });
    r.on(&c, "set_fetch_ahead", unsafe { sqlbatch_stmt_set_fetch_ahead(s.0, true) });
    if r.on(&c, "bind", s.bind(&p)) == SQLBATCH_OK {
        let mut buf = vec![0u8; 4096];
        let mut rows = 0;
        let rc = loop {
            let mut b: sqlbatch_batch = unsafe { std::mem::zeroed() };
            let rc = unsafe { sqlbatch_stmt_fetch_into(s.0, 9, buf.as_mut_ptr(), buf.len(), &mut b) };
            if rc != SQLBATCH_ROW && rc != SQLBATCH_DONE {
                break rc;
            }
            rows += batch_rows_in(&b, buf.as_ptr(), buf.len()).len();
            if rc == SQLBATCH_DONE {
                break rc;
            }
        };
        if r.on(&c, "fetch_into", rc) == SQLBATCH_DONE && rows != expected {
            r.wrong("fetch_into: rows", rows as i64);
        }
        // Finalized while a batch is stepped ahead.
        r.on(&c, "reset", unsafe { sqlbatch_stmt_reset(s.0) });
        r.on(&c, "fetch", s.fetch(3, usize::MAX).0);
    }
    drop(s);
    // Two statements where one is allowed.
    let (rc, _, _) = c.try_prepare(b"SELECT 1; SELECT 2", SQLBATCH_PREPARE_SINGLE);
    if r.on_expecting(&c, "prepare one statement", rc, &[SQLBATCH_E_MULTIPLE_STATEMENTS]) == SQLBATCH_OK {
        r.wrong("prepare one statement: two accepted", 0);
    }
    // A UTF-16 database, whose text the fetch reads as UTF-8 (SQLite converts it, allocating).
    let u = utf16_memory();
    if let Some(rows) = r.query(&u, "fetch from a UTF-16 database", "SELECT x FROM t ORDER BY rowid") {
        if rows != (0..40).map(|x| vec![t(&format!("h\u{e9}llo {x}"))]).collect::<Rows>() {
            r.wrong("fetch from a UTF-16 database: rows", rows.len() as i64);
        }
    }
}

/// A database in memory in UTF-16le (opened with no failure injected), whose table `t` holds
/// 40 texts 'héllo X'.
fn utf16_memory() -> Conn {
    quietly(|| {
        let u = Conn::memory();
        u.exec(
            "PRAGMA encoding='UTF-16le'; CREATE TABLE t(x TEXT);
             WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x < 39)
               INSERT INTO t SELECT 'h\u{e9}llo ' || x FROM i",
        );
        u
    })
}

// ---- write: execute_many, write-behind, bound tables -----------------------------------------

/// Rows `(run, "{tag} {k}")` for k in `ks`, as parameter rows of (run, what).
fn log_rows(r: &Run, tag: &str, ks: std::ops::Range<u32>) -> Params {
    let mut p = Params::default();
    for k in ks {
        p.push(&Val::Int(r.n)).push(&t(&what(tag, k)));
    }
    p
}

fn write_family(r: &Run) {
    let c = r.open_quietly("main.db");
    let (rc, s, _) = c.try_prepare(b"INSERT INTO log(run, what) VALUES (?, ?)", 0);
    r.on(&c, "prepare", rc);
    if let Some(s) = s {
        // In autocommit mode each row is a transaction: the rows before a failing one are in.
        let p = log_rows(r, "auto", 0..8);
        let mut w = sqlbatch_write_result::default();
        let rc = unsafe { sqlbatch_stmt_execute_many(s.0, &p.as_c(), 8, &mut w) };
        r.on(&c, "execute_many", rc);
        for k in 0..w.rows as u32 {
            r.commit("main.db", "auto", k);
        }
        if rc == SQLBATCH_OK && w.rows != 8 {
            r.wrong("execute_many: rows", w.rows as i64);
        }
        // The same behind: on the worker thread.
        let p = log_rows(r, "behind auto", 0..8);
        let mut w = sqlbatch_write_result::default();
        if r.ok("execute_many_start", unsafe { sqlbatch_stmt_execute_many_start(s.0, &p.as_c(), 8) }) {
            r.on(&c, "execute_many_wait", unsafe { sqlbatch_stmt_execute_many_wait(s.0, &mut w) });
        }
        for k in 0..w.rows as u32 {
            r.commit("main.db", "behind auto", k);
        }
        // Two writes queued in one transaction.
        if r.exec(&c, "begin", "BEGIN") {
            let (p1, p2) = (log_rows(r, "behind", 0..10), log_rows(r, "behind", 10..20));
            let rc1 = r.check("execute_many_start", unsafe {
                sqlbatch_stmt_execute_many_start(s.0, &p1.as_c(), 10)
            });
            let rc2 = if rc1 == SQLBATCH_OK {
                r.check("execute_many_start", unsafe {
                    sqlbatch_stmt_execute_many_start(s.0, &p2.as_c(), 10)
                })
            } else {
                rc1
            };
            let mut w = sqlbatch_write_result::default();
            let mut all = rc1 == SQLBATCH_OK && rc2 == SQLBATCH_OK;
            if rc1 == SQLBATCH_OK {
                all &= r.on(&c, "execute_many_wait", unsafe { sqlbatch_stmt_execute_many_wait(s.0, &mut w) })
                    == 0;
            }
            if rc2 == SQLBATCH_OK {
                // Behind a failed write, the second one is skipped.
                let rc = unsafe { sqlbatch_stmt_execute_many_wait(s.0, &mut w) };
                all &= r.expect("execute_many_wait", rc, &[SQLBATCH_E_SKIPPED]) == 0;
            }
            if all && r.exec(&c, "commit", "COMMIT") {
                for k in 0..20 {
                    r.commit("main.db", "behind", k);
                }
            }
            r.settle(&c);
        }
    }
    // A table bound to a parameter: sqlbatch_rows of one column, then a declared table of two.
    let (rc, s, _) = c.try_prepare(b"INSERT INTO log(run, what) SELECT ?, value FROM sqlbatch_rows(?)", 0);
    r.on(&c, "prepare", rc);
    if let Some(s) = s {
        let texts = Params::of(&(0..10).map(|k| t(&what("rows", k))).collect::<Vec<_>>());
        if r.on(&c, "bind", s.bind(&Params::of(&[Val::Int(r.n), Val::Null]))) == SQLBATCH_OK
            && r.on(&c, "bind_rows", unsafe { sqlbatch_stmt_bind_rows(s.0, 2, &texts.as_c(), 1) })
                == SQLBATCH_OK
            && r.drain(&c, "insert from sqlbatch_rows", &s, 1).is_some()
        {
            for k in 0..10 {
                r.commit("main.db", "rows", k);
            }
        }
    }
    if r.exec(
        &c,
        "create virtual table",
        "CREATE VIRTUAL TABLE temp.pts USING sqlbatch_rows(run INTEGER, what TEXT)",
    ) {
        let (rc, s, _) = c.try_prepare(b"INSERT INTO log(run, what) SELECT run, what FROM pts(?)", 0);
        r.on(&c, "prepare", rc);
        if let Some(s) = s {
            let p = log_rows(r, "table", 0..8);
            if r.on(&c, "bind_rows", unsafe { sqlbatch_stmt_bind_rows(s.0, 1, &p.as_c(), 2) }) == SQLBATCH_OK
                && r.drain(&c, "insert from a bound table", &s, 1).is_some()
            {
                for k in 0..8 {
                    r.commit("main.db", "table", k);
                }
            }
        }
    }
}

// ---- functions: scalar, aggregate and window, collation, errors ------------------------------

unsafe fn arg<'a>(args: *const sqlbatch_value, data: *const u8) -> (&'a sqlbatch_value, &'a [u8]) {
    let a = unsafe { &*args };
    let bytes = if matches!(a.kind, SQLBATCH_TEXT | SQLBATCH_BLOB) && a.len > 0 {
        unsafe { std::slice::from_raw_parts(data.add(a.bits as usize), a.len as usize) }
    } else {
        &[]
    };
    (a, bytes)
}

/// twice(x): 2x, stored in the call's result.
unsafe extern "C" fn twice(
    call: *mut sqlbatch_call,
    _: *mut c_void,
    args: *const sqlbatch_value,
    _: usize,
    _: *const u8,
) {
    let a = unsafe { &*args };
    if a.kind == SQLBATCH_INTEGER {
        unsafe { (*call).result = sqlbatch_value::int((a.bits as i64).wrapping_mul(2)) };
    }
}

/// label(x): '<x>', copied by the library.
unsafe extern "C" fn label(
    call: *mut sqlbatch_call,
    _: *mut c_void,
    args: *const sqlbatch_value,
    _: usize,
    data: *const u8,
) {
    let (a, bytes) = unsafe { arg(args, data) };
    let text = match a.kind {
        SQLBATCH_INTEGER => format!("<{}>", a.bits as i64),
        _ => format!("<{}>", String::from_utf8_lossy(bytes)),
    };
    let v = sqlbatch_value::bytes(SQLBATCH_TEXT, 0, text.len() as u32);
    unsafe { sqlbatch_call_result(call, &v, text.as_ptr(), text.len()) };
}

/// rev(text): the bytes backwards, handed over without a copy (released by `free_bytes`).
unsafe extern "C" fn rev(
    call: *mut sqlbatch_call,
    _: *mut c_void,
    args: *const sqlbatch_value,
    _: usize,
    data: *const u8,
) {
    let (a, bytes) = unsafe { arg(args, data) };
    if a.kind != SQLBATCH_TEXT {
        return;
    }
    // The length goes first, for `free_bytes`.
    let mut owned = (bytes.len() as u64).to_ne_bytes().to_vec();
    owned.extend(bytes.iter().rev());
    let p = Box::into_raw(owned.into_boxed_slice()).cast::<u8>();
    unsafe { sqlbatch_call_result_bytes(call, SQLBATCH_TEXT, p.add(8), bytes.len(), Some(free_bytes)) };
}

unsafe extern "C" fn free_bytes(p: *mut c_void) {
    let start = unsafe { p.cast::<u8>().sub(8) };
    let len = u64::from_ne_bytes(unsafe { *start.cast::<[u8; 8]>() }) as usize;
    drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(start, len + 8)) });
}

/// stop(x): interrupts its connection (the user data), which stops the statement calling it.
unsafe extern "C" fn stop(
    _: *mut sqlbatch_call,
    conn: *mut c_void,
    _: *const sqlbatch_value,
    _: usize,
    _: *const u8,
) {
    unsafe { sqlbatch_conn_interrupt(conn.cast()) };
}

/// refuse(x): fails with SQLITE_CONSTRAINT and a message.
unsafe extern "C" fn refuse(
    call: *mut sqlbatch_call,
    _: *mut c_void,
    _: *const sqlbatch_value,
    _: usize,
    _: *const u8,
) {
    let msg = "refused";
    unsafe { sqlbatch_call_error(call, sq::SQLITE_CONSTRAINT, msg.as_ptr().cast(), msg.len()) };
}

/// sumsq(x): the sum of the squares of the rows' integers (a window function too).
unsafe extern "C" fn sumsq_step(
    _: *mut sqlbatch_call,
    _: *mut c_void,
    state: *mut *mut c_void,
    args: *const sqlbatch_value,
    n_rows: usize,
    n_args: usize,
    _: *const u8,
) {
    add_squares(state, args, n_rows * n_args, 1);
}

unsafe extern "C" fn sumsq_inverse(
    _: *mut sqlbatch_call,
    _: *mut c_void,
    state: *mut *mut c_void,
    args: *const sqlbatch_value,
    n_rows: usize,
    n_args: usize,
    _: *const u8,
) {
    add_squares(state, args, n_rows * n_args, -1);
}

fn add_squares(state: *mut *mut c_void, args: *const sqlbatch_value, n: usize, sign: i64) {
    let state = unsafe { &mut *state };
    if state.is_null() {
        *state = give(0i64);
    }
    let sum = unsafe { &mut *state.cast::<i64>() };
    for v in unsafe { std::slice::from_raw_parts(args, n) } {
        if v.kind == SQLBATCH_INTEGER {
            *sum += sign * (v.bits as i64) * (v.bits as i64);
        }
    }
}

unsafe extern "C" fn sumsq_value(call: *mut sqlbatch_call, _: *mut c_void, state: *mut c_void) {
    let sum = if state.is_null() { 0 } else { unsafe { *state.cast::<i64>() } };
    unsafe { (*call).result = sqlbatch_value::int(sum) };
}

unsafe extern "C" fn sumsq_finish(call: *mut sqlbatch_call, user: *mut c_void, state: *mut c_void) {
    unsafe { sumsq_value(call, user, state) };
    if !state.is_null() {
        unsafe { release::<i64>(state) };
    }
}

/// The collation `backwards`: texts compared from their last byte.
unsafe extern "C" fn backwards(
    _: *mut c_void,
    a: *const u8,
    a_len: usize,
    b: *const u8,
    b_len: usize,
) -> i32 {
    let bytes = |p: *const u8, n| if n == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(p, n) } };
    bytes(a, a_len).iter().rev().cmp(bytes(b, b_len).iter().rev()) as i32
}

fn functions_family(r: &Run) {
    let c = r.open_quietly("main.db");
    let scalar = |name: &str, f: sqlbatch_function_fn| {
        r.on(&c, "create_function", unsafe {
            sqlbatch_conn_create_function(
                c.0,
                name.as_ptr().cast(),
                name.len(),
                1,
                SQLBATCH_FUNCTION_DETERMINISTIC,
                f,
                give(Token::new()),
                Some(release::<Token>),
            )
        })
    };
    scalar("twice", Some(twice));
    scalar("label", Some(label));
    scalar("rev", Some(rev));
    scalar("refuse", Some(refuse));
    let fns = sqlbatch_aggregate {
        step: Some(sumsq_step),
        finish: Some(sumsq_finish),
        inverse: Some(sumsq_inverse),
        value: Some(sumsq_value),
        batch_rows: 4,
        batch_bytes: 0,
    };
    r.on(&c, "create_aggregate", unsafe {
        sqlbatch_conn_create_aggregate(
            c.0,
            c"sumsq".as_ptr(),
            5,
            1,
            0,
            &fns,
            give(Token::new()),
            Some(release::<Token>),
        )
    });
    // FOUND, fixed (src/abi/function.rs): when sqlite3_create_collation_v2 fails (out
    // of memory), SQLite does not call the destructor, unlike every other registration of
    // SQLite's (documented at sqlite3_create_collation_v2), so the library's Registration and
    // the caller's user data leak, and `destroy` never runs: the run's check of released user
    // data failed at the allocation inside sqlite3_create_collation_v2.
    let collation = r.on(&c, "create_collation", unsafe {
        sqlbatch_conn_create_collation(
            c.0,
            c"backwards".as_ptr(),
            9,
            Some(backwards),
            give(Token::new()),
            Some(release::<Token>),
        )
    }) == SQLBATCH_OK;
    let sql = format!(
        "SELECT twice(run), rev(what), label(id) FROM log WHERE run < 0 ORDER BY what {} LIMIT 40",
        if collation { "COLLATE backwards" } else { "" }
    );
    if let Some(rows) = r.query(&c, "scalar functions and a collation", &sql) {
        if rows.len() != 40 {
            r.wrong("scalar functions: rows", rows.len() as i64);
        }
    }
    let squares: i64 = (0..SEEDS).map(|x| (1 + x % 5) * (1 + x % 5)).sum();
    if let Some(sum) = r.int(&c, "aggregate", "SELECT sumsq(run) FROM log WHERE run < 0") {
        if sum != squares {
            r.wrong("aggregate: value", sum);
        }
    }
    if let Some(rows) = r.query(
        &c,
        "window function",
        "SELECT sumsq(run) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) \
         FROM log WHERE run < 0 LIMIT 30",
    ) {
        if rows.len() != 30 {
            r.wrong("window function: rows", rows.len() as i64);
        }
    }
    // The callback's error, or an out-of-memory one.
    let (rc, s, _) = c.try_prepare(b"SELECT refuse(1)", 0);
    r.on(&c, "prepare", rc);
    if let Some(s) = s {
        let rc = s.fetch(1, usize::MAX).0;
        r.expect("a function failing", rc, &[sq::SQLITE_CONSTRAINT, sq::SQLITE_CONSTRAINT_FUNCTION]);
        if matches!(rc, SQLBATCH_ROW | SQLBATCH_DONE) {
            r.wrong("a function failing: succeeded", rc as i64);
        }
    }
    // A function that interrupts its statement, and nothing after it.
    r.on(&c, "create_function", unsafe {
        sqlbatch_conn_create_function(c.0, c"stop".as_ptr(), 4, 1, 0, Some(stop), c.0.cast(), None)
    });
    let (rc, s, _) = c.try_prepare(b"SELECT stop(id) FROM log WHERE run < 0", 0);
    r.on(&c, "prepare", rc);
    if let Some(s) = s {
        let rc = s.each_batch(16, usize::MAX, |_| true);
        r.expect("a function interrupting", rc, &[sq::SQLITE_INTERRUPT]);
        if matches!(rc, SQLBATCH_ROW | SQLBATCH_DONE) {
            r.wrong("a function interrupting: succeeded", rc as i64);
        }
    }
    r.int(&c, "a query after an interrupt", "SELECT count(*) FROM log WHERE run < 0");
    // Arguments from a UTF-16 database (SQLite converts them to UTF-8, allocating).
    let u = utf16_memory();
    if r.on(&u, "create_function", unsafe {
        sqlbatch_conn_create_function(u.0, c"label".as_ptr(), 5, 1, 0, Some(label), ptr::null_mut(), None)
    }) == 0
    {
        if let Some(rows) =
            r.query(&u, "a function in a UTF-16 database", "SELECT label(x) FROM t ORDER BY rowid")
        {
            if rows != (0..40).map(|x| vec![t(&format!("<h\u{e9}llo {x}>"))]).collect::<Rows>() {
                r.wrong("a function in a UTF-16 database: rows", rows.len() as i64);
            }
        }
    }
    // A function in a write.
    if r.exec_run(&c, "insert with a function", "INSERT INTO log(run, what) VALUES (:run, rev('0 cnuf'))") {
        r.commit("main.db", "func", 0);
    }
    // Deleted: its user data is released.
    r.on(&c, "delete function", unsafe {
        sqlbatch_conn_create_function(c.0, c"twice".as_ptr(), 5, 1, 0, None, ptr::null_mut(), None)
    });
}

// ---- vtab: a batched module, scanned and updated ---------------------------------------------

/// A table of the module `kv`: rows (id, name), the id its rowid.
struct KvTable {
    rows: Vec<(i64, Vec<u8>)>,
    _t: Token,
}

struct KvCursor {
    table: *mut KvTable,
    rows: Vec<(i64, Vec<u8>)>,
    at: usize,
    _t: Token,
}

unsafe extern "C" fn kv_connect(
    _: *mut c_void,
    call: *mut sqlbatch_vtab_call,
    _create: bool,
    _args: *const sqlbatch_str,
    _n_args: usize,
    out: *mut *mut c_void,
) -> i32 {
    let sql = "CREATE TABLE x(id INTEGER, name TEXT)";
    let rc = unsafe { sqlbatch_vtab_declare(call, sql.as_ptr().cast(), sql.len()) };
    if rc == SQLBATCH_OK {
        unsafe { *out = give(KvTable { rows: Vec::new(), _t: Token::new() }) };
    }
    rc
}

unsafe extern "C" fn kv_best_index(
    _: *mut c_void,
    _: *mut sqlbatch_vtab_call,
    _: *mut c_void,
    index: *mut sqlbatch_vtab_index,
) -> i32 {
    let ix = unsafe { &mut *index };
    ix.estimated_cost = 1000.0;
    if ix.n_constraints > 0 {
        let cons = unsafe { std::slice::from_raw_parts(ix.constraints, ix.n_constraints) };
        let uses = unsafe { std::slice::from_raw_parts_mut(ix.uses, ix.n_constraints) };
        if let Some(i) = cons.iter().position(|c| c.column == 0 && c.op == SQLBATCH_INDEX_EQ && c.usable) {
            uses[i] = sqlbatch_vtab_use { arg_index: 1, omit: true, whole_list: false };
            ix.idx_num = 1;
            ix.estimated_cost = 1.0;
        }
    }
    SQLBATCH_OK
}

unsafe extern "C" fn kv_open(
    _: *mut c_void,
    _: *mut sqlbatch_vtab_call,
    table: *mut c_void,
    out: *mut *mut c_void,
) -> i32 {
    let cur = KvCursor { table: table.cast(), rows: Vec::new(), at: 0, _t: Token::new() };
    unsafe { *out = give(cur) };
    SQLBATCH_OK
}

unsafe extern "C" fn kv_filter(
    _: *mut c_void,
    _: *mut sqlbatch_vtab_call,
    cursor: *mut c_void,
    idx_num: i32,
    args: *const sqlbatch_vtab_arg,
    n_args: usize,
    _: *const u8,
) -> i32 {
    let cur = unsafe { &mut *cursor.cast::<KvCursor>() };
    let table = unsafe { &*cur.table };
    let id = (idx_num == 1 && n_args == 1).then(|| unsafe { (*args).value.bits as i64 });
    cur.rows = table.rows.iter().filter(|r| id.map_or(true, |id| r.0 == id)).cloned().collect();
    cur.at = 0;
    SQLBATCH_OK
}

unsafe extern "C" fn kv_fill(
    _: *mut c_void,
    call: *mut sqlbatch_vtab_call,
    cursor: *mut c_void,
    max_rows: usize,
) -> i32 {
    let cur = unsafe { &mut *cursor.cast::<KvCursor>() };
    let part = &cur.rows[cur.at..(cur.at + max_rows).min(cur.rows.len())];
    if !part.is_empty() {
        let mut p = Params::default();
        for (id, name) in part {
            p.push(&Val::Int(*id)).push(&Val::Text(name.clone()));
        }
        let rowids: Vec<i64> = part.iter().map(|r| r.0).collect();
        let rc = unsafe { sqlbatch_vtab_push(call, &p.as_c(), 2, rowids.as_ptr()) };
        if rc != SQLBATCH_OK {
            return rc;
        }
    }
    cur.at += part.len();
    if cur.at < cur.rows.len() {
        SQLBATCH_ROW
    } else {
        SQLBATCH_DONE
    }
}

unsafe extern "C" fn kv_close(_: *mut c_void, cursor: *mut c_void) {
    unsafe { release::<KvCursor>(cursor) };
}

unsafe extern "C" fn kv_disconnect(_: *mut c_void, table: *mut c_void, _destroy: bool) {
    unsafe { release::<KvTable>(table) };
}

unsafe extern "C" fn kv_update(
    _: *mut c_void,
    _: *mut sqlbatch_vtab_call,
    table: *mut c_void,
    change: *const sqlbatch_vtab_change,
    out_rowid: *mut i64,
) -> i32 {
    let table = unsafe { &mut *table.cast::<KvTable>() };
    let ch = unsafe { &*change };
    let values = if ch.n_values == 0 {
        &[][..]
    } else {
        unsafe { std::slice::from_raw_parts(ch.values, ch.n_values) }
    };
    let name = |v: &sqlbatch_value| unsafe { arg(v, ch.data) }.1.to_vec();
    match ch.op {
        SQLBATCH_VTAB_INSERT => {
            let id = values[0].bits as i64;
            table.rows.push((id, name(&values[1])));
            unsafe { *out_rowid = id };
        }
        SQLBATCH_VTAB_UPDATE => {
            for row in table.rows.iter_mut().filter(|row| row.0 == ch.old_rowid) {
                row.1 = name(&values[1]);
            }
        }
        _ => table.rows.retain(|row| row.0 != ch.old_rowid),
    }
    SQLBATCH_OK
}

fn vtab_family(r: &Run) {
    let c = r.open_quietly("main.db");
    let m = sqlbatch_vtab_module {
        connect: Some(kv_connect),
        best_index: Some(kv_best_index),
        open: Some(kv_open),
        filter: Some(kv_filter),
        fill: Some(kv_fill),
        close: Some(kv_close),
        disconnect: Some(kv_disconnect),
        update: Some(kv_update),
        batch_rows: 4,
    };
    r.on(&c, "create_module", unsafe {
        sqlbatch_conn_create_module(c.0, c"kv".as_ptr(), 2, &m, 0, give(Token::new()), Some(release::<Token>))
    });
    if !r.exec(&c, "create virtual table", "CREATE VIRTUAL TABLE temp.v USING kv()") {
        return;
    }
    let filled = r.exec(
        &c,
        "insert into a virtual table",
        "WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < 20) \
         INSERT INTO v(id, name) SELECT x, 'name ' || x FROM i",
    );
    if let Some(rows) = r.query(&c, "scan", "SELECT id, name FROM v") {
        if filled && rows.len() != 20 {
            r.wrong("scan: rows", rows.len() as i64);
        }
    }
    r.exec(&c, "update a virtual table", "UPDATE v SET name = name || '!' WHERE id % 3 = 0");
    r.exec(&c, "delete from a virtual table", "DELETE FROM v WHERE id > 15");
    if let Some(rows) = r.query(&c, "scan by id", "SELECT name FROM v WHERE id = 2") {
        if filled && rows != vec![vec![t("name 2")]] {
            r.wrong("scan by id: rows", rows.len() as i64);
        }
    }
    r.query(&c, "scan by a list", "SELECT id FROM v WHERE id IN (1, 5, 9)");
    let mut p = Params::default();
    p.push_named(b":run", &Val::Int(r.n));
    let (rc, res) = c.try_exec_with(
        "BEGIN; INSERT INTO log(run, what) SELECT :run, 'vtab ' || (id - 1) FROM v WHERE id = 1; COMMIT",
        &p,
    );
    if r.on(&c, "copy from a virtual table", rc) == SQLBATCH_OK && res.changes == 1 {
        r.commit("main.db", "vtab", 0);
    }
    r.settle(&c);
    r.exec(&c, "drop a virtual table", "DROP TABLE temp.v");
}

// ---- hooks: update hooks, change feed, commit/rollback, authorizer, progress, trace ----------

#[derive(Default)]
struct Seen {
    /// Rowids of the rows inserted, per event, in batches, and in the feed's COMMIT batches.
    updates: Vec<i64>,
    batched: Vec<i64>,
    feed_pending: Vec<i64>,
    feed_committed: Vec<i64>,
    calls: u64,
    /// Whether the commit hook turns commits into rollbacks.
    veto: bool,
}

type Shared = Arc<Mutex<Seen>>;

fn seen<'a>(u: *mut c_void) -> std::sync::MutexGuard<'a, Seen> {
    let (s, _) = unsafe { &*u.cast::<(Shared, Token)>() };
    s.lock().unwrap_or_else(|e| e.into_inner())
}

fn inserts(changes: *const sqlbatch_change, n: usize) -> impl Iterator<Item = i64> {
    let changes = if n == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(changes, n) } };
    changes.iter().filter(|c| c.op == sq::SQLITE_INSERT).map(|c| c.rowid)
}

unsafe extern "C" fn on_update(u: *mut c_void, op: i32, _: *const c_char, _: *const c_char, rowid: i64) {
    if op == sq::SQLITE_INSERT {
        seen(u).updates.push(rowid);
    }
}

unsafe extern "C" fn on_batch(
    u: *mut c_void,
    changes: *const sqlbatch_change,
    n: usize,
    _: *const sqlbatch_change_table,
    _: usize,
) -> i32 {
    seen(u).batched.extend(inserts(changes, n));
    0
}

unsafe extern "C" fn on_feed(
    u: *mut c_void,
    changes: *const sqlbatch_change,
    n: usize,
    _: *const sqlbatch_change_table,
    _: usize,
    reason: i32,
) {
    let mut s = seen(u);
    s.feed_pending.extend(inserts(changes, n));
    match reason {
        SQLBATCH_FEED_COMMIT => {
            let done = std::mem::take(&mut s.feed_pending);
            s.feed_committed.extend(done);
        }
        SQLBATCH_FEED_ROLLBACK => s.feed_pending.clear(),
        _ => {}
    }
}

unsafe extern "C" fn on_commit(u: *mut c_void) -> i32 {
    let mut s = seen(u);
    s.calls += 1;
    s.veto as i32
}

unsafe extern "C" fn on_rollback(u: *mut c_void) {
    seen(u).calls += 1;
}

unsafe extern "C" fn on_progress(u: *mut c_void) -> i32 {
    seen(u).calls += 1;
    0
}

unsafe extern "C" fn on_busy(_: *mut c_void, _: i32) -> i32 {
    0
}

unsafe extern "C" fn on_wal(u: *mut c_void, _: *const c_char, _: i32) -> i32 {
    seen(u).calls += 1;
    0
}

unsafe extern "C" fn on_authorize(
    u: *mut c_void,
    _: i32,
    _: *const c_char,
    _: *const c_char,
    _: *const c_char,
    _: *const c_char,
) -> i32 {
    seen(u).calls += 1;
    0
}

unsafe extern "C" fn on_trace(u: *mut c_void, e: *const sqlbatch_trace_event) {
    let e = unsafe { &*e };
    if !e.expanded_sql.ptr.is_null() {
        let _ = unsafe { CStr::from_ptr(e.expanded_sql.ptr) };
    }
    seen(u).calls += 1;
}

unsafe extern "C" fn on_preupdate(u: *mut c_void, _: *const sqlbatch_preupdate) {
    seen(u).calls += 1;
}

fn hooks_family(r: &Run) {
    let c = r.open_quietly("main.db");
    let shared = Shared::default();
    let data = || give((shared.clone(), Token::new()));
    let done: sqlbatch_destroy_fn = Some(release::<(Shared, Token)>);
    let update = r
        .on(&c, "update_hook", unsafe { sqlbatch_conn_update_hook(c.0, Some(on_update), data(), done) })
        == 0;
    let batched = r.on(&c, "update_hook_batched", unsafe {
        sqlbatch_conn_update_hook_batched(c.0, 4, Some(on_batch), data(), done)
    }) == 0;
    let feed = r
        .on(&c, "change_feed", unsafe { sqlbatch_conn_change_feed(c.0, 4, Some(on_feed), data(), done) })
        == 0;
    let commit_hook = r
        .on(&c, "commit_hook", unsafe { sqlbatch_conn_commit_hook(c.0, Some(on_commit), data(), done) })
        == 0;
    r.on(&c, "rollback_hook", unsafe { sqlbatch_conn_rollback_hook(c.0, Some(on_rollback), data(), done) });
    r.on(&c, "authorizer", unsafe { sqlbatch_conn_authorizer(c.0, Some(on_authorize), data(), done) });
    r.on(&c, "progress_handler", unsafe {
        sqlbatch_conn_progress_handler(c.0, 50, Some(on_progress), data(), done)
    });
    let mask = SQLBATCH_TRACE_STMT
        | SQLBATCH_TRACE_PROFILE
        | SQLBATCH_TRACE_ROW
        | SQLBATCH_TRACE_CLOSE
        | SQLBATCH_TRACE_EXPANDED;
    r.on(&c, "trace", unsafe { sqlbatch_conn_trace(c.0, mask, Some(on_trace), data(), done) });
    let both = SQLBATCH_PREUPDATE_OLD | SQLBATCH_PREUPDATE_NEW;
    r.on(&c, "preupdate_hook", unsafe {
        sqlbatch_conn_preupdate_hook(c.0, both, Some(on_preupdate), data(), done)
    });
    r.on(&c, "wal_hook", unsafe { sqlbatch_conn_wal_hook(c.0, Some(on_wal), data(), done) });
    r.on(&c, "busy_handler", unsafe { sqlbatch_conn_busy_handler(c.0, Some(on_busy), data(), done) });
    // A transaction by a script (with an update), one rolled back, one written behind.
    if r.exec_run(
        &c,
        "a transaction",
        "BEGIN; INSERT INTO log(run, what) VALUES (:run, 'hook 0'), (:run, 'hook 1'), (:run, 'hook 2'); \
         UPDATE log SET what = what WHERE run = :run; COMMIT",
    ) {
        for k in 0..3 {
            r.commit("main.db", "hook", k);
        }
    }
    r.settle(&c);
    r.exec_run(&c, "a rollback", "BEGIN; INSERT INTO log(run, what) VALUES (:run, 'undone'); ROLLBACK");
    r.settle(&c);
    // A commit the commit hook turns into a rollback.
    shared.lock().unwrap().veto = true;
    let mut p = Params::default();
    p.push_named(b":run", &Val::Int(r.n));
    let sql = "BEGIN; INSERT INTO log(run, what) VALUES (:run, 'vetoed'); COMMIT";
    let rc = r.expect("a vetoed commit", c.try_exec_with(sql, &p).0, &[sq::SQLITE_CONSTRAINT_COMMITHOOK]);
    if rc == SQLBATCH_OK && commit_hook {
        r.wrong("a vetoed commit: committed", 0);
    }
    shared.lock().unwrap().veto = false;
    r.settle(&c);
    let (rc, s, _) = c.try_prepare(b"INSERT INTO log(run, what) VALUES (?, ?)", 0);
    r.on(&c, "prepare", rc);
    if let Some(s) = s {
        if r.exec(&c, "begin", "BEGIN") {
            let p = log_rows(r, "hook behind", 0..5);
            let mut w = sqlbatch_write_result::default();
            if r.ok("execute_many_start", unsafe { sqlbatch_stmt_execute_many_start(s.0, &p.as_c(), 5) })
                && r.on(&c, "execute_many_wait", unsafe { sqlbatch_stmt_execute_many_wait(s.0, &mut w) }) == 0
                && r.exec(&c, "commit", "COMMIT")
            {
                for k in 0..5 {
                    r.commit("main.db", "hook behind", k);
                }
            }
            r.settle(&c);
        }
    }
    r.query(&c, "a query", "SELECT id, what FROM log WHERE run = -1 LIMIT 20");
    // Every row of a transaction reported committed was seen by each hook set; the vetoed one
    // is not in the file.
    quietly(|| {
        // (Read by another connection: a ROLLBACK that failed leaves the transaction open.)
        let vetoed = format!("SELECT count(*) FROM log WHERE run = {} AND what = 'vetoed'", r.n);
        if commit_hook && Raw::open(&r.path("main.db")).rows(&vetoed)[0][0] != Val::Int(0) {
            r.wrong("a vetoed commit: in the file", 1);
        }
        // A copy: the hooks lock it while the query runs.
        let seen = std::mem::take(&mut *shared.lock().unwrap());
        for cm in r.commits.borrow().iter() {
            let sql =
                format!("SELECT id FROM log WHERE run = {} AND what = '{}'", cm.run, what(cm.tag, cm.k));
            let Ok(rows) = c.try_rows(&sql, 1) else { continue };
            let Some(Val::Int(id)) = rows.first().map(|r| r[0].clone()) else { continue };
            if update && !seen.updates.contains(&id) {
                r.wrong("update hook: a committed row not seen", id);
            }
            if batched && !seen.batched.contains(&id) {
                r.wrong("batched update hook: a committed row not seen", id);
            }
            if feed && !seen.feed_committed.contains(&id) {
                r.wrong("change feed: a committed row not in a COMMIT batch", id);
            }
        }
    });
}

// ---- config: limits, switches, checkpoints, counters, states ---------------------------------

fn config_family(r: &Run) {
    let c = r.open_quietly("main.db");
    let mut old = 0;
    r.check("limit", unsafe { sqlbatch_conn_limit(c.0, sq::SQLITE_LIMIT_LENGTH, -1, &mut old) });
    r.check("limit", unsafe { sqlbatch_conn_limit(c.0, sq::SQLITE_LIMIT_SQL_LENGTH, 100_000, &mut old) });
    let mut v = 0;
    r.on(&c, "db_config", unsafe {
        sqlbatch_conn_db_config(c.0, sq::SQLITE_DBCONFIG_ENABLE_FKEY, 1, &mut v)
    });
    r.on(&c, "db_config", unsafe { sqlbatch_conn_db_config(c.0, sq::SQLITE_DBCONFIG_DEFENSIVE, -1, &mut v) });
    let (mut log, mut done) = (0, 0);
    r.on(&c, "checkpoint", unsafe {
        sqlbatch_conn_checkpoint(c.0, ptr::null(), 0, SQLBATCH_CHECKPOINT_PASSIVE, &mut log, &mut done)
    });
    if r.exec_run(&c, "insert", "INSERT INTO log(run, what) VALUES (:run, 'config 0')") {
        r.commit("main.db", "config", 0);
    }
    r.on(&c, "checkpoint", unsafe {
        sqlbatch_conn_checkpoint(c.0, c"main".as_ptr(), 4, SQLBATCH_CHECKPOINT_TRUNCATE, &mut log, &mut done)
    });
    let (mut cur, mut high) = (0i64, 0i64);
    for op in [sq::SQLITE_DBSTATUS_CACHE_USED, sq::SQLITE_DBSTATUS_SCHEMA_USED, sq::SQLITE_DBSTATUS_STMT_USED]
    {
        r.on(&c, "status", unsafe { sqlbatch_conn_status(c.0, op, false, &mut cur, &mut high) });
    }
    r.on(&c, "status", unsafe {
        sqlbatch_conn_status(c.0, sq::SQLITE_DBSTATUS_CACHE_HIT, true, &mut cur, &mut high)
    });
    let (rc, s, _) = c.try_prepare(b"SELECT count(*) FROM log WHERE run < 0", 0);
    r.on(&c, "prepare", rc);
    if let Some(s) = s {
        r.drain(&c, "count", &s, 1);
        for op in [sq::SQLITE_STMTSTATUS_VM_STEP, sq::SQLITE_STMTSTATUS_RUN, sq::SQLITE_STMTSTATUS_MEMUSED] {
            r.on(&c, "stmt_status", unsafe { sqlbatch_stmt_status(s.0, op, false, &mut cur) });
        }
    }
    let mut state = 0;
    r.on(&c, "txn_state", unsafe { sqlbatch_conn_txn_state(c.0, ptr::null(), 0, &mut state) });
    r.on(&c, "txn_state", unsafe { sqlbatch_conn_txn_state(c.0, c"main".as_ptr(), 4, &mut state) });
    let mut enc = 0;
    if r.on(&c, "encoding", unsafe { sqlbatch_conn_encoding(c.0, &mut enc) }) == 0
        && enc != SQLBATCH_ENCODING_UTF8
    {
        r.wrong("encoding", enc as i64);
    }
    let mut name = ptr::null();
    if r.on(&c, "filename", unsafe { sqlbatch_conn_filename(c.0, ptr::null(), 0, &mut name) }) == 0
        && !unsafe { CStr::from_ptr(name) }.to_bytes().ends_with(b"main.db")
    {
        r.wrong("filename", 0);
    }
    let mut ro = true;
    if r.on(&c, "readonly", unsafe { sqlbatch_conn_readonly(c.0, c"main".as_ptr(), 4, &mut ro) }) == 0 && ro {
        r.wrong("readonly", 1);
    }
}

// ---- backup: init/step/finish, to a file and back --------------------------------------------

fn backup_family(r: &Run) {
    let src = r.open_quietly("main.db");
    let written = r.exec_run(&src, "insert", "INSERT INTO log(run, what) VALUES (:run, 'backup 0')");
    if written {
        r.commit("main.db", "backup", 0);
    }
    let rows_in = |c: &Conn| r.int(c, "count", "SELECT count(*) FROM log");
    // Into a database in memory 3 pages a step, and into a file all at once.
    for (dest, pages) in [(":memory:".to_string(), 3), (r.path("dest.db"), -1)] {
        let Some(dest) = r.open(&dest, 0) else { continue };
        let mut b = ptr::null_mut();
        if r.on(&dest, "backup_init", unsafe {
            sqlbatch_backup_init(dest.0, ptr::null(), 0, src.0, ptr::null(), 0, &mut b)
        }) == 0
        {
            let rc = loop {
                let rc = unsafe { sqlbatch_backup_step(b, pages) };
                if rc != SQLBATCH_OK {
                    break rc;
                }
                let mut pages = 0;
                r.check("backup_remaining", unsafe { sqlbatch_backup_remaining(b, &mut pages) });
                r.check("backup_pagecount", unsafe { sqlbatch_backup_pagecount(b, &mut pages) });
            };
            r.check("backup_step", rc);
            let finished = r.check("backup_finish", unsafe { sqlbatch_backup_finish(b) });
            if rc == SQLBATCH_DONE && finished == SQLBATCH_OK {
                let expected = quietly(|| src.try_rows("SELECT count(*) FROM log", 1));
                if let (Some(n), Ok(rows)) = (rows_in(&dest), expected) {
                    if rows[0][0] != Val::Int(n) {
                        r.wrong("backup: rows", n);
                    }
                }
            }
        }
    }
    // Whole, to a file (then it holds this run's row), and back into memory.
    let copy = r.path("copy.db");
    if r.on(&src, "backup_to_file", unsafe {
        sqlbatch_conn_backup_to_file(src.0, ptr::null(), 0, copy.as_ptr().cast(), copy.len())
    }) == 0
        && written
    {
        r.commit("copy.db", "backup", 0);
    }
    if let Some(m) = r.open(":memory:", 0) {
        if r.on(&m, "restore_from_file", unsafe {
            sqlbatch_conn_restore_from_file(m.0, ptr::null(), 0, copy.as_ptr().cast(), copy.len())
        }) == 0
        {
            rows_in(&m);
        }
    }
}

// ---- serialize and deserialize ---------------------------------------------------------------

/// A buffer the library handed over, released with `sqlbatch_free`.
struct Owned(*mut u8, usize);

impl Drop for Owned {
    fn drop(&mut self) {
        unsafe { sqlbatch_free(self.0.cast()) };
    }
}

fn serialize_family(r: &Run) {
    let src = r.open_quietly("main.db");
    let mut buf = Owned(ptr::null_mut(), 0);
    if r.on(&src, "serialize", unsafe {
        sqlbatch_conn_serialize(src.0, ptr::null(), 0, &mut buf.0, &mut buf.1)
    }) != 0
    {
        return;
    }
    // FOUND, fixed (src/abi/serialize.rs): when sqlite3_serialize fails before it knows the size
    // (out of memory in its PRAGMA page_count), it returns NULL with a size of -1, which the
    // library reported as SQLBATCH_OK with no buffer and a length of SIZE_MAX.
    if buf.0.is_null() && buf.1 != 0 {
        r.wrong("serialize: OK without a buffer, of length", buf.1 as i64);
        return;
    }
    // A WAL database's image: SQLite's in-memory VFS has no WAL, so the header must say
    // rollback journal (bytes 18 and 19: the file format versions), as SQLite's docs advise.
    if buf.1 > 19 {
        unsafe { ptr::write_bytes(buf.0.add(18), 1, 2) };
    }
    let expected = quietly(|| src.try_rows("SELECT count(*) FROM log", 1));
    for flags in [SQLBATCH_DESERIALIZE_RESIZEABLE, SQLBATCH_DESERIALIZE_READONLY] {
        let Some(m) = r.open(":memory:", 0) else { continue };
        if r.on(&m, "deserialize", unsafe {
            sqlbatch_conn_deserialize(m.0, ptr::null(), 0, buf.0, buf.1, flags)
        }) != 0
        {
            continue;
        }
        if let (Some(n), Ok(rows)) = (r.int(&m, "count", "SELECT count(*) FROM log"), &expected) {
            if rows[0][0] != Val::Int(n) {
                r.wrong("deserialized: rows", n);
            }
        }
        if flags == SQLBATCH_DESERIALIZE_RESIZEABLE
            && r.exec_run(&m, "insert", "INSERT INTO log(run, what) VALUES (:run, 'x')")
        {
            let mut again = Owned(ptr::null_mut(), 0);
            r.on(&m, "serialize", unsafe {
                sqlbatch_conn_serialize(m.0, ptr::null(), 0, &mut again.0, &mut again.1)
            });
        }
    }
}

// ---- blob: open, read, write, reopen, read_many ----------------------------------------------

/// A blob handle, closed on drop.
struct Blob(*mut sqlbatch_blob);

impl Drop for Blob {
    fn drop(&mut self) {
        unsafe { sqlbatch_blob_close(self.0) };
    }
}

fn blob_family(r: &Run) {
    let c = r.open_quietly("main.db");
    if !r.exec(&c, "begin", "BEGIN") {
        return;
    }
    let mut b = Blob(ptr::null_mut());
    if r.on(&c, "blob_open", unsafe {
        sqlbatch_blob_open(c.0, ptr::null(), 0, c"blobs".as_ptr(), 5, c"b".as_ptr(), 1, 1, true, &mut b.0)
    }) == 0
    {
        let mut size = 0;
        if r.on(&c, "blob_size", unsafe { sqlbatch_blob_size(b.0, &mut size) }) == 0 && size != 2000 {
            r.wrong("blob_size", size as i64);
        }
        let bytes = [r.n as u8; 100];
        let mut back = [0u8; 100];
        let wrote = r.on(&c, "blob_write", unsafe { sqlbatch_blob_write(b.0, 10, bytes.as_ptr(), 100) }) == 0;
        if r.on(&c, "blob_read", unsafe { sqlbatch_blob_read(b.0, 10, back.as_mut_ptr(), 100) }) == 0
            && wrote
            && back != bytes
        {
            r.wrong("blob_read: bytes", back[0] as i64);
        }
        if r.on(&c, "blob_reopen", unsafe { sqlbatch_blob_reopen(b.0, 2) }) == 0 {
            r.on(&c, "blob_write", unsafe { sqlbatch_blob_write(b.0, 0, bytes.as_ptr(), 100) });
        }
        let mut ranges: Vec<sqlbatch_blob_range> =
            (1..=8).map(|rowid| sqlbatch_blob_range { rowid, offset: 1990, len: 10, at: 0 }).collect();
        ranges.push(sqlbatch_blob_range { rowid: 3, offset: 1000, len: SQLBATCH_BLOB_TO_END, at: 0 });
        let mut out = vec![0u8; 8 * 10 + 1000];
        let mut done = 0;
        r.on(&c, "blob_read_many", unsafe {
            sqlbatch_blob_read_many(
                b.0,
                ranges.as_mut_ptr(),
                ranges.len(),
                out.as_mut_ptr(),
                out.len(),
                &mut done,
            )
        });
    }
    drop(b);
    if r.exec_run(&c, "insert", "INSERT INTO log(run, what) VALUES (:run, 'blob 0')")
        && r.exec(&c, "commit", "COMMIT")
    {
        r.commit("main.db", "blob", 0);
    }
    r.settle(&c);
}

// ---- session: changesets, patchsets, reading, inverting, concatenating, applying ------------

/// A session, deleted on drop.
struct Session(*mut sqlbatch_session);

impl Drop for Session {
    fn drop(&mut self) {
        unsafe { sqlbatch_session_delete(self.0) };
    }
}

/// The conflict callback: omit the change.
unsafe extern "C" fn omit(_: *mut c_void, _: *const sqlbatch_conflict) -> i32 {
    SQLBATCH_CHANGESET_OMIT
}

/// The table filter: every table.
unsafe extern "C" fn every_table(_: *mut c_void, _: *const c_char) -> i32 {
    1
}

unsafe extern "C" fn count_changes(
    u: *mut c_void,
    _: *const sqlbatch_changeset_change,
    n: usize,
    _: *const u8,
) -> i32 {
    unsafe { *u.cast::<usize>() += n };
    0
}

fn session_family(r: &Run) {
    let c = r.open_quietly("main.db");
    let replica = r.open_quietly("replica.db");
    let mut s = Session(ptr::null_mut());
    if r.on(&c, "session_create", unsafe { sqlbatch_session_create(c.0, ptr::null(), 0, &mut s.0) }) != 0 {
        return;
    }
    let attached =
        r.on(&c, "session_attach", unsafe { sqlbatch_session_attach(s.0, c"log".as_ptr(), 3) }) == 0;
    r.on(&c, "session_set_indirect", unsafe { sqlbatch_session_set_indirect(s.0, false) });
    let committed = r.exec_run(
        &c,
        "a transaction",
        "BEGIN; INSERT INTO log(run, what) \
         VALUES (:run, 'session 0'), (:run, 'session 1'), (:run, 'session 2'); COMMIT",
    );
    if committed {
        for k in 0..3 {
            r.commit("main.db", "session", k);
        }
    }
    r.settle(&c);
    let mut empty = true;
    r.on(&c, "session_is_empty", unsafe { sqlbatch_session_is_empty(s.0, &mut empty) });
    let mut cs = Owned(ptr::null_mut(), 0);
    if r.on(&c, "session_changeset", unsafe { sqlbatch_session_changeset(s.0, &mut cs.0, &mut cs.1) }) != 0 {
        return;
    }
    let mut ps = Owned(ptr::null_mut(), 0);
    r.on(&c, "session_patchset", unsafe { sqlbatch_session_patchset(s.0, &mut ps.0, &mut ps.1) });
    let mut n = 0usize;
    let rc = unsafe {
        sqlbatch_changeset_read(cs.0, cs.1, 0, 2, Some(count_changes), (&mut n as *mut usize).cast())
    };
    if r.check("changeset_read", rc) == 0 && attached && committed && n != 3 {
        r.wrong("changeset_read: changes", n as i64);
    }
    let mut inv = Owned(ptr::null_mut(), 0);
    r.check("changeset_invert", unsafe { sqlbatch_changeset_invert(cs.0, cs.1, &mut inv.0, &mut inv.1) });
    let mut cat = Owned(ptr::null_mut(), 0);
    r.check("changeset_concat", unsafe {
        sqlbatch_changeset_concat(cs.0, cs.1, inv.0, inv.1, &mut cat.0, &mut cat.1)
    });
    // Applied twice to a database in memory, with a filter and a conflict callback (the second
    // time, every insert conflicts).
    if let Some(m) = r.open(":memory:", 0) {
        if r.exec(
            &m,
            "create table",
            "CREATE TABLE log(id INTEGER PRIMARY KEY, run INTEGER NOT NULL, what TEXT)",
        ) {
            for _ in 0..2 {
                r.on(&m, "apply_changeset", unsafe {
                    sqlbatch_conn_apply_changeset(
                        m.0,
                        cs.0,
                        cs.1,
                        SQLBATCH_APPLY_IGNORENOOP,
                        SQLBATCH_CHANGESET_ABORT,
                        Some(omit),
                        Some(every_table),
                        ptr::null_mut(),
                    )
                });
            }
        }
    }
    // Applied to the replica: all of it or none.
    if r.on(&replica, "apply_changeset", unsafe {
        sqlbatch_conn_apply_changeset(
            replica.0,
            cs.0,
            cs.1,
            0,
            SQLBATCH_CHANGESET_ABORT,
            None,
            None,
            ptr::null_mut(),
        )
    }) == 0
        && attached
        && committed
    {
        for k in 0..3 {
            r.commit("replica.db", "session", k);
        }
    }
}

// ---- value_convert ---------------------------------------------------------------------------

/// Conversions that go through SQLite (TEXT and BLOB to numbers, also from UTF-16
/// databases) and one that does not: (what, status, the value's bits if it was wrong).
fn conversions() -> Vec<(&'static str, i32, Option<u64>)> {
    let cases: [(&str, u8, &[u8], u8, u64); 6] = [
        ("text to integer", SQLBATCH_TEXT, b" +12.5e1", SQLBATCH_INTEGER, 12),
        ("text to float", SQLBATCH_TEXT, b" +12.5e1", SQLBATCH_FLOAT, 125f64.to_bits()),
        ("blob to float", SQLBATCH_BLOB, b"7", SQLBATCH_FLOAT, 7f64.to_bits()),
        (
            "utf-16be blob to integer",
            SQLBATCH_BLOB,
            b"\x001\x002",
            SQLBATCH_INTEGER | SQLBATCH_CONVERT_UTF16BE,
            12,
        ),
        (
            "utf-16le blob to float",
            SQLBATCH_BLOB,
            b"1\x002\x00",
            SQLBATCH_FLOAT | SQLBATCH_CONVERT_UTF16LE,
            12f64.to_bits(),
        ),
        ("integer to text", SQLBATCH_INTEGER, b"", SQLBATCH_TEXT, 0),
    ];
    cases
        .iter()
        .map(|&(what, kind, bytes, to, want)| {
            let v = if kind == SQLBATCH_INTEGER {
                sqlbatch_value::int(-42)
            } else {
                sqlbatch_value::bytes(kind, 0, bytes.len() as u32)
            };
            let mut out = sqlbatch_value::NULL;
            let mut buf = [0u8; 32];
            let rc = unsafe {
                sqlbatch_value_convert(
                    &v,
                    bytes.as_ptr(),
                    bytes.len(),
                    to,
                    &mut out,
                    buf.as_mut_ptr(),
                    buf.len(),
                )
            };
            let right =
                if kind == SQLBATCH_INTEGER { &buf[..out.len as usize] == b"-42" } else { out.bits == want };
            (what, rc, (rc == SQLBATCH_OK && !right).then_some(out.bits))
        })
        .collect()
}

// FOUND, fixed (src/engine/convert.rs, `read_bytes`): sqlite3_column_double of the bytes bound
// (not NUL-terminated) makes a NUL-terminated copy first; when that allocation fails it
// returns 0.0 and leaves SQLITE_NOMEM for sqlite3_errcode (as SQLite documents for every
// sqlite3_column_*), which the converter did not ask: sqlbatch_value_convert of TEXT
// " +12.5e1" (or BLOB "7") to FLOAT returned SQLBATCH_OK with 0.0.
fn convert_family(r: &Run) {
    // On this thread, whose converter is open, and on a new one, which opens its own.
    let here = conversions();
    let there =
        std::thread::Builder::new().name("malloc-convert".into()).spawn(conversions).unwrap().join().unwrap();
    for (what, rc, wrong) in here.into_iter().chain(there) {
        r.check(what, rc);
        if let Some(bits) = wrong {
            r.wrong("value_convert: SQLBATCH_OK with a wrong value (its bits)", bits as i64);
        }
    }
}
