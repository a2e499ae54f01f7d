//! Prepared statements: prepare, metadata, binding, reset and finalize.

use std::ffi::{c_char, c_int, CStr, CString};
use std::ptr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::conn::{sqlbatch_conn, ConnShared, StmtSlot};
use crate::error::{check_sql, check_utf8, Error};
use crate::ffi::{try_bytes, try_mut, write_opt};
use crate::panic::ffi_boundary;
use crate::sql_text::{second_statement_error, StackSql};
use crate::state::FetchState;
use crate::value::{param_count, param_count_error, sqlbatch_params, sqlbatch_str, Binder, Lifetime, Params};

/// A prepared statement. Opaque; created by `sqlbatch_stmt_prepare`, destroyed by
/// `sqlbatch_stmt_finalize`.
pub struct sqlbatch_stmt {
    pub(crate) conn: Arc<ConnShared>,
    /// NULL when the SQL held no statement (only whitespace or comments).
    pub(crate) raw: *mut ffi::sqlite3_stmt,
    pub(crate) fetch: FetchState,
    columns: Vec<sqlbatch_column>,
    /// Owns the bytes `columns` points to.
    column_strings: Vec<CString>,
    params: Option<Vec<sqlbatch_str>>,
    /// Owns the bytes `params` points to.
    param_strings: Vec<CString>,
    /// The bulk writes `sqlbatch_stmt_execute_many_start` queued (at most two, oldest
    /// first), each until its wait.
    pub(crate) queued: std::collections::VecDeque<crate::write::Queued>,
    /// What the last `sqlbatch_stmt_expanded_sql` gave (None before the first: an empty
    /// `CString` would cost an allocation per prepare).
    expanded: Option<CString>,
    /// Set while a call that takes the statement mutably runs (`ffi_boundary!(stmt: ..)`):
    /// a callback of that call (an SQL function its step runs) that calls the statement
    /// again is refused with `SQLITE_MISUSE`, and one that finalizes it is deferred, instead
    /// of stepping, resetting or freeing it under the call (a stack overflow, or a
    /// use-after-free). Atomic, as a callback on the worker reads it (see `admit`).
    entered: AtomicBool,
    /// Whether the connection's worker has a job on the statement (a batch stepped ahead, or
    /// a bulk write queued) at the end of the last call on it: a callback of that job, on the
    /// worker, must not use the statement. Written when a call leaves.
    with_worker: AtomicBool,
}

/// Metadata of one result column, from `sqlbatch_stmt_columns`.
///
/// Each string is NUL-terminated; `ptr` is NULL where SQLite has no answer (no declared type,
/// or a column computed from an expression rather than read from a table).
#[repr(C)]
pub struct sqlbatch_column {
    /// The column's name (`AS` name if given), `sqlite3_column_name`.
    pub name: sqlbatch_str,
    /// The declared type of the table column it reads, e.g. "INTEGER", "DATETIME"
    /// (`sqlite3_column_decltype`).
    pub decl_type: sqlbatch_str,
    /// The database ("main", "temp", an attached name) of the table column it reads.
    pub database: sqlbatch_str,
    /// The table it reads from (`sqlite3_column_table_name`).
    pub table: sqlbatch_str,
    /// The name of the table column it reads (`sqlite3_column_origin_name`).
    pub origin: sqlbatch_str,
}

impl sqlbatch_stmt {
    /// Whether a call on the live statement `p` is running (see `entered`), read without
    /// making a reference to it.
    #[inline]
    pub(crate) fn entered(p: *const sqlbatch_stmt) -> bool {
        // SAFETY: `p` is live (the caller's contract); only the flag is referenced.
        unsafe { (*std::ptr::addr_of!((*p).entered)).load(Ordering::Acquire) }
    }

