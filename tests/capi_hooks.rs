//! Hooks and the batched change feed through the C ABI.

mod common;
use common::*;
use libsqlite3_sys as sq;
use std::ffi::{c_char, c_void, CStr};
use std::ptr;
use std::sync::Mutex;

/// One change: its operation, "schema.table" and rowid.
type Event = (i32, String, i64);

/// What the callbacks of one test saw, behind their user data.
#[derive(Default)]
struct Seen {
    events: Vec<Event>,
    commits: usize,
    veto: bool,
    rollbacks: usize,
    batches: Vec<(i32, Vec<Event>)>,
    progress: usize,
    busy: Vec<i32>,
    wal_pages: Vec<i32>,
    destroyed: usize,
    nested_rc: i32,
}

fn seen(p: *mut c_void) -> &'static Mutex<Seen> {
    unsafe { &*(p as *const Mutex<Seen>) }
}

/// The state behind a callback's user data (poisoned or not: a failed assertion elsewhere
/// must not turn into a second panic inside a callback).
fn st(p: *mut c_void) -> std::sync::MutexGuard<'static, Seen> {
    seen(p).lock().unwrap_or_else(|e| e.into_inner())
}

unsafe extern "C" fn on_update(
    u: *mut c_void,
    op: i32,
    schema: *const c_char,
    table: *const c_char,
    rowid: i64,
) {
    let (s, t) = unsafe { (CStr::from_ptr(schema), CStr::from_ptr(table)) };
    let name = format!("{}.{}", s.to_str().unwrap(), t.to_str().unwrap());
    st(u).events.push((op, name, rowid));
}

unsafe extern "C" fn on_commit(u: *mut c_void) -> i32 {
    let mut s = st(u);
    s.commits += 1;
    s.veto as i32
}

unsafe extern "C" fn on_rollback(u: *mut c_void) {
    st(u).rollbacks += 1;
}

unsafe extern "C" fn on_feed(
    u: *mut c_void,
    changes: *const sqlbatch_change,
    n: usize,
    tables: *const sqlbatch_change_table,
    n_tables: usize,
    reason: i32,
) {
    let (changes, tables) =
        unsafe { (std::slice::from_raw_parts(changes, n), std::slice::from_raw_parts(tables, n_tables)) };
    let name = |i: u32| {
        let t = &tables[i as usize];
        let s = unsafe { CStr::from_ptr(t.schema.ptr) }.to_str().unwrap();
        let n = unsafe { CStr::from_ptr(t.name.ptr) }.to_str().unwrap();
        assert_eq!((s.len(), n.len()), (t.schema.len, t.name.len));
        format!("{s}.{n}")
    };
    let batch = changes.iter().map(|c| (c.op, name(c.table), c.rowid)).collect();
    st(u).batches.push((reason, batch));
}

unsafe extern "C" fn count_destroy(u: *mut c_void) {
    st(u).destroyed += 1;
}

fn new_seen() -> (Box<Mutex<Seen>>, *mut c_void) {
    let b = Box::new(Mutex::new(Seen::default()));
    let p = &*b as *const Mutex<Seen> as *mut c_void;
    (b, p)
}

