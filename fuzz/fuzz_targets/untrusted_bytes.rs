//! Byte buffers that come from outside: a database to deserialize, and a changeset to apply,
//! invert and concatenate. Both are read by SQLite's code from memory the library hands it,
//! and a corrupt one must be an error (`SQLITE_CORRUPT`, `SQLITE_NOTADB`, ...), never a crash,
//! a hang or a leak.
//!
//! Knob 0 picks what the rest of the input is, and how it is used:
//! - bit 0 clear: a database image. Bit 1: the bytes as they are; otherwise SQL run on a
//!   fresh database (the common schema first), whose image is then damaged at the places and
//!   with the bytes knobs 8.. give (pairs of position and value). It is deserialized (knob 1
//!   picks read-only / resizeable), then read: the schema, every table (bounded), an integrity
//!   check, a write, and serialized again. With knob 1 bit 2 it is written to a file instead
//!   and opened from there with `SQLBATCH_OPEN_UNTRUSTED` (SQLite's defenses, and the file
//!   checked at open), then read and written the same way.
//! - bit 0 set: a changeset. Bit 1: the bytes as they are; otherwise SQL run under a session
//!   on a database with the common schema, whose changeset (or patchset, knob 1 bit 2) is
//!   damaged the same way. It is applied to a database with the common schema (knob 2 picks
//!   the conflict policy and apply flags; with knob 2 bit 7 a conflict callback reads every
//!   row it is handed, which ASan checks), read change by change (every cell touched, plain
//!   and inverted), inverted, and concatenated with itself.
//!
//! Checks: every status is documented and never a panic; a failed call hands out no buffer;
//! the connection still works afterwards; everything is released (ASan's leak check).
#![no_main]

use std::ffi::c_void;
use std::ptr;

use libfuzzer_sys::fuzz_target;
use sqlbatch_fuzz::*;

fn ok(rc: i32, what: &str) {
    assert!(known_status(rc) && rc != SQLBATCH_E_PANIC, "{what}: {rc}");
}

/// A buffer the library handed out: checked against its status, read, freed.
fn take(rc: i32, p: *mut u8, n: usize, what: &str) -> Option<Vec<u8>> {
    ok(rc, what);
    if rc != SQLBATCH_OK {
        assert!(p.is_null() && n == 0, "{what} failed ({rc}) but handed out a buffer");
        return None;
    }
    assert_eq!(p.is_null(), n == 0, "{what}: buffer {p:?} of {n} bytes");
    let v = if n == 0 { Vec::new() } else { unsafe { std::slice::from_raw_parts(p, n) }.to_vec() };
    unsafe { sqlbatch_free(p.cast()) };
    Some(v)
}

/// Overwrites bytes of `buf` at the (position, value) pairs the knobs give.
fn damage(buf: &mut [u8], k: &mut Knobs<'_>) {
    if buf.is_empty() {
        return;
    }
    for _ in 0..16 {
        let (at, v) = (k.u16() as usize, k.byte());
        if at == 0 && v == 0 {
            break;
        }
        let i = at % buf.len();
        buf[i] = v;
    }
}

fn database(c: &Conn, sql: &[u8], raw: bool, k: &mut Knobs<'_>) -> Vec<u8> {
    if raw {
        return sql.to_vec();
    }
    let rc = guarded(c.0, || c.exec_raw(sql, None).0).0;
    ok(rc, "script");
    let (mut p, mut n) = (ptr::null_mut(), 0);
    let rc = unsafe { sqlbatch_conn_serialize(c.0, ptr::null(), 0, &mut p, &mut n) };
    let mut image = take(rc, p, n, "serialize").unwrap_or_default();
    damage(&mut image, k);
    image
}

