//! Misuse through the ABI: NULL in every pointer position of every function, wrong parameter
//! counts and value types, batches read after their statement moved on, invalid UTF-8, a
//! script of 100,000 statements, and values of 100 MiB (and one over SQLite's limit).
//! Each ends in a documented status, never a crash. tests/README.md lists what cannot be
//! detected (a batch read after finalize, double finalize/close: undefined, as in SQLite).

mod common;
use common::*;
use libsqlite3_sys as sq;
use std::ffi::c_char;
use std::ptr;

const NULLP: i32 = SQLBATCH_E_NULL_PARAMETER;

#[test]
fn null_in_every_pointer_position() {
    let c = Conn::memory();
    c.exec("CREATE TABLE t(a)");
    let s = c.prepare("SELECT ?");
    let (mut i64v, mut i32v, mut b, mut n) = (0i64, 0i32, false, 0usize);
    let mut idx = 0usize;
    let mut batch: sqlbatch_batch = unsafe { std::mem::zeroed() };
    let mut v = sqlbatch_value::default();
    let mut st = sqlbatch_str::NONE;
    let (mut cols, mut names): (*const sqlbatch_column, *const sqlbatch_str) = (ptr::null(), ptr::null());
    let mut err: sqlbatch_error = unsafe { std::mem::zeroed() };
    let (nc, ns): (*mut sqlbatch_conn, *mut sqlbatch_stmt) = (ptr::null_mut(), ptr::null_mut());
    let one = [sqlbatch_value::int(1)];
    let p1 = params_of(&one, &[]);
    let no_values = sqlbatch_params { values: ptr::null(), ..p1 };
    let no_names = sqlbatch_params { names: ptr::null(), ..p1 };
    let sql = c"SELECT 1".as_ptr();
    // The functions without a status: NULL is a no-op.
    unsafe {
        sqlbatch_conn_close(nc);
        sqlbatch_stmt_finalize(ns);
        sqlbatch_conn_interrupt(ptr::null());
    }
    let cases: Vec<(&str, i32, i32)> = unsafe {
        vec![
            // sqlbatch_conn_open(path, len, flags, out)
            ("open path", sqlbatch_conn_open(ptr::null(), 3, 0, &mut ptr::null_mut()), NULLP),
            ("open out", sqlbatch_conn_open(c":memory:".as_ptr(), 8, 0, ptr::null_mut()), NULLP),
            ("busy_timeout conn", sqlbatch_conn_busy_timeout(nc, 1), NULLP),
            ("changes conn", sqlbatch_conn_changes(nc, &mut i64v), NULLP),
            ("changes out", sqlbatch_conn_changes(c.0, ptr::null_mut()), NULLP),
            ("total_changes conn", sqlbatch_conn_total_changes(nc, &mut i64v), NULLP),
            ("total_changes out", sqlbatch_conn_total_changes(c.0, ptr::null_mut()), NULLP),
            ("last_insert_rowid conn", sqlbatch_conn_last_insert_rowid(nc, &mut i64v), NULLP),
            ("last_insert_rowid out", sqlbatch_conn_last_insert_rowid(c.0, ptr::null_mut()), NULLP),
            ("autocommit conn", sqlbatch_conn_autocommit(nc, &mut b), NULLP),
            ("autocommit out", sqlbatch_conn_autocommit(c.0, ptr::null_mut()), NULLP),
            ("last_error conn", sqlbatch_conn_last_error(nc, &mut err), NULLP),
            ("last_error out", sqlbatch_conn_last_error(c.0, ptr::null_mut()), NULLP),
            // sqlbatch_conn_exec(conn, sql, len, params, out)
            ("exec conn", sqlbatch_conn_exec(nc, sql, 8, ptr::null(), ptr::null_mut()), NULLP),
            ("exec sql", sqlbatch_conn_exec(c.0, ptr::null(), 8, ptr::null(), ptr::null_mut()), NULLP),
            (
                "exec sql empty",
                sqlbatch_conn_exec(c.0, ptr::null(), 0, ptr::null(), ptr::null_mut()),
                SQLBATCH_OK,
            ),
            ("exec values", sqlbatch_conn_exec(c.0, sql, 8, &no_values, ptr::null_mut()), NULLP),
            (
                "exec params optional",
                sqlbatch_conn_exec(c.0, sql, 8, ptr::null(), ptr::null_mut()),
                SQLBATCH_OK,
            ),
            (
                "exec names optional",
                sqlbatch_conn_exec(c.0, c"SELECT ?".as_ptr(), 8, &no_names, ptr::null_mut()),
                SQLBATCH_OK,
            ),
            // sqlbatch_stmt_prepare(conn, sql, len, flags, out, tail)
            (
                "prepare conn",
                sqlbatch_stmt_prepare(nc, sql, 8, 0, &mut ptr::null_mut(), ptr::null_mut()),
                NULLP,
            ),
            (
                "prepare sql",
                sqlbatch_stmt_prepare(c.0, ptr::null(), 8, 0, &mut ptr::null_mut(), ptr::null_mut()),
                NULLP,
            ),
            ("prepare out", sqlbatch_stmt_prepare(c.0, sql, 8, 0, ptr::null_mut(), ptr::null_mut()), NULLP),
            ("reset stmt", sqlbatch_stmt_reset(ns), NULLP),
            ("clear_bindings stmt", sqlbatch_stmt_clear_bindings(ns), NULLP),
            // sqlbatch_stmt_bind(stmt, params)
            ("bind stmt", sqlbatch_stmt_bind(ns, &p1), NULLP),
            ("bind values", sqlbatch_stmt_bind(s.0, &no_values), NULLP),
            ("bind params NULL: none", sqlbatch_stmt_bind(s.0, ptr::null()), SQLBATCH_E_PARAM_COUNT),
            ("columns stmt", sqlbatch_stmt_columns(ns, &mut cols, &mut n), NULLP),
            ("columns out", sqlbatch_stmt_columns(s.0, ptr::null_mut(), &mut n), NULLP),
            ("columns n", sqlbatch_stmt_columns(s.0, &mut cols, ptr::null_mut()), NULLP),
            ("column_not_null stmt", sqlbatch_stmt_column_not_null(ns, 0, &mut i32v), NULLP),
            ("column_not_null out", sqlbatch_stmt_column_not_null(s.0, 0, ptr::null_mut()), NULLP),
            ("params stmt", sqlbatch_stmt_params(ns, &mut names, &mut n), NULLP),
            ("params out", sqlbatch_stmt_params(s.0, ptr::null_mut(), &mut n), NULLP),
            ("params n", sqlbatch_stmt_params(s.0, &mut names, ptr::null_mut()), NULLP),
            ("param_count stmt", sqlbatch_stmt_param_count(ns, &mut n), NULLP),
            ("param_count out", sqlbatch_stmt_param_count(s.0, ptr::null_mut()), NULLP),
            ("param_index stmt", sqlbatch_stmt_param_index(ns, c":a".as_ptr(), 2, &mut idx), NULLP),
            ("param_index name", sqlbatch_stmt_param_index(s.0, ptr::null(), 2, &mut idx), NULLP),
            ("param_index out", sqlbatch_stmt_param_index(s.0, c":a".as_ptr(), 2, ptr::null_mut()), NULLP),
            ("readonly stmt", sqlbatch_stmt_readonly(ns, &mut b), NULLP),
            ("readonly out", sqlbatch_stmt_readonly(s.0, ptr::null_mut()), NULLP),
            ("sql stmt", sqlbatch_stmt_sql(ns, &mut st), NULLP),
            ("sql out", sqlbatch_stmt_sql(s.0, ptr::null_mut()), NULLP),
            ("expanded_sql stmt", sqlbatch_stmt_expanded_sql(ns, &mut st), NULLP),
            ("expanded_sql out", sqlbatch_stmt_expanded_sql(s.0, ptr::null_mut()), NULLP),
            // sqlbatch_stmt_execute_many(stmt, rows, n_rows, out)
            ("execute_many stmt", sqlbatch_stmt_execute_many(ns, &p1, 1, ptr::null_mut()), NULLP),
            ("execute_many values", sqlbatch_stmt_execute_many(s.0, &no_values, 1, ptr::null_mut()), NULLP),
            // sqlbatch_stmt_fetch(stmt, max_rows, max_bytes, out)
            ("fetch stmt", sqlbatch_stmt_fetch(ns, 1, 1, &mut batch), NULLP),
            ("fetch out", sqlbatch_stmt_fetch(s.0, 1, 1, ptr::null_mut()), NULLP),
            // sqlbatch_stmt_fetch_into(stmt, max_rows, buf, buf_len, out)
            ("fetch_into stmt", sqlbatch_stmt_fetch_into(ns, 1, ptr::null_mut(), 0, &mut batch), NULLP),
            ("fetch_into buf", sqlbatch_stmt_fetch_into(s.0, 1, ptr::null_mut(), 8, &mut batch), NULLP),
            ("fetch_into out", sqlbatch_stmt_fetch_into(s.0, 1, ptr::null_mut(), 0, ptr::null_mut()), NULLP),
            // sqlbatch_stmt_reset_fetch_into(stmt, max_rows, buf, buf_len, out)
            (
                "reset_fetch_into stmt",
                sqlbatch_stmt_reset_fetch_into(ns, 1, ptr::null_mut(), 0, &mut batch),
                NULLP,
            ),
            (
                "reset_fetch_into buf",
                sqlbatch_stmt_reset_fetch_into(s.0, 1, ptr::null_mut(), 8, &mut batch),
                NULLP,
            ),
            (
                "reset_fetch_into out",
                sqlbatch_stmt_reset_fetch_into(s.0, 1, ptr::null_mut(), 0, ptr::null_mut()),
                NULLP,
            ),
            // sqlbatch_batch_get(stmt, batch, row, col, out)
            ("batch_get stmt", sqlbatch_batch_get(ns, &batch, 0, 0, &mut v), NULLP),
            ("batch_get batch", sqlbatch_batch_get(s.0, ptr::null(), 0, 0, &mut v), NULLP),
            ("batch_get out", sqlbatch_batch_get(s.0, &batch, 0, 0, ptr::null_mut()), NULLP),
        ]
    };
    for (what, got, want) in cases {
        assert_eq!(got, want, "{what}");
    }
    // The functions that return a value rather than a status.
    assert!(!sqlbatch_code_str(i32::MIN).is_null());
    assert!(!sqlbatch_version().is_null() && !sqlbatch_sqlite_version().is_null());
    // A NULL-parameter error on a live handle is recorded there, naming the argument.
    let (e, msg) = c.error();
    assert_eq!(e.code, NULLP);
    assert!(msg.contains("is NULL"), "{msg}");
    // A TEXT value with bytes but no base (data NULL, bits 0): no crash (see
    // a_text_or_blob_parameter_without_a_base_is_refused for the details).
    let bad = [sqlbatch_value::bytes(SQLBATCH_TEXT, 0, 4)];
    assert_eq!(unsafe { sqlbatch_stmt_bind(s.0, &params_of(&bad, &[])) }, SQLBATCH_E_INVALID_ARGUMENT);
    // The handles still work.
    assert_eq!(c.rows("SELECT 1"), vec![vec![Val::Int(1)]]);
}