#[test]
fn the_update_commit_and_rollback_hooks_see_every_event() {
    // (The callbacks' state first: it must outlive the connection, also when a test fails.)
    let (s, p) = new_seen();
    let c = Conn::memory();
    unsafe {
        assert_eq!(sqlbatch_conn_update_hook(c.0, Some(on_update), p, Some(count_destroy)), SQLBATCH_OK);
        assert_eq!(sqlbatch_conn_commit_hook(c.0, Some(on_commit), p, Some(count_destroy)), SQLBATCH_OK);
        assert_eq!(sqlbatch_conn_rollback_hook(c.0, Some(on_rollback), p, Some(count_destroy)), SQLBATCH_OK);
    }
    c.exec("CREATE TABLE t(a); INSERT INTO t VALUES (1), (2); UPDATE t SET a = 3 WHERE rowid = 2; DELETE FROM t WHERE rowid = 1");
    let want = vec![
        (sq::SQLITE_INSERT, "main.t".to_string(), 1),
        (sq::SQLITE_INSERT, "main.t".to_string(), 2),
        (sq::SQLITE_UPDATE, "main.t".to_string(), 2),
        (sq::SQLITE_DELETE, "main.t".to_string(), 1),
    ];
    assert_eq!(s.lock().unwrap().events, want);
    assert_eq!(s.lock().unwrap().commits, 4, "each statement commits");
    // A vetoed commit rolls back, and the statement says why.
    s.lock().unwrap().veto = true;
    assert_eq!(c.try_exec("INSERT INTO t VALUES (9)").0, sq::SQLITE_CONSTRAINT_COMMITHOOK);
    assert_eq!(s.lock().unwrap().rollbacks, 1);
    s.lock().unwrap().veto = false;
    assert_eq!(c.rows("SELECT count(*) FROM t"), vec![vec![Val::Int(1)]]);
    c.exec("BEGIN; INSERT INTO t VALUES (5); ROLLBACK");
    assert_eq!(s.lock().unwrap().rollbacks, 2);
    // Removing one hook releases its user data once; close releases the others.
    unsafe { assert_eq!(sqlbatch_conn_update_hook(c.0, None, ptr::null_mut(), None), SQLBATCH_OK) };
    assert_eq!(s.lock().unwrap().destroyed, 1);
    let n = s.lock().unwrap().events.len();
    c.exec("INSERT INTO t VALUES (6)");
    assert_eq!(s.lock().unwrap().events.len(), n, "removed");
    drop(c);
    assert_eq!(s.lock().unwrap().destroyed, 3);
}

#[test]
fn the_change_feed_hands_over_batches_at_full_commit_and_rollback() {
    // (The callbacks' state first: it must outlive the connection, also when a test fails.)
    let (s, p) = new_seen();
    let c = Conn::memory();
    c.exec("CREATE TABLE a(x); CREATE TABLE b(y)");
    unsafe {
        assert_eq!(sqlbatch_conn_change_feed(c.0, 1000, Some(on_feed), p, Some(count_destroy)), SQLBATCH_OK);
        // The per-event hook beside it sees the same events.
        assert_eq!(sqlbatch_conn_update_hook(c.0, Some(on_update), p, None), SQLBATCH_OK);
    }
    c.exec(
        "BEGIN;
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2500) INSERT INTO a SELECT i FROM n;
         INSERT INTO b VALUES (1);
         COMMIT",
    );
    {
        let g = s.lock().unwrap();
        let sizes: Vec<(i32, usize)> = g.batches.iter().map(|(r, b)| (*r, b.len())).collect();
        assert_eq!(
            sizes,
            vec![(SQLBATCH_FEED_FULL, 1000), (SQLBATCH_FEED_FULL, 1000), (SQLBATCH_FEED_COMMIT, 501)]
        );
        let all: Vec<_> = g.batches.iter().flat_map(|(_, b)| b.clone()).collect();
        assert_eq!(all, g.events, "the same events, in the same order");
        assert_eq!(g.batches[2].1.last().unwrap(), &(sq::SQLITE_INSERT, "main.b".to_string(), 1));
    }
    s.lock().unwrap().batches.clear();
    c.exec("BEGIN; DELETE FROM b WHERE y > 0; ROLLBACK"); // (a DELETE without WHERE truncates: no events)
    c.exec("UPDATE b SET y = 2; DELETE FROM a WHERE x > 2498");
    let g = s.lock().unwrap();
    let got: Vec<(i32, usize)> = g.batches.iter().map(|(r, b)| (*r, b.len())).collect();
    assert_eq!(got, vec![(SQLBATCH_FEED_ROLLBACK, 1), (SQLBATCH_FEED_COMMIT, 1), (SQLBATCH_FEED_COMMIT, 2)]);
    drop(g);
    drop(c);
    assert_eq!(s.lock().unwrap().destroyed, 1);
}

unsafe extern "C" fn on_progress(u: *mut c_void) -> i32 {
    let mut s = st(u);
    s.progress += 1;
    (s.progress >= 5) as i32
}

unsafe extern "C" fn on_busy(u: *mut c_void, count: i32) -> i32 {
    let mut s = st(u);
    s.busy.push(count);
    (count < 3) as i32
}