fn read_database(image: &[u8], flags: u32) {
    let c = Conn::memory();
    let rc = unsafe { sqlbatch_conn_deserialize(c.0, ptr::null(), 0, image.as_ptr(), image.len(), flags) };
    ok(rc, "deserialize");
    if rc == SQLBATCH_OK {
        use_database(&c);
        let (mut p, mut n) = (ptr::null_mut(), 0);
        let rc = unsafe { sqlbatch_conn_serialize(c.0, ptr::null(), 0, &mut p, &mut n) };
        take(rc, p, n, "serialize again");
    }
    // A damaged database fails every statement with an error (even `SELECT 42` reads the
    // schema, and so does a second deserialize: SQLite attaches the new image by SQL); where
    // the image was good enough, the connection takes an empty database and works.
    let rc = unsafe { sqlbatch_conn_deserialize(c.0, ptr::null(), 0, ptr::null(), 0, 0) };
    ok(rc, "deserialize an empty database");
    if rc == SQLBATCH_OK {
        c.check_usable();
    }
}

/// The reads and the write of a database that opened.
fn use_database(c: &Conn) {
    for q in [
        "SELECT type, name, tbl_name, sql FROM sqlite_schema",
        "PRAGMA integrity_check",
        "PRAGMA foreign_key_check",
    ] {
        let rc = guarded(c.0, || c.try_rows(q, 1000).err().unwrap_or(SQLBATCH_OK)).0;
        ok(rc, q);
    }
    let write =
        "INSERT INTO t(a) VALUES (1); CREATE TABLE IF NOT EXISTS z(x); INSERT INTO z VALUES (zeroblob(5000))";
    let rc = guarded(c.0, || c.try_exec(write).0).0;
    ok(rc, write);
    let _ = guarded(c.0, || c.dump(200)).0;
}

