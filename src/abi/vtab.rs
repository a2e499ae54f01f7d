//! Entry points: virtual table modules whose cursors fill batches, and what their callbacks
//! call (declare the table, push rows, give an error message).

use std::ffi::{c_char, c_void};

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::engine::callback::sqlbatch_destroy_fn;
use crate::engine::conn::sqlbatch_conn;
use crate::engine::function::checked_name;
use crate::engine::value::{sqlbatch_params, Params};
use crate::engine::vtab::{free_module, sqlbatch_vtab_call, sqlbatch_vtab_module, Module};
use crate::error::Error;
use crate::ffi::*;
use crate::panic::boundary_value;

/// sqlbatch_conn_create_module registers a virtual table module named `name` (`name_len`
/// bytes of UTF-8) on `conn`, implemented by the callbacks of `module` (copied: `module` may
/// be freed when this returns), which the library calls in batches: `fill` hands over up to
/// `batch_rows` rows at once, and SQLite's calls for each row and each value are served by
/// the library from them.
///
/// `flags` is 0 (tables made by `CREATE VIRTUAL TABLE t USING name(args...)`),
/// `SQLBATCH_VTAB_EPONYMOUS` (also the table `name` itself, without CREATE; with hidden
/// columns, a table-valued function: `SELECT * FROM name(1, 2)`), or
/// `SQLBATCH_VTAB_EPONYMOUS_ONLY` (only that). `module` NULL removes the module of that
/// name (tables that use it stop working).
///
/// Planning (`best_index`) is one call per plan SQLite considers, with every constraint and
/// ORDER BY term; a constraint the plan uses becomes an argument of `filter`, an IN list
/// taken whole becomes one argument holding the whole list, and LIMIT and OFFSET are
/// constraints a plan may take (`SQLBATCH_INDEX_LIMIT`). Changes to a writable table
/// (`update`) come one row per call, as SQLite makes them: each needs its own outcome (an
/// insert's rowid, a constraint error) before SQLite goes on, and a table read within the
/// same transaction must see them; no transaction callbacks are called.
///
/// Threads: the callbacks run on the thread stepping the statement (the connection's worker
/// for a statement that fetches ahead); they may use the connection, as SQLite allows, but
/// not the statement that is reading the table. An error a callback returns ends the
/// statement with it (a library code as `SQLITE_ERROR`), with the message it gave
/// (`sqlbatch_vtab_error`); a panic must not cross back.
/// Ownership: `destroy` (if not NULL) is called with `user_data` exactly once: when the
/// module is replaced or removed, when `conn` closes, or at once if this call fails.
/// `close` is called once for every cursor `open` made, and `disconnect` once for every table
/// `connect` made, also when a statement is finalized in the middle of a scan or the
/// connection closes.
/// NULL: `conn` NULL, or `name` NULL with `name_len > 0`: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_INVALID_ARGUMENT` (bad flags, a required callback
/// NULL, an empty name or one with a NUL byte); `SQLBATCH_E_INVALID_UTF8`;
/// `SQLBATCH_E_CLOSED`; `SQLITE_NOMEM`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_create_module(
    conn: *mut sqlbatch_conn,
    name: *const c_char,
    name_len: usize,
    module: *const sqlbatch_vtab_module,
    flags: u32,
    user_data: *mut c_void,
    destroy: sqlbatch_destroy_fn,
) -> i32 {
    // Until the library's module owns it (whose drop releases it), the user data is released
    // here: on every path that does not reach `Module::new`.
    let mut owned = true;
    let rc = if conn.is_null() {
        SQLBATCH_E_NULL_PARAMETER
    } else {
        ffi_boundary!(conn: conn => |c| {
            let db = c.shared.db()?;
            // SAFETY: the caller vouches for `name`.
            let name = checked_name(unsafe { try_bytes(name, name_len, "name")? })?;
            // SAFETY: the caller vouches for `module`.
            let Some(host) = (unsafe { module.as_ref() }) else {
                // SAFETY: `db` is open; a NULL module removes the module of that name.
                let rc = unsafe {
                    ffi::sqlite3_create_module_v2(db, name.as_ptr(), std::ptr::null(), std::ptr::null_mut(), None)
                };
                if rc != ffi::SQLITE_OK {
                    // SAFETY: as above.
                    return Err(unsafe { Error::from_db(db, rc) });
                }
                return Ok(SQLBATCH_OK);
            };
            owned = false;
            let m = Module::new(host, flags, user_data, destroy, c.shared.hooks())?;
            let sqlite = m.sqlite();
            let aux = Box::into_raw(m);
            // SAFETY: `db` is open; SQLite owns `aux` from now on and frees it through
            // `free_module` (also when this fails); `sqlite` lives as long as `aux`.
            let rc = unsafe { ffi::sqlite3_create_module_v2(db, name.as_ptr(), sqlite, aux.cast(), Some(free_module)) };
            if rc != ffi::SQLITE_OK {
                // SAFETY: as above.
                return Err(unsafe { Error::from_db(db, rc) });
            }
            Ok(SQLBATCH_OK)
        })
    };
    if owned {
        if let Some(d) = destroy {
            // SAFETY: the caller's destructor, called once, with its own user data.
            boundary_value((), || unsafe { d(user_data) });
        }
    }
    rc
}

