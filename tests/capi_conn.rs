//! Connections, statement metadata, errors and misuse through the C ABI.

mod common;
use common::*;
use libsqlite3_sys as sq;
use std::ffi::CStr;
use std::ptr;

fn temp_path(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("sqlbatch-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&dir);
    dir.to_str().unwrap().to_owned()
}

#[test]
fn a_failed_open_still_hands_out_a_handle_that_explains_why() {
    let path = "/nonexistent-dir/x.db";
    let mut c = ptr::null_mut();
    let rc = unsafe { sqlbatch_conn_open(path.as_ptr().cast(), path.len(), SQLBATCH_OPEN_READONLY, &mut c) };
    assert_eq!(rc & 0xff, sq::SQLITE_CANTOPEN);
    assert!(!c.is_null());
    let (e, msg) = last_error_of(c);
    assert_eq!(e.code, rc);
    assert!(msg.contains("unable to open"), "{msg}");
    unsafe { sqlbatch_conn_close(c) };
}

#[test]
fn bad_paths_and_flags_are_rejected_without_a_handle() {
    let mut c = ptr::null_mut();
    let nul = "a\0b";
    assert_eq!(unsafe { sqlbatch_conn_open(nul.as_ptr().cast(), 3, 0, &mut c) }, SQLBATCH_E_INVALID_ARGUMENT);
    assert!(c.is_null());
    let bad = [b'x', 0xff];
    assert_eq!(unsafe { sqlbatch_conn_open(bad.as_ptr().cast(), 2, 0, &mut c) }, SQLBATCH_E_INVALID_UTF8);
    assert_eq!(
        unsafe { sqlbatch_conn_open(c":memory:".as_ptr(), 8, 0x8000_0000, &mut c) },
        SQLBATCH_E_INVALID_ARGUMENT
    );
    assert!(c.is_null());
    assert_eq!(unsafe { sqlbatch_conn_open(ptr::null(), 4, 0, &mut c) }, SQLBATCH_E_NULL_PARAMETER);
    assert_eq!(
        unsafe { sqlbatch_conn_open(c"x".as_ptr(), 1, 0, ptr::null_mut()) },
        SQLBATCH_E_NULL_PARAMETER
    );
}

#[test]
fn read_only_and_uri_opens() {
    let path = temp_path("ro.db");
    Conn::open(&path).exec("CREATE TABLE t(a); INSERT INTO t VALUES (1)");
    let ro = Conn::open_flags(&path, SQLBATCH_OPEN_READONLY);
    assert_eq!(ro.rows("SELECT a FROM t"), vec![vec![Val::Int(1)]]);
    assert_eq!(ro.try_exec("INSERT INTO t VALUES (2)").0, sq::SQLITE_READONLY);
    let uri = format!("file:{path}?mode=ro");
    let ro2 = Conn::open_flags(&uri, SQLBATCH_OPEN_READWRITE | SQLBATCH_OPEN_URI);
    assert_eq!(ro2.try_exec("DELETE FROM t").0, sq::SQLITE_READONLY);
    let mem = Conn::open_flags("file:shared1?mode=memory&cache=shared", SQLBATCH_OPEN_URI);
    mem.exec("CREATE TABLE s(x); INSERT INTO s VALUES (42)");
    let mem2 = Conn::open_flags("file:shared1?mode=memory&cache=shared", SQLBATCH_OPEN_URI);
    assert_eq!(mem2.rows("SELECT x FROM s"), vec![vec![Val::Int(42)]]);
    drop((ro, ro2, mem, mem2));
    std::fs::remove_file(path).unwrap();
}

#[test]
fn counters_and_autocommit() {
    let c = Conn::memory();
    c.exec("CREATE TABLE t(a); INSERT INTO t VALUES (1), (2), (3)");
    let (mut changes, mut total, mut rowid, mut auto) = (0i64, 0i64, 0i64, false);
    unsafe {
        assert_eq!(sqlbatch_conn_changes(c.0, &mut changes), SQLBATCH_OK);
        assert_eq!(sqlbatch_conn_total_changes(c.0, &mut total), SQLBATCH_OK);
        assert_eq!(sqlbatch_conn_last_insert_rowid(c.0, &mut rowid), SQLBATCH_OK);
        assert_eq!(sqlbatch_conn_autocommit(c.0, &mut auto), SQLBATCH_OK);
    }
    assert_eq!((changes, total, rowid, auto), (3, 3, 3, true));
    c.exec("BEGIN; DELETE FROM t WHERE a > 1");
    unsafe {
        sqlbatch_conn_changes(c.0, &mut changes);
        sqlbatch_conn_autocommit(c.0, &mut auto);
    }
    assert_eq!((changes, auto), (2, false));
}

#[test]
fn statement_metadata_in_one_call() {
    let c = Conn::memory();
    c.exec("CREATE TABLE p(id INTEGER PRIMARY KEY, name TEXT NOT NULL, born DATETIME, note)");
    let s = c.prepare("SELECT id, name AS who, born, note, 1 + 1 FROM p WHERE id = :id AND name = ?3");
    let (mut cols, mut n) = (ptr::null(), 0usize);
    assert_eq!(unsafe { sqlbatch_stmt_columns(s.0, &mut cols, &mut n) }, SQLBATCH_OK);
    let cols = unsafe { std::slice::from_raw_parts(cols, n) };
    let text = |s: sqlbatch_str| {
        (!s.ptr.is_null()).then(|| unsafe { CStr::from_ptr(s.ptr) }.to_str().unwrap().to_owned())
    };
    let names: Vec<_> = cols.iter().map(|c| text(c.name).unwrap()).collect();
    assert_eq!(names, ["id", "who", "born", "note", "1 + 1"]);
    let decl: Vec<_> = cols.iter().map(|c| text(c.decl_type)).collect();
    assert_eq!(decl, [Some("INTEGER".into()), Some("TEXT".into()), Some("DATETIME".into()), None, None]);
    assert_eq!(text(cols[1].table).as_deref(), Some("p"));
    assert_eq!(text(cols[1].origin).as_deref(), Some("name"));
    assert_eq!(text(cols[1].database).as_deref(), Some("main"));
    assert_eq!(text(cols[4].table), None);
    let not_null: Vec<i32> = (0..5)
        .map(|i| {
            let mut v = 9;
            assert_eq!(unsafe { sqlbatch_stmt_column_not_null(s.0, i, &mut v) }, SQLBATCH_OK);
            v
        })
        .collect();
    assert_eq!(not_null, [1, 1, 0, 0, -1]);
    let mut v = 0;
    assert_eq!(unsafe { sqlbatch_stmt_column_not_null(s.0, 5, &mut v) }, SQLBATCH_E_RANGE);

    let (mut names, mut n) = (ptr::null(), 0usize);
    assert_eq!(unsafe { sqlbatch_stmt_params(s.0, &mut names, &mut n) }, SQLBATCH_OK);
    let names: Vec<_> = unsafe { std::slice::from_raw_parts(names, n) }.iter().map(|s| text(*s)).collect();
    assert_eq!(names, [Some(":id".into()), None, Some("?3".into())]);
    let mut count = 0usize;
    assert_eq!(unsafe { sqlbatch_stmt_param_count(s.0, &mut count) }, SQLBATCH_OK);
    assert_eq!(count, 3, "the count without the names");
    let mut idx = usize::MAX;
    assert_eq!(unsafe { sqlbatch_stmt_param_index(s.0, c":id".as_ptr(), 3, &mut idx) }, SQLBATCH_OK);
    assert_eq!(idx, 1);
    assert_eq!(unsafe { sqlbatch_stmt_param_index(s.0, c":nope".as_ptr(), 5, &mut idx) }, SQLBATCH_OK);
    assert_eq!(idx, 0);

    let mut ro = false;
    assert_eq!(unsafe { sqlbatch_stmt_readonly(s.0, &mut ro) }, SQLBATCH_OK);
    assert!(ro);
    let p = Params::of(&[Val::Int(5), Val::Null, t("o'k")]);
    assert_eq!(s.bind(&p), SQLBATCH_OK);
    let mut out = sqlbatch_str::NONE;
    assert_eq!(unsafe { sqlbatch_stmt_expanded_sql(s.0, &mut out) }, SQLBATCH_OK);
    assert_eq!(
        text(out).unwrap(),
        "SELECT id, name AS who, born, note, 1 + 1 FROM p WHERE id = 5 AND name = 'o''k'"
    );
    assert_eq!(unsafe { sqlbatch_stmt_sql(s.0, &mut out) }, SQLBATCH_OK);
    assert!(text(out).unwrap().ends_with("name = ?3"));
    let w = c.prepare("DELETE FROM p");
    assert_eq!(unsafe { sqlbatch_stmt_readonly(w.0, &mut ro) }, SQLBATCH_OK);
    assert!(!ro);
}

#[test]
fn bind_checks_the_parameter_count() {
    let c = Conn::memory();
    let s = c.prepare("SELECT ?, ?");
    let p = Params::of(&[Val::Int(1)]);
    assert_eq!(s.bind(&p), SQLBATCH_E_PARAM_COUNT);
    assert!(c.error().1.contains("takes 2 parameter(s) but 1"), "{}", c.error().1);
}

#[test]
fn prepare_reports_the_tail_and_syntax_error_offsets() {
    let c = Conn::memory();
    let sql = "SELECT 1; SELECT 2";
    let (mut s, mut tail) = (ptr::null_mut(), 0usize);
    assert_eq!(
        unsafe { sqlbatch_stmt_prepare(c.0, sql.as_ptr().cast(), sql.len(), 0, &mut s, &mut tail) },
        SQLBATCH_OK
    );
    assert_eq!(tail, 9);
    unsafe { sqlbatch_stmt_finalize(s) };
    let bad = "SELECT 1 FORM t";
    let rc = unsafe { sqlbatch_stmt_prepare(c.0, bad.as_ptr().cast(), bad.len(), 0, &mut s, &mut tail) };
    assert_eq!(rc, sq::SQLITE_ERROR);
    assert!(s.is_null());
    let (e, msg) = c.error();
    assert!(msg.contains("syntax error"), "{msg}");
    // "FORM" parses as an alias of 1; the error is at "t".
    assert_eq!(e.token_offset, 14);
    assert_eq!(
        unsafe { sqlbatch_stmt_prepare(c.0, sql.as_ptr().cast(), sql.len(), 0x80, &mut s, &mut tail) },
        SQLBATCH_E_INVALID_ARGUMENT
    );
}

#[test]
fn every_function_rejects_null_handles() {
    let null_conn: *mut sqlbatch_conn = ptr::null_mut();
    let null_stmt: *mut sqlbatch_stmt = ptr::null_mut();
    let mut i = 0i64;
    let mut b = false;
    let mut n = 0usize;
    let mut batch: sqlbatch_batch = unsafe { std::mem::zeroed() };
    unsafe {
        assert_eq!(sqlbatch_conn_busy_timeout(null_conn, 1), SQLBATCH_E_NULL_PARAMETER);
        assert_eq!(sqlbatch_conn_changes(null_conn, &mut i), SQLBATCH_E_NULL_PARAMETER);
        assert_eq!(sqlbatch_conn_total_changes(null_conn, &mut i), SQLBATCH_E_NULL_PARAMETER);
        assert_eq!(sqlbatch_conn_last_insert_rowid(null_conn, &mut i), SQLBATCH_E_NULL_PARAMETER);
        assert_eq!(sqlbatch_conn_autocommit(null_conn, &mut b), SQLBATCH_E_NULL_PARAMETER);
        assert_eq!(sqlbatch_conn_last_error(null_conn, ptr::null_mut()), SQLBATCH_E_NULL_PARAMETER);
        assert_eq!(
            sqlbatch_conn_exec(null_conn, c"".as_ptr(), 0, ptr::null(), ptr::null_mut()),
            SQLBATCH_E_NULL_PARAMETER
        );
        assert_eq!(
            sqlbatch_stmt_prepare(null_conn, c"".as_ptr(), 0, 0, &mut ptr::null_mut(), ptr::null_mut()),
            SQLBATCH_E_NULL_PARAMETER
        );
        sqlbatch_conn_interrupt(null_conn);
        sqlbatch_conn_close(null_conn);
        sqlbatch_stmt_finalize(null_stmt);
        assert_eq!(sqlbatch_stmt_fetch(null_stmt, 1, 1, &mut batch), SQLBATCH_E_NULL_PARAMETER);
        assert_eq!(
            sqlbatch_stmt_fetch_into(null_stmt, 1, ptr::null_mut(), 0, &mut batch),
            SQLBATCH_E_NULL_PARAMETER
        );
        assert_eq!(sqlbatch_stmt_bind(null_stmt, ptr::null()), SQLBATCH_E_NULL_PARAMETER);
        assert_eq!(sqlbatch_stmt_reset(null_stmt), SQLBATCH_E_NULL_PARAMETER);
        assert_eq!(sqlbatch_stmt_clear_bindings(null_stmt), SQLBATCH_E_NULL_PARAMETER);
        assert_eq!(sqlbatch_stmt_columns(null_stmt, &mut ptr::null(), &mut n), SQLBATCH_E_NULL_PARAMETER);
        assert_eq!(sqlbatch_stmt_params(null_stmt, &mut ptr::null(), &mut n), SQLBATCH_E_NULL_PARAMETER);
        assert_eq!(sqlbatch_stmt_param_count(null_stmt, &mut n), SQLBATCH_E_NULL_PARAMETER);
        assert_eq!(sqlbatch_stmt_readonly(null_stmt, &mut b), SQLBATCH_E_NULL_PARAMETER);
        assert_eq!(
            sqlbatch_stmt_execute_many(null_stmt, ptr::null(), 0, ptr::null_mut()),
            SQLBATCH_E_NULL_PARAMETER
        );
        assert_eq!(
            sqlbatch_batch_get(null_stmt, &batch, 0, 0, &mut sqlbatch_value::default()),
            SQLBATCH_E_NULL_PARAMETER
        );
    }
    // NULL out-parameters and NULL buffers with a length, on live handles.
    let c = Conn::memory();
    let s = c.prepare("SELECT 1");
    unsafe {
        assert_eq!(sqlbatch_conn_changes(c.0, ptr::null_mut()), SQLBATCH_E_NULL_PARAMETER);
        assert_eq!(sqlbatch_stmt_fetch(s.0, 1, 1, ptr::null_mut()), SQLBATCH_E_NULL_PARAMETER);
        assert_eq!(
            sqlbatch_stmt_fetch_into(s.0, 1, ptr::null_mut(), 10, &mut batch),
            SQLBATCH_E_NULL_PARAMETER
        );
        let no_values = sqlbatch_params { values: ptr::null(), ..params_of(&[sqlbatch_value::int(1)], &[]) };
        assert_eq!(sqlbatch_stmt_bind(s.0, &no_values), SQLBATCH_E_NULL_PARAMETER);
        assert_eq!(
            sqlbatch_conn_exec(c.0, ptr::null(), 5, ptr::null(), ptr::null_mut()),
            SQLBATCH_E_NULL_PARAMETER
        );
        assert_eq!(sqlbatch_stmt_columns(s.0, ptr::null_mut(), &mut n), SQLBATCH_E_NULL_PARAMETER);
    }
    assert_eq!(c.error().0.code, SQLBATCH_E_NULL_PARAMETER);
    assert!(c.error().1.contains("is NULL"));
}

#[test]
fn statements_outlive_a_closed_connection_safely() {
    let c = Conn::memory();
    c.exec("CREATE TABLE t(a); INSERT INTO t VALUES (1), (2)");
    let s = c.prepare("SELECT a FROM t");
    let (rc, _) = s.fetch(1, usize::MAX);
    assert_eq!(rc, SQLBATCH_ROW);
    drop(c); // closes the connection, finalizing the statement underneath
    assert_eq!(s.fetch(1, usize::MAX).0, SQLBATCH_E_CLOSED);
    assert_eq!(unsafe { sqlbatch_stmt_reset(s.0) }, SQLBATCH_E_CLOSED);
    let mut b: sqlbatch_batch = unsafe { std::mem::zeroed() };
    let mut buf = [0u8; 16];
    assert_eq!(
        unsafe { sqlbatch_stmt_reset_fetch_into(s.0, 1, buf.as_mut_ptr(), buf.len(), &mut b) },
        SQLBATCH_E_CLOSED
    );
    let mut count = 0usize;
    assert_eq!(unsafe { sqlbatch_stmt_param_count(s.0, &mut count) }, SQLBATCH_E_CLOSED);
    s.finalize();
}

#[test]
fn interrupt_from_another_thread_stops_a_long_fetch_and_the_connection_stays_usable() {
    let c = Conn::memory();
    let s = c.prepare("WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k) SELECT sum(i) FROM k");
    let handle = c.0 as usize;
    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        unsafe { sqlbatch_conn_interrupt(handle as *const sqlbatch_conn) };
    });
    let (rc, _) = s.fetch(1, usize::MAX);
    t.join().unwrap();
    assert_eq!(rc, sq::SQLITE_INTERRUPT);
    assert_eq!(c.error().1, "interrupted");
    s.finalize();
    assert_eq!(c.rows("SELECT 40 + 2"), vec![vec![Val::Int(42)]]);
}

