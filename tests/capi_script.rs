//! Script exec and bulk write through the C ABI.

mod common;
use common::*;
use libsqlite3_sys as sq;

#[test]
fn a_script_of_many_statements_runs_in_one_call() {
    let c = Conn::memory();
    let mut sql = String::from("CREATE TABLE t(a INTEGER, b TEXT);\n");
    for k in 1..=5000 {
        sql.push_str(&format!("INSERT INTO t VALUES ({k}, 'v{k}');\n"));
    }
    sql.push_str("SELECT * FROM t; UPDATE t SET b = 'x' WHERE a <= 10; -- trailing comment\n  ");
    let (rc, r) = c.try_exec(&sql);
    assert_eq!(rc, SQLBATCH_OK, "{}", c.error().1);
    assert_eq!(r.statements, 5003);
    assert_eq!(r.changes, 5000 + 10);
    assert_eq!(r.last_insert_rowid, 5000);
    assert_eq!(r.end_offset, sql.len());
    assert_eq!(
        c.rows("SELECT count(*), sum(a) FROM t"),
        vec![vec![Val::Int(5000), Val::Int(5000 * 5001 / 2)]]
    );
}

#[test]
fn an_error_mid_script_says_where_and_keeps_what_ran() {
    let c = Conn::memory();
    let sql = "CREATE TABLE t(a UNIQUE);\nINSERT INTO t VALUES (1);\n  INSERT INTO t VALUES (1);\nINSERT INTO t VALUES (2);";
    let (rc, r) = c.try_exec(sql);
    assert_eq!(rc, sq::SQLITE_CONSTRAINT_UNIQUE);
    assert_eq!(r.statements, 2);
    assert_eq!(r.changes, 1);
    let third = sql.find("  INSERT").unwrap() + 2;
    assert_eq!(r.end_offset, third);
    let (e, msg) = c.error();
    assert_eq!((e.code, e.primary_code), (sq::SQLITE_CONSTRAINT_UNIQUE, sq::SQLITE_CONSTRAINT));
    assert_eq!((e.statement_index, e.statement_offset), (2, third as i64));
    assert!(msg.contains("UNIQUE constraint failed"), "{msg}");
    assert_eq!(c.rows("SELECT a FROM t"), vec![vec![Val::Int(1)]]);
}

#[test]
fn a_syntax_error_points_at_its_token_in_the_whole_script() {
    let c = Conn::memory();
    let sql = "SELECT 1; SELECT 2;\nSELECT * FORM t;";
    let (rc, r) = c.try_exec(sql);
    assert_eq!(rc, sq::SQLITE_ERROR);
    assert_eq!(r.statements, 2);
    let (e, msg) = c.error();
    assert_eq!(e.statement_index, 2);
    assert_eq!(e.statement_offset, sql.find("SELECT *").unwrap() as i64);
    assert_eq!(e.token_offset, sql.find("FORM").unwrap() as i64, "{msg}");
}

#[test]
fn parameters_are_consumed_in_order_across_statements() {
    let c = Conn::memory();
    c.exec("CREATE TABLE t(a, b)");
    let p = Params::of(&[Val::Int(1), t("one"), Val::Int(2), t("two"), Val::Int(1)]);
    let sql =
        "INSERT INTO t VALUES (?, ?); INSERT INTO t VALUES (?2, ?1);\nDELETE FROM t WHERE a = ?; -- foo";
    let (rc, r) = c.try_exec_with(sql, &p);
    assert_eq!(rc, SQLBATCH_OK, "{}", c.error().1);
    assert_eq!((r.statements, r.params_used, r.changes), (3, 5, 3));
    assert_eq!(c.rows("SELECT a, b FROM t"), vec![vec![t("two"), Val::Int(2)]]);
}

