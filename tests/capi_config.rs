//! Limits, db_config switches, checkpoints, status counters and database state through the
//! C ABI.

mod common;
use common::*;
use libsqlite3_sys as sq;
use std::ffi::CStr;
use std::ptr;

#[test]
fn limits_read_and_set() {
    let c = Conn::memory();
    let mut old = 0;
    unsafe {
        assert_eq!(sqlbatch_conn_limit(c.0, sq::SQLITE_LIMIT_LENGTH, 1000, &mut old), SQLBATCH_OK);
        assert_eq!(old, 1_000_000_000);
        assert_eq!(sqlbatch_conn_limit(c.0, sq::SQLITE_LIMIT_LENGTH, -1, &mut old), SQLBATCH_OK);
        assert_eq!(old, 1000);
        assert_eq!(sqlbatch_conn_limit(c.0, 999, -1, &mut old), SQLBATCH_E_RANGE);
        assert_eq!(sqlbatch_conn_limit(ptr::null_mut(), 0, -1, &mut old), SQLBATCH_E_NULL_PARAMETER);
    }
    assert_eq!(c.try_rows("SELECT zeroblob(2000)", 1), Err(sq::SQLITE_TOOBIG));
    c.exec("SELECT zeroblob(900)");
}

#[test]
fn switches_change_behaviour() {
    let c = Conn::memory();
    let mut now = -1;
    unsafe {
        assert_eq!(sqlbatch_conn_db_config(c.0, sq::SQLITE_DBCONFIG_ENABLE_FKEY, -1, &mut now), SQLBATCH_OK);
        assert_eq!(now, 0);
        assert_eq!(sqlbatch_conn_db_config(c.0, sq::SQLITE_DBCONFIG_ENABLE_FKEY, 1, &mut now), SQLBATCH_OK);
        assert_eq!(now, 1);
    }
    c.exec("CREATE TABLE p(id INTEGER PRIMARY KEY); CREATE TABLE ch(p REFERENCES p(id))");
    assert_eq!(c.try_exec("INSERT INTO ch VALUES (5)").0, sq::SQLITE_CONSTRAINT_FOREIGNKEY);
    // Double-quoted strings in DML: on by default, an error once turned off.
    c.exec("SELECT \"not a column\"");
    unsafe {
        assert_eq!(sqlbatch_conn_db_config(c.0, sq::SQLITE_DBCONFIG_DQS_DML, 0, ptr::null_mut()), SQLBATCH_OK)
    };
    assert_eq!(c.try_exec("SELECT \"not a column\"").0, sq::SQLITE_ERROR);
    // Defensive mode refuses writable_schema tricks.
    unsafe {
        assert_eq!(
            sqlbatch_conn_db_config(c.0, sq::SQLITE_DBCONFIG_DEFENSIVE, 1, ptr::null_mut()),
            SQLBATCH_OK
        )
    };
    assert_ne!(c.try_exec("PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = '' ").0, SQLBATCH_OK);
    // Not switches, and values that are not 0/1.
    unsafe {
        assert_eq!(
            sqlbatch_conn_db_config(c.0, sq::SQLITE_DBCONFIG_LOOKASIDE, 1, ptr::null_mut()),
            SQLBATCH_E_INVALID_ARGUMENT
        );
        assert_eq!(
            sqlbatch_conn_db_config(c.0, sq::SQLITE_DBCONFIG_MAINDBNAME, 1, ptr::null_mut()),
            SQLBATCH_E_INVALID_ARGUMENT
        );
        assert_eq!(
            sqlbatch_conn_db_config(c.0, sq::SQLITE_DBCONFIG_ENABLE_FKEY, 2, ptr::null_mut()),
            SQLBATCH_E_INVALID_ARGUMENT
        );
    }
}

#[test]
fn reset_database_empties_it() {
    let c = Conn::memory();
    c.exec("CREATE TABLE t(a); INSERT INTO t VALUES (1)");
    unsafe {
        assert_eq!(
            sqlbatch_conn_db_config(c.0, sq::SQLITE_DBCONFIG_RESET_DATABASE, 1, ptr::null_mut()),
            SQLBATCH_OK
        )
    };
    c.exec("VACUUM");
    unsafe {
        assert_eq!(
            sqlbatch_conn_db_config(c.0, sq::SQLITE_DBCONFIG_RESET_DATABASE, 0, ptr::null_mut()),
            SQLBATCH_OK
        )
    };
    assert_eq!(c.rows("SELECT count(*) FROM sqlite_schema"), vec![vec![Val::Int(0)]]);
}