unsafe extern "C" fn deny_secret(
    _u: *mut c_void,
    action: i32,
    a: *const c_char,
    b: *const c_char,
    _schema: *const c_char,
    _trigger: *const c_char,
) -> i32 {
    if action == sq::SQLITE_READ && !a.is_null() && unsafe { CStr::from_ptr(a) }.to_bytes() == b"secret" {
        return sq::SQLITE_DENY;
    }
    if action == sq::SQLITE_READ && !b.is_null() && unsafe { CStr::from_ptr(b) }.to_bytes() == b"pin" {
        return sq::SQLITE_IGNORE;
    }
    sq::SQLITE_OK
}

#[test]
fn progress_busy_and_authorizer() {
    // (The callbacks' state first: it must outlive the connection, also when a test fails.)
    let (s, p) = new_seen();
    let c = Conn::memory();
    unsafe { assert_eq!(sqlbatch_conn_progress_handler(c.0, 100, Some(on_progress), p, None), SQLBATCH_OK) };
    let endless = "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k) SELECT count(*) FROM k";
    assert_eq!(c.try_rows(endless, 1), Err(sq::SQLITE_INTERRUPT));
    assert_eq!(s.lock().unwrap().progress, 5);
    unsafe { assert_eq!(sqlbatch_conn_progress_handler(c.0, 0, Some(on_progress), p, None), SQLBATCH_OK) };
    c.exec("SELECT 1");

    c.exec("CREATE TABLE secret(x); CREATE TABLE card(n, pin); INSERT INTO card VALUES (1, 1234)");
    unsafe { assert_eq!(sqlbatch_conn_authorizer(c.0, Some(deny_secret), p, None), SQLBATCH_OK) };
    assert_eq!(c.try_prepare(b"SELECT * FROM secret", 0).0, sq::SQLITE_AUTH);
    assert_eq!(c.rows("SELECT n, pin FROM card"), vec![vec![Val::Int(1), Val::Null]]);
    unsafe { assert_eq!(sqlbatch_conn_authorizer(c.0, None, ptr::null_mut(), None), SQLBATCH_OK) };
    c.exec("SELECT * FROM secret");

    // Busy: a second connection holds the write lock of a file database.
    let path = std::env::temp_dir().join(format!("sqlbatch-hooks-{}.db", std::process::id()));
    let path = path.to_str().unwrap().to_owned();
    let (w, r) = (Conn::open(&path), Conn::open(&path));
    w.exec("CREATE TABLE t(a); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)");
    unsafe { assert_eq!(sqlbatch_conn_busy_handler(r.0, Some(on_busy), p, None), SQLBATCH_OK) };
    assert_eq!(r.try_exec("INSERT INTO t VALUES (2)").0 & 0xff, sq::SQLITE_BUSY);
    assert_eq!(s.lock().unwrap().busy, vec![0, 1, 2, 3]);
    drop((w, r));
    let _ = std::fs::remove_file(&path);
}

unsafe extern "C" fn on_wal(u: *mut c_void, schema: *const c_char, pages: i32) -> i32 {
    assert_eq!(unsafe { CStr::from_ptr(schema) }.to_bytes(), b"main");
    st(u).wal_pages.push(pages);
    sq::SQLITE_OK
}

/// An update hook that tries to change the hooks: refused while it runs.
unsafe extern "C" fn meddling(u: *mut c_void, _op: i32, _s: *const c_char, _t: *const c_char, _rowid: i64) {
    let conn = st(u).nested_rc as usize as *mut sqlbatch_conn;
    let rc = unsafe { sqlbatch_conn_update_hook(conn, None, ptr::null_mut(), None) };
    st(u).nested_rc = rc;
}

