//! Entry points: extensions (from shared libraries, statically linked, automatic).

use std::ffi::{c_char, c_int};
use std::ptr;

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::engine::extension::{sqlite3_auto_extension, sqlite3_cancel_auto_extension};
use crate::error::Error;
use crate::ffi::*;

use crate::engine::conn::sqlbatch_conn;
use crate::engine::extension::sqlbatch_extension_init_fn;

use crate::engine::extension::api_routines;
use crate::engine::extension::take_message;
use crate::engine::extension::InitFn;

/// sqlbatch_conn_enable_load_extension turns loading shared-library extensions through
/// `sqlbatch_conn_load_extension` on (`on` true) or off for `conn`
/// (`SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION`). It is off when a connection opens. The SQL
/// function `load_extension()` stays off either way: SQL cannot load code.
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`, or SQLite's error.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_enable_load_extension(conn: *mut sqlbatch_conn, on: bool) -> i32 {
    ffi_boundary!(conn: conn => |c| {
        let db = c.shared.db()?;
        let mut now: c_int = 0;
        // SAFETY: `db` is open and used by this thread only.
        let rc = unsafe {
            ffi::sqlite3_db_config(db, ffi::SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, on as c_int, &mut now as *mut c_int)
        };
        if rc != ffi::SQLITE_OK {
            // SAFETY: as above.
            return Err(unsafe { Error::from_db(db, rc) });
        }
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_conn_load_extension loads the shared-library extension at `path` (`path_len`
/// bytes of UTF-8) into `conn` and runs its entry point `entry` (`entry_len` bytes; `entry`
/// NULL for SQLite's default: `sqlite3_extension_init`, or the name derived from the file name,
/// e.g. `sqlite3_vec_init` for vec0.so) (`sqlite3_load_extension`).
///
/// Loading must have been enabled on `conn` with `sqlbatch_conn_enable_load_extension`.
/// The library stays loaded until `conn` closes. The extension runs with the privileges of the
/// process: load only code you trust.
/// NULL: `conn` NULL, or `path` NULL: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_INVALID_ARGUMENT` (a NUL byte in `path` or `entry`),
/// `SQLBATCH_E_INVALID_UTF8`, `SQLBATCH_E_CLOSED`, or `SQLITE_ERROR` with SQLite's message
/// (loading not enabled, no such file, no such entry point, or the entry point failed).
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_load_extension(
    conn: *mut sqlbatch_conn,
    path: *const c_char,
    path_len: usize,
    entry: *const c_char,
    entry_len: usize,
) -> i32 {
    ffi_boundary!(conn: conn => |c| {
        let db = c.shared.db()?;
        // SAFETY: the caller vouches for `path` and `entry`.
        let path = unsafe { try_cstring(path, path_len, "path")? };
        let entry = if entry.is_null() { None } else { Some(unsafe { try_cstring(entry, entry_len, "entry")? }) };
        let mut msg = ptr::null_mut();
        // SAFETY: `db` is open and used by this thread only; the strings are NUL-terminated.
        let rc = unsafe {
            ffi::sqlite3_load_extension(db, path.as_ptr(), entry.as_ref().map_or(ptr::null(), |e| e.as_ptr()), &mut msg)
        };
        // SAFETY: SQLite allocated the message, if any.
        let message = unsafe { take_message(msg, "the extension could not be loaded") };
        let r = if rc != ffi::SQLITE_OK { Err(Error::new(rc, message)) } else { Ok(SQLBATCH_OK) };
        // SAFETY: as above (an extension's entry point may run SQL).
        unsafe { c.shared.hooks().end_call(db, r) }
    })
}

/// sqlbatch_conn_init_extension initializes a statically linked extension on `conn`: it calls
/// `init(db, &message, api)` with the connection's `sqlite3 *` and the bundled SQLite's API
/// routines, as SQLite does for a loaded one (see `sqlbatch_extension_init_fn` for how the
/// extension must be compiled). Needs no enabling: the code is already in the program.
/// Thread: the caller of `conn`, on which `init` runs.
/// NULL: `conn` or `init` NULL: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK` (also for SQLite's `SQLITE_OK_LOAD_PERMANENTLY`), `SQLBATCH_E_CLOSED`,
/// or the code `init` returned, with its message.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_init_extension(
    conn: *mut sqlbatch_conn,
    init: sqlbatch_extension_init_fn,
) -> i32 {
    ffi_boundary!(conn: conn => |c| {
        let db = c.shared.db()?;
        let init = init.ok_or_else(|| Error::null("init"))?;
        let mut msg = ptr::null_mut();
        // SAFETY: the caller's entry point, given an open connection and SQLite's API routines.
        let rc = unsafe { init(db.cast(), &mut msg, api_routines()) };
        // SAFETY: the extension allocated the message with sqlite3_malloc, if any.
        let message = unsafe { take_message(msg, "the extension's entry point failed") };
        match rc & 0xff {
            ffi::SQLITE_OK => Ok(SQLBATCH_OK),
            _ => Err(Error::new(rc, message)),
        }
    })
}

/// sqlbatch_auto_extension makes every connection opened after this call (by this library, in
/// this process) initialize the statically linked extension `init`, as
/// `sqlbatch_conn_init_extension` would (`sqlite3_auto_extension`); registering the same entry
/// point twice is a no-op. `sqlbatch_cancel_auto_extension` undoes it. An entry point that
/// fails makes `sqlbatch_conn_open` fail with its error. Any thread.
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, or `SQLITE_NOMEM`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_auto_extension(init: sqlbatch_extension_init_fn) -> i32 {
    ffi_boundary!({
        let init = init.ok_or_else(|| Error::null("init"))?;
        // SAFETY: SQLite calls automatic extensions with the entry-point signature, cast to
        // `void (*)(void)` as its API requires.
        let rc = unsafe {
            sqlite3_auto_extension(Some(std::mem::transmute::<InitFn, unsafe extern "C" fn()>(init)))
        };
        match rc {
            ffi::SQLITE_OK => Ok(SQLBATCH_OK),
            rc => Err(Error::new(rc, "could not register the automatic extension")),
        }
    })
}

/// sqlbatch_cancel_auto_extension stops initializing `init` on new connections; connections
/// already open keep it. Any thread.
/// @return `SQLBATCH_OK` if it was registered, `SQLBATCH_DONE` if it was not,
/// `SQLBATCH_E_NULL_PARAMETER`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_cancel_auto_extension(init: sqlbatch_extension_init_fn) -> i32 {
    ffi_boundary!({
        let init = init.ok_or_else(|| Error::null("init"))?;
        // SAFETY: as for sqlbatch_auto_extension.
        let found = unsafe {
            sqlite3_cancel_auto_extension(Some(std::mem::transmute::<InitFn, unsafe extern "C" fn()>(init)))
        };
        Ok(if found != 0 { SQLBATCH_OK } else { SQLBATCH_DONE })
    })
}
