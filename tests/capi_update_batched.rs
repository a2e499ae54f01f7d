//! The batched update hook (`sqlbatch_conn_update_hook_batched`) through the C ABI: the same
//! events as the per-event hook, in the same order relative to every other callback and to the
//! calls' returns, and its stop answer with the effect of a per-event hook's interrupt.

mod common;
use common::*;
use libsqlite3_sys as sq;
use std::ffi::{c_char, c_void, CStr};
use std::ptr;
use std::sync::Mutex;

/// What the callbacks of one test saw, in order, behind their user data.
#[derive(Default)]
struct Log {
    /// "u:<op>:<table>:<rowid>" per update event, "f:<x>" per call of f, "c" per commit,
    /// "r" per rollback.
    lines: Vec<String>,
    /// The size of each batch the batched hook got.
    batches: Vec<usize>,
    /// Stop at the event with this index (counting from 0), if any.
    stop_at: Option<usize>,
    events: usize,
    destroyed: usize,
}

fn log(p: *mut c_void) -> std::sync::MutexGuard<'static, Log> {
    unsafe { &*(p as *const Mutex<Log>) }.lock().unwrap_or_else(|e| e.into_inner())
}

fn new_log() -> (Box<Mutex<Log>>, *mut c_void) {
    let b = Box::new(Mutex::new(Log::default()));
    let p = &*b as *const Mutex<Log> as *mut c_void;
    (b, p)
}

unsafe extern "C" fn on_update(
    u: *mut c_void,
    op: i32,
    _schema: *const c_char,
    table: *const c_char,
    rowid: i64,
) {
    let t = unsafe { CStr::from_ptr(table) }.to_str().unwrap();
    log(u).lines.push(format!("u:{op}:{t}:{rowid}"));
}

unsafe extern "C" fn on_batch(
    u: *mut c_void,
    changes: *const sqlbatch_change,
    n: usize,
    tables: *const sqlbatch_change_table,
    n_tables: usize,
) -> i32 {
    let (changes, tables) =
        unsafe { (std::slice::from_raw_parts(changes, n), std::slice::from_raw_parts(tables, n_tables)) };
    let mut l = log(u);
    l.batches.push(n);
    for c in changes {
        let t = &tables[c.table as usize];
        let name = unsafe { CStr::from_ptr(t.name.ptr) }.to_str().unwrap();
        assert_eq!(name.len(), t.name.len);
        assert_eq!(unsafe { CStr::from_ptr(t.schema.ptr) }.to_str().unwrap(), "main");
        l.lines.push(format!("u:{}:{name}:{}", c.op, c.rowid));
        let i = l.events;
        l.events += 1;
        if l.stop_at == Some(i) {
            return 1;
        }
    }
    0
}

unsafe extern "C" fn on_f(
    call: *mut sqlbatch_call,
    u: *mut c_void,
    args: *const sqlbatch_value,
    _n: usize,
    _data: *const u8,
) {
    let x = unsafe { (*args).bits } as i64;
    log(u).lines.push(format!("f:{x}"));
    unsafe { (*call).result = sqlbatch_value::int(x + 1) };
}

unsafe extern "C" fn on_commit(u: *mut c_void) -> i32 {
    log(u).lines.push("c".into());
    0
}

unsafe extern "C" fn on_rollback(u: *mut c_void) {
    log(u).lines.push("r".into());
}

unsafe extern "C" fn count_destroy(u: *mut c_void) {
    log(u).destroyed += 1;
}

/// A connection with table t(x) of 4 rows, f(x) = x + 1, commit and rollback hooks logging to
/// `p`, and the update hook: per event, or batched up to `max` at a time.
fn setup(p: *mut c_void, batched: Option<usize>) -> Conn {
    let c = Conn::memory();
    c.exec("CREATE TABLE t(x); INSERT INTO t VALUES (10), (20), (30), (40); CREATE TABLE u(y)");
    unsafe {
        let name = b"f";
        assert_eq!(
            sqlbatch_conn_create_function(c.0, name.as_ptr().cast(), 1, 1, 0, Some(on_f), p, None),
            SQLBATCH_OK
        );
        assert_eq!(sqlbatch_conn_commit_hook(c.0, Some(on_commit), p, None), SQLBATCH_OK);
        assert_eq!(sqlbatch_conn_rollback_hook(c.0, Some(on_rollback), p, None), SQLBATCH_OK);
        let rc = match batched {
            Some(max) => sqlbatch_conn_update_hook_batched(c.0, max, Some(on_batch), p, Some(count_destroy)),
            None => sqlbatch_conn_update_hook(c.0, Some(on_update), p, Some(count_destroy)),
        };
        assert_eq!(rc, SQLBATCH_OK);
    }
    c
}

