//! Criterion benchmarks of the core: each group compares `native_c`, the loop a C programmer
//! writes today (`sqlite3_step` + `sqlite3_column_*`, `sqlite3_exec`, a prepared insert loop;
//! here in Rust calling libsqlite3-sys directly, over the same bundled SQLite build and the same
//! open flags), with `sqlbatch`, the same work through the exported C ABI.
//!
//! Run: `cargo bench --bench core` (add `-- fetch_narrow` to pick a group). Throughput is in
//! rows (statements for exec_script); compare the two functions of a group as a ratio.

use std::ffi::{c_int, CStr};
use std::hint::black_box;
use std::ptr;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use libsqlite3_sys as sq;
use sqlbatch::*;

/// Rows per fetch and the byte bound used by the sqlbatch side.
const BATCH_ROWS: usize = 256;
const BATCH_BYTES: usize = 256 << 10;

const NARROW_ROWS: usize = 10_000;
const WIDE_ROWS: usize = 200_000;
const SCRIPT_STATEMENTS: usize = 1_000;
const BULK_ROWS: usize = 1_000_000;

const OPEN_FLAGS: c_int =
    sq::SQLITE_OPEN_READWRITE | sq::SQLITE_OPEN_CREATE | sq::SQLITE_OPEN_NOMUTEX | sq::SQLITE_OPEN_EXRESCODE;

// ---- the two ways in ----

fn native_open(path: &CStr) -> *mut sq::sqlite3 {
    let mut db = ptr::null_mut();
    assert_eq!(
        unsafe { sq::sqlite3_open_v2(path.as_ptr(), &mut db, OPEN_FLAGS, ptr::null()) },
        sq::SQLITE_OK
    );
    db
}

fn native_exec(db: *mut sq::sqlite3, sql: &CStr) {
    let rc = unsafe { sq::sqlite3_exec(db, sql.as_ptr(), None, ptr::null_mut(), ptr::null_mut()) };
    assert_eq!(rc, sq::SQLITE_OK);
}

fn native_prepare(db: *mut sq::sqlite3, sql: &CStr) -> *mut sq::sqlite3_stmt {
    let mut s = ptr::null_mut();
    assert_eq!(
        unsafe { sq::sqlite3_prepare_v2(db, sql.as_ptr(), -1, &mut s, ptr::null_mut()) },
        sq::SQLITE_OK
    );
    s
}

fn batch_open(path: &CStr) -> *mut sqlbatch_conn {
    let mut c = ptr::null_mut();
    let p = path.to_bytes();
    assert_eq!(unsafe { sqlbatch_conn_open(p.as_ptr().cast(), p.len(), 0, &mut c) }, SQLBATCH_OK);
    c
}

fn batch_prepare(c: *mut sqlbatch_conn, sql: &str) -> *mut sqlbatch_stmt {
    let mut s = ptr::null_mut();
    let rc = unsafe { sqlbatch_stmt_prepare(c, sql.as_ptr().cast(), sql.len(), 0, &mut s, ptr::null_mut()) };
    assert_eq!(rc, SQLBATCH_OK);
    s
}

/// Fetches `stmt` to the end, calling `row` with each batch and row index.
fn batch_each(s: *mut sqlbatch_stmt, mut on_batch: impl FnMut(&sqlbatch_batch)) {
    let mut b: sqlbatch_batch = unsafe { std::mem::zeroed() };
    loop {
        let rc = unsafe { sqlbatch_stmt_fetch(s, BATCH_ROWS, BATCH_BYTES, &mut b) };
        assert!(rc == SQLBATCH_ROW || rc == SQLBATCH_DONE, "fetch: {rc}");
        on_batch(&b);
        if rc == SQLBATCH_DONE {
            return;
        }
    }
}

/// The runner's per-value checksum for TEXT: its number of code points.
#[inline(always)]
fn code_points(b: &[u8]) -> i64 {
    b.iter().filter(|&&x| x & 0xC0 != 0x80).count() as i64
}

/// Connections returned from timed closures, closed by criterion outside the timing.
struct NativeDb(*mut sq::sqlite3);
impl Drop for NativeDb {
    fn drop(&mut self) {
        unsafe { sq::sqlite3_close(self.0) };
    }
}
struct BatchConn(*mut sqlbatch_conn);
impl Drop for BatchConn {
    fn drop(&mut self) {
        unsafe { sqlbatch_conn_close(self.0) };
    }
}

