//! Prepare, bind and batched fetch with arbitrary SQL, parameter arrays and batch bounds.
//!
//! Knobs: flags (bit 0: direct reads off; bit 1: a wrong parameter count; bit 2: raw value
//! structs; bit 3: SQLBATCH_PREPARE_PERSISTENT; bit 4: an unknown prepare flag; bit 5:
//! fetch-ahead, whose batches must pass the same checks and equal the same reference), the
//! parameter values, then one byte per fetch call choosing `sqlbatch_stmt_fetch` or
//! `sqlbatch_stmt_fetch_into` and its bounds (`max_rows` 0 included).
//!
//! Checks on every batch: the status is documented; `cells` and `data` are NULL exactly when
//! empty; cells have valid kinds, zero padding, and
//! bytes inside the batch's data (or the caller's buffer); `n_rows <= max_rows`; every row but
//! the last fits the byte bound; a ROW batch is never empty; `sqlbatch_batch_get` agrees with
//! the cells and reports a batch read after the next fetch as stale; DONE and errors are
//! sticky until reset; BUFFER_TOO_SMALL asks for more than the buffer had, and a buffer of
//! that size then works. With well-formed parameters and deterministic SQL, the rows and the
//! final status must equal a plain `sqlite3_step` + `sqlite3_column_*` read of the same
//! statement on an identical database, and a read-only statement must give the same rows
//! again after a reset.
#![no_main]

use std::ffi::c_int;
use std::ptr;

use libfuzzer_sys::fuzz_target;
use libsqlite3_sys as sq;
use sqlbatch_fuzz::*;

const ROWS: [usize; 8] = [256, 1, 2, 3, 7, 16, 64, 1000];
const BYTES: [usize; 8] = [usize::MAX, 0, 1, 64, 1000, 1 << 16, 1 << 20, 17];
const BUFS: [usize; 8] = [4096, 0, 1, 16, 100, 1 << 16, 1 << 20, 7];

fuzz_target!(|data: &[u8]| {
    init();
    let (mut k, sql) = split(data);
    if skip_sql(sql) {
        return;
    }
    let flags = k.byte();
    sqlbatch::mem::set_direct_reads(flags & 1 == 0);
    let conn = Conn::memory();
    conn.exec(SETUP);
    functions::register(&conn);

    let prep_flags = if flags & 16 != 0 {
        0x80
    } else if flags & 8 != 0 {
        SQLBATCH_PREPARE_PERSISTENT
    } else {
        0
    };
    let (mut stmt, mut tail) = (ptr::null_mut(), usize::MAX);
    let rc = unsafe {
        sqlbatch_stmt_prepare(conn.0, sql.as_ptr().cast(), sql.len(), prep_flags, &mut stmt, &mut tail)
    };
    assert!(known_status(rc), "status {rc}");
    if rc != SQLBATCH_OK {
        assert!(stmt.is_null());
        let e = last_error(conn.0);
        assert_eq!(e.code, rc);
        assert!((-1..=sql.len() as i64).contains(&e.token_offset));
        if prep_flags == 0x80 {
            assert!(matches!(rc, SQLBATCH_E_INVALID_ARGUMENT | SQLBATCH_E_INVALID_UTF8));
        }
        conn.check_usable();
        return;
    }
    assert!(!stmt.is_null() && tail <= sql.len() && prep_flags != 0x80);
    assert!(std::str::from_utf8(sql).is_ok() && !sql.contains(&0));
    if flags & 32 != 0 {
        assert_eq!(unsafe { sqlbatch_stmt_set_fetch_ahead(stmt, true) }, SQLBATCH_OK);
    }

    // Parameters.
    let (mut names, mut n_params) = (ptr::null(), 0usize);
    assert_eq!(unsafe { sqlbatch_stmt_params(stmt, &mut names, &mut n_params) }, SQLBATCH_OK);
    let n = if flags & 2 != 0 { (n_params + 1 + (k.byte() % 3) as usize) % (n_params + 3) } else { n_params };
    let n = n.min(64);
    let mut p = Params::default();
    for _ in 0..n {
        if flags & 4 != 0 && k.bit() {
            p.push_raw(&mut k);
        } else {
            p.push(&pick_value(&mut k));
        }
    }
    let vals = p.decoded();
    let mut bound = true;
    if n > 0 || flags & 2 != 0 {
        let rc = unsafe { sqlbatch_stmt_bind(stmt, &p.as_c()) };
        assert!(known_status(rc) && rc != SQLBATCH_E_PANIC, "bind {rc}");
        if n != n_params {
            assert_eq!(rc, SQLBATCH_E_PARAM_COUNT);
        } else if vals.is_some() && rc != SQLBATCH_OK {
            assert!(cut_short(rc), "bind of well-formed values failed with {rc}");
        }
        bound = rc == SQLBATCH_OK;
    }
    let compare = bound && n == n_params && !nondeterministic(sql);

    // The batched read.
    let ((rows, status, batches), fired) = guarded(conn.0, || unsafe { read_all(stmt, &mut k) });
    assert!(batches > 0);

    // The reference.
    if let (true, false, false, Some(vals)) = (compare, fired, cut_short(status), &vals) {
        let raw = Raw::memory();
        raw.exec(SETUP);
        functions::register_raw(&raw);
        let ((want, want_status), fired) = guarded_raw(raw.0, || unsafe {
            let (rc, s, used) = raw.try_prepare(sql);
            assert_eq!((rc, used), (sq::SQLITE_OK, tail), "the reference prepares differently");
            for (i, v) in vals.iter().enumerate() {
                assert_eq!(bind_raw(s, i as c_int + 1, v), sq::SQLITE_OK);
            }
            let r = step_all(&raw, s, MAX_ROWS + 2000);
            sq::sqlite3_finalize(s);
            r
        });
        if !fired && !cut_short(want_status) {
            if rows.len() > MAX_ROWS || want.len() > MAX_ROWS {
                let m = rows.len().min(want.len());
                assert!(m >= MAX_ROWS);
                assert_eq!(rows[..m], want[..m], "rows differ");
            } else {
                assert_eq!(rows, want, "rows differ");
                let want_status = if want_status == sq::SQLITE_DONE { SQLBATCH_DONE } else { want_status };
                assert_eq!(status, want_status, "final status");
            }
        }
    }

    // After a reset, a read-only statement reads the same rows again.
    let mut ro = false;
    assert_eq!(unsafe { sqlbatch_stmt_readonly(stmt, &mut ro) }, SQLBATCH_OK);
    assert_eq!(unsafe { sqlbatch_stmt_reset(stmt) }, SQLBATCH_OK);
    if ro && !fired && !cut_short(status) && status == SQLBATCH_DONE && !nondeterministic(sql) {
        let ((again, status2, _), fired) = guarded(conn.0, || unsafe { read_all(stmt, &mut k) });
        if !fired && !cut_short(status2) {
            assert_eq!((again, status2), (rows, status), "a second run differs");
        }
    }
    unsafe { sqlbatch_stmt_finalize(stmt) };
    conn.check_usable();
});

