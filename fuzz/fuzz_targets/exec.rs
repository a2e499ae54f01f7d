//! Script exec (`sqlbatch_conn_exec`) with arbitrary SQL and parameter arrays.
//!
//! Knobs: flags (bit 0: some values are raw structs, with any kind tag and any offsets; bit 1:
//! a names array; bit 2: no base, `data` NULL, so that every TEXT or BLOB value with bytes
//! lacks one; bit 3: an unknown params flag; bit 4: `SQLBATCH_PARAMS_SINGLE`), the number of
//! values, then each value and its name. Checks: the status is
//! one the header documents and never a panic; `out_result` and the connection's last error
//! agree and their offsets lie inside the script; the connection stays usable. With only
//! well-formed positional values and deterministic SQL, the outcome (status, statements run,
//! total changes, every table's rows) must equal a reference that runs the script one
//! statement at a time through plain SQLite, each statement taking its share of the values.
//! With `SQLBATCH_PARAMS_SINGLE`, a refusal (a second statement, another count) runs nothing,
//! and a success must equal that reference too.
#![no_main]

use std::ffi::c_int;
use std::ptr;

use libfuzzer_sys::fuzz_target;
use libsqlite3_sys as sq;
use sqlbatch_fuzz::*;

const NAMES: [&[u8]; 8] = [b":a", b"a", b"@b", b"b", b"$c", b"c", b"", b"\xff"];

fuzz_target!(|data: &[u8]| {
    init();
    let (mut k, sql) = split(data);
    if skip_sql(sql) {
        return;
    }
    let flags = k.byte();
    let n = (k.byte() % 9) as usize;
    let mut p = Params::default();
    for _ in 0..n {
        if flags & 1 != 0 && k.bit() {
            p.push_raw(&mut k);
        } else {
            p.push(&pick_value(&mut k));
        }
    }
    if flags & 4 != 0 {
        p.data.clear();
    }
    let mut names = Vec::new();
    if flags & 2 != 0 {
        for _ in 0..n {
            let b = k.byte();
            if b < 128 {
                names.push(sqlbatch_value::NULL);
            } else {
                let name = NAMES[(b & 7) as usize];
                let at = p.data.len() as u64;
                p.data.extend_from_slice(name);
                let kind = if b & 8 != 0 { SQLBATCH_BLOB } else { SQLBATCH_TEXT };
                names.push(sqlbatch_value::bytes(kind, at, name.len() as u32));
            }
        }
    }

    let single = flags & 16 != 0;
    let conn = Conn::memory();
    conn.exec(SETUP);
    functions::register(&conn);
    let params = sqlbatch_params {
        names: if names.is_empty() { ptr::null() } else { names.as_ptr() },
        flags: if flags & 8 != 0 {
            4
        } else if single {
            SQLBATCH_PARAMS_SINGLE
        } else {
            0
        },
        ..p.as_c()
    };
    let mut res = sqlbatch_exec_result { end_offset: usize::MAX, ..Default::default() };
    let (rc, fired) = guarded(conn.0, || unsafe {
        sqlbatch_conn_exec(conn.0, sql.as_ptr().cast(), sql.len(), &params, &mut res)
    });
    if flags & 8 != 0 {
        assert!(rc != SQLBATCH_OK && res.statements == 0, "unknown params flag: {rc}");
    } else if single {
        // One statement: the call succeeds once it ran, and fails only before that (no
        // batched hook is registered here, whose stop could roll a run back).
        if rc == SQLBATCH_OK {
            assert!(res.statements <= 1, "one statement, {} ran", res.statements);
        } else {
            assert_eq!((res.statements, res.changes), (0, 0), "failed ({rc}) after running");
        }
    }

    assert!(known_status(rc) && rc != SQLBATCH_ROW && rc != SQLBATCH_DONE, "status {rc}");
    assert_ne!(rc, SQLBATCH_E_PANIC, "a panic crossed into the boundary: {:?}", last_error(conn.0).code);
    assert!(res.end_offset <= sql.len(), "end_offset {} past the script ({})", res.end_offset, sql.len());
    if rc == SQLBATCH_OK {
        assert_eq!(res.end_offset, sql.len());
    } else {
        let e = last_error(conn.0);
        assert_eq!(e.code, rc);
        let len = sql.len() as i64;
        for off in [e.token_offset, e.statement_offset] {
            assert!((-1..=len).contains(&off), "offset {off} outside the script ({len})");
        }
        if e.statement_index >= 0 {
            assert_eq!(e.statement_index as u64, res.statements);
        }
        if e.token_offset >= 0 && e.statement_offset >= 0 {
            assert!(e.token_offset >= e.statement_offset);
        }
        if std::str::from_utf8(sql).is_err() {
            assert_eq!((rc, res.statements), (SQLBATCH_E_INVALID_UTF8, 0));
        } else if sql.contains(&0) {
            assert_eq!((rc, res.statements), (SQLBATCH_E_INVALID_ARGUMENT, 0));
        }
    }
    if let (false, Some(vals)) = (
        fired || cut_short(rc) || flags & 10 != 0 || (single && rc != SQLBATCH_OK) || nondeterministic(sql),
        p.decoded(),
    ) {
        differential(&conn, sql, &vals, rc, &res);
    }
    conn.check_usable();
});