#[test]
fn wrong_parameter_counts_everywhere() {
    let c = Conn::memory();
    c.exec("CREATE TABLE t(a, b)");
    let s = c.prepare("INSERT INTO t VALUES (?, ?)");
    let three = Params::of(&[Val::Int(1), Val::Int(2), Val::Int(3)]);
    for n in [0, 1, 3] {
        assert_eq!(
            unsafe { sqlbatch_stmt_bind(s.0, &params_of(&three.values[..n], &[])) },
            SQLBATCH_E_PARAM_COUNT,
            "bind {n}"
        );
    }
    // execute_many: n_values must be n_rows times the parameter count (2).
    for (n, n_rows) in [(0, 1), (1, 1), (3, 1), (2, 2), (3, 2), (1, 0), (2, 0)] {
        let (rc, w) = s.execute_many_raw(Some(&params_of(&three.values[..n], &[])), n_rows);
        assert_eq!((rc, w.rows), (SQLBATCH_E_PARAM_COUNT, 0), "execute_many {n} values for {n_rows} rows");
    }
    // n_rows * parameter count overflowing size_t.
    let (rc, _) = s.execute_many(&three, usize::MAX / 2 + 1);
    assert!(rc == SQLBATCH_E_RANGE || rc == SQLBATCH_E_PARAM_COUNT, "{rc}");
    // Numbered parameters: ?5 alone takes five values.
    let (rc, _) = c.try_exec_with("SELECT ?5", &three);
    assert_eq!(rc, SQLBATCH_E_PARAM_COUNT);
    assert!(c.error().1.contains("too few"), "{}", c.error().1);
    // A named value no statement uses is not an error; a named parameter without a value is.
    let mut p = Params::of(&[Val::Int(1)]);
    p.push_named(b":zz", &Val::Int(2));
    assert_eq!(c.try_exec_with("SELECT ?", &p).0, SQLBATCH_OK);
    assert_eq!(c.try_exec_with("SELECT :a", &p).0, SQLBATCH_E_PARAM_COUNT);
    assert_eq!(c.rows("SELECT count(*) FROM t"), vec![vec![Val::Int(0)]]);
}

