//! The online backup, to and from files, and serialize/deserialize, through the C ABI.

mod common;
use common::*;
use libsqlite3_sys as sq;
use std::ptr;

fn temp_path(name: &str) -> String {
    let p = std::env::temp_dir().join(format!("sqlbatch-backup-{}-{name}", std::process::id()));
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", p.display()));
    }
    p.to_str().unwrap().to_owned()
}

const ROWS: i64 = 3000;

/// A database of a few hundred pages.
fn filled(c: &Conn) {
    c.exec(&format!(
        "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT);
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {ROWS})
         INSERT INTO t SELECT i, printf('%0500d', i) FROM n"
    ));
}

fn count(c: &Conn) -> Vec<Vec<Val>> {
    c.rows("SELECT count(*), sum(k), sum(length(v)) FROM t")
}

fn start(dest: &Conn, src: &Conn) -> *mut sqlbatch_backup {
    let mut b = ptr::null_mut();
    let rc = unsafe { sqlbatch_backup_init(dest.0, ptr::null(), 0, src.0, c"main".as_ptr(), 4, &mut b) };
    assert_eq!(rc, SQLBATCH_OK, "{}", dest.error().1);
    b
}

#[test]
fn a_backup_copies_page_by_page_and_reports_progress() {
    let (src, dest) = (Conn::memory(), Conn::memory());
    filled(&src);
    dest.exec("CREATE TABLE gone(x)");
    let b = start(&dest, &src);
    // Until the backup is finished, the destination is the backup's alone; the source is not.
    assert_eq!(dest.try_exec("SELECT 1").0, sq::SQLITE_BUSY);
    assert!(dest.error().1.contains("unfinished backup"), "{}", dest.error().1);
    assert_eq!(dest.try_prepare(b"SELECT 1", 0).0, sq::SQLITE_BUSY);
    src.exec("SELECT count(*) FROM t");
    let (mut remaining, mut total) = (0i64, 0i64);
    let mut steps = 0;
    loop {
        let rc = unsafe { sqlbatch_backup_step(b, 50) };
        steps += 1;
        unsafe {
            assert_eq!(sqlbatch_backup_remaining(b, &mut remaining), SQLBATCH_OK);
            assert_eq!(sqlbatch_backup_pagecount(b, &mut total), SQLBATCH_OK);
        }
        if rc == SQLBATCH_DONE {
            break;
        }
        assert_eq!(rc, SQLBATCH_OK);
        assert!(remaining > 0 && remaining < total, "{remaining} of {total}");
    }
    assert_eq!(remaining, 0);
    assert!(total > 100 && steps as i64 >= total / 50, "{total} pages in {steps} steps");
    assert_eq!(unsafe { sqlbatch_backup_finish(b) }, SQLBATCH_OK);
    assert_eq!(count(&dest), count(&src));
    assert_eq!(count(&dest)[0][0], Val::Int(ROWS));
    assert_eq!(dest.try_exec("SELECT * FROM gone").0, sq::SQLITE_ERROR, "replaced by the copy");
}

#[test]
fn a_busy_destination_is_reported_and_the_backup_resumes() {
    let path = temp_path("busy.db");
    let src = Conn::memory();
    filled(&src);
    let dest = Conn::open(&path);
    let other = Conn::open(&path);
    other.exec("CREATE TABLE x(a); BEGIN IMMEDIATE; INSERT INTO x VALUES (1)");
    let b = start(&dest, &src);
    let rc = unsafe { sqlbatch_backup_step(b, -1) };
    assert_eq!(rc & 0xff, sq::SQLITE_BUSY, "{rc}");
    assert_eq!(dest.error().0.code & 0xff, sq::SQLITE_BUSY);
    other.exec("COMMIT");
    assert_eq!(unsafe { sqlbatch_backup_step(b, -1) }, SQLBATCH_DONE);
    assert_eq!(unsafe { sqlbatch_backup_finish(b) }, SQLBATCH_OK);
    assert_eq!(count(&dest), count(&src));
}

