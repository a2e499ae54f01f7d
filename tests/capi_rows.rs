//! Table-valued parameters: a whole table bound to one parameter (`sqlbatch_stmt_bind_rows`),
//! read through the `sqlbatch_rows` virtual table.

mod common;
use common::*;
use libsqlite3_sys as sq;

fn bind_rows(s: &Stmt, index: usize, p: &Params, n_cols: usize) -> i32 {
    let c = p.as_c();
    unsafe { sqlbatch_stmt_bind_rows(s.0, index, &c, n_cols) }
}

fn ints(xs: impl IntoIterator<Item = i64>) -> Params {
    let mut p = Params::default();
    for x in xs {
        p.push(&Val::Int(x));
    }
    p
}

#[test]
fn an_in_list_is_one_bound_table() {
    let c = Conn::memory();
    c.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT)");
    c.exec("WITH RECURSIVE s(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM s WHERE v < 1000) INSERT INTO t SELECT v, 'n' || v FROM s");
    let s = c.prepare("SELECT id, name FROM t WHERE id IN sqlbatch_rows(?) ORDER BY id");
    let list = ints([7, 3, 999, 5000, 3, -1]);
    assert_eq!(bind_rows(&s, 1, &list, 1), SQLBATCH_OK, "{}", c.error().1);
    let rows = s.all(100, usize::MAX);
    assert_eq!(
        rows,
        vec![vec![Val::Int(3), t("n3")], vec![Val::Int(7), t("n7")], vec![Val::Int(999), t("n999")],]
    );
    // The binding survives a reset, as every binding does; another list replaces it.
    assert_eq!(unsafe { sqlbatch_stmt_reset(s.0) }, SQLBATCH_OK);
    assert_eq!(s.all(100, usize::MAX).len(), 3);
    assert_eq!(bind_rows(&s, 1, &ints(1..=10), 1), SQLBATCH_OK);
    assert_eq!(s.all(100, usize::MAX).len(), 10);
}

#[test]
fn a_table_of_several_typed_columns_with_nulls_is_inserted_in_one_statement() {
    let c = Conn::memory();
    c.exec("CREATE TABLE t(id INTEGER, score REAL, name TEXT, raw BLOB)");
    c.exec(
        "CREATE VIRTUAL TABLE temp.incoming USING sqlbatch_rows(id INTEGER, score REAL, name TEXT, raw BLOB)",
    );
    let rows: Vec<Vec<Val>> = (0..500)
        .map(|i| {
            vec![
                Val::Int(i),
                if i % 7 == 0 { Val::Null } else { f(i as f64 / 4.0) },
                if i % 5 == 0 { Val::Null } else { Val::Text(format!("name {i} é\0x").into_bytes()) },
                if i % 3 == 0 { Val::Blob(Vec::new()) } else { Val::Blob(vec![i as u8; (i % 13) as usize]) },
            ]
        })
        .collect();
    let mut p = Params::default();
    for r in &rows {
        for v in r {
            p.push(v);
        }
    }
    let s = c.prepare("INSERT INTO t SELECT * FROM incoming(?)");
    assert_eq!(bind_rows(&s, 1, &p, 4), SQLBATCH_OK, "{}", c.error().1);
    drop(p); // copied at bind
    let (rc, _) = s.fetch(1, usize::MAX);
    assert_eq!(rc, SQLBATCH_DONE, "{}", c.error().1);
    assert_eq!(c.rows("SELECT * FROM t ORDER BY id"), rows);
    // An empty blob stays a blob, NULL stays NULL, text keeps its NUL byte.
    assert_eq!(
        c.rows("SELECT typeof(raw), typeof(score), length(CAST(name AS BLOB)) FROM t WHERE id = 3"),
        vec![vec![t("blob"), t("real"), Val::Int("name 3 é\0x".len() as i64)]]
    );
}

#[test]
fn a_bound_table_joins_and_its_columns_are_named_by_its_declaration() {
    let c = Conn::memory();
    c.exec("CREATE TABLE price(sku TEXT PRIMARY KEY, cents INTEGER)");
    c.exec("INSERT INTO price VALUES ('a', 100), ('b', 250), ('c', 75)");
    c.exec("CREATE VIRTUAL TABLE temp.cart USING sqlbatch_rows(sku TEXT, qty INTEGER)");
    let mut p = Params::default();
    for (sku, qty) in [("a", 2), ("c", 4), ("z", 9)] {
        p.push(&t(sku)).push(&Val::Int(qty));
    }
    let s = c.prepare("SELECT sum(cart.qty * price.cents), count(*) FROM cart(?) JOIN price USING (sku)");
    assert_eq!(bind_rows(&s, 1, &p, 2), SQLBATCH_OK);
    assert_eq!(s.all(10, usize::MAX), vec![vec![Val::Int(2 * 100 + 4 * 75), Val::Int(2)]]);
    // The eponymous table's one column is `value`.
    let s = c.prepare("SELECT sum(value), count(*) FROM sqlbatch_rows(?)");
    assert_eq!(bind_rows(&s, 1, &ints(1..=100), 1), SQLBATCH_OK);
    assert_eq!(s.all(10, usize::MAX), vec![vec![Val::Int(5050), Val::Int(100)]]);
}