/// Runs `work` on a connection set up with the per-event hook and on one with the batched
/// hook (up to `max` events a batch); returns both logs and the batch sizes.
fn both(max: usize, work: impl Fn(&Conn, *mut c_void)) -> (Vec<String>, Vec<String>, Vec<usize>) {
    let (per_event, pe) = new_log();
    let (batched, pb) = new_log();
    for (p, mode) in [(pe, None), (pb, Some(max))] {
        let c = setup(p, mode);
        log(p).lines.clear();
        work(&c, p);
        drop(c);
    }
    let (a, b) = (per_event.lock().unwrap(), batched.lock().unwrap());
    assert_eq!((a.destroyed, b.destroyed), (1, 1), "each hook's user data released once, at close");
    (a.lines.clone(), b.lines.clone(), b.batches.clone())
}

#[test]
fn the_events_keep_their_order_against_functions_commits_and_returns() {
    // A function in the statement: before each call of f, the events of the rows before.
    let (a, b, batches) = both(1024, |c, p| {
        c.exec("UPDATE t SET x = f(x)");
        log(p).lines.push("returned".into());
        c.exec("BEGIN; INSERT INTO u VALUES (1), (2); INSERT INTO u VALUES (3)");
        log(p).lines.push("returned".into());
        c.exec("DELETE FROM u WHERE y = 2; COMMIT");
        log(p).lines.push("returned".into());
        c.exec("BEGIN; INSERT INTO u VALUES (4); ROLLBACK");
    });
    assert_eq!(a, b, "the same callbacks in the same order");
    assert_eq!(
        &b[..10],
        ["f:10", "u:23:t:1", "f:20", "u:23:t:2", "f:30", "u:23:t:3", "f:40", "u:23:t:4", "c", "returned"]
    );
    assert_eq!(
        &b[10..],
        ["u:18:u:1", "u:18:u:2", "u:18:u:3", "returned", "u:9:u:2", "c", "returned", "u:18:u:4", "r"]
    );
    // One event per batch while f runs between the rows; then whole calls: the three inserts
    // of the transaction's script come at its return, the delete before the commit.
    assert_eq!(batches, [1, 1, 1, 1, 3, 1, 1]);
}

#[test]
fn a_batch_never_holds_more_than_max_and_write_behind_delivers_before_the_wait() {
    let (a, b, batches) = both(3, |c, _| {
        c.exec(&format!("BEGIN; {TEN}; COMMIT"));
    });
    assert_eq!(a, b);
    assert_eq!(batches, [3, 3, 3, 1], "full batches while the statement runs, the rest before the commit");
    // A bulk write (through write-behind in the ahead test mode): every row's event before the
    // call that reports the write returns.
    let (a, b, _) = both(1024, |c, p| {
        let s = c.prepare("INSERT INTO u VALUES (?1)");
        let params = Params::of(&[Val::Int(1), Val::Int(2), Val::Int(3)]);
        c.exec("BEGIN");
        assert_eq!(s.execute_many(&params, 3).0, SQLBATCH_OK);
        log(p).lines.push("returned".into());
        drop(s);
        c.exec("COMMIT");
    });
    assert_eq!(a, b);
    assert_eq!(b, ["u:18:u:1", "u:18:u:2", "u:18:u:3", "returned", "c"]);
    // INSERT ... RETURNING through fetch: the events come by the fetch's return.
    let (a, b, _) = both(1024, |c, p| {
        c.exec("BEGIN");
        let s = c.prepare("INSERT INTO u VALUES (7), (8) RETURNING y");
        let (rc, _) = s.fetch(1, usize::MAX);
        assert!(rc == SQLBATCH_ROW || rc == SQLBATCH_DONE, "{rc}");
        log(p).lines.push("fetched".into());
        drop(s);
        c.exec("COMMIT");
    });
    assert_eq!(a, b);
    assert_eq!(b[..3], ["u:18:u:1", "u:18:u:2", "fetched"]);
}

