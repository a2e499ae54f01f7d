//! Faults: interrupts, locks held by other connections, read-only databases, a full disk,
//! schema changes under a statement, a connection closed under its statements, and failed
//! transactions. Each must end in a clear error and a connection that still works (or closes
//! cleanly), and nothing committed before a failure may be lost.
//!
//! (More fault tests live in capi_conn.rs and capi_script.rs; tests/README.md lists them all.)

mod common;
use common::*;
use libsqlite3_sys as sq;
use std::ptr;
use std::thread;
use std::time::Duration;

fn temp_path(name: &str) -> String {
    let p = std::env::temp_dir().join(format!("sqlbatch-faults-{}-{name}", std::process::id()));
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", p.display()));
    }
    p.to_str().unwrap().to_owned()
}

fn remove_db(path: &str) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let _ = std::fs::remove_file(format!("{path}{suffix}"));
    }
}

fn count(c: &Conn, table: &str) -> i64 {
    match c.rows(&format!("SELECT count(*) FROM {table}"))[0][0] {
        Val::Int(n) => n,
        ref v => panic!("{v:?}"),
    }
}

const ENDLESS: &str = "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k) SELECT i FROM k";

#[test]
fn an_interrupt_during_a_batched_fetch_keeps_the_rows_before_it_and_the_statement_resets() {
    let c = Conn::memory();
    let s = c.prepare(ENDLESS);
    let (mut seen, mut next) = (0i64, 1i64);
    let it = Interrupter::start(&c, Duration::from_millis(20));
    let rc = loop {
        let (rc, b) = s.fetch(1000, usize::MAX);
        for r in batch_rows(&b) {
            assert_eq!(r, vec![Val::Int(next)], "rows arrive in order, none lost");
            next += 1;
        }
        seen += b.n_rows as i64;
        if rc != SQLBATCH_ROW {
            break rc;
        }
    };
    drop(it);
    assert_eq!(rc, sq::SQLITE_INTERRUPT);
    assert!(seen > 0);
    assert_eq!(s.fetch(10, usize::MAX).0, sq::SQLITE_INTERRUPT, "sticky until reset");
    assert_eq!(unsafe { sqlbatch_stmt_reset(s.0) }, SQLBATCH_OK);
    let (rc, b) = s.fetch(3, usize::MAX);
    assert_eq!(
        (rc, batch_rows(&b)),
        (SQLBATCH_ROW, vec![vec![Val::Int(1)], vec![Val::Int(2)], vec![Val::Int(3)]])
    );
    assert_eq!(c.rows("SELECT 7"), vec![vec![Val::Int(7)]]);
}

#[test]
fn an_interrupted_bulk_insert_in_a_transaction_rolls_back_and_keeps_what_was_committed() {
    let path = temp_path("intr.db");
    let c = Conn::open(&path);
    c.exec("PRAGMA journal_mode = WAL; CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT)");
    c.exec("INSERT INTO t VALUES (-1, 'committed'), (-2, 'committed')");
    let vals: Vec<Val> = (0..1_000_000).flat_map(|i| [Val::Int(i), t("x")]).collect();
    let p = Params::of(&vals);
    let s = c.prepare("INSERT INTO t VALUES (?, ?)");
    c.exec("BEGIN");
    let (rc, w) = {
        let _it = Interrupter::start(&c, Duration::from_millis(20));
        s.execute_many(&p, vals.len() / 2)
    };
    assert_eq!(rc, sq::SQLITE_INTERRUPT);
    assert!(w.rows < 1_000_000);
    assert_eq!(c.error().0.row_index, w.rows as i64);
    // An interrupt inside a transaction may roll it back already; either way end it.
    let _ = c.try_exec("ROLLBACK");
    assert!(c.autocommit());
    assert_eq!(count(&c, "t"), 2);
    // Another connection sees exactly the committed rows, and the file is sound.
    let other = Conn::open(&path);
    assert_eq!(
        other.rows("SELECT a, b FROM t ORDER BY a"),
        vec![vec![Val::Int(-2), t("committed")], vec![Val::Int(-1), t("committed")]]
    );
    assert_eq!(other.rows("PRAGMA integrity_check"), vec![vec![t("ok")]]);
    // The statement and the connection work again.
    let (rc, w) = s.execute_many(&Params::of(&[Val::Int(5), t("after")]), 1);
    assert_eq!((rc, w.rows), (SQLBATCH_OK, 1));
    assert_eq!(count(&other, "t"), 3);
    drop((s, c, other));
    remove_db(&path);
}

