//! Sessions and changesets (SQLite's session extension): a session records the changes made
//! to tables of a connection; its changeset (or the smaller patchset) is one buffer that
//! another database applies, with a policy or a callback for conflicts; changesets can be
//! inverted (an undo) and concatenated.
//!
//! A session shares its connection's state, as a blob handle does, so the connection may be
//! closed first: closing it deletes the session (SQLite requires it), every later call says
//! `SQLBATCH_E_CLOSED`, and `sqlbatch_session_delete` frees the rest. Sessions take SQLite's
//! one preupdate slot, so a connection has either sessions or a preupdate hook (`hooks.rs`).

use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Arc;

use libsqlite3_sys as ffi;

use crate::cells::Cells;
use crate::codes::*;
use crate::conn::{sqlbatch_conn, ConnShared};
use crate::error::{Error, ErrorSink};
use crate::ffi::{schema_name, try_cstring, try_mut, try_slice};
use crate::panic::{boundary, boundary_value, ffi_boundary};
use crate::value::{sqlbatch_str, sqlbatch_value};

/// A session: records the changes made to the attached tables of one database of a
/// connection. Opaque; created by `sqlbatch_session_create`, freed by `sqlbatch_session_delete`.
pub struct sqlbatch_session {
    /// NULL once the connection closed (and deleted it).
    raw: Arc<AtomicPtr<ffi::sqlite3_session>>,
    conn: Arc<ConnShared>,
}

/// Conflict policy and callback answer: skip the change (`SQLITE_CHANGESET_OMIT`). For a
/// `SQLBATCH_CONFLICT_FOREIGN_KEY` conflict it means: commit the changes despite the
/// violation (SQLite's meaning).
pub const SQLBATCH_CHANGESET_OMIT: i32 = 0;
/// Conflict policy and callback answer: apply the change over the conflicting row
/// (`SQLITE_CHANGESET_REPLACE`). Valid only for `SQLBATCH_CONFLICT_DATA` and
/// `SQLBATCH_CONFLICT_CONFLICT`; as a policy, the other conflicts are omitted.
pub const SQLBATCH_CHANGESET_REPLACE: i32 = 1;
/// Conflict policy and callback answer: stop, and undo every change this apply made
/// (`SQLITE_CHANGESET_ABORT`); the apply returns `SQLITE_ABORT`.
pub const SQLBATCH_CHANGESET_ABORT: i32 = 2;

/// Conflict type: the row to delete or update exists, but its values are not those the
/// change expected (`SQLITE_CHANGESET_DATA`); `conflict_values` holds the row as it is.
pub const SQLBATCH_CONFLICT_DATA: i32 = 1;
/// Conflict type: the row to delete or update does not exist (`SQLITE_CHANGESET_NOTFOUND`).
pub const SQLBATCH_CONFLICT_NOTFOUND: i32 = 2;
/// Conflict type: an inserted row's primary key is taken (`SQLITE_CHANGESET_CONFLICT`);
/// `conflict_values` holds the row that has it.
pub const SQLBATCH_CONFLICT_CONFLICT: i32 = 3;
/// Conflict type: the change breaks another constraint (UNIQUE, CHECK, NOT NULL)
/// (`SQLITE_CHANGESET_CONSTRAINT`).
pub const SQLBATCH_CONFLICT_CONSTRAINT: i32 = 4;
/// Conflict type: once every change was applied, foreign keys are violated
/// (`SQLITE_CHANGESET_FOREIGN_KEY`); `fk_violations` says how many. Not about one change:
/// `op`, `n_cols` and the rows are 0 and NULL.
pub const SQLBATCH_CONFLICT_FOREIGN_KEY: i32 = 5;

/// `sqlbatch_conn_apply_changeset` flag: apply without a savepoint of its own, so that an
/// abort does not undo what was applied (`SQLITE_CHANGESETAPPLY_NOSAVEPOINT`).
pub const SQLBATCH_APPLY_NOSAVEPOINT: u32 = 1;
/// `sqlbatch_conn_apply_changeset` flag: apply the changeset inverted (an undo), as
/// `SQLITE_CHANGESETAPPLY_INVERT` does, but the changeset is inverted whole first
/// (`sqlbatch_changeset_invert`): a corrupt one fails (`SQLITE_CORRUPT`) before any change is
/// applied, `SQLBATCH_APPLY_NOSAVEPOINT` or not, and a patchset is refused the same way.
pub const SQLBATCH_APPLY_INVERT: u32 = 2;
/// `sqlbatch_conn_apply_changeset` flag: an UPDATE that finds the row already as it would
/// make it is no conflict (`SQLITE_CHANGESETAPPLY_IGNORENOOP`).
pub const SQLBATCH_APPLY_IGNORENOOP: u32 = 4;
/// `sqlbatch_conn_apply_changeset` flag: foreign keys' ON UPDATE / ON DELETE actions do not
/// run while the changes are applied (`SQLITE_CHANGESETAPPLY_FKNOACTION`).
pub const SQLBATCH_APPLY_FKNOACTION: u32 = 8;

const APPLY_FLAGS: u32 = SQLBATCH_APPLY_NOSAVEPOINT
    | SQLBATCH_APPLY_INVERT
    | SQLBATCH_APPLY_IGNORENOOP
    | SQLBATCH_APPLY_FKNOACTION;

