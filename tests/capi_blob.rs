//! Incremental blob I/O through the C ABI: ranges, writes, moving between rows, a row that
//! changes under the handle, the batched read, and closing in any order.

mod common;
use common::*;
use libsqlite3_sys as sq;
use std::ptr;

fn setup() -> Conn {
    let c = Conn::memory();
    c.exec(
        "CREATE TABLE b(id INTEGER PRIMARY KEY, data BLOB, note TEXT, n INTEGER);
         INSERT INTO b VALUES (1, zeroblob(300000), 'hello', 5), (2, x'0102030405', 'é', 6), (3, x'', '', 7);
         UPDATE b SET data = randomblob(300000) WHERE id = 1",
    );
    c
}

fn open(c: &Conn, column: &str, rowid: i64, writable: bool) -> Result<*mut sqlbatch_blob, i32> {
    let mut b = ptr::null_mut();
    let rc = unsafe {
        sqlbatch_blob_open(
            c.0,
            ptr::null(),
            0,
            c"b".as_ptr(),
            1,
            column.as_ptr().cast(),
            column.len(),
            rowid,
            writable,
            &mut b,
        )
    };
    if rc == SQLBATCH_OK {
        Ok(b)
    } else {
        assert!(b.is_null());
        Err(rc)
    }
}

fn read(b: *mut sqlbatch_blob, offset: u64, n: usize) -> Result<Vec<u8>, i32> {
    let mut buf = vec![0u8; n];
    match unsafe { sqlbatch_blob_read(b, offset, buf.as_mut_ptr(), n) } {
        SQLBATCH_OK => Ok(buf),
        rc => Err(rc),
    }
}

fn size(b: *mut sqlbatch_blob) -> u64 {
    let mut n = 0;
    assert_eq!(unsafe { sqlbatch_blob_size(b, &mut n) }, SQLBATCH_OK);
    n
}

fn sql_bytes(c: &Conn, sql: &str) -> Vec<u8> {
    match &c.rows(sql)[0][0] {
        Val::Blob(b) | Val::Text(b) => b.clone(),
        other => panic!("{sql}: {other:?}"),
    }
}

#[test]
fn ranges_read_and_write_in_one_call_each() {
    let c = setup();
    let b = open(&c, "data", 1, true).unwrap();
    assert_eq!(size(b), 300_000);
    let whole = sql_bytes(&c, "SELECT data FROM b WHERE id = 1");
    assert_eq!(read(b, 0, 300_000).unwrap(), whole);
    assert_eq!(read(b, 123_456, 1000).unwrap(), whole[123_456..124_456]);
    assert_eq!(read(b, 300_000, 0).unwrap(), Vec::<u8>::new());
    // Outside the value: refused, nothing read.
    assert_eq!(read(b, 299_999, 2), Err(SQLBATCH_E_RANGE));
    assert_eq!(read(b, u64::MAX, 1), Err(SQLBATCH_E_RANGE));
    let patch = vec![0xab; 70_000];
    assert_eq!(unsafe { sqlbatch_blob_write(b, 1000, patch.as_ptr(), patch.len()) }, SQLBATCH_OK);
    assert_eq!(unsafe { sqlbatch_blob_write(b, 299_000, patch.as_ptr(), 1001) }, SQLBATCH_E_RANGE);
    assert_eq!(sql_bytes(&c, "SELECT substr(data, 1001, 70000) FROM b WHERE id = 1"), patch);
    // Another row of the same column.
    assert_eq!(unsafe { sqlbatch_blob_reopen(b, 2) }, SQLBATCH_OK);
    assert_eq!(read(b, 0, 5).unwrap(), vec![1, 2, 3, 4, 5]);
    assert_eq!(unsafe { sqlbatch_blob_reopen(b, 99) }, sq::SQLITE_ERROR);
    assert!(c.error().1.contains("no such rowid"), "{}", c.error().1);
    assert_eq!(unsafe { sqlbatch_blob_reopen(b, 3) }, SQLBATCH_OK);
    assert_eq!(size(b), 0);
    unsafe { sqlbatch_blob_close(b) };
    // TEXT reads as its UTF-8 bytes; a read-only handle refuses writes.
    let t = open(&c, "note", 2, false).unwrap();
    assert_eq!(read(t, 0, 2).unwrap(), "é".as_bytes());
    assert_eq!(unsafe { sqlbatch_blob_write(t, 0, b"x".as_ptr(), 1) } & 0xff, sq::SQLITE_READONLY);
    unsafe { sqlbatch_blob_close(t) };
}

