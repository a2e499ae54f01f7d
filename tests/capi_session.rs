//! The preupdate hook, sessions and changesets through the C ABI.

mod common;
use common::*;
use libsqlite3_sys as sq;
use std::ffi::{c_char, c_void, CStr};
use std::ptr;
use std::sync::Mutex;

/// A row handed to a callback, decoded; `None` for an `SQLBATCH_UNDEFINED` cell.
type Row = Vec<Option<Val>>;

/// Decodes `n` cells whose bytes are at `data`, checking each (known kind, zero padding).
unsafe fn row(values: *const sqlbatch_value, n: usize, data: *const u8) -> Option<Row> {
    if values.is_null() {
        return None;
    }
    let cells = unsafe { std::slice::from_raw_parts(values, n) };
    Some(
        cells
            .iter()
            .map(|v| {
                assert_eq!(v._pad, [0; 3]);
                let bytes = || {
                    unsafe { std::slice::from_raw_parts(data.add(v.bits as usize), v.len as usize) }.to_vec()
                };
                match v.kind {
                    SQLBATCH_UNDEFINED => None,
                    SQLBATCH_NULL => Some(Val::Null),
                    SQLBATCH_INTEGER => Some(Val::Int(v.bits as i64)),
                    SQLBATCH_FLOAT => Some(Val::Float(v.bits)),
                    SQLBATCH_TEXT if v.len == 0 => Some(Val::Text(vec![])),
                    SQLBATCH_BLOB if v.len == 0 => Some(Val::Blob(vec![])),
                    SQLBATCH_TEXT => Some(Val::Text(bytes())),
                    SQLBATCH_BLOB => Some(Val::Blob(bytes())),
                    k => panic!("cell kind {k}"),
                }
            })
            .collect(),
    )
}

fn s(p: sqlbatch_str) -> String {
    assert!(!p.ptr.is_null());
    let c = unsafe { CStr::from_ptr(p.ptr) }.to_str().unwrap().to_string();
    assert_eq!(c.len(), p.len);
    c
}

fn all(r: &[Val]) -> Row {
    r.iter().cloned().map(Some).collect()
}

/// One preupdate event: (op, depth, "schema.table", old rowid, new rowid, old row, new row,
/// blob column).
type Pre = (i32, i32, String, i64, i64, Option<Row>, Option<Row>, i32);

/// One conflict: (kind, op, table, old row, new row, conflicting row, indirect + 10 x foreign
/// key violations).
type Conflict = (i32, i32, String, Option<Row>, Option<Row>, Option<Row>, i32);

#[derive(Default)]
struct Seen {
    pre: Vec<Pre>,
    destroyed: usize,
    /// What a call on the connection from inside the hook returned.
    reentry: Option<i32>,
    conn: usize,
    conflicts: Vec<Conflict>,
    answer: i32,
    skip: Option<String>,
    stop: Option<String>,
}

fn st(p: *mut c_void) -> std::sync::MutexGuard<'static, Seen> {
    unsafe { &*(p as *const Mutex<Seen>) }.lock().unwrap_or_else(|e| e.into_inner())
}

fn new_seen() -> (Box<Mutex<Seen>>, *mut c_void) {
    let b = Box::new(Mutex::new(Seen::default()));
    let p = &*b as *const Mutex<Seen> as *mut c_void;
    (b, p)
}

unsafe extern "C" fn count_destroy(u: *mut c_void) {
    st(u).destroyed += 1;
}

unsafe extern "C" fn on_pre(u: *mut c_void, c: *const sqlbatch_preupdate) {
    let c = unsafe { &*c };
    let name = format!("{}.{}", s(c.schema), s(c.table));
    let (old, new) = unsafe { (row(c.old_values, c.n_cols, c.data), row(c.new_values, c.n_cols, c.data)) };
    let mut g = st(u);
    if g.conn != 0 {
        let conn = g.conn as *mut sqlbatch_conn;
        drop(g);
        let rc = unsafe { prepare_probe(conn) };
        g = st(u);
        g.reentry = Some(rc);
    }
    g.pre.push((c.op, c.depth, name, c.old_rowid, c.new_rowid, old, new, c.blob_column));
}

/// A call on the connection (which a hook must not make): a prepare.
unsafe fn prepare_probe(conn: *mut sqlbatch_conn) -> i32 {
    let mut stmt = ptr::null_mut();
    let sql = "SELECT 1";
    let rc =
        unsafe { sqlbatch_stmt_prepare(conn, sql.as_ptr().cast(), sql.len(), 0, &mut stmt, ptr::null_mut()) };
    unsafe { sqlbatch_stmt_finalize(stmt) };
    rc
}

const BOTH: u32 = SQLBATCH_PREUPDATE_OLD | SQLBATCH_PREUPDATE_NEW;