#[test]
fn interrupt_stops_a_script_and_a_bulk_write() {
    let c = Conn::memory();
    c.exec("CREATE TABLE t(a)");
    let handle = c.0 as usize;
    let interrupt_soon = move || {
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            unsafe { sqlbatch_conn_interrupt(handle as *const sqlbatch_conn) };
        })
    };
    let t = interrupt_soon();
    let sql = "INSERT INTO t VALUES (1); WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k) SELECT sum(i) FROM k; INSERT INTO t VALUES (2)";
    let (rc, r) = c.try_exec(sql);
    t.join().unwrap();
    assert_eq!((rc, r.statements), (sq::SQLITE_INTERRUPT, 1));
    assert_eq!(c.error().0.statement_index, 1);
    assert_eq!(c.rows("SELECT a FROM t"), vec![vec![Val::Int(1)]]);

    let s = c.prepare("INSERT INTO t SELECT sum(i) FROM (WITH RECURSIVE k(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM k) SELECT i FROM k)");
    let p = Params::of(&[Val::Int(1), Val::Int(2)]);
    let t = interrupt_soon();
    let (rc, w) = s.execute_many(&p, 2);
    t.join().unwrap();
    assert_eq!((rc, w.rows), (sq::SQLITE_INTERRUPT, 0));
    assert_eq!(c.rows("SELECT count(*) FROM t"), vec![vec![Val::Int(1)]]);
}