#[test]
fn an_empty_table_has_no_rows_and_a_large_one_streams() {
    let c = Conn::memory();
    let s = c.prepare("SELECT count(*) FROM sqlbatch_rows(?)");
    assert_eq!(bind_rows(&s, 1, &Params::default(), 1), SQLBATCH_OK);
    assert_eq!(s.all(10, usize::MAX), vec![vec![Val::Int(0)]]);
    let s = c.prepare("SELECT value FROM sqlbatch_rows(?)");
    assert_eq!(bind_rows(&s, 1, &ints(0..200_000), 1), SQLBATCH_OK);
    let mut seen = 0i64;
    let rc = s.each_batch(1000, 1 << 16, |b| {
        for r in batch_rows(b) {
            assert_eq!(r, vec![Val::Int(seen)]);
            seen += 1;
        }
        true
    });
    assert_eq!((rc, seen), (SQLBATCH_DONE, 200_000));
}

#[test]
fn an_empty_table_reads_as_empty_whatever_width_it_was_bound_with() {
    let c = Conn::memory();
    c.exec("CREATE VIRTUAL TABLE temp.pair USING sqlbatch_rows(a, b); CREATE TABLE t(a, b)");
    for width in [1, 2, 5] {
        let s = c.prepare("INSERT INTO t SELECT * FROM pair(?)");
        assert_eq!(bind_rows(&s, 1, &ints([]), width), SQLBATCH_OK);
        let (rc, _) = s.fetch(10, usize::MAX);
        assert_eq!(rc, SQLBATCH_DONE, "width {width}: {}", c.error().1);
    }
    assert_eq!(c.rows("SELECT count(*) FROM t"), vec![vec![Val::Int(0)]]);
    // One row of the wrong width still fails.
    let s = c.prepare("SELECT * FROM pair(?)");
    assert_eq!(bind_rows(&s, 1, &ints(0..1), 1), SQLBATCH_OK);
    assert_eq!(s.fetch(10, usize::MAX).0, sq::SQLITE_ERROR);
}

#[test]
fn a_scan_without_a_bound_table_or_of_another_shape_fails_with_a_message() {
    let c = Conn::memory();
    c.exec("CREATE VIRTUAL TABLE temp.pair USING sqlbatch_rows(a, b)");
    // Bound with an ordinary value: not a table.
    let s = c.prepare("SELECT * FROM sqlbatch_rows(?)");
    assert_eq!(s.bind(&Params::of(&[Val::Int(1)])), SQLBATCH_OK);
    let (rc, _) = s.fetch(10, usize::MAX);
    assert_eq!(rc, sq::SQLITE_ERROR);
    assert!(c.error().1.contains("not a table bound by sqlbatch_stmt_bind_rows"), "{}", c.error().1);
    // Three columns bound, two declared.
    let s = c.prepare("SELECT * FROM pair(?)");
    assert_eq!(bind_rows(&s, 1, &ints(0..6), 3), SQLBATCH_OK);
    let (rc, _) = s.fetch(10, usize::MAX);
    assert_eq!(rc, sq::SQLITE_ERROR);
    assert!(c.error().1.contains("has 3 column(s), the virtual table declares 2"), "{}", c.error().1);
    // No argument at all.
    let s = c.prepare("SELECT * FROM sqlbatch_rows");
    let (rc, _) = s.fetch(10, usize::MAX);
    assert_eq!(rc, sq::SQLITE_ERROR);
    assert!(c.error().1.contains("reads a table bound to a parameter"), "{}", c.error().1);
    // A declaration SQLite refuses.
    let (rc, _) = c.try_exec("CREATE VIRTUAL TABLE temp.bad USING sqlbatch_rows(a, a)");
    assert_ne!(rc, SQLBATCH_OK);
    assert!(c.error().1.contains("cannot declare the columns (a, a)"), "{}", c.error().1);
}