/// Fetches until DONE, an error, or [`MAX_ROWS`] rows, with bounds from the knobs, checking
/// every batch. Returns the rows, the final status and the number of fetch calls.
unsafe fn read_all(stmt: *mut sqlbatch_stmt, k: &mut Knobs<'_>) -> (Vec<Vec<Val>>, i32, usize) {
    let mut rows: Vec<Vec<Val>> = Vec::new();
    let mut ncols = None;
    let mut prev: Option<sqlbatch_batch> = None;
    let mut calls = 0;
    let mut buf = Vec::new();
    loop {
        calls += 1;
        let op = k.byte();
        let max_rows = if op == 0xff { 0 } else { ROWS[(op & 7) as usize] };
        let mut b: sqlbatch_batch = std::mem::zeroed();
        let into = op & 0x40 != 0;
        let (rc, max_bytes) = if into {
            buf = vec![0xa5u8; BUFS[(op >> 3 & 7) as usize]];
            let rc = sqlbatch_stmt_fetch_into(stmt, max_rows, buf.as_mut_ptr(), buf.len(), &mut b);
            (rc, usize::MAX)
        } else {
            let max_bytes = BYTES[(op >> 3 & 7) as usize];
            (sqlbatch_stmt_fetch(stmt, max_rows, max_bytes, &mut b), max_bytes)
        };
        assert!(known_status(rc) && rc != SQLBATCH_OK && rc != SQLBATCH_E_PANIC, "fetch status {rc}");
        if max_rows == 0 {
            assert_eq!(rc, SQLBATCH_E_RANGE);
            continue;
        }
        // The previous batch is stale now.
        if let Some(old) = prev.take() {
            let mut v = sqlbatch_value::default();
            if old.n_rows > 0 {
                assert_eq!(sqlbatch_batch_get(stmt, &old, 0, 0, &mut v), SQLBATCH_E_STALE_BATCH);
            }
        }
        if rc == SQLBATCH_E_BUFFER_TOO_SMALL {
            assert!(
                into && b.n_rows == 0 && b.data_len > buf.len(),
                "too small: needs {} of {}",
                b.data_len,
                buf.len()
            );
            // A buffer of the size asked for takes the row.
            buf = vec![0u8; b.data_len];
            let mut b2: sqlbatch_batch = std::mem::zeroed();
            let rc = sqlbatch_stmt_fetch_into(stmt, 1, buf.as_mut_ptr(), buf.len(), &mut b2);
            assert!(rc == SQLBATCH_ROW || rc == SQLBATCH_DONE, "retry with the size asked for: {rc}");
            assert_eq!(b2.n_rows, 1);
            b = b2;
            take(&mut rows, &mut ncols, &b, buf.as_ptr(), buf.len(), 1, usize::MAX, stmt);
            prev = Some(b);
            if rc == SQLBATCH_DONE {
                return finish(stmt, rows, SQLBATCH_DONE, calls);
            }
            continue;
        }
        if rc != SQLBATCH_ROW && rc != SQLBATCH_DONE {
            // Errors are sticky until reset.
            let mut b2: sqlbatch_batch = std::mem::zeroed();
            assert_eq!(sqlbatch_stmt_fetch(stmt, 1, usize::MAX, &mut b2), rc, "error not sticky");
            return (rows, rc, calls);
        }
        if into {
            assert!(b.data.is_null(), "fetch_into wrote a pointer back");
            assert!(b.data_len <= buf.len());
        }
        let (base, base_len) = if into { (buf.as_ptr(), buf.len()) } else { (b.data, b.data_len) };
        take(&mut rows, &mut ncols, &b, base, base_len, max_rows, max_bytes, stmt);
        if rc == SQLBATCH_ROW {
            assert!(b.n_rows > 0, "a ROW batch without rows");
        }
        prev = Some(b);
        if rc == SQLBATCH_DONE {
            return finish(stmt, rows, rc, calls);
        }
        if rows.len() > MAX_ROWS {
            return (rows, rc, calls);
        }
    }
}