#[test]
fn an_interrupted_script_in_a_transaction_keeps_what_was_committed() {
    let path = temp_path("intr-script.db");
    let c = Conn::open(&path);
    c.exec("CREATE TABLE t(a); INSERT INTO t VALUES (1), (2)");
    let mut script = String::from("BEGIN;");
    for k in 0..300_000 {
        script.push_str(&format!("INSERT INTO t VALUES ({k});"));
    }
    script.push_str("COMMIT;");
    let (rc, r) = {
        let _it = Interrupter::start(&c, Duration::from_millis(20));
        c.try_exec(&script)
    };
    assert_eq!(rc, sq::SQLITE_INTERRUPT, "ran {} statements", r.statements);
    assert!(r.statements < 300_002);
    let _ = c.try_exec("ROLLBACK");
    assert_eq!(count(&c, "t"), 2);
    assert_eq!(count(&Conn::open(&path), "t"), 2);
    drop(c);
    remove_db(&path);
}

#[test]
fn a_failed_transaction_loses_nothing_committed_before_it() {
    let path = temp_path("txn.db");
    let c = Conn::open(&path);
    c.exec("PRAGMA journal_mode = WAL; CREATE TABLE acct(id INTEGER PRIMARY KEY, balance INTEGER CHECK (balance >= 0))");
    c.exec("BEGIN; INSERT INTO acct VALUES (1, 100), (2, 50); COMMIT");
    // A script whose transaction fails midway (a CHECK constraint) and is rolled back.
    let (rc, r) = c.try_exec(
        "BEGIN; UPDATE acct SET balance = balance + 70 WHERE id = 2; UPDATE acct SET balance = balance - 70 WHERE id = 1; UPDATE acct SET balance = balance - 70 WHERE id = 1; COMMIT",
    );
    assert_eq!((rc, r.statements), (sq::SQLITE_CONSTRAINT_CHECK, 3));
    assert!(!c.autocommit(), "a constraint failure leaves the transaction open");
    c.exec("ROLLBACK");
    // A bulk write whose fourth row fails, inside a transaction, rolled back.
    c.exec("BEGIN");
    let s = c.prepare("INSERT INTO acct VALUES (?, ?)");
    let p = Params::of(&[
        Val::Int(3),
        Val::Int(1),
        Val::Int(4),
        Val::Int(1),
        Val::Int(5),
        Val::Int(1),
        Val::Int(1),
        Val::Int(9),
    ]);
    let (rc, w) = s.execute_many(&p, 4);
    assert_eq!((rc, w.rows), (sq::SQLITE_CONSTRAINT_PRIMARYKEY, 3));
    c.exec("ROLLBACK");
    // A COMMIT that fails for lack of room (max_page_count), and its transaction rolled back.
    c.exec("PRAGMA max_page_count = 8");
    c.exec("BEGIN");
    let blob = Params::of(&[Val::Int(10), Val::Blob(vec![7; 100_000])]);
    let (rc, _) = s.execute_many(&blob, 1);
    assert_eq!(rc, sq::SQLITE_FULL, "{}", c.error().1);
    let _ = c.try_exec("ROLLBACK");
    assert!(c.autocommit());
    let want = vec![vec![Val::Int(1), Val::Int(100)], vec![Val::Int(2), Val::Int(50)]];
    assert_eq!(c.rows("SELECT * FROM acct ORDER BY id"), want);
    drop(s);
    drop(c);
    // After reopening, from the file.
    let c = Conn::open(&path);
    assert_eq!(c.rows("SELECT * FROM acct ORDER BY id"), want);
    assert_eq!(c.rows("PRAGMA integrity_check"), vec![vec![t("ok")]]);
    drop(c);
    remove_db(&path);
}

#[test]
fn disk_full_through_max_page_count_is_a_clear_error_and_the_database_stays_usable() {
    let path = temp_path("full.db");
    let c = Conn::open(&path);
    c.exec("CREATE TABLE big(b); INSERT INTO big VALUES (x'01'); PRAGMA max_page_count = 16");
    let s = c.prepare("INSERT INTO big VALUES (?)");
    let row = Params::of(&[Val::Blob(vec![0x5a; 3000])]);
    let mut rc = SQLBATCH_OK;
    let mut ok = 0;
    while rc == SQLBATCH_OK {
        rc = s.execute_many(&row, 1).0;
        ok += (rc == SQLBATCH_OK) as i64;
        assert!(ok < 1000, "the page limit never bit");
    }
    assert_eq!(rc, sq::SQLITE_FULL);
    let (e, msg) = c.error();
    assert_eq!((e.primary_code, e.row_index), (sq::SQLITE_FULL, 0));
    assert!(msg.contains("full"), "{msg}");
    // Through script exec and a fetch too.
    assert_eq!(c.try_exec("INSERT INTO big SELECT b FROM big").0, sq::SQLITE_FULL);
    let ins = c.prepare("INSERT INTO big VALUES (zeroblob(100000)) RETURNING rowid");
    assert_eq!(ins.fetch(10, usize::MAX).0, sq::SQLITE_FULL);
    assert_eq!(count(&c, "big"), 1 + ok);
    c.exec("DELETE FROM big WHERE rowid > 1; INSERT INTO big VALUES (x'02')");
    assert_eq!(count(&c, "big"), 2);
    drop((s, ins, c));
    remove_db(&path);
}