// ---- data ----

fn temp_db(name: &str) -> std::ffi::CString {
    let p = std::env::temp_dir().join(format!("sqlbatch-bench-{name}-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&p);
    std::ffi::CString::new(p.to_str().unwrap()).unwrap()
}

fn narrow_db() -> std::ffi::CString {
    let path = temp_db("narrow");
    let db = native_open(&path);
    let sql = format!(
        "CREATE TABLE testdata(id INTEGER PRIMARY KEY, str TEXT, t TEXT);
         WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < {NARROW_ROWS})
         INSERT INTO testdata SELECT i, 'row ' || i, 't' || (i * 7 % 1000) FROM k;\0"
    );
    native_exec(db, CStr::from_bytes_with_nul(sql.as_bytes()).unwrap());
    unsafe { sq::sqlite3_close(db) };
    path
}

/// 200,000 rows: id + 3 INTEGER, 2 REAL, 3 TEXT (5-40 bytes, some non-ASCII), 1 BLOB (0-64
/// bytes), about 10% NULLs outside id.
fn wide_db() -> std::ffi::CString {
    let path = temp_db("wide");
    let db = native_open(&path);
    let sql = format!(
        "CREATE TABLE wide(id INTEGER PRIMARY KEY, i1 INTEGER, i2 INTEGER, i3 INTEGER, r1 REAL, r2 REAL,
                           t1 TEXT, t2 TEXT, t3 TEXT, b BLOB);
         WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < {WIDE_ROWS})
         INSERT INTO wide SELECT i,
           iif(abs(random()) % 10 = 0, NULL, abs(random()) % 1000),
           iif(abs(random()) % 10 = 0, NULL, random() >> 24),
           iif(abs(random()) % 10 = 0, NULL, abs(random())),
           iif(abs(random()) % 10 = 0, NULL, (random() >> 33) / 1024.0),
           iif(abs(random()) % 10 = 0, NULL, (abs(random()) % 1000000) / 7.0),
           iif(abs(random()) % 10 = 0, NULL, substr('café naïve grüße żółw 日本語 ελληνικά alpha beta', 1 + abs(random()) % 10, 5 + abs(random()) % 20)),
           iif(abs(random()) % 10 = 0, NULL, printf('%.*c', 5 + abs(random()) % 36, 'x')),
           iif(abs(random()) % 10 = 0, NULL, 'row ' || i || ' of the wide table'),
           iif(abs(random()) % 10 = 0, NULL, randomblob(abs(random()) % 65))
         FROM k;\0"
    );
    native_exec(db, CStr::from_bytes_with_nul(sql.as_bytes()).unwrap());
    unsafe { sq::sqlite3_close(db) };
    path
}

// ---- groups ----

fn fetch_narrow(c: &mut Criterion) {
    let path = narrow_db();
    let sql = "SELECT id FROM testdata";
    let csql = c"SELECT id FROM testdata";
    let want = (NARROW_ROWS * (NARROW_ROWS + 1) / 2) as i64;
    let mut g = c.benchmark_group("fetch_narrow");
    g.throughput(Throughput::Elements(NARROW_ROWS as u64));

    let db = native_open(&path);
    g.bench_function("native_c", |b| {
        b.iter(|| unsafe {
            let s = native_prepare(db, csql);
            let mut sum = 0i64;
            while sq::sqlite3_step(s) == sq::SQLITE_ROW {
                sum += sq::sqlite3_column_int64(s, 0);
            }
            sq::sqlite3_finalize(s);
            assert_eq!(sum, want);
            black_box(sum)
        })
    });

    let conn = batch_open(&path);
    g.bench_function("sqlbatch", |b| {
        b.iter(|| unsafe {
            let s = batch_prepare(conn, sql);
            let mut sum = 0i64;
            batch_each(s, |batch| {
                let cells = std::slice::from_raw_parts(batch.cells, batch.n_rows);
                for v in cells {
                    sum += v.bits as i64;
                }
            });
            sqlbatch_stmt_finalize(s);
            assert_eq!(sum, want);
            black_box(sum)
        })
    });
    g.finish();
    unsafe {
        sq::sqlite3_close(db);
        sqlbatch_conn_close(conn);
    }
    let _ = std::fs::remove_file(path.to_str().unwrap());
}