#[test]
fn wrong_value_types_and_out_of_range_bytes() {
    let c = Conn::memory();
    let s = c.prepare("SELECT ?");
    let data = [0u8; 16];
    for kind in [0u8, 6, 7, 100, 255] {
        let v = [sqlbatch_value { kind, ..Default::default() }];
        let p = params_of(&v, &data);
        assert_eq!(unsafe { sqlbatch_stmt_bind(s.0, &p) }, SQLBATCH_E_INVALID_ARGUMENT, "kind {kind}");
        assert_eq!(s.execute_many_raw(Some(&p), 1).0, SQLBATCH_E_INVALID_ARGUMENT, "kind {kind}");
        assert_eq!(c.exec_raw(b"SELECT ?", Some(&p)).0, SQLBATCH_E_INVALID_ARGUMENT, "kind {kind}");
        assert!(c.error().1.contains("unknown value kind"), "{}", c.error().1);
    }
    // Bytes past data_len, and an offset whose end overflows.
    for (bits, len) in [(0u64, 17u32), (16, 1), (u64::MAX, 2), (u64::MAX - 1, u32::MAX)] {
        for kind in [SQLBATCH_TEXT, SQLBATCH_BLOB] {
            let v = [sqlbatch_value::bytes(kind, bits, len)];
            let p = params_of(&v, &data);
            assert_eq!(unsafe { sqlbatch_stmt_bind(s.0, &p) }, SQLBATCH_E_RANGE);
            assert_eq!(s.execute_many_raw(Some(&p), 1).0, SQLBATCH_E_RANGE);
            assert_eq!(c.exec_raw(b"SELECT ?", Some(&p)).0, SQLBATCH_E_RANGE);
        }
    }
    // Names that are not TEXT, or not UTF-8.
    let p = Params::of(&[Val::Int(1)]);
    let mut d = p.data.clone();
    d.extend_from_slice(b":a\xff");
    for (name, want) in [
        (sqlbatch_value::bytes(SQLBATCH_BLOB, 0, 2), SQLBATCH_E_INVALID_ARGUMENT),
        (sqlbatch_value::int(7), SQLBATCH_E_INVALID_ARGUMENT),
        (sqlbatch_value::bytes(SQLBATCH_TEXT, 0, 3), SQLBATCH_E_INVALID_UTF8),
        (sqlbatch_value::bytes(SQLBATCH_TEXT, 2, 9), SQLBATCH_E_RANGE),
    ] {
        let names = [name];
        let params = sqlbatch_params { names: names.as_ptr(), ..params_of(&p.values, &d) };
        assert_eq!(c.exec_raw(b"SELECT :a", Some(&params)).0, want, "{name:?}");
    }
    // Open and prepare flags nobody defined.
    let mut h = ptr::null_mut();
    assert_eq!(
        unsafe { sqlbatch_conn_open(c":memory:".as_ptr(), 8, 1 << 28, &mut h) },
        SQLBATCH_E_INVALID_ARGUMENT
    );
    assert!(h.is_null());
    let mut st = ptr::null_mut();
    assert_eq!(
        unsafe { sqlbatch_stmt_prepare(c.0, c"SELECT 1".as_ptr(), 8, 2, &mut st, ptr::null_mut()) },
        SQLBATCH_E_INVALID_ARGUMENT
    );
    // max_rows 0; a column out of range.
    assert_eq!(s.fetch(0, 10).0, SQLBATCH_E_RANGE);
    let mut nn = 0;
    assert_eq!(unsafe { sqlbatch_stmt_column_not_null(s.0, 1, &mut nn) }, SQLBATCH_E_RANGE);
    assert_eq!(c.rows("SELECT 2"), vec![vec![Val::Int(2)]]);
}

