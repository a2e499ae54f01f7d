//! Batched fetch through the C ABI: every type, batch boundaries, byte bounds, lifetimes.

mod common;
use common::*;

fn typed_table() -> Conn {
    let c = Conn::memory();
    c.exec("CREATE TABLE v(x)");
    c
}

#[test]
fn every_type_round_trips_through_bind_and_fetch() {
    let c = typed_table();
    let big = vec![0xA5u8; 1 << 20];
    let values = vec![
        Val::Null,
        Val::Int(0),
        Val::Int(i64::MIN),
        Val::Int(i64::MAX),
        f(0.0),
        f(-0.0),
        f(f64::INFINITY),
        f(f64::NEG_INFINITY),
        f(1.5e-300),
        t(""),
        t("héllo wörld ✓ 𝄞"),
        Val::Text(b"nul\0inside\0".to_vec()),
        Val::Blob(vec![]),
        Val::Blob(vec![0, 1, 2, 255]),
        Val::Blob(big.clone()),
    ];
    let ins = c.prepare("INSERT INTO v VALUES (?)");
    for v in &values {
        let p = Params::of(std::slice::from_ref(v));
        assert_eq!(ins.bind(&p), SQLBATCH_OK);
        let (rc, _) = ins.fetch(1, usize::MAX);
        assert_eq!(rc, SQLBATCH_DONE);
    }
    ins.finalize();
    let got: Vec<Val> =
        c.rows("SELECT x FROM v ORDER BY rowid").into_iter().map(|mut r| r.remove(0)).collect();
    assert_eq!(got, values);
}

#[test]
fn nan_is_stored_as_null_by_sqlite() {
    // SQLite turns a bound NaN into NULL; the batch must say NULL, not a float.
    let c = typed_table();
    let p = Params::of(&[f(f64::NAN)]);
    let s = c.prepare("SELECT ?");
    assert_eq!(s.bind(&p), SQLBATCH_OK);
    assert_eq!(s.all(4, usize::MAX), vec![vec![Val::Null]]);
}

#[test]
fn null_empty_text_and_empty_blob_stay_distinct() {
    let c = Conn::memory();
    let rows = c.rows("SELECT NULL, '', x'', typeof(''), typeof(x'')");
    assert_eq!(rows, vec![vec![Val::Null, t(""), Val::Blob(vec![]), t("text"), t("blob")]]);
}

fn numbers(c: &Conn, n: i64) {
    c.exec(&format!(
        "CREATE TABLE n(i INTEGER PRIMARY KEY, s TEXT); WITH RECURSIVE k(i) AS (SELECT 1 WHERE {n} > 0 UNION ALL SELECT i+1 FROM k WHERE i<{n}) INSERT INTO n SELECT i, printf('row %d', i) FROM k"
    ));
}

#[test]
fn batch_boundaries_zero_exactly_n_and_n_plus_one() {
    for (rows, max_rows) in [(0i64, 5usize), (5, 5), (6, 5), (10, 5), (1, 1), (3, 1)] {
        let c = Conn::memory();
        numbers(&c, rows);
        let s = c.prepare("SELECT i FROM n ORDER BY i");
        let mut seen = Vec::new();
        let mut calls = 0;
        loop {
            let (rc, b) = s.fetch(max_rows, usize::MAX);
            calls += 1;
            assert!(b.n_rows <= max_rows);
            seen.extend(batch_rows(&b).into_iter().map(|r| r[0].clone()));
            if rc == SQLBATCH_DONE {
                break;
            }
            assert_eq!(rc, SQLBATCH_ROW);
        }
        let want: Vec<Val> = (1..=rows).map(Val::Int).collect();
        assert_eq!(seen, want, "rows={rows} max_rows={max_rows}");
        // The end is reported in the same call that returns the last row.
        let expected_calls = (rows as usize).div_ceil(max_rows).max(1);
        assert_eq!(calls, expected_calls, "rows={rows} max_rows={max_rows}");
        // After DONE, fetch keeps saying DONE with no rows.
        let (rc, b) = s.fetch(max_rows, usize::MAX);
        assert_eq!((rc, b.n_rows), (SQLBATCH_DONE, 0));
    }
}

