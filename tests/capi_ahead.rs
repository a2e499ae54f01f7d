//! Fetch-ahead and write-behind through the C ABI: the same rows, errors and order as the
//! synchronous calls, whatever the bounds, and every other call waiting for the worker.

mod common;
use common::*;

use std::ptr;
use std::time::Duration;

/// A table of 3,000 rows of every type, with TEXT and BLOB of varied lengths.
fn mixed(c: &Conn) {
    c.exec(
        "CREATE TABLE m(i INTEGER, r REAL, t TEXT, b BLOB, n);
         WITH RECURSIVE s(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM s WHERE x < 2999)
         INSERT INTO m SELECT x, x * 0.5, printf('%.*c', x % 97, 'a'), zeroblob(x % 50),
                              CASE WHEN x % 7 = 0 THEN NULL ELSE x END FROM s",
    );
}

const Q: &str = "SELECT i, r, t, b, n FROM m ORDER BY i";

fn ahead(s: &Stmt, on: bool) {
    assert_eq!(unsafe { sqlbatch_stmt_set_fetch_ahead(s.0, on) }, SQLBATCH_OK);
}

/// Every batch of `s` with these bounds: (status, rows) per fetch, up to DONE or an error.
fn batches(s: &Stmt, bounds: impl Fn(usize) -> (usize, usize)) -> Vec<(i32, Rows)> {
    let mut out = Vec::new();
    for k in 0.. {
        let (max_rows, max_bytes) = bounds(k);
        let (rc, b) = s.fetch(max_rows, max_bytes);
        let rows = if rc == SQLBATCH_ROW || rc == SQLBATCH_DONE { batch_rows(&b) } else { Vec::new() };
        if rc == SQLBATCH_ROW || rc == SQLBATCH_DONE {
            assert!(b.n_rows <= max_rows, "{} rows for max_rows {max_rows}", b.n_rows);
        }
        out.push((rc, rows));
        if rc != SQLBATCH_ROW {
            break;
        }
    }
    out
}

fn flat(b: &[(i32, Rows)]) -> Rows {
    b.iter().flat_map(|(_, r)| r.clone()).collect()
}

#[test]
fn with_the_same_bounds_every_batch_is_the_synchronous_one() {
    let c = Conn::memory();
    mixed(&c);
    for (max_rows, max_bytes) in
        [(1, usize::MAX), (7, usize::MAX), (256, usize::MAX), (100, 2000), (5000, 1 << 16)]
    {
        let sync = c.prepare(Q);
        let want = batches(&sync, |_| (max_rows, max_bytes));
        let s = c.prepare(Q);
        ahead(&s, true);
        let got = batches(&s, |_| (max_rows, max_bytes));
        assert_eq!(got, want, "bounds {max_rows}, {max_bytes}");
        assert_eq!(got.last().unwrap().0, SQLBATCH_DONE);
        // After DONE it stays DONE, and a reset runs it again.
        assert_eq!(s.fetch(10, usize::MAX).0, SQLBATCH_DONE);
        assert_eq!(unsafe { sqlbatch_stmt_reset(s.0) }, SQLBATCH_OK);
        assert_eq!(flat(&batches(&s, |_| (max_rows, max_bytes))), flat(&want));
    }
}

#[test]
fn with_changing_bounds_the_rows_are_the_same_and_within_them() {
    let c = Conn::memory();
    mixed(&c);
    let want = c.rows(Q);
    for seed in 1..20u64 {
        let mut r = Rng(seed);
        let bounds: Vec<(usize, usize)> = (0..10_000)
            .map(|_| {
                (
                    1 + r.below(300) as usize,
                    if r.below(3) == 0 { usize::MAX } else { 1 + r.below(20_000) as usize },
                )
            })
            .collect();
        let s = c.prepare(Q);
        ahead(&s, true);
        let got = batches(&s, |k| bounds[k]);
        assert_eq!(flat(&got), want, "seed {seed}");
        assert_eq!(got.last().unwrap().0, SQLBATCH_DONE);
        // The byte bound holds as for synchronous batches: it is only passed by the last row.
        for (k, (_, rows)) in got.iter().enumerate() {
            let (_, max_bytes) = bounds[k];
            if rows.len() > 1 && max_bytes != usize::MAX {
                let before: usize = rows[..rows.len() - 1].iter().map(|r| row_cost(r)).sum();
                assert!(
                    before < max_bytes,
                    "seed {seed} batch {k}: {before} bytes before its last row, bound {max_bytes}"
                );
            }
        }
    }
}

/// Every batch through `sqlbatch_stmt_fetch_into` with buffers of these sizes.
fn batches_into(s: &Stmt, max_rows: usize, size: impl Fn(usize) -> usize) -> (Rows, Vec<i32>) {
    let (mut rows, mut codes) = (Vec::new(), Vec::new());
    for k in 0.. {
        let mut buf = vec![0u8; size(k)];
        let mut b: sqlbatch_batch = unsafe { std::mem::zeroed() };
        let rc = unsafe { sqlbatch_stmt_fetch_into(s.0, max_rows, buf.as_mut_ptr(), buf.len(), &mut b) };
        codes.push(rc);
        match rc {
            SQLBATCH_ROW | SQLBATCH_DONE => {
                assert!(b.data.is_null());
                assert!(b.data_len <= buf.len());
                rows.extend(batch_rows_in(&b, buf.as_ptr(), buf.len()));
            }
            SQLBATCH_E_BUFFER_TOO_SMALL => {
                assert_eq!(b.n_rows, 0);
                assert!(b.data_len > buf.len(), "need {} with a buffer of {}", b.data_len, buf.len());
            }
            _ => break,
        }
        if rc == SQLBATCH_DONE {
            break;
        }
    }
    (rows, codes)
}

#[test]
fn fetch_into_copies_the_batch_stepped_ahead_and_reports_a_buffer_too_small_as_before() {
    let c = Conn::memory();
    mixed(&c);
    let want = c.rows(Q);
    for (max_rows, size) in [(64usize, 4096usize), (1000, 1 << 20), (3, 200)] {
        let sync = c.prepare(Q);
        let expect = batches_into(&sync, max_rows, |_| size);
        let s = c.prepare(Q);
        ahead(&s, true);
        let got = batches_into(&s, max_rows, |_| size);
        assert_eq!(got, expect, "max_rows {max_rows}, buffer {size}");
        if !got.1.contains(&SQLBATCH_E_BUFFER_TOO_SMALL) {
            assert_eq!(got.0, want);
        }
    }
    // Sizes that change from call to call, some too small for the next row.
    let s = c.prepare(Q);
    ahead(&s, true);
    let sizes = [50usize, 3000, 96, 10, 200, 100_000, 97, 500];
    let (rows, codes) = batches_into(&s, 40, |k| sizes[k % sizes.len()]);
    assert_eq!(rows, want);
    assert!(codes.contains(&SQLBATCH_E_BUFFER_TOO_SMALL));
    // The arena and the caller's buffer mixed on one statement.
    let s = c.prepare(Q);
    ahead(&s, true);
    let mut rows = Vec::new();
    for k in 0.. {
        if k % 2 == 0 {
            let (rc, b) = s.fetch(33, usize::MAX);
            rows.extend(batch_rows(&b));
            if rc == SQLBATCH_DONE {
                break;
            }
        } else {
            let mut buf = vec![0u8; 1 << 16];
            let mut b: sqlbatch_batch = unsafe { std::mem::zeroed() };
            let rc = unsafe { sqlbatch_stmt_fetch_into(s.0, 17, buf.as_mut_ptr(), buf.len(), &mut b) };
            rows.extend(batch_rows_in(&b, buf.as_ptr(), buf.len()));
            if rc == SQLBATCH_DONE {
                break;
            }
            assert_eq!(rc, SQLBATCH_ROW);
        }
    }
    assert_eq!(rows, want);
}