#[test]
fn batches_read_after_their_statement_moved_on_are_detected() {
    let c = Conn::memory();
    c.exec("CREATE TABLE t(a); INSERT INTO t VALUES (1), (2), (3), (4)");
    let s = c.prepare("SELECT a FROM t WHERE a >= ? ORDER BY a");
    let one = Params::of(&[Val::Int(1)]);
    assert_eq!(s.bind(&one), SQLBATCH_OK);
    let mut v = sqlbatch_value::default();
    let get = |b: &sqlbatch_batch, v: &mut sqlbatch_value| unsafe { sqlbatch_batch_get(s.0, b, 0, 0, v) };
    type Move<'a> = (&'a str, Box<dyn Fn() -> i32 + 'a>);
    let moves: Vec<Move> = vec![
        ("fetch", Box::new(|| s.fetch(1, usize::MAX).0)),
        ("reset", Box::new(|| unsafe { sqlbatch_stmt_reset(s.0) })),
        (
            "reset_fetch_into",
            Box::new(|| {
                let mut buf = [0u8; 64];
                let mut b: sqlbatch_batch = unsafe { std::mem::zeroed() };
                unsafe { sqlbatch_stmt_reset_fetch_into(s.0, 1, buf.as_mut_ptr(), 64, &mut b) }
            }),
        ),
        ("bind", Box::new(|| s.bind(&one))),
        ("execute_many", Box::new(|| s.execute_many(&one, 1).0)),
        (
            "failed fetch_into",
            Box::new(|| {
                let mut b: sqlbatch_batch = unsafe { std::mem::zeroed() };
                unsafe { sqlbatch_stmt_fetch_into(s.0, 1, ptr::null_mut(), 0, &mut b) }
            }),
        ),
    ];
    for (what, step) in &moves {
        unsafe { sqlbatch_stmt_reset(s.0) };
        assert_eq!(s.bind(&one), SQLBATCH_OK); // execute_many clears bindings
        let (rc, b) = s.fetch(1, usize::MAX);
        assert_eq!(rc, SQLBATCH_ROW);
        assert_eq!((get(&b, &mut v), v.bits), (SQLBATCH_OK, 1));
        step();
        assert_eq!(get(&b, &mut v), SQLBATCH_E_STALE_BATCH, "after {what}");
        assert_eq!(c.error().0.code, SQLBATCH_E_STALE_BATCH);
    }
    // fetch_into batches too; clear_bindings does not end a batch.
    unsafe { sqlbatch_stmt_reset(s.0) };
    let mut buf = [0u8; 64];
    let mut b: sqlbatch_batch = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { sqlbatch_stmt_fetch_into(s.0, 2, buf.as_mut_ptr(), 64, &mut b) }, SQLBATCH_ROW);
    assert_eq!(unsafe { sqlbatch_stmt_clear_bindings(s.0) }, SQLBATCH_OK);
    assert_eq!(get(&b, &mut v), SQLBATCH_OK);
    assert_eq!(s.fetch(1, 1).0, SQLBATCH_ROW);
    assert_eq!(get(&b, &mut v), SQLBATCH_E_STALE_BATCH);
    // A copy of a batch descriptor with a forged generation is caught by its cells pointer.
    let (_, live) = s.fetch(1, usize::MAX);
    let forged = sqlbatch_batch { cells: [sqlbatch_value::int(9)].as_ptr(), ..live };
    assert_eq!(get(&forged, &mut v), SQLBATCH_E_STALE_BATCH);
    // A batch of a statement on a closed connection: the statement still owns the memory
    // (until it is finalized), and fetching says the connection is closed.
    unsafe { sqlbatch_stmt_reset(s.0) };
    assert_eq!(s.bind(&one), SQLBATCH_OK);
    let (rc, last) = s.fetch(1, usize::MAX);
    assert_eq!(rc, SQLBATCH_ROW);
    drop(c);
    let rc = get(&last, &mut v);
    assert!(rc == SQLBATCH_OK || rc == SQLBATCH_E_STALE_BATCH, "{rc}");
    assert_eq!(s.fetch(1, usize::MAX).0, SQLBATCH_E_CLOSED);
}