    /// Whether the worker had a job on the live statement `p` when the last call on it left.
    #[inline]
    fn with_worker(p: *const sqlbatch_stmt) -> bool {
        // SAFETY: `p` is live (the caller's contract); only the flag is referenced.
        unsafe { (*std::ptr::addr_of!((*p).with_worker)).load(Ordering::Relaxed) }
    }

    /// Whether a call is running on the live statement `p`, or the worker had a job on it.
    #[inline]
    pub(crate) fn flagged(p: *const sqlbatch_stmt) -> bool {
        Self::entered(p) || Self::with_worker(p)
    }

    /// Whether a call on the live statement `p` must pass `admit` first: a call runs on it,
    /// or the connection's worker is busy (a callback of its job may use the statement). A
    /// few loads, without making a reference to the statement.
    #[inline]
    pub(crate) fn needs_admit(p: *const sqlbatch_stmt) -> bool {
        // SAFETY: `p` is live (the caller's contract); only its connection is referenced,
        // which no call replaces.
        Self::entered(p) || unsafe { (*std::ptr::addr_of!((*p).conn)).worker().busy() }
    }

    /// Whether a call on the statement `p` that `needs_admit` may go on (`mutable`: one that
    /// takes it mutably, and marks it entered).
    ///
    /// - From a callback of a job on the worker: only if no call is in the statement and the
    ///   worker has no job on it (the statement is then the caller's thread's: that thread
    ///   enters one only while the worker is idle or has a job on it).
    /// - On the caller's thread: a callback on the worker may be in the statement, unless the
    ///   worker has a job on it (then its callbacks are refused it); once the worker is idle,
    ///   none is, and none can start before this thread starts a job. So this waits for the
    ///   worker, and then only a call of this thread, further up its stack, can be in the
    ///   statement: a callback of that call using it mutably is refused.
    #[cold]
    pub(crate) fn admit(p: *const sqlbatch_stmt, mutable: bool) -> bool {
        if crate::worker::Worker::on_worker() {
            return !Self::flagged(p);
        }
        // SAFETY: `p` is live; only its connection is read, which no call replaces.
        let worker = unsafe { (*std::ptr::addr_of!((*p).conn)).worker() };
        if worker.busy() && !Self::with_worker(p) {
            worker.wait();
        }
        !(mutable && Self::entered(p))
    }

    #[inline]
    pub(crate) fn enter(&self) {
        self.entered.store(true, Ordering::Relaxed);
    }

    /// The call on the statement ends: records whether the worker has a job on it, then
    /// clears `entered` (in that order, for a callback on the worker reading both).
    #[inline]
    pub(crate) fn leave(&self) {
        let jobs = !self.queued.is_empty() || self.fetch.ahead.as_ref().is_some_and(|a| a.launched());
        self.with_worker.store(jobs, Ordering::Relaxed);
        self.entered.store(false, Ordering::Release);
    }

    /// The error of a call on a statement that `admit` refused.
    #[cold]
    pub(crate) fn reentered() -> Error {
        Error::new(
            ffi::SQLITE_MISUSE,
            "the statement was used from a callback of a call or of a worker's job running on it \
             (an SQL function of its own step), or from a callback on the worker while the caller's \
             thread uses it",
        )
    }

    /// The live database and statement handles, once the connection's worker is idle;
    /// `SQLBATCH_E_CLOSED` once the connection closed, `SQLITE_MISUSE` while a bulk write
    /// queued on the statement was not waited for.
    pub(crate) fn handles(&self) -> Result<(*mut ffi::sqlite3, *mut ffi::sqlite3_stmt), Error> {
        if !self.queued.is_empty() {
            return Err(Error::new(
                ffi::SQLITE_MISUSE,
                "a bulk write queued by sqlbatch_stmt_execute_many_start was not waited for",
            ));
        }
        Ok((self.conn.db()?, self.raw))
    }

    /// Resets the statement if it has run since it was last reset; the current batch ends.
    pub(crate) fn rewind(&mut self) {
        // SAFETY: `raw` is NULL or this statement's live handle (it is only used while the
        // connection is open, which every caller checked through `handles`).
        unsafe { self.fetch.rewind(self.raw) }
    }
}