#[test]
fn an_error_mid_result_comes_after_the_rows_before_it_as_synchronously() {
    let c = Conn::memory();
    mixed(&c);
    // abs() of the smallest integer fails with "integer overflow" at row 1,700.
    // (In rowid order, without a sort that would evaluate every row at the first step.)
    let q = "SELECT CASE WHEN i = 1700 THEN abs(-9223372036854775807 - 1) ELSE i END FROM m";
    for max_rows in [1usize, 64, 1000] {
        let sync = c.prepare(q);
        let want = batches(&sync, |_| (max_rows, usize::MAX));
        let want_msg = c.error().1;
        let s = c.prepare(q);
        ahead(&s, true);
        let got = batches(&s, |_| (max_rows, usize::MAX));
        assert_eq!(got, want, "max_rows {max_rows}");
        assert_eq!(flat(&got).len(), 1700);
        assert_eq!(got.last().unwrap().0, sqlite_code::ERROR);
        assert_eq!(c.error().1, want_msg);
        // The failed statement keeps failing until reset, then runs again.
        assert_eq!(s.fetch(10, usize::MAX).0, sqlite_code::ERROR);
        assert_eq!(unsafe { sqlbatch_stmt_reset(s.0) }, sqlite_code::OK);
        assert_eq!(flat(&batches(&s, |_| (max_rows, usize::MAX))).len(), 1700);
    }
}

mod sqlite_code {
    pub const OK: i32 = 0;
    pub const ERROR: i32 = 1;
    pub const INTERRUPT: i32 = 9;
    pub const MISUSE: i32 = 21;
}

const LONG: &str =
    "WITH RECURSIVE s(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM s) SELECT x, printf('%d', x) FROM s";

/// `LONG` fetched in batches of `batch` rows on a connection of its own, fetch-ahead `on`:
/// `before` fetches, then an interrupt from this thread (after a call that waits for the
/// worker, so that a job has stepped ahead), then three fetches. Each fetch as (status, rows,
/// the first row's x). Checks after them that another statement of the connection runs, not
/// interrupted, and that a reset runs the statement again from its start.
fn interrupted_between_fetches(on: bool, batch: usize, before: usize) -> Vec<(i32, usize, Option<Val>)> {
    let c = Conn::memory();
    let s = c.prepare(LONG);
    ahead(&s, on);
    let mut seen = Vec::new();
    let fetch = |seen: &mut Vec<_>| {
        let (rc, b) = s.fetch(batch, usize::MAX);
        let rows = if rc == SQLBATCH_ROW || rc == SQLBATCH_DONE { batch_rows(&b) } else { Vec::new() };
        seen.push((rc, rows.len(), rows.first().map(|r| r[0].clone())));
    };
    for _ in 0..before {
        fetch(&mut seen);
    }
    c.total_changes();
    unsafe { sqlbatch_conn_interrupt(c.0) };
    for _ in 0..3 {
        fetch(&mut seen);
    }
    // As after a synchronous interrupted step, the statement has stopped: another statement of
    // the connection runs, not interrupted, before this one is reset.
    assert_eq!(c.rows("SELECT 42"), vec![vec![Val::Int(42)]]);
    // Reset, and the statement runs again; the interrupt is forgotten.
    unsafe { sqlbatch_stmt_reset(s.0) };
    let (rc, b) = s.fetch(10, usize::MAX);
    assert_eq!((rc, b.n_rows), (SQLBATCH_ROW, 10));
    assert_eq!(batch_rows(&b)[9][0], Val::Int(9));
    seen
}

#[test]
fn an_interrupt_while_a_batch_is_stepped_ahead_ends_the_statement_as_synchronously() {
    // A synchronous fetch after the interrupt takes the row the statement stands on, then its
    // step fails: that one row, then SQLITE_INTERRUPT (at every later fetch too). Batches of
    // 1,000 rows (a job is one batch), and of 10 (a job is 16 of them, handed out in parts:
    // interrupted before the job is claimed, at its first part, and between its parts).
    for (batch, before) in [(1000, 1), (1000, 3), (10, 1), (10, 40), (10, 43), (10, 55)] {
        let want = interrupted_between_fetches(false, batch, before);
        let got = interrupted_between_fetches(true, batch, before);
        assert_eq!(got, want, "batches of {batch}, interrupted after {before}");
        let next = (before * batch) as i64;
        assert_eq!(
            want[before..],
            [
                (SQLBATCH_ROW, 1, Some(Val::Int(next))),
                (sqlite_code::INTERRUPT, 0, None),
                (sqlite_code::INTERRUPT, 0, None)
            ]
        );
    }
}

#[test]
fn small_batches_are_stepped_several_at_a_time() {
    // Batches of 10 rows of two cells (320 bytes) are small: a job steps 16 of them at once,
    // and the fetches after the one that claimed it hand out its parts from memory.
    let c = Conn::memory();
    let s = c.prepare(LONG);
    ahead(&s, true);
    let sync = c.prepare(LONG);
    for k in 0..40i64 {
        let (rc, b) = s.fetch(10, usize::MAX);
        let (src, sb) = sync.fetch(10, usize::MAX);
        assert_eq!((rc, b.n_rows), (src, sb.n_rows));
        assert_eq!(batch_rows(&b), batch_rows(&sb), "batch {k}");
        assert_eq!(batch_rows(&b)[0][0], Val::Int(k * 10));
        assert_eq!((b.data_len, b.data.is_null()), (sb.data_len, sb.data.is_null()), "batch {k}");
    }
    // Parts without TEXT or BLOB bytes among parts with them: each has the data and data_len
    // of its synchronous batch (NULL and 0 for none), and its cells count from its own bytes.
    let q = "WITH RECURSIVE s(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM s WHERE x < 999) \
             SELECT x, CASE WHEN x % 40 < 20 THEN printf('%d', x) END FROM s";
    let (s, sync) = (c.prepare(q), c.prepare(q));
    ahead(&s, true);
    for k in 0..100 {
        let (rc, b) = s.fetch(10, usize::MAX);
        let (src, sb) = sync.fetch(10, usize::MAX);
        assert_eq!((rc, batch_rows(&b)), (src, batch_rows(&sb)), "batch {k}");
        assert_eq!((b.data_len, b.data.is_null()), (sb.data_len, sb.data.is_null()), "batch {k}");
        assert_eq!(b.data.is_null(), k % 4 >= 2, "batch {k}");
    }
}

