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

// The test kit the tests and fuzz targets use: `Raw` (a plain SQLite connection, opened with
// the same flags as sqlbatch's), `Conn` and `Stmt` (the ABI, closed and finalized on drop).
#[path = "../../tests/common/kit.rs"]
mod kit;
use kit::{cells, Conn, Raw, Stmt};

/// Rows per fetch and the byte bound used by the sqlbatch side.
const BATCH_ROWS: usize = 256;
const BATCH_BYTES: usize = 256 << 10;

const NARROW_ROWS: usize = 10_000;
const WIDE_ROWS: usize = 200_000;
const SCRIPT_STATEMENTS: usize = 1_000;
const BULK_ROWS: usize = 1_000_000;

/// Fetches `stmt` to the end, calling `on_batch` with each batch.
fn batch_each(s: &Stmt, mut on_batch: impl FnMut(&sqlbatch_batch)) {
    let rc = s.each_batch(BATCH_ROWS, BATCH_BYTES, |b| {
        on_batch(b);
        true
    });
    assert_eq!(rc, SQLBATCH_DONE, "fetch: {rc}");
}

/// The runner's per-value checksum for TEXT: its number of code points.
#[inline(always)]
fn code_points(b: &[u8]) -> i64 {
    b.iter().filter(|&&x| x & 0xC0 != 0x80).count() as i64
}

// ---- data ----

fn temp_db(name: &str) -> String {
    let p = std::env::temp_dir().join(format!("sqlbatch-bench-{name}-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p.to_str().unwrap().to_owned()
}

fn narrow_db() -> String {
    let path = temp_db("narrow");
    let db = Raw::open(&path);
    let sql = format!(
        "CREATE TABLE testdata(id INTEGER PRIMARY KEY, str TEXT, t TEXT);
         WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < {NARROW_ROWS})
         INSERT INTO testdata SELECT i, 'row ' || i, 't' || (i * 7 % 1000) FROM k;"
    );
    db.exec(&sql);
    path
}

/// 200,000 rows: id + 3 INTEGER, 2 REAL, 3 TEXT (5-40 bytes, some non-ASCII), 1 BLOB (0-64
/// bytes), about 10% NULLs outside id.
fn wide_db() -> String {
    let path = temp_db("wide");
    let db = Raw::open(&path);
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
         FROM k;"
    );
    db.exec(&sql);
    path
}

// ---- groups ----

/// The native loop's prepare, as a C programmer writes it (NUL-terminated SQL, length -1).
fn native_prepare(db: &Raw, sql: &CStr) -> *mut sq::sqlite3_stmt {
    let mut s = ptr::null_mut();
    assert_eq!(
        unsafe { sq::sqlite3_prepare_v2(db.0, sql.as_ptr(), -1, &mut s, ptr::null_mut()) },
        sq::SQLITE_OK
    );
    s
}

fn fetch_narrow(c: &mut Criterion) {
    let path = narrow_db();
    let sql = "SELECT id FROM testdata";
    let csql = c"SELECT id FROM testdata";
    let want = (NARROW_ROWS * (NARROW_ROWS + 1) / 2) as i64;
    let mut g = c.benchmark_group("fetch_narrow");
    g.throughput(Throughput::Elements(NARROW_ROWS as u64));

    let db = Raw::open(&path);
    g.bench_function("native_c", |b| {
        b.iter(|| unsafe {
            let s = native_prepare(&db, csql);
            let mut sum = 0i64;
            while sq::sqlite3_step(s) == sq::SQLITE_ROW {
                sum += sq::sqlite3_column_int64(s, 0);
            }
            sq::sqlite3_finalize(s);
            assert_eq!(sum, want);
            black_box(sum)
        })
    });

    let conn = Conn::open(&path);
    g.bench_function("sqlbatch", |b| {
        b.iter(|| {
            let s = conn.prepare(sql);
            let mut sum = 0i64;
            batch_each(&s, |batch| {
                for v in cells(batch) {
                    sum += v.bits as i64;
                }
            });
            s.finalize();
            assert_eq!(sum, want);
            black_box(sum)
        })
    });
    g.finish();
    drop((db, conn));
    let _ = std::fs::remove_file(&path);
}