#[test]
fn the_preupdate_hook_hands_over_whole_rows_before_each_change() {
    let (seen, p) = new_seen();
    let c = Conn::memory();
    c.exec("CREATE TABLE t(a INTEGER, b TEXT, c BLOB, d REAL, e); CREATE TABLE log(x); CREATE TABLE k(id TEXT PRIMARY KEY, v) WITHOUT ROWID; CREATE TRIGGER tr AFTER DELETE ON t BEGIN INSERT INTO log VALUES (old.a); END");
    assert_eq!(
        unsafe { sqlbatch_conn_preupdate_hook(c.0, BOTH, Some(on_pre), p, Some(count_destroy)) },
        SQLBATCH_OK
    );
    c.exec("INSERT INTO t VALUES (1, 'one', x'00ff', 1.5, NULL)");
    c.exec("UPDATE t SET b = '', c = x'' WHERE a = 1");
    c.exec("DELETE FROM t");
    c.exec("INSERT INTO k VALUES ('key', 7)");
    let row1 = vec![Val::Int(1), t("one"), Val::Blob(vec![0, 0xff]), f(1.5), Val::Null];
    let row2 = vec![Val::Int(1), t(""), Val::Blob(vec![]), f(1.5), Val::Null];
    let got = std::mem::take(&mut st(p).pre);
    assert_eq!(got.len(), 5, "{got:?}");
    assert_eq!(got[0], (sq::SQLITE_INSERT, 0, "main.t".into(), 0, 1, None, Some(all(&row1)), -1));
    assert_eq!(got[1], (sq::SQLITE_UPDATE, 0, "main.t".into(), 1, 1, Some(all(&row1)), Some(all(&row2)), -1));
    assert_eq!(got[2], (sq::SQLITE_DELETE, 0, "main.t".into(), 1, 0, Some(all(&row2)), None, -1));
    // The trigger's insert is one level down.
    assert_eq!(got[3], (sq::SQLITE_INSERT, 1, "main.log".into(), 0, 1, None, Some(all(&[Val::Int(1)])), -1));
    // A WITHOUT ROWID table is seen too (the update hook does not see it).
    assert_eq!(
        (got[4].0, got[4].2.as_str(), got[4].6.clone()),
        (sq::SQLITE_INSERT, "main.k", Some(all(&[t("key"), Val::Int(7)])))
    );

    // Without the flags, only what changed where; the same rowids.
    assert_eq!(
        unsafe { sqlbatch_conn_preupdate_hook(c.0, 0, Some(on_pre), p, Some(count_destroy)) },
        SQLBATCH_OK
    );
    assert_eq!(st(p).destroyed, 1, "the replaced registration's user data is released");
    c.exec("INSERT INTO t(a) VALUES (2)");
    // (t is empty again: the new row takes rowid 1.)
    assert_eq!(st(p).pre.pop().unwrap(), (sq::SQLITE_INSERT, 0, "main.t".into(), 0, 1, None, None, -1));

    // Unknown flags: refused, and the user data released at once.
    assert_eq!(
        unsafe { sqlbatch_conn_preupdate_hook(c.0, 4, Some(on_pre), p, Some(count_destroy)) },
        SQLBATCH_E_INVALID_ARGUMENT
    );
    assert_eq!(st(p).destroyed, 2);
    // The hook must not use its connection: the call is refused, the change still happens.
    st(p).conn = c.0 as usize;
    c.exec("INSERT INTO t(a) VALUES (3)");
    assert_eq!(st(p).reentry, Some(sq::SQLITE_MISUSE));
    st(p).conn = 0;
    assert_eq!(c.rows("SELECT count(*) FROM t"), vec![vec![Val::Int(2)]]);
    drop(c);
    assert_eq!(seen.lock().unwrap().destroyed, 3, "close releases the last registration");
}

#[test]
fn the_preupdate_hook_sees_blob_writes_as_deletes_with_their_column() {
    let (_seen, p) = new_seen();
    let c = Conn::memory();
    c.exec("CREATE TABLE b(x BLOB); INSERT INTO b VALUES (zeroblob(4))");
    assert_eq!(unsafe { sqlbatch_conn_preupdate_hook(c.0, BOTH, Some(on_pre), p, None) }, SQLBATCH_OK);
    let mut blob = ptr::null_mut();
    unsafe {
        assert_eq!(
            sqlbatch_blob_open(c.0, ptr::null(), 0, c"b".as_ptr(), 1, c"x".as_ptr(), 1, 1, true, &mut blob),
            SQLBATCH_OK
        );
        assert_eq!(sqlbatch_blob_write(blob, 1, [7u8, 8].as_ptr(), 2), SQLBATCH_OK);
        sqlbatch_blob_close(blob);
    }
    let got = st(p).pre.clone();
    assert_eq!(got.len(), 1);
    let (op, _, _, old_rowid, _, old, new, column) = &got[0];
    assert_eq!((*op, *old_rowid, *column, new.clone()), (sq::SQLITE_DELETE, 1, 0, None));
    assert_eq!(old.clone(), Some(all(&[Val::Blob(vec![0; 4])])));
}

/// Opens a session on `c` recording every table.
fn session(c: &Conn) -> *mut sqlbatch_session {
    let mut s = ptr::null_mut();
    unsafe {
        assert_eq!(sqlbatch_session_create(c.0, ptr::null(), 0, &mut s), SQLBATCH_OK, "{}", c.error().1);
        assert_eq!(sqlbatch_session_attach(s, ptr::null(), 0), SQLBATCH_OK);
    }
    s
}

/// A buffer the library handed over, copied and freed.
unsafe fn take(p: *mut u8, n: usize) -> Vec<u8> {
    assert_eq!(p.is_null(), n == 0);
    let v = if n == 0 { vec![] } else { unsafe { std::slice::from_raw_parts(p, n) }.to_vec() };
    unsafe { sqlbatch_free(p.cast()) };
    v
}

fn changeset(s: *mut sqlbatch_session) -> Vec<u8> {
    let (mut p, mut n) = (ptr::null_mut(), 0);
    assert_eq!(unsafe { sqlbatch_session_changeset(s, &mut p, &mut n) }, SQLBATCH_OK);
    unsafe { take(p, n) }
}

fn apply(c: &Conn, cs: &[u8], policy: i32) -> i32 {
    unsafe {
        sqlbatch_conn_apply_changeset(c.0, cs.as_ptr(), cs.len(), 0, policy, None, None, ptr::null_mut())
    }
}

const SCHEMA: &str =
    "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT, w BLOB); CREATE TABLE u(k TEXT PRIMARY KEY, n INT)";