fn fetch_wide(c: &mut Criterion) {
    let path = wide_db();
    let sql = "SELECT id, i1, i2, i3, r1, r2, t1, t2, t3, b FROM wide";
    let csql = c"SELECT id, i1, i2, i3, r1, r2, t1, t2, t3, b FROM wide";
    let mut g = c.benchmark_group("fetch_wide");
    g.throughput(Throughput::Elements(WIDE_ROWS as u64));
    g.sample_size(20);

    let db = native_open(&path);
    let native = || unsafe {
        let s = native_prepare(db, csql);
        let mut sum = 0i64;
        while sq::sqlite3_step(s) == sq::SQLITE_ROW {
            for col in 0..10 {
                sum = sum.wrapping_add(match sq::sqlite3_column_type(s, col) {
                    sq::SQLITE_INTEGER => sq::sqlite3_column_int64(s, col),
                    sq::SQLITE_FLOAT => (sq::sqlite3_column_double(s, col) * 1000.0) as i64,
                    sq::SQLITE_TEXT => {
                        let p = sq::sqlite3_column_text(s, col);
                        let n = sq::sqlite3_column_bytes(s, col) as usize;
                        code_points(std::slice::from_raw_parts(p, n))
                    }
                    sq::SQLITE_BLOB => sq::sqlite3_column_bytes(s, col) as i64,
                    _ => 1,
                });
            }
        }
        sq::sqlite3_finalize(s);
        sum
    };
    let want = native();
    g.bench_function("native_c", |b| b.iter(|| assert_eq!(black_box(native()), want)));

    let conn = batch_open(&path);
    g.bench_function("sqlbatch", |b| {
        b.iter(|| unsafe {
            let s = batch_prepare(conn, sql);
            let mut sum = 0i64;
            batch_each(s, |batch| {
                let cells = std::slice::from_raw_parts(batch.cells, batch.n_rows * batch.n_cols);
                for v in cells {
                    sum = sum.wrapping_add(match v.kind {
                        SQLBATCH_INTEGER => v.bits as i64,
                        SQLBATCH_FLOAT => (f64::from_bits(v.bits) * 1000.0) as i64,
                        SQLBATCH_TEXT => code_points(std::slice::from_raw_parts(
                            batch.data.add(v.bits as usize),
                            v.len as usize,
                        )),
                        SQLBATCH_BLOB => v.len as i64,
                        _ => 1,
                    });
                }
            });
            sqlbatch_stmt_finalize(s);
            assert_eq!(sum, want);
            black_box(sum)
        })
    });
    g.finish();
    unsafe {
        sq::sqlite3_close(db);
        sqlbatch_conn_close(conn);
    }
    let _ = std::fs::remove_file(path.to_str().unwrap());
}