#[test]
fn byte_bound_splits_batches_but_a_huge_value_comes_whole() {
    let c = Conn::memory();
    c.exec("CREATE TABLE b(x); INSERT INTO b VALUES (zeroblob(10)), (zeroblob(100000)), (zeroblob(10)), (zeroblob(10))");
    let s = c.prepare("SELECT x FROM b ORDER BY rowid");
    let mut sizes = Vec::new();
    loop {
        let (rc, b) = s.fetch(100, 64);
        sizes.push(
            batch_rows(&b)
                .iter()
                .map(|r| match &r[0] {
                    Val::Blob(x) => x.len(),
                    v => panic!("{v:?}"),
                })
                .collect::<Vec<_>>(),
        );
        if rc == SQLBATCH_DONE {
            break;
        }
    }
    // 16 bytes per cell plus bytes: after [10] the batch is below 64 bytes, so the huge value
    // joins it whole; then the batch is full.
    assert_eq!(sizes, vec![vec![10, 100000], vec![10, 10]]);
    // A huge first row comes whole too.
    assert_eq!(unsafe { sqlbatch_stmt_reset(s.0) }, SQLBATCH_OK);
    let (_, b) = s.fetch(100, 1);
    assert_eq!((b.n_rows, b.data_len), (1, 10));
    let (_, b) = s.fetch(100, 1);
    assert_eq!((b.n_rows, b.data_len), (1, 100000));
}

#[test]
fn results_larger_than_the_arena_stream_in_bounded_batches() {
    let c = Conn::memory();
    numbers(&c, 20000);
    let s = c.prepare("SELECT i, s FROM n ORDER BY i");
    let (mut total, mut next) = (0, 1);
    loop {
        let (rc, b) = s.fetch(usize::MAX, 4096);
        assert!(
            b.n_rows * 2 * 16 + b.data_len <= 4096 + 64,
            "batch over bound: {} rows {} bytes",
            b.n_rows,
            b.data_len
        );
        for r in batch_rows(&b) {
            assert_eq!(r, vec![Val::Int(next), t(&format!("row {next}"))]);
            next += 1;
        }
        total += b.n_rows;
        if rc == SQLBATCH_DONE {
            break;
        }
    }
    assert_eq!(total, 20000);
}

#[test]
fn fetch_into_a_caller_buffer() {
    let c = Conn::memory();
    c.exec("CREATE TABLE b(x); INSERT INTO b VALUES ('aaaa'), ('bbbbbbbbbbbb'), ('cc'), (7)");
    let s = c.prepare("SELECT x FROM b ORDER BY rowid");
    let mut buf = vec![0u8; 8];
    let mut b: sqlbatch_batch = unsafe { std::mem::zeroed() };
    let fetch = |buf: &mut Vec<u8>, b: &mut sqlbatch_batch| unsafe {
        sqlbatch_stmt_fetch_into(s.0, 10, buf.as_mut_ptr(), buf.len(), b)
    };
    assert_eq!(fetch(&mut buf, &mut b), SQLBATCH_ROW);
    assert!(b.data.is_null(), "no pointer to the caller's buffer is written back");
    assert_eq!(batch_rows_in(&b, buf.as_ptr(), buf.len()), vec![vec![t("aaaa")]]);
    // The next row (12 bytes) does not fit on its own: told how much it needs, row kept.
    assert_eq!(fetch(&mut buf, &mut b), SQLBATCH_E_BUFFER_TOO_SMALL);
    assert_eq!((b.n_rows, b.data_len), (0, 12));
    buf = vec![0u8; 16];
    assert_eq!(fetch(&mut buf, &mut b), SQLBATCH_DONE);
    assert_eq!(
        batch_rows_in(&b, buf.as_ptr(), buf.len()),
        vec![vec![t("bbbbbbbbbbbb")], vec![t("cc")], vec![Val::Int(7)]]
    );
}

