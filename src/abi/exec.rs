//! Entry points: multi-statement scripts.

use std::ffi::c_char;

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::error::Error;
use crate::ffi::*;

use crate::engine::conn::sqlbatch_conn;
use crate::engine::script::sqlbatch_exec_result;
use crate::engine::value::sqlbatch_params;
use crate::engine::value::Binder;
use crate::engine::value::Params;
use crate::error::check_sql;

use crate::engine::script::exec_script;

/// sqlbatch_conn_exec runs every statement of a SQL script (`sql_len` bytes of UTF-8, e.g. a
/// dump of thousands of statements) in one call, stepping each to completion and discarding any
/// rows, like `sqlite3_exec` without a callback.
///
/// Parameters (`params`, NULL for none): the positional values are consumed in order across
/// the statements: each statement takes as many as its parameter count (its largest index;
/// `?3` alone takes three), parameter `i` of a statement getting the `i`-th of its share.
/// Where `params->names[i]` is a TEXT value, `values[i]` goes to every parameter of that name
/// (`:x`, `@x`, `$x`) in any statement, and is not consumed positionally. A name given with its
/// prefix matches only that spelling (":id" matches `:id`); a name given without one matches
/// every prefix ("id" matches `:id`, `@id` and `$id`), as `sqlbatch_stmt_param_index` does.
/// The bytes of values and names are only read during the call. Whitespace and comments after
/// the last statement are fine (but for a comment opener with nothing after it at the very
/// end, which SQLite reads as a slash: a syntax error). A script without statements does
/// nothing and succeeds.
///
/// One statement: with `SQLBATCH_PARAMS_SINGLE` in `params->flags`, the SQL must hold one
/// statement taking exactly the values given, or nothing runs (see that flag): a second
/// statement is `SQLBATCH_E_MULTIPLE_STATEMENTS` with `token_offset` where it starts, another
/// number of values `SQLBATCH_E_PARAM_COUNT`, both with `statement_index` 0. Once the
/// statement ran to its end, the call succeeds. This is the call for a statement run once
/// (prepare, bind, run, finalize): the bytes are bound without a copy, and there is no
/// statement handle to allocate and finalize.
///
/// On failure, the statements before the failing one have run and stay run (wrap the script in
/// a transaction to make it all-or-nothing); the error records the failing statement's index
/// (`statement_index`), where it starts (`statement_offset`), and the offending token relative to
/// the whole script (`token_offset`). If positional values are left over after the last
/// statement, the whole script has run and `SQLBATCH_E_PARAM_COUNT` is returned (not with
/// `SQLBATCH_PARAMS_SINGLE`, which refuses them before the statement runs).
///
/// `*out_result` (if `out_result` is not NULL) is written in every case, saying what ran.
/// Thread: the caller of `conn` (see "Thread model").
/// NULL: `conn` NULL, `sql` NULL with `sql_len > 0`, or a NULL array in `params` with a
/// non-zero count: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_INVALID_UTF8` or `SQLBATCH_E_INVALID_ARGUMENT` (a NUL byte
/// in the SQL) before anything runs, with `token_offset` at the offending byte;
/// `SQLBATCH_E_PARAM_COUNT`, `SQLBATCH_E_RANGE`, `SQLBATCH_E_INVALID_ARGUMENT` (a bad value
/// kind, bytes without a base, bad params flags), `SQLBATCH_E_MULTIPLE_STATEMENTS` (with
/// `SQLBATCH_PARAMS_SINGLE`), `SQLBATCH_E_CLOSED`, or the error of the
/// failing statement (e.g. `SQLITE_ERROR`, `SQLITE_CONSTRAINT_UNIQUE`, `SQLITE_INTERRUPT`).
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_exec(
    conn: *mut sqlbatch_conn,
    sql: *const c_char,
    sql_len: usize,
    params: *const sqlbatch_params,
    out_result: *mut sqlbatch_exec_result,
) -> i32 {
    let mut result = sqlbatch_exec_result::default();
    let rc = ffi_boundary!(conn: conn => |conn| {
        let db = conn.shared.db()?;
        // SAFETY: the caller vouches for `sql` and `params`.
        let bytes = unsafe { try_bytes(sql, sql_len, "sql")? };
        check_sql(bytes)?;
        let params = unsafe { Params::from_c(params)? };
        let single = params.single;
        let mut binder = Binder::new(params);
        conn.shared.start_call();
        // Counting changes and reading the last rowid cost a few SQLite calls per statement:
        // only for a caller who wants the result.
        let counted = !out_result.is_null();
        // SAFETY: `db` is open and used by this thread only.
        let outcome = unsafe { exec_script(db, &conn.shared, bytes, &mut binder, single, counted, &mut result) };
        if counted {
            // SAFETY: as above.
            result.last_insert_rowid = unsafe { ffi::sqlite3_last_insert_rowid(db) };
        }
        // SAFETY: as above.
        unsafe { conn.shared.hooks().end_call(db, outcome) }?;
        let left = binder.positional_left();
        if left > 0 {
            return Err(Error::new(
                SQLBATCH_E_PARAM_COUNT,
                format!("too many parameter values: {left} left over after the last statement"),
            ));
        }
        Ok(SQLBATCH_OK)
    });
    // SAFETY: a non-NULL `out_result` is valid for writes.
    unsafe { write_opt(out_result, result) };
    rc
}