#[test]
fn wal_hook_and_no_changes_from_inside_a_hook() {
    let path = std::env::temp_dir().join(format!("sqlbatch-wal-{}.db", std::process::id()));
    let path = path.to_str().unwrap().to_owned();
    let c = Conn::open(&path);
    c.exec("PRAGMA journal_mode = WAL");
    let (s, p) = new_seen();
    unsafe { assert_eq!(sqlbatch_conn_wal_hook(c.0, Some(on_wal), p, None), SQLBATCH_OK) };
    c.exec("CREATE TABLE t(a); INSERT INTO t VALUES (1)");
    assert!(s.lock().unwrap().wal_pages.len() == 2 && s.lock().unwrap().wal_pages[1] > 0);

    // (nested_rc carries the connection pointer in, and the status out.)
    let (m, q) = new_seen();
    m.lock().unwrap().nested_rc = c.0 as usize as i32;
    if c.0 as usize > i32::MAX as usize {
        // A pointer above 2 GiB does not fit the field: skip this part (64-bit heaps usually are).
        let _ = q;
    } else {
        unsafe { assert_eq!(sqlbatch_conn_update_hook(c.0, Some(meddling), q, None), SQLBATCH_OK) };
        c.exec("INSERT INTO t VALUES (2)");
        assert_eq!(m.lock().unwrap().nested_rc, SQLBATCH_E_INVALID_ARGUMENT);
    }
    drop(c);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{path}{suffix}"));
    }
    unsafe {
        assert_eq!(
            sqlbatch_conn_update_hook(ptr::null_mut(), None, ptr::null_mut(), None),
            SQLBATCH_E_NULL_PARAMETER
        )
    };
}

/// One event as `on_trace` copied it.
#[derive(Debug)]
struct TraceCopy {
    event: u32,
    autocommit: i32,
    stmt: u64,
    sql: Option<String>,
    expanded: Option<String>,
    ns: i64,
}

#[derive(Default)]
struct Traced(Vec<TraceCopy>);

fn text_of(s: sqlbatch_str) -> Option<String> {
    (!s.ptr.is_null()).then(|| {
        let t = unsafe { CStr::from_ptr(s.ptr) }.to_str().unwrap().to_owned();
        assert_eq!(t.len(), s.len, "len is the text's, NUL not counted");
        t
    })
}

unsafe extern "C" fn on_trace(u: *mut c_void, e: *const sqlbatch_trace_event) {
    let e = unsafe { &*e };
    let copy = TraceCopy {
        event: e.event,
        autocommit: e.autocommit,
        stmt: e.stmt,
        sql: text_of(e.sql),
        expanded: text_of(e.expanded_sql),
        ns: e.nanoseconds,
    };
    unsafe { &*(u as *const Mutex<Traced>) }.lock().unwrap().0.push(copy);
}

#[test]
fn trace_reports_statements_rows_times_and_close() {
    let t = Box::new(Mutex::new(Traced::default()));
    let p = &*t as *const Mutex<Traced> as *mut c_void;
    let c = Conn::memory();
    let all = SQLBATCH_TRACE_STMT | SQLBATCH_TRACE_PROFILE | SQLBATCH_TRACE_ROW | SQLBATCH_TRACE_CLOSE;
    unsafe {
        assert_eq!(
            sqlbatch_conn_trace(c.0, all | SQLBATCH_TRACE_EXPANDED, Some(on_trace), p, None),
            SQLBATCH_OK
        )
    };
    let s = c.prepare("SELECT ?1 + 1 UNION ALL SELECT 'x'");
    assert_eq!(s.bind(&Params::of(&[Val::Int(41)])), SQLBATCH_OK);
    assert_eq!(s.all(10, usize::MAX).len(), 2);
    drop(s);
    drop(c);
    let got = &t.lock().unwrap().0;
    let events: Vec<u32> = got.iter().map(|e| e.event).collect();
    assert_eq!(
        events,
        vec![
            SQLBATCH_TRACE_STMT,
            SQLBATCH_TRACE_ROW,
            SQLBATCH_TRACE_ROW,
            SQLBATCH_TRACE_PROFILE,
            SQLBATCH_TRACE_CLOSE
        ]
    );
    let written = Some("SELECT ?1 + 1 UNION ALL SELECT 'x'");
    assert_eq!(got[0].sql.as_deref(), written, "STMT: the SQL as prepared");
    assert_eq!(got[0].expanded.as_deref(), Some("SELECT 41 + 1 UNION ALL SELECT 'x'"), "and expanded");
    for e in &got[1..4] {
        assert_eq!(e.sql.as_deref(), written);
        assert!(e.expanded.is_none(), "only STMT events are expanded");
    }
    assert!(got[..4].iter().all(|e| e.stmt != 0 && e.stmt == got[0].stmt), "one statement: {got:?}");
    assert!(got.iter().all(|e| e.autocommit == 1));
    assert!(got[3].ns >= 0);
    assert!(got[..3].iter().all(|e| e.ns == 0));
    assert!(got[4].sql.is_none() && got[4].stmt == 0);
    let c = Conn::memory();
    unsafe {
        assert_eq!(sqlbatch_conn_trace(c.0, 0x8000, Some(on_trace), p, None), SQLBATCH_E_INVALID_ARGUMENT)
    };
}