#[test]
fn a_session_records_changes_that_apply_invert_and_concatenate() {
    let (src, dst) = (Conn::memory(), Conn::memory());
    src.exec(SCHEMA);
    dst.exec(SCHEMA);
    src.exec("INSERT INTO t VALUES (1, 'kept', x'01'), (2, 'changed', NULL), (3, 'deleted', NULL)");
    dst.exec("INSERT INTO t VALUES (1, 'kept', x'01'), (2, 'changed', NULL), (3, 'deleted', NULL)");
    let sess = session(&src);
    let mut empty = false;
    unsafe { assert_eq!(sqlbatch_session_is_empty(sess, &mut empty), SQLBATCH_OK) };
    assert!(empty);
    assert_eq!(changeset(sess), Vec::<u8>::new(), "no change: no buffer");
    src.exec("UPDATE t SET v = 'new' WHERE id = 2; DELETE FROM t WHERE id = 3; INSERT INTO t VALUES (4, 'added', x'ff00'); INSERT INTO u VALUES ('a', 1)");
    unsafe { assert_eq!(sqlbatch_session_is_empty(sess, &mut empty), SQLBATCH_OK) };
    assert!(!empty);
    let cs = changeset(sess);
    assert!(!cs.is_empty());
    assert_eq!(apply(&dst, &cs, SQLBATCH_CHANGESET_ABORT), SQLBATCH_OK, "{}", dst.error().1);
    assert_eq!(dst.rows("SELECT * FROM t ORDER BY id"), src.rows("SELECT * FROM t ORDER BY id"));
    assert_eq!(dst.rows("SELECT * FROM u"), vec![vec![t("a"), Val::Int(1)]]);

    // The inverse undoes it.
    let (mut p, mut n) = (ptr::null_mut(), 0);
    assert_eq!(unsafe { sqlbatch_changeset_invert(cs.as_ptr(), cs.len(), &mut p, &mut n) }, SQLBATCH_OK);
    let undo = unsafe { take(p, n) };
    assert_eq!(apply(&dst, &undo, SQLBATCH_CHANGESET_ABORT), SQLBATCH_OK);
    assert_eq!(
        dst.rows("SELECT id, v FROM t ORDER BY id"),
        vec![vec![Val::Int(1), t("kept")], vec![Val::Int(2), t("changed")], vec![Val::Int(3), t("deleted")]]
    );
    assert_eq!(dst.rows("SELECT count(*) FROM u"), vec![vec![Val::Int(0)]]);
    // So does the changeset applied with SQLBATCH_APPLY_INVERT, and a truncated one applied so
    // fails before it changes anything, even without a savepoint.
    let apply_inverted = |c: &Conn, cs: &[u8], flags: u32| unsafe {
        let flags = flags | SQLBATCH_APPLY_INVERT;
        sqlbatch_conn_apply_changeset(
            c.0,
            cs.as_ptr(),
            cs.len(),
            flags,
            SQLBATCH_CHANGESET_ABORT,
            None,
            None,
            ptr::null_mut(),
        )
    };
    let before = dst.rows("SELECT * FROM t ORDER BY id");
    assert_eq!(apply(&dst, &cs, SQLBATCH_CHANGESET_ABORT), SQLBATCH_OK);
    let after = dst.rows("SELECT * FROM t ORDER BY id");
    assert_eq!(apply_inverted(&dst, &cs[..cs.len() - 3], SQLBATCH_APPLY_NOSAVEPOINT), sq::SQLITE_CORRUPT);
    assert_eq!(dst.rows("SELECT * FROM t ORDER BY id"), after, "nothing applied");
    assert_eq!(apply_inverted(&dst, &cs, 0), SQLBATCH_OK, "{}", dst.error().1);
    assert_eq!(dst.rows("SELECT * FROM t ORDER BY id"), before);
    assert_eq!(dst.rows("SELECT count(*) FROM u"), vec![vec![Val::Int(0)]]);

    // Two changesets concatenated do what both do.
    src.exec("UPDATE u SET n = 2");
    let cs2 = {
        let s2 = session(&src);
        src.exec("UPDATE u SET n = 3; INSERT INTO u VALUES ('b', 9)");
        let cs2 = changeset(s2);
        assert_eq!(unsafe { sqlbatch_session_delete(s2) }, SQLBATCH_OK);
        cs2
    };
    let all_changes = changeset(sess);
    let (mut p, mut n) = (ptr::null_mut(), 0);
    assert_eq!(
        unsafe { sqlbatch_changeset_concat(cs.as_ptr(), cs.len(), cs2.as_ptr(), cs2.len(), &mut p, &mut n) },
        SQLBATCH_OK
    );
    let both = unsafe { take(p, n) };
    let fresh = Conn::memory();
    fresh.exec(SCHEMA);
    fresh.exec("INSERT INTO t VALUES (1, 'kept', x'01'), (2, 'changed', NULL), (3, 'deleted', NULL)");
    // The insert of ('a', 1) and the update of its n to 3 merge into one insert of ('a', 3).
    assert_eq!(apply(&fresh, &both, SQLBATCH_CHANGESET_ABORT), SQLBATCH_OK, "{}", fresh.error().1);
    assert_eq!(
        fresh.rows("SELECT * FROM u ORDER BY k"),
        vec![vec![t("a"), Val::Int(3)], vec![t("b"), Val::Int(9)]]
    );
    assert!(!all_changes.is_empty());

    // A patchset applies too.
    let (mut p, mut n) = (ptr::null_mut(), 0);
    assert_eq!(unsafe { sqlbatch_session_patchset(sess, &mut p, &mut n) }, SQLBATCH_OK);
    let patch = unsafe { take(p, n) };
    assert!(patch.len() < all_changes.len(), "a patchset leaves out old values");
    let other = Conn::memory();
    other.exec(SCHEMA);
    other.exec("INSERT INTO t VALUES (1, 'kept', x'01'), (2, 'changed', NULL), (3, 'deleted', NULL)");
    assert_eq!(apply(&other, &patch, SQLBATCH_CHANGESET_ABORT), SQLBATCH_OK, "{}", other.error().1);
    assert_eq!(other.rows("SELECT * FROM t ORDER BY id"), src.rows("SELECT * FROM t ORDER BY id"));
    assert_eq!(other.rows("SELECT * FROM u ORDER BY k"), src.rows("SELECT * FROM u ORDER BY k"));
    // A patchset cannot be inverted.
    let (mut p, mut n) = (ptr::null_mut(), 0);
    assert_eq!(
        unsafe { sqlbatch_changeset_invert(patch.as_ptr(), patch.len(), &mut p, &mut n) },
        sq::SQLITE_CORRUPT
    );
    assert!(p.is_null() && n == 0);
    // Nor applied inverted (SQLite refuses it the same way).
    let rc = unsafe {
        let flags = SQLBATCH_APPLY_INVERT;
        sqlbatch_conn_apply_changeset(
            other.0,
            patch.as_ptr(),
            patch.len(),
            flags,
            0,
            None,
            None,
            ptr::null_mut(),
        )
    };
    assert_eq!(rc, sq::SQLITE_CORRUPT);
    assert_eq!(other.rows("SELECT * FROM u ORDER BY k"), src.rows("SELECT * FROM u ORDER BY k"));
    assert_eq!(unsafe { sqlbatch_session_delete(sess) }, SQLBATCH_OK);
}