fn fetch_wide(c: &mut Criterion) {
    let path = wide_db();
    let sql = "SELECT id, i1, i2, i3, r1, r2, t1, t2, t3, b FROM wide";
    let csql = c"SELECT id, i1, i2, i3, r1, r2, t1, t2, t3, b FROM wide";
    let mut g = c.benchmark_group("fetch_wide");
    g.throughput(Throughput::Elements(WIDE_ROWS as u64));
    g.sample_size(20);

    let db = Raw::open(&path);
    let native = || unsafe {
        let s = native_prepare(&db, csql);
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

    let conn = Conn::open(&path);
    g.bench_function("sqlbatch", |b| {
        b.iter(|| {
            let s = conn.prepare(sql);
            let mut sum = 0i64;
            batch_each(&s, |batch| {
                for v in cells(batch) {
                    sum = sum.wrapping_add(match v.kind {
                        SQLBATCH_INTEGER => v.bits as i64,
                        SQLBATCH_FLOAT => (f64::from_bits(v.bits) * 1000.0) as i64,
                        // (A TEXT cell of length 0 needs no bytes: data may be NULL.)
                        SQLBATCH_TEXT if v.len > 0 => code_points(unsafe {
                            std::slice::from_raw_parts(batch.data.add(v.bits as usize), v.len as usize)
                        }),
                        SQLBATCH_TEXT => 0,
                        SQLBATCH_BLOB => v.len as i64,
                        _ => 1,
                    });
                }
            });
            s.finalize();
            assert_eq!(sum, want);
            black_box(sum)
        })
    });
    g.finish();
    drop((db, conn));
    let _ = std::fs::remove_file(&path);
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
                let db = Raw::memory();
                db.exec("CREATE TABLE script_t(a INTEGER, b TEXT)");
                db
            },
            |db| {
                let rc = unsafe {
                    sq::sqlite3_exec(db.0, cscript.as_ptr(), None, ptr::null_mut(), ptr::null_mut())
                };
                assert_eq!(rc, sq::SQLITE_OK);
                db
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("sqlbatch", |b| {
        b.iter_batched(
            || {
                let c = Conn::memory();
                c.exec("CREATE TABLE script_t(a INTEGER, b TEXT)");
                c
            },
            |c| {
                let (rc, r) = c.try_exec(&script);
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
                let db = Raw::memory();
                db.exec("CREATE TABLE bulk(a INTEGER, b REAL, c TEXT)");
                db
            },
            |db| unsafe {
                db.exec("BEGIN");
                let s = native_prepare(&db, c"INSERT INTO bulk VALUES (?, ?, ?)");
                for (i, t) in texts.iter().enumerate() {
                    sq::sqlite3_bind_int64(s, 1, i as i64);
                    sq::sqlite3_bind_double(s, 2, i as f64 * 0.25);
                    sq::sqlite3_bind_text(s, 3, t.as_ptr().cast(), t.len() as c_int, sq::SQLITE_STATIC());
                    assert_eq!(sq::sqlite3_step(s), sq::SQLITE_DONE);
                    sq::sqlite3_reset(s);
                }
                sq::sqlite3_finalize(s);
                db.exec("COMMIT");
                db
            },
            BatchSize::PerIteration,
        )
    });

    // The parameter cells are built in the timed part, chunk by chunk, from the same strings
    // the native loop binds (TEXT cells hold their addresses: SQLBATCH_PARAMS_ADDRESSES), as
    // a caller has to.
    const CHUNK: usize = 4096;
    let mut cells: Vec<sqlbatch_value> = Vec::with_capacity(CHUNK * 3);
    g.bench_function("sqlbatch", |b| {
        b.iter_batched(
            || {
                let c = Conn::memory();
                c.exec("CREATE TABLE bulk(a INTEGER, b REAL, c TEXT)");
                c
            },
            |c| {
                c.exec("BEGIN");
                let s = c.prepare("INSERT INTO bulk VALUES (?, ?, ?)");
                for (k, chunk) in texts.chunks(CHUNK).enumerate() {
                    cells.clear();
                    for (j, t) in chunk.iter().enumerate() {
                        let i = k * CHUNK + j;
                        cells.push(sqlbatch_value::int(i as i64));
                        cells.push(sqlbatch_value::float(i as f64 * 0.25));
                        cells.push(sqlbatch_value::bytes(SQLBATCH_TEXT, t.as_ptr() as u64, t.len() as u32));
                    }
                    let rows = sqlbatch_params {
                        values: cells.as_ptr(),
                        names: ptr::null(),
                        n_values: cells.len(),
                        data: ptr::null(),
                        data_len: 0,
                        flags: SQLBATCH_PARAMS_ADDRESSES,
                    };
                    let (rc, r) = s.execute_many_raw(Some(&rows), chunk.len());
                    assert_eq!((rc, r.rows), (SQLBATCH_OK, chunk.len() as u64));
                }
                s.finalize();
                c.exec("COMMIT");
                c
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

criterion_group!(benches, fetch_narrow, fetch_wide, exec_script, bulk_insert);
criterion_main!(benches);
