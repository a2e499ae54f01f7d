//! Tracing (`sqlite3_trace_v2`): statements as they start (with their values, on request),
//! their rows, their run times, and the connection's close, one `sqlbatch_trace_event` each.

use std::ffi::{c_char, c_int, c_void, CStr};

use libsqlite3_sys as ffi;

use super::{hooks, lock, reg, register, str_of, Hooks};
use crate::codes::*;
use crate::conn::sqlbatch_conn;
use crate::error::Error;
use crate::function::sqlbatch_destroy_fn;
use crate::panic::{boundary_value, ffi_boundary};
use crate::value::sqlbatch_str;

/// One trace event (`sqlbatch_conn_trace`), valid during the callback only.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sqlbatch_trace_event {
    /// One `SQLBATCH_TRACE_*` event bit.
    pub event: u32,
    /// 1 when the connection is in autocommit mode at the event (no transaction open:
    /// `sqlite3_get_autocommit`), else 0.
    pub autocommit: i32,
    /// The statement's identity: SQLite's address for it, the same for every event of one
    /// statement while it lives (0 for `CLOSE`). Not a handle: nothing may be called with it.
    pub stmt: u64,
    /// The statement's text (NUL-terminated). For `STMT` as it starts, as SQLite gives it: the
    /// SQL as prepared, or "-- " and a trigger's name or statement for a trigger program; for
    /// `PROFILE` and `ROW` the SQL as prepared; empty (`ptr` NULL) for `CLOSE`.
    pub sql: sqlbatch_str,
    /// For `STMT` when tracing with `SQLBATCH_TRACE_EXPANDED`, but not for a trigger's "-- "
    /// text: the SQL with the bound values in place of its parameters
    /// (`sqlite3_expanded_sql`; NUL-terminated). Empty (`ptr` NULL) otherwise, or when SQLite
    /// could not expand it (out of memory, or longer than `SQLITE_LIMIT_LENGTH`).
    pub expanded_sql: sqlbatch_str,
    /// For `PROFILE`: how long the statement ran, in nanoseconds (SQLite's clock: millisecond
    /// resolution on most systems). 0 otherwise.
    pub nanoseconds: i64,
}

/// A trace callback (`sqlbatch_conn_trace`): `event` describes one event and is valid during
/// the call only. It must not use the connection.
pub type sqlbatch_trace_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, event: *const sqlbatch_trace_event)>;

/// Trace event: a statement starts running (`SQLITE_TRACE_STMT`).
pub const SQLBATCH_TRACE_STMT: u32 = 1;
/// A statement finished, with its run time (`SQLITE_TRACE_PROFILE`).
pub const SQLBATCH_TRACE_PROFILE: u32 = 2;
/// A statement produced a row (`SQLITE_TRACE_ROW`).
pub const SQLBATCH_TRACE_ROW: u32 = 4;
/// The connection closes (`SQLITE_TRACE_CLOSE`).
pub const SQLBATCH_TRACE_CLOSE: u32 = 8;
/// Trace flag: `STMT` events carry, besides the SQL as prepared, the SQL with the bound values
/// in place of the parameters (`sqlite3_expanded_sql`), in `expanded_sql`.
pub const SQLBATCH_TRACE_EXPANDED: u32 = 0x100;