/// Inserts 1 to 10 into u, in one statement.
const TEN: &str = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10) INSERT INTO u SELECT i FROM n";

/// How a stop answer of the batched hook at event `stop_at` ends `sql`, and what is then in u.
fn stopped(max: usize, stop_at: usize, sql: &str) -> (i32, bool, Vec<Vec<Val>>, Vec<String>) {
    let (l, p) = new_log();
    let c = setup(p, Some(max));
    log(p).stop_at = Some(stop_at);
    log(p).lines.clear();
    let rc = c.try_exec(sql).0;
    let autocommit = c.autocommit();
    let rows = c.rows("SELECT y FROM u ORDER BY y");
    drop(c);
    let lines = l.lock().unwrap().lines.clone();
    (rc, autocommit, rows, lines)
}

#[test]
fn a_stop_undoes_what_an_interrupt_would_have() {
    let ins = TEN;
    // While the statement runs (a full batch): interrupted.
    let (rc, ac, rows, lines) = stopped(2, 3, ins);
    assert_eq!((rc, ac, rows.len()), (sq::SQLITE_INTERRUPT, true, 0), "{lines:?}");
    assert!(lines.iter().filter(|l| l.starts_with("u:")).count() < 10, "stopped early: {lines:?}");
    // Before the commit: vetoed.
    let (rc, ac, rows, lines) = stopped(1024, 3, ins);
    assert_eq!((rc, ac, rows.len()), (sq::SQLITE_CONSTRAINT_COMMITHOOK, true, 0));
    assert!(!lines.contains(&"c".to_string()), "the commit hook is not asked: {lines:?}");
    // At the end of a call, inside a transaction: rolled back, and the call fails.
    let (rc, ac, rows, _) = stopped(1024, 3, &format!("BEGIN; {ins}"));
    assert_eq!((rc, ac, rows.len()), (sq::SQLITE_INTERRUPT, true, 0));
    // A call that failed keeps its own error (and its transaction is rolled back too).
    let (rc, ac, rows, _) = stopped(1024, 0, &format!("BEGIN; {ins}; SELECT * FROM nowhere"));
    assert_eq!((rc, ac, rows.len()), (sq::SQLITE_ERROR, true, 0));
    // No stop: all of it.
    let (rc, ac, rows, _) = stopped(1024, usize::MAX, &format!("BEGIN; {ins}; COMMIT"));
    assert_eq!((rc, ac, rows.len()), (SQLBATCH_OK, true, 10));
}

#[test]
fn removing_or_replacing_it_releases_its_user_data_and_null_is_refused() {
    let (l, p) = new_log();
    let c = setup(p, Some(8));
    unsafe {
        assert_eq!(
            sqlbatch_conn_update_hook_batched(c.0, 8, Some(on_batch), p, Some(count_destroy)),
            SQLBATCH_OK
        );
        assert_eq!(log(p).destroyed, 1, "replaced");
        assert_eq!(sqlbatch_conn_update_hook_batched(c.0, 0, None, p, Some(count_destroy)), SQLBATCH_OK);
        assert_eq!(log(p).destroyed, 3, "removed, and the user data given with no callback");
    }
    log(p).lines.clear();
    c.exec("INSERT INTO u VALUES (1)");
    assert_eq!(log(p).lines, ["c"], "no events once removed");
    unsafe {
        assert_eq!(
            sqlbatch_conn_update_hook_batched(ptr::null_mut(), 0, Some(on_batch), p, Some(count_destroy)),
            SQLBATCH_E_NULL_PARAMETER
        );
    }
    assert_eq!(log(p).destroyed, 4, "released when the call fails");
    drop(c);
    drop(l);
}