/// A conflict met while a changeset is applied: the change, and the row it conflicts with.
/// Everything it points to is valid during the callback only.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sqlbatch_conflict {
    /// One of `SQLBATCH_CONFLICT_*`.
    pub kind: i32,
    /// The change: `SQLITE_INSERT` (18), `SQLITE_DELETE` (9) or `SQLITE_UPDATE` (23).
    pub op: i32,
    /// The change's table (NUL-terminated; NULL for a `FOREIGN_KEY` conflict).
    pub table: sqlbatch_str,
    /// Whether the change was recorded as indirect (`sqlbatch_session_set_indirect`).
    pub indirect: bool,
    /// The table's number of columns in the changeset.
    pub n_cols: usize,
    /// DELETE and UPDATE: the row the change expected, `n_cols` cells (bytes at `data +
    /// bits`); for an UPDATE, the columns it does not change and that are not in the primary
    /// key are `SQLBATCH_UNDEFINED`. NULL for an INSERT.
    pub old_values: *const sqlbatch_value,
    /// INSERT and UPDATE: the row as the change makes it; for an UPDATE, the columns it does
    /// not change are `SQLBATCH_UNDEFINED`. NULL for a DELETE.
    pub new_values: *const sqlbatch_value,
    /// `DATA` and `CONFLICT`: the row in the database, `n_cols` cells; NULL otherwise.
    pub conflict_values: *const sqlbatch_value,
    /// The base of the TEXT and BLOB bytes of all three rows (NULL when none has bytes).
    pub data: *const u8,
    /// `FOREIGN_KEY`: how many foreign key constraints are violated; 0 otherwise.
    pub fk_violations: i32,
}

/// A conflict callback: decides what `sqlbatch_conn_apply_changeset` does about `conflict`;
/// returns `SQLBATCH_CHANGESET_OMIT`, `_REPLACE` or `_ABORT` (anything else aborts). It must
/// not use the connection.
pub type sqlbatch_conflict_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, conflict: *const sqlbatch_conflict) -> i32>;

/// A table filter: whether the changes to table `table` (NUL-terminated) are applied
/// (positive), skipped (0), or the whole apply is stopped and undone (negative: the apply
/// returns `SQLITE_ABORT`; for a binding whose filter failed). It must not use the connection.
pub type sqlbatch_table_filter_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, table: *const c_char) -> i32>;

impl sqlbatch_session {
    /// SQLite's session and its open connection, used by this thread only.
    fn raw(&self) -> Result<(*mut ffi::sqlite3, *mut ffi::sqlite3_session), Error> {
        let db = self.conn.db()?;
        let raw = self.raw.load(Ordering::SeqCst);
        if raw.is_null() {
            return Err(Error::closed());
        }
        Ok((db, raw))
    }
}

/// Runs `body` on a live session, recording its error on the session's connection.
///
/// # Safety
/// `session` NULL or live.
unsafe fn with_session(
    session: *const sqlbatch_session,
    body: impl FnOnce(*mut ffi::sqlite3, *mut ffi::sqlite3_session) -> Result<i32, Error>,
) -> i32 {
    // SAFETY: the caller's contract.
    let Some(s) = (unsafe { session.as_ref() }) else {
        return SQLBATCH_E_NULL_PARAMETER;
    };
    let sink: &dyn ErrorSink = &*s.conn;
    boundary(Some(sink), || {
        let (db, raw) = s.raw()?;
        body(db, raw)
    })
}

/// An SQLite result code as an error, with the connection's message where it is about this
/// error (the session functions do not all set it).
///
/// # Safety
/// `db` is an open connection.
unsafe fn check(db: *mut ffi::sqlite3, rc: c_int) -> Result<(), Error> {
    if rc == ffi::SQLITE_OK {
        return Ok(());
    }
    // SAFETY: `db` is open.
    if unsafe { ffi::sqlite3_errcode(db) } & 0xff == rc & 0xff {
        Err(unsafe { Error::from_db(db, rc) })
    } else {
        Err(Error::code(rc))
    }
}

/// A buffer SQLite allocated (pointer, length; NULL and 0 for none), freed when dropped
/// unless handed over to the caller.
struct SqliteBuf(*mut c_void, c_int);

impl SqliteBuf {
    /// Hands the buffer to the caller (who frees it with `sqlbatch_free`) if `rc` is
    /// `SQLITE_OK` and it is not empty; otherwise frees it and writes NULL and 0. Returns `rc`.
    fn hand_over(self, rc: c_int, out_data: &mut *mut u8, out_len: &mut usize) -> c_int {
        if rc != ffi::SQLITE_OK || self.1 <= 0 {
            *out_data = ptr::null_mut();
            *out_len = 0;
        } else {
            let kept = std::mem::ManuallyDrop::new(self);
            *out_data = kept.0.cast();
            *out_len = kept.1 as usize;
        }
        rc
    }
}

impl Drop for SqliteBuf {
    fn drop(&mut self) {
        // SAFETY: SQLite's allocation (or NULL), not used after this.
        unsafe { ffi::sqlite3_free(self.0) };
    }
}

/// The inverse of the changeset of `n` bytes at `p` (`sqlite3changeset_invert`), and SQLite's
/// status.
///
/// # Safety
/// `p` holds `n` readable bytes.
unsafe fn invert(p: *mut c_void, n: c_int) -> (c_int, SqliteBuf) {
    let (mut m, mut out) = (0, ptr::null_mut());
    // SAFETY: SQLite reads the `n` bytes at `p` (the caller's contract).
    let rc = unsafe { ffi::sqlite3changeset_invert(n, p, &mut m, &mut out) };
    (rc, SqliteBuf(out, m))
}