/// Copies a string SQLite returned into `store`, returning a view of the copy.
///
/// # Safety
/// `s` must be NULL or NUL-terminated.
unsafe fn own(store: &mut Vec<CString>, s: *const c_char) -> sqlbatch_str {
    if s.is_null() {
        return sqlbatch_str::NONE;
    }
    // SAFETY: `s` is NUL-terminated (the caller's contract).
    let owned = unsafe { CStr::from_ptr(s) }.to_owned();
    // The bytes live on the heap: moving the CString into `store` does not move them.
    let view = sqlbatch_str { ptr: owned.as_ptr(), len: owned.as_bytes().len() };
    store.push(owned);
    view
}

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
        // UTF-8, and no NUL: SQLite would stop at one silently, and a tail that never
        // advances loops callers forever.
        check_sql(bytes)?;
        if flags & !PREPARE_FLAGS_ALLOWED != 0 {
            return Err(Error::new(SQLBATCH_E_INVALID_ARGUMENT, format!("unknown prepare flags {flags:#x}")));
        }
        let mut room = StackSql::new();
        let terminated = room.terminate(bytes).unwrap_or(bytes);
        // SAFETY: `db` is open and used by this thread only.
        let (raw, tail) = unsafe { prepare_raw(db, terminated, flags & !SQLBATCH_PREPARE_SINGLE)? };
        if flags & SQLBATCH_PREPARE_SINGLE != 0 {
            if let Some(e) = second_statement_error(bytes, tail) {
                // SAFETY: `raw` is NULL or the statement just prepared, finalized once.
                unsafe { ffi::sqlite3_finalize(raw) };
                return Err(e);
            }
        }
        let (buffers, slot) = if raw.is_null() { Default::default() } else { conn.shared.adopt(raw) };
        // SAFETY: a non-NULL `out_tail` is valid for writes.
        unsafe { write_opt(out_tail, tail) };
        let mut fetch = FetchState::new(buffers);
        if conn.shared.fetch_ahead() {
            // SAFETY: `raw` is NULL or the statement just prepared.
            fetch.ahead = Some(unsafe { crate::ahead::Ahead::new(raw) });
        }
        let stmt = sqlbatch_stmt {
            conn: conn.shared.clone(),
            raw,
            fetch,
            columns: Vec::new(),
            column_strings: Vec::new(),
            params: None,
            param_strings: Vec::new(),
            queued: std::collections::VecDeque::new(),
            expanded: None,
            entered: AtomicBool::new(false),
            with_worker: AtomicBool::new(false),
        };
        let boxed = match slot {
            // SAFETY: the slot is an allocation for a `sqlbatch_stmt`, now written.
            Some(StmtSlot(mut slot)) => unsafe {
                slot.write(stmt);
                Box::from_raw(Box::into_raw(slot).cast::<sqlbatch_stmt>())
            },
            None => Box::new(stmt),
        };
        // SAFETY: as above.
        unsafe { out_stmt.write(Box::into_raw(boxed)) };
        Ok(SQLBATCH_OK)
    })
}