#[test]
fn trace_reports_transactions_triggers_and_errors() {
    let t = Box::new(Mutex::new(Traced::default()));
    let p = &*t as *const Mutex<Traced> as *mut c_void;
    let c = Conn::memory();
    c.exec(
        "CREATE TABLE t(x INTEGER PRIMARY KEY CHECK (x < 10)); CREATE TABLE log(y);
         CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO log VALUES (new.x); END;",
    );
    unsafe {
        assert_eq!(
            sqlbatch_conn_trace(
                c.0,
                SQLBATCH_TRACE_STMT | SQLBATCH_TRACE_PROFILE | SQLBATCH_TRACE_EXPANDED,
                Some(on_trace),
                p,
                None
            ),
            SQLBATCH_OK
        )
    };
    c.exec("BEGIN; INSERT INTO t VALUES (1); COMMIT;");
    let s = c.prepare("INSERT INTO t VALUES (?1)");
    assert_eq!(s.bind(&Params::of(&[Val::Int(11)])), SQLBATCH_OK);
    assert_eq!(s.fetch(1, usize::MAX).0, sq::SQLITE_CONSTRAINT_CHECK);
    drop(s);
    let got = std::mem::take(&mut t.lock().unwrap().0);
    let stmts: Vec<(Option<&str>, i32)> = got
        .iter()
        .filter(|e| e.event == SQLBATCH_TRACE_STMT)
        .map(|e| (e.sql.as_deref(), e.autocommit))
        .collect();
    assert_eq!(
        stmts,
        vec![
            (Some("BEGIN;"), 1),
            // A script's statements start after the previous one's ';', and each statement
            // of a trigger program is traced as "-- " and its text.
            (Some(" INSERT INTO t VALUES (1);"), 0),
            (Some("-- TRIGGER tr"), 0),
            (Some("-- INSERT INTO log VALUES (new.x)"), 0),
            (Some(" COMMIT;"), 0),
            (Some("INSERT INTO t VALUES (?1)"), 1),
        ],
        "{got:?}"
    );
    for e in &got {
        let trigger = e.sql.as_deref().is_some_and(|s| s.starts_with("--"));
        let expanded = e.event == SQLBATCH_TRACE_STMT && !trigger;
        assert_eq!(e.expanded.is_some(), expanded, "only a statement's STMT is expanded: {e:?}");
    }
    let last = got.iter().rfind(|e| e.event == SQLBATCH_TRACE_STMT).unwrap();
    assert_eq!(last.expanded.as_deref(), Some("INSERT INTO t VALUES (11)"));
    let profiles: Vec<(Option<&str>, i32)> = got
        .iter()
        .filter(|e| e.event == SQLBATCH_TRACE_PROFILE)
        .map(|e| (e.sql.as_deref(), e.autocommit))
        .collect();
    assert_eq!(
        profiles,
        vec![
            (Some("BEGIN;"), 0),
            (Some(" INSERT INTO t VALUES (1);"), 0),
            (Some(" COMMIT;"), 1),
            (Some("INSERT INTO t VALUES (?1)"), 1),
        ],
        "a PROFILE per statement, failed or not, each with the state after it"
    );
    drop(c);
}

/// What `trespassing` uses and reports: the connection and statements it touches from inside
/// an update hook, and the statuses it got.
struct Trespass {
    conn: *mut sqlbatch_conn,
    other: *mut sqlbatch_stmt,
    running: *mut sqlbatch_stmt,
    statuses: Vec<i32>,
}