/// sqlbatch_session_create starts a session on the database `schema` (NULL: "main") of
/// `conn` (`sqlite3session_create`): it records the changes made to the tables attached to it
/// (`sqlbatch_session_attach`; none at first) from now on, until it is deleted. Many sessions
/// may record the same connection. A `schema` that is not attached (yet) is accepted, as
/// SQLite does: the session records nothing until a database of that name is attached.
///
/// SQLite has one preupdate slot, which sessions use: while a preupdate hook is set on `conn`
/// (`sqlbatch_conn_preupdate_hook`), this fails with `SQLITE_MISUSE`.
/// Ownership: `*out_session` (set on success only) is the caller's, released with
/// `sqlbatch_session_delete`, before or after the connection is closed. Thread: the
/// connection's; every call on the session too.
/// NULL: `conn` or `out_session` NULL: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_CLOSED`; `SQLITE_MISUSE` (a preupdate hook is set, or
/// called from a hook); `SQLBATCH_E_INVALID_UTF8` or `SQLBATCH_E_INVALID_ARGUMENT` for a bad
/// name; `SQLITE_NOMEM`. Recorded on `conn`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_session_create(
    conn: *mut sqlbatch_conn,
    schema: *const c_char,
    schema_len: usize,
    out_session: *mut *mut sqlbatch_session,
) -> i32 {
    ffi_boundary!(conn: conn => |c| {
        let db = c.shared.db()?;
        // SAFETY: the caller vouches for the pointers.
        let out = unsafe { try_mut(out_session, "out_session")? };
        let schema = unsafe { schema_name(schema, schema_len)? };
        c.shared.hooks().add_session()?;
        let mut raw = ptr::null_mut();
        // SAFETY: `db` is open and used by this thread only; the name is NUL-terminated.
        let rc = unsafe { ffi::sqlite3session_create(db, schema.as_ptr(), &mut raw) };
        if rc != ffi::SQLITE_OK {
            c.shared.hooks().remove_session();
            // SAFETY: as above.
            return unsafe { check(db, rc) }.map(|()| SQLBATCH_OK);
        }
        let raw = Arc::new(AtomicPtr::new(raw));
        c.shared.sessions().adopt(&raw);
        *out = Box::into_raw(Box::new(sqlbatch_session { raw, conn: c.shared.clone() }));
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_session_attach makes `session` record the changes to table `table` (`table_len`
/// bytes of UTF-8), or, with `table` NULL, to every table of its database, including those
/// created later (`sqlite3session_attach`). Only tables with a PRIMARY KEY are recorded (the
/// others are attached but their changes are not); the table need not exist yet.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_NULL_PARAMETER`; `SQLBATCH_E_CLOSED`;
/// `SQLBATCH_E_INVALID_UTF8` or `SQLBATCH_E_INVALID_ARGUMENT` for a bad name; SQLite's error.
/// Recorded on the connection.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_session_attach(
    session: *mut sqlbatch_session,
    table: *const c_char,
    table_len: usize,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe {
        with_session(session, |db, raw| {
            let name = if table.is_null() { None } else { Some(try_cstring(table, table_len, "table")?) };
            let rc = ffi::sqlite3session_attach(raw, name.as_ref().map_or(ptr::null(), |n| n.as_ptr()));
            check(db, rc).map(|()| SQLBATCH_OK)
        })
    }
}

/// sqlbatch_session_set_enabled turns recording on (the default) or off
/// (`sqlite3session_enable`): changes made while it is off are not recorded.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_NULL_PARAMETER`; `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_session_set_enabled(session: *mut sqlbatch_session, enabled: bool) -> i32 {
    // SAFETY: the caller's contract.
    unsafe {
        with_session(session, |_, raw| {
            ffi::sqlite3session_enable(raw, enabled as c_int);
            Ok(SQLBATCH_OK)
        })
    }
}

/// sqlbatch_session_set_indirect marks the changes recorded from now on as indirect (or not,
/// the default) (`sqlite3session_indirect`): a conflict callback sees the mark
/// (`sqlbatch_conflict.indirect`). Changes made by triggers and foreign key actions are always
/// indirect.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_NULL_PARAMETER`; `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_session_set_indirect(
    session: *mut sqlbatch_session,
    indirect: bool,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe {
        with_session(session, |_, raw| {
            ffi::sqlite3session_indirect(raw, indirect as c_int);
            Ok(SQLBATCH_OK)
        })
    }
}

/// sqlbatch_session_is_empty writes to `*out` whether `session` has recorded no change
/// (`sqlite3session_isempty`): its changeset would be empty.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_NULL_PARAMETER`; `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_session_is_empty(session: *mut sqlbatch_session, out: *mut bool) -> i32 {
    // SAFETY: the caller's contract.
    unsafe {
        with_session(session, |_, raw| {
            let out = try_mut(out, "out")?;
            *out = ffi::sqlite3session_isempty(raw) != 0;
            Ok(SQLBATCH_OK)
        })
    }
}

/// sqlbatch_session_changeset writes what `session` recorded as a changeset to a new buffer,
/// `*out_data` and `*out_len` (`sqlite3session_changeset`): for each changed row (by primary
/// key), one change from its state when recording started to its state now, with the old
/// values of every column, so that applying it elsewhere can detect conflicts. No change gives
/// `*out_data` NULL and `*out_len` 0. Recording goes on.
///
/// Ownership: the buffer is the caller's, released with `sqlbatch_free`.
/// NULL: `session`, `out_data` or `out_len` NULL: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_CLOSED`; SQLite's error (`SQLITE_NOMEM`, or an error
/// reading the tables). Recorded on the connection.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_session_changeset(
    session: *mut sqlbatch_session,
    out_data: *mut *mut u8,
    out_len: *mut usize,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { changeset_out(session, out_data, out_len, ffi::sqlite3session_changeset) }
}

/// sqlbatch_session_patchset is `sqlbatch_session_changeset` for a patchset
/// (`sqlite3session_patchset`): smaller, as it leaves out the old values but those of the
/// primary key (so a conflict is found only when a row to change is missing, or a key taken).
/// Ownership, NULL and errors as for `sqlbatch_session_changeset`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_session_patchset(
    session: *mut sqlbatch_session,
    out_data: *mut *mut u8,
    out_len: *mut usize,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { changeset_out(session, out_data, out_len, ffi::sqlite3session_patchset) }
}

type ChangesetOut = unsafe extern "C" fn(*mut ffi::sqlite3_session, *mut c_int, *mut *mut c_void) -> c_int;

