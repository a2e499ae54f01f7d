//! Differential tests: random schemas and values read through the batched fetch (many batch
//! sizes and byte bounds, the statement's arena and caller buffers, direct reads on and off)
//! must equal a plain per-column `sqlite3_column_*` read of the same rows; bulk insert must store
//! what a per-row insert loop stores; script exec must do what `sqlite3_exec` does.
//!
//! Values cover every storage class, i64 extremes, NaN, ±inf, -0.0, random unicode, embedded
//! NUL, empty and large text and blobs, and NULL, with types mixed within each column (the
//! tests assert that they are). Scripts with random parameters (positional and named) run
//! against a per-statement loop over plain SQLite, and bound parameters read back through
//! the batched fetch against `sqlite3_column_*`.
//!
//! Deterministic (seeded); one test per binary section because direct reads are switched
//! process-wide. Set SQLBATCH_DIFF_SCALE=10 for a longer run.

mod common;
use common::*;

use libsqlite3_sys as sq;
use std::ffi::{c_int, CStr, CString};
use std::ptr;

fn scale() -> usize {
    std::env::var("SQLBATCH_DIFF_SCALE").ok().and_then(|s| s.parse().ok()).unwrap_or(1)
}

fn temp_db(name: &str) -> String {
    let p = std::env::temp_dir().join(format!("sqlbatch-diff-{}-{name}.db", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p.to_str().unwrap().to_owned()
}

/// Fetches everything through `sqlbatch_stmt_fetch_into`, growing the buffer when told to.
fn rows_into(c: &Conn, sql: &str, max_rows: usize, mut buf_len: usize) -> Vec<Vec<Val>> {
    let s = c.prepare(sql);
    let mut out = Vec::new();
    loop {
        let mut buf = vec![0u8; buf_len];
        let mut b: sqlbatch_batch = unsafe { std::mem::zeroed() };
        let rc = unsafe { sqlbatch_stmt_fetch_into(s.0, max_rows, buf.as_mut_ptr(), buf.len(), &mut b) };
        if rc == SQLBATCH_E_BUFFER_TOO_SMALL {
            assert!(b.data_len > buf_len);
            buf_len = b.data_len;
            continue;
        }
        assert!(rc == SQLBATCH_ROW || rc == SQLBATCH_DONE, "fetch_into: {rc}");
        out.extend(batch_rows_in(&b, buf.as_ptr(), buf.len()));
        if rc == SQLBATCH_DONE {
            return out;
        }
    }
}

const DECLS: [&str; 7] = ["INTEGER", "REAL", "TEXT", "BLOB", "NUMERIC", "ANY", ""];

#[test]
fn fetch_bulk_insert_and_script_exec_agree_with_plain_sqlite() {
    let mut r = Rng(0x5eed_1234_abcd_0001);
    let mut cells = 0usize;
    let mut round = 0;
    let (mut mixed_columns, mut columns) = (0usize, 0usize);
    let mut kinds = [0usize; 5];
    while cells < 1_000_000 * scale() {
        round += 1;
        let path = temp_db(&format!("fetch{round}"));
        let native = Raw::open(&path);
        let ncols = 1 + r.below(12) as usize;
        let nrows = 1 + r.below(12_000) as usize;
        let cols: Vec<String> = (0..ncols).map(|i| format!("c{i} {}", DECLS[r.below(7) as usize])).collect();
        native.exec(&format!("CREATE TABLE t({}); BEGIN", cols.join(", ")));
        // Rows mostly of small values, with the odd large one.
        let rows: Vec<Vec<Val>> =
            (0..nrows).map(|_| (0..ncols).map(|_| random_value(&mut r)).collect()).collect();
        native.insert("t", &rows);
        native.exec("COMMIT");
        let want = native.rows("SELECT * FROM t ORDER BY rowid");
        cells += nrows * ncols;
        for c in 0..ncols {
            let mut seen = [false; 5];
            for row in &want {
                let k = row[c].class();
                seen[k] = true;
                kinds[k] += 1;
            }
            columns += 1;
            mixed_columns += (seen.iter().filter(|&&x| x).count() > 1) as usize;
        }

        // The batched fetch, with batch sizes and bounds from tiny to unbounded.
        let conn = Conn::open(&path);
        let sql = "SELECT * FROM t ORDER BY rowid";
        for direct in [true, false] {
            sqlbatch::mem::set_direct_reads(direct);
            for (max_rows, max_bytes) in [
                (1, usize::MAX),
                (1 + r.below(700) as usize, 1 + r.below(1 << 16) as usize),
                (usize::MAX, 1 << 20),
            ] {
                let s = conn.prepare(sql);
                assert_eq!(
                    s.all(max_rows, max_bytes),
                    want,
                    "round {round}: rows {max_rows} bytes {max_bytes} direct {direct}"
                );
            }
            let into = rows_into(&conn, sql, 1 + r.below(500) as usize, r.below(4096) as usize);
            assert_eq!(into, want, "round {round}: fetch_into, direct {direct}");
        }
        sqlbatch::mem::set_direct_reads(true);

        // Bulk insert stores what the per-row loop stored.
        conn.exec(&format!("CREATE TABLE u({}); BEGIN", cols.join(", ")));
        let mut p = Params::default();
        for row in &rows {
            for v in row {
                p.push(v);
            }
        }
        let marks = vec!["?"; ncols].join(", ");
        let ins = conn.prepare(&format!("INSERT INTO u VALUES ({marks})"));
        let (rc, w) = ins.execute_many(&p, nrows);
        assert_eq!((rc, w.rows, w.changes), (SQLBATCH_OK, nrows as u64, nrows as i64), "{}", conn.error().1);
        ins.finalize();
        conn.exec("COMMIT");
        assert_eq!(native.rows("SELECT * FROM u ORDER BY rowid"), want, "round {round}: bulk insert");
        drop(conn);
        drop(native);
        let _ = std::fs::remove_file(&path);
    }
    eprintln!(
        "compared {cells} random cells (NULL/INTEGER/REAL/TEXT/BLOB: {kinds:?}); {mixed_columns} of {columns} columns mix storage classes"
    );
    assert!(kinds.iter().all(|&k| k > cells / 20), "every storage class is well represented");
    assert!(mixed_columns * 10 > columns * 9, "types are mixed within columns");
}

/// A literal that SQL reads back as `v`, or None where SQL has no literal for it (NaN).
fn literal(v: &Val) -> Option<String> {
    Some(match v {
        Val::Null => "NULL".into(),
        Val::Int(i) if *i == i64::MIN => "(-9223372036854775807 - 1)".into(),
        Val::Int(i) => i.to_string(),
        Val::Float(b) => {
            let x = f64::from_bits(*b);
            if x.is_nan() {
                return None;
            } else if x.is_infinite() {
                if x > 0.0 {
                    "9e999".into()
                } else {
                    "-9e999".into()
                }
            } else {
                format!("{x:e}")
            }
        }
        Val::Text(t) if t.contains(&0) => return None,
        Val::Text(t) => format!("'{}'", String::from_utf8_lossy(t).replace('\'', "''")),
        Val::Blob(b) => format!("x'{}'", b.iter().map(|x| format!("{x:02x}")).collect::<String>()),
    })
}

#[test]
fn script_exec_does_what_sqlite3_exec_does() {
    let mut r = Rng(0x5eed_0000_5c21_9700);
    for round in 0..8 * scale() {
        let mut script = String::from("CREATE TABLE s(a, b, c);\n");
        let n = 1 + r.below(3000);
        for k in 0..n {
            match r.below(10) {
                0 => script.push_str(&format!("UPDATE s SET c = {k} WHERE rowid % 7 = {};\n", k % 7)),
                1 => script.push_str(&format!("DELETE FROM s WHERE rowid = {};\n", r.below(k + 1))),
                2 => script.push_str("SELECT count(*) FROM s; -- a comment\n"),
                _ => {
                    let (a, b) = (random_value(&mut r), random_value(&mut r));
                    if let (Some(a), Some(b)) = (literal(&a), literal(&b)) {
                        script.push_str(&format!("INSERT INTO s VALUES ({a}, {b}, {k}); /* c */\n"));
                    }
                }
            }
        }
        let native = Raw::open(":memory:");
        native.exec(&script);
        let native_total = unsafe { sq::sqlite3_total_changes64(native.0) };
        let conn = Conn::memory();
        let (rc, res) = conn.try_exec(&script);
        assert_eq!(rc, SQLBATCH_OK, "{}", conn.error().1);
        assert_eq!(res.changes, native_total, "round {round}: changes");
        assert_eq!(res.end_offset, script.len());
        // The batched fetch is checked against sqlite3_column_* by the test above.
        let sql = "SELECT rowid, * FROM s ORDER BY rowid";
        assert_eq!(conn.rows(sql), native.rows(sql), "round {round}");
    }
}

/// What `sqlbatch_conn_exec` is specified to do, over plain SQLite: prepare each statement at
/// the tail of the last, bind `:name` parameters from `named` and every other parameter from
/// the next positional value, and step it to the end. Returns (status, statements run,
/// parameters bound by the statements that ran).
fn exec_reference(db: &Raw, script: &str, positional: &[Val], named: &[(String, Val)]) -> (i32, u64, u64) {
    let sql = CString::new(script).unwrap();
    let (mut tail, mut next, mut ran, mut used) = (sql.as_ptr(), 0usize, 0u64, 0u64);
    unsafe {
        while *tail != 0 {
            let mut s = ptr::null_mut();
            let mut rest = ptr::null();
            let rc = sq::sqlite3_prepare_v2(db.0, tail, -1, &mut s, &mut rest);
            if rc != sq::SQLITE_OK {
                return (sq::sqlite3_extended_errcode(db.0), ran, used);
            }
            tail = rest;
            if s.is_null() {
                continue;
            }
            let n = sq::sqlite3_bind_parameter_count(s);
            for i in 1..=n {
                let name = sq::sqlite3_bind_parameter_name(s, i);
                let name = if name.is_null() { "" } else { CStr::from_ptr(name).to_str().unwrap() };
                let v = if name.starts_with(':') && !named.is_empty() {
                    named.iter().find(|(n, _)| n == name).map(|(_, v)| v)
                } else {
                    next += 1;
                    positional.get(next - 1)
                };
                let Some(v) = v else {
                    sq::sqlite3_finalize(s);
                    return (SQLBATCH_E_PARAM_COUNT, ran, used);
                };
                assert_eq!(bind_raw(s, i, v), sq::SQLITE_OK);
            }
            let rc = loop {
                match sq::sqlite3_step(s) {
                    sq::SQLITE_ROW => continue,
                    sq::SQLITE_DONE => break sq::SQLITE_OK,
                    _ => break sq::sqlite3_extended_errcode(db.0),
                }
            };
            sq::sqlite3_finalize(s);
            if rc != sq::SQLITE_OK {
                return (rc, ran, used);
            }
            // Only statements that ran to completion count (sqlbatch_exec_result).
            ran += 1;
            used += n as u64;
        }
    }
    (if next < positional.len() { SQLBATCH_E_PARAM_COUNT } else { SQLBATCH_OK }, ran, used)
}

#[test]
fn scripts_with_random_parameters_over_random_schemas_match_a_per_statement_loop() {
    let mut r = Rng(0x5eed_0000_9a7a_0003);
    let mut bound = 0u64;
    let mut failed = 0;
    for round in 0..60 * scale() {
        // A random schema: 1-3 tables of 1-8 columns, random declared types, some UNIQUE or
        // NOT NULL (so that some scripts fail midway), some STRICT-free affinity mixes.
        let ntables = 1 + r.below(3) as usize;
        let mut schema = String::new();
        let mut shapes = Vec::new();
        for ti in 0..ntables {
            let ncols = 1 + r.below(8) as usize;
            let cols: Vec<String> = (0..ncols)
                .map(|ci| {
                    let constraint = match r.below(40) {
                        0 => " UNIQUE",
                        1 => " NOT NULL",
                        _ => "",
                    };
                    format!("c{ci} {}{constraint}", DECLS[r.below(7) as usize])
                })
                .collect();
            schema.push_str(&format!("CREATE TABLE t{ti}({});\n", cols.join(", ")));
            shapes.push(ncols);
        }
        // A script of random statements taking positional (?) and named (:pN) parameters.
        let use_names = r.below(3) == 0;
        let mut script = schema.clone();
        let mut positional = Vec::new();
        let named: Vec<(String, Val)> = if use_names {
            (0..4).map(|i| (format!(":p{i}"), random_value(&mut r))).collect()
        } else {
            vec![]
        };
        let param = |r: &mut Rng, positional: &mut Vec<Val>| -> String {
            if use_names && r.below(4) == 0 {
                format!(":p{}", r.below(4))
            } else {
                positional.push(random_value(r));
                "?".into()
            }
        };
        for k in 0..1 + r.below(400) {
            let ti = r.below(ntables as u64) as usize;
            let ncols = shapes[ti];
            match r.below(10) {
                0 => {
                    let (a, b) = (param(&mut r, &mut positional), param(&mut r, &mut positional));
                    script.push_str(&format!(
                        "UPDATE t{ti} SET c{} = {a} WHERE rowid % 5 = {} OR c0 IS {b};\n",
                        r.below(ncols as u64),
                        k % 5
                    ));
                }
                1 => {
                    let a = param(&mut r, &mut positional);
                    script.push_str(&format!("DELETE FROM t{ti} WHERE c0 = {a};\n"));
                }
                2 => {
                    let a = param(&mut r, &mut positional);
                    script.push_str(&format!("SELECT count(*), typeof({a}) FROM t{ti}; -- read\n"));
                }
                _ => {
                    let marks: Vec<String> = (0..ncols).map(|_| param(&mut r, &mut positional)).collect();
                    script.push_str(&format!(
                        "INSERT INTO t{ti} VALUES ({}); /* row {k} */\n",
                        marks.join(", ")
                    ));
                }
            }
        }
        // Now and then one value too few or too many.
        match r.below(12) {
            0 if !positional.is_empty() => {
                positional.pop();
            }
            1 => positional.push(Val::Int(1)),
            _ => {}
        }
        let native = Raw::open(":memory:");
        let (want_rc, want_ran, want_used) = exec_reference(&native, &script, &positional, &named);

        let conn = Conn::memory();
        let mut p = Params::of(&positional);
        for (n, v) in &named {
            p.push_named(n.as_bytes(), v);
        }
        let (rc, res) = conn.try_exec_with(&script, &p);
        assert_eq!(rc, want_rc, "round {round}: {}", conn.error().1);
        assert_eq!((res.statements, res.params_used), (want_ran, want_used), "round {round}");
        let mut total = 0;
        unsafe { sqlbatch_conn_total_changes(conn.0, &mut total) };
        assert_eq!(total, unsafe { sq::sqlite3_total_changes64(native.0) }, "round {round}");
        assert_eq!(conn.dump(usize::MAX).unwrap(), native.dump(usize::MAX).unwrap(), "round {round}");
        bound += res.params_used;
        failed += (rc != SQLBATCH_OK) as usize;
    }
    eprintln!(
        "scripts: {bound} random parameters bound; {failed} of {} scripts failed midway as the reference did",
        60 * scale()
    );
    assert!(failed > 0 && bound > 10_000);
}

#[test]
fn bound_parameters_read_back_through_the_batched_fetch() {
    let mut r = Rng(0x5eed_0000_b1bd_0004);
    let conn = Conn::memory();
    let native = Raw::open(":memory:");
    let mut cells = 0;
    for round in 0..300 * scale() {
        let n = 1 + r.below(40) as usize;
        let vals: Vec<Val> = (0..n).map(|_| random_value(&mut r)).collect();
        // Each parameter read back directly, and through an expression that keeps its type.
        let cols: Vec<String> =
            (1..=n).map(|i| if i % 3 == 0 { format!("+?{i}") } else { format!("?{i}") }).collect();
        let sql = format!("SELECT {} UNION ALL SELECT {}", cols.join(", "), cols.join(", "));
        let s = conn.prepare(&sql);
        let p = Params::of(&vals);
        assert_eq!(s.bind(&p), SQLBATCH_OK);
        let got = s.all(1 + r.below(3) as usize, r.below(1 << 12) as usize);
        let ns = native.prepare(&sql);
        for (i, v) in vals.iter().enumerate() {
            assert_eq!(unsafe { bind_raw(ns, i as c_int + 1, v) }, sq::SQLITE_OK);
        }
        let mut want = Vec::new();
        unsafe {
            while sq::sqlite3_step(ns) == sq::SQLITE_ROW {
                want.push((0..n as c_int).map(|c| column(ns, c)).collect::<Vec<_>>());
            }
            sq::sqlite3_finalize(ns);
        }
        assert_eq!(got, want, "round {round}");
        cells += 2 * n;
    }
    eprintln!("bound parameters: {cells} cells compared");
}