#[test]
fn too_few_or_too_many_parameters_are_errors() {
    let c = Conn::memory();
    c.exec("CREATE TABLE t(a)");
    let p = Params::of(&[Val::Int(1)]);
    let (rc, r) = c.try_exec_with("INSERT INTO t VALUES (?); INSERT INTO t VALUES (?)", &p);
    assert_eq!(rc, SQLBATCH_E_PARAM_COUNT);
    assert_eq!((r.statements, c.error().0.statement_index), (1, 1));
    let p = Params::of(&[Val::Int(1), Val::Int(2)]);
    let (rc, r) = c.try_exec_with("INSERT INTO t VALUES (?)", &p);
    assert_eq!(rc, SQLBATCH_E_PARAM_COUNT);
    assert_eq!(r.statements, 1, "the script ran; the leftover value is reported after it");
}

#[test]
fn named_parameters_in_a_script() {
    let c = Conn::memory();
    c.exec("CREATE TABLE t(a, b)");
    // names: ":a" and "b" (without prefix); the third value is positional.
    let mut p = Params::default();
    p.push_named(b":a", &Val::Int(7)).push_named(b"b", &t("seven")).push(&Val::Int(99));
    let sql = "INSERT INTO t VALUES (:a, :b); INSERT INTO t VALUES (?, :a)";
    let (rc, _) = c.try_exec_with(sql, &p);
    assert_eq!(rc, SQLBATCH_OK, "{}", c.error().1);
    assert_eq!(
        c.rows("SELECT a, b FROM t ORDER BY rowid"),
        vec![vec![Val::Int(7), t("seven")], vec![Val::Int(99), Val::Int(7)]]
    );
}

/// `SQLBATCH_PARAMS_SINGLE`: one statement taking exactly the values given, refused before
/// anything runs otherwise (the shape of a binding's one-off `execute(sql, values)`).
fn single(values: &[Val]) -> Params {
    let mut p = Params::of(values);
    p.flags = SQLBATCH_PARAMS_SINGLE;
    p
}

#[test]
fn one_statement_with_exactly_its_values_runs_in_one_call() {
    let c = Conn::memory();
    c.exec("CREATE TABLE t(a, b)");
    let (rc, r) =
        c.try_exec_with("INSERT INTO t VALUES (?, ?); -- done\n ;", &single(&[Val::Int(1), t("one")]));
    assert_eq!(rc, SQLBATCH_OK, "{}", c.error().1);
    assert_eq!((r.statements, r.params_used, r.changes, r.last_insert_rowid), (1, 2, 1, 1));
    // Named values: each parameter by its name, nothing positional left over.
    let mut p = Params::default();
    p.push_named(b"b", &t("two")).push_named(b":a", &Val::Int(2));
    p.flags = SQLBATCH_PARAMS_SINGLE;
    let (rc, _) = c.try_exec_with("INSERT INTO t VALUES (:a, :b)", &p);
    assert_eq!(rc, SQLBATCH_OK, "{}", c.error().1);
    // No statement at all does nothing, as without the flag.
    assert_eq!(c.try_exec_with(" ; -- nothing", &single(&[])).0, SQLBATCH_OK);
    assert_eq!(
        c.rows("SELECT a, b FROM t ORDER BY rowid"),
        vec![vec![Val::Int(1), t("one")], vec![Val::Int(2), t("two")]]
    );
}

