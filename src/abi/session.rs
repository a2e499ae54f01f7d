//! Entry points: sessions and changesets.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr;

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::error::{Error, ErrorSink};
use crate::ffi::*;
use crate::panic::{boundary, boundary_value};

use crate::engine::cells::Cells;
use crate::engine::conn::sqlbatch_conn;
use crate::engine::run;
use crate::engine::session::sqlbatch_changeset_fn;
use crate::engine::session::sqlbatch_conflict_fn;
use crate::engine::session::sqlbatch_session;
use crate::engine::session::sqlbatch_table_filter_fn;
use crate::engine::session::SQLBATCH_APPLY_INVERT;
use crate::engine::session::SQLBATCH_APPLY_NOSAVEPOINT;
use crate::engine::session::SQLBATCH_CHANGESET_ABORT;
use crate::engine::session::SQLBATCH_CHANGESET_OMIT;
use crate::engine::session::SQLBATCH_CHANGESET_READ_INVERT;

use crate::engine::session::changeset_arg;
use crate::engine::session::check;
use crate::engine::session::code;
use crate::engine::session::conflict_tramp;
use crate::engine::session::filter_tramp;
use crate::engine::session::invert;
use crate::engine::session::Apply;
use crate::engine::session::ReadBatch;
use crate::engine::session::SqliteBuf;
use crate::engine::session::APPLY_FLAGS;
use crate::engine::session::READ_BATCH_BYTES;
use std::sync::atomic::AtomicPtr;
use std::sync::Arc;

use crate::engine::session::ChangesetOut;

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

/// sqlbatch_session_is_empty writes to `*out_empty` whether `session` has recorded no change
/// (`sqlite3session_isempty`): its changeset would be empty.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_NULL_PARAMETER`; `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_session_is_empty(
    session: *const sqlbatch_session,
    out_empty: *mut bool,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe {
        with_session(session, |_, raw| {
            let out_empty = try_mut(out_empty, "out_empty")?;
            *out_empty = ffi::sqlite3session_isempty(raw) != 0;
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

/// sqlbatch_session_diff records in `session` the changes that would make the table `table`
/// of database `from_schema` (attached to the same connection, `from_schema_len` bytes) equal to the
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
    from_schema_len: usize,
    table: *const c_char,
    table_len: usize,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe {
        with_session(session, |_, raw| {
            let from = try_cstring(from_schema, from_schema_len, "from_schema")?;
            let table = try_cstring(table, table_len, "table")?;
            let mut msg: *mut c_char = ptr::null_mut();
            let rc = ffi::sqlite3session_diff(raw, from.as_ptr(), table.as_ptr(), &mut msg);
            let text = (!msg.is_null()).then(|| crate::error::owned_text(CStr::from_ptr(msg).to_bytes()));
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

/// sqlbatch_conn_apply_changeset applies the changeset or patchset of `data_len` bytes at `data` to
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
/// NULL: `conn` NULL, or `data` NULL with `data_len` > 0: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLITE_ABORT` (a conflict was answered with ABORT, or the filter
/// stopped the apply: nothing was applied); `SQLITE_CONSTRAINT` (a `FOREIGN_KEY` conflict
/// answered with ABORT: nothing was applied); `SQLITE_MISUSE` (REPLACE answered to a conflict that does not allow it; called from
/// a hook); `SQLITE_CORRUPT`; `SQLBATCH_E_CLOSED`; `SQLBATCH_E_INVALID_ARGUMENT` (unknown flags
/// or policy); SQLite's error. Recorded on `conn`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_apply_changeset(
    conn: *mut sqlbatch_conn,
    data: *const u8,
    data_len: usize,
    flags: u32,
    policy: i32,
    conflict: sqlbatch_conflict_fn,
    filter: sqlbatch_table_filter_fn,
    user_data: *mut c_void,
) -> i32 {
    ffi_boundary!(conn: conn => |c| {
        let db = c.shared.db()?;
        // SAFETY: the caller vouches for the pointers.
        let bytes = unsafe { try_slice(data, data_len, "data")? };
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
            unsafe { run::exec(db, c"SAVEPOINT sqlbatch_apply")? };
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
            let ended = unsafe { run::exec(db, end) };
            if outcome.is_ok() {
                ended?;
            }
        }
        // SAFETY: as above.
        unsafe { c.shared.hooks().end_call(db, outcome.map(|()| SQLBATCH_OK)) }
    })
}

/// sqlbatch_changeset_invert writes the inverse of the changeset of `data_len` bytes at `data` to a
/// new buffer (`sqlite3changeset_invert`): inserts become deletes and the other way round,
/// updates swap their old and new values, so applying it undoes the changeset. A patchset
/// cannot be inverted (`SQLITE_CORRUPT`). An empty changeset gives `*out_data` NULL and
/// `*out_len` 0. Any thread: no connection is involved.
/// Ownership: the caller keeps `data`; the new buffer is the caller's (`sqlbatch_free`).
/// NULL: `out_data` or `out_len` NULL, or `data` NULL with `data_len` > 0: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLITE_CORRUPT`; `SQLITE_NOMEM`; `SQLBATCH_E_RANGE` (over 2 GiB).
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_changeset_invert(
    data: *const u8,
    data_len: usize,
    out_data: *mut *mut u8,
    out_len: *mut usize,
) -> i32 {
    ffi_boundary!({
        // SAFETY: the caller vouches for the pointers.
        let (out_data, out_len) = unsafe { (try_mut(out_data, "out_data")?, try_mut(out_len, "out_len")?) };
        let a = unsafe { changeset_arg(data, data_len)? };
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

/// sqlbatch_changeset_read hands the changes of the changeset or patchset of `data_len` bytes at
/// `data` to `fn`, in their order, many per call (`sqlite3changeset_start_v2` and its
/// iterator): up to `max_changes` changes (0: 256) a call, fewer once their values hold
/// 1 MiB, so that memory stays bounded whatever the changeset's size. With
/// `SQLBATCH_CHANGESET_READ_INVERT`, the changes of the inverse changeset. The bytes are not
/// trusted: a corrupt changeset is an error, after the changes before the damage were handed
/// over (never a crash). Any thread: no connection is involved; `fn` is called on this thread.
/// Ownership: the caller keeps `data`.
/// NULL: `fn` NULL, or `data` NULL with `data_len` > 0: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK` (every change read, or `fn` stopped it); `SQLITE_CORRUPT`;
/// `SQLITE_NOMEM`; `SQLBATCH_E_INVALID_ARGUMENT` (unknown flags); `SQLBATCH_E_RANGE` (over
/// 2 GiB).
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_changeset_read(
    data: *const u8,
    data_len: usize,
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
        let (p, n) = unsafe { changeset_arg(data, data_len)? };
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

/// The changeset or patchset of `session`, to the caller.
///
/// # Safety
/// As for `sqlbatch_session_changeset`.
pub(crate) unsafe fn changeset_out(
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