/// The changeset or patchset of `session`, to the caller.
///
/// # Safety
/// As for `sqlbatch_session_changeset`.
unsafe fn changeset_out(
    session: *mut sqlbatch_session,
    out_data: *mut *mut u8,
    out_len: *mut usize,
    get: ChangesetOut,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe {
        with_session(session, |db, raw| {
            let (out_data, out_len) = (try_mut(out_data, "out_data")?, try_mut(out_len, "out_len")?);
            let (mut n, mut p) = (0, ptr::null_mut());
            let rc = get(raw, &mut n, &mut p);
            let rc = SqliteBuf(p, n).hand_over(rc, out_data, out_len);
            check(db, rc).map(|()| SQLBATCH_OK)
        })
    }
}

/// sqlbatch_session_diff records in `session` the changes that would make the table `table`
/// of database `from_schema` (attached to the same connection, `from_len` bytes) equal to the
/// table of the same name in the session's database (`sqlite3session_diff`): applied to a copy
/// of the `from_schema` table, the session's changeset turns it into the session's table. The
/// table is attached to the session if it is not, and both tables must have the same columns
/// and primary key.
/// NULL: `session`, `from_schema` or `table` NULL: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_CLOSED`; `SQLITE_SCHEMA` (the tables do not match);
/// SQLite's error with its message. Recorded on the connection.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_session_diff(
    session: *mut sqlbatch_session,
    from_schema: *const c_char,
    from_len: usize,
    table: *const c_char,
    table_len: usize,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe {
        with_session(session, |_, raw| {
            let from = try_cstring(from_schema, from_len, "from_schema")?;
            let table = try_cstring(table, table_len, "table")?;
            let mut msg: *mut c_char = ptr::null_mut();
            let rc = ffi::sqlite3session_diff(raw, from.as_ptr(), table.as_ptr(), &mut msg);
            let text = (!msg.is_null()).then(|| CStr::from_ptr(msg).to_string_lossy().into_owned());
            ffi::sqlite3_free(msg.cast());
            match (rc, text) {
                (ffi::SQLITE_OK, _) => Ok(SQLBATCH_OK),
                (rc, Some(text)) => Err(Error::new(rc, text)),
                (rc, None) => Err(Error::code(rc)),
            }
        })
    }
}

/// sqlbatch_session_delete ends and frees a session (`sqlite3session_delete`), before or
/// after its connection is closed. NULL: `SQLBATCH_OK`, a no-op. Must not be called twice
/// (but after `SQLITE_MISUSE`).
/// @return `SQLBATCH_OK` (freed); `SQLITE_MISUSE` from inside a hook of its connection: the
/// session is not deleted then (delete it after the hook returns).
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_session_delete(session: *mut sqlbatch_session) -> i32 {
    if session.is_null() {
        return SQLBATCH_OK;
    }
    boundary_value(SQLBATCH_E_PANIC, || {
        // SAFETY: `session` is live (the caller's contract).
        let s = unsafe { &*session };
        // (Not `db()`: a backup's destination may delete its sessions.)
        s.conn.worker().wait();
        if s.conn.hooks().forbid_use() {
            let e =
                Error::new(ffi::SQLITE_MISUSE, "a session cannot be deleted from a hook of its connection");
            s.conn.record(&e);
            return e.code;
        }
        // SAFETY: came from sqlbatch_session_create, freed once (the caller's contract).
        let s = unsafe { Box::from_raw(session) };
        let raw = s.conn.sessions().release(&s.raw);
        if !raw.is_null() {
            // SAFETY: a live session of an open connection (close would have left NULL), used
            // by this thread only.
            unsafe { ffi::sqlite3session_delete(raw) };
            s.conn.hooks().remove_session();
        }
        SQLBATCH_OK
    })
}

/// What the apply callbacks get as their context.
struct Apply {
    policy: i32,
    conflict: sqlbatch_conflict_fn,
    filter: sqlbatch_table_filter_fn,
    user: *mut c_void,
    rows: Cells,
    hooks: *const crate::hooks::Hooks,
    /// The filter asked to stop: every later table is skipped and every conflict aborts, and
    /// the library's savepoint undoes what was applied.
    aborted: bool,
}

unsafe extern "C" fn filter_tramp(p: *mut c_void, table: *const c_char) -> c_int {
    // SAFETY: the apply's context, live during the apply, used by this thread only.
    let a = unsafe { &mut *(p as *mut Apply) };
    let answer = boundary_value(-1, || match a.filter {
        _ if a.aborted => 0,
        // SAFETY: the caller's callback with SQLite's table name.
        Some(f) => unsafe { (*a.hooks).call(|| f(a.user, table)) },
        None => 1,
    });
    if answer < 0 {
        a.aborted = true;
    }
    (answer > 0) as c_int
}

unsafe extern "C" fn conflict_tramp(
    p: *mut c_void,
    kind: c_int,
    iter: *mut ffi::sqlite3_changeset_iter,
) -> c_int {
    boundary_value(ffi::SQLITE_CHANGESET_ABORT, || {
        // SAFETY: the apply's context, live during the apply, used by this thread only.
        let a = unsafe { &mut *(p as *mut Apply) };
        if a.aborted {
            return SQLBATCH_CHANGESET_ABORT;
        }
        let Some(f) = a.conflict else {
            let replace_allowed =
                kind == ffi::SQLITE_CHANGESET_DATA || kind == ffi::SQLITE_CHANGESET_CONFLICT;
            return match a.policy {
                SQLBATCH_CHANGESET_REPLACE if !replace_allowed => SQLBATCH_CHANGESET_OMIT,
                policy => policy,
            };
        };
        // SAFETY: `iter` is SQLite's iterator at the conflicting change, during this call.
        let conflict = unsafe { describe(&mut a.rows, kind, iter) };
        // SAFETY: the caller's callback; `conflict` and the rows live until it returns.
        let answer = unsafe { (*a.hooks).call(|| f(a.user, &conflict)) };
        match answer {
            SQLBATCH_CHANGESET_OMIT | SQLBATCH_CHANGESET_REPLACE | SQLBATCH_CHANGESET_ABORT => answer,
            _ => SQLBATCH_CHANGESET_ABORT,
        }
    })
}