#[test]
fn one_statement_mode_refuses_a_second_statement_or_other_counts_before_running() {
    let c = Conn::memory();
    c.exec("CREATE TABLE t(a)");
    let cases: [(&str, Vec<Val>, i32, i64); 5] = [
        (
            "INSERT INTO t VALUES (?); INSERT INTO t VALUES (2)",
            vec![Val::Int(1)],
            SQLBATCH_E_MULTIPLE_STATEMENTS,
            26,
        ),
        ("INSERT INTO t VALUES (?)", vec![Val::Int(1), Val::Int(2)], SQLBATCH_E_PARAM_COUNT, -1),
        ("INSERT INTO t VALUES (?)", vec![], SQLBATCH_E_PARAM_COUNT, -1),
        // ?2 alone takes two values.
        ("INSERT INTO t VALUES (?2)", vec![Val::Int(1)], SQLBATCH_E_PARAM_COUNT, -1),
        ("INSERT INTO t VALUES (:a)", vec![Val::Int(1), Val::Int(2)], SQLBATCH_E_PARAM_COUNT, -1),
    ];
    for (sql, values, code, token) in cases {
        let (rc, r) = c.try_exec_with(sql, &single(&values));
        assert_eq!(rc, code, "{sql}: {}", c.error().1);
        assert_eq!((r.statements, r.changes), (0, 0), "{sql}");
        let e = c.error().0;
        assert_eq!((e.statement_index, e.statement_offset), (0, 0), "{sql}");
        if token >= 0 {
            assert_eq!(e.token_offset, token, "{sql}");
        }
    }
    // Without the flag, the same SQL runs what it can: the first statement of the two, and
    // the one with a left-over value.
    assert_eq!(
        c.try_exec_with("INSERT INTO t VALUES (?); INSERT INTO t VALUES (2)", &Params::of(&[Val::Int(1)])).0,
        SQLBATCH_OK
    );
    assert_eq!(c.rows("SELECT count(*) FROM t"), vec![vec![Val::Int(2)]]);
    let mut p = Params::default();
    p.push_named(b":a", &Val::Int(1)).push(&Val::Int(2));
    p.flags = SQLBATCH_PARAMS_SINGLE;
    assert_eq!(c.try_exec_with("INSERT INTO t VALUES (:a)", &p).0, SQLBATCH_E_PARAM_COUNT);
    assert_eq!(c.rows("SELECT count(*) FROM t"), vec![vec![Val::Int(2)]], "nothing ran");
}

unsafe extern "C" fn interrupts_from_a_hook(
    user: *mut std::ffi::c_void,
    _op: i32,
    _db: *const std::ffi::c_char,
    _table: *const std::ffi::c_char,
    _rowid: i64,
) {
    unsafe { sqlbatch_conn_interrupt(user.cast()) };
}

#[test]
fn once_its_statement_ran_a_one_statement_call_succeeds() {
    // Found by review: what follows the statement was prepared after it ran, so a bare "/*"
    // at the end (a syntax error to SQLite) or an interrupt during the run failed the call
    // after its row was in. Now a bare "/*" is a second statement, refused before the run,
    // and nothing after the run can fail the call.
    let c = Conn::memory();
    c.exec("CREATE TABLE t(a)");
    for sql in ["INSERT INTO t VALUES (?); /*", "INSERT INTO t VALUES (?);/*"] {
        let (rc, r) = c.try_exec_with(sql, &single(&[Val::Int(1)]));
        assert_eq!((rc, r.statements), (SQLBATCH_E_MULTIPLE_STATEMENTS, 0), "{sql}");
        assert_eq!(c.error().0.token_offset, sql.len() as i64 - 2, "{sql}");
    }
    assert_eq!(c.rows("SELECT count(*) FROM t"), vec![vec![Val::Int(0)]]);
    // The same text prepared as a single statement is refused the same way.
    let (rc, _, _) = c.try_prepare(b"SELECT 1; /*", SQLBATCH_PREPARE_SINGLE);
    assert_eq!(rc, SQLBATCH_E_MULTIPLE_STATEMENTS);
    // An unterminated comment with something in it is a comment.
    let (rc, r) = c.try_exec_with("INSERT INTO t VALUES (?); /* x", &single(&[Val::Int(2)]));
    assert_eq!((rc, r.statements), (SQLBATCH_OK, 1), "{}", c.error().1);
    // An interrupt during the run, from an update hook, with text after the statement.
    let rc = unsafe { sqlbatch_conn_update_hook(c.0, Some(interrupts_from_a_hook), c.0.cast(), None) };
    assert_eq!(rc, SQLBATCH_OK);
    let (rc, r) = c.try_exec_with("INSERT INTO t VALUES (?);\n ; -- end", &single(&[Val::Int(3)]));
    assert_eq!((rc, r.statements, r.changes), (SQLBATCH_OK, 1, 1), "{}", c.error().1);
    assert_eq!(unsafe { sqlbatch_conn_update_hook(c.0, None, std::ptr::null_mut(), None) }, SQLBATCH_OK);
    assert_eq!(c.rows("SELECT a FROM t ORDER BY a"), vec![vec![Val::Int(2)], vec![Val::Int(3)]]);
}