#[test]
fn busy_with_and_without_a_timeout() {
    let path = temp_path("busy.db");
    let a = Conn::open(&path);
    a.exec("CREATE TABLE t(a); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)");
    let b = Conn::open(&path);
    assert_eq!(b.try_exec("INSERT INTO t VALUES (2)").0, sq::SQLITE_BUSY);
    assert_eq!(unsafe { sqlbatch_conn_busy_timeout(b.0, 50) }, SQLBATCH_OK);
    assert_eq!(b.try_exec("INSERT INTO t VALUES (2)").0, sq::SQLITE_BUSY);
    a.exec("COMMIT");
    b.exec("INSERT INTO t VALUES (2)");
    assert_eq!(a.rows("SELECT count(*) FROM t"), vec![vec![Val::Int(2)]]);
    drop((a, b));
    std::fs::remove_file(path).unwrap();
}

#[test]
fn a_schema_change_under_a_prepared_statement_is_picked_up() {
    let c = Conn::memory();
    c.exec("CREATE TABLE t(a); INSERT INTO t VALUES (1)");
    let s = c.prepare("SELECT * FROM t");
    c.exec("ALTER TABLE t ADD COLUMN b DEFAULT 'new'");
    assert_eq!(s.all(10, usize::MAX), vec![vec![Val::Int(1), t("new")]]);
    c.exec("DROP TABLE t");
    assert_eq!(unsafe { sqlbatch_stmt_reset(s.0) }, SQLBATCH_OK);
    let (rc, _) = s.fetch(10, usize::MAX);
    assert_eq!(rc, sq::SQLITE_ERROR);
    assert!(c.error().1.contains("no such table"), "{}", c.error().1);
}