/// Compiles the first statement of `sql`; returns the handle (NULL if there was none) and the
/// byte offset where the rest begins.
///
/// # Safety
/// `db` must be open and used by this thread only.
pub(crate) unsafe fn prepare_raw(
    db: *mut ffi::sqlite3,
    sql: &[u8],
    flags: u32,
) -> Result<(*mut ffi::sqlite3_stmt, usize), Error> {
    let len =
        c_int::try_from(sql.len()).map_err(|_| Error::new(SQLBATCH_E_RANGE, "SQL text longer than 2 GiB"))?;
    let mut raw = ptr::null_mut();
    let mut tail: *const c_char = ptr::null();
    let base = sql.as_ptr().cast::<c_char>();
    // SAFETY: `db` is open and used by this thread only (the caller's contract); `sql` is
    // `len` readable bytes, and SQLite sets `tail` inside them.
    let rc = unsafe { ffi::sqlite3_prepare_v3(db, base, len, flags, &mut raw, &mut tail) };
    if rc != ffi::SQLITE_OK {
        // SAFETY: as above.
        return Err(unsafe { Error::from_db(db, rc) });
    }
    // SAFETY: `tail` points into `sql`.
    let consumed = if tail.is_null() { sql.len() } else { (unsafe { tail.offset_from(base) }) as usize };
    Ok((raw, consumed))
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
    crate::panic::boundary_value((), || {
        // SAFETY: `stmt` came from sqlbatch_stmt_prepare and is finalized once (the caller's
        // contract).
        let s = unsafe { &*stmt };
        // After sqlbatch_conn_close the handle was already finalized with the connection.
        if s.conn.is_open() && !s.raw.is_null() {
            let conn = s.conn.clone();
            // SAFETY: as above; the connection is open, so the handle is live.
            unsafe { conn.finalize(stmt) };
        } else {
            // SAFETY: as above.
            drop(unsafe { Box::from_raw(stmt) });
        }
    })
}