/// The conflict at `iter`, its rows copied into `rows`.
///
/// # Safety
/// `iter` is SQLite's iterator at a conflicting change, inside the conflict handler.
unsafe fn describe(
    rows: &mut Cells,
    kind: c_int,
    iter: *mut ffi::sqlite3_changeset_iter,
) -> sqlbatch_conflict {
    rows.clear();
    let mut conflict = sqlbatch_conflict {
        kind,
        op: 0,
        table: sqlbatch_str::NONE,
        indirect: false,
        n_cols: 0,
        old_values: ptr::null(),
        new_values: ptr::null(),
        conflict_values: ptr::null(),
        data: ptr::null(),
        fk_violations: 0,
    };
    // SAFETY: as for this function.
    unsafe {
        if kind == ffi::SQLITE_CHANGESET_FOREIGN_KEY {
            ffi::sqlite3changeset_fk_conflicts(iter, &mut conflict.fk_violations);
            return conflict;
        }
        let (mut table, mut n, mut op, mut indirect) = (ptr::null(), 0, 0, 0);
        if ffi::sqlite3changeset_op(iter, &mut table, &mut n, &mut op, &mut indirect) != ffi::SQLITE_OK {
            return conflict;
        }
        let n = n.max(0);
        let old = (op != ffi::SQLITE_INSERT)
            .then(|| rows.push_from(n, |i, v| ffi::sqlite3changeset_old(iter, i, v)));
        let new = (op != ffi::SQLITE_DELETE)
            .then(|| rows.push_from(n, |i, v| ffi::sqlite3changeset_new(iter, i, v)));
        let with_row = kind == ffi::SQLITE_CHANGESET_DATA || kind == ffi::SQLITE_CHANGESET_CONFLICT;
        let current = with_row.then(|| rows.push_from(n, |i, v| ffi::sqlite3changeset_conflict(iter, i, v)));
        let at = |from: Option<usize>| from.map_or(ptr::null(), |i| rows.cells_from(i));
        conflict.op = op;
        conflict.table = if table.is_null() {
            sqlbatch_str::NONE
        } else {
            sqlbatch_str { ptr: table, len: CStr::from_ptr(table).to_bytes().len() }
        };
        conflict.indirect = indirect != 0;
        conflict.n_cols = n as usize;
        conflict.old_values = at(old);
        conflict.new_values = at(new);
        conflict.conflict_values = at(current);
        conflict.data = rows.data_ptr();
    }
    conflict
}

/// sqlbatch_conn_apply_changeset applies the changeset or patchset of `len` bytes at `data` to
/// `conn` (`sqlite3changeset_apply_v2`), inside a savepoint: all of it, or, after an abort,
/// none of it. Tables are matched by name in "main"; a table that does not exist there, or has
/// other primary key columns, is skipped (`filter`, if not NULL, may skip others, or stop the
/// apply: it is asked once per table; with a filter, the call wraps the apply in a savepoint
/// of its own, so that a stop undoes the tables applied before it, unless
/// `SQLBATCH_APPLY_NOSAVEPOINT` is given). A change that conflicts with the database is settled by `conflict` (if not
/// NULL), or else by `policy` (`SQLBATCH_CHANGESET_OMIT`, `_REPLACE` or `_ABORT`) for every
/// conflict. `flags`: 0 or `SQLBATCH_APPLY_*` bits.
///
/// Callbacks: called on this thread during the call, with `user_data`; they must not use
/// the connection. The bytes are not trusted: a corrupt changeset is an error
/// (`SQLITE_CORRUPT`), never a crash. Thread: the connection's.
/// NULL: `conn` NULL, or `data` NULL with `len` > 0: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLITE_ABORT` (a conflict was answered with ABORT, or the filter
/// stopped the apply: nothing was applied); `SQLITE_CONSTRAINT` (a `FOREIGN_KEY` conflict
/// answered with ABORT: nothing was applied); `SQLITE_MISUSE` (REPLACE answered to a conflict that does not allow it; called from
/// a hook); `SQLITE_CORRUPT`; `SQLBATCH_E_CLOSED`; `SQLBATCH_E_INVALID_ARGUMENT` (unknown flags
/// or policy); SQLite's error. Recorded on `conn`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_apply_changeset(
    conn: *mut sqlbatch_conn,
    data: *const u8,
    len: usize,
    flags: u32,
    policy: i32,
    conflict: sqlbatch_conflict_fn,
    filter: sqlbatch_table_filter_fn,
    user_data: *mut c_void,
) -> i32 {
    ffi_boundary!(conn: conn => |c| {
        let db = c.shared.db()?;
        // SAFETY: the caller vouches for the pointers.
        let bytes = unsafe { try_slice(data, len, "data")? };
        if flags & !APPLY_FLAGS != 0 {
            return Err(Error::new(SQLBATCH_E_INVALID_ARGUMENT, format!("unknown apply flags {:#x}", flags & !APPLY_FLAGS)));
        }
        if !(SQLBATCH_CHANGESET_OMIT..=SQLBATCH_CHANGESET_ABORT).contains(&policy) {
            return Err(Error::new(SQLBATCH_E_INVALID_ARGUMENT, format!("unknown conflict policy {policy}")));
        }
        let n = c_int::try_from(bytes.len())
            .map_err(|_| Error::new(SQLBATCH_E_RANGE, "a changeset is at most 2 GiB"))?;
        // SQLITE_CHANGESETAPPLY_INVERT reads the changeset through SQLite's inverting
        // iterator, which leaks the values of a damaged UPDATE (see sqlbatch_changeset_read):
        // the changeset is inverted first, and the inverse applied as it is. Same changes,
        // same conflicts; a corrupt changeset then fails before any change is applied.
        let inverse = if flags & SQLBATCH_APPLY_INVERT != 0 {
            // SAFETY: `bytes` holds `n` bytes.
            let (rc, inverse) = unsafe { invert(bytes.as_ptr() as *mut c_void, n) };
            code(rc)?;
            Some(inverse)
        } else {
            None
        };
        let (n, bytes_ptr, flags) = match &inverse {
            Some(b) => (b.1.max(0), b.0, flags & !SQLBATCH_APPLY_INVERT),
            None => (n, bytes.as_ptr() as *mut c_void, flags),
        };
        let mut ctx = Apply {
            policy,
            conflict,
            filter,
            user: user_data,
            rows: Cells::default(),
            hooks: c.shared.hooks(),
            aborted: false,
        };
        let own_savepoint = filter.is_some() && flags & SQLBATCH_APPLY_NOSAVEPOINT == 0;
        // SAFETY: `db` is open and used by this thread only.
        if own_savepoint {
            unsafe { check(db, ffi::sqlite3_exec(db, c"SAVEPOINT sqlbatch_apply".as_ptr(), None, ptr::null_mut(), ptr::null_mut()))? };
        }
        let p = &mut ctx as *mut Apply as *mut c_void;
        // SAFETY: `db` is open and used by this thread only; SQLite reads `n` bytes (it does
        // not write them, whatever its prototype says); `ctx` outlives the call.
        let rc = unsafe {
            ffi::sqlite3changeset_apply_v2(
                db,
                n,
                bytes_ptr,
                filter.is_some().then_some(filter_tramp as _),
                Some(conflict_tramp),
                p,
                ptr::null_mut(),
                ptr::null_mut(),
                flags as c_int,
            )
        };
        // SAFETY: as above.
        let outcome = unsafe { check(db, rc) };
        let outcome = match outcome {
            Ok(()) if ctx.aborted => Err(Error::new(ffi::SQLITE_ABORT, "the table filter stopped the apply")),
            o => o,
        };
        if own_savepoint {
            let end: &CStr = if outcome.is_ok() {
                c"RELEASE sqlbatch_apply"
            } else {
                c"ROLLBACK TO sqlbatch_apply; RELEASE sqlbatch_apply"
            };
            // SAFETY: as above. (If the RELEASE fails, the savepoint stays open: its error wins.)
            let rc = unsafe { ffi::sqlite3_exec(db, end.as_ptr(), None, ptr::null_mut(), ptr::null_mut()) };
            if outcome.is_ok() {
                unsafe { check(db, rc)? };
            }
        }
        // SAFETY: as above.
        unsafe { c.shared.hooks().end_call(db, outcome.map(|()| SQLBATCH_OK)) }
    })
}