#[test]
fn the_one_statement_flag_changes_nothing_for_a_statement_bind() {
    let c = Conn::memory();
    let s = c.prepare("SELECT ?, ?");
    let mut p = single(&[Val::Int(1), t("x")]);
    assert_eq!(unsafe { sqlbatch_stmt_bind(s.0, &p.as_c()) }, SQLBATCH_OK);
    assert_eq!(s.all(1, usize::MAX), vec![vec![Val::Int(1), t("x")]]);
    p = single(&[Val::Int(1)]);
    assert_eq!(unsafe { sqlbatch_stmt_bind(s.0, &p.as_c()) }, SQLBATCH_E_PARAM_COUNT);
    p.flags = 4;
    assert_eq!(unsafe { sqlbatch_stmt_bind(s.0, &p.as_c()) }, SQLBATCH_E_INVALID_ARGUMENT, "an unknown flag");
}

#[test]
fn empty_and_comment_only_scripts_succeed() {
    let c = Conn::memory();
    for sql in ["", "   ", "-- nothing", "/* nothing */ ;; ;"] {
        let (rc, r) = c.try_exec(sql);
        assert_eq!((rc, r.statements), (SQLBATCH_OK, 0), "{sql:?}");
    }
}

#[test]
fn invalid_utf8_in_sql_is_an_error_with_its_offset() {
    let c = Conn::memory();
    let sql = b"SELECT 'ok'; SELECT '\xff';";
    let (rc, r) = c.exec_raw(sql, None);
    assert_eq!(rc, SQLBATCH_E_INVALID_UTF8);
    assert_eq!(r.statements, 0, "nothing runs when the script is not UTF-8");
    let (e, msg) = c.error();
    assert_eq!(e.token_offset, 21, "{msg}");
    let mut s = std::ptr::null_mut();
    let rc = unsafe {
        sqlbatch_stmt_prepare(c.0, sql.as_ptr().cast(), sql.len(), 0, &mut s, std::ptr::null_mut())
    };
    assert_eq!(rc, SQLBATCH_E_INVALID_UTF8);
    assert!(s.is_null());
}

fn bulk_rows(n: usize) -> Params {
    let mut p = Params::default();
    for i in 0..n {
        p.push(&Val::Int(i as i64)).push(&f(i as f64 * 0.25)).push(&t(&format!("row-{i}")));
    }
    p
}

#[test]
fn execute_many_inserts_every_row_in_one_call() {
    let c = Conn::memory();
    c.exec("CREATE TABLE bulk(a INTEGER, b REAL, c TEXT); BEGIN");
    let s = c.prepare("INSERT INTO bulk VALUES (?, ?, ?)");
    let p = bulk_rows(10_000);
    let (rc, r) = s.execute_many(&p, 10_000);
    assert_eq!(rc, SQLBATCH_OK, "{}", c.error().1);
    assert_eq!((r.rows, r.changes, r.last_insert_rowid), (10_000, 10_000, 10_000));
    c.exec("COMMIT");
    assert_eq!(
        c.rows("SELECT count(*), sum(a), sum(b), max(c) FROM bulk"),
        vec![vec![Val::Int(10_000), Val::Int(49_995_000), f(12_498_750.0), t("row-9999")]]
    );
}