#[test]
fn invalid_utf8_in_every_text_input() {
    let c = Conn::memory();
    let bad: &[u8] = b"SELECT 1 AS \"\xc3\x28\"";
    let (rc, r) = c.exec_raw(bad, None);
    assert_eq!((rc, r.statements), (SQLBATCH_E_INVALID_UTF8, 0));
    assert_eq!(c.error().0.token_offset, 13);
    let mut s = ptr::null_mut();
    assert_eq!(
        unsafe { sqlbatch_stmt_prepare(c.0, bad.as_ptr().cast(), bad.len(), 0, &mut s, ptr::null_mut()) },
        SQLBATCH_E_INVALID_UTF8
    );
    // Overlong encodings, surrogates and truncated sequences are refused too.
    for seq in [&b"\xc0\x80"[..], b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\x80"] {
        let mut sql = b"SELECT '".to_vec();
        sql.extend_from_slice(seq);
        sql.push(b'\'');
        assert_eq!(c.exec_raw(&sql, None).0, SQLBATCH_E_INVALID_UTF8, "{seq:?}");
    }
    let st = c.prepare("SELECT :a");
    let mut idx = 0usize;
    assert_eq!(
        unsafe { sqlbatch_stmt_param_index(st.0, b":\xff".as_ptr() as *const c_char, 2, &mut idx) },
        SQLBATCH_E_INVALID_UTF8
    );
    let mut h = ptr::null_mut();
    assert_eq!(
        unsafe { sqlbatch_conn_open(b"\xff.db".as_ptr().cast(), 4, 0, &mut h) },
        SQLBATCH_E_INVALID_UTF8
    );
    // TEXT *values* are not checked (SQLite does not check them either): their bytes are
    // stored and read back unchanged, through every path.
    let raw_text = Val::Text(b"\xff\xfe\xc3(\0end".to_vec());
    let p = Params::of(std::slice::from_ref(&raw_text));
    c.exec("CREATE TABLE t(x)");
    assert_eq!(c.try_exec_with("INSERT INTO t VALUES (?)", &p).0, SQLBATCH_OK);
    let ins = c.prepare("INSERT INTO t VALUES (?)");
    assert_eq!(ins.execute_many(&p, 1).0, SQLBATCH_OK);
    assert_eq!(c.rows("SELECT x FROM t"), vec![vec![raw_text.clone()], vec![raw_text.clone()]]);
    assert_eq!(st.bind(&p), SQLBATCH_OK);
    assert_eq!(st.all(1, usize::MAX), vec![vec![raw_text]]);
}