/// sqlbatch_stmt_reset rewinds a statement so that the next fetch runs it again from the
/// start, keeping its bound parameters (`sqlite3_reset`). The current batch becomes invalid.
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`. (An error of the
/// previous run is not reported again.)
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_reset(stmt: *mut sqlbatch_stmt) -> i32 {
    ffi_boundary!(stmt: stmt => |s| {
        s.handles()?;
        s.rewind();
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_stmt_clear_bindings sets every parameter of `stmt` to NULL (`sqlite3_clear_bindings`).
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_clear_bindings(stmt: *mut sqlbatch_stmt) -> i32 {
    ffi_boundary!(stmt: stmt => |s| {
        let (_, raw) = s.handles()?;
        if !raw.is_null() {
            // SAFETY: `raw` is live.
            unsafe { ffi::sqlite3_clear_bindings(raw) };
        }
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
        let (db, raw) = s.handles()?;
        // SAFETY: the caller vouches for `params`.
        let params = unsafe { Params::from_c(params)? };
        // SAFETY: `raw` is NULL or live.
        let expected = unsafe { param_count(raw) };
        if params.names.is_empty() && params.values.len() != expected {
            return Err(param_count_error(expected, params.values.len()));
        }
        s.rewind();
        if raw.is_null() {
            return Ok(SQLBATCH_OK);
        }
        // SAFETY: `raw` is a live statement of `db`; the bytes are copied.
        unsafe { Binder::new(params).bind_single(db, raw, Lifetime::Copy)? };
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
    // SAFETY: the statement is open on this thread (checked by `handles`), its handle is
    // live, and the out-pointers are valid for writes (the caller's contract).
    ffi_boundary!(stmt: stmt => |s| unsafe {
        let (_, raw) = s.handles()?;
        let (out_columns, out_n) = (try_mut(out_columns, "out_columns")?, try_mut(out_n, "out_n")?);
        let n = if raw.is_null() { 0 } else { ffi::sqlite3_column_count(raw) };
        let mut columns = Vec::with_capacity(n as usize);
        let mut store = Vec::new();
        for i in 0..n {
            let name = ffi::sqlite3_column_name(raw, i);
            if name.is_null() {
                return Err(Error::new(ffi::SQLITE_NOMEM, "out of memory"));
            }
            columns.push(sqlbatch_column {
                name: own(&mut store, name),
                decl_type: own(&mut store, ffi::sqlite3_column_decltype(raw, i)),
                database: own(&mut store, ffi::sqlite3_column_database_name(raw, i)),
                table: own(&mut store, ffi::sqlite3_column_table_name(raw, i)),
                origin: own(&mut store, ffi::sqlite3_column_origin_name(raw, i)),
            });
        }
        s.columns = columns;
        s.column_strings = store;
        *out_columns = non_empty(&s.columns);
        *out_n = s.columns.len();
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_stmt_column_not_null tells whether result column `col` (from 0) can never be
/// NULL: `*out` is 1 when it reads a table column declared NOT NULL (or an INTEGER PRIMARY
/// KEY), 0 when it reads a table column that may be NULL, and -1 when it is an expression and
/// nothing is known. This looks up the schema (`sqlite3_table_column_metadata`), so it is kept
/// out of `sqlbatch_stmt_columns`.
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_RANGE`, `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_column_not_null(
    stmt: *const sqlbatch_stmt,
    col: usize,
    out: *mut i32,
) -> i32 {
    // SAFETY: the statement is open on this thread (checked by `handles`), its handle is
    // live, and the out-pointers are valid for writes (the caller's contract).
    ffi_boundary!(stmt_ref: stmt => |s| unsafe {
        let (db, raw) = s.handles()?;
        let out = try_mut(out, "out")?;
        let n = if raw.is_null() { 0 } else { ffi::sqlite3_column_count(raw) as usize };
        if col >= n {
            return Err(Error::new(
                SQLBATCH_E_RANGE,
                format!("column {col} out of range (the statement has {n})"),
            ));
        }
        let c = col as c_int;
        let (dbname, table, origin) = (
            ffi::sqlite3_column_database_name(raw, c),
            ffi::sqlite3_column_table_name(raw, c),
            ffi::sqlite3_column_origin_name(raw, c),
        );
        *out = -1;
        if !dbname.is_null() && !table.is_null() && !origin.is_null() {
            let (mut decl, mut coll) = (ptr::null(), ptr::null());
            let (mut not_null, mut pk, mut autoinc) = (0, 0, 0);
            let rc = ffi::sqlite3_table_column_metadata(
                db,
                dbname,
                table,
                origin,
                &mut decl,
                &mut coll,
                &mut not_null,
                &mut pk,
                &mut autoinc,
            );
            if rc == ffi::SQLITE_OK {
                let integer_pk = pk != 0
                    && !decl.is_null()
                    && CStr::from_ptr(decl).to_bytes().eq_ignore_ascii_case(b"INTEGER");
                *out = i32::from(not_null != 0 || integer_pk);
            }
        }
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
    // SAFETY: the statement is live (checked by `handles`) and `out_n` valid for writes (the
    // caller's contract).
    ffi_boundary!(stmt_ref: stmt => |s| unsafe {
        let (_, raw) = s.handles()?;
        *try_mut(out_n, "out_n")? = param_count(raw);
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
    // SAFETY: the statement is open on this thread (checked by `handles`), its handle is
    // live, and the out-pointers are valid for writes (the caller's contract).
    ffi_boundary!(stmt: stmt => |s| unsafe {
        let (_, raw) = s.handles()?;
        let (out_names, out_n) = (try_mut(out_names, "out_names")?, try_mut(out_n, "out_n")?);
        if s.params.is_none() {
            let store = &mut s.param_strings;
            let names =
                (1..=param_count(raw)).map(|i| own(store, ffi::sqlite3_bind_parameter_name(raw, i as c_int)));
            s.params = Some(names.collect());
        }
        let names = s.params.as_deref().unwrap_or_default();
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
    // SAFETY: the statement is open on this thread (checked by `handles`), its handle is
    // live, and the out-pointers are valid for writes (the caller's contract).
    ffi_boundary!(stmt_ref: stmt => |s| unsafe {
        let (_, raw) = s.handles()?;
        let out_index = try_mut(out_index, "out_index")?;
        let bytes = try_bytes(name, name_len, "name")?;
        check_utf8(bytes, "parameter name")?;
        *out_index = param_index(raw, bytes);
        Ok(SQLBATCH_OK)
    })
}

/// The index of the parameter `name` answers to (see `sqlbatch_stmt_param_index`), 0 if none.
///
/// # Safety
/// `raw` must be NULL or a live statement.
unsafe fn param_index(raw: *mut ffi::sqlite3_stmt, name: &[u8]) -> usize {
    if raw.is_null() || name.is_empty() || name.contains(&0) {
        return 0;
    }
    let lookup = |spelled: &[u8]| {
        let c = CString::new(spelled).unwrap_or_default();
        // SAFETY: `raw` is live; `c` is NUL-terminated.
        unsafe { ffi::sqlite3_bind_parameter_index(raw, c.as_ptr()) as usize }
    };
    if matches!(name[0], b':' | b'@' | b'$' | b'?') {
        return lookup(name);
    }
    let mut spelled = Vec::with_capacity(name.len() + 1);
    for prefix in [b':', b'@', b'$'] {
        spelled.clear();
        spelled.push(prefix);
        spelled.extend_from_slice(name);
        match lookup(&spelled) {
            0 => continue,
            i => return i,
        }
    }
    0
}

/// sqlbatch_stmt_readonly writes to `*out` whether `stmt` makes no direct change to the
/// database file (`sqlite3_stmt_readonly`). An empty statement is read-only.
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_readonly(stmt: *const sqlbatch_stmt, out: *mut bool) -> i32 {
    // SAFETY: the statement is open on this thread (checked by `handles`), its handle is
    // live, and the out-pointers are valid for writes (the caller's contract).
    ffi_boundary!(stmt_ref: stmt => |s| unsafe {
        let (_, raw) = s.handles()?;
        *try_mut(out, "out")? = raw.is_null() || ffi::sqlite3_stmt_readonly(raw) != 0;
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_stmt_sql gives the SQL text of `stmt` as it was prepared (`sqlite3_sql`).
/// Lifetime: owned by `stmt`, valid until it is finalized. An empty statement gives "".
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_stmt_sql(stmt: *const sqlbatch_stmt, out_sql: *mut sqlbatch_str) -> i32 {
    // SAFETY: the statement is open on this thread (checked by `handles`), its handle is
    // live, and the out-pointers are valid for writes (the caller's contract).
    ffi_boundary!(stmt_ref: stmt => |s| unsafe {
        let (_, raw) = s.handles()?;
        let out = try_mut(out_sql, "out_sql")?;
        let p = if raw.is_null() { ptr::null() } else { ffi::sqlite3_sql(raw) };
        *out = if p.is_null() {
            sqlbatch_str { ptr: c"".as_ptr(), len: 0 }
        } else {
            sqlbatch_str { ptr: p, len: CStr::from_ptr(p).to_bytes().len() }
        };
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
    // SAFETY: the statement is open on this thread (checked by `handles`), its handle is
    // live, and the out-pointers are valid for writes (the caller's contract).
    ffi_boundary!(stmt: stmt => |s| unsafe {
        let (_, raw) = s.handles()?;
        let out = try_mut(out_sql, "out_sql")?;
        s.expanded = None;
        if !raw.is_null() {
            let p = ffi::sqlite3_expanded_sql(raw);
            if p.is_null() {
                return Err(Error::new(ffi::SQLITE_NOMEM, "out of memory expanding the SQL"));
            }
            s.expanded = Some(CStr::from_ptr(p).to_owned());
            ffi::sqlite3_free(p.cast());
        }
        let text: &CStr = s.expanded.as_deref().unwrap_or(c"");
        *out = sqlbatch_str { ptr: text.as_ptr(), len: text.to_bytes().len() };
        Ok(SQLBATCH_OK)
    })
}

/// The start of `items`, or NULL when it is empty: the library hands out no dangling pointers.
pub(crate) fn non_empty<T>(items: &[T]) -> *const T {
    if items.is_empty() {
        ptr::null()
    } else {
        items.as_ptr()
    }
}
