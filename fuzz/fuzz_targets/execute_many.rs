//! Bulk write (`sqlbatch_stmt_execute_many`) with arbitrary SQL and parameter rows.
//!
//! Knobs: flags (bit 0: a wrong column count; bit 1: raw value structs; bit 2: run inside a
//! transaction; bit 3: names given, which execute_many refuses; bit 4: through write-behind,
//! `sqlbatch_stmt_execute_many_start` and `_wait`; bit 5 with it: the rows split into two
//! writes queued at once, whose results add up to the one call's), the number of rows, a seed
//! for the values, then raw value bytes. Checks: the
//! status is documented and never a panic; `out_result` and the last error agree on the
//! failing row; the statement and the connection stay usable. With well-formed values and
//! deterministic SQL, the status, rows run, total changes and every table's rows must equal a
//! plain SQLite loop that binds and steps each row in turn.
#![no_main]

use std::ffi::c_int;
use std::ptr;

use libfuzzer_sys::fuzz_target;
use libsqlite3_sys as sq;
use sqlbatch_fuzz::*;

fuzz_target!(|data: &[u8]| {
    init();
    let (mut k, sql) = split(data);
    if skip_sql(sql) {
        return;
    }
    let flags = k.byte();
    let n_rows = (k.byte() % 33) as usize;
    let conn = Conn::memory();
    conn.exec(SETUP);
    functions::register(&conn);
    let mut stmt = ptr::null_mut();
    let rc = unsafe {
        sqlbatch_stmt_prepare(conn.0, sql.as_ptr().cast(), sql.len(), 0, &mut stmt, ptr::null_mut())
    };
    if rc != SQLBATCH_OK {
        assert!(known_status(rc) && rc != SQLBATCH_E_PANIC && stmt.is_null());
        return;
    }
    let (mut names, mut pc) = (ptr::null(), 0usize);
    assert_eq!(unsafe { sqlbatch_stmt_params(stmt, &mut names, &mut pc) }, SQLBATCH_OK);
    let n_cols = if flags & 1 != 0 { (pc + 1 + (k.byte() % 3) as usize) % (pc + 3) } else { pc };
    if n_cols > 64 {
        unsafe { sqlbatch_stmt_finalize(stmt) };
        return;
    }

    // Values: mostly from a seeded generator (few knob bytes make many rows), some raw.
    let mut seed = k.u32() | 1;
    let mut p = Params::default();
    for _ in 0..n_rows {
        for _ in 0..n_cols {
            if flags & 2 != 0 && k.bit() {
                p.push_raw(&mut k);
            } else {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                let bytes = seed.to_le_bytes();
                let v = pick_value(&mut Knobs::from(&bytes[..]));
                p.push(&v);
            }
        }
    }
    let txn = flags & 4 != 0;
    if txn {
        conn.exec("BEGIN");
    }
    let names = vec![sqlbatch_value::NULL; p.values.len()];
    let rows =
        sqlbatch_params { names: if flags & 8 != 0 { names.as_ptr() } else { ptr::null() }, ..p.as_c() };
    let mut res = sqlbatch_write_result { rows: u64::MAX, ..Default::default() };
    // With two writes queued: where the failing one started, and whether its error was
    // checked already (the skipped write's wait replaces the connection's last error).
    let (mut err_base, mut err_checked) = (0u64, false);
    // (Not with raw value structs: a bad kind in the second half fails its start, after the
    // first half ran, where the one call fails before any row.)
    let split = flags & 48 == 48 && flags & 2 == 0 && n_cols == pc && flags & 8 == 0 && n_rows >= 2;
    let (rc, fired) = guarded(conn.0, || unsafe {
        if split {
            let h = n_rows / 2;
            let (va, vb) = p.values.split_at(h * n_cols);
            let ra = sqlbatch_params { values: va.as_ptr(), n_values: va.len(), ..rows };
            let rb = sqlbatch_params { values: vb.as_ptr(), n_values: vb.len(), ..rows };
            let s1 = sqlbatch_stmt_execute_many_start(stmt, &ra, h);
            if s1 != SQLBATCH_OK {
                res = sqlbatch_write_result::default();
                return s1;
            }
            let s2 = sqlbatch_stmt_execute_many_start(stmt, &rb, n_rows - h);
            assert_eq!(s2, SQLBATCH_OK, "the second half is checked as the first");
            let (mut r1, mut r2) = (sqlbatch_write_result::default(), sqlbatch_write_result::default());
            let w1 = sqlbatch_stmt_execute_many_wait(stmt, &mut r1);
            if w1 != SQLBATCH_OK {
                let e = last_error(conn.0);
                assert_eq!(e.code, w1);
                if e.row_index >= 0 {
                    assert_eq!(e.row_index as u64, r1.rows, "row_index and out_result disagree");
                }
                err_checked = true;
            }
            let w2 = sqlbatch_stmt_execute_many_wait(stmt, &mut r2);
            if w1 != SQLBATCH_OK {
                assert_eq!((w2, r2.rows, r2.changes), (SQLBATCH_E_SKIPPED, 0, 0), "behind a failed write");
                res = r1;
                return w1;
            }
            assert_eq!(r1.rows, h as u64);
            err_base = h as u64;
            res = sqlbatch_write_result {
                rows: r1.rows + r2.rows,
                changes: r1.changes + r2.changes,
                last_insert_rowid: r2.last_insert_rowid,
            };
            w2
        } else if flags & 16 != 0 {
            // Write-behind: start and wait must report what execute_many does (a start that
            // fails queues nothing and writes no result; execute_many's is then all zeros).
            match sqlbatch_stmt_execute_many_start(stmt, &rows, n_rows) {
                SQLBATCH_OK => sqlbatch_stmt_execute_many_wait(stmt, &mut res),
                rc => {
                    res = sqlbatch_write_result::default();
                    rc
                }
            }
        } else {
            sqlbatch_stmt_execute_many(stmt, &rows, n_rows, &mut res)
        }
    });
    if flags & 8 != 0 {
        assert_eq!((rc, res.rows), (SQLBATCH_E_INVALID_ARGUMENT, 0), "names given to execute_many");
    }
    assert!(
        known_status(rc) && rc != SQLBATCH_ROW && rc != SQLBATCH_DONE && rc != SQLBATCH_E_PANIC,
        "status {rc}"
    );
    assert!(res.rows <= n_rows as u64);
    if rc == SQLBATCH_OK {
        assert_eq!(res.rows, n_rows as u64);
    } else if !err_checked {
        let e = last_error(conn.0);
        assert_eq!(e.code, rc);
        if e.row_index >= 0 {
            assert_eq!(e.row_index as u64 + err_base, res.rows, "row_index and out_result disagree");
        }
        if n_cols != pc && n_rows > 0 && flags & 8 == 0 {
            assert_eq!((rc, res.rows), (SQLBATCH_E_PARAM_COUNT, 0));
        }
    }
    if txn {
        // Whatever the fuzzed statement did to the transaction, end it.
        let _ = conn.try_exec("COMMIT");
    }
    // The statement can run again (with no rows: rows NULL), and the connection is usable.
    let rc2 = unsafe { sqlbatch_stmt_execute_many(stmt, ptr::null(), 0, ptr::null_mut()) };
    assert_eq!(rc2, SQLBATCH_OK, "empty run");
    unsafe { sqlbatch_stmt_finalize(stmt) };
    conn.check_usable();

    // The differential check.
    let values = match p.decoded() {
        Some(v) if !(fired || cut_short(rc) || n_cols != pc || flags & 8 != 0 || nondeterministic(sql)) => v,
        _ => return,
    };
    let raw = Raw::memory();
    raw.exec(SETUP);
    functions::register_raw(&raw);
    if txn {
        raw.exec("BEGIN");
    }
    let ((want_rc, want_rows), fired) = guarded_raw(raw.0, || unsafe {
        let (rc, s, _) = raw.try_prepare(sql);
        assert_eq!(rc, sq::SQLITE_OK);
        let mut done = 0u64;
        let mut status = SQLBATCH_OK;
        if !s.is_null() {
            'rows: for row in (0..n_rows).map(|r| &values[r * n_cols..(r + 1) * n_cols]) {
                for (i, v) in row.iter().enumerate() {
                    if bind_raw(s, i as c_int + 1, v) != sq::SQLITE_OK {
                        status = raw.extended();
                        break 'rows;
                    }
                }
                loop {
                    match sq::sqlite3_step(s) {
                        sq::SQLITE_ROW => continue,
                        sq::SQLITE_DONE => break,
                        _ => {
                            status = raw.extended();
                            break 'rows;
                        }
                    }
                }
                sq::sqlite3_reset(s);
                done += 1;
            }
        } else {
            done = n_rows as u64;
        }
        sq::sqlite3_finalize(s);
        (status, done)
    });
    if txn {
        let _ = raw.try_exec("COMMIT");
    }
    if fired || cut_short(want_rc) {
        return;
    }
    assert_eq!((rc, res.rows), (want_rc, want_rows), "status and rows run");
    let mut total = 0i64;
    assert_eq!(unsafe { sqlbatch_conn_total_changes(conn.0, &mut total) }, SQLBATCH_OK);
    assert_eq!(total, unsafe { sq::sqlite3_total_changes64(raw.0) }, "total changes");
    if let (Some(a), Some(b)) = (conn.dump(MAX_ROWS + 1), raw.dump(MAX_ROWS + 1)) {
        assert_eq!(a, b, "the databases differ");
    }
});