#[test]
fn execute_many_reports_the_failing_row() {
    let c = Conn::memory();
    c.exec("CREATE TABLE u(a PRIMARY KEY)");
    let s = c.prepare("INSERT INTO u VALUES (?)");
    let p = Params::of(&[Val::Int(1), Val::Int(2), Val::Int(1), Val::Int(3)]);
    let (rc, r) = s.execute_many(&p, 4);
    assert_eq!(rc, sq::SQLITE_CONSTRAINT_PRIMARYKEY);
    assert_eq!(r.rows, 2);
    let (e, msg) = c.error();
    assert_eq!(e.row_index, 2);
    assert_eq!(msg, "UNIQUE constraint failed: u.a", "SQLite's message, the row in row_index");
    assert_eq!(c.rows("SELECT a FROM u ORDER BY a"), vec![vec![Val::Int(1)], vec![Val::Int(2)]]);
    // The statement is usable afterwards.
    let p = Params::of(&[Val::Int(9)]);
    let (rc, r) = s.execute_many(&p, 1);
    assert_eq!((rc, r.rows), (SQLBATCH_OK, 1));
}

#[test]
fn execute_many_checks_the_parameter_count_and_value_bounds() {
    let c = Conn::memory();
    c.exec("CREATE TABLE u(a, b)");
    let s = c.prepare("INSERT INTO u VALUES (?, ?)");
    let p = Params::of(&[Val::Int(1), Val::Int(2), Val::Int(3)]);
    let (rc, r) = s.execute_many(&p, 1);
    assert_eq!((rc, r.rows), (SQLBATCH_E_PARAM_COUNT, 0));
    // A TEXT value whose bytes lie past data_len.
    let bad = [sqlbatch_value { bits: 4, len: 8, kind: SQLBATCH_TEXT, _pad: [0; 3] }, sqlbatch_value::int(1)];
    let data = [0u8; 10];
    let (rc, _) = s.execute_many_raw(Some(&params_of(&bad, &data)), 1);
    assert_eq!(rc, SQLBATCH_E_RANGE);
    let unknown = [sqlbatch_value { kind: 42, ..Default::default() }, sqlbatch_value::int(1)];
    let (rc, _) = s.execute_many_raw(Some(&params_of(&unknown, &data)), 1);
    assert_eq!(rc, SQLBATCH_E_INVALID_ARGUMENT);
    assert_eq!(c.rows("SELECT count(*) FROM u"), vec![vec![Val::Int(0)]]);
}

#[test]
fn absolute_addresses_with_the_addresses_flag() {
    let c = Conn::memory();
    let s = c.prepare("SELECT ?, ?");
    let text = b"absolute";
    let vals = [
        sqlbatch_value { bits: text.as_ptr() as u64, len: 8, kind: SQLBATCH_TEXT, _pad: [0; 3] },
        sqlbatch_value { bits: 0, len: 0, kind: SQLBATCH_BLOB, _pad: [0; 3] },
    ];
    let p = sqlbatch_params { flags: SQLBATCH_PARAMS_ADDRESSES, ..params_of(&vals, &[]) };
    let rc = unsafe { sqlbatch_stmt_bind(s.0, &p) };
    assert_eq!(rc, SQLBATCH_OK);
    assert_eq!(s.all(1, usize::MAX), vec![vec![t("absolute"), Val::Blob(vec![])]]);
}

#[test]
fn a_nul_byte_anywhere_in_a_script_is_an_error_before_anything_runs() {
    let c = Conn::memory();
    c.exec("CREATE TABLE t(a)");
    for sql in [
        "INSERT INTO t VALUES (1);\0INSERT INTO t VALUES (2);",
        "INSERT INTO t VALUES (3\0);",
        "INSERT INTO t VALUES (4); -- a \0 in a comment\nINSERT INTO t VALUES (5)",
    ] {
        let (rc, r) = c.try_exec(sql);
        assert_eq!((rc, r.statements), (SQLBATCH_E_INVALID_ARGUMENT, 0), "{sql:?}");
        assert_eq!(c.error().0.token_offset, sql.find('\0').unwrap() as i64);
    }
    assert_eq!(c.rows("SELECT count(*) FROM t"), vec![vec![Val::Int(0)]]);
}