#[test]
fn code_strings_and_versions() {
    let s = |code| unsafe { CStr::from_ptr(sqlbatch_code_str(code)) }.to_str().unwrap().to_owned();
    assert_eq!(s(SQLBATCH_E_NULL_PARAMETER), "NULL pointer argument");
    assert_eq!(s(sq::SQLITE_CONSTRAINT_UNIQUE), "constraint failed");
    assert_eq!(s(SQLBATCH_OK), "not an error");
    assert_eq!(s(123456), "unknown error");
    for code in 1000..=1008 {
        assert!(code & 0xff > 28 && code & 0xff != 100 && code & 0xff != 101, "{code} collides with SQLite");
        assert_ne!(s(code), "unknown error", "{code}");
    }
    assert_eq!(unsafe { CStr::from_ptr(sqlbatch_version()) }.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
    assert_eq!(unsafe { CStr::from_ptr(sqlbatch_sqlite_version()) }.to_str().unwrap(), "3.54.1");
}

#[test]
fn statements_without_columns_or_parameters_give_null_arrays() {
    let c = Conn::memory();
    c.exec("CREATE TABLE t(a)");
    let sentinel = ptr::NonNull::dangling().as_ptr();
    for sql in ["INSERT INTO t VALUES (1)", "CREATE TABLE u(b)", "", "/* only a comment */"] {
        let s = c.prepare(sql);
        let (mut cols, mut n): (*const sqlbatch_column, usize) = (sentinel, usize::MAX);
        assert_eq!(unsafe { sqlbatch_stmt_columns(s.0, &mut cols, &mut n) }, SQLBATCH_OK);
        assert_eq!((n, cols.is_null()), (0, true), "columns of {sql:?}");
        let (mut names, mut n): (*const sqlbatch_str, usize) =
            (ptr::NonNull::dangling().as_ptr(), usize::MAX);
        assert_eq!(unsafe { sqlbatch_stmt_params(s.0, &mut names, &mut n) }, SQLBATCH_OK);
        assert_eq!((n, names.is_null()), (0, true), "params of {sql:?}");
        let mut count = usize::MAX;
        assert_eq!(unsafe { sqlbatch_stmt_param_count(s.0, &mut count) }, SQLBATCH_OK);
        assert_eq!(count, 0, "param count of {sql:?}");
    }
    let s = c.prepare("SELECT a, ?1, :x FROM t");
    let (mut cols, mut n) = (ptr::null(), 0usize);
    assert_eq!(unsafe { sqlbatch_stmt_columns(s.0, &mut cols, &mut n) }, SQLBATCH_OK);
    assert!(n == 3 && !cols.is_null());
    assert_eq!(s.params(), [Some("?1".to_string()), Some(":x".to_string())]);
}

#[test]
fn param_index_matches_names_with_and_without_their_prefix() {
    let c = Conn::memory();
    let s = c.prepare("SELECT :id, ?2, @id, $id, @only_at, $only_dollar");
    for (name, want) in [
        (":id", 1),
        ("@id", 3),
        ("$id", 4),
        ("id", 1),
        ("?2", 2),
        ("?9", 0),
        ("only_at", 5),
        ("@only_at", 5),
        (":only_at", 0),
        ("$only_at", 0),
        ("only_dollar", 6),
        ("nope", 0),
        (":nope", 0),
    ] {
        assert_eq!(s.param_index(name.as_bytes()), (SQLBATCH_OK, want), "{name}");
    }
    // "id" prefers :id, then @id, then $id.
    let s = c.prepare("SELECT $id, @id");
    assert_eq!(s.param_index(b"id"), (SQLBATCH_OK, 2));
    let s = c.prepare("SELECT $id");
    assert_eq!(s.param_index(b"id"), (SQLBATCH_OK, 1));
}

#[test]
fn bind_with_names() {
    let c = Conn::memory();
    let s = c.prepare("SELECT :a, ?, @b, $c, ?");
    // Named values (with and without prefix) in any order; the rest positional, in order.
    let mut p = Params::default();
    p.push_named(b"b", &Val::Int(3))
        .push(&Val::Int(2))
        .push_named(b":a", &t("a"))
        .push_named(b"$c", &f(4.0))
        .push(&Val::Int(5));
    assert_eq!(s.bind(&p), SQLBATCH_OK, "{}", c.error().1);
    assert_eq!(s.all(10, usize::MAX), vec![vec![t("a"), Val::Int(2), Val::Int(3), f(4.0), Val::Int(5)]]);
    // A name that occurs twice binds both; a NULL-kind name leaves the value positional.
    let s = c.prepare("SELECT :x, :x, ?");
    let mut p = Params::default();
    p.push_named(b"x", &Val::Int(1)).push_value(sqlbatch_value::int(2), sqlbatch_value::NULL);
    assert_eq!(s.bind(&p), SQLBATCH_OK);
    assert_eq!(s.all(10, usize::MAX), vec![vec![Val::Int(1), Val::Int(1), Val::Int(2)]]);
    // A positional value left over, or one missing: SQLBATCH_E_PARAM_COUNT.
    p.push(&Val::Int(3));
    assert_eq!(s.bind(&p), SQLBATCH_E_PARAM_COUNT);
    let mut only_named = Params::default();
    only_named.push_named(b"x", &Val::Int(1));
    assert_eq!(s.bind(&only_named), SQLBATCH_E_PARAM_COUNT);
    // A named parameter without a value for its name.
    let s = c.prepare("SELECT :a, :b");
    let mut p = Params::default();
    p.push_named(b"a", &Val::Int(1));
    assert_eq!(s.bind(&p), SQLBATCH_E_PARAM_COUNT);
    p.push_named(b"b", &Val::Int(2));
    assert_eq!(s.bind(&p), SQLBATCH_OK);
    assert_eq!(s.all(10, usize::MAX), vec![vec![Val::Int(1), Val::Int(2)]]);
}

#[test]
fn prepare_single_refuses_a_second_statement() {
    let c = Conn::memory();
    for sql in [
        "SELECT 1",
        "SELECT 1;",
        "SELECT 1; ;; ",
        "SELECT 1 -- c",
        "SELECT 1; /* c */ ;\n-- x\n",
        "",
        "  ",
        ";",
    ] {
        let (rc, s, _) = c.try_prepare(sql.as_bytes(), SQLBATCH_PREPARE_SINGLE);
        assert_eq!(rc, SQLBATCH_OK, "{sql:?}: {}", c.error().1);
        assert!(s.is_some());
    }
    let (rc, _, _) = c.try_prepare(b"SELECT 1;", SQLBATCH_PREPARE_SINGLE | SQLBATCH_PREPARE_PERSISTENT);
    assert_eq!(rc, SQLBATCH_OK);
    for (sql, at) in [
        ("SELECT 1; SELECT 2", 10),
        ("SELECT 1;\n  -- c\n  SELECT 2;", 19),
        ("SELECT 1;;; /* c */ INSERT INTO nowhere VALUES (1)", 20),
        ("CREATE TABLE t(a);DROP TABLE t", 18),
    ] {
        let mut s: *mut sqlbatch_stmt = ptr::NonNull::dangling().as_ptr();
        let rc = unsafe {
            sqlbatch_stmt_prepare(
                c.0,
                sql.as_ptr().cast(),
                sql.len(),
                SQLBATCH_PREPARE_SINGLE,
                &mut s,
                ptr::null_mut(),
            )
        };
        assert_eq!(rc, SQLBATCH_E_MULTIPLE_STATEMENTS, "{sql:?}");
        assert!(s.is_null(), "{sql:?}: *out_stmt not NULL");
        let (e, msg) = c.error();
        assert_eq!((e.code, e.token_offset), (rc, at), "{sql:?}: {msg}");
    }
    // Without the flag, the first statement is compiled, as before.
    let (rc, s, tail) = c.try_prepare(b"SELECT 1; SELECT 2", 0);
    assert_eq!((rc, s.is_some(), tail), (SQLBATCH_OK, true, 9));
    // Nothing ran: the table of the refused script does not exist.
    assert_eq!(c.rows("SELECT count(*) FROM sqlite_schema"), vec![vec![Val::Int(0)]]);
}

#[test]
fn code_names_for_sqlite_and_library_codes() {
    let name = |code: i32| {
        let p = sqlbatch_code_name(code);
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned())
    };
    for (code, want) in [
        (SQLBATCH_OK, "SQLBATCH_OK"),
        (SQLBATCH_ROW, "SQLBATCH_ROW"),
        (SQLBATCH_DONE, "SQLBATCH_DONE"),
        (sq::SQLITE_BUSY, "SQLITE_BUSY"),
        (sq::SQLITE_CONSTRAINT, "SQLITE_CONSTRAINT"),
        (sq::SQLITE_CONSTRAINT_UNIQUE, "SQLITE_CONSTRAINT_UNIQUE"),
        (sq::SQLITE_IOERR_SHORT_READ, "SQLITE_IOERR_SHORT_READ"),
        (sq::SQLITE_BUSY_TIMEOUT, "SQLITE_BUSY_TIMEOUT"),
        (sq::SQLITE_WARNING, "SQLITE_WARNING"),
        (SQLBATCH_E_NULL_PARAMETER, "SQLBATCH_E_NULL_PARAMETER"),
        (SQLBATCH_E_RANGE, "SQLBATCH_E_RANGE"),
        (SQLBATCH_E_MULTIPLE_STATEMENTS, "SQLBATCH_E_MULTIPLE_STATEMENTS"),
    ] {
        assert_eq!(name(code).as_deref(), Some(want), "{code}");
    }
    for code in SQLBATCH_E_NULL_PARAMETER..=SQLBATCH_E_MULTIPLE_STATEMENTS {
        assert!(name(code).is_some_and(|n| n.starts_with("SQLBATCH_E_")), "{code}");
    }
    for code in [-1, 29, 99, 102, 999, 1023, 0x1234_0001, i32::MIN, i32::MAX] {
        assert_eq!(name(code), None, "{code}");
    }
}