#[test]
fn a_stale_batch_is_detected_by_the_checked_accessor() {
    let c = Conn::memory();
    numbers(&c, 10);
    let s = c.prepare("SELECT i, s FROM n ORDER BY i");
    let (_, b1) = s.fetch(2, usize::MAX);
    let mut v = sqlbatch_value::default();
    assert_eq!(unsafe { sqlbatch_batch_get(s.0, &b1, 1, 1, &mut v) }, SQLBATCH_OK);
    assert_eq!(v.kind, SQLBATCH_TEXT);
    let text = unsafe { std::slice::from_raw_parts(v.bits as usize as *const u8, v.len as usize) };
    assert_eq!(text, b"row 2");
    assert_eq!(unsafe { sqlbatch_batch_get(s.0, &b1, 2, 0, &mut v) }, SQLBATCH_E_RANGE);
    assert_eq!(unsafe { sqlbatch_batch_get(s.0, &b1, 0, 2, &mut v) }, SQLBATCH_E_RANGE);
    let (_, b2) = s.fetch(2, usize::MAX);
    assert_eq!(unsafe { sqlbatch_batch_get(s.0, &b1, 0, 0, &mut v) }, SQLBATCH_E_STALE_BATCH);
    assert_eq!(unsafe { sqlbatch_batch_get(s.0, &b2, 0, 0, &mut v) }, SQLBATCH_OK);
    assert_eq!(v.bits, 3);
    assert_eq!(unsafe { sqlbatch_stmt_reset(s.0) }, SQLBATCH_OK);
    assert_eq!(unsafe { sqlbatch_batch_get(s.0, &b2, 0, 0, &mut v) }, SQLBATCH_E_STALE_BATCH);
    assert_eq!(c.error().0.code, SQLBATCH_E_STALE_BATCH);
}

#[test]
fn reset_runs_the_statement_again_and_bind_resets_it() {
    let c = Conn::memory();
    numbers(&c, 5);
    let s = c.prepare("SELECT i FROM n WHERE i >= ? ORDER BY i");
    let p = Params::of(&[Val::Int(4)]);
    assert_eq!(s.bind(&p), SQLBATCH_OK);
    let (rc, _) = s.fetch(1, usize::MAX);
    assert_eq!(rc, SQLBATCH_ROW);
    assert_eq!(unsafe { sqlbatch_stmt_reset(s.0) }, SQLBATCH_OK);
    assert_eq!(s.all(10, usize::MAX), vec![vec![Val::Int(4)], vec![Val::Int(5)]]);
    let p = Params::of(&[Val::Int(5)]);
    assert_eq!(s.bind(&p), SQLBATCH_OK);
    assert_eq!(s.all(10, usize::MAX), vec![vec![Val::Int(5)]]);
}