#[test]
fn sqlite_decides_what_is_whitespace_and_comment() {
    let c = Conn::memory();
    // SQLite's own tokenizer decides: an unterminated "/* ..." is a comment to the end, a bare
    // "/*" is a slash and a syntax error, a vertical tab is a space only after another space.
    for (sql, ok) in [
        ("SELECT 1; /* unterminated", true),
        ("SELECT 1; /*", false),
        ("SELECT 1; -- trailing", true),
        ("SELECT 1;;; ;", true),
        (" \x0b", true),
        ("\x0bSELECT 1", false),
        ("SELECT 1 /* in */ ; SELECT 2", true),
    ] {
        let (rc, _) = c.try_exec(sql);
        assert_eq!(rc == SQLBATCH_OK, ok, "exec {sql:?}: {}", c.error().1);
    }
    // On a single statement, prepare and exec agree.
    for sql in [" \x0b", "\x0bSELECT 1", "/*", "/* x", "-- x", " ; "] {
        let (rc, _) = c.try_exec(sql);
        let mut s = std::ptr::null_mut();
        let prc = unsafe {
            sqlbatch_stmt_prepare(c.0, sql.as_ptr().cast(), sql.len(), 0, &mut s, std::ptr::null_mut())
        };
        unsafe { sqlbatch_stmt_finalize(s) };
        assert_eq!(prc, rc, "prepare and exec disagree on {sql:?}");
    }
}

#[test]
fn a_nul_byte_is_refused_by_prepare_too() {
    let c = Conn::memory();
    for sql in ["\0", "SELECT 1\0", "SELECT 1;\0SELECT 2"] {
        let mut s = std::ptr::null_mut();
        let mut tail = 99usize;
        let rc = unsafe { sqlbatch_stmt_prepare(c.0, sql.as_ptr().cast(), sql.len(), 0, &mut s, &mut tail) };
        assert_eq!(rc, SQLBATCH_E_INVALID_ARGUMENT, "{sql:?}");
        assert!(s.is_null());
        assert_eq!(c.error().0.token_offset, sql.find('\0').unwrap() as i64);
    }
}

#[test]
fn an_interrupt_between_two_statements_is_not_lost() {
    // Each statement is short; the interrupt most likely lands between two of them, where
    // SQLite itself forgets it. The script must still stop, with SQLITE_INTERRUPT.
    let c = Conn::memory();
    c.exec("CREATE TABLE t(a)");
    let mut sql = String::new();
    for k in 0..400_000 {
        sql.push_str(&format!("INSERT INTO t VALUES ({k});"));
    }
    let it = Interrupter::start(&c, std::time::Duration::from_millis(30));
    let (rc, r) = c.try_exec(&sql);
    drop(it);
    assert_eq!(rc, sq::SQLITE_INTERRUPT, "ran {} statements", r.statements);
    assert!(r.statements < 400_000);
    assert_eq!(c.error().0.statement_index, r.statements as i64);
    // An interrupt that came before a call does not affect it.
    unsafe { sqlbatch_conn_interrupt(c.0) };
    assert_eq!(c.try_exec("INSERT INTO t VALUES (-1)").0, SQLBATCH_OK);
}

#[test]
fn an_interrupt_between_two_rows_of_a_bulk_write_is_not_lost() {
    let c = Conn::memory();
    c.exec("CREATE TABLE t(a); BEGIN");
    let s = c.prepare("INSERT INTO t VALUES (?)");
    let vals: Vec<Val> = (0..3_000_000).map(Val::Int).collect();
    let p = Params::of(&vals);
    let it = Interrupter::start(&c, std::time::Duration::from_millis(30));
    let (rc, w) = s.execute_many(&p, vals.len());
    drop(it);
    assert_eq!(rc, sq::SQLITE_INTERRUPT);
    assert!(w.rows < vals.len() as u64);
    assert_eq!(c.error().0.row_index, w.rows as i64);
    // Caught between two rows, the transaction is intact and holds exactly the rows that ran;
    // caught by SQLite inside a step, SQLite rolled the whole transaction back (as its
    // documentation says of an interrupted INSERT in an explicit transaction).
    let kept = if c.autocommit() {
        0
    } else {
        c.exec("COMMIT");
        w.rows as i64
    };
    assert_eq!(c.rows("SELECT count(*) FROM t"), vec![vec![Val::Int(kept)]]);
}