#[test]
fn disabled_and_indirect_and_attached_tables_only() {
    let c = Conn::memory();
    c.exec(SCHEMA);
    c.exec("CREATE TABLE nopk(x)");
    let mut sess = ptr::null_mut();
    unsafe {
        assert_eq!(sqlbatch_session_create(c.0, c"main".as_ptr(), 4, &mut sess), SQLBATCH_OK);
        assert_eq!(sqlbatch_session_attach(sess, c"u".as_ptr(), 1), SQLBATCH_OK);
        assert_eq!(sqlbatch_session_attach(sess, c"nopk".as_ptr(), 4), SQLBATCH_OK);
    }
    c.exec("INSERT INTO t VALUES (1, 'not attached', NULL); INSERT INTO nopk VALUES (1)");
    let mut empty = false;
    unsafe { sqlbatch_session_is_empty(sess, &mut empty) };
    assert!(empty, "t is not attached, nopk has no primary key");
    unsafe { assert_eq!(sqlbatch_session_set_enabled(sess, false), SQLBATCH_OK) };
    c.exec("INSERT INTO u VALUES ('off', 0)");
    unsafe { sqlbatch_session_is_empty(sess, &mut empty) };
    assert!(empty, "recording was off");
    unsafe {
        assert_eq!(sqlbatch_session_set_enabled(sess, true), SQLBATCH_OK);
        assert_eq!(sqlbatch_session_set_indirect(sess, true), SQLBATCH_OK);
    }
    c.exec("INSERT INTO u VALUES ('on', 1)");
    let cs = changeset(sess);
    // Applied where the row exists with other values: the callback sees the change as indirect.
    let (_seen, p) = new_seen();
    let dst = Conn::memory();
    dst.exec(SCHEMA);
    dst.exec("INSERT INTO u VALUES ('on', 5)");
    st(p).answer = SQLBATCH_CHANGESET_OMIT;
    let rc = unsafe {
        sqlbatch_conn_apply_changeset(
            dst.0,
            cs.as_ptr(),
            cs.len(),
            0,
            SQLBATCH_CHANGESET_ABORT,
            Some(on_conflict),
            None,
            p,
        )
    };
    assert_eq!(rc, SQLBATCH_OK);
    let got = st(p).conflicts.clone();
    assert_eq!(got.len(), 1);
    assert_eq!((got[0].0, got[0].1, got[0].6), (SQLBATCH_CONFLICT_CONFLICT, sq::SQLITE_INSERT, 1));
    // A bad name, a NULL session.
    unsafe {
        assert_eq!(sqlbatch_session_attach(sess, b"a\0b".as_ptr().cast(), 3), SQLBATCH_E_INVALID_ARGUMENT);
        assert_eq!(sqlbatch_session_attach(ptr::null_mut(), ptr::null(), 0), SQLBATCH_E_NULL_PARAMETER);
        assert_eq!(sqlbatch_session_is_empty(sess, ptr::null_mut()), SQLBATCH_E_NULL_PARAMETER);
        assert_eq!(sqlbatch_session_delete(ptr::null_mut()), SQLBATCH_OK);
        assert_eq!(sqlbatch_session_delete(sess), SQLBATCH_OK);
    }
}

unsafe extern "C" fn on_conflict(u: *mut c_void, c: *const sqlbatch_conflict) -> i32 {
    let c = unsafe { &*c };
    let table = if c.table.ptr.is_null() { String::new() } else { s(c.table) };
    let rows = unsafe {
        (
            row(c.old_values, c.n_cols, c.data),
            row(c.new_values, c.n_cols, c.data),
            row(c.conflict_values, c.n_cols, c.data),
        )
    };
    let mut g = st(u);
    g.conflicts.push((c.kind, c.op, table, rows.0, rows.1, rows.2, c.indirect as i32 + c.fk_violations * 10));
    g.answer
}

unsafe extern "C" fn filter(u: *mut c_void, table: *const c_char) -> i32 {
    let name = unsafe { CStr::from_ptr(table) }.to_str().unwrap();
    let g = st(u);
    if g.stop.as_deref() == Some(name) {
        return -1;
    }
    (g.skip.as_deref() != Some(name)) as i32
}