#[test]
fn either_connection_may_close_before_the_backup_is_finished() {
    for close_dest in [true, false] {
        let (src, dest) = (Conn::memory(), Conn::memory());
        filled(&src);
        let b = start(&dest, &src);
        assert_eq!(unsafe { sqlbatch_backup_step(b, 10) }, SQLBATCH_OK);
        let (keep, gone) = if close_dest { (src, dest) } else { (dest, src) };
        drop(gone); // sqlbatch_conn_close while the backup exists
        assert_eq!(unsafe { sqlbatch_backup_step(b, 10) }, SQLBATCH_E_CLOSED);
        unsafe { sqlbatch_backup_finish(b) };
        keep.exec("SELECT 1"); // the other connection is unharmed
    }
    assert_eq!(unsafe { sqlbatch_backup_finish(ptr::null_mut()) }, SQLBATCH_OK);
}

#[test]
fn backup_refuses_bad_arguments() {
    let (a, b) = (Conn::memory(), Conn::memory());
    let mut out = ptr::null_mut();
    unsafe {
        assert_eq!(
            sqlbatch_backup_init(a.0, ptr::null(), 0, a.0, ptr::null(), 0, &mut out),
            SQLBATCH_E_INVALID_ARGUMENT
        );
        assert_eq!(
            sqlbatch_backup_init(a.0, ptr::null(), 0, ptr::null_mut(), ptr::null(), 0, &mut out),
            SQLBATCH_E_NULL_PARAMETER
        );
        assert_eq!(
            sqlbatch_backup_init(a.0, ptr::null(), 0, b.0, ptr::null(), 0, ptr::null_mut()),
            SQLBATCH_E_NULL_PARAMETER
        );
        assert_eq!(
            sqlbatch_backup_init(a.0, c"nope".as_ptr(), 4, b.0, ptr::null(), 0, &mut out),
            sq::SQLITE_ERROR
        );
        assert!(out.is_null());
        assert!(a.error().1.contains("nope"), "{}", a.error().1);
        assert_eq!(sqlbatch_backup_step(ptr::null_mut(), 1), SQLBATCH_E_NULL_PARAMETER);
        assert_eq!(sqlbatch_backup_remaining(ptr::null(), ptr::null_mut()), SQLBATCH_E_NULL_PARAMETER);
    }
}

#[test]
fn a_database_goes_to_a_file_and_comes_back() {
    let path = temp_path("copy.db");
    let src = Conn::memory();
    filled(&src);
    let p = path.as_bytes();
    unsafe {
        assert_eq!(
            sqlbatch_conn_backup_to_file(src.0, ptr::null(), 0, p.as_ptr().cast(), p.len()),
            SQLBATCH_OK
        );
    }
    assert_eq!(count(&Conn::open(&path)), count(&src));
    let back = Conn::memory();
    unsafe {
        assert_eq!(
            sqlbatch_conn_restore_from_file(back.0, ptr::null(), 0, p.as_ptr().cast(), p.len()),
            SQLBATCH_OK
        );
    }
    assert_eq!(count(&back), count(&src));
    // Not a database, no such file.
    std::fs::write(&path, vec![7u8; 8192]).unwrap();
    let rc = unsafe { sqlbatch_conn_restore_from_file(back.0, ptr::null(), 0, p.as_ptr().cast(), p.len()) };
    assert_eq!(rc & 0xff, sq::SQLITE_NOTADB, "{rc} {}", back.error().1);
    let missing = b"/no/such/dir/x.db";
    let rc = unsafe {
        sqlbatch_conn_restore_from_file(back.0, ptr::null(), 0, missing.as_ptr().cast(), missing.len())
    };
    assert_eq!(rc & 0xff, sq::SQLITE_CANTOPEN);
    assert_eq!(count(&back), count(&src), "a failed restore changes nothing");
    let _ = std::fs::remove_file(&path);
}