#[test]
fn opening_what_is_not_a_value_is_an_error() {
    let c = setup();
    assert_eq!(open(&c, "nope", 1, false), Err(sq::SQLITE_ERROR));
    assert_eq!(open(&c, "data", 42, false), Err(sq::SQLITE_ERROR));
    assert_eq!(open(&c, "n", 1, false), Err(sq::SQLITE_ERROR), "an INTEGER is not a blob");
    assert!(c.error().1.contains("integer"), "{}", c.error().1);
    let mut b = ptr::null_mut();
    unsafe {
        assert_eq!(
            sqlbatch_blob_open(c.0, ptr::null(), 0, ptr::null(), 0, c"data".as_ptr(), 4, 1, false, &mut b),
            SQLBATCH_E_NULL_PARAMETER
        );
        assert_eq!(
            sqlbatch_blob_open(
                c.0,
                ptr::null(),
                0,
                c"b".as_ptr(),
                1,
                b"d\0x".as_ptr().cast(),
                2,
                1,
                false,
                &mut b
            ),
            SQLBATCH_E_INVALID_ARGUMENT
        );
        assert_eq!(sqlbatch_blob_read(ptr::null_mut(), 0, ptr::null_mut(), 0), SQLBATCH_E_NULL_PARAMETER);
        sqlbatch_blob_close(ptr::null_mut());
    }
}

#[test]
fn a_row_changed_under_the_handle_aborts_until_reopened() {
    let c = setup();
    let b = open(&c, "data", 2, false).unwrap();
    c.exec("UPDATE b SET data = x'0909' WHERE id = 2");
    assert_eq!(read(b, 0, 1), Err(sq::SQLITE_ABORT));
    // Once dead, every read and write says so (SQLite then reads its size as 0).
    assert_eq!(read(b, 0, 1), Err(sq::SQLITE_ABORT));
    assert_eq!(unsafe { sqlbatch_blob_write(b, 0, b"x".as_ptr(), 1) }, sq::SQLITE_ABORT);
    assert_eq!(unsafe { sqlbatch_blob_reopen(b, 2) }, SQLBATCH_OK);
    assert_eq!(read(b, 0, 2).unwrap(), vec![9, 9]);
    c.exec("DELETE FROM b WHERE id = 2");
    assert_eq!(read(b, 0, 1), Err(sq::SQLITE_ABORT));
    // SQLite's handle is dead now and no longer keeps the connection alive: closing the
    // connection first must still leave the blob handle safe to close (the lifecycle fuzz
    // target found a use-after-free here).
    drop(c);
    assert_eq!(read(b, 0, 1), Err(SQLBATCH_E_CLOSED));
    unsafe { sqlbatch_blob_close(b) };
}

#[test]
fn the_connection_may_close_first() {
    let c = setup();
    let b = open(&c, "data", 1, false).unwrap();
    drop(c);
    assert_eq!(read(b, 0, 1), Err(SQLBATCH_E_CLOSED));
    let mut n = 0;
    assert_eq!(unsafe { sqlbatch_blob_size(b, &mut n) }, SQLBATCH_E_CLOSED);
    unsafe { sqlbatch_blob_close(b) };
}