/// `changes` of a bulk write counts the rows each run changed directly, whatever the statement:
/// DML with and without matches, with a trigger (not counted), and statements that change no
/// rows (DDL, PRAGMA, SELECT) after a DML statement left `sqlite3_changes` at a high value.
#[test]
fn execute_many_counts_direct_changes_for_every_kind_of_statement() {
    let c = Conn::memory();
    c.exec(
        "CREATE TABLE t(k INTEGER PRIMARY KEY, v); CREATE TABLE log(x);
         CREATE TRIGGER tr AFTER UPDATE ON t BEGIN INSERT INTO log VALUES (new.k); INSERT INTO log VALUES (0); END;
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50) INSERT INTO t SELECT i, i FROM n",
    );
    let run = |sql: &str, vals: &[Val], n_cols: usize| {
        let s = c.prepare(sql);
        let p = Params::of(vals);
        let n_rows = vals.len().checked_div(n_cols).unwrap_or(3);
        let (rc, r) = s.execute_many(&p, n_rows);
        assert_eq!(rc, SQLBATCH_OK, "{sql}: {}", c.error().1);
        s.finalize();
        (r.rows, r.changes)
    };
    let ints = |v: &[i64]| v.iter().map(|&i| Val::Int(i)).collect::<Vec<_>>();
    // UPDATE: 2 + 0 + 1 rows (the trigger's 6 inserts into log are not direct changes).
    assert_eq!(run("UPDATE t SET v = -v WHERE k BETWEEN ?1 AND ?1 + 1", &ints(&[10, 100, 50]), 1), (3, 3));
    assert_eq!(c.rows("SELECT count(*) FROM log"), vec![vec![Val::Int(6)]]);
    // The previous statement left sqlite3_changes at 1; these change nothing.
    assert_eq!(run("DELETE FROM t WHERE k = ?", &ints(&[1000, 2000]), 1), (2, 0));
    c.exec("DELETE FROM t WHERE k > 45"); // sqlite3_changes is now 5
    assert_eq!(run("CREATE TABLE IF NOT EXISTS u(a)", &[], 0), (3, 0));
    assert_eq!(run("PRAGMA user_version = 7", &[], 0), (3, 0));
    assert_eq!(run("SELECT count(*) FROM t WHERE k < ?", &ints(&[5, 6, 7]), 1), (3, 0));
    assert_eq!(run("INSERT INTO t(v) SELECT v FROM t WHERE k <= ?", &ints(&[3, 0, 2]), 1), (3, 5));
    assert_eq!(run("INSERT INTO log VALUES (?) RETURNING x", &ints(&[1, 2]), 1), (2, 2));
}