#[test]
fn a_script_of_100000_statements() {
    let c = Conn::memory();
    let script = |t: &str| {
        let mut sql = format!("CREATE TABLE {t}(a INTEGER PRIMARY KEY, b);\n");
        for k in 1..100_000 {
            match k % 4 {
                0 => sql.push_str(&format!("UPDATE {t} SET b = b || '!' WHERE a = {};\n", k - 1)),
                _ => sql.push_str(&format!("INSERT INTO {t} VALUES ({k}, 'v{k}'); -- {k}\n")),
            }
        }
        sql
    };
    let sql = script("t");
    let (rc, r) = c.try_exec(&sql);
    assert_eq!(rc, SQLBATCH_OK, "{}", c.error().1);
    assert_eq!((r.statements, r.end_offset), (100_000, sql.len()));
    assert_eq!(r.changes, 75_000 + 24_999);
    assert_eq!(
        c.rows("SELECT count(*), sum(b LIKE '%!') FROM t"),
        vec![vec![Val::Int(75_000), Val::Int(24_999)]]
    );
    // With a failure in the very last statement, the error points there.
    let mut bad = script("u");
    bad.push_str("INSERT INTO u VALUES (1, 'dup');");
    let (rc, r) = c.try_exec(&bad);
    assert_eq!((rc, r.statements), (sq::SQLITE_CONSTRAINT_PRIMARYKEY, 100_000));
    let e = c.error().0;
    assert_eq!((e.statement_index, e.statement_offset), (100_000, (bad.len() - 32) as i64));
    // 100,000 statements each taking a parameter, in one call.
    let vals: Vec<Val> = (0..100_000).map(|i| Val::Int(-i)).collect();
    let p = Params::of(&vals);
    let script = "INSERT INTO t(b) VALUES (?);".repeat(100_000);
    let (rc, r) = c.try_exec_with(&script, &p);
    assert_eq!((rc, r.statements, r.params_used), (SQLBATCH_OK, 100_000, 100_000));
}