/// sqlbatch_vtab_declare declares the columns of the table a module's `connect` makes, as a
/// `CREATE TABLE` statement (`sql_len` bytes of UTF-8): `"CREATE TABLE x(a INTEGER, b TEXT,
/// arg HIDDEN)"` (the table's name is ignored; hidden columns are the arguments of a
/// table-valued function, in order). Only from `connect`, once, through its `call`.
/// @return `SQLBATCH_OK`; `SQLITE_MISUSE` (not from `connect`, or twice);
/// `SQLBATCH_E_INVALID_UTF8`; SQLite's error for a statement it refuses (`connect` should
/// return it); `SQLBATCH_E_NULL_PARAMETER`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_vtab_declare(
    call: *mut sqlbatch_vtab_call,
    sql: *const c_char,
    sql_len: usize,
) -> i32 {
    // SAFETY: a non-NULL `call` is the current callback's (the caller's contract).
    let Some(call) = (unsafe { call.as_mut() }) else { return SQLBATCH_E_NULL_PARAMETER };
    let r = boundary_value(Err(Error::panic("sqlbatch_vtab_declare")), || {
        // SAFETY: the caller vouches for `sql`.
        let sql = unsafe { try_bytes(sql, sql_len, "sql")? };
        call.declare(sql)
    });
    settle(call, r)
}

/// sqlbatch_vtab_push hands rows over to the cursor a module's `fill` fills: `rows` holds
/// whole rows of `n_cols` values each, row-major (`rows->names` NULL), and `rowids` NULL
/// (rows numbered 1, 2, ... in each scan) or one rowid per row. Called from `fill`, through
/// its `call`, any number of times, with no more rows in all than `fill` was asked for, and
/// the same `n_cols` throughout a scan (columns past `n_cols`, a table's hidden argument
/// columns say, read as NULL).
///
/// Ownership: the values, their bytes and the rowids are copied; everything may be freed (or
/// reused for the next rows) as soon as this returns.
/// @return `SQLBATCH_OK`; `SQLITE_MISUSE` (not from `fill`); `SQLBATCH_E_RANGE` (more rows
/// than asked, or bytes outside `data_len`); `SQLBATCH_E_PARAM_COUNT` (not whole rows, or
/// another `n_cols`); `SQLBATCH_E_INVALID_ARGUMENT` (names, an unknown kind, bytes without a
/// base); `SQLITE_NOMEM`; `SQLBATCH_E_NULL_PARAMETER`. A failure also becomes the message of
/// `fill`'s error, which `fill` should return.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_vtab_push(
    call: *mut sqlbatch_vtab_call,
    rows: *const sqlbatch_params,
    n_cols: usize,
    rowids: *const i64,
) -> i32 {
    // SAFETY: a non-NULL `call` is the current callback's (the caller's contract).
    let Some(call) = (unsafe { call.as_mut() }) else { return SQLBATCH_E_NULL_PARAMETER };
    let r = boundary_value(Err(Error::panic("sqlbatch_vtab_push")), || {
        if rows.is_null() {
            return Err(Error::null("rows"));
        }
        // SAFETY: the caller vouches for `rows` and `rowids`.
        unsafe {
            let rows = Params::from_c(rows)?;
            call.push(&rows, n_cols, rowids)
        }
    });
    settle(call, r)
}

/// sqlbatch_vtab_error gives the message (`message_len` bytes of UTF-8; invalid bytes are
/// replaced) of the error the current callback returns; SQLite reports it as the
/// statement's error message. NULL `call` or `message`: a no-op.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_vtab_error(
    call: *mut sqlbatch_vtab_call,
    message: *const c_char,
    message_len: usize,
) {
    // SAFETY: a non-NULL `call` is the current callback's (the caller's contract).
    let Some(call) = (unsafe { call.as_mut() }) else { return };
    boundary_value((), || {
        // SAFETY: the caller vouches for `message`.
        if let Ok(text) = unsafe { try_bytes(message, message_len, "message") } {
            if !message.is_null() {
                call.message = Some(crate::error::owned_text(text).into_owned());
            }
        }
    })
}

/// The status of a call a callback made; a failure becomes the callback's message.
fn settle(call: &mut sqlbatch_vtab_call, r: Result<(), Error>) -> i32 {
    match r {
        Ok(()) => SQLBATCH_OK,
        Err(e) => {
            call.message = Some(e.message.into_owned());
            e.code
        }
    }
}