#[test]
fn execute_many_takes_n_rows_times_the_parameter_count_and_no_names() {
    let c = Conn::memory();
    c.exec("CREATE TABLE u(a, b)");
    let s = c.prepare("INSERT INTO u VALUES (?, ?)");
    let p = Params::of(&(1..=6).map(Val::Int).collect::<Vec<_>>());
    for n_rows in [1, 2, 4, 6] {
        let (rc, w) = s.execute_many(&p, n_rows);
        assert_eq!((rc, w.rows), (SQLBATCH_E_PARAM_COUNT, 0), "{n_rows} rows");
    }
    // Names are refused, even when every one is NULL-kind (positional).
    let names = [sqlbatch_value::NULL; 6];
    let rows = sqlbatch_params { names: names.as_ptr(), ..p.as_c() };
    let (rc, w) = s.execute_many_raw(Some(&rows), 3);
    assert_eq!((rc, w.rows), (SQLBATCH_E_INVALID_ARGUMENT, 0));
    let mut named = Params::default();
    named.push_named(b"a", &Val::Int(1)).push_named(b"b", &Val::Int(2));
    assert_eq!(s.execute_many(&named, 1).0, SQLBATCH_E_INVALID_ARGUMENT);
    // No rows for a statement that takes parameters.
    assert_eq!(s.execute_many_raw(None, 2).0, SQLBATCH_E_PARAM_COUNT);
    assert_eq!(c.rows("SELECT count(*) FROM u"), vec![vec![Val::Int(0)]]);
    let (rc, w) = s.execute_many(&p, 3);
    assert_eq!((rc, w.rows, w.changes), (SQLBATCH_OK, 3, 3));
    // A statement without parameters runs n_rows times with rows NULL (or an empty set).
    let s0 = c.prepare("INSERT INTO u VALUES (0, 0)");
    let (rc, w) = s0.execute_many_raw(None, 5);
    assert_eq!((rc, w.rows, w.changes), (SQLBATCH_OK, 5, 5));
    assert_eq!(s0.execute_many_raw(None, 0).0, SQLBATCH_OK);
    assert_eq!(s0.execute_many(&Params::default(), 2).1.rows, 2);
    assert_eq!(s0.execute_many(&Params::of(&[Val::Int(1)]), 1).0, SQLBATCH_E_PARAM_COUNT);
    // Names are refused with no values too (found by the execute_many fuzz target).
    let no_values = sqlbatch_params { names: names.as_ptr(), n_values: 0, ..Params::default().as_c() };
    assert_eq!(s0.execute_many_raw(Some(&no_values), 1).0, SQLBATCH_E_INVALID_ARGUMENT);
    assert_eq!(c.rows("SELECT count(*), sum(a) FROM u"), vec![vec![Val::Int(10), Val::Int(9)]]);
}

#[test]
fn every_nul_and_bad_byte_is_found_at_every_position_of_short_and_long_sql() {
    // The SQL check has a word-at-a-time path for short ASCII: a NUL or a byte >= 0x80 in any
    // lane of a word, or in the tail after the last whole word, must take the exact path.
    let c = Conn::memory();
    for len in [1usize, 7, 8, 9, 15, 16, 17, 31, 255, 256, 257, 4095, 4096, 4097, 5000] {
        let base = {
            let mut s = b"SELECT 1".to_vec();
            s.resize(len.max(8), b' ');
            s.truncate(len);
            s
        };
        let positions: Vec<usize> =
            if len < 40 { (0..len).collect() } else { vec![0, 7, 8, len / 2, len - 9, len - 8, len - 1] };
        for at in positions {
            let mut nul = base.clone();
            nul[at] = 0;
            let (rc, s, _) = c.try_prepare(&nul, 0);
            assert!(s.is_none());
            assert_eq!(rc, SQLBATCH_E_INVALID_ARGUMENT, "NUL at {at} of {len}");
            assert_eq!(c.error().0.token_offset, at as i64, "NUL at {at} of {len}");
            let mut bad = base.clone();
            bad[at] = 0xff;
            let (rc, s, _) = c.try_prepare(&bad, 0);
            assert!(s.is_none());
            assert_eq!(rc, SQLBATCH_E_INVALID_UTF8, "0xff at {at} of {len}");
            assert_eq!(c.error().0.token_offset, at as i64, "0xff at {at} of {len}");
        }
    }
    // Valid non-ASCII in the tail and in a word goes through the exact path and is accepted.
    for sql in ["SELECT 'é'", "SELECT 'ab', 'é'", "SELECT '日本語', 'x'"] {
        assert_eq!(c.rows(sql).len(), 1, "{sql}");
    }
}