/// A file that may come from anyone: `SQLBATCH_OPEN_UNTRUSTED` checks it before handing out
/// the connection, and keeps SQLite's defenses on.
#[test]
fn an_untrusted_file_is_checked_and_defended() {
    let dir = std::env::temp_dir().join(format!("sqlbatch-untrusted-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("doc.db");
    let path_s = path.to_str().unwrap();
    {
        let c = Conn::open(path_s);
        c.exec("PRAGMA page_size=1024; CREATE TABLE t(a, b); CREATE INDEX ta ON t(a)");
        c.exec("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) INSERT INTO t SELECT i, hex(randomblob(20)) FROM n");
    }
    // A sound file opens, and the defenses hold: no writable schema.
    let c = Conn::open_flags(path_s, SQLBATCH_OPEN_UNTRUSTED);
    assert_eq!(c.rows("SELECT count(*) FROM t"), vec![vec![Val::Int(2000)]]);
    let (rc, _) =
        c.try_exec("PRAGMA writable_schema=ON; UPDATE sqlite_schema SET sql = 'x' WHERE name = 't'");
    assert_ne!(rc, SQLBATCH_OK, "defensive mode refuses writes to the schema table");
    drop(c);
    // Damage a page of the index: quick_check finds it, and the open fails with its finding.
    let mut bytes = std::fs::read(&path).unwrap();
    let len = bytes.len();
    for b in &mut bytes[len - 3000..len - 2000] {
        *b ^= 0x5a;
    }
    std::fs::write(&path, &bytes).unwrap();
    let mut conn = std::ptr::null_mut();
    let rc = unsafe {
        sqlbatch_conn_open(path_s.as_ptr().cast(), path_s.len(), SQLBATCH_OPEN_UNTRUSTED, &mut conn)
    };
    assert!(rc == libsqlite3_sys::SQLITE_CORRUPT || rc & 0xff == libsqlite3_sys::SQLITE_CORRUPT, "rc {rc}");
    let (_, msg) = last_error_of(conn);
    assert!(msg.contains("quick_check") || msg.contains("malformed"), "{msg}");
    unsafe { sqlbatch_conn_close(conn) };
    // Without the flag the open succeeds (and the damage shows only where it is read).
    let c = Conn::open(path_s);
    drop(c);
    // Not a database at all.
    std::fs::write(
        &path,
        b"this is not an SQLite database, only text; long enough to be read as a header......",
    )
    .unwrap();
    let mut conn = std::ptr::null_mut();
    let rc = unsafe {
        sqlbatch_conn_open(path_s.as_ptr().cast(), path_s.len(), SQLBATCH_OPEN_UNTRUSTED, &mut conn)
    };
    assert_eq!(rc, libsqlite3_sys::SQLITE_NOTADB);
    unsafe { sqlbatch_conn_close(conn) };
    std::fs::remove_dir_all(&dir).unwrap();
}