#[test]
fn values_of_100_mib_bind_store_and_fetch_through_every_path() {
    const N: usize = 100 << 20;
    let c = Conn::memory();
    c.exec("CREATE TABLE big(kind, v)");
    let text: Vec<u8> = (0..N).map(|i| b'a' + (i % 26) as u8).collect();
    let blob: Vec<u8> = (0..N).map(|i| (i * 7) as u8).collect();
    let (tv, bv) = (Val::Text(text), Val::Blob(blob));
    // Script exec and bulk insert, parameters in the data buffer.
    let p = Params::of(&[t("text"), tv.clone()]);
    assert_eq!(c.try_exec_with("INSERT INTO big VALUES (?, ?)", &p).0, SQLBATCH_OK);
    let ins = c.prepare("INSERT INTO big VALUES (?, ?)");
    let p = Params::of(&[t("blob"), bv.clone()]);
    assert_eq!(ins.execute_many(&p, 1).0, SQLBATCH_OK);
    // Bind (copied) with an absolute address (SQLBATCH_PARAMS_ADDRESSES).
    let sel = c.prepare("SELECT ?, length(?1)");
    let Val::Blob(ref braw) = bv else { unreachable!() };
    let abs = [sqlbatch_value::bytes(SQLBATCH_BLOB, braw.as_ptr() as u64, N as u32)];
    let p = sqlbatch_params { flags: SQLBATCH_PARAMS_ADDRESSES, ..params_of(&abs, &[]) };
    assert_eq!(unsafe { sqlbatch_stmt_bind(sel.0, &p) }, SQLBATCH_OK);
    assert_eq!(sel.all(1, 1024), vec![vec![bv.clone(), Val::Int(N as i64)]]);
    // Fetch with a small byte bound: each huge row comes whole, alone in its batch.
    let s = c.prepare("SELECT v FROM big ORDER BY rowid");
    let (rc, b) = s.fetch(10, 1 << 20);
    assert_eq!((rc, b.n_rows, b.data_len), (SQLBATCH_ROW, 1, N));
    assert_eq!(batch_rows(&b), vec![vec![tv.clone()]]);
    let (rc, b) = s.fetch(10, 1 << 20);
    assert_eq!((rc, b.n_rows), (SQLBATCH_DONE, 1));
    assert_eq!(batch_rows(&b), vec![vec![bv.clone()]]);
    // fetch_into: too small first, then a buffer of the size asked for.
    assert_eq!(unsafe { sqlbatch_stmt_reset(s.0) }, SQLBATCH_OK);
    let mut buf = vec![0u8; 1 << 20];
    let mut b: sqlbatch_batch = unsafe { std::mem::zeroed() };
    assert_eq!(
        unsafe { sqlbatch_stmt_fetch_into(s.0, 10, buf.as_mut_ptr(), buf.len(), &mut b) },
        SQLBATCH_E_BUFFER_TOO_SMALL
    );
    assert_eq!((b.n_rows, b.data_len), (0, N));
    buf = vec![0u8; N];
    assert_eq!(
        unsafe { sqlbatch_stmt_fetch_into(s.0, 10, buf.as_mut_ptr(), buf.len(), &mut b) },
        SQLBATCH_ROW
    );
    assert_eq!(batch_rows_in(&b, buf.as_ptr(), buf.len()), vec![vec![tv]]);
    // After the huge rows the statement's arena is given back down to what the bound allows.
    drop((s, sel, ins));
    assert_eq!(c.rows("SELECT sum(length(v)) FROM big"), vec![vec![Val::Int(2 * N as i64)]]);
}

#[test]
fn a_value_over_sqlites_length_limit_is_toobig_not_a_crash() {
    // 1 GiB + 1 of zeros that are never touched (calloc'd pages): SQLite checks the length
    // against SQLITE_MAX_LENGTH (1,000,000,000) before it reads a byte.
    let huge = vec![0u8; (1 << 30) + 1];
    let c = Conn::memory();
    let s = c.prepare("SELECT length(?)");
    for kind in [SQLBATCH_BLOB, SQLBATCH_TEXT] {
        let v = [sqlbatch_value::bytes(kind, 0, huge.len() as u32)];
        let p = params_of(&v, &huge);
        assert_eq!(unsafe { sqlbatch_stmt_bind(s.0, &p) }, sq::SQLITE_TOOBIG);
        assert!(c.error().1.contains("too big"), "{}", c.error().1);
        assert_eq!(s.execute_many_raw(Some(&p), 1).0, sq::SQLITE_TOOBIG);
        assert_eq!(c.exec_raw(b"SELECT length(?)", Some(&p)).0, sq::SQLITE_TOOBIG);
    }
    assert_eq!(c.rows("SELECT 3"), vec![vec![Val::Int(3)]]);
}