/// An update hook that uses its own connection (SQLite forbids it): runs SQL, fetches and
/// resets another statement, and finalizes the statement whose step called it.
unsafe extern "C" fn trespassing(
    u: *mut c_void,
    _op: i32,
    _s: *const c_char,
    _t: *const c_char,
    _rowid: i64,
) {
    let t = unsafe { &mut *(u as *mut Trespass) };
    let sql = "SELECT 1";
    let mut out = std::mem::MaybeUninit::<sqlbatch_batch>::uninit();
    unsafe {
        t.statuses.push(sqlbatch_conn_exec(
            t.conn,
            sql.as_ptr().cast(),
            sql.len(),
            ptr::null(),
            ptr::null_mut(),
        ));
        t.statuses.push(sqlbatch_stmt_fetch(t.other, 8, usize::MAX, out.as_mut_ptr()));
        t.statuses.push(sqlbatch_stmt_reset(t.other));
        let mut s = ptr::null_mut();
        t.statuses.push(sqlbatch_stmt_prepare(
            t.conn,
            sql.as_ptr().cast(),
            sql.len(),
            0,
            &mut s,
            ptr::null_mut(),
        ));
        if !t.running.is_null() {
            // The statement running this hook: its finalization waits until the hook is over.
            sqlbatch_stmt_finalize(t.running);
            t.running = ptr::null_mut();
        }
    }
}

#[test]
fn a_hook_using_its_own_connection_is_refused_and_a_finalize_from_it_waits() {
    let c = Conn::memory();
    c.exec("CREATE TABLE t(a)");
    let other = c.prepare("SELECT 2");
    let running = c.prepare("INSERT INTO t VALUES (1), (2)");
    let mut t = Box::new(Trespass { conn: c.0, other: other.0, running: running.0, statuses: vec![] });
    let u = &mut *t as *mut Trespass as *mut c_void;
    unsafe { assert_eq!(sqlbatch_conn_update_hook(c.0, Some(trespassing), u, None), SQLBATCH_OK) };
    // The INSERT runs to its end, both rows, though the hook finalized it after the first.
    let mut b = std::mem::MaybeUninit::<sqlbatch_batch>::uninit();
    assert_eq!(unsafe { sqlbatch_stmt_fetch(running.0, 8, usize::MAX, b.as_mut_ptr()) }, SQLBATCH_DONE);
    std::mem::forget(running); // finalized by the hook
    let misuse = sq::SQLITE_MISUSE;
    assert_eq!(t.statuses, vec![misuse; 8], "every call from the hook (two rows, four calls each)");
    let (e, msg) = c.error();
    assert_eq!(e.code, misuse);
    assert!(msg.contains("hook used its own connection"), "{msg}");
    // Outside the hook everything works again (and this call finalizes the deferred statement).
    unsafe { assert_eq!(sqlbatch_conn_update_hook(c.0, None, ptr::null_mut(), None), SQLBATCH_OK) };
    assert_eq!(c.rows("SELECT count(*) FROM t"), vec![vec![Val::Int(2)]]);
    assert_eq!(other.all(4, usize::MAX), vec![vec![Val::Int(2)]]);
    other.finalize();
    drop(t);
}

/// An update hook that finalizes the statement in `u` (once).
unsafe extern "C" fn finalizing(u: *mut c_void, _op: i32, _s: *const c_char, _t: *const c_char, _rowid: i64) {
    let s = unsafe { &mut *(u as *mut *mut sqlbatch_stmt) };
    if !s.is_null() {
        unsafe { sqlbatch_stmt_finalize(*s) };
        *s = ptr::null_mut();
    }
}