#[test]
fn checkpoints_txn_state_readonly_and_filename() {
    let path = std::env::temp_dir().join(format!("sqlbatch-config-{}.db", std::process::id()));
    let p = path.to_str().unwrap();
    let c = Conn::open(p);
    c.exec("PRAGMA journal_mode = WAL; CREATE TABLE t(a); INSERT INTO t VALUES (1), (2)");
    let (mut log, mut done) = (0, 0);
    unsafe {
        assert_eq!(
            sqlbatch_conn_checkpoint(c.0, ptr::null(), 0, SQLBATCH_CHECKPOINT_TRUNCATE, &mut log, &mut done),
            SQLBATCH_OK
        );
        assert_eq!((log, done), (0, 0), "truncated");
        c.exec("INSERT INTO t VALUES (3)");
        assert_eq!(
            sqlbatch_conn_checkpoint(
                c.0,
                c"main".as_ptr(),
                4,
                SQLBATCH_CHECKPOINT_PASSIVE,
                &mut log,
                &mut done
            ),
            SQLBATCH_OK
        );
        assert!(log > 0 && done == log, "{log} {done}");
        assert_eq!(
            sqlbatch_conn_checkpoint(c.0, ptr::null(), 0, 7, &mut log, &mut done),
            SQLBATCH_E_INVALID_ARGUMENT
        );
        assert_eq!(
            sqlbatch_conn_checkpoint(c.0, c"nope".as_ptr(), 4, 0, &mut log, &mut done),
            sq::SQLITE_ERROR
        );
    }
    let mut state = -1;
    unsafe {
        assert_eq!(sqlbatch_conn_txn_state(c.0, ptr::null(), 0, &mut state), SQLBATCH_OK);
        assert_eq!(state, SQLBATCH_TXN_NONE);
        c.exec("BEGIN; INSERT INTO t VALUES (4)");
        assert_eq!(sqlbatch_conn_txn_state(c.0, c"main".as_ptr(), 4, &mut state), SQLBATCH_OK);
        assert_eq!(state, SQLBATCH_TXN_WRITE);
        c.exec("COMMIT");
        assert_eq!(sqlbatch_conn_txn_state(c.0, c"nope".as_ptr(), 4, &mut state), sq::SQLITE_ERROR);
    }
    let mut name = ptr::null();
    let mut ro = true;
    unsafe {
        assert_eq!(sqlbatch_conn_filename(c.0, ptr::null(), 0, &mut name), SQLBATCH_OK);
        assert_eq!(
            CStr::from_ptr(name).to_str().unwrap(),
            std::fs::canonicalize(&path).unwrap().to_str().unwrap()
        );
        assert_eq!(sqlbatch_conn_readonly(c.0, ptr::null(), 0, &mut ro), SQLBATCH_OK);
        assert!(!ro);
        assert_eq!(sqlbatch_conn_readonly(c.0, c"nope".as_ptr(), 4, &mut ro), sq::SQLITE_ERROR);
        let m = Conn::memory();
        assert_eq!(sqlbatch_conn_filename(m.0, ptr::null(), 0, &mut name), SQLBATCH_OK);
        assert_eq!(CStr::from_ptr(name).to_bytes(), b"");
    }
    drop(c);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{p}{suffix}"));
    }
}

#[test]
fn status_counters() {
    let c = Conn::memory();
    c.exec("CREATE TABLE t(a); INSERT INTO t VALUES (1), (2), (3)");
    let (mut cur, mut hi) = (-1, -1);
    unsafe {
        assert_eq!(
            sqlbatch_conn_status(c.0, sq::SQLITE_DBSTATUS_CACHE_USED, false, &mut cur, &mut hi),
            SQLBATCH_OK
        );
        assert!(cur > 0, "{cur}");
        assert_eq!(sqlbatch_conn_status(c.0, 12345, false, &mut cur, &mut hi), SQLBATCH_E_RANGE);
    }
    let s = c.prepare("SELECT * FROM t ORDER BY a DESC");
    let _ = s.all(100, usize::MAX);
    let mut n = -1;
    unsafe {
        assert_eq!(sqlbatch_stmt_status(s.0, sq::SQLITE_STMTSTATUS_SORT, false, &mut n), SQLBATCH_OK);
        assert_eq!(n, 1);
        assert_eq!(sqlbatch_stmt_status(s.0, sq::SQLITE_STMTSTATUS_VM_STEP, true, &mut n), SQLBATCH_OK);
        assert!(n > 0);
        assert_eq!(sqlbatch_stmt_status(s.0, sq::SQLITE_STMTSTATUS_VM_STEP, false, &mut n), SQLBATCH_OK);
        assert_eq!(n, 0, "reset");
        assert_eq!(sqlbatch_stmt_status(s.0, 12345, false, &mut n), SQLBATCH_E_RANGE);
    }
}