#[test]
fn conflicts_are_settled_by_the_policy_or_the_callback_which_sees_every_row() {
    let src = Conn::memory();
    src.exec(SCHEMA);
    src.exec("INSERT INTO t VALUES (1, 'a', NULL), (2, 'b', NULL)");
    let sess = session(&src);
    src.exec("UPDATE t SET v = 'a2' WHERE id = 1; DELETE FROM t WHERE id = 2; INSERT INTO t VALUES (3, 'c', x'33'); INSERT INTO u VALUES ('k', 1)");
    let cs = changeset(sess);
    unsafe { sqlbatch_session_delete(sess) };
    // The target: row 1 has another value (DATA), row 2 is gone (NOTFOUND), 3 exists (CONFLICT).
    let target = || {
        let d = Conn::memory();
        d.exec(SCHEMA);
        d.exec("INSERT INTO t VALUES (1, 'other', NULL), (3, 'mine', NULL)");
        d
    };
    // ABORT: nothing applied.
    let d = target();
    assert_eq!(apply(&d, &cs, SQLBATCH_CHANGESET_ABORT), sq::SQLITE_ABORT);
    assert_eq!(d.rows("SELECT v FROM t ORDER BY id"), vec![vec![t("other")], vec![t("mine")]]);
    assert_eq!(d.rows("SELECT count(*) FROM u"), vec![vec![Val::Int(0)]]);
    // OMIT: the conflicting changes skipped, the others applied.
    let d = target();
    assert_eq!(apply(&d, &cs, SQLBATCH_CHANGESET_OMIT), SQLBATCH_OK);
    assert_eq!(d.rows("SELECT v FROM t ORDER BY id"), vec![vec![t("other")], vec![t("mine")]]);
    assert_eq!(d.rows("SELECT count(*) FROM u"), vec![vec![Val::Int(1)]]);
    // REPLACE: the changeset wins where it can; the missing row stays missing.
    let d = target();
    assert_eq!(apply(&d, &cs, SQLBATCH_CHANGESET_REPLACE), SQLBATCH_OK);
    assert_eq!(
        d.rows("SELECT id, v FROM t ORDER BY id"),
        vec![vec![Val::Int(1), t("a2")], vec![Val::Int(3), t("c")]]
    );

    // The callback sees each conflict with its rows; the filter skips table u.
    let (_seen, p) = new_seen();
    st(p).answer = SQLBATCH_CHANGESET_OMIT;
    st(p).skip = Some("u".into());
    let d = target();
    let rc = unsafe {
        sqlbatch_conn_apply_changeset(
            d.0,
            cs.as_ptr(),
            cs.len(),
            0,
            SQLBATCH_CHANGESET_ABORT,
            Some(on_conflict),
            Some(filter),
            p,
        )
    };
    assert_eq!(rc, SQLBATCH_OK);
    assert_eq!(d.rows("SELECT count(*) FROM u"), vec![vec![Val::Int(0)]], "filtered out");
    let mut got = st(p).conflicts.clone();
    got.sort_by_key(|c| c.0);
    let u = None;
    assert_eq!(
        got,
        vec![
            (
                SQLBATCH_CONFLICT_DATA,
                sq::SQLITE_UPDATE,
                "t".into(),
                Some(vec![Some(Val::Int(1)), Some(t("a")), u.clone()]),
                Some(vec![u.clone(), Some(t("a2")), u.clone()]),
                Some(vec![Some(Val::Int(1)), Some(t("other")), Some(Val::Null)]),
                0
            ),
            (
                SQLBATCH_CONFLICT_NOTFOUND,
                sq::SQLITE_DELETE,
                "t".into(),
                Some(vec![Some(Val::Int(2)), Some(t("b")), Some(Val::Null)]),
                None,
                None,
                0
            ),
            (
                SQLBATCH_CONFLICT_CONFLICT,
                sq::SQLITE_INSERT,
                "t".into(),
                None,
                Some(vec![Some(Val::Int(3)), Some(t("c")), Some(Val::Blob(vec![0x33]))]),
                Some(vec![Some(Val::Int(3)), Some(t("mine")), Some(Val::Null)]),
                0
            ),
        ]
    );
    // An answer that is not one of the three aborts; REPLACE where it is not allowed is misuse.
    for (answer, want) in [(7, sq::SQLITE_ABORT), (SQLBATCH_CHANGESET_REPLACE, sq::SQLITE_MISUSE)] {
        let d = target();
        st(p).answer = answer;
        st(p).skip = None;
        let rc = unsafe {
            sqlbatch_conn_apply_changeset(
                d.0,
                cs.as_ptr(),
                cs.len(),
                0,
                SQLBATCH_CHANGESET_ABORT,
                Some(on_conflict),
                None,
                p,
            )
        };
        assert_eq!(rc, want, "answer {answer}");
        assert_eq!(
            d.rows("SELECT v FROM t ORDER BY id"),
            vec![vec![t("other")], vec![t("mine")]],
            "rolled back"
        );
    }
    // A filter can stop the apply: what was applied before is undone (the library's savepoint).
    let d = Conn::memory();
    d.exec(SCHEMA);
    st(p).skip = None;
    st(p).stop = Some("u".into());
    st(p).answer = SQLBATCH_CHANGESET_OMIT;
    let rc = unsafe {
        sqlbatch_conn_apply_changeset(
            d.0,
            cs.as_ptr(),
            cs.len(),
            0,
            SQLBATCH_CHANGESET_OMIT,
            None,
            Some(filter),
            p,
        )
    };
    assert_eq!(rc, sq::SQLITE_ABORT);
    assert!(d.error().1.contains("filter"), "{}", d.error().1);
    assert_eq!(d.rows("SELECT count(*) FROM t"), vec![vec![Val::Int(0)]], "t's changes undone");
    assert!(d.autocommit(), "the savepoint is released");
    // Inside a transaction of the caller's, only the apply is undone.
    d.exec("BEGIN; INSERT INTO u VALUES ('mine', 0)");
    let rc = unsafe {
        sqlbatch_conn_apply_changeset(
            d.0,
            cs.as_ptr(),
            cs.len(),
            0,
            SQLBATCH_CHANGESET_OMIT,
            None,
            Some(filter),
            p,
        )
    };
    assert_eq!(rc, sq::SQLITE_ABORT);
    assert!(!d.autocommit());
    d.exec("COMMIT");
    assert_eq!(d.rows("SELECT k FROM u"), vec![vec![t("mine")]]);
    assert_eq!(d.rows("SELECT count(*) FROM t"), vec![vec![Val::Int(0)]]);
    st(p).stop = None;
    // Bad arguments.
    let d = target();
    unsafe {
        assert_eq!(
            sqlbatch_conn_apply_changeset(d.0, cs.as_ptr(), cs.len(), 0x100, 0, None, None, ptr::null_mut()),
            SQLBATCH_E_INVALID_ARGUMENT
        );
        assert_eq!(
            sqlbatch_conn_apply_changeset(d.0, cs.as_ptr(), cs.len(), 0, 3, None, None, ptr::null_mut()),
            SQLBATCH_E_INVALID_ARGUMENT
        );
        assert_eq!(
            sqlbatch_conn_apply_changeset(d.0, ptr::null(), 5, 0, 0, None, None, ptr::null_mut()),
            SQLBATCH_E_NULL_PARAMETER
        );
        assert_eq!(
            sqlbatch_conn_apply_changeset(d.0, ptr::null(), 0, 0, 0, None, None, ptr::null_mut()),
            SQLBATCH_OK,
            "empty"
        );
    }
}