#[test]
fn reset_fetch_into_is_a_reset_and_a_fetch_into() {
    let c = Conn::memory();
    numbers(&c, 5);
    let mut buf = vec![0u8; 64];
    let (base, len) = (buf.as_mut_ptr(), buf.len());
    let mut b: sqlbatch_batch = unsafe { std::mem::zeroed() };
    let rerun = |s: &Stmt, max_rows: usize, b: &mut sqlbatch_batch| unsafe {
        sqlbatch_stmt_reset_fetch_into(s.0, max_rows, base, len, b)
    };
    // In the middle of a run: starts again from the first row, with the parameters kept.
    let s = c.prepare("SELECT i, s FROM n WHERE i >= ? ORDER BY i");
    assert_eq!(s.bind(&Params::of(&[Val::Int(4)])), SQLBATCH_OK);
    assert_eq!(s.fetch(1, usize::MAX).0, SQLBATCH_ROW);
    assert_eq!(rerun(&s, 10, &mut b), SQLBATCH_DONE);
    assert!(b.data.is_null(), "the bytes are in the caller's buffer, as with fetch_into");
    let want = vec![vec![Val::Int(4), t("row 4")], vec![Val::Int(5), t("row 5")]];
    assert_eq!(batch_rows_in(&b, base, len), want);
    // After its end (which a plain fetch keeps reporting): runs again.
    assert_eq!(s.fetch(10, usize::MAX).0, SQLBATCH_DONE);
    assert_eq!(rerun(&s, 1, &mut b), SQLBATCH_ROW);
    assert_eq!(batch_rows_in(&b, base, len), want[..1].to_vec());
    // A statement without rows (a kept BEGIN, COMMIT or INSERT) runs once a call.
    c.exec("CREATE TABLE log(x)");
    let ins = c.prepare("INSERT INTO log VALUES ('again')");
    for _ in 0..3 {
        assert_eq!(rerun(&ins, 1, &mut b), SQLBATCH_DONE);
        assert_eq!(b.n_rows, 0);
    }
    assert_eq!(c.rows("SELECT count(*) FROM log"), vec![vec![Val::Int(3)]]);
    // A failed run's error is not reported again: the statement runs from the start. (abs of
    // i64 min overflows at row 2; row 1 comes first.)
    let f =
        c.prepare("SELECT CASE WHEN i = 2 THEN abs(-9223372036854775807 - 1) ELSE i END FROM n ORDER BY i");
    assert_eq!(f.fetch(10, usize::MAX).0, SQLBATCH_ROW);
    assert_eq!(f.fetch(10, usize::MAX).0, libsqlite3_sys::SQLITE_ERROR);
    assert_eq!(rerun(&f, 10, &mut b), SQLBATCH_ROW);
    assert_eq!(batch_rows_in(&b, base, len), vec![vec![Val::Int(1)]]);
    assert_eq!(rerun(&f, 10, &mut b), SQLBATCH_ROW, "and again");
}

#[test]
fn an_error_after_some_rows_returns_those_rows_first() {
    let c = Conn::memory();
    numbers(&c, 10);
    // abs(i64 min) overflows at row 4.
    let s =
        c.prepare("SELECT CASE WHEN i = 4 THEN abs(-9223372036854775807 - 1) ELSE i END FROM n ORDER BY i");
    let (rc, b) = s.fetch(100, usize::MAX);
    assert_eq!(rc, SQLBATCH_ROW);
    assert_eq!(batch_rows(&b), vec![vec![Val::Int(1)], vec![Val::Int(2)], vec![Val::Int(3)]]);
    let (rc, _) = s.fetch(100, usize::MAX);
    assert_eq!(rc, libsqlite3_sys::SQLITE_ERROR);
    assert!(c.error().1.contains("integer overflow"), "{}", c.error().1);
    // The failure is sticky until reset.
    assert_eq!(s.fetch(100, usize::MAX).0, libsqlite3_sys::SQLITE_ERROR);
}

#[test]
fn an_empty_statement_is_done_at_once() {
    let c = Conn::memory();
    let s = c.prepare("  -- nothing here\n");
    let (rc, b) = s.fetch(10, usize::MAX);
    assert_eq!((rc, b.n_rows, b.n_cols), (SQLBATCH_DONE, 0, 0));
}

#[test]
fn max_rows_zero_is_a_range_error() {
    let c = Conn::memory();
    let s = c.prepare("SELECT 1");
    assert_eq!(s.fetch(0, usize::MAX).0, SQLBATCH_E_RANGE);
}