#[test]
fn a_statement_a_hook_finalized_in_the_middle_of_its_rows_is_finalized_by_close() {
    // A SELECT left in the middle of its rows stays busy: the hook's finalize cannot be
    // carried out by a later call, so close does it (valgrind: no leak, no double free).
    let c = Conn::memory();
    c.exec("CREATE TABLE t(a); INSERT INTO t VALUES (1), (2), (3)");
    let paused = c.prepare("SELECT a FROM t");
    let mut b = std::mem::MaybeUninit::<sqlbatch_batch>::uninit();
    assert_eq!(unsafe { sqlbatch_stmt_fetch(paused.0, 1, usize::MAX, b.as_mut_ptr()) }, SQLBATCH_ROW);
    let mut target = Box::new(paused.0);
    std::mem::forget(paused);
    let u = &mut *target as *mut *mut sqlbatch_stmt as *mut c_void;
    unsafe { assert_eq!(sqlbatch_conn_update_hook(c.0, Some(finalizing), u, None), SQLBATCH_OK) };
    c.exec("INSERT INTO t VALUES (4)");
    assert!(target.is_null(), "the hook ran");
    // Calls after the hook work; the paused statement is still busy, so it waits for close.
    assert_eq!(c.rows("SELECT count(*) FROM t"), vec![vec![Val::Int(4)]]);
    drop(c);
}

unsafe extern "C" fn allow_all(
    _u: *mut c_void,
    _action: i32,
    _a: *const c_char,
    _b: *const c_char,
    _db: *const c_char,
    _trigger: *const c_char,
) -> i32 {
    sq::SQLITE_OK
}

#[test]
fn hooks_other_than_the_wal_hook_leave_automatic_checkpoints_on() {
    let (s, p) = new_seen();
    let path = std::env::temp_dir().join(format!("sqlbatch-autockpt-{}.db", std::process::id()));
    let path = path.to_str().unwrap().to_owned();
    let c = Conn::open(&path);
    c.exec("PRAGMA journal_mode = WAL; CREATE TABLE t(a)");
    let autocheckpoint = || c.rows("PRAGMA wal_autocheckpoint")[0][0].clone();
    assert_eq!(autocheckpoint(), Val::Int(1000));
    unsafe {
        assert_eq!(sqlbatch_conn_update_hook(c.0, Some(on_update), p, None), SQLBATCH_OK);
        assert_eq!(sqlbatch_conn_commit_hook(c.0, Some(on_commit), p, None), SQLBATCH_OK);
        assert_eq!(sqlbatch_conn_rollback_hook(c.0, Some(on_rollback), p, None), SQLBATCH_OK);
        assert_eq!(sqlbatch_conn_authorizer(c.0, Some(allow_all), p, None), SQLBATCH_OK);
        assert_eq!(sqlbatch_conn_change_feed(c.0, 64, Some(on_feed), p, None), SQLBATCH_OK);
        assert_eq!(sqlbatch_conn_progress_handler(c.0, 1000, Some(on_progress), p, None), SQLBATCH_OK);
        assert_eq!(sqlbatch_conn_progress_handler(c.0, 0, None, ptr::null_mut(), None), SQLBATCH_OK);
    }
    // (Before the fix, any of these set SQLite's WAL slot to nothing: 0 here.)
    assert_eq!(autocheckpoint(), Val::Int(1000));
    // And checkpoints happen: 3,000 pages written in 30 transactions leave a log of about
    // 1,000 pages, not 3,000.
    for _ in 0..30 {
        c.exec(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100) \
             INSERT INTO t SELECT randomblob(3900) FROM n",
        );
    }
    let wal = std::fs::metadata(format!("{path}-wal")).unwrap().len();
    assert!(wal < 1500 * 4096, "the log holds {wal} bytes: no automatic checkpoint ran");
    // The WAL hook takes SQLite's slot (documented); removed, the pragma sets it back.
    unsafe { assert_eq!(sqlbatch_conn_wal_hook(c.0, Some(on_wal), p, None), SQLBATCH_OK) };
    assert_eq!(autocheckpoint(), Val::Int(0));
    unsafe { assert_eq!(sqlbatch_conn_wal_hook(c.0, None, ptr::null_mut(), None), SQLBATCH_OK) };
    c.exec("PRAGMA wal_autocheckpoint = 500");
    unsafe { assert_eq!(sqlbatch_conn_commit_hook(c.0, None, ptr::null_mut(), None), SQLBATCH_OK) };
    assert_eq!(autocheckpoint(), Val::Int(500));
    drop(c);
    drop(s);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{path}{suffix}"));
    }
}