#[test]
fn many_ranges_of_many_rows_in_one_call() {
    let c = Conn::memory();
    c.exec(
        "CREATE TABLE b(id INTEGER PRIMARY KEY, data BLOB);
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
         INSERT INTO b SELECT i, randomblob(i % 97) FROM n",
    );
    let b = open(&c, "data", 1, false).unwrap();
    let mut ranges: Vec<sqlbatch_blob_range> = (1..=1000)
        .rev()
        .map(|id| sqlbatch_blob_range { rowid: id, offset: 0, len: SQLBATCH_BLOB_TO_END, at: 0 })
        .collect();
    ranges.push(sqlbatch_blob_range { rowid: 96, offset: 90, len: 5, at: 0 });
    let mut buf = vec![0u8; 1 << 20];
    let mut done = 0;
    let rc = unsafe {
        sqlbatch_blob_read_many(b, ranges.as_mut_ptr(), ranges.len(), buf.as_mut_ptr(), buf.len(), &mut done)
    };
    assert_eq!((rc, done), (SQLBATCH_OK, ranges.len()));
    let want: Vec<Vec<u8>> = c
        .rows("SELECT data FROM b ORDER BY id DESC")
        .into_iter()
        .map(|r| match &r[0] {
            Val::Blob(b) => b.clone(),
            v => panic!("{v:?}"),
        })
        .collect();
    let mut at = 0;
    for (r, w) in ranges.iter().zip(&want) {
        assert_eq!(r.at, at);
        assert_eq!(&buf[r.at as usize..(r.at + r.len) as usize], &w[..]);
        at += r.len;
    }
    let last = ranges.last().unwrap();
    assert_eq!(&buf[last.at as usize..][..5], &want[1000 - 96][90..95]);

    // A buffer too small: the ranges before are complete, the one that did not fit says how
    // much it needs, and reading on from it works.
    let mut ranges: Vec<_> = (90..96)
        .map(|id| sqlbatch_blob_range { rowid: id, offset: 0, len: SQLBATCH_BLOB_TO_END, at: 0 })
        .collect();
    let mut small = vec![0u8; 90 + 91 + 10];
    let rc = unsafe {
        sqlbatch_blob_read_many(
            b,
            ranges.as_mut_ptr(),
            ranges.len(),
            small.as_mut_ptr(),
            small.len(),
            &mut done,
        )
    };
    assert_eq!((rc, done), (SQLBATCH_E_BUFFER_TOO_SMALL, 2));
    assert_eq!(ranges[2].len, 92);
    let rest = &mut ranges[2..];
    let rc = unsafe {
        sqlbatch_blob_read_many(b, rest.as_mut_ptr(), rest.len(), buf.as_mut_ptr(), buf.len(), &mut done)
    };
    assert_eq!((rc, done), (SQLBATCH_OK, 4));
    // A missing row stops there; the handle then reopens on a good one.
    let mut bad = [
        sqlbatch_blob_range { rowid: 5, offset: 0, len: 1, at: 0 },
        sqlbatch_blob_range { rowid: 5000, offset: 0, len: 1, at: 0 },
    ];
    let rc =
        unsafe { sqlbatch_blob_read_many(b, bad.as_mut_ptr(), 2, buf.as_mut_ptr(), buf.len(), &mut done) };
    assert_eq!((rc, done), (sq::SQLITE_ERROR, 1));
    let rc =
        unsafe { sqlbatch_blob_read_many(b, bad.as_mut_ptr(), 1, buf.as_mut_ptr(), buf.len(), &mut done) };
    assert_eq!((rc, done), (SQLBATCH_OK, 1));
    // Offsets past the end, nothing to do.
    let mut past = [sqlbatch_blob_range { rowid: 5, offset: 6, len: SQLBATCH_BLOB_TO_END, at: 0 }];
    let rc =
        unsafe { sqlbatch_blob_read_many(b, past.as_mut_ptr(), 1, buf.as_mut_ptr(), buf.len(), &mut done) };
    assert_eq!((rc, done), (SQLBATCH_E_RANGE, 0));
    let rc = unsafe { sqlbatch_blob_read_many(b, ptr::null_mut(), 0, ptr::null_mut(), 0, &mut done) };
    assert_eq!((rc, done), (SQLBATCH_OK, 0));
    unsafe { sqlbatch_blob_close(b) };
}