/// After DONE, fetches keep saying DONE with no rows.
unsafe fn finish(
    stmt: *mut sqlbatch_stmt,
    rows: Vec<Vec<Val>>,
    rc: i32,
    calls: usize,
) -> (Vec<Vec<Val>>, i32, usize) {
    let mut b: sqlbatch_batch = std::mem::zeroed();
    assert_eq!(sqlbatch_stmt_fetch(stmt, 5, 0, &mut b), SQLBATCH_DONE);
    assert_eq!(b.n_rows, 0);
    (rows, rc, calls)
}

/// Checks a batch and appends its rows.
#[allow(clippy::too_many_arguments)]
unsafe fn take(
    rows: &mut Vec<Vec<Val>>,
    ncols: &mut Option<usize>,
    b: &sqlbatch_batch,
    base: *const u8,
    base_len: usize,
    max_rows: usize,
    max_bytes: usize,
    stmt: *mut sqlbatch_stmt,
) {
    assert!(b.n_rows <= max_rows, "{} rows, max {max_rows}", b.n_rows);
    // Empty arrays are NULL, others are not (cells() checks cells; data of a fetch batch).
    let _ = cells(b);
    if base == b.data {
        assert_eq!(b.data.is_null(), b.data_len == 0, "data {:?} with {} bytes", b.data, b.data_len);
    }
    if b.n_rows == 0 {
        return;
    }
    if let Some(n) = *ncols {
        assert_eq!(b.n_cols, n, "the column count changed");
    }
    *ncols = Some(b.n_cols);
    let batch: Vec<Vec<Val>> =
        (0..b.n_rows).map(|r| (0..b.n_cols).map(|c| cell(b, base, base_len, r, c)).collect()).collect();
    let cost: usize = batch[..batch.len() - 1].iter().map(|r| row_cost(r)).sum();
    assert!(b.n_rows == 1 || cost < max_bytes, "rows before the last take {cost} bytes, bound {max_bytes}");
    // The checked accessor agrees with the cells, and stops at the edge.
    if b.n_cols > 0 {
        let (r, c) = (b.n_rows - 1, b.n_cols - 1);
        let mut v = sqlbatch_value::default();
        assert_eq!(sqlbatch_batch_get(stmt, b, r, c, &mut v), SQLBATCH_OK);
        let cellv = *b.cells.add(r * b.n_cols + c);
        assert_eq!((v.kind, v.len), (cellv.kind, cellv.len));
        if v.kind == SQLBATCH_TEXT || v.kind == SQLBATCH_BLOB {
            assert_eq!(v.bits, (b.data as u64).wrapping_add(cellv.bits));
        } else {
            assert_eq!(v.bits, cellv.bits);
        }
        assert_eq!(sqlbatch_batch_get(stmt, b, b.n_rows, 0, &mut v), SQLBATCH_E_RANGE);
        assert_eq!(sqlbatch_batch_get(stmt, b, 0, b.n_cols, &mut v), SQLBATCH_E_RANGE);
    }
    rows.extend(batch);
}