#[test]
fn foreign_key_conflicts_are_counted_and_abort_or_commit() {
    let src = Conn::memory();
    let schema = "PRAGMA foreign_keys = ON; CREATE TABLE p(id INTEGER PRIMARY KEY); CREATE TABLE c(id INTEGER PRIMARY KEY, p INT REFERENCES p(id))";
    src.exec(schema);
    src.exec("INSERT INTO p VALUES (1)");
    let sess = session(&src);
    src.exec("INSERT INTO c VALUES (10, 1)");
    let cs = changeset(sess);
    unsafe { sqlbatch_session_delete(sess) };
    let (_seen, p) = new_seen();
    for (answer, want, rows) in
        [(SQLBATCH_CHANGESET_ABORT, sq::SQLITE_CONSTRAINT, 0), (SQLBATCH_CHANGESET_OMIT, SQLBATCH_OK, 1)]
    {
        let d = Conn::memory();
        d.exec(schema);
        st(p).answer = answer;
        st(p).conflicts.clear();
        let rc = unsafe {
            sqlbatch_conn_apply_changeset(d.0, cs.as_ptr(), cs.len(), 0, 0, Some(on_conflict), None, p)
        };
        assert_eq!(rc & 0xff, want, "answer {answer}: {}", d.error().1);
        let got = st(p).conflicts.clone();
        assert_eq!(got, vec![(SQLBATCH_CONFLICT_FOREIGN_KEY, 0, String::new(), None, None, None, 10)]);
        assert_eq!(d.rows("SELECT count(*) FROM c"), vec![vec![Val::Int(rows)]]);
    }
}

#[test]
fn corrupt_changesets_are_errors_not_crashes() {
    let src = Conn::memory();
    src.exec(SCHEMA);
    let sess = session(&src);
    src.exec("INSERT INTO t VALUES (1, 'x', x'0102'), (2, NULL, NULL); INSERT INTO u VALUES ('a', 1)");
    let cs = changeset(sess);
    unsafe { sqlbatch_session_delete(sess) };
    let mut r = Rng(7);
    let mut errors = 0;
    for i in 0..400 {
        let mut bad = cs.clone();
        match i % 3 {
            0 => bad.truncate(r.below(cs.len() as u64) as usize),
            1 => {
                for _ in 0..1 + r.below(4) {
                    let at = r.below(bad.len() as u64) as usize;
                    bad[at] = r.next() as u8;
                }
            }
            _ => bad = (0..r.below(64)).map(|_| r.next() as u8).collect(),
        }
        let d = Conn::memory();
        d.exec(SCHEMA);
        let rc = apply(&d, &bad, SQLBATCH_CHANGESET_REPLACE);
        errors += (rc != SQLBATCH_OK) as usize;
        let (mut p, mut n) = (ptr::null_mut(), 0);
        let rc = unsafe { sqlbatch_changeset_invert(bad.as_ptr(), bad.len(), &mut p, &mut n) };
        if rc != SQLBATCH_OK {
            assert!(p.is_null() && n == 0, "no buffer on failure");
        }
        unsafe { take(p, n) };
        let rc = unsafe {
            sqlbatch_changeset_concat(bad.as_ptr(), bad.len(), cs.as_ptr(), cs.len(), &mut p, &mut n)
        };
        if rc != SQLBATCH_OK {
            assert!(p.is_null() && n == 0);
        }
        unsafe { take(p, n) };
        // The connection still works.
        assert_eq!(d.rows("SELECT 1"), vec![vec![Val::Int(1)]]);
    }
    assert!(errors > 100, "most corruptions are found: {errors}");
}

#[test]
fn sessions_and_a_preupdate_hook_exclude_each_other() {
    let (_seen, p) = new_seen();
    let c = Conn::memory();
    c.exec(SCHEMA);
    let sess = session(&c);
    assert_eq!(
        unsafe { sqlbatch_conn_preupdate_hook(c.0, 0, Some(on_pre), p, Some(count_destroy)) },
        sq::SQLITE_MISUSE
    );
    assert_eq!(st(p).destroyed, 1, "refused: user data released");
    // The session still records.
    c.exec("INSERT INTO u VALUES ('a', 1)");
    assert!(!changeset(sess).is_empty());
    unsafe { assert_eq!(sqlbatch_session_delete(sess), SQLBATCH_OK) };
    // Once the last session is gone, the hook can be set; then no session can be created.
    assert_eq!(unsafe { sqlbatch_conn_preupdate_hook(c.0, 0, Some(on_pre), p, None) }, SQLBATCH_OK);
    c.exec("INSERT INTO u VALUES ('b', 2)");
    assert_eq!(st(p).pre.len(), 1);
    let mut s2 = ptr::null_mut();
    assert_eq!(unsafe { sqlbatch_session_create(c.0, ptr::null(), 0, &mut s2) }, sq::SQLITE_MISUSE);
    assert!(s2.is_null());
    assert!(c.error().1.contains("preupdate"), "{}", c.error().1);
    assert_eq!(unsafe { sqlbatch_conn_preupdate_hook(c.0, 0, None, ptr::null_mut(), None) }, SQLBATCH_OK);
    let s3 = session(&c);
    c.exec("INSERT INTO u VALUES ('c', 3)");
    assert_eq!(st(p).pre.len(), 1, "the hook is gone");
    assert!(!changeset(s3).is_empty());
    unsafe { sqlbatch_session_delete(s3) };
}