#[test]
fn bad_tables_are_refused_before_anything_is_bound() {
    let c = Conn::memory();
    let s = c.prepare("SELECT count(*) FROM sqlbatch_rows(?)");
    let ok = ints(0..4);
    // Not whole rows, no columns, parameter out of range.
    assert_eq!(bind_rows(&s, 1, &ints(0..5), 2), SQLBATCH_E_PARAM_COUNT);
    assert_eq!(bind_rows(&s, 1, &ok, 0), SQLBATCH_E_PARAM_COUNT);
    assert_eq!(bind_rows(&s, 0, &ok, 1), SQLBATCH_E_RANGE);
    assert_eq!(bind_rows(&s, 2, &ok, 1), SQLBATCH_E_RANGE);
    // Names, an unknown kind, bytes outside data, bytes without a base, NULL pointers.
    let mut named = Params::default();
    named.push_named(b"x", &Val::Int(1));
    assert_eq!(bind_rows(&s, 1, &named, 1), SQLBATCH_E_INVALID_ARGUMENT);
    let mut odd = Params::default();
    odd.push_value(sqlbatch_value { bits: 0, len: 0, kind: 9, _pad: [0; 3] }, sqlbatch_value::NULL);
    assert_eq!(bind_rows(&s, 1, &odd, 1), SQLBATCH_E_INVALID_ARGUMENT);
    let mut outside = Params::default();
    outside.push(&t("abc"));
    outside.values[0].bits = 2;
    assert_eq!(bind_rows(&s, 1, &outside, 1), SQLBATCH_E_RANGE);
    let mut no_base = Params::of(&[t("abc")]);
    no_base.data.clear();
    let mut nb = no_base.as_c();
    nb.data = std::ptr::null();
    nb.data_len = 0;
    assert_eq!(unsafe { sqlbatch_stmt_bind_rows(s.0, 1, &nb, 1) }, SQLBATCH_E_INVALID_ARGUMENT);
    assert_eq!(unsafe { sqlbatch_stmt_bind_rows(s.0, 1, std::ptr::null(), 1) }, SQLBATCH_E_NULL_PARAMETER);
    let p = ok.as_c();
    assert_eq!(unsafe { sqlbatch_stmt_bind_rows(std::ptr::null_mut(), 1, &p, 1) }, SQLBATCH_E_NULL_PARAMETER);
    // Nothing was bound by the refusals: the parameter is still NULL.
    let (rc, _) = s.fetch(10, usize::MAX);
    assert_eq!(rc, sq::SQLITE_ERROR);
    // A good one works after them.
    assert_eq!(bind_rows(&s, 1, &ok, 1), SQLBATCH_OK);
    assert_eq!(s.all(10, usize::MAX), vec![vec![Val::Int(4)]]);
}

#[test]
fn a_table_outlives_nothing_it_should_not() {
    // Finalized mid-scan, cleared, rebound, or its connection closed: the copy goes with
    // the binding (valgrind's leak check runs this file).
    let c = Conn::memory();
    let s = c.prepare("SELECT value FROM sqlbatch_rows(?)");
    assert_eq!(bind_rows(&s, 1, &ints(0..10_000), 1), SQLBATCH_OK);
    let (rc, b) = s.fetch(10, usize::MAX);
    assert_eq!((rc, b.n_rows), (SQLBATCH_ROW, 10));
    drop(s);
    let s = c.prepare("SELECT value FROM sqlbatch_rows(?)");
    assert_eq!(bind_rows(&s, 1, &ints(0..100), 1), SQLBATCH_OK);
    assert_eq!(unsafe { sqlbatch_stmt_clear_bindings(s.0) }, SQLBATCH_OK);
    let (rc, _) = s.fetch(10, usize::MAX);
    assert_eq!(rc, sq::SQLITE_ERROR, "cleared: no table");
    assert_eq!(bind_rows(&s, 1, &ints(0..100), 1), SQLBATCH_OK);
    let (rc, _) = s.fetch(10, usize::MAX);
    assert_eq!(rc, SQLBATCH_ROW);
    drop(c);
    assert_eq!(bind_rows(&s, 1, &ints(0..100), 1), SQLBATCH_E_CLOSED);
}

#[test]
fn a_bound_table_mixes_with_other_parameters() {
    let c = Conn::memory();
    c.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, grp INTEGER)");
    c.exec("WITH RECURSIVE s(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM s WHERE v < 30) INSERT INTO t SELECT v, v % 3 FROM s");
    let s = c.prepare("SELECT count(*) FROM t WHERE grp = ? AND id IN sqlbatch_rows(?)");
    // The other parameters first (the table's with any value), then the table.
    assert_eq!(s.bind(&Params::of(&[Val::Int(1), Val::Null])), SQLBATCH_OK);
    assert_eq!(bind_rows(&s, 2, &ints(1..=12), 1), SQLBATCH_OK);
    assert_eq!(s.all(10, usize::MAX), vec![vec![Val::Int(4)]]);
}
