//! Many connections on many threads reading and writing one WAL database.
//!
//! Each thread has its own connection (the thread model: a connection is used by one thread
//! at a time) and commits transactions of `BATCH` rows, alternating bulk writes
//! (`sqlbatch_stmt_execute_many`) and parameterized scripts (`sqlbatch_conn_exec`), while
//! reading through the batched fetch. The only error allowed is a documented busy result
//! (`SQLITE_BUSY` and its extended codes), and only without a busy timeout, where the caller
//! retries. No row may be lost or doubled, and no reader may see part of a transaction.

mod common;
use common::*;
use libsqlite3_sys as sq;
use std::thread;

const THREADS: i64 = 8;
const TXNS: i64 = 40;
const BATCH: i64 = 50;

fn temp_db(name: &str) -> String {
    let p = std::env::temp_dir().join(format!("sqlbatch-conc-{}-{name}.db", std::process::id()));
    remove_db(p.to_str().unwrap());
    p.to_str().unwrap().to_owned()
}

fn remove_db(path: &str) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{path}{suffix}"));
    }
}

fn is_busy(rc: i32) -> bool {
    rc & 0xff == sq::SQLITE_BUSY
}

/// Runs `f` until it returns something other than a busy result; counts the retries.
fn retry(busy: &mut u64, mut f: impl FnMut() -> i32) -> i32 {
    loop {
        let rc = f();
        if !is_busy(rc) {
            return rc;
        }
        *busy += 1;
        thread::yield_now();
    }
}

fn int(v: &Val) -> i64 {
    match v {
        Val::Int(i) => *i,
        v => panic!("not an integer: {v:?}"),
    }
}

/// One thread's work; returns how many busy results it retried.
fn worker(path: &str, me: i64, timeout_ms: i32) -> u64 {
    let c = Conn::open(path);
    assert_eq!(unsafe { sqlbatch_conn_busy_timeout(c.0, timeout_ms) }, SQLBATCH_OK);
    let mut busy = 0;
    let ins = c.prepare("INSERT INTO t(thread, seq, payload) VALUES (?, ?, ?)");
    let total = c.prepare("SELECT count(*), coalesce(sum(seq), 0) FROM t");
    let mine = c.prepare("SELECT seq FROM t WHERE thread = ? ORDER BY seq");
    let mut seen_total = 0;
    for txn in 0..TXNS {
        let first = txn * BATCH;
        let rc = retry(&mut busy, || c.try_exec("BEGIN IMMEDIATE").0);
        assert_eq!(rc, SQLBATCH_OK, "BEGIN: {}", c.error().1);
        let rc = if txn % 2 == 0 {
            let mut p = Params::default();
            for seq in first..first + BATCH {
                p.push(&Val::Int(me)).push(&Val::Int(seq)).push(&t(&format!("{me}:{seq}")));
            }
            let (rc, w) = ins.execute_many(&p, BATCH as usize);
            if rc == SQLBATCH_OK {
                assert_eq!(w.changes, BATCH);
            }
            rc
        } else {
            let script =
                "INSERT INTO t(thread, seq, payload) VALUES (?, ?, 'script');".repeat(BATCH as usize);
            let vals: Vec<Val> = (first..first + BATCH).flat_map(|s| [Val::Int(me), Val::Int(s)]).collect();
            let p = Params::of(&vals);
            c.try_exec_with(&script, &p).0
        };
        // Inside an IMMEDIATE transaction the write lock is held: no busy result here.
        assert_eq!(rc, SQLBATCH_OK, "thread {me} txn {txn}: {}", c.error().1);
        let rc = retry(&mut busy, || c.try_exec("COMMIT").0);
        assert_eq!(rc, SQLBATCH_OK, "COMMIT: {}", c.error().1);

        // Readers never see part of a transaction, and never go back in time.
        let rows = loop {
            unsafe { sqlbatch_stmt_reset(total.0) };
            let (rc, b) = total.fetch(1, usize::MAX);
            if is_busy(rc) {
                busy += 1;
                continue;
            }
            assert_eq!(rc, SQLBATCH_DONE, "{}", c.error().1);
            break batch_rows(&b);
        };
        let n = int(&rows[0][0]);
        assert_eq!(n % BATCH, 0, "a reader saw part of a transaction: {n} rows");
        assert!(n >= seen_total, "went back in time: {n} after {seen_total}");
        seen_total = n;
        // My own rows, read in small batches, are all there and in order.
        let p = Params::of(&[Val::Int(me)]);
        assert_eq!(mine.bind(&p), SQLBATCH_OK);
        let seqs: Vec<i64> = mine.all(7, 256).iter().map(|r| int(&r[0])).collect();
        assert_eq!(seqs, (0..first + BATCH).collect::<Vec<_>>(), "thread {me} after txn {txn}");
    }
    busy
}