/// The image as a file from anyone: opened with SQLBATCH_OPEN_UNTRUSTED, then used.
fn read_database_file(image: &[u8]) {
    let dir =
        if std::path::Path::new("/dev/shm").is_dir() { "/dev/shm".into() } else { std::env::temp_dir() };
    let path = dir.join(format!("sqlbatch-fuzz-{}.db", std::process::id()));
    let remove = || {
        for suffix in ["", "-journal", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
    };
    remove();
    std::fs::write(&path, image).expect("write the database file");
    let p = path.to_str().expect("UTF-8 path");
    let mut conn = ptr::null_mut();
    let rc = unsafe { sqlbatch_conn_open(p.as_ptr().cast(), p.len(), SQLBATCH_OPEN_UNTRUSTED, &mut conn) };
    ok(rc, "open untrusted");
    let c = Conn(conn);
    if rc == SQLBATCH_OK {
        use_database(&c);
    }
    drop(c);
    remove();
}

fn changeset(sql: &[u8], raw: bool, patchset: bool, k: &mut Knobs<'_>) -> Vec<u8> {
    if raw {
        return sql.to_vec();
    }
    let c = Conn::memory();
    c.exec(SETUP);
    let mut s = ptr::null_mut();
    unsafe {
        assert_eq!(sqlbatch_session_create(c.0, ptr::null(), 0, &mut s), SQLBATCH_OK);
        assert_eq!(sqlbatch_session_attach(s, ptr::null(), 0), SQLBATCH_OK);
    }
    let rc = guarded(c.0, || c.exec_raw(sql, None).0).0;
    ok(rc, "script");
    let (mut p, mut n) = (ptr::null_mut(), 0);
    let rc = unsafe {
        if patchset {
            sqlbatch_session_patchset(s, &mut p, &mut n)
        } else {
            sqlbatch_session_changeset(s, &mut p, &mut n)
        }
    };
    let mut cs = take(rc, p, n, "changeset").unwrap_or_default();
    unsafe { assert_eq!(sqlbatch_session_delete(s), SQLBATCH_OK) };
    damage(&mut cs, k);
    cs
}

/// A conflict callback that reads every cell it is handed, then answers from its user data.
unsafe extern "C" fn read_conflict(u: *mut c_void, c: *const sqlbatch_conflict) -> i32 {
    let c = unsafe { &*c };
    let mut sum = 0u64;
    for values in [c.old_values, c.new_values, c.conflict_values] {
        if values.is_null() {
            continue;
        }
        for v in unsafe { std::slice::from_raw_parts(values, c.n_cols) } {
            assert!(v.kind <= SQLBATCH_NULL, "kind {}", v.kind);
            if v.has_bytes() && v.len > 0 {
                let b = unsafe { std::slice::from_raw_parts(c.data.add(v.bits as usize), v.len as usize) };
                sum += b.iter().map(|&x| x as u64).sum::<u64>();
            }
        }
    }
    std::hint::black_box(sum);
    u as usize as i32
}

/// A changeset reader's callback that reads every cell and key flag it is handed.
unsafe extern "C" fn read_changes(
    _: *mut c_void,
    changes: *const sqlbatch_changeset_change,
    n: usize,
    data: *const u8,
) -> i32 {
    let mut sum = 0u64;
    for c in unsafe { std::slice::from_raw_parts(changes, n) } {
        assert!(!c.table.ptr.is_null() && unsafe { *c.table.ptr.add(c.table.len) } == 0);
        sum += unsafe { std::slice::from_raw_parts(c.primary_key, c.n_cols) }
            .iter()
            .map(|&b| b as u64)
            .sum::<u64>();
        for values in [c.old_values, c.new_values] {
            if values.is_null() {
                continue;
            }
            for v in unsafe { std::slice::from_raw_parts(values, c.n_cols) } {
                assert!(v.kind <= SQLBATCH_NULL, "kind {}", v.kind);
                if v.has_bytes() && v.len > 0 {
                    let b = unsafe { std::slice::from_raw_parts(data.add(v.bits as usize), v.len as usize) };
                    sum += b.iter().map(|&x| x as u64).sum::<u64>();
                }
            }
        }
    }
    std::hint::black_box(sum);
    0
}

fn use_changeset(cs: &[u8], knob: u8) {
    for flags in [0, SQLBATCH_CHANGESET_READ_INVERT] {
        let rc = unsafe {
            sqlbatch_changeset_read(
                cs.as_ptr(),
                cs.len(),
                flags,
                (knob % 4) as usize,
                Some(read_changes),
                ptr::null_mut(),
            )
        };
        ok(rc, "read");
    }
    let c = Conn::memory();
    c.exec(SETUP);
    let policy = (knob % 3) as i32;
    let flags = ((knob >> 2) & 0xf) as u32;
    let conflict: sqlbatch_conflict_fn = if knob & 0x80 != 0 { Some(read_conflict) } else { None };
    let answer = ((knob >> 5) % 3) as usize as *mut c_void;
    let rc = guarded(c.0, || unsafe {
        sqlbatch_conn_apply_changeset(c.0, cs.as_ptr(), cs.len(), flags, policy, conflict, None, answer)
    })
    .0;
    ok(rc, "apply");
    c.check_usable();
    let (mut p, mut n) = (ptr::null_mut(), 0);
    let rc = unsafe { sqlbatch_changeset_invert(cs.as_ptr(), cs.len(), &mut p, &mut n) };
    if let Some(inverse) = take(rc, p, n, "invert") {
        let rc = guarded(c.0, || unsafe {
            sqlbatch_conn_apply_changeset(
                c.0,
                inverse.as_ptr(),
                inverse.len(),
                0,
                policy,
                None,
                None,
                ptr::null_mut(),
            )
        })
        .0;
        ok(rc, "apply the inverse");
    }
    let rc =
        unsafe { sqlbatch_changeset_concat(cs.as_ptr(), cs.len(), cs.as_ptr(), cs.len(), &mut p, &mut n) };
    take(rc, p, n, "concat");
    c.check_usable();
}

fuzz_target!(|data: &[u8]| {
    init();
    let (mut k, bytes) = split(data);
    let (mode, knob1, knob2) = (k.byte(), k.byte(), k.byte());
    for _ in 3..8 {
        k.byte();
    }
    let raw = mode & 2 != 0;
    if !raw && skip_sql(bytes) {
        return;
    }
    if mode & 1 == 0 {
        let c = Conn::memory();
        c.exec(SETUP);
        let image = database(&c, bytes, raw, &mut k);
        drop(c);
        if knob1 & 4 != 0 {
            read_database_file(&image);
        } else {
            let flags = match knob1 % 3 {
                0 => 0,
                1 => SQLBATCH_DESERIALIZE_READONLY,
                _ => SQLBATCH_DESERIALIZE_RESIZEABLE,
            };
            read_database(&image, flags);
        }
    } else {
        let cs = changeset(bytes, raw, knob1 & 4 != 0, &mut k);
        use_changeset(&cs, knob2);
    }
});