/// `gate()` on the worker: waits (at most 10 s) until the flag in its user data is raised,
/// and counts the calls that had to give up.
unsafe extern "C" fn gate(
    call: *mut sqlbatch_call,
    user: *mut std::ffi::c_void,
    _args: *const sqlbatch_value,
    _n_args: usize,
    _data: *const u8,
) {
    let g = unsafe { &*(user as *const Gate) };
    if std::thread::current().id() != g.main {
        let t0 = std::time::Instant::now();
        while !g.open.load(std::sync::atomic::Ordering::SeqCst) {
            if t0.elapsed() > Duration::from_secs(10) {
                g.gave_up.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    set_int(call, 1);
}

struct Gate {
    main: std::thread::ThreadId,
    open: std::sync::atomic::AtomicBool,
    gave_up: std::sync::atomic::AtomicUsize,
}

#[test]
fn parts_of_a_job_are_handed_out_while_the_worker_steps_the_next_one() {
    let c = Conn::memory();
    let g = Box::new(Gate {
        main: std::thread::current().id(),
        open: Default::default(),
        gave_up: Default::default(),
    });
    function(&c, "gate", Some(gate), &*g as *const Gate as *mut _);
    let s = c.prepare(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
         SELECT i, CASE WHEN i > 200 THEN gate() END FROM n",
    );
    ahead(&s, true);
    // The first fetch runs here; the job it launches steps rows 11..170 (16 batches) without a
    // gate. The second fetch claims that job and launches the next, which waits at row 201
    // for the gate; the parts of the claimed job still come, without waiting for it.
    let mut got = Vec::new();
    for _ in 0..16 {
        let (rc, b) = s.fetch(10, usize::MAX);
        assert_eq!((rc, b.n_rows), (SQLBATCH_ROW, 10));
        got.extend(batch_rows(&b).into_iter().map(|r| r[0].clone()));
    }
    g.open.store(true, std::sync::atomic::Ordering::SeqCst);
    got.extend(s.all(10, usize::MAX).into_iter().map(|r| r[0].clone()));
    assert_eq!(got, (1..=2000).map(Val::Int).collect::<Vec<_>>());
    assert_eq!(g.gave_up.load(std::sync::atomic::Ordering::SeqCst), 0, "a part waited for the worker");
    drop(s);
}

#[test]
fn interrupts_from_another_thread_stop_an_endless_result() {
    let c = Conn::memory();
    let s = c.prepare(LONG);
    ahead(&s, true);
    let _i = Interrupter::start(&c, Duration::from_millis(20));
    let mut next = 0i64;
    let rc = s.each_batch(500, usize::MAX, |b| {
        for row in batch_rows(b) {
            assert_eq!(row[0], Val::Int(next));
            next += 1;
        }
        true
    });
    assert_eq!(rc, sqlite_code::INTERRUPT);
    assert!(next > 0);
}

#[test]
fn reset_bind_finalize_and_close_wait_for_the_worker_or_drop_its_batch() {
    let c = Conn::memory();
    mixed(&c);
    let want = c.rows(Q);
    let s = c.prepare(Q);
    ahead(&s, true);
    for _ in 0..50 {
        let (rc, b) = s.fetch(100, usize::MAX);
        assert_eq!(rc, SQLBATCH_ROW);
        assert_eq!(batch_rows(&b), want[..100]);
        // The next batch is being stepped: reset drops it.
        assert_eq!(unsafe { sqlbatch_stmt_reset(s.0) }, SQLBATCH_OK);
    }
    // Bind drops it too.
    let p = c.prepare("SELECT i FROM m WHERE i >= ? ORDER BY i");
    ahead(&p, true);
    for k in [0i64, 2990, 5] {
        assert_eq!(p.bind(&Params::of(&[Val::Int(k)])), SQLBATCH_OK);
        let (rc, b) = p.fetch(3, usize::MAX);
        assert_eq!(rc, SQLBATCH_ROW);
        assert_eq!(batch_rows(&b)[0][0], Val::Int(k));
    }
    // Finalize while a batch is stepped ahead.
    for _ in 0..20 {
        let f = c.prepare(LONG);
        ahead(&f, true);
        assert_eq!(f.fetch(2000, usize::MAX).0, SQLBATCH_ROW);
        f.finalize();
    }
    // Close while one is stepped ahead: the statement then says CLOSED, and finalizes.
    let c2 = Conn::memory();
    let f = c2.prepare(LONG);
    ahead(&f, true);
    assert_eq!(f.fetch(2000, usize::MAX).0, SQLBATCH_ROW);
    drop(c2);
    assert_eq!(f.fetch(10, usize::MAX).0, SQLBATCH_E_CLOSED);
    f.finalize();
}

#[test]
fn other_statements_on_the_connection_run_between_batches() {
    let c = Conn::memory();
    mixed(&c);
    let want = c.rows(Q);
    let s = c.prepare(Q);
    ahead(&s, true);
    let other = c.prepare("SELECT count(*), sum(i) FROM m");
    ahead(&other, true);
    let mut got = Vec::new();
    loop {
        let (rc, b) = s.fetch(128, usize::MAX);
        got.extend(batch_rows(&b));
        // A read, a write and a script between two batches, each waiting for the worker.
        assert_eq!(other.all(1, usize::MAX), vec![vec![Val::Int(3000), Val::Int(4_498_500)]]);
        unsafe { sqlbatch_stmt_reset(other.0) };
        c.exec("CREATE TABLE IF NOT EXISTS log(x); INSERT INTO log VALUES (1)");
        if rc == SQLBATCH_DONE {
            break;
        }
        assert_eq!(rc, SQLBATCH_ROW);
    }
    assert_eq!(got, want);
    assert_eq!(c.rows("SELECT count(*) FROM log"), vec![vec![Val::Int(24)]]);
}

#[test]
fn a_statement_that_writes_does_not_step_ahead() {
    let c = Conn::open_flags(":memory:", SQLBATCH_OPEN_FETCH_AHEAD);
    c.exec("CREATE TABLE w(x)");
    let s = c.prepare(
        "INSERT INTO w WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE x < 1000) \
         SELECT x FROM s RETURNING x",
    );
    // RETURNING runs every insert at the first step; what matters is that no later step runs
    // early: the rows come in order and the statement ends where it would.
    let mut n = 0;
    let rc = s.each_batch(10, usize::MAX, |b| {
        n += b.n_rows;
        true
    });
    assert_eq!((rc, n), (SQLBATCH_DONE, 1000));
    // A read-only statement of the same connection does fetch ahead (the open flag).
    let r = c.prepare("SELECT x FROM w ORDER BY x");
    let (rc, b) = r.fetch(10, usize::MAX);
    assert_eq!((rc, batch_rows(&b)[9][0].clone()), (SQLBATCH_ROW, Val::Int(10)));
    assert_eq!(r.all(10, usize::MAX).len(), 990);
}

#[test]
fn turning_it_off_mid_result_keeps_the_batch_already_stepped() {
    let c = Conn::memory();
    mixed(&c);
    let want = c.rows(Q);
    let s = c.prepare(Q);
    ahead(&s, true);
    let (rc, b) = s.fetch(100, usize::MAX);
    assert_eq!(rc, SQLBATCH_ROW);
    let mut got = batch_rows(&b);
    ahead(&s, false);
    got.extend(s.all(100, usize::MAX));
    assert_eq!(got, want);
}

#[test]
fn batch_get_reads_parts_of_a_batch_stepped_ahead_and_refuses_stale_ones() {
    let c = Conn::memory();
    mixed(&c);
    let want = c.rows(Q);
    let s = c.prepare(Q);
    ahead(&s, true);
    let (_, first) = s.fetch(100, usize::MAX);
    // Smaller bounds than the job's: the next 100 rows come in parts of 30.
    let mut at = 100;
    for _ in 0..3 {
        let (rc, b) = s.fetch(30, usize::MAX);
        assert_eq!((rc, b.n_rows), (SQLBATCH_ROW, 30));
        let mut v = sqlbatch_value::default();
        assert_eq!(unsafe { sqlbatch_batch_get(s.0, &b, 29, 0, &mut v) }, SQLBATCH_OK);
        assert_eq!(Val::Int(v.bits as i64), want[at + 29][0]);
        assert_eq!(batch_rows(&b), want[at..at + 30]);
        let mut v = sqlbatch_value::default();
        assert_eq!(unsafe { sqlbatch_batch_get(s.0, &first, 0, 0, &mut v) }, SQLBATCH_E_STALE_BATCH);
        at += 30;
    }
    // The rest, in parts of at most 30 (the job stepped several batches of 100: they are
    // small), then further jobs.
    let mut rest = Vec::new();
    loop {
        let (rc, b) = s.fetch(30, usize::MAX);
        assert!(b.n_rows <= 30);
        rest.extend(batch_rows(&b));
        if rc == SQLBATCH_DONE {
            break;
        }
        assert_eq!(rc, SQLBATCH_ROW);
    }
    assert_eq!(rest, want[at..]);
}

// ---- write-behind ------------------------------------------------------------------------

/// Rows (i, i * 0.25, "row-i") for i in `from..to`.
fn bulk_rows(from: i64, to: i64) -> Params {
    let vals: Vec<Val> =
        (from..to).flat_map(|i| [Val::Int(i), f(i as f64 * 0.25), t(&format!("row-{i}"))]).collect();
    Params::of(&vals)
}

fn start(s: &Stmt, p: &Params, n: usize) -> i32 {
    unsafe { sqlbatch_stmt_execute_many_start(s.0, &p.as_c(), n) }
}

fn wait(s: &Stmt) -> (i32, sqlbatch_write_result) {
    let mut w = sqlbatch_write_result::default();
    let rc = unsafe { sqlbatch_stmt_execute_many_wait(s.0, &mut w) };
    (rc, w)
}

#[test]
fn write_behind_writes_what_execute_many_writes() {
    let (a, b) = (Conn::memory(), Conn::memory());
    for c in [&a, &b] {
        c.exec("CREATE TABLE bulk(a INTEGER PRIMARY KEY, b REAL, c TEXT); BEGIN");
    }
    let (sa, sb) =
        (a.prepare("INSERT INTO bulk VALUES (?, ?, ?)"), b.prepare("INSERT INTO bulk VALUES (?, ?, ?)"));
    let batches: Vec<Params> = (0..20).map(|k| bulk_rows(k * 500, (k + 1) * 500)).collect();
    for (k, p) in batches.iter().enumerate() {
        let (rc, want) = sa.execute_many(p, 500);
        assert_eq!(rc, SQLBATCH_OK);
        if k > 0 {
            let (rc, got) = wait(&sb);
            assert_eq!(rc, SQLBATCH_OK);
            assert_eq!((got.rows, got.changes), (500, 500));
            assert_eq!(got.last_insert_rowid, want.last_insert_rowid - 500);
        }
        assert_eq!(start(&sb, p, 500), SQLBATCH_OK);
    }
    let (rc, got) = wait(&sb);
    assert_eq!((rc, got.rows, got.changes, got.last_insert_rowid), (SQLBATCH_OK, 500, 500, 9999));
    for c in [&a, &b] {
        c.exec("COMMIT");
    }
    assert_eq!(a.dump(usize::MAX), b.dump(usize::MAX));
    assert_eq!(b.rows("SELECT count(*) FROM bulk"), vec![vec![Val::Int(10_000)]]);
}

#[test]
fn write_behind_reports_a_failing_row_at_the_wait() {
    let c = Conn::memory();
    c.exec("CREATE TABLE u(a INTEGER PRIMARY KEY, b REAL, c TEXT); INSERT INTO u VALUES (250, 0, 'x')");
    let s = c.prepare("INSERT INTO u VALUES (?, ?, ?)");
    let p = bulk_rows(0, 500);
    assert_eq!(start(&s, &p, 500), SQLBATCH_OK);
    let (rc, w) = wait(&s);
    assert_eq!(rc, 1555, "SQLITE_CONSTRAINT_PRIMARYKEY: {}", c.error().1);
    assert_eq!(w.rows, 250);
    let (e, msg) = c.error();
    assert_eq!(e.row_index, 250);
    assert!(msg.contains("UNIQUE"), "{msg}");
    // Errors found before any row runs come from the start, and nothing is queued.
    assert_eq!(start(&s, &p, 499), SQLBATCH_E_PARAM_COUNT);
    assert_eq!(wait(&s).0, sqlite_code::MISUSE);
}

#[test]
fn a_queued_write_must_be_waited_for() {
    let c = Conn::memory();
    c.exec("CREATE TABLE q(a, b, c)");
    let s = c.prepare("INSERT INTO q VALUES (?, ?, ?)");
    let p = bulk_rows(0, 2000);
    assert_eq!(start(&s, &p, 2000), SQLBATCH_OK);
    // The statement refuses everything until the wait (but a second write: see below).
    assert_eq!(s.fetch(1, usize::MAX).0, sqlite_code::MISUSE);
    assert_eq!(unsafe { sqlbatch_stmt_reset(s.0) }, sqlite_code::MISUSE);
    assert!(c.error().1.contains("waited"), "{}", c.error().1);
    // The connection waits for the worker.
    assert_eq!(c.rows("SELECT count(*) FROM q"), vec![vec![Val::Int(2000)]]);
    assert_eq!(wait(&s).0, SQLBATCH_OK);
    assert_eq!(wait(&s).0, sqlite_code::MISUSE);
    // Finalize and close with a write queued: it runs, its result is dropped.
    assert_eq!(start(&s, &p, 2000), SQLBATCH_OK);
    s.finalize();
    assert_eq!(c.rows("SELECT count(*) FROM q"), vec![vec![Val::Int(4000)]]);
    let c2 = Conn::memory();
    c2.exec("CREATE TABLE q(a, b, c)");
    let s2 = c2.prepare("INSERT INTO q VALUES (?, ?, ?)");
    assert_eq!(start(&s2, &p, 2000), SQLBATCH_OK);
    drop(c2);
    assert_eq!(wait(&s2).0, SQLBATCH_OK, "the write ran before the connection closed");
    s2.finalize();
}

#[test]
fn two_writes_queued_run_in_order_as_execute_many_runs_them() {
    let (a, b) = (Conn::memory(), Conn::memory());
    for c in [&a, &b] {
        c.exec("CREATE TABLE bulk(a INTEGER PRIMARY KEY, b REAL, c TEXT); BEGIN");
    }
    let (sa, sb) =
        (a.prepare("INSERT INTO bulk VALUES (?, ?, ?)"), b.prepare("INSERT INTO bulk VALUES (?, ?, ?)"));
    let batches: Vec<Params> = (0..20).map(|k| bulk_rows(k * 500, (k + 1) * 500)).collect();
    let mut want = Vec::new();
    // The header's pattern: up to two writes queued, the oldest waited for before a third.
    for (k, p) in batches.iter().enumerate() {
        let (rc, w) = sa.execute_many(p, 500);
        assert_eq!(rc, SQLBATCH_OK);
        want.push(w);
        if k >= 2 {
            let (rc, got) = wait(&sb);
            assert_eq!(rc, SQLBATCH_OK);
            let w = want[k - 2];
            assert_eq!(
                (got.rows, got.changes, got.last_insert_rowid),
                (w.rows, w.changes, w.last_insert_rowid)
            );
        }
        assert_eq!(start(&sb, p, 500), SQLBATCH_OK);
    }
    for w in &want[18..] {
        let (rc, got) = wait(&sb);
        assert_eq!((rc, got.rows, got.last_insert_rowid), (SQLBATCH_OK, 500, w.last_insert_rowid));
    }
    assert_eq!(wait(&sb).0, sqlite_code::MISUSE, "nothing left to wait for");
    for c in [&a, &b] {
        c.exec("COMMIT");
    }
    assert_eq!(a.dump(usize::MAX), b.dump(usize::MAX));
    // A third start with two queued is refused, and queues nothing.
    let (p, p2) = (bulk_rows(20_000, 20_010), bulk_rows(30_000, 30_010));
    assert_eq!(start(&sb, &p, 10), SQLBATCH_OK);
    assert_eq!(start(&sb, &p2, 10), SQLBATCH_OK);
    assert_eq!(start(&sb, &bulk_rows(40_000, 40_010), 10), sqlite_code::MISUSE);
    assert!(b.error().1.contains("two bulk writes"), "{}", b.error().1);
    assert_eq!(start(&sb, &p, 9), sqlite_code::MISUSE, "checked after the queue is full");
    assert_eq!(wait(&sb).0, SQLBATCH_OK);
    // A start behind a queued write checks its arguments as the first does.
    assert_eq!(start(&sb, &p, 9), SQLBATCH_E_PARAM_COUNT);
    assert_eq!(wait(&sb).0, SQLBATCH_OK);
    assert_eq!(wait(&sb).0, sqlite_code::MISUSE);
    assert_eq!(b.rows("SELECT count(*) FROM bulk"), vec![vec![Val::Int(10_020)]]);
}

#[test]
fn a_write_queued_behind_a_failing_one_does_not_run() {
    let c = Conn::memory();
    c.exec("CREATE TABLE u(a INTEGER PRIMARY KEY, b REAL, c TEXT); INSERT INTO u VALUES (250, 0, 'x')");
    let s = c.prepare("INSERT INTO u VALUES (?, ?, ?)");
    let (p0, p1) = (bulk_rows(0, 500), bulk_rows(500, 1000));
    assert_eq!(start(&s, &p0, 500), SQLBATCH_OK);
    assert_eq!(start(&s, &p1, 500), SQLBATCH_OK);
    let (rc, w) = wait(&s);
    assert_eq!((rc, w.rows), (1555, 250), "SQLITE_CONSTRAINT_PRIMARYKEY at row 250");
    assert_eq!(c.error().0.row_index, 250);
    let (rc, w) = wait(&s);
    assert_eq!((rc, w.rows, w.changes), (SQLBATCH_E_SKIPPED, 0, 0));
    assert!(c.error().1.contains("failed"), "{}", c.error().1);
    assert_eq!(c.rows("SELECT count(*) FROM u"), vec![vec![Val::Int(251)]], "no row of p1 ran");
    // Once every write was waited for, the next ones run again.
    let p2 = bulk_rows(1000, 1500); // kept until its wait, as the header says
    assert_eq!(start(&s, &p1, 500), SQLBATCH_OK);
    assert_eq!(start(&s, &p2, 500), SQLBATCH_OK);
    assert_eq!(wait(&s).0, SQLBATCH_OK);
    assert_eq!(wait(&s).0, SQLBATCH_OK);
    assert_eq!(c.rows("SELECT count(*) FROM u"), vec![vec![Val::Int(1251)]]);
}

#[test]
fn finalize_close_and_empty_statements_with_two_writes_queued() {
    let c = Conn::memory();
    c.exec("CREATE TABLE q(a, b, c)");
    let s = c.prepare("INSERT INTO q VALUES (?, ?, ?)");
    let p = bulk_rows(0, 2000);
    assert_eq!(start(&s, &p, 2000), SQLBATCH_OK);
    assert_eq!(start(&s, &p, 2000), SQLBATCH_OK);
    assert_eq!(s.fetch(1, usize::MAX).0, sqlite_code::MISUSE);
    // The connection waits for both.
    assert_eq!(c.rows("SELECT count(*) FROM q"), vec![vec![Val::Int(4000)]]);
    assert_eq!(wait(&s).0, SQLBATCH_OK);
    assert_eq!(wait(&s).0, SQLBATCH_OK);
    assert_eq!(start(&s, &p, 2000), SQLBATCH_OK);
    assert_eq!(start(&s, &p, 2000), SQLBATCH_OK);
    s.finalize();
    assert_eq!(c.rows("SELECT count(*) FROM q"), vec![vec![Val::Int(8000)]]);
    let c2 = Conn::memory();
    c2.exec("CREATE TABLE q(a, b, c)");
    let s2 = c2.prepare("INSERT INTO q VALUES (?, ?, ?)");
    assert_eq!(start(&s2, &p, 2000), SQLBATCH_OK);
    assert_eq!(start(&s2, &p, 2000), SQLBATCH_OK);
    drop(c2);
    assert_eq!(wait(&s2).0, SQLBATCH_OK, "both ran before the connection closed");
    assert_eq!(wait(&s2).0, SQLBATCH_OK);
    assert_eq!(start(&s2, &p, 2000), SQLBATCH_E_CLOSED);
    s2.finalize();
    // An empty statement queues its runs as well.
    let e = c.prepare("  -- nothing\n");
    for n in [3, 4] {
        assert_eq!(unsafe { sqlbatch_stmt_execute_many_start(e.0, ptr::null(), n) }, SQLBATCH_OK);
    }
    assert_eq!((wait(&e).0, wait(&e).1.rows), (SQLBATCH_OK, 4), "each reports its own");
}

#[test]
fn an_interrupt_left_from_an_earlier_call_does_not_stop_the_second_write() {
    let c = Conn::memory();
    c.exec("CREATE TABLE q(a, b, c)");
    let s = c.prepare("INSERT INTO q VALUES (?, ?, ?)");
    let (p0, p1) = (bulk_rows(0, 10), bulk_rows(10, 20));
    assert_eq!(start(&s, &p0, 10), SQLBATCH_OK);
    // A call between the two starts waits for the first write; an interrupt then, with
    // nothing running, is forgotten by the next write as by any call that starts.
    assert_eq!(c.rows("SELECT count(*) FROM q"), vec![vec![Val::Int(10)]]);
    unsafe { sqlbatch_conn_interrupt(c.0) };
    assert_eq!(start(&s, &p1, 10), SQLBATCH_OK);
    assert_eq!(wait(&s).0, SQLBATCH_OK);
    let (rc, w) = wait(&s);
    assert_eq!((rc, w.rows), (SQLBATCH_OK, 10), "{}", c.error().1);
    assert_eq!(c.rows("SELECT count(*) FROM q"), vec![vec![Val::Int(20)]]);
}

#[test]
fn an_interrupt_stops_two_queued_writes() {
    let c = Conn::memory();
    c.exec("CREATE TABLE q(a, b, c)");
    let s = c.prepare("INSERT INTO q VALUES (?, ?, ?)");
    let p = bulk_rows(0, 100_000);
    assert_eq!(start(&s, &p, 100_000), SQLBATCH_OK);
    assert_eq!(start(&s, &p, 100_000), SQLBATCH_OK);
    unsafe { sqlbatch_conn_interrupt(c.0) };
    let (rc0, w0) = wait(&s);
    let (rc1, w1) = wait(&s);
    // The interrupt stops whichever runs (it may come after the last row on a fast machine);
    // once one is stopped, the one behind it does not run.
    match (rc0, rc1) {
        (SQLBATCH_OK, SQLBATCH_OK) => assert_eq!((w0.rows, w1.rows), (100_000, 100_000)),
        (sqlite_code::INTERRUPT, SQLBATCH_E_SKIPPED) => assert_eq!(w1.rows, 0),
        (SQLBATCH_OK, sqlite_code::INTERRUPT) => assert_eq!(w0.rows, 100_000),
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(c.rows("SELECT count(*) FROM q"), vec![vec![Val::Int((w0.rows + w1.rows) as i64)]]);
}

#[test]
fn an_interrupt_stops_a_write_behind() {
    let c = Conn::memory();
    c.exec("CREATE TABLE q(a, b, c)");
    let s = c.prepare("INSERT INTO q VALUES (?, ?, ?)");
    let p = bulk_rows(0, 200_000);
    assert_eq!(start(&s, &p, 200_000), SQLBATCH_OK);
    unsafe { sqlbatch_conn_interrupt(c.0) };
    let (rc, w) = wait(&s);
    // The interrupt may come after the last row on a fast machine; never a wrong count.
    if rc == SQLBATCH_OK {
        assert_eq!(w.rows, 200_000);
    } else {
        assert_eq!(rc, sqlite_code::INTERRUPT);
        assert!(w.rows < 200_000);
        assert_eq!(c.rows("SELECT count(*) FROM q"), vec![vec![Val::Int(w.rows as i64)]]);
    }
}

// ---- from a callback ----------------------------------------------------------------------

fn set_int(call: *mut sqlbatch_call, v: i64) {
    let value = sqlbatch_value { bits: v as u64, len: 0, kind: SQLBATCH_INTEGER, _pad: [0; 3] };
    assert_eq!(unsafe { sqlbatch_call_result(call, &value, ptr::null(), 0) }, SQLBATCH_OK);
}

fn function(c: &Conn, name: &str, f: sqlbatch_function_fn, user: *mut std::ffi::c_void) {
    let rc =
        unsafe { sqlbatch_conn_create_function(c.0, name.as_ptr().cast(), name.len(), 0, 0, f, user, None) };
    assert_eq!(rc, SQLBATCH_OK);
}

/// `here()`: 1 on the thread whose id is the user data, 0 on any other.
unsafe extern "C" fn here(
    call: *mut sqlbatch_call,
    user: *mut std::ffi::c_void,
    _args: *const sqlbatch_value,
    _n_args: usize,
    _data: *const u8,
) {
    let want = unsafe { *(user as *const std::thread::ThreadId) };
    set_int(call, (std::thread::current().id() == want) as i64);
}

/// What `uses_the_worker` does from inside a step: write behind or fetch ahead on `stmt`.
struct FromCallback {
    stmt: *mut sqlbatch_stmt,
    rows: Params,
    rcs: Vec<i32>,
    here: i64,
}

unsafe extern "C" fn uses_the_worker(
    call: *mut sqlbatch_call,
    user: *mut std::ffi::c_void,
    _args: *const sqlbatch_value,
    _n_args: usize,
    _data: *const u8,
) {
    let f = unsafe { &mut *(user as *mut FromCallback) };
    if f.rows.as_c().n_values > 0 {
        // Two starts: the first runs its rows before it returns, the second is refused.
        let n = f.rows.as_c().n_values;
        for _ in 0..2 {
            f.rcs.push(unsafe { sqlbatch_stmt_execute_many_start(f.stmt, &f.rows.as_c(), n) });
        }
    } else {
        // Every batch of a statement that fetches ahead.
        loop {
            let mut b = unsafe { std::mem::zeroed::<sqlbatch_batch>() };
            let rc = unsafe { sqlbatch_stmt_fetch(f.stmt, 10, usize::MAX, &mut b) };
            f.rcs.push(rc);
            if rc != SQLBATCH_ROW && rc != SQLBATCH_DONE {
                break;
            }
            f.here += batch_rows(&b).iter().map(|r| if r[0] == Val::Int(1) { 1 } else { 0 }).sum::<i64>();
            if rc == SQLBATCH_DONE {
                break;
            }
        }
    }
    set_int(call, 1);
}

#[test]
fn a_write_started_from_a_callback_runs_on_its_thread_before_the_start_returns() {
    // The step that runs the callback is still using the connection: its rows cannot run on
    // the worker beside it.
    let c = Conn::memory();
    let mut me = std::thread::current().id();
    function(&c, "here", Some(here), &mut me as *mut _ as *mut _);
    c.exec("CREATE TABLE q(a, b)");
    let s = c.prepare("INSERT INTO q VALUES (?, here())");
    let vals: Vec<Val> = (0..5000).map(Val::Int).collect();
    let mut f = Box::new(FromCallback { stmt: s.0, rows: Params::of(&vals), rcs: Vec::new(), here: 0 });
    function(&c, "kick", Some(uses_the_worker), &mut *f as *mut FromCallback as *mut _);
    assert_eq!(c.rows("SELECT kick()"), vec![vec![Val::Int(1)]]);
    assert_eq!(f.rcs, vec![SQLBATCH_OK, sqlite_code::MISUSE], "a second start from a callback is refused");
    let (rc, w) = wait(&s);
    assert_eq!((rc, w.rows), (SQLBATCH_OK, 5000));
    assert_eq!(wait(&s).0, sqlite_code::MISUSE, "the refused start queued nothing");
    assert_eq!(c.rows("SELECT count(*), sum(b) FROM q"), vec![vec![Val::Int(5000), Val::Int(5000)]]);
}

#[test]
fn a_fetch_from_a_callback_does_not_step_ahead() {
    let c = Conn::memory();
    let mut me = std::thread::current().id();
    function(&c, "here", Some(here), &mut me as *mut _ as *mut _);
    let s = c.prepare(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) SELECT here() FROM n",
    );
    ahead(&s, true);
    let mut f = Box::new(FromCallback { stmt: s.0, rows: Params::of(&[]), rcs: Vec::new(), here: 0 });
    function(&c, "pull", Some(uses_the_worker), &mut *f as *mut FromCallback as *mut _);
    assert_eq!(c.rows("SELECT pull()"), vec![vec![Val::Int(1)]]);
    assert_eq!(f.rcs.last(), Some(&SQLBATCH_DONE), "{:?}", f.rcs);
    assert_eq!(f.here, 1000, "every row stepped on the callback's thread");
    // Outside callbacks, the same statement steps ahead on the worker again.
    assert_eq!(unsafe { sqlbatch_stmt_reset(s.0) }, SQLBATCH_OK);
    let rows = s.all(10, usize::MAX);
    assert_eq!(rows.len(), 1000);
    assert!(rows.iter().any(|r| r[0] == Val::Int(0)), "batches after the first come from the worker");
}

/// What `uses_its_job_statement` does, on the worker only, to the statement of its job.
struct OnWorker {
    stmt: *mut sqlbatch_stmt,
    main: std::thread::ThreadId,
    mode: u8,
    rcs: std::sync::Mutex<Vec<i32>>,
}

unsafe extern "C" fn uses_its_job_statement(
    call: *mut sqlbatch_call,
    user: *mut std::ffi::c_void,
    _args: *const sqlbatch_value,
    _n_args: usize,
    _data: *const u8,
) {
    let w = unsafe { &*(user as *const OnWorker) };
    if std::thread::current().id() != w.main {
        let mut rcs = w.rcs.lock().unwrap();
        let rc = unsafe {
            match w.mode {
                0 => {
                    let mut b = std::mem::zeroed::<sqlbatch_batch>();
                    sqlbatch_stmt_fetch(w.stmt, 10, usize::MAX, &mut b)
                }
                1 | 4 => sqlbatch_stmt_reset(w.stmt),
                2 => {
                    let mut sql = std::mem::zeroed::<sqlbatch_str>();
                    sqlbatch_stmt_sql(w.stmt, &mut sql)
                }
                _ => {
                    if rcs.is_empty() {
                        sqlbatch_stmt_finalize(w.stmt); // once: finalizing twice is the caller's bug
                    }
                    SQLBATCH_OK
                }
            }
        };
        rcs.push(rc);
    }
    set_int(call, 1);
}

#[test]
fn a_callback_of_a_job_on_the_worker_cannot_use_the_statement_of_the_job() {
    // The worker steps the statement while the caller's thread may call it: a fetch, reset or
    // read of it from the job's callback is refused, a finalize deferred (before: a panic in
    // the worker, the statement's state taken from under the caller).
    for mode in 0..5u8 {
        let c = Conn::memory();
        let mut w = Box::new(OnWorker {
            stmt: ptr::null_mut(),
            main: std::thread::current().id(),
            mode,
            rcs: Default::default(),
        });
        function(&c, "own", Some(uses_its_job_statement), &mut *w as *mut OnWorker as *mut _);
        if mode == 4 {
            c.exec("CREATE TABLE q(a, b)");
            let s = c.prepare("INSERT INTO q VALUES (?, own())");
            w.stmt = s.0;
            let p = Params::of(&(0..1000).map(Val::Int).collect::<Vec<_>>());
            assert_eq!(start(&s, &p, 1000), SQLBATCH_OK);
            assert_eq!(wait(&s).0, SQLBATCH_OK);
            assert_eq!(c.rows("SELECT count(*) FROM q"), vec![vec![Val::Int(1000)]]);
        } else {
            let s = c.prepare(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100) SELECT own() FROM n",
            );
            w.stmt = s.0;
            ahead(&s, true);
            let (rc, b) = s.fetch(10, usize::MAX);
            assert_eq!((rc, b.n_rows), (SQLBATCH_ROW, 10));
            if mode == 3 {
                // Finalized by the callback: the caller must not use it again; it goes once
                // no longer in the middle of its rows, here when the connection closes.
                std::mem::forget(s);
                assert_eq!(c.rows("SELECT 7"), vec![vec![Val::Int(7)]]);
                // The batches stepped ahead: every row left, as batches of 10 rows of one
                // integer are small enough for one job to step up to 16 of them; but row 11,
                // on which the first fetch stopped, so that its `own()` ran on this thread.
                assert_eq!(*w.rcs.lock().unwrap(), vec![SQLBATCH_OK; 89], "the batches stepped ahead");
                continue;
            }
            let rest = s.all(10, usize::MAX);
            assert_eq!(rest, vec![vec![Val::Int(1)]; 90], "mode {mode}");
        }
        let rcs = w.rcs.lock().unwrap();
        assert!(!rcs.is_empty(), "mode {mode}: the callback ran on the worker");
        assert!(rcs.iter().all(|&rc| rc == sqlite_code::MISUSE), "mode {mode}: {rcs:?}");
    }
}

/// `probe()`: fetches and resets the statement in its user data, recording what it got.
unsafe extern "C" fn probe(
    call: *mut sqlbatch_call,
    user: *mut std::ffi::c_void,
    _args: *const sqlbatch_value,
    _n_args: usize,
    _data: *const u8,
) {
    let w = unsafe { &*(user as *const OnWorker) };
    let mut b = unsafe { std::mem::zeroed::<sqlbatch_batch>() };
    let rc = unsafe { sqlbatch_stmt_fetch(w.stmt, 10, usize::MAX, &mut b) };
    let mut rcs = w.rcs.lock().unwrap();
    rcs.push(rc);
    if rc == SQLBATCH_DONE {
        rcs.push(unsafe { sqlbatch_stmt_reset(w.stmt) });
    }
    set_int(call, 1);
}

#[test]
fn the_callers_thread_and_a_callback_on_the_worker_may_use_one_statement_in_turn() {
    // A call on the caller's thread waits for the worker, whose write's callback may be using
    // the same statement at that moment: it is never refused. The callback is refused while
    // the caller's thread is in a call on it (that call waits for the worker).
    let c = Conn::memory();
    let mut w = Box::new(OnWorker {
        stmt: ptr::null_mut(),
        main: std::thread::current().id(),
        mode: 0,
        rcs: Default::default(),
    });
    function(&c, "probe", Some(probe), &mut *w as *mut OnWorker as *mut _);
    c.exec("CREATE TABLE q(a, b)");
    let s = c.prepare("INSERT INTO q VALUES (?, probe())");
    let s2 = c.prepare("SELECT 1");
    w.stmt = s2.0;
    let p = Params::of(&(0..200).map(Val::Int).collect::<Vec<_>>());
    for _ in 0..200 {
        assert_eq!(start(&s, &p, 200), SQLBATCH_OK);
        std::thread::sleep(Duration::from_micros(50)); // into the write's rows
        assert_eq!(unsafe { sqlbatch_stmt_reset(s2.0) }, SQLBATCH_OK, "{}", c.error().1);
        let (rc, b) = s2.fetch(10, usize::MAX);
        assert_eq!((rc, b.n_rows), (SQLBATCH_DONE, 1), "{}", c.error().1);
        assert_eq!(wait(&s).0, SQLBATCH_OK);
    }
    let rcs = w.rcs.lock().unwrap();
    assert!(rcs.len() >= 200 * 200);
    assert!(rcs.iter().all(|&rc| [SQLBATCH_DONE, SQLBATCH_OK, sqlite_code::MISUSE].contains(&rc)), "{rcs:?}");
    assert!(rcs.contains(&SQLBATCH_DONE), "the callback used the statement between the caller's calls");
    assert_eq!(c.rows("SELECT count(*), sum(b) FROM q"), vec![vec![Val::Int(40_000), Val::Int(40_000)]]);
}

unsafe extern "C" fn closes_its_connection(
    call: *mut sqlbatch_call,
    user: *mut std::ffi::c_void,
    _args: *const sqlbatch_value,
    _n_args: usize,
    _data: *const u8,
) {
    unsafe { sqlbatch_conn_close(user.cast()) };
    set_int(call, 1);
}

#[test]
fn closing_the_connection_from_a_callback_on_the_worker_does_nothing() {
    let c = Conn::memory();
    function(&c, "bye", Some(closes_its_connection), c.0.cast());
    c.exec("CREATE TABLE q(a, b)");
    let s = c.prepare("INSERT INTO q VALUES (?, bye())");
    let p = Params::of(&(0..1000).map(Val::Int).collect::<Vec<_>>());
    assert_eq!(start(&s, &p, 1000), SQLBATCH_OK);
    assert_eq!(wait(&s).0, SQLBATCH_OK);
    assert_eq!(c.rows("SELECT count(*) FROM q"), vec![vec![Val::Int(1000)]]);
    assert!(c.error().1.contains("callback"), "{}", c.error().1);
}

/// User data of `queues_from_a_hook`: the statement to queue a write on, and what it got.
struct HookStart {
    stmt: *mut sqlbatch_stmt,
    rows: Params,
    rcs: Vec<i32>,
}

unsafe extern "C" fn queues_from_a_hook(
    user: *mut std::ffi::c_void,
    _op: i32,
    _schema: *const std::ffi::c_char,
    _table: *const std::ffi::c_char,
    _rowid: i64,
) {
    let h = unsafe { &mut *(user as *mut HookStart) };
    h.rcs.push(unsafe { sqlbatch_stmt_execute_many_start(h.stmt, &h.rows.as_c(), 10) });
}

#[test]
fn a_write_cannot_be_queued_from_a_hook() {
    // A hook must not use its connection; a second start, which does not wait for the worker,
    // used to queue its rows on the worker beside the step that ran the hook.
    let c = Conn::memory();
    c.exec("CREATE TABLE q(a, b, c); CREATE TABLE other(x)");
    let s = c.prepare("INSERT INTO q VALUES (?, ?, ?)");
    let mut h = Box::new(HookStart { stmt: s.0, rows: bulk_rows(10, 20), rcs: Vec::new() });
    let rc = unsafe {
        sqlbatch_conn_update_hook(c.0, Some(queues_from_a_hook), (&mut *h as *mut HookStart).cast(), None)
    };
    assert_eq!(rc, SQLBATCH_OK);
    let p = bulk_rows(0, 10);
    assert_eq!(start(&s, &p, 10), SQLBATCH_OK);
    c.exec("INSERT INTO other VALUES (1)");
    // Once for each of the write's 10 rows (on the worker), once for the INSERT's.
    assert_eq!(h.rcs, vec![sqlite_code::MISUSE; 11]);
    assert_eq!(wait(&s).0, SQLBATCH_OK);
    assert_eq!(wait(&s).0, sqlite_code::MISUSE, "nothing more was queued");
    assert_eq!(c.rows("SELECT count(*) FROM q"), vec![vec![Val::Int(10)]]);
}

#[test]
fn null_and_empty_arguments() {
    unsafe {
        assert_eq!(sqlbatch_stmt_set_fetch_ahead(ptr::null_mut(), true), SQLBATCH_E_NULL_PARAMETER);
        assert_eq!(
            sqlbatch_stmt_execute_many_start(ptr::null_mut(), ptr::null(), 0),
            SQLBATCH_E_NULL_PARAMETER
        );
        let mut w = sqlbatch_write_result::default();
        assert_eq!(sqlbatch_stmt_execute_many_wait(ptr::null_mut(), &mut w), SQLBATCH_E_NULL_PARAMETER);
    }
    let c = Conn::memory();
    // An empty statement, and one without parameters, run N times.
    let e = c.prepare("  -- nothing\n");
    ahead(&e, true);
    assert_eq!(e.fetch(10, usize::MAX).0, SQLBATCH_DONE);
    assert_eq!(unsafe { sqlbatch_stmt_execute_many_start(e.0, ptr::null(), 3) }, SQLBATCH_OK);
    let (rc, w) = wait(&e);
    assert_eq!((rc, w.rows, w.changes), (SQLBATCH_OK, 3, 0));
    c.exec("CREATE TABLE z(x DEFAULT 1)");
    let z = c.prepare("INSERT INTO z DEFAULT VALUES");
    assert_eq!(unsafe { sqlbatch_stmt_execute_many_start(z.0, ptr::null(), 5) }, SQLBATCH_OK);
    let (rc, w) = wait(&z);
    assert_eq!((rc, w.rows, w.changes), (SQLBATCH_OK, 5, 5));
    // max_rows 0 is refused with fetch-ahead as without.
    let s = c.prepare("SELECT 1");
    ahead(&s, true);
    assert_eq!(s.fetch(0, usize::MAX).0, SQLBATCH_E_RANGE);
    // A closed connection.
    drop(c);
    assert_eq!(unsafe { sqlbatch_stmt_set_fetch_ahead(s.0, false) }, SQLBATCH_E_CLOSED);
}
