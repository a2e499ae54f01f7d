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

use crate::codes::*;
use crate::engine::cells::Cells;
use crate::engine::conn::ConnShared;
use crate::engine::value::{sqlbatch_str, sqlbatch_value};
use crate::error::Error;
use crate::ffi::try_slice;
use crate::panic::boundary_value;

/// A session: records the changes made to the attached tables of one database of a
/// connection. Opaque; created by `sqlbatch_session_create`, freed by `sqlbatch_session_delete`.
pub struct sqlbatch_session {
    /// NULL once the connection closed (and deleted it).
    pub(crate) raw: Arc<AtomicPtr<ffi::sqlite3_session>>,
    pub(crate) conn: Arc<ConnShared>,
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

pub(crate) const APPLY_FLAGS: u32 = SQLBATCH_APPLY_NOSAVEPOINT
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
    pub(crate) fn raw(&self) -> Result<(*mut ffi::sqlite3, *mut ffi::sqlite3_session), Error> {
        let db = self.conn.db()?;
        let raw = self.raw.load(Ordering::SeqCst);
        if raw.is_null() {
            return Err(Error::closed());
        }
        Ok((db, raw))
    }
}

/// An SQLite result code as an error, with the connection's message where it is about this
/// error (the session functions do not all set it).
///
/// # Safety
/// `db` is an open connection.
pub(crate) unsafe fn check(db: *mut ffi::sqlite3, rc: c_int) -> Result<(), Error> {
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
pub(crate) struct SqliteBuf(pub(crate) *mut c_void, pub(crate) c_int);

impl SqliteBuf {
    /// Hands the buffer to the caller (who frees it with `sqlbatch_free`) if `rc` is
    /// `SQLITE_OK` and it is not empty; otherwise frees it and writes NULL and 0. Returns `rc`.
    pub(crate) fn hand_over(self, rc: c_int, out_data: &mut *mut u8, out_len: &mut usize) -> c_int {
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
pub(crate) unsafe fn invert(p: *mut c_void, n: c_int) -> (c_int, SqliteBuf) {
    let (mut m, mut out) = (0, ptr::null_mut());
    // SAFETY: SQLite reads the `n` bytes at `p` (the caller's contract).
    let rc = unsafe { ffi::sqlite3changeset_invert(n, p, &mut m, &mut out) };
    (rc, SqliteBuf(out, m))
}

pub(crate) type ChangesetOut =
    unsafe extern "C" fn(*mut ffi::sqlite3_session, *mut c_int, *mut *mut c_void) -> c_int;

/// What the apply callbacks get as their context.
pub(crate) struct Apply {
    pub(crate) policy: i32,
    pub(crate) conflict: sqlbatch_conflict_fn,
    pub(crate) filter: sqlbatch_table_filter_fn,
    pub(crate) user: *mut c_void,
    pub(crate) rows: Cells,
    pub(crate) hooks: *const crate::engine::hooks::Hooks,
    /// The filter asked to stop: every later table is skipped and every conflict aborts, and
    /// the library's savepoint undoes what was applied.
    pub(crate) aborted: bool,
}

pub(crate) unsafe extern "C" fn filter_tramp(p: *mut c_void, table: *const c_char) -> c_int {
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

pub(crate) unsafe extern "C" fn conflict_tramp(
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

/// A changeset argument as SQLite takes it: (pointer, length).
///
/// # Safety
/// As for `try_slice`.
pub(crate) unsafe fn changeset_arg(data: *const u8, len: usize) -> Result<(*mut c_void, c_int), Error> {
    // SAFETY: the caller's contract.
    let bytes = unsafe { try_slice(data, len, "changeset")? };
    let n = c_int::try_from(bytes.len())
        .map_err(|_| Error::new(SQLBATCH_E_RANGE, "a changeset is at most 2 GiB"))?;
    Ok((bytes.as_ptr() as *mut c_void, n))
}

pub(crate) fn code(rc: c_int) -> Result<i32, Error> {
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
pub(crate) const READ_BATCH_BYTES: usize = 1 << 20;

/// The changes `sqlbatch_changeset_read` collects between two calls of its callback: where
/// each change's parts are in the buffers (offsets, as the buffers grow).
#[derive(Default)]
pub(crate) struct ReadBatch {
    pub(crate) rows: Cells,
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
    pub(crate) fn len(&self) -> usize {
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
    pub(crate) unsafe fn push(&mut self, iter: *mut ffi::sqlite3_changeset_iter, invert: bool) -> bool {
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
    pub(crate) unsafe fn hand_over(
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