unsafe extern "C" fn trace_tramp(
    event: std::ffi::c_uint,
    p: *mut c_void,
    stmt: *mut c_void,
    x: *mut c_void,
) -> c_int {
    boundary_value(0, || {
        // SAFETY: installed with our dispatcher.
        let h = unsafe { hooks(p) };
        let (cb, mask) = {
            let s = lock(&h.slots);
            (s.trace.as_ref().map(|r| (r.f, r.user)), s.trace_mask)
        };
        let Some((Some(f), user)) = cb else { return 0 };
        let stmt = stmt as *mut ffi::sqlite3_stmt;
        let empty = sqlbatch_str { ptr: std::ptr::null(), len: 0 };
        let text = |p: *const c_char| match p.is_null() {
            true => empty,
            // SAFETY: SQLite's strings are NUL-terminated.
            false => str_of(unsafe { CStr::from_ptr(p) }),
        };
        // SAFETY: SQLite's arguments for each event (sqlite3_trace_v2's documentation): for
        // CLOSE, `stmt` is the connection; for the others, the statement and, for STMT, its
        // text, for PROFILE a pointer to the run time.
        unsafe {
            let db = match event {
                SQLBATCH_TRACE_CLOSE => stmt as *mut ffi::sqlite3,
                _ => ffi::sqlite3_db_handle(stmt),
            };
            let mut e = sqlbatch_trace_event {
                event,
                autocommit: ffi::sqlite3_get_autocommit(db),
                stmt: if event == SQLBATCH_TRACE_CLOSE { 0 } else { stmt as usize as u64 },
                sql: empty,
                expanded_sql: empty,
                nanoseconds: 0,
            };
            let mut owned: *mut c_char = std::ptr::null_mut();
            match event {
                SQLBATCH_TRACE_STMT => {
                    e.sql = text(x as *const c_char);
                    let trigger =
                        !e.sql.ptr.is_null() && CStr::from_ptr(e.sql.ptr).to_bytes().starts_with(b"--");
                    if mask & SQLBATCH_TRACE_EXPANDED != 0 && !trigger {
                        owned = ffi::sqlite3_expanded_sql(stmt);
                        e.expanded_sql = text(owned);
                    }
                }
                SQLBATCH_TRACE_PROFILE => {
                    e.sql = text(ffi::sqlite3_sql(stmt));
                    e.nanoseconds = *(x as *const i64);
                }
                SQLBATCH_TRACE_ROW => e.sql = text(ffi::sqlite3_sql(stmt)),
                _ => {}
            }
            h.call(|| f(user, &e));
            ffi::sqlite3_free(owned.cast());
        }
        0
    })
}

/// sqlbatch_conn_trace sets the trace callback of `conn` for the events in `mask` (a bitwise
/// OR of `SQLBATCH_TRACE_STMT`, `_PROFILE`, `_ROW`, `_CLOSE`, and `SQLBATCH_TRACE_EXPANDED`
/// for statements' text with their parameters' values as well; `sqlite3_trace_v2`); `fn` NULL
/// or no event bit removes it. Each call gets a `sqlbatch_trace_event`: the statement's text
/// and identity, the autocommit state, and the run time for `PROFILE`. (No error code: at a
/// `PROFILE` event SQLite's connection error is not the statement's, 100 after a query's rows
/// and 0 after a failed insert; the statement's own call returns its error.)
/// Called on the thread running the statement. Ownership and errors as for
/// `sqlbatch_conn_update_hook`, and `SQLBATCH_E_INVALID_ARGUMENT` for unknown bits.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_trace(
    conn: *mut sqlbatch_conn,
    mask: u32,
    fn_: sqlbatch_trace_fn,
    user_data: *mut c_void,
    destroy: sqlbatch_destroy_fn,
) -> i32 {
    const KNOWN: u32 = SQLBATCH_TRACE_STMT
        | SQLBATCH_TRACE_PROFILE
        | SQLBATCH_TRACE_ROW
        | SQLBATCH_TRACE_CLOSE
        | SQLBATCH_TRACE_EXPANDED;
    if mask & !KNOWN != 0 {
        // SAFETY: the caller's destructor, once.
        let _ = reg::<sqlbatch_trace_fn>(None, user_data, destroy);
        return ffi_boundary!(conn: conn => |_c| Err(Error::new(SQLBATCH_E_INVALID_ARGUMENT, format!("unknown trace bits {:#x}", mask & !KNOWN))));
    }
    let events = mask & !SQLBATCH_TRACE_EXPANDED;
    let f = if events == 0 { None } else { fn_.map(Some) };
    // SAFETY: the caller's contract; the dispatcher outlives the handle.
    unsafe {
        register(
            conn,
            reg(f, user_data, destroy),
            |s| &mut s.trace,
            |db, h, set| {
                lock(&h.slots).trace_mask = mask;
                let me = h as *const Hooks as *mut c_void;
                ffi::sqlite3_trace_v2(db, if set { events } else { 0 }, set.then_some(trace_tramp as _), me);
            },
        )
    }
}