/// sqlbatch_changeset_invert writes the inverse of the changeset of `len` bytes at `data` to a
/// new buffer (`sqlite3changeset_invert`): inserts become deletes and the other way round,
/// updates swap their old and new values, so applying it undoes the changeset. A patchset
/// cannot be inverted (`SQLITE_CORRUPT`). An empty changeset gives `*out_data` NULL and
/// `*out_len` 0. Any thread: no connection is involved.
/// Ownership: the caller keeps `data`; the new buffer is the caller's (`sqlbatch_free`).
/// NULL: `out_data` or `out_len` NULL, or `data` NULL with `len` > 0: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLITE_CORRUPT`; `SQLITE_NOMEM`; `SQLBATCH_E_RANGE` (over 2 GiB).
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_changeset_invert(
    data: *const u8,
    len: usize,
    out_data: *mut *mut u8,
    out_len: *mut usize,
) -> i32 {
    ffi_boundary!({
        // SAFETY: the caller vouches for the pointers.
        let (out_data, out_len) = unsafe { (try_mut(out_data, "out_data")?, try_mut(out_len, "out_len")?) };
        let a = unsafe { changeset_arg(data, len)? };
        // SAFETY: `a.0` holds `a.1` bytes (`changeset_arg`).
        let (rc, inverse) = unsafe { invert(a.0, a.1) };
        code(inverse.hand_over(rc, out_data, out_len))
    })
}

/// sqlbatch_changeset_concat writes to a new buffer the changeset that does what changeset
/// `a` (`a_len` bytes) then changeset `b` do (`sqlite3changeset_concat`): changes to the same
/// row are merged into one. Both must be changesets, or both patchsets. Any thread.
/// Ownership: as for `sqlbatch_changeset_invert`.
/// NULL: `out_data` or `out_len` NULL, or `a` or `b` NULL with a length > 0:
/// `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLITE_CORRUPT`; `SQLITE_ERROR` (a changeset with a patchset, or
/// the same table with other columns); `SQLITE_NOMEM`; `SQLBATCH_E_RANGE` (over 2 GiB).
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_changeset_concat(
    a: *const u8,
    a_len: usize,
    b: *const u8,
    b_len: usize,
    out_data: *mut *mut u8,
    out_len: *mut usize,
) -> i32 {
    ffi_boundary!({
        // SAFETY: the caller vouches for the pointers.
        let (out_data, out_len) = unsafe { (try_mut(out_data, "out_data")?, try_mut(out_len, "out_len")?) };
        let (a, b) = unsafe { (changeset_arg(a, a_len)?, changeset_arg(b, b_len)?) };
        let (mut n, mut p) = (0, ptr::null_mut());
        // SAFETY: SQLite reads the bytes of `a` and `b`.
        let rc = unsafe { ffi::sqlite3changeset_concat(a.1, a.0, b.1, b.0, &mut n, &mut p) };
        code(SqliteBuf(p, n).hand_over(rc, out_data, out_len))
    })
}