unsafe extern "C" fn deleting(u: *mut c_void, _op: i32, _s: *const c_char, _t: *const c_char, _rowid: i64) {
    let sess = st(u).conn as *mut sqlbatch_session;
    let rc = unsafe { sqlbatch_session_delete(sess) };
    st(u).reentry = Some(rc);
}

#[test]
fn sessions_outlive_their_connection_and_are_not_deleted_from_hooks() {
    // Closed with live sessions (SQLite requires them deleted first: close does it).
    let c = Conn::memory();
    c.exec(SCHEMA);
    let (a, b) = (session(&c), session(&c));
    c.exec("INSERT INTO u VALUES ('a', 1)");
    drop(c);
    let (mut p, mut n) = (ptr::null_mut(), 0);
    unsafe {
        assert_eq!(sqlbatch_session_changeset(a, &mut p, &mut n), SQLBATCH_E_CLOSED);
        assert_eq!(sqlbatch_session_attach(b, ptr::null(), 0), SQLBATCH_E_CLOSED);
        assert_eq!(sqlbatch_session_delete(a), SQLBATCH_OK);
        assert_eq!(sqlbatch_session_delete(b), SQLBATCH_OK);
    }
    // From inside a hook, a delete is refused and can be done after.
    let (_seen, p) = new_seen();
    let c = Conn::memory();
    c.exec(SCHEMA);
    let sess = session(&c);
    st(p).conn = sess as usize;
    unsafe { assert_eq!(sqlbatch_conn_update_hook(c.0, Some(deleting), p, None), SQLBATCH_OK) };
    c.exec("INSERT INTO u VALUES ('a', 1)");
    assert_eq!(st(p).reentry, Some(sq::SQLITE_MISUSE));
    unsafe { assert_eq!(sqlbatch_conn_update_hook(c.0, None, ptr::null_mut(), None), SQLBATCH_OK) };
    assert!(!changeset(sess).is_empty(), "still recording");
    unsafe { assert_eq!(sqlbatch_session_delete(sess), SQLBATCH_OK) };
}

#[test]
fn diff_records_what_makes_a_table_equal_to_another_database_s() {
    let c = Conn::memory();
    c.exec(SCHEMA);
    c.exec("ATTACH ':memory:' AS other");
    c.exec("CREATE TABLE other.t(id INTEGER PRIMARY KEY, v TEXT, w BLOB); INSERT INTO other.t VALUES (1, 'there', NULL)");
    c.exec("INSERT INTO t VALUES (1, 'here', NULL), (2, 'only here', NULL)");
    let sess = session(&c);
    unsafe {
        assert_eq!(
            sqlbatch_session_diff(sess, c"other".as_ptr(), 5, c"t".as_ptr(), 1),
            SQLBATCH_OK,
            "{}",
            c.error().1
        );
    }
    let cs = changeset(sess);
    // Applied to a copy of other.t, it makes it main.t.
    let d = Conn::memory();
    d.exec(SCHEMA);
    d.exec("INSERT INTO t VALUES (1, 'there', NULL)");
    assert_eq!(apply(&d, &cs, SQLBATCH_CHANGESET_ABORT), SQLBATCH_OK);
    assert_eq!(d.rows("SELECT * FROM t ORDER BY id"), c.rows("SELECT * FROM t ORDER BY id"));
    // Tables that do not match.
    c.exec("CREATE TABLE other.u(k TEXT PRIMARY KEY, n INT, extra)");
    unsafe {
        assert_eq!(sqlbatch_session_diff(sess, c"other".as_ptr(), 5, c"u".as_ptr(), 1), sq::SQLITE_SCHEMA);
        assert_eq!(sqlbatch_session_diff(sess, ptr::null(), 0, c"u".as_ptr(), 1), SQLBATCH_E_NULL_PARAMETER);
        sqlbatch_session_delete(sess);
    }
}

/// What `sqlbatch_changeset_read` handed over: (batch sizes, changes as (table, op, indirect,
/// key flags, old row, new row)), and when to stop (after that many batches).
type ReadChange = (String, i32, bool, Vec<u8>, Option<Row>, Option<Row>);

#[derive(Default)]
struct Read {
    batches: Vec<usize>,
    changes: Vec<ReadChange>,
    stop_after: usize,
}

unsafe extern "C" fn on_read(
    u: *mut c_void,
    changes: *const sqlbatch_changeset_change,
    n: usize,
    data: *const u8,
) -> i32 {
    let r = unsafe { &mut *(u as *mut Read) };
    let changes = unsafe { std::slice::from_raw_parts(changes, n) };
    r.batches.push(n);
    for c in changes {
        let key = unsafe { std::slice::from_raw_parts(c.primary_key, c.n_cols) }.to_vec();
        let rows = unsafe { (row(c.old_values, c.n_cols, data), row(c.new_values, c.n_cols, data)) };
        r.changes.push((s(c.table), c.op, c.indirect, key, rows.0, rows.1));
    }
    (r.stop_after != 0 && r.batches.len() >= r.stop_after) as i32
}

