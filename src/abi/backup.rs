//! Entry points: online backup, and a database copied to or from a file.

use std::ffi::{c_char, c_int};
use std::ptr;

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::error::{Error, ErrorSink};
use crate::ffi::*;
use crate::panic::{boundary, boundary_value};

use crate::engine::backup::sqlbatch_backup;
use crate::engine::conn::sqlbatch_conn;

use std::sync::atomic::AtomicPtr;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// sqlbatch_backup_init starts copying the database `src_schema` of `src` (NULL: "main") over
/// the database `dest_schema` of `dest` (NULL: "main"); nothing is copied until
/// `sqlbatch_backup_step`. See <https://sqlite.org/c3ref/backup_finish.html>.
///
/// Ownership: `*out_backup` (set on success only) is the caller's, released with
/// `sqlbatch_backup_finish`, before or after either connection is closed. The two connections
/// must be different. Until the backup is finished, `dest` is the backup's alone, as SQLite
/// requires: every other call on it and its statements and blob handles (but
/// `sqlbatch_conn_interrupt` and `sqlbatch_conn_close`, which finishes the backup) fails
/// with `SQLITE_BUSY`; `src` stays usable between steps. Thread: a step uses both
/// connections, so no other call on either may run at the same time (their usual rule).
/// NULL: `dest`, `src` or `out_backup` NULL: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_CLOSED`, `SQLBATCH_E_INVALID_ARGUMENT` (the same
/// connection twice, a NUL in a name), `SQLBATCH_E_INVALID_UTF8`, or SQLite's error, recorded
/// on `dest` (e.g. `SQLITE_ERROR` for an unknown schema, or a destination with a read
/// transaction open).
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_backup_init(
    dest: *mut sqlbatch_conn,
    dest_schema: *const c_char,
    dest_schema_len: usize,
    src: *mut sqlbatch_conn,
    src_schema: *const c_char,
    src_schema_len: usize,
    out_backup: *mut *mut sqlbatch_backup,
) -> i32 {
    ffi_boundary!(conn: dest => |d| {
        // SAFETY: the caller vouches for every pointer.
        let s = unsafe { try_ref(src, "src")? };
        let out = unsafe { try_mut(out_backup, "out_backup")? };
        if Arc::ptr_eq(&d.shared, &s.shared) {
            return Err(Error::new(SQLBATCH_E_INVALID_ARGUMENT, "a backup needs two different connections"));
        }
        let (dest_db, src_db) = (d.shared.db()?, s.shared.db()?);
        let dest_name = unsafe { schema_name(dest_schema, dest_schema_len)? };
        let src_name = unsafe { schema_name(src_schema, src_schema_len)? };
        // SAFETY: both connections are open and used by this thread only.
        let raw = unsafe { ffi::sqlite3_backup_init(dest_db, dest_name.as_ptr(), src_db, src_name.as_ptr()) };
        if raw.is_null() {
            // SAFETY: as above; the error is on the destination.
            return Err(unsafe { Error::from_db(dest_db, ffi::sqlite3_errcode(dest_db)) });
        }
        let raw = Arc::new(AtomicPtr::new(raw));
        d.shared.adopt_backup(&raw);
        *out = Box::into_raw(Box::new(sqlbatch_backup { raw, dest: d.shared.clone(), src: s.shared.clone() }));
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_backup_step copies up to `pages` pages (all that remain when `pages` < 0).
/// @return `SQLBATCH_OK` when pages remain, `SQLBATCH_DONE` once the copy is complete;
/// `SQLITE_BUSY` or `SQLITE_LOCKED` (a lock held elsewhere: nothing is lost, step again
/// later); `SQLBATCH_E_CLOSED` once either connection is closed; another SQLite error
/// (`SQLITE_READONLY`, `SQLITE_NOMEM`, `SQLITE_IOERR_*`) is final: only finish remains.
/// Errors are recorded on the destination connection. NULL: `SQLBATCH_E_NULL_PARAMETER`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_backup_step(backup: *mut sqlbatch_backup, pages: i32) -> i32 {
    // SAFETY: a non-NULL `backup` is live (the caller's contract).
    let Some(b) = (unsafe { backup.as_mut() }) else {
        return SQLBATCH_E_NULL_PARAMETER;
    };
    let sink: &dyn ErrorSink = &*b.dest;
    boundary(Some(sink), || {
        let raw = b.open_raw()?;
        // SAFETY: both connections are open and used by this thread only.
        let rc = unsafe { ffi::sqlite3_backup_step(raw, pages as c_int) };
        match rc {
            ffi::SQLITE_OK => Ok(SQLBATCH_OK),
            ffi::SQLITE_DONE => Ok(SQLBATCH_DONE),
            _ => Err(Error::code(rc)),
        }
    })
}

/// sqlbatch_backup_remaining writes to `*out_remaining` the pages still to copy, as of the last step.
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_backup_remaining(
    backup: *const sqlbatch_backup,
    out_remaining: *mut i64,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { counter(backup, out_remaining, "out_remaining", ffi::sqlite3_backup_remaining) }
}

/// sqlbatch_backup_pagecount writes to `*out_pagecount` the pages of the source database, as of the
/// last step (0 before the first).
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_backup_pagecount(
    backup: *const sqlbatch_backup,
    out_pagecount: *mut i64,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { counter(backup, out_pagecount, "out_pagecount", ffi::sqlite3_backup_pagecount) }
}

/// sqlbatch_backup_finish ends a backup, complete or not, and frees it: the destination keeps
/// what was copied if the copy completed, and is left as it was otherwise.
/// @return `SQLBATCH_OK`, or the error that ended the backup (also recorded on the
/// destination, if it is open). NULL: a no-op (`SQLBATCH_OK`). Must not be called twice.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_backup_finish(backup: *mut sqlbatch_backup) -> i32 {
    if backup.is_null() {
        return SQLBATCH_OK;
    }
    boundary_value(SQLBATCH_E_PANIC, || {
        // SAFETY: `backup` came from sqlbatch_backup_init and is freed once (the contract).
        let b = unsafe { Box::from_raw(backup) };
        // Finishing releases the source's read lock: its worker may not be running a job.
        b.src.worker().wait();
        b.dest.release_backup(&b.raw);
        let raw = b.raw.swap(ptr::null_mut(), Ordering::SeqCst);
        if raw.is_null() {
            return SQLBATCH_OK; // finished when the destination closed
        }
        // SAFETY: the destination is open (its close would have finished the backup); a
        // closed source is kept by SQLite as a "zombie" until its backups finish.
        let rc = unsafe { ffi::sqlite3_backup_finish(raw) };
        if rc != ffi::SQLITE_OK && b.dest.is_open() {
            b.dest.record(&Error::code(rc));
        }
        rc
    })
}

/// Copies a whole database between `conn` and a file in one call.
///
/// # Safety
/// Pointers as the exported functions say.
unsafe fn with_file(
    conn: *mut sqlbatch_conn,
    schema: *const c_char,
    schema_len: usize,
    path: *const c_char,
    path_len: usize,
    to_file: bool,
) -> i32 {
    ffi_boundary!(conn: conn => |c| {
        let db = c.shared.db()?;
        // SAFETY: the caller vouches for the strings.
        let name = unsafe { schema_name(schema, schema_len)? };
        let path = unsafe { try_cstring(path, path_len, "path")? };
        let mut file = ptr::null_mut();
        let flags = if to_file {
            ffi::SQLITE_OPEN_READWRITE | ffi::SQLITE_OPEN_CREATE
        } else {
            ffi::SQLITE_OPEN_READONLY
        };
        // SAFETY: a private connection to the file, closed below whatever happens.
        unsafe {
            let rc = ffi::sqlite3_open_v2(path.as_ptr(), &mut file, flags | ffi::SQLITE_OPEN_NOMUTEX, ptr::null());
            let result = if rc != ffi::SQLITE_OK {
                Err(if file.is_null() { Error::new(rc, "cannot open the file") } else { Error::from_db(file, rc) })
            } else {
                let (dest, dest_name, src, src_name) =
                    if to_file { (file, c"main", db, name.as_c_str()) } else { (db, name.as_c_str(), file, c"main") };
                let b = ffi::sqlite3_backup_init(dest, dest_name.as_ptr(), src, src_name.as_ptr());
                if b.is_null() {
                    Err(Error::from_db(dest, ffi::sqlite3_errcode(dest)))
                } else {
                    ffi::sqlite3_backup_step(b, -1);
                    match ffi::sqlite3_backup_finish(b) {
                        ffi::SQLITE_OK => Ok(SQLBATCH_OK),
                        rc => Err(Error::from_db(dest, rc)),
                    }
                }
            };
            ffi::sqlite3_close(file);
            result
        }
    })
}

/// sqlbatch_conn_backup_to_file copies the database `schema` of `conn` (NULL: "main") into
/// the file at `path` (`path_len` bytes of UTF-8), created, or replaced if it holds a
/// database (a file that is not one is left alone: `SQLITE_NOTADB`), in one call (the
/// online backup, all pages in one step; `VACUUM INTO` is the alternative that also
/// defragments). Uses `conn` for the length of the call.
/// NULL: `conn` or `path` NULL: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_CLOSED`; SQLite's error (`SQLITE_CANTOPEN`,
/// `SQLITE_BUSY`, an I/O error), recorded on `conn`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_backup_to_file(
    conn: *mut sqlbatch_conn,
    schema: *const c_char,
    schema_len: usize,
    path: *const c_char,
    path_len: usize,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { with_file(conn, schema, schema_len, path, path_len, true) }
}