fn serialize(c: &Conn, schema: Option<&str>) -> Result<Vec<u8>, i32> {
    let (mut data, mut len) = (ptr::null_mut(), usize::MAX);
    let (s, n) = schema.map_or((ptr::null(), 0), |s| (s.as_ptr().cast(), s.len()));
    let rc = unsafe { sqlbatch_conn_serialize(c.0, s, n, &mut data, &mut len) };
    if rc != SQLBATCH_OK {
        return Err(rc);
    }
    assert_eq!(data.is_null(), len == 0, "NULL exactly when empty");
    let out = if len == 0 { Vec::new() } else { unsafe { std::slice::from_raw_parts(data, len) }.to_vec() };
    unsafe { sqlbatch_free(data.cast()) };
    Ok(out)
}

fn deserialize(c: &Conn, bytes: &[u8], flags: u32) -> i32 {
    unsafe { sqlbatch_conn_deserialize(c.0, ptr::null(), 0, bytes.as_ptr(), bytes.len(), flags) }
}

#[test]
fn a_database_serializes_to_one_buffer_and_back() {
    let src = Conn::memory();
    filled(&src);
    let bytes = serialize(&src, None).unwrap();
    assert!(bytes.len() > 100 * 4096 && bytes.starts_with(b"SQLite format 3\0"));
    let copy = Conn::memory();
    assert_eq!(deserialize(&copy, &bytes, SQLBATCH_DESERIALIZE_RESIZEABLE), SQLBATCH_OK);
    assert_eq!(count(&copy), count(&src));
    copy.exec("INSERT INTO t(v) SELECT v FROM t"); // resizeable: it may grow
                                                   // Read-only: reads work, writes are refused.
    let ro = Conn::memory();
    assert_eq!(deserialize(&ro, &bytes, SQLBATCH_DESERIALIZE_READONLY), SQLBATCH_OK);
    assert_eq!(ro.try_exec("DELETE FROM t").0 & 0xff, sq::SQLITE_READONLY);
    // An empty database, an unknown schema, bad flags.
    let empty = serialize(&Conn::memory(), None).unwrap();
    assert!(empty.starts_with(b"SQLite format 3\0"), "an empty database is one page");
    assert_eq!(deserialize(&Conn::memory(), &empty, 0), SQLBATCH_OK);
    assert_eq!(deserialize(&Conn::memory(), &[], 0), SQLBATCH_OK, "no bytes: an empty database");
    assert_eq!(serialize(&src, Some("nope")), Err(sq::SQLITE_ERROR));
    assert_eq!(deserialize(&copy, &bytes, 0x100), SQLBATCH_E_INVALID_ARGUMENT);
    assert_eq!(count(&copy)[0][0], Val::Int(2 * ROWS), "refused calls change nothing");
}

#[test]
fn a_corrupt_or_foreign_buffer_gives_errors_not_crashes() {
    let src = Conn::memory();
    filled(&src);
    let good = serialize(&src, None).unwrap();
    let mut rng = Rng(7);
    for round in 0..40 {
        let mut bad = good.clone();
        match round % 4 {
            0 => bad.truncate(rng.below(good.len() as u64) as usize),
            1 => {
                for _ in 0..50 {
                    let i = rng.below(bad.len() as u64) as usize;
                    bad[i] = rng.next() as u8;
                }
            }
            2 => bad = (0..rng.below(20_000)).map(|_| rng.next() as u8).collect(),
            _ => bad[100..].iter_mut().for_each(|b| *b = 0),
        }
        let c = Conn::memory();
        assert_eq!(deserialize(&c, &bad, 0), SQLBATCH_OK);
        // Whatever it holds, reading it ends in rows or an error code.
        let _ = c.try_rows("SELECT count(*), sum(k), sum(length(v)) FROM t", 10);
        let _ = c.try_rows("PRAGMA integrity_check", 100);
        let (rc, _) = c.try_exec("SELECT 1");
        assert!(rc == SQLBATCH_OK || [sq::SQLITE_CORRUPT, sq::SQLITE_NOTADB].contains(&(rc & 0xff)), "{rc}");
        let _ = c.try_exec("INSERT INTO t(v) VALUES ('x')");
    }
}