/// Compares with [`reference`] on an identical database (before either rolls back a
/// transaction the script left open).
fn differential(conn: &Conn, sql: &[u8], vals: &[Val], rc: i32, res: &sqlbatch_exec_result) {
    let raw = Raw::memory();
    raw.exec(SETUP);
    functions::register_raw(&raw);
    let ((want_rc, want_statements), fired) = guarded_raw(raw.0, || unsafe { reference(&raw, sql, vals) });
    if fired || cut_short(want_rc) {
        return;
    }
    assert_eq!(rc, want_rc, "status: sqlbatch {rc}, reference {want_rc}");
    assert_eq!(res.statements, want_statements, "statements run");
    let mut total = 0i64;
    assert_eq!(unsafe { sqlbatch_conn_total_changes(conn.0, &mut total) }, SQLBATCH_OK);
    assert_eq!(total, unsafe { sq::sqlite3_total_changes64(raw.0) }, "total changes");
    if let (Some(a), Some(b)) = (conn.dump(MAX_ROWS + 1), raw.dump(MAX_ROWS + 1)) {
        assert_eq!(a, b, "the databases differ");
    }
}

/// What `sqlbatch_conn_exec` is specified to do, with plain SQLite: prepare each statement at
/// the tail of the last, bind it its share of the values in order, step it to the end.
unsafe fn reference(raw: &Raw, sql: &[u8], vals: &[Val]) -> (i32, u64) {
    if std::str::from_utf8(sql).is_err() {
        return (SQLBATCH_E_INVALID_UTF8, 0);
    }
    if sql.contains(&0) {
        return (SQLBATCH_E_INVALID_ARGUMENT, 0);
    }
    let mut terminated = sql.to_vec();
    terminated.push(0);
    let (mut pos, mut next, mut ran) = (0, 0, 0u64);
    while pos < sql.len() {
        let (rc, s, used) = raw.try_prepare(&terminated[pos..]);
        if rc != sq::SQLITE_OK {
            return (rc, ran);
        }
        pos += used;
        if s.is_null() {
            continue;
        }
        for i in 1..=sq::sqlite3_bind_parameter_count(s) {
            let Some(v) = vals.get(next) else {
                sq::sqlite3_finalize(s);
                return (SQLBATCH_E_PARAM_COUNT, ran);
            };
            next += 1;
            let rc = bind_raw(s, i as c_int, v);
            if rc != sq::SQLITE_OK {
                sq::sqlite3_finalize(s);
                return (raw.extended(), ran);
            }
        }
        let rc = loop {
            match sq::sqlite3_step(s) {
                sq::SQLITE_ROW => continue,
                sq::SQLITE_DONE => break sq::SQLITE_OK,
                _ => break raw.extended(),
            }
        };
        sq::sqlite3_finalize(s);
        if rc != sq::SQLITE_OK {
            return (rc, ran);
        }
        ran += 1;
    }
    if next < vals.len() {
        return (SQLBATCH_E_PARAM_COUNT, ran);
    }
    (SQLBATCH_OK, ran)
}