/// A changeset argument as SQLite takes it: (pointer, length).
///
/// # Safety
/// As for `try_slice`.
unsafe fn changeset_arg(data: *const u8, len: usize) -> Result<(*mut c_void, c_int), Error> {
    // SAFETY: the caller's contract.
    let bytes = unsafe { try_slice(data, len, "changeset")? };
    let n = c_int::try_from(bytes.len())
        .map_err(|_| Error::new(SQLBATCH_E_RANGE, "a changeset is at most 2 GiB"))?;
    Ok((bytes.as_ptr() as *mut c_void, n))
}

fn code(rc: c_int) -> Result<i32, Error> {
    if rc == ffi::SQLITE_OK {
        Ok(SQLBATCH_OK)
    } else {
        Err(Error::code(rc))
    }
}

/// One change of a changeset, as `sqlbatch_changeset_read` hands it over. Everything it points
/// to is valid during the callback only.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sqlbatch_changeset_change {
    /// The table (NUL-terminated).
    pub table: sqlbatch_str,
    /// `SQLITE_INSERT` (18), `SQLITE_DELETE` (9) or `SQLITE_UPDATE` (23).
    pub op: i32,
    /// Whether the change was recorded as indirect.
    pub indirect: bool,
    /// The table's number of columns.
    pub n_cols: usize,
    /// `n_cols` bytes: 1 for a column of the primary key, 0 for the others.
    pub primary_key: *const u8,
    /// DELETE and UPDATE: the row before, `n_cols` cells (bytes at the callback's `data +
    /// bits`); `SQLBATCH_UNDEFINED` for the columns the change does not carry (an UPDATE's
    /// unchanged columns outside the key; a patchset's DELETE keeps only the key). NULL for an
    /// INSERT.
    pub old_values: *const sqlbatch_value,
    /// INSERT and UPDATE: the row after (`SQLBATCH_UNDEFINED` for an UPDATE's unchanged
    /// columns). NULL for a DELETE.
    pub new_values: *const sqlbatch_value,
}

/// `sqlbatch_changeset_read`'s callback: `n_changes` changes in the changeset's order
/// (`changes`), whose TEXT and BLOB bytes are at `data + bits`. Returns 0 to go on, anything
/// else to stop reading.
pub type sqlbatch_changeset_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        changes: *const sqlbatch_changeset_change,
        n_changes: usize,
        data: *const u8,
    ) -> i32,
>;

/// `sqlbatch_changeset_read` flag: read the changeset inverted (`SQLITE_CHANGESETSTART_INVERT`).
pub const SQLBATCH_CHANGESET_READ_INVERT: u32 = 2;

/// A batch's values: a new batch is handed over once its bytes reach this.
const READ_BATCH_BYTES: usize = 1 << 20;

/// sqlbatch_changeset_read hands the changes of the changeset or patchset of `len` bytes at
/// `data` to `fn`, in their order, many per call (`sqlite3changeset_start_v2` and its
/// iterator): up to `max_changes` changes (0: 256) a call, fewer once their values hold
/// 1 MiB, so that memory stays bounded whatever the changeset's size. With
/// `SQLBATCH_CHANGESET_READ_INVERT`, the changes of the inverse changeset. The bytes are not
/// trusted: a corrupt changeset is an error, after the changes before the damage were handed
/// over (never a crash). Any thread: no connection is involved; `fn` is called on this thread.
/// Ownership: the caller keeps `data`.
/// NULL: `fn` NULL, or `data` NULL with `len` > 0: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK` (every change read, or `fn` stopped it); `SQLITE_CORRUPT`;
/// `SQLITE_NOMEM`; `SQLBATCH_E_INVALID_ARGUMENT` (unknown flags); `SQLBATCH_E_RANGE` (over
/// 2 GiB).
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_changeset_read(
    data: *const u8,
    len: usize,
    flags: u32,
    max_changes: usize,
    fn_: sqlbatch_changeset_fn,
    user_data: *mut c_void,
) -> i32 {
    ffi_boundary!({
        let Some(f) = fn_ else { return Err(Error::null("fn")) };
        if flags & !SQLBATCH_CHANGESET_READ_INVERT != 0 {
            return Err(Error::new(SQLBATCH_E_INVALID_ARGUMENT, format!("unknown read flags {flags:#x}")));
        }
        // SAFETY: the caller vouches for `data`.
        let (p, n) = unsafe { changeset_arg(data, len)? };
        // The inverse is read by inverting each change here, not with SQLite's
        // SQLITE_CHANGESETSTART_INVERT: that iterator leaks the values of a damaged UPDATE
        // whose new record has primary-key values (it moves the old record's over them; found
        // by the untrusted_bytes fuzz target). Like SQLite's, it refuses a patchset, which
        // has no old values to swap in (its table headers start with 'P').
        let invert = flags & SQLBATCH_CHANGESET_READ_INVERT != 0;
        // SAFETY: `p` holds `n` bytes (`changeset_arg`).
        if invert && n > 0 && unsafe { *(p as *const u8) } == b'P' {
            return Err(Error::new(ffi::SQLITE_CORRUPT, "a patchset cannot be inverted"));
        }
        let mut iter = ptr::null_mut();
        // SAFETY: SQLite reads the `n` bytes at `p` while the iterator lives (the caller keeps
        // them until this call returns).
        let rc = unsafe { ffi::sqlite3changeset_start(&mut iter, n, p) };
        if rc != ffi::SQLITE_OK {
            return code(rc);
        }
        let mut batch = ReadBatch::default();
        let max = if max_changes == 0 { 256 } else { max_changes };
        let mut stopped = false;
        // SAFETY: `iter` is live until finalized below; each change is copied before `next`.
        unsafe {
            while ffi::sqlite3changeset_next(iter) == ffi::SQLITE_ROW {
                if !batch.push(iter, invert) {
                    break; // the finalize below reports why
                }
                if batch.len() >= max || batch.rows.bytes.len() >= READ_BATCH_BYTES {
                    stopped = batch.hand_over(f, user_data);
                    if stopped {
                        break;
                    }
                }
            }
            let rc = ffi::sqlite3changeset_finalize(iter);
            if !stopped {
                batch.hand_over(f, user_data);
            }
            if stopped {
                Ok(SQLBATCH_OK)
            } else {
                code(rc)
            }
        }
    })
}