/// sqlbatch_conn_restore_from_file replaces the database `schema` of `conn` (NULL: "main")
/// with the database in the file at `path`, opened read-only, in one call.
/// NULL: `conn` or `path` NULL: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_CLOSED`; SQLite's error (`SQLITE_CANTOPEN`,
/// `SQLITE_NOTADB` for a file that is not a database, `SQLITE_BUSY`), recorded on `conn`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_restore_from_file(
    conn: *mut sqlbatch_conn,
    schema: *const c_char,
    schema_len: usize,
    path: *const c_char,
    path_len: usize,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { with_file(conn, schema, schema_len, path, path_len, false) }
}

/// # Safety
/// `backup` NULL or live; `out` NULL or valid for writes.
pub(crate) unsafe fn counter(
    backup: *const sqlbatch_backup,
    out: *mut i64,
    what: &'static str,
    read: unsafe extern "C" fn(*mut ffi::sqlite3_backup) -> c_int,
) -> i32 {
    ffi_boundary!({
        // SAFETY: as for this function; the counters are plain reads of the backup object.
        let b = unsafe { try_ref(backup, "backup")? };
        let out = unsafe { try_mut(out, what)? };
        let raw = b.raw.load(Ordering::SeqCst);
        // A backup whose destination closed has nothing left to copy (it was finished).
        *out = if raw.is_null() { 0 } else { i64::from(unsafe { read(raw) }) };
        Ok(SQLBATCH_OK)
    })
}
