//! Tracing (`sqlite3_trace_v2`): statements as they start (with their values, on request),
//! their rows, their run times, and the connection's close, one `sqlbatch_trace_event` each.

use std::ffi::{c_char, c_int, c_void, CStr};

use libsqlite3_sys as ffi;

use super::{hooks, lock, str_of};
use crate::engine::value::sqlbatch_str;
use crate::panic::boundary_value;

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

pub(crate) unsafe extern "C" fn trace_tramp(
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
