//! Entry points: prepared statements (prepare, bind, metadata, reset, finalize).

use std::ffi::c_char;
use std::ptr;

use crate::codes::*;
use crate::error::Error;
use crate::ffi::*;
use crate::panic::boundary_value;

use crate::engine::conn::sqlbatch_conn;
use crate::engine::stmt::{sqlbatch_column, sqlbatch_stmt};
use crate::engine::value::{sqlbatch_params, sqlbatch_str, Params};

/// sqlbatch_stmt_prepare compiles the first SQL statement in `sql` (`sql_len` bytes of UTF-8;
/// it need not be NUL-terminated) into a statement handle (`sqlite3_prepare_v3`).
///
/// `*out_tail` (if `out_tail` is not NULL) receives the byte offset just past the compiled
/// statement, where the next one would start. SQL holding only whitespace and comments gives an
/// empty statement: it takes no parameters, has no columns, and a fetch reports
/// `SQLBATCH_DONE` at once. `flags` is 0 or a bitwise OR of `SQLBATCH_PREPARE_PERSISTENT` and
/// `SQLBATCH_PREPARE_SINGLE`; with the latter, SQL that holds a second statement after the
/// first is refused with `SQLBATCH_E_MULTIPLE_STATEMENTS` (`token_offset` at the second
/// statement), where whitespace, comments and lone semicolons after the first are fine.
///
/// Ownership: on success the caller owns `*out_stmt` and must release it with
/// `sqlbatch_stmt_finalize`; on failure `*out_stmt` is set to NULL. The statement may be used
/// and finalized after `conn` is closed (calls then return `SQLBATCH_E_CLOSED`).
/// NULL: `conn` or `out_stmt` NULL, or `sql` NULL with `sql_len > 0`: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_INVALID_UTF8` (with `token_offset` at the first bad
/// byte); `SQLBATCH_E_RANGE` for SQL over 2 GiB; `SQLBATCH_E_INVALID_ARGUMENT` for unknown
/// flags or a NUL byte inside the SQL; `SQLBATCH_E_MULTIPLE_STATEMENTS`; `SQLBATCH_E_CLOSED`;
/// or SQLite's error (e.g. `SQLITE_ERROR` for a syntax error, with `token_offset` at the
/// offending token).
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_prepare(
    conn: *mut sqlbatch_conn,
    sql: *const c_char,
    sql_len: usize,
    flags: u32,
    out_stmt: *mut *mut sqlbatch_stmt,
    out_tail: *mut usize,
) -> i32 {
    if out_stmt.is_null() {
        return SQLBATCH_E_NULL_PARAMETER;
    }
    // SAFETY: `out_stmt` is valid for writes (the caller's contract).
    unsafe { out_stmt.write(ptr::null_mut()) };
    ffi_boundary!(conn: conn => |conn| {
        let db = conn.shared.db()?;
        // SAFETY: the caller vouches for `sql`.
        let bytes = unsafe { try_bytes(sql, sql_len, "sql")? };
        let (stmt, tail) = sqlbatch_stmt::prepare(&conn.shared, db, bytes, flags)?;
        // SAFETY: a non-NULL `out_tail` is valid for writes; `out_stmt` as above.
        unsafe {
            write_opt(out_tail, tail);
            out_stmt.write(stmt);
        }
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_stmt_finalize destroys a statement and frees its handle (`sqlite3_finalize`).
///
/// Any batch read from it becomes invalid. Calling with NULL is a harmless no-op. Must not be
/// called twice with the same handle. Works after the connection was closed. Cannot fail: an
/// error of the statement's last run was already reported by the call that ran it.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_finalize(stmt: *mut sqlbatch_stmt) {
    if stmt.is_null() {
        return;
    }
    // SAFETY: `stmt` came from sqlbatch_stmt_prepare and is finalized once (the caller's
    // contract).
    boundary_value((), || unsafe { sqlbatch_stmt::finalize(stmt) })
}

/// sqlbatch_stmt_reset rewinds a statement so that the next fetch runs it again from the
/// start, keeping its bound parameters (`sqlite3_reset`). The current batch becomes invalid.
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`. (An error of the
/// previous run is not reported again.)
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_reset(stmt: *mut sqlbatch_stmt) -> i32 {
    ffi_boundary!(stmt: stmt => |s| {
        s.reset()?;
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_stmt_clear_bindings sets every parameter of `stmt` to NULL (`sqlite3_clear_bindings`).
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_clear_bindings(stmt: *mut sqlbatch_stmt) -> i32 {
    ffi_boundary!(stmt: stmt => |s| {
        s.handles()?;
        s.clear_bindings();
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_stmt_bind binds all parameters of `stmt` in one call.
///
/// Without names (`params->names` NULL), `values[i]` goes to parameter `i + 1`, so
/// `n_values` must equal the statement's parameter count (the largest parameter index; see
/// `sqlbatch_stmt_params`). With names, the rules of `sqlbatch_conn_exec` apply to this one
/// statement: a named parameter takes the value given for its name (with or without its
/// prefix), every other parameter the next positional value, and every positional value must
/// be used. `params` NULL binds nothing (for a statement without parameters).
///
/// The bytes of TEXT and BLOB values are copied: `params` and what it points to may be freed
/// as soon as this returns. If the statement has run since its last reset, it is reset first
/// (its current batch becomes invalid). On error some parameters may be bound already.
/// NULL: `stmt` NULL, or a NULL array in `params` with a non-zero count: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_PARAM_COUNT`; `SQLBATCH_E_RANGE` for bytes outside
/// `data_len`; `SQLBATCH_E_INVALID_ARGUMENT` for an unknown `kind`, bytes without a base or bad
/// params flags; `SQLBATCH_E_CLOSED`; or SQLite's error (e.g. `SQLITE_TOOBIG`).
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_bind(stmt: *mut sqlbatch_stmt, params: *const sqlbatch_params) -> i32 {
    ffi_boundary!(stmt: stmt => |s| {
        let (db, _) = s.handles()?;
        // SAFETY: the caller vouches for `params`.
        let params = unsafe { Params::from_c(params)? };
        s.bind(db, params)?;
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_stmt_bind_rows binds a whole table to parameter `index` (counted from 1) of
/// `stmt`, for the SQL to read as a table: `rows` holds `n_rows * n_cols` values, row-major,
/// `n_cols` a row (so `rows->n_values` must be a multiple of `n_cols`), of any kinds but
/// `SQLBATCH_UNDEFINED`, with NULLs; `rows->names` must be NULL.
///
/// The SQL reads it through the `sqlbatch_rows` virtual table module, which every connection
/// has: the eponymous table `sqlbatch_rows` has one column, `value` (`WHERE id IN
/// sqlbatch_rows(?)`, `SELECT value FROM sqlbatch_rows(?)`); a table of several columns is
/// declared once per shape, with the columns as its arguments (`CREATE VIRTUAL TABLE
/// temp.points USING sqlbatch_rows(id INTEGER, name TEXT)`), and read as a table-valued
/// function (`INSERT INTO t SELECT * FROM points(?)`). A scan fails with `SQLITE_ERROR` when
/// the parameter holds no bound table, or one of another column count than the table's that
/// has rows: a table of no rows reads as empty from any `sqlbatch_rows` table (so an empty
/// list needs no width).
///
/// Ownership: the values and their bytes are copied (once, into one allocation): `rows` and
/// what it points to may be freed as soon as this returns. The copy lives until the
/// parameter is bound again, the bindings are cleared (`sqlbatch_stmt_clear_bindings`) or
/// the statement is finalized; it survives resets, as every binding does. If the statement
/// has run since its last reset, it is reset first (its current batch becomes invalid). Bind
/// the statement's other parameters first: `sqlbatch_stmt_bind` binds every parameter, the
/// table's included (give it any value, e.g. NULL), and a later `sqlbatch_stmt_bind`
/// replaces the table.
/// NULL: `stmt` or `rows` NULL, or a NULL array with a non-zero count: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_RANGE` (`index` is not a parameter of `stmt`, or bytes
/// outside `data_len`); `SQLBATCH_E_PARAM_COUNT` (`n_values` is not whole rows of `n_cols`,
/// or `n_cols` is 0); `SQLBATCH_E_INVALID_ARGUMENT` (names, an unknown kind, bytes without a
/// base, bad flags); `SQLBATCH_E_CLOSED`; `SQLITE_NOMEM`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_bind_rows(
    stmt: *mut sqlbatch_stmt,
    index: usize,
    rows: *const sqlbatch_params,
    n_cols: usize,
) -> i32 {
    ffi_boundary!(stmt: stmt => |s| {
        let (db, _) = s.handles()?;
        if rows.is_null() {
            return Err(Error::null("rows"));
        }
        // SAFETY: the caller vouches for `rows`.
        let rows = unsafe { Params::from_c(rows)? };
        s.bind_rows(db, index, rows, n_cols)?;
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_stmt_columns gives the metadata of every result column in one call: `*out_n`
/// receives the column count and `*out_columns` an array of that many `sqlbatch_column`s.
///
/// The array is NULL when there are no columns.
/// Lifetime: the array and its strings are owned by `stmt`; they stay valid until the next
/// `sqlbatch_stmt_columns` call on `stmt` or until it is finalized.
/// NULL: any argument NULL gives `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`, `SQLBATCH_E_CLOSED`, or `SQLITE_NOMEM`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_columns(
    stmt: *mut sqlbatch_stmt,
    out_columns: *mut *const sqlbatch_column,
    out_n: *mut usize,
) -> i32 {
    // SAFETY: the out-pointers are valid for writes (the caller's contract).
    ffi_boundary!(stmt: stmt => |s| unsafe {
        s.handles()?;
        let (out_columns, out_n) = (try_mut(out_columns, "out_columns")?, try_mut(out_n, "out_n")?);
        let columns = s.columns()?;
        *out_columns = non_empty(columns);
        *out_n = columns.len();
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_stmt_column_not_null tells whether result column `col` (from 0) can never be
/// NULL: `*out_not_null` is 1 when it reads a table column declared NOT NULL (or an INTEGER PRIMARY
/// KEY), 0 when it reads a table column that may be NULL, and -1 when it is an expression and
/// nothing is known. This looks up the schema (`sqlite3_table_column_metadata`), so it is kept
/// out of `sqlbatch_stmt_columns`.
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_RANGE`, `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_column_not_null(
    stmt: *const sqlbatch_stmt,
    col: usize,
    out_not_null: *mut i32,
) -> i32 {
    // SAFETY: the out-pointer is valid for writes (the caller's contract).
    ffi_boundary!(stmt_ref: stmt => |s| unsafe {
        let (db, _) = s.handles()?;
        let out_not_null = try_mut(out_not_null, "out_not_null")?;
        *out_not_null = s.column_not_null(db, col)?;
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_stmt_param_count gives the number of parameters of `stmt` (the largest index, as
/// `sqlbatch_stmt_params` counts them) without building their names: what a binding needs
/// for every new statement (database/sql's `NumInput`, a check of the argument count), where
/// the names are needed only once named arguments are bound.
/// NULL: any argument NULL gives `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`, `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_param_count(stmt: *const sqlbatch_stmt, out_n: *mut usize) -> i32 {
    // SAFETY: `out_n` is valid for writes (the caller's contract).
    ffi_boundary!(stmt_ref: stmt => |s| unsafe {
        s.handles()?;
        *try_mut(out_n, "out_n")? = s.param_count();
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_stmt_params gives the names of all parameters in one call: `*out_n` receives the
/// parameter count (the largest index) and `*out_names` an array of that many names, where
/// entry `i` names parameter `i + 1` with its prefix (":a", "@a", "$a", "?3"), and has a NULL
/// `ptr` for a nameless `?`. The array is NULL when there are no parameters.
///
/// Lifetime: owned by `stmt`, valid until it is finalized.
/// NULL: any argument NULL gives `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`, `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_params(
    stmt: *mut sqlbatch_stmt,
    out_names: *mut *const sqlbatch_str,
    out_n: *mut usize,
) -> i32 {
    // SAFETY: the out-pointers are valid for writes (the caller's contract).
    ffi_boundary!(stmt: stmt => |s| unsafe {
        s.handles()?;
        let (out_names, out_n) = (try_mut(out_names, "out_names")?, try_mut(out_n, "out_n")?);
        let names = s.param_names();
        *out_names = non_empty(names);
        *out_n = names.len();
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_stmt_param_index looks up a named parameter: `*out_index` receives the index,
/// counted from 1, of the parameter called `name` (`name_len` bytes), or 0 if there is none.
///
/// A name given with its prefix (":id", "@id", "$id", "?3") matches that spelling only, as
/// `sqlite3_bind_parameter_index` does; a name given without one ("id") matches `:id`, else
/// `@id`, else `$id`: the rule by which `sqlbatch_conn_exec` and `sqlbatch_stmt_bind` match
/// names, so a binding needs no lookup of its own.
/// NULL: `stmt` or `out_index` NULL, or `name` NULL with `name_len > 0`: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`, `SQLBATCH_E_INVALID_UTF8`, `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_param_index(
    stmt: *const sqlbatch_stmt,
    name: *const c_char,
    name_len: usize,
    out_index: *mut usize,
) -> i32 {
    // SAFETY: the pointers are valid as the header states (the caller's contract).
    ffi_boundary!(stmt_ref: stmt => |s| unsafe {
        s.handles()?;
        let out_index = try_mut(out_index, "out_index")?;
        let bytes = try_bytes(name, name_len, "name")?;
        *out_index = s.param_index(bytes)?;
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_stmt_readonly writes to `*out_readonly` whether `stmt` makes no direct change to the
/// database file (`sqlite3_stmt_readonly`). An empty statement is read-only.
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_readonly(stmt: *const sqlbatch_stmt, out_readonly: *mut bool) -> i32 {
    // SAFETY: `out_readonly` is valid for writes (the caller's contract).
    ffi_boundary!(stmt_ref: stmt => |s| unsafe {
        s.handles()?;
        *try_mut(out_readonly, "out_readonly")? = s.readonly();
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_stmt_sql gives the SQL text of `stmt` as it was prepared (`sqlite3_sql`).
/// Lifetime: owned by `stmt`, valid until it is finalized. An empty statement gives "".
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_sql(stmt: *const sqlbatch_stmt, out_sql: *mut sqlbatch_str) -> i32 {
    // SAFETY: `out_sql` is valid for writes (the caller's contract).
    ffi_boundary!(stmt_ref: stmt => |s| unsafe {
        s.handles()?;
        *try_mut(out_sql, "out_sql")? = s.sql();
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_stmt_expanded_sql gives the SQL text of `stmt` with its bound parameters written
/// in as literals (`sqlite3_expanded_sql`), for logging and debugging.
/// Lifetime: owned by `stmt`, valid until the next `sqlbatch_stmt_expanded_sql` on it or
/// until it is finalized.
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`, `SQLITE_NOMEM`
/// (also when the text would exceed SQLite's length limit).
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_expanded_sql(
    stmt: *mut sqlbatch_stmt,
    out_sql: *mut sqlbatch_str,
) -> i32 {
    // SAFETY: `out_sql` is valid for writes (the caller's contract).
    ffi_boundary!(stmt: stmt => |s| unsafe {
        s.handles()?;
        let out = try_mut(out_sql, "out_sql")?;
        *out = s.expanded_sql()?;
        Ok(SQLBATCH_OK)
    })
}