#[test]
fn a_text_or_blob_parameter_without_a_base_is_refused() {
    let c = Conn::memory();
    c.exec("CREATE TABLE t(x)");
    let s = c.prepare("SELECT ?");
    let ins = c.prepare("INSERT INTO t VALUES (?)");
    for kind in [SQLBATCH_TEXT, SQLBATCH_BLOB] {
        // Bytes but data NULL: the offset is never taken as an address.
        for bits in [0u64, 8, 0x1000, u64::MAX - 3] {
            let v = [sqlbatch_value::bytes(kind, bits, 4)];
            let p = params_of(&v, &[]);
            assert!(p.data.is_null());
            assert_eq!(unsafe { sqlbatch_stmt_bind(s.0, &p) }, SQLBATCH_E_INVALID_ARGUMENT, "bind");
            let (rc, w) = ins.execute_many_raw(Some(&p), 1);
            assert_eq!((rc, w.rows), (SQLBATCH_E_INVALID_ARGUMENT, 0), "execute_many");
            let (rc, r) = c.exec_raw(b"INSERT INTO t VALUES (?)", Some(&p));
            assert_eq!((rc, r.statements), (SQLBATCH_E_INVALID_ARGUMENT, 0), "exec");
        }
        // Length 0 reads no bytes: fine without a base.
        let v = [sqlbatch_value::bytes(kind, 12345, 0)];
        let p = params_of(&v, &[]);
        let empty = if kind == SQLBATCH_TEXT { t("") } else { Val::Blob(vec![]) };
        assert_eq!(unsafe { sqlbatch_stmt_bind(s.0, &p) }, SQLBATCH_OK);
        assert_eq!(s.all(1, usize::MAX), vec![vec![empty.clone()]]);
        assert_eq!(ins.execute_many_raw(Some(&p), 1).0, SQLBATCH_OK);
        assert_eq!(c.exec_raw(b"INSERT INTO t VALUES (?)", Some(&p)).0, SQLBATCH_OK);
    }
    assert_eq!(
        c.rows("SELECT typeof(x), length(x) FROM t"),
        [t("text"), t("text"), t("blob"), t("blob")].map(|k| vec![k, Val::Int(0)]).to_vec()
    );
    // A name with bytes but no base.
    let (v, n) = ([sqlbatch_value::int(1)], [sqlbatch_value::bytes(SQLBATCH_TEXT, 0, 2)]);
    let p = sqlbatch_params { names: n.as_ptr(), ..params_of(&v, &[]) };
    assert_eq!(c.exec_raw(b"SELECT :a", Some(&p)).0, SQLBATCH_E_INVALID_ARGUMENT);
    let sa = c.prepare("SELECT :a");
    assert_eq!(unsafe { sqlbatch_stmt_bind(sa.0, &p) }, SQLBATCH_E_INVALID_ARGUMENT);
    assert_eq!(c.rows("SELECT 1"), vec![vec![Val::Int(1)]]);
}

#[test]
fn the_addresses_flag_and_unknown_params_flags() {
    let c = Conn::memory();
    c.exec("CREATE TABLE t(x)");
    let s = c.prepare("SELECT ?");
    let ins = c.prepare("INSERT INTO t VALUES (?)");
    let text = b"hello";
    let v = [sqlbatch_value::bytes(SQLBATCH_TEXT, text.as_ptr() as u64, 5)];
    // SQLBATCH_PARAMS_ADDRESSES: bits are addresses, data NULL.
    let p = sqlbatch_params { flags: SQLBATCH_PARAMS_ADDRESSES, ..params_of(&v, &[]) };
    assert_eq!(unsafe { sqlbatch_stmt_bind(s.0, &p) }, SQLBATCH_OK);
    assert_eq!(s.all(1, usize::MAX), vec![vec![t("hello")]]);
    assert_eq!(ins.execute_many_raw(Some(&p), 1).0, SQLBATCH_OK);
    assert_eq!(c.exec_raw(b"INSERT INTO t VALUES (?)", Some(&p)).0, SQLBATCH_OK);
    assert_eq!(c.rows("SELECT x FROM t"), vec![vec![t("hello")], vec![t("hello")]]);
    // ... and a non-NULL data with it is refused.
    let data = [0u8; 8];
    let both = sqlbatch_params { flags: SQLBATCH_PARAMS_ADDRESSES, ..params_of(&v, &data) };
    // Unknown flags are refused, with or without values.
    let p = Params::of(&[t("abc")]);
    let mut bad = vec![both];
    for flags in [4u32, 5, 6, 1 << 31] {
        bad.push(sqlbatch_params { flags, ..p.as_c() });
        bad.push(sqlbatch_params { flags, ..params_of(&[], &[]) });
    }
    for (i, p) in bad.iter().enumerate() {
        assert_eq!(unsafe { sqlbatch_stmt_bind(s.0, p) }, SQLBATCH_E_INVALID_ARGUMENT, "bind {i}");
        let (rc, w) = ins.execute_many_raw(Some(p), p.n_values);
        assert_eq!((rc, w.rows), (SQLBATCH_E_INVALID_ARGUMENT, 0), "execute_many {i}");
        let sql: &[u8] =
            if p.n_values == 0 { b"INSERT INTO t VALUES (1)" } else { b"INSERT INTO t VALUES (?)" };
        let (rc, r) = c.exec_raw(sql, Some(p));
        assert_eq!((rc, r.statements), (SQLBATCH_E_INVALID_ARGUMENT, 0), "exec {i}");
    }
    assert_eq!(c.rows("SELECT count(*) FROM t"), vec![vec![Val::Int(2)]]);
}
