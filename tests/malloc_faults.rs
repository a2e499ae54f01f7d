//! SQLite's allocator failing at every allocation, as SQLite's own `malloc` tests do: a
//! counting allocator installed with `SQLITE_CONFIG_MALLOC` fails the Nth allocation (and, in
//! the persistent mode, every one after it), for every N, while a workload runs through the
//! ABI. Every call either succeeds or returns an out-of-memory error (or the error of a step
//! that an earlier failure left the statement with); the connection closes; SQLite's
//! allocations come back to where they were (no leak); and no transaction the library
//! reported committed is missing from the file.

mod common;
use common::*;
use libsqlite3_sys as sq;
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Mutex, Once};

/// Allocations made since the counter was reset.
static COUNT: AtomicU64 = AtomicU64::new(0);
/// The allocation that fails (0: none).
static FAIL_AT: AtomicU64 = AtomicU64::new(0);
/// Whether every allocation after FAIL_AT fails too.
static PERSISTENT: AtomicU64 = AtomicU64::new(0);
/// Allocations that failed in this run.
static FAILED: AtomicU64 = AtomicU64::new(0);
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
    let n = COUNT.fetch_add(1, Ordering::SeqCst) + 1;
    let at = FAIL_AT.load(Ordering::SeqCst);
    let fail = at != 0 && (n == at || (n > at && PERSISTENT.load(Ordering::SeqCst) != 0));
    if fail {
        FAILED.fetch_add(1, Ordering::SeqCst);
    }
    fail
}

unsafe extern "C" fn x_malloc(n: c_int) -> *mut c_void {
    if fails() {
        return std::ptr::null_mut();
    }
    let p = unsafe { default().xMalloc.unwrap()(n) };
    if !p.is_null() {
        LIVE.fetch_add(1, Ordering::SeqCst);
    }
    p
}

unsafe extern "C" fn x_free(p: *mut c_void) {
    if !p.is_null() {
        LIVE.fetch_sub(1, Ordering::SeqCst);
    }
    unsafe { default().xFree.unwrap()(p) }
}

unsafe extern "C" fn x_realloc(p: *mut c_void, n: c_int) -> *mut c_void {
    if fails() {
        return std::ptr::null_mut();
    }
    let q = unsafe { default().xRealloc.unwrap()(p, n) };
    if p.is_null() && !q.is_null() {
        LIVE.fetch_add(1, Ordering::SeqCst);
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
        assert_eq!(sq::sqlite3_initialize(), sq::SQLITE_OK);
    });
}

/// The tests take turns: the counters are the process's.
static SERIAL: Mutex<()> = Mutex::new(());

/// Whether `rc` is what a call may return when an allocation failed under it: an
/// out-of-memory code, or an error a failure left behind (a statement SQLite could not
/// prepare fully reports `SQLITE_ERROR`, a failed transaction is rolled back).
fn tolerable(rc: i32) -> bool {
    matches!(rc, SQLBATCH_OK | SQLBATCH_ROW | SQLBATCH_DONE)
        || rc & 0xff == sq::SQLITE_NOMEM
        || rc == sq::SQLITE_IOERR_NOMEM
        || rc == sq::SQLITE_ERROR
        || rc == sq::SQLITE_ABORT
        || rc & 0xff == sq::SQLITE_CANTOPEN
}