fn read(cs: &[u8], flags: u32, max: usize, stop_after: usize) -> (i32, Read) {
    let mut r = Read { stop_after, ..Read::default() };
    let rc = unsafe {
        sqlbatch_changeset_read(
            cs.as_ptr(),
            cs.len(),
            flags,
            max,
            Some(on_read),
            &mut r as *mut Read as *mut c_void,
        )
    };
    (rc, r)
}

#[test]
fn a_changeset_reads_as_batches_of_changes_with_their_rows() {
    let c = Conn::memory();
    c.exec(SCHEMA);
    c.exec("INSERT INTO t VALUES (1, 'a', NULL), (2, 'b', x'02')");
    let sess = session(&c);
    c.exec("UPDATE t SET v = 'a2' WHERE id = 1; DELETE FROM t WHERE id = 2; INSERT INTO t VALUES (3, 'c', x'0303'); INSERT INTO u VALUES ('k', 7)");
    let cs = changeset(sess);
    let u = None;
    let want: Vec<ReadChange> = vec![
        (
            "t".into(),
            sq::SQLITE_UPDATE,
            false,
            vec![1, 0, 0],
            Some(vec![Some(Val::Int(1)), Some(t("a")), u.clone()]),
            Some(vec![u.clone(), Some(t("a2")), u.clone()]),
        ),
        (
            "t".into(),
            sq::SQLITE_DELETE,
            false,
            vec![1, 0, 0],
            Some(vec![Some(Val::Int(2)), Some(t("b")), Some(Val::Blob(vec![2]))]),
            None,
        ),
        (
            "t".into(),
            sq::SQLITE_INSERT,
            false,
            vec![1, 0, 0],
            None,
            Some(vec![Some(Val::Int(3)), Some(t("c")), Some(Val::Blob(vec![3, 3]))]),
        ),
        ("u".into(), sq::SQLITE_INSERT, false, vec![1, 0], None, Some(vec![Some(t("k")), Some(Val::Int(7))])),
    ];
    let sorted = |mut v: Vec<ReadChange>| {
        v.sort_by_key(|c| (c.0.clone(), c.1));
        v
    };
    let (rc, r) = read(&cs, 0, 0, 0);
    assert_eq!(rc, SQLBATCH_OK);
    assert_eq!(r.batches, vec![4], "one call for the whole changeset");
    assert_eq!(sorted(r.changes.clone()), sorted(want.clone()));
    // In batches of two; stopped after the first; inverted.
    assert_eq!(read(&cs, 0, 2, 0).1.batches, vec![2, 2]);
    let (rc, r) = read(&cs, 0, 2, 1);
    assert_eq!((rc, r.batches), (SQLBATCH_OK, vec![2]));
    let (rc, r) = read(&cs, SQLBATCH_CHANGESET_READ_INVERT, 0, 0);
    assert_eq!(rc, SQLBATCH_OK);
    let ops: Vec<i32> = sorted(r.changes.clone()).iter().map(|c| c.1).collect();
    assert_eq!(
        ops,
        vec![sq::SQLITE_DELETE, sq::SQLITE_INSERT, sq::SQLITE_UPDATE, sq::SQLITE_DELETE],
        "(by table, then op) t: 3 gone, 2 back, 1 back; u: k gone"
    );
    // Inverted while read (the library inverts each change), exactly as the changeset that
    // sqlbatch_changeset_invert writes reads, rows and all.
    let (mut ip, mut ilen) = (ptr::null_mut(), 0);
    assert_eq!(unsafe { sqlbatch_changeset_invert(cs.as_ptr(), cs.len(), &mut ip, &mut ilen) }, SQLBATCH_OK);
    let inverse = unsafe { take(ip, ilen) };
    assert_eq!(sorted(r.changes.clone()), sorted(read(&inverse, 0, 0, 0).1.changes));
    // A patchset's DELETE carries the key only.
    let (mut p, mut n) = (ptr::null_mut(), 0);
    assert_eq!(unsafe { sqlbatch_session_patchset(sess, &mut p, &mut n) }, SQLBATCH_OK);
    let patch = unsafe { take(p, n) };
    let (rc, r) = read(&patch, SQLBATCH_CHANGESET_READ_INVERT, 0, 0);
    assert_eq!((rc, r.changes.len()), (sq::SQLITE_CORRUPT, 0), "a patchset cannot be inverted");
    let (_, r) = read(&patch, 0, 0, 0);
    let del = r.changes.iter().find(|c| c.1 == sq::SQLITE_DELETE).unwrap();
    assert_eq!(del.4, Some(vec![Some(Val::Int(2)), None, None]));
    // Damaged: the changes before the damage, then the error; bad arguments.
    let (rc, r) = read(&cs[..cs.len() - 3], 0, 1, 0);
    assert_eq!(rc, sq::SQLITE_CORRUPT);
    assert!(!r.changes.is_empty() && r.changes.len() < 4, "{:?}", r.batches);
    unsafe {
        assert_eq!(
            sqlbatch_changeset_read(cs.as_ptr(), cs.len(), 0, 0, None, ptr::null_mut()),
            SQLBATCH_E_NULL_PARAMETER
        );
        assert_eq!(
            sqlbatch_changeset_read(ptr::null(), 3, 0, 0, Some(on_read), ptr::null_mut()),
            SQLBATCH_E_NULL_PARAMETER
        );
        assert_eq!(
            sqlbatch_changeset_read(cs.as_ptr(), cs.len(), 1, 0, Some(on_read), ptr::null_mut()),
            SQLBATCH_E_INVALID_ARGUMENT
        );
    }
    let (rc, r) = read(&[], 0, 0, 0);
    assert_eq!((rc, r.batches), (SQLBATCH_OK, vec![]), "an empty changeset: no call");
    unsafe { sqlbatch_session_delete(sess) };
}