fn run(name: &str, timeout_ms: i32) -> u64 {
    let path = temp_db(name);
    let c = Conn::open(&path);
    c.exec("PRAGMA journal_mode = WAL; CREATE TABLE t(thread INTEGER, seq INTEGER, payload TEXT, PRIMARY KEY (thread, seq))");
    let handles: Vec<_> = (0..THREADS)
        .map(|me| {
            let path = path.clone();
            thread::spawn(move || worker(&path, me, timeout_ms))
        })
        .collect();
    let busy: u64 = handles.into_iter().map(|h| h.join().expect("a worker failed")).sum();
    assert_eq!(
        c.rows("SELECT count(*), count(DISTINCT thread), sum(seq) FROM t"),
        vec![vec![
            Val::Int(THREADS * TXNS * BATCH),
            Val::Int(THREADS),
            Val::Int(THREADS * (TXNS * BATCH) * (TXNS * BATCH - 1) / 2)
        ]]
    );
    assert_eq!(c.rows("PRAGMA integrity_check"), vec![vec![t("ok")]]);
    drop(c);
    remove_db(&path);
    eprintln!("{name}: {} rows from {THREADS} threads, {busy} busy results retried", THREADS * TXNS * BATCH);
    busy
}

#[test]
fn many_threads_on_one_wal_database_with_a_busy_timeout() {
    // With a timeout SQLite waits for the lock itself: no busy result reaches the caller.
    assert_eq!(run("timeout", 60_000), 0);
}

#[test]
fn many_threads_on_one_wal_database_without_a_busy_timeout() {
    // Without one, BEGIN IMMEDIATE (and nothing else) may report SQLITE_BUSY; retried.
    run("no-timeout", 0);
}

#[test]
fn full_mutex_connections_shared_by_threads_under_a_lock() {
    // SQLBATCH_OPEN_FULLMUTEX, one connection handed between threads behind a Mutex (as a
    // pool does): calls are serialized by the caller, results stay consistent.
    let path = temp_db("shared");
    let c = Conn::open_flags(&path, SQLBATCH_OPEN_FULLMUTEX);
    c.exec("PRAGMA journal_mode = WAL; CREATE TABLE t(a INTEGER PRIMARY KEY)");
    /// A connection moved between threads; the Mutex serializes its use.
    struct Moved(Conn);
    unsafe impl Send for Moved {}
    let shared = std::sync::Arc::new(std::sync::Mutex::new(Moved(c)));
    let handles: Vec<_> = (0..4)
        .map(|me| {
            let shared = shared.clone();
            thread::spawn(move || {
                for i in 0..500 {
                    let c = &shared.lock().unwrap().0;
                    let p = Params::of(&[Val::Int(me * 1000 + i)]);
                    assert_eq!(c.try_exec_with("INSERT INTO t VALUES (?)", &p).0, SQLBATCH_OK);
                    let n = int(&c.rows("SELECT count(*) FROM t")[0][0]);
                    assert!(n > i);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(shared.lock().unwrap().0.rows("SELECT count(*) FROM t"), vec![vec![Val::Int(2000)]]);
    drop(shared);
    remove_db(&path);
}