/// One run of the workload: what it did and whether every status was tolerable. Returns the
/// ids of the transactions the library reported committed.
fn workload(path: &str, run: i64) -> (Vec<i64>, Vec<String>) {
    let mut committed = Vec::new();
    let mut bad = Vec::new();
    let mut check = |what: &str, rc: i32| {
        if !tolerable(rc) {
            bad.push(format!("{what}: {rc}"));
        }
        rc
    };
    let mut conn = std::ptr::null_mut();
    let rc = unsafe { sqlbatch_conn_open(path.as_ptr().cast(), path.len(), 0, &mut conn) };
    check("open", rc);
    let c = Conn(conn);
    if rc != SQLBATCH_OK {
        return (committed, bad);
    }
    // A transaction through a script, its id known to the caller.
    let script = format!("BEGIN; INSERT INTO log(run, what) VALUES ({run}, 'script'); COMMIT;");
    let (rc, _) = c.try_exec(&script);
    if check("exec", rc) == SQLBATCH_OK {
        committed.push(run * 10 + 1);
    } else {
        // A failed COMMIT or INSERT leaves the transaction open, or rolled back.
        let _ = c.try_exec("ROLLBACK");
    }
    // A bulk write of rows in a transaction.
    if check("begin", c.try_exec("BEGIN").0) == SQLBATCH_OK {
        let (rc, s, _) = c.try_prepare(b"INSERT INTO log(run, what) VALUES (?, ?)", 0);
        check("prepare", rc);
        if let Some(s) = s {
            let mut p = Params::default();
            for k in 0..20 {
                p.push(&Val::Int(run))
                    .push(&Val::Text(format!("bulk {k} {}", "x".repeat(k * 10)).into_bytes()));
            }
            let (rc, _) = s.execute_many(&p, 20);
            check("execute_many", rc);
            drop(s);
            if rc == SQLBATCH_OK && check("commit", c.try_exec("COMMIT").0) == SQLBATCH_OK {
                committed.push(run * 10 + 2);
            }
        }
        let _ = c.try_exec("ROLLBACK");
    }
    // Reads: a batched fetch, a table-valued parameter, metadata, a function.
    let (rc, s, _) =
        c.try_prepare(b"SELECT run, what, length(what) FROM log WHERE run IN sqlbatch_rows(?)", 0);
    check("prepare read", rc);
    if let Some(s) = s {
        let ids = Params::of(&[Val::Int(run), Val::Int(run - 1), Val::Null]);
        let pc = ids.as_c();
        if check("bind_rows", unsafe { sqlbatch_stmt_bind_rows(s.0, 1, &pc, 1) }) == SQLBATCH_OK {
            let rc = s.each_batch(7, 1 << 12, |_| true);
            check("fetch", rc);
        }
        let (mut cols, mut n) = (std::ptr::null(), 0);
        check("columns", unsafe { sqlbatch_stmt_columns(s.0, &mut cols, &mut n) });
        let mut sql = sqlbatch_str { ptr: std::ptr::null(), len: 0 };
        check("expanded_sql", unsafe { sqlbatch_stmt_expanded_sql(s.0, &mut sql) });
    }
    let rc = c.try_rows("SELECT count(*), sum(length(what)) FROM log", 10).err().unwrap_or(SQLBATCH_OK);
    check("aggregate", rc);
    drop(c);
    (committed, bad)
}

fn run_every_failure(persistent: bool) {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    install();
    let dir = std::env::temp_dir().join(format!("sqlbatch-malloc-{}-{persistent}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("faults.db");
    let path_s = path.to_str().unwrap().to_owned();
    {
        let c = Conn::open(&path_s);
        c.exec("PRAGMA journal_mode=WAL; CREATE TABLE log(id INTEGER PRIMARY KEY, run INTEGER, what TEXT)");
    }
    let mut all_committed: Vec<i64> = Vec::new();
    let mut failures_seen = 0;
    let mut n = 1u64;
    loop {
        PERSISTENT.store(u64::from(persistent), Ordering::SeqCst);
        let live_before = LIVE.load(Ordering::SeqCst);
        COUNT.store(0, Ordering::SeqCst);
        FAILED.store(0, Ordering::SeqCst);
        FAIL_AT.store(n, Ordering::SeqCst);
        let (committed, bad) = workload(&path_s, n as i64);
        FAIL_AT.store(0, Ordering::SeqCst);
        let failed = FAILED.load(Ordering::SeqCst);
        assert!(bad.is_empty(), "failing allocation {n} (persistent {persistent}): {bad:?}");
        // SQLite's allocations are back to where they were: nothing of the run leaked.
        assert_eq!(LIVE.load(Ordering::SeqCst), live_before, "allocation {n}: SQLite memory leaked");
        all_committed.extend(committed);
        // Every transaction reported committed is in the file.
        let c = Conn::open(&path_s);
        let rows = c.rows("SELECT run, what FROM log");
        for id in &all_committed {
            let (run, kind) = (id / 10, if id % 10 == 1 { "script" } else { "bulk 0 " });
            assert!(
                rows.iter().any(|r| r[0] == Val::Int(run)
                    && matches!(&r[1], Val::Text(t) if t.starts_with(kind.as_bytes()))),
                "allocation {n}: transaction {id} was reported committed but is not in the file"
            );
        }
        drop(c);
        if failed == 0 {
            break; // the run made fewer than n allocations: every one has failed once
        }
        failures_seen += 1;
        n += 1;
    }
    assert!(failures_seen > 100, "the workload made only {failures_seen} allocations");
    std::fs::remove_dir_all(&dir).unwrap();
    eprintln!(
        "malloc faults (persistent {persistent}): {failures_seen} runs, each failing one more allocation"
    );
}

#[test]
fn every_allocation_failing_once_is_an_error_and_loses_nothing() {
    run_every_failure(false);
}

#[test]
fn every_allocation_failing_from_some_point_on_is_an_error_and_loses_nothing() {
    run_every_failure(true);
}