/// The changes `sqlbatch_changeset_read` collects between two calls of its callback: where
/// each change's parts are in the buffers (offsets, as the buffers grow).
#[derive(Default)]
struct ReadBatch {
    rows: Cells,
    /// Table names, each NUL-terminated, and the primary-key flags.
    text: Vec<u8>,
    changes: Vec<ReadChange>,
}

/// Where one change of a `ReadBatch` is.
struct ReadChange {
    /// Offset and length (without the NUL) of the table's name in `text`.
    table: (usize, usize),
    op: i32,
    indirect: bool,
    n_cols: usize,
    /// Offset of the primary-key flags in `text`.
    key: usize,
    /// Index of the first old and new cell in `rows.cells`.
    old: Option<usize>,
    new: Option<usize>,
}

impl ReadBatch {
    fn len(&self) -> usize {
        self.changes.len()
    }

    /// Copies the change at `iter`, or its inverse; false if SQLite could not describe it.
    /// The inverse is what SQLite's inverting iterator gives: an insert becomes a delete of
    /// the same row and the other way round; an update's old row is its new values, with the
    /// primary key's columns from the old row, and its new row the old values, the primary
    /// key's columns undefined.
    ///
    /// # Safety
    /// `iter` is a live iterator on a change (`sqlite3changeset_next` gave `SQLITE_ROW`).
    unsafe fn push(&mut self, iter: *mut ffi::sqlite3_changeset_iter, invert: bool) -> bool {
        let (mut table, mut n, mut op, mut indirect) = (ptr::null(), 0, 0, 0);
        let (mut pk, mut n_pk) = (ptr::null_mut(), 0);
        // SAFETY: as for this function.
        unsafe {
            if ffi::sqlite3changeset_op(iter, &mut table, &mut n, &mut op, &mut indirect) != ffi::SQLITE_OK
                || ffi::sqlite3changeset_pk(iter, &mut pk, &mut n_pk) != ffi::SQLITE_OK
                || table.is_null()
            {
                return false;
            }
            let n = n.max(0) as usize;
            let name = CStr::from_ptr(table).to_bytes_with_nul();
            let at = self.text.len();
            self.text.extend_from_slice(name);
            let key = self.text.len();
            for i in 0..n {
                self.text.push(u8::from(i < n_pk.max(0) as usize && *pk.add(i) != 0));
            }
            let rows = &mut self.rows;
            let is_key = |i: c_int| i < n_pk && *pk.add(i as usize) != 0;
            let (old, new) = match (invert, op) {
                (false, _) => (
                    (op != ffi::SQLITE_INSERT)
                        .then(|| rows.push_from(n as c_int, |i, v| ffi::sqlite3changeset_old(iter, i, v))),
                    (op != ffi::SQLITE_DELETE)
                        .then(|| rows.push_from(n as c_int, |i, v| ffi::sqlite3changeset_new(iter, i, v))),
                ),
                (true, ffi::SQLITE_INSERT) => {
                    op = ffi::SQLITE_DELETE;
                    (Some(rows.push_from(n as c_int, |i, v| ffi::sqlite3changeset_new(iter, i, v))), None)
                }
                (true, ffi::SQLITE_DELETE) => {
                    op = ffi::SQLITE_INSERT;
                    (None, Some(rows.push_from(n as c_int, |i, v| ffi::sqlite3changeset_old(iter, i, v))))
                }
                (true, _) => {
                    let old = rows.push_from(n as c_int, |i, v| match is_key(i) {
                        true => ffi::sqlite3changeset_old(iter, i, v),
                        false => ffi::sqlite3changeset_new(iter, i, v),
                    });
                    let new = rows.push_from(n as c_int, |i, v| match is_key(i) {
                        true => ffi::SQLITE_OK, // `v` stays NULL: undefined
                        false => ffi::sqlite3changeset_old(iter, i, v),
                    });
                    (Some(old), Some(new))
                }
            };
            self.changes.push(ReadChange {
                table: (at, name.len() - 1),
                op,
                indirect: indirect != 0,
                n_cols: n,
                key,
                old,
                new,
            });
        }
        true
    }

    /// Hands the batch to `f` and empties it; true if `f` asked to stop.
    ///
    /// # Safety
    /// `f` is the caller's callback.
    unsafe fn hand_over(
        &mut self,
        f: unsafe extern "C" fn(*mut c_void, *const sqlbatch_changeset_change, usize, *const u8) -> i32,
        user: *mut c_void,
    ) -> bool {
        if self.changes.is_empty() {
            return false;
        }
        let cells = |at: Option<usize>| at.map_or(ptr::null(), |i| self.rows.cells_from(i));
        let view: Vec<sqlbatch_changeset_change> = self
            .changes
            .iter()
            .map(|c| sqlbatch_changeset_change {
                table: sqlbatch_str { ptr: self.text[c.table.0..].as_ptr().cast(), len: c.table.1 },
                op: c.op,
                indirect: c.indirect,
                n_cols: c.n_cols,
                primary_key: self.text[c.key..].as_ptr(),
                old_values: cells(c.old),
                new_values: cells(c.new),
            })
            .collect();
        // SAFETY: the caller's callback; the batch lives until it returns.
        let stop = unsafe { f(user, view.as_ptr(), view.len(), self.rows.data_ptr()) } != 0;
        self.rows.clear();
        self.text.clear();
        self.changes.clear();
        stop
    }
}
