//! Statement and connection lifecycles: an arbitrary sequence of calls on up to four
//! statements of one connection, including closing the connection under them.
//!
//! The statements are the first statements of the SQL (prepared one after the other, as a
//! script would be); the database holds FTS5 and R*Tree tables, whose modules keep statements
//! of their own on the connection. Each knob byte after the first is one call: fetch,
//! fetch_into, reset, bind, clear_bindings, columns, params, expanded_sql, execute_many,
//! batch_get on the statement's last batch, finalize, prepare again, a script, an interrupt,
//! close, or the small getters (and turning fetch-ahead on or off); execute_many also as a
//! queued write-behind, now and then with a script run on the connection before its wait; and a blob handle (open, read, write, reopen, a batched read,
//! close), a backup to or from a second connection (start, step, finish, the other
//! connection closing under it), and a session (created, its changeset applied back or to the
//! other connection and inverted, deleted before or after the connections close), with a
//! batched update hook that stops statements now and then, or none. Checks: every status is documented and never a panic; after
//! the close, every call on a statement, the blob or the backup says SQLBATCH_E_CLOSED; `sqlbatch_batch_get` only
//! hands out cells of the current batch (reading their bytes, which ASan checks); everything
//! is released at the end without a sanitizer report (the double finalize at close this
//! target's family found in `exec` would show here at once).
#![no_main]

use std::ffi::c_int;
use std::ptr;

use libfuzzer_sys::fuzz_target;
use sqlbatch_fuzz::*;

const LIFECYCLE_SETUP: &str =
    "CREATE VIRTUAL TABLE f USING fts5(x); INSERT INTO f VALUES ('hello world'), ('other');
CREATE VIRTUAL TABLE r USING rtree(id, a, b); INSERT INTO r VALUES (1, 0, 1), (2, 5, 9);
SELECT * FROM f WHERE f MATCH 'hello'; SELECT * FROM r WHERE a < 3;
CREATE TABLE bl(id INTEGER PRIMARY KEY, d BLOB); INSERT INTO bl VALUES (1, zeroblob(100)), (2, x'0102'), (3, 'text'), (4, 5);";

const SLOTS: usize = 4;

unsafe extern "C" fn no_preupdate(_: *mut std::ffi::c_void, _: *const sqlbatch_preupdate) {}

/// The batched update hook of the run, when the input's last byte asks for one: it counts the
/// events and answers stop at every `every`th one (0: never).
struct Updates {
    seen: std::cell::Cell<u32>,
    every: u32,
}

unsafe extern "C" fn on_updates(
    u: *mut std::ffi::c_void,
    changes: *const sqlbatch_change,
    n: usize,
    tables: *const sqlbatch_change_table,
    n_tables: usize,
) -> i32 {
    let u = unsafe { &*(u as *const Updates) };
    // Every change names a table of the batch, whose names are readable.
    for c in unsafe { std::slice::from_raw_parts(changes, n) } {
        assert!((c.table as usize) < n_tables, "change of table {} of {n_tables}", c.table);
        let t = unsafe { &*tables.add(c.table as usize) };
        assert!(!t.name.ptr.is_null() && unsafe { *t.name.ptr.add(t.name.len) } == 0);
        u.seen.set(u.seen.get() + 1);
        if u.every != 0 && u.seen.get() % u.every == 0 {
            return 1;
        }
    }
    0
}

/// A batch kept for a later `sqlbatch_batch_get`, with the caller's buffer of fetch_into.
struct Kept {
    batch: sqlbatch_batch,
    buf: Option<Vec<u8>>,
}