#[test]
fn empty_arrays_of_a_batch_are_null_and_others_are_not() {
    let c = Conn::memory();
    c.exec("CREATE TABLE e(a, b)");
    // An empty result: columns but no cells.
    let s = c.prepare("SELECT a, b FROM e");
    let (rc, b) = s.fetch(10, usize::MAX);
    assert_eq!((rc, b.n_rows, b.n_cols, b.data_len), (SQLBATCH_DONE, 0, 2, 0));
    assert!(b.cells.is_null() && b.data.is_null());
    // Statements without columns: a write, DDL, an empty statement.
    for sql in ["INSERT INTO e VALUES (1, 2)", "CREATE TABLE f(x)", "", "-- nothing"] {
        let s = c.prepare(sql);
        let (rc, b) = s.fetch(10, usize::MAX);
        assert_eq!((rc, b.n_rows, b.n_cols), (SQLBATCH_DONE, 0, 0), "{sql:?}");
        assert!(b.cells.is_null() && b.data.is_null(), "{sql:?}");
    }
    // Rows without bytes (zero-length text and blobs included): cells, but no data.
    let s = c.prepare("SELECT 1, 2.5, NULL, '', x'', zeroblob(0)");
    let (rc, b) = s.fetch(10, usize::MAX);
    assert_eq!((rc, b.n_rows, b.data_len), (SQLBATCH_DONE, 1, 0));
    assert!(!b.cells.is_null() && b.data.is_null());
    assert_eq!(
        batch_rows(&b),
        vec![vec![Val::Int(1), f(2.5), Val::Null, t(""), Val::Blob(vec![]), Val::Blob(vec![])]]
    );
    // With bytes: both set.
    let s = c.prepare("SELECT 'x' UNION ALL SELECT 'y'");
    let (rc, b) = s.fetch(1, usize::MAX);
    assert_eq!((rc, b.n_rows, b.data_len), (SQLBATCH_ROW, 1, 1));
    assert!(!b.cells.is_null() && !b.data.is_null());
    // The empty batches after the end.
    let (rc, _) = s.fetch(1, usize::MAX);
    assert!(rc == SQLBATCH_ROW || rc == SQLBATCH_DONE);
    let (rc, b) = s.fetch(1, usize::MAX);
    assert_eq!((rc, b.n_rows), (SQLBATCH_DONE, 0));
    assert!(b.cells.is_null() && b.data.is_null());
    // fetch_into: data always NULL; cells NULL when there are none.
    let s = c.prepare("SELECT a FROM e WHERE a > 100");
    let mut buf = [0u8; 16];
    let mut b: sqlbatch_batch = unsafe { std::mem::zeroed() };
    let rc = unsafe { sqlbatch_stmt_fetch_into(s.0, 4, buf.as_mut_ptr(), buf.len(), &mut b) };
    assert_eq!((rc, b.n_rows), (SQLBATCH_DONE, 0));
    assert!(b.cells.is_null() && b.data.is_null());
    let s = c.prepare("SELECT 'abc'");
    let rc = unsafe { sqlbatch_stmt_fetch_into(s.0, 4, buf.as_mut_ptr(), buf.len(), &mut b) };
    assert_eq!((rc, b.n_rows, b.data_len), (SQLBATCH_DONE, 1, 3));
    assert!(!b.cells.is_null() && b.data.is_null());
    assert_eq!(batch_rows_in(&b, buf.as_ptr(), buf.len()), vec![vec![t("abc")]]);
}

#[test]
fn statements_prepared_after_others_were_finalized_read_their_own_rows() {
    // A finalized statement's fetch buffers go to the next statement prepared on the
    // connection (small ones only): what they held must never show through, whatever sizes
    // came before, and a statement left open keeps its own.
    let c = Conn::memory();
    let kept = c.prepare("SELECT 'kept', x'00ff'");
    assert_eq!(kept.all(4, usize::MAX), vec![vec![t("kept"), Val::Blob(vec![0, 255])]]);
    for round in 0..40usize {
        // Alternate small values, one large enough that its arena is not kept, and none.
        let width = [3usize, 200_000, 0, 70][round % 4];
        let s = c.prepare(&format!("SELECT {round}, replace(hex(zeroblob({width})), '00', 'a'), zeroblob({width}) UNION ALL SELECT NULL, NULL, NULL"));
        let want = vec![
            vec![Val::Int(round as i64), t(&"a".repeat(width)), Val::Blob(vec![0; width])],
            vec![Val::Null, Val::Null, Val::Null],
        ];
        assert_eq!(s.all(1 + round % 3, usize::MAX), want, "round {round}");
        s.finalize();
    }
    assert_eq!(unsafe { sqlbatch_stmt_reset(kept.0) }, SQLBATCH_OK);
    assert_eq!(kept.all(4, usize::MAX), vec![vec![t("kept"), Val::Blob(vec![0, 255])]]);
}