#[test]
fn busy_with_a_timeout_waits_for_the_lock_to_go() {
    let path = temp_path("busy-wait.db");
    let a = Conn::open(&path);
    a.exec("PRAGMA journal_mode = WAL; CREATE TABLE t(a)");
    a.exec("BEGIN IMMEDIATE; INSERT INTO t VALUES (1)");
    let b = Conn::open(&path);
    assert_eq!(unsafe { sqlbatch_conn_busy_timeout(b.0, 60_000) }, SQLBATCH_OK);
    let handle = a.0 as usize;
    let releaser = thread::spawn(move || {
        thread::sleep(Duration::from_millis(100));
        let a = handle as *mut sqlbatch_conn;
        let sql = "COMMIT";
        unsafe { sqlbatch_conn_exec(a, sql.as_ptr().cast(), sql.len(), ptr::null(), ptr::null_mut()) }
    });
    // Blocks in SQLite's busy handler until the other connection commits.
    let s = b.prepare("INSERT INTO t VALUES (?)");
    let (rc, w) = s.execute_many(&Params::of(&[Val::Int(2), Val::Int(3)]), 2);
    assert_eq!(releaser.join().unwrap(), SQLBATCH_OK);
    assert_eq!((rc, w.rows), (SQLBATCH_OK, 2), "{}", b.error().1);
    assert_eq!(count(&a, "t"), 3);
    drop((s, a, b));
    remove_db(&path);
}

#[test]
fn busy_in_a_fetch_is_reported_and_the_statement_works_after_a_reset() {
    // Rollback-journal mode: an exclusive lock held by a writer blocks readers.
    let path = temp_path("busy-read.db");
    let a = Conn::open(&path);
    a.exec("CREATE TABLE t(a); INSERT INTO t VALUES (1), (2)");
    let b = Conn::open(&path);
    let s = b.prepare("SELECT a FROM t ORDER BY a");
    a.exec("BEGIN EXCLUSIVE; INSERT INTO t VALUES (3)");
    let (rc, _) = s.fetch(10, usize::MAX);
    assert_eq!(rc & 0xff, sq::SQLITE_BUSY);
    assert_eq!(b.error().0.primary_code, sq::SQLITE_BUSY);
    a.exec("COMMIT");
    assert_eq!(unsafe { sqlbatch_stmt_reset(s.0) }, SQLBATCH_OK);
    assert_eq!(s.all(10, usize::MAX), vec![vec![Val::Int(1)], vec![Val::Int(2)], vec![Val::Int(3)]]);
    drop((s, a, b));
    remove_db(&path);
}

#[test]
fn writes_to_a_read_only_database_fail_clearly_through_every_entry_point() {
    let path = temp_path("ro.db");
    Conn::open(&path).exec("CREATE TABLE t(a); INSERT INTO t VALUES (1)");
    for (flags, uri) in [(SQLBATCH_OPEN_READONLY, false), (SQLBATCH_OPEN_URI, true)] {
        let target = if uri { format!("file:{path}?mode=ro") } else { path.clone() };
        let c = Conn::open_flags(&target, flags);
        assert_eq!(c.try_exec("INSERT INTO t VALUES (2)").0, sq::SQLITE_READONLY);
        let s = c.prepare("INSERT INTO t VALUES (?)");
        let (rc, w) = s.execute_many(&Params::of(&[Val::Int(2)]), 1);
        assert_eq!((rc, w.rows, c.error().0.row_index), (sq::SQLITE_READONLY, 0, 0));
        let ret = c.prepare("DELETE FROM t RETURNING a");
        assert_eq!(ret.fetch(10, usize::MAX).0, sq::SQLITE_READONLY);
        assert!(c.error().1.contains("readonly"), "{}", c.error().1);
        assert_eq!(c.rows("SELECT a FROM t"), vec![vec![Val::Int(1)]]);
    }
    // PRAGMA query_only on a read-write connection.
    let c = Conn::open(&path);
    c.exec("PRAGMA query_only = 1");
    assert_eq!(c.try_exec("DELETE FROM t").0, sq::SQLITE_READONLY);
    c.exec("PRAGMA query_only = 0; DELETE FROM t");
    drop(c);
    remove_db(&path);
}