fuzz_target!(|data: &[u8]| {
    init();
    let (mut k, sql) = split(data);
    if skip_sql(sql) {
        return;
    }
    // The input's last byte (read again as a knob, which does not matter) may set a batched
    // update hook: up to 8 changes a batch, and a stop answer now and then, whose rollbacks at
    // a call's end meet whatever the sequence left running.
    let hook = data.last().copied().unwrap_or(0);
    let updates = Updates { seen: 0.into(), every: (hook as u32 >> 4) % 5 };
    let conn = Conn::memory();
    conn.exec(SETUP);
    functions::register(&conn);
    conn.exec(LIFECYCLE_SETUP);
    if hook & 1 != 0 {
        let u = &updates as *const Updates as *mut std::ffi::c_void;
        let rc = unsafe {
            sqlbatch_conn_update_hook_batched(conn.0, (hook as usize >> 1) % 8, Some(on_updates), u, None)
        };
        assert_eq!(rc, SQLBATCH_OK);
    }
    // The connection handle leaves `conn` when the sequence closes it.
    let mut open = Some(conn);
    let mut stmts: [*mut sqlbatch_stmt; SLOTS] = [ptr::null_mut(); SLOTS];
    let mut kept: [Option<Kept>; SLOTS] = Default::default();
    let mut next_sql = 0usize;
    // A blob handle on `bl.d`, and a backup between this connection and another one.
    let mut blob: *mut sqlbatch_blob = ptr::null_mut();
    let mut backup: *mut sqlbatch_backup = ptr::null_mut();
    let mut other: Option<Conn> = None;
    let mut session: *mut sqlbatch_session = ptr::null_mut();

    // Prepares the next statement of the SQL into `slot` (wrapping around at the end).
    let prepare = |c: &Conn, next_sql: &mut usize| -> *mut sqlbatch_stmt {
        if *next_sql >= sql.len() {
            *next_sql = 0;
        }
        let rest = &sql[*next_sql..];
        let (mut s, mut tail) = (ptr::null_mut(), 0usize);
        let rc =
            unsafe { sqlbatch_stmt_prepare(c.0, rest.as_ptr().cast(), rest.len(), 0, &mut s, &mut tail) };
        assert!(known_status(rc) && rc != SQLBATCH_E_PANIC, "prepare {rc}");
        assert_eq!(rc == SQLBATCH_OK, !s.is_null());
        *next_sql += if rc == SQLBATCH_OK && tail > 0 { tail } else { rest.len().max(1) };
        s
    };
    for slot in stmts.iter_mut() {
        *slot = prepare(open.as_ref().unwrap(), &mut next_sql);
    }

    for _ in 0..CONTROL {
        let op = k.byte();
        let arg = k.byte();
        let i = (op >> 4) as usize % SLOTS;
        let s = stmts[i];
        let closed = open.is_none();
        let conn_ptr = open.as_ref().map_or(ptr::null(), |c| c.0 as *const sqlbatch_conn);
        let run = |f: &mut dyn FnMut() -> i32| -> i32 {
            if conn_ptr.is_null() {
                f()
            } else {
                guarded(conn_ptr, f).0
            }
        };
        // op >> 4 picks the statement slot (mod 4) and op & 15 the call; ops of 0x80 and up
        // are the other handles' calls, 16 to 20.
        let call = if op >= 0x80 { 16 + (op & 15) % 5 } else { op % 16 };
        let rc: i32 = match call {
            // fetch
            0 if !s.is_null() => {
                let mut b: sqlbatch_batch = unsafe { std::mem::zeroed() };
                let max_rows = 1 + (arg % 16) as usize;
                let rc =
                    run(&mut || unsafe { sqlbatch_stmt_fetch(s, max_rows, (arg as usize) << 6, &mut b) });
                if rc == SQLBATCH_ROW || rc == SQLBATCH_DONE {
                    assert!(b.n_rows <= max_rows);
                    kept[i] = Some(Kept { batch: b, buf: None });
                }
                rc
            }
            // fetch_into
            1 if !s.is_null() => {
                let mut buf = vec![0u8; arg as usize * 4];
                let mut b: sqlbatch_batch = unsafe { std::mem::zeroed() };
                let rc = run(&mut || unsafe {
                    sqlbatch_stmt_fetch_into(s, 3, buf.as_mut_ptr(), buf.len(), &mut b)
                });
                if rc == SQLBATCH_ROW || rc == SQLBATCH_DONE {
                    assert!(b.data.is_null() && b.data_len <= buf.len());
                    kept[i] = Some(Kept { batch: b, buf: Some(buf) });
                }
                rc
            }
            2 if !s.is_null() => unsafe { sqlbatch_stmt_reset(s) },
            // bind as many values as the statement takes (or one more, now and then)
            3 if !s.is_null() => {
                let (mut names, mut n) = (ptr::null(), 0usize);
                let rc = unsafe { sqlbatch_stmt_params(s, &mut names, &mut n) };
                if rc == SQLBATCH_OK {
                    let n = n.min(64) + (arg & 1) as usize;
                    let mut p = Params::default();
                    for j in 0..n {
                        let pair = [arg.wrapping_add(j as u8), arg >> 1];
                        p.push(&pick_value(&mut Knobs::from(&pair[..])));
                    }
                    unsafe { sqlbatch_stmt_bind(s, &p.as_c()) }
                } else {
                    rc
                }
            }
            4 if !s.is_null() => unsafe { sqlbatch_stmt_clear_bindings(s) },
            5 if !s.is_null() => {
                let (mut cols, mut n) = (ptr::null(), 0usize);
                let rc = unsafe { sqlbatch_stmt_columns(s, &mut cols, &mut n) };
                if rc == SQLBATCH_OK && n > 0 {
                    let cols = unsafe { std::slice::from_raw_parts(cols, n) };
                    assert!(cols.iter().all(|c| !c.name.ptr.is_null()));
                }
                rc
            }
            6 if !s.is_null() => {
                let (mut names, mut n) = (ptr::null(), 0usize);
                unsafe { sqlbatch_stmt_params(s, &mut names, &mut n) }
            }
            7 if !s.is_null() => {
                let mut out = sqlbatch_str::NONE;
                let rc = unsafe { sqlbatch_stmt_expanded_sql(s, &mut out) };
                if rc == SQLBATCH_OK {
                    assert!(!out.ptr.is_null());
                }
                rc
            }
            // execute_many with 0-3 rows of the right width
            8 if !s.is_null() => {
                let (mut names, mut n) = (ptr::null(), 0usize);
                let rc = unsafe { sqlbatch_stmt_params(s, &mut names, &mut n) };
                if rc == SQLBATCH_OK && n <= 16 {
                    let rows = (arg % 4) as usize;
                    let mut p = Params::default();
                    for j in 0..rows * n {
                        let pair = [arg ^ j as u8, j as u8];
                        p.push(&pick_value(&mut Knobs::from(&pair[..])));
                    }
                    let mut w = sqlbatch_write_result::default();
                    let params = p.as_c();
                    let rc = if arg & 0x40 != 0 {
                        // Write-behind, with (now and then) the SQL run as a script on the
                        // connection while the write is queued.
                        let rc = run(&mut || unsafe { sqlbatch_stmt_execute_many_start(s, &params, rows) });
                        if rc != SQLBATCH_OK {
                            rc
                        } else {
                            if arg & 0x20 != 0 {
                                if let Some(c) = open.as_ref() {
                                    let x = run(&mut || c.exec_raw(sql, None).0);
                                    assert!(known_status(x) && x != SQLBATCH_E_PANIC, "script {x}");
                                }
                            }
                            unsafe { sqlbatch_stmt_execute_many_wait(s, &mut w) }
                        }
                    } else {
                        run(&mut || unsafe { sqlbatch_stmt_execute_many(s, &params, rows, &mut w) })
                    };
                    assert!(w.rows <= rows as u64);
                    rc
                } else {
                    rc
                }
            }
            // batch_get on the statement's last batch: OK only for the current one
            9 if !s.is_null() => match &kept[i] {
                Some(kb) if kb.batch.n_rows > 0 && kb.batch.n_cols > 0 => {
                    let (r, c) = ((arg as usize) % kb.batch.n_rows, (arg as usize / 7) % kb.batch.n_cols);
                    let mut v = sqlbatch_value::default();
                    let rc = unsafe { sqlbatch_batch_get(s, &kb.batch, r, c, &mut v) };
                    assert!(matches!(rc, SQLBATCH_OK | SQLBATCH_E_STALE_BATCH), "batch_get {rc}");
                    if rc == SQLBATCH_OK && (v.kind == SQLBATCH_TEXT || v.kind == SQLBATCH_BLOB) && v.len > 0
                    {
                        // Touch every byte: ASan says whether they are still there.
                        let bytes = match &kb.buf {
                            Some(buf) => &buf[v.bits as usize..v.bits as usize + v.len as usize],
                            None => unsafe {
                                std::slice::from_raw_parts(v.bits as *const u8, v.len as usize)
                            },
                        };
                        std::hint::black_box(bytes.iter().map(|&x| x as u32).sum::<u32>());
                    }
                    rc
                }
                _ => SQLBATCH_OK,
            },
            10 if !s.is_null() => {
                kept[i] = None;
                stmts[i] = ptr::null_mut();
                unsafe { sqlbatch_stmt_finalize(s) };
                SQLBATCH_OK
            }
            // prepare into the slot (finalizing what was there)
            11 if !closed => {
                kept[i] = None;
                unsafe { sqlbatch_stmt_finalize(s) };
                stmts[i] = prepare(open.as_ref().unwrap(), &mut next_sql);
                SQLBATCH_OK
            }
            // the SQL as a script, on the same connection as the open statements
            12 if !closed => {
                let c = open.as_ref().unwrap();
                run(&mut || c.exec_raw(sql, None).0)
            }
            13 if !closed => {
                unsafe { sqlbatch_conn_interrupt(open.as_ref().unwrap().0) };
                SQLBATCH_OK
            }
            // close the connection under its statements
            14 if !closed && arg & 3 == 0 => {
                drop(open.take());
                SQLBATCH_OK
            }
            15 if !s.is_null() => {
                if arg & 0x40 != 0 {
                    // Fetch-ahead on or off for the statement.
                    let rc = unsafe { sqlbatch_stmt_set_fetch_ahead(s, arg & 0x20 != 0) };
                    // Refused like every call on a statement: closed, or a backup's destination.
                    assert!(known_status(rc) && rc != SQLBATCH_E_PANIC, "set_fetch_ahead {rc}");
                    if closed {
                        assert_eq!(rc, SQLBATCH_E_CLOSED);
                    }
                }
                let (mut ro, mut out, mut nn) = (false, sqlbatch_str::NONE, 0 as c_int);
                let a = unsafe { sqlbatch_stmt_readonly(s, &mut ro) };
                let b = unsafe { sqlbatch_stmt_sql(s, &mut out) };
                let c = unsafe { sqlbatch_stmt_column_not_null(s, arg as usize % 3, &mut nn) };
                assert!(known_status(b) && known_status(c));
                if closed {
                    assert_eq!((b, c), (SQLBATCH_E_CLOSED, SQLBATCH_E_CLOSED));
                }
                a
            }
            // open a blob handle on row arg % 5 (0 and 4 hold no blob: an error)
            16 if !closed && blob.is_null() => {
                let c = open.as_ref().unwrap();
                let (t, col) = (b"bl", b"d");
                unsafe {
                    sqlbatch_blob_open(
                        c.0,
                        ptr::null(),
                        0,
                        t.as_ptr().cast(),
                        2,
                        col.as_ptr().cast(),
                        1,
                        (arg % 5) as i64,
                        arg & 8 != 0,
                        &mut blob,
                    )
                }
            }
            // read, write, reopen, or a batched read of three rows
            17 if !blob.is_null() => {
                let mut buf = vec![0u8; 256];
                let rc = match arg % 4 {
                    0 => unsafe {
                        sqlbatch_blob_read(blob, (arg >> 2) as u64, buf.as_mut_ptr(), (arg >> 3) as usize)
                    },
                    1 => unsafe {
                        sqlbatch_blob_write(blob, (arg >> 4) as u64, buf.as_ptr(), (arg >> 2) as usize)
                    },
                    2 => unsafe { sqlbatch_blob_reopen(blob, (arg >> 2) as i64 % 5) },
                    _ => {
                        let mut ranges: Vec<sqlbatch_blob_range> = (0..3)
                            .map(|j| sqlbatch_blob_range {
                                rowid: ((arg >> 2) as i64 + j) % 5,
                                offset: (arg >> 6) as u64,
                                len: if j == 1 { SQLBATCH_BLOB_TO_END } else { 1 },
                                at: 0,
                            })
                            .collect();
                        let mut done = usize::MAX;
                        let rc = unsafe {
                            sqlbatch_blob_read_many(
                                blob,
                                ranges.as_mut_ptr(),
                                3,
                                buf.as_mut_ptr(),
                                (arg >> 1) as usize,
                                &mut done,
                            )
                        };
                        assert!(done <= 3 && (rc != SQLBATCH_OK || done == 3), "read_many {rc} {done}");
                        for r in &ranges[..done] {
                            assert!(r.at + r.len <= (arg >> 1) as u64);
                        }
                        rc
                    }
                };
                if closed {
                    assert_eq!(rc, SQLBATCH_E_CLOSED, "blob op on a closed connection");
                }
                rc
            }
            18 if !blob.is_null() => {
                unsafe { sqlbatch_blob_close(blob) };
                blob = ptr::null_mut();
                SQLBATCH_OK
            }
            // a backup to or from a second connection: start, step, finish; or close that one
            19 if backup.is_null() && !closed => {
                let c = open.as_ref().unwrap();
                let o = other.get_or_insert_with(Conn::memory);
                let (d, s2) = if arg & 1 == 0 { (c.0, o.0) } else { (o.0, c.0) };
                unsafe { sqlbatch_backup_init(d, ptr::null(), 0, s2, ptr::null(), 0, &mut backup) }
            }
            19 if !backup.is_null() => match arg % 4 {
                0 => {
                    let rc = unsafe { sqlbatch_backup_finish(backup) };
                    backup = ptr::null_mut();
                    rc
                }
                1 => {
                    drop(other.take()); // the other connection closes under the backup
                    SQLBATCH_OK
                }
                _ => {
                    let rc = unsafe { sqlbatch_backup_step(backup, (arg >> 2) as i32 - 8) };
                    if closed || other.is_none() {
                        assert_eq!(rc, SQLBATCH_E_CLOSED, "backup step with a connection closed");
                    }
                    rc
                }
            },
            // a session recording every table: created; then its changeset applied back to
            // this connection or to the other one (a policy from arg), inverted, or the
            // session deleted; a preupdate hook, refused while it lives
            20 if session.is_null() && !closed => {
                let c = open.as_ref().unwrap();
                let rc = unsafe { sqlbatch_session_create(c.0, ptr::null(), 0, &mut session) };
                if rc == SQLBATCH_OK {
                    assert_eq!(unsafe { sqlbatch_session_attach(session, ptr::null(), 0) }, SQLBATCH_OK);
                }
                rc
            }
            20 if !session.is_null() => match arg % 4 {
                0 => {
                    let rc = unsafe { sqlbatch_session_delete(session) };
                    assert_eq!(rc, SQLBATCH_OK);
                    session = ptr::null_mut();
                    rc
                }
                1 | 2 => {
                    let (mut p, mut n) = (ptr::null_mut(), 0usize);
                    let rc = unsafe { sqlbatch_session_changeset(session, &mut p, &mut n) };
                    if closed {
                        assert_eq!(rc, SQLBATCH_E_CLOSED);
                    }
                    if rc == SQLBATCH_OK {
                        let target = if arg % 4 == 1 { open.as_ref() } else { other.as_ref() };
                        let x = match target {
                            Some(t) => run(&mut || unsafe {
                                sqlbatch_conn_apply_changeset(
                                    t.0,
                                    p,
                                    n,
                                    0,
                                    (arg >> 2) as i32 % 3,
                                    None,
                                    None,
                                    ptr::null_mut(),
                                )
                            }),
                            None => SQLBATCH_OK,
                        };
                        assert!(known_status(x) && x != SQLBATCH_E_PANIC, "apply {x}");
                        let (mut q, mut m) = (ptr::null_mut(), 0usize);
                        let y = unsafe { sqlbatch_changeset_invert(p, n, &mut q, &mut m) };
                        assert!(
                            y == SQLBATCH_OK || cut_short(y),
                            "inverting the library's own changeset: {y}"
                        );
                        unsafe {
                            sqlbatch_free(q.cast());
                            sqlbatch_free(p.cast());
                        }
                    }
                    rc
                }
                _ => {
                    let c = if closed { ptr::null_mut() } else { open.as_ref().unwrap().0 };
                    let rc = unsafe {
                        sqlbatch_conn_preupdate_hook(c, 0, Some(no_preupdate), ptr::null_mut(), None)
                    };
                    // (SQLITE_BUSY while the connection is a backup's destination.)
                    let refused = [libsqlite3_sys::SQLITE_MISUSE, libsqlite3_sys::SQLITE_BUSY];
                    assert!(
                        if closed { rc == SQLBATCH_E_NULL_PARAMETER } else { refused.contains(&rc) },
                        "preupdate hook {rc}"
                    );
                    let mut empty = false;
                    let e = unsafe { sqlbatch_session_is_empty(session, &mut empty) };
                    assert!(known_status(e) && e != SQLBATCH_E_PANIC);
                    rc
                }
            },
            _ => continue,
        };
        assert!(known_status(rc) && rc != SQLBATCH_E_PANIC, "call {call} returned {rc}");
        if closed && !matches!(call, 9 | 10 | 16..=20) {
            assert_eq!(rc, SQLBATCH_E_CLOSED, "call {call} on a statement of a closed connection");
        }
    }
    // A backup into the connection makes it the backup's alone (SQLITE_BUSY) until finished.
    // An open blob handle is a running statement to SQLite: an interrupt stays pending while
    // it is open. Both are released here, then, in an order the input picks.
    unsafe {
        if k.bit() {
            sqlbatch_blob_close(blob);
            sqlbatch_backup_finish(backup);
        } else {
            sqlbatch_backup_finish(backup);
            sqlbatch_blob_close(blob);
        }
    }
    (blob, backup) = (ptr::null_mut(), ptr::null_mut());
    if let Some(c) = &open {
        // (Reset first: an interrupt made while another statement was running stays pending
        // until no statement runs.)
        for &s in &stmts {
            if !s.is_null() {
                unsafe { sqlbatch_stmt_reset(s) };
            }
        }
        c.check_usable();
    }
    // Statements, blob, backup and connections released in either order.
    if k.bit() {
        drop(open.take());
    }
    if k.bit() {
        drop(other.take());
    }
    for s in stmts {
        unsafe { sqlbatch_stmt_finalize(s) };
    }
    unsafe {
        sqlbatch_blob_close(blob);
        sqlbatch_backup_finish(backup);
    }
    if k.bit() {
        assert_eq!(unsafe { sqlbatch_session_delete(session) }, SQLBATCH_OK);
        session = ptr::null_mut();
    }
    drop(open);
    drop(other);
    assert_eq!(unsafe { sqlbatch_session_delete(session) }, SQLBATCH_OK);
});