fn exec_script(c: &mut Criterion) {
    let mut script = String::new();
    for k in 1..=SCRIPT_STATEMENTS {
        script.push_str(&format!("INSERT INTO script_t(a, b) VALUES ({k}, 'statement {k}');\n"));
    }
    let cscript = std::ffi::CString::new(script.clone()).unwrap();
    let mut g = c.benchmark_group("exec_script");
    g.throughput(Throughput::Elements(SCRIPT_STATEMENTS as u64));

    g.bench_function("native_c", |b| {
        b.iter_batched(
            || {
                let db = native_open(c":memory:");
                native_exec(db, c"CREATE TABLE script_t(a INTEGER, b TEXT)");
                NativeDb(db)
            },
            |db| {
                native_exec(db.0, &cscript);
                db
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("sqlbatch", |b| {
        b.iter_batched(
            || {
                let c = batch_open(c":memory:");
                let create = "CREATE TABLE script_t(a INTEGER, b TEXT)";
                let rc = unsafe {
                    sqlbatch_conn_exec(
                        c,
                        create.as_ptr().cast(),
                        create.len(),
                        ptr::null(),
                        ptr::null(),
                        0,
                        ptr::null(),
                        0,
                        ptr::null_mut(),
                    )
                };
                assert_eq!(rc, SQLBATCH_OK);
                BatchConn(c)
            },
            |c| {
                let mut r = sqlbatch_exec_result::default();
                let rc = unsafe {
                    sqlbatch_conn_exec(
                        c.0,
                        script.as_ptr().cast(),
                        script.len(),
                        ptr::null(),
                        ptr::null(),
                        0,
                        ptr::null(),
                        0,
                        &mut r,
                    )
                };
                assert_eq!((rc, r.statements), (SQLBATCH_OK, SCRIPT_STATEMENTS as u64));
                c
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

fn bulk_insert(c: &mut Criterion) {
    let texts: Vec<String> = (0..BULK_ROWS).map(|i| format!("row-{i}")).collect();
    let mut g = c.benchmark_group("bulk_insert");
    g.throughput(Throughput::Elements(BULK_ROWS as u64));
    g.sample_size(10);

    g.bench_function("native_c", |b| {
        b.iter_batched(
            || {
                let db = native_open(c":memory:");
                native_exec(db, c"CREATE TABLE bulk(a INTEGER, b REAL, c TEXT)");
                NativeDb(db)
            },
            |db| unsafe {
                native_exec(db.0, c"BEGIN");
                let s = native_prepare(db.0, c"INSERT INTO bulk VALUES (?, ?, ?)");
                for (i, t) in texts.iter().enumerate() {
                    sq::sqlite3_bind_int64(s, 1, i as i64);
                    sq::sqlite3_bind_double(s, 2, i as f64 * 0.25);
                    sq::sqlite3_bind_text(s, 3, t.as_ptr().cast(), t.len() as c_int, sq::SQLITE_STATIC());
                    assert_eq!(sq::sqlite3_step(s), sq::SQLITE_DONE);
                    sq::sqlite3_reset(s);
                }
                sq::sqlite3_finalize(s);
                native_exec(db.0, c"COMMIT");
                db
            },
            BatchSize::PerIteration,
        )
    });

    // The parameter cells are built in the timed part, chunk by chunk, from the same strings
    // the native loop binds (TEXT cells point at them: `data` is NULL), as a caller has to.
    const CHUNK: usize = 4096;
    let mut cells: Vec<sqlbatch_value> = Vec::with_capacity(CHUNK * 3);
    let exec = |c, sql: &str| {
        let rc = unsafe {
            sqlbatch_conn_exec(
                c,
                sql.as_ptr().cast(),
                sql.len(),
                ptr::null(),
                ptr::null(),
                0,
                ptr::null(),
                0,
                ptr::null_mut(),
            )
        };
        assert_eq!(rc, SQLBATCH_OK);
    };
    g.bench_function("sqlbatch", |b| {
        b.iter_batched(
            || {
                let c = batch_open(c":memory:");
                exec(c, "CREATE TABLE bulk(a INTEGER, b REAL, c TEXT)");
                BatchConn(c)
            },
            |c| unsafe {
                exec(c.0, "BEGIN");
                let s = batch_prepare(c.0, "INSERT INTO bulk VALUES (?, ?, ?)");
                for (k, chunk) in texts.chunks(CHUNK).enumerate() {
                    cells.clear();
                    for (j, t) in chunk.iter().enumerate() {
                        let i = k * CHUNK + j;
                        cells.push(sqlbatch_value {
                            bits: i as u64,
                            kind: SQLBATCH_INTEGER,
                            ..Default::default()
                        });
                        cells.push(sqlbatch_value {
                            bits: (i as f64 * 0.25).to_bits(),
                            kind: SQLBATCH_FLOAT,
                            ..Default::default()
                        });
                        cells.push(sqlbatch_value {
                            bits: t.as_ptr() as u64,
                            len: t.len() as u32,
                            kind: SQLBATCH_TEXT,
                            _pad: [0; 3],
                        });
                    }
                    let mut r = sqlbatch_write_result::default();
                    let rc =
                        sqlbatch_stmt_execute_many(s, cells.as_ptr(), chunk.len(), 3, ptr::null(), 0, &mut r);
                    assert_eq!((rc, r.rows), (SQLBATCH_OK, chunk.len() as u64));
                }
                sqlbatch_stmt_finalize(s);
                exec(c.0, "COMMIT");
                c
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

criterion_group!(benches, fetch_narrow, fetch_wide, exec_script, bulk_insert);
criterion_main!(benches);