#[test]
fn schema_changes_under_a_statement() {
    let path = temp_path("schema.db");
    let c = Conn::open(&path);
    // 100 rows, more than fetch-ahead steps after a first batch of one (16 batches): the
    // statement is still in the middle of its run after that batch, in both modes.
    c.exec(
        "PRAGMA journal_mode = WAL; CREATE TABLE t(a);
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100) INSERT INTO t SELECT i FROM n",
    );
    let s = c.prepare("SELECT * FROM t ORDER BY a");
    let (rc, b) = s.fetch(1, usize::MAX);
    assert_eq!((rc, batch_rows(&b)), (SQLBATCH_ROW, vec![vec![Val::Int(1)]]));
    // On the same connection, a table being read cannot be dropped.
    assert_eq!(c.try_exec("DROP TABLE t").0 & 0xff, sq::SQLITE_LOCKED);
    // Another connection changes the schema between two batches: this read keeps its snapshot.
    let other = Conn::open(&path);
    other.exec("ALTER TABLE t ADD COLUMN b DEFAULT 'new'; INSERT INTO t VALUES (1000, 'x')");
    assert_eq!(s.all(10, usize::MAX), (2..=100).map(|i| vec![Val::Int(i)]).collect::<Vec<_>>());
    // After a reset the statement is recompiled against the new schema (SQLITE_SCHEMA is
    // handled inside SQLite), and its batches have the new shape.
    assert_eq!(unsafe { sqlbatch_stmt_reset(s.0) }, SQLBATCH_OK);
    let rows = s.all(10, usize::MAX);
    assert_eq!(rows.len(), 101);
    assert_eq!(rows[0], vec![Val::Int(1), t("new")]);
    assert_eq!(rows[100], vec![Val::Int(1000), t("x")]);
    // A table dropped by another connection: a clear error, then the connection works.
    other.exec("DROP TABLE t");
    assert_eq!(unsafe { sqlbatch_stmt_reset(s.0) }, SQLBATCH_OK);
    assert_eq!(s.fetch(10, usize::MAX).0, sq::SQLITE_ERROR);
    assert!(c.error().1.contains("no such table"), "{}", c.error().1);
    assert_eq!(c.rows("SELECT 1"), vec![vec![Val::Int(1)]]);
    drop((s, c, other));
    remove_db(&path);
}

#[test]
fn closing_a_connection_under_open_statements_mid_read_and_mid_transaction() {
    let path = temp_path("close.db");
    let c = Conn::open(&path);
    c.exec("CREATE TABLE t(a); INSERT INTO t VALUES (1), (2), (3); CREATE VIRTUAL TABLE f USING fts5(x); INSERT INTO f VALUES ('hello')");
    c.exec("BEGIN; INSERT INTO t VALUES (4)");
    let reading = c.prepare("SELECT a FROM t");
    let fts = c.prepare("SELECT x FROM f WHERE f MATCH 'hello'");
    let idle = c.prepare("SELECT 1");
    assert_eq!(reading.fetch(1, usize::MAX).0, SQLBATCH_ROW);
    assert_eq!(fts.fetch(1, usize::MAX).0, SQLBATCH_DONE);
    drop(c); // closes with three statements open and a transaction in progress
    for s in [&reading, &fts, &idle] {
        assert_eq!(s.fetch(1, usize::MAX).0, SQLBATCH_E_CLOSED);
        assert_eq!(s.bind(&Params::default()), SQLBATCH_E_CLOSED);
        assert_eq!(unsafe { sqlbatch_stmt_reset(s.0) }, SQLBATCH_E_CLOSED);
        let (rc, _) = s.execute_many(&Params::default(), 0);
        assert_eq!(rc, SQLBATCH_E_CLOSED);
    }
    drop((reading, fts, idle));
    // The open transaction was rolled back by the close; the file is sound.
    let c = Conn::open(&path);
    assert_eq!(count(&c, "t"), 3);
    assert_eq!(c.rows("PRAGMA integrity_check"), vec![vec![t("ok")]]);
    drop(c);
    remove_db(&path);
}
