//! Table-valued parameters: a whole table of rows bound to one parameter
//! (`sqlbatch_stmt_bind_rows`), which the SQL reads through the `sqlbatch_rows` virtual table
//! module that every connection has: `x IN sqlbatch_rows(?)` for one column, and for several,
//! a table declared once per shape (`CREATE VIRTUAL TABLE temp.points USING sqlbatch_rows(id
//! INTEGER, name TEXT)`) and read as a table-valued function (`SELECT * FROM points(?)`).
//!
//! Binding copies the cells and their bytes once into one allocation that SQLite owns as the
//! parameter's value (`sqlite3_bind_pointer`): it lives until the parameter is bound again,
//! its bindings are cleared or the statement is finalized. A cursor reading it holds a
//! reference of its own.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr;
use std::sync::Arc;

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::engine::cells::{result_cell, Cells};
use crate::engine::value::Params;
use crate::error::{sqlite_message, vtab_error, Error};
use crate::panic::boundary_value;

/// The module's name, and the pointer type of the parameter values it reads.
const NAME: &CStr = c"sqlbatch_rows";

/// A table bound to a parameter: `n_cols` cells a row, row-major, with their bytes.
pub(crate) struct BoundRows {
    table: Cells,
    n_cols: usize,
}

impl BoundRows {
    /// A copy of the table `rows` holds, `n_cols` values a row (see `sqlbatch_stmt_bind_rows`).
    ///
    /// # Safety
    /// As for [`Params::bytes_of`].
    pub(crate) unsafe fn copy(rows: &Params, n_cols: usize) -> Result<BoundRows, Error> {
        let n = rows.values.len();
        if n_cols == 0 || n % n_cols != 0 {
            return Err(Error::new(
                SQLBATCH_E_PARAM_COUNT,
                format!("{n} value(s) are not whole rows of {n_cols} column(s)"),
            ));
        }
        let mut table = Cells::default();
        // SAFETY: the caller's contract.
        unsafe { table.append_params(rows)? };
        Ok(BoundRows { table, n_cols })
    }

    fn n_rows(&self) -> usize {
        self.table.cells.len() / self.n_cols
    }

    /// Binds the table to parameter `index` of `raw`; SQLite owns it from now on.
    ///
    /// # Safety
    /// `raw` is a live statement that is not running, used by this thread only.
    pub(crate) unsafe fn bind(self, raw: *mut ffi::sqlite3_stmt, index: c_int) -> c_int {
        let p = Box::into_raw(Box::new(Arc::new(self)));
        // SAFETY: `raw` as the caller vouches; SQLite calls `free_bound` once with `p`, also
        // when the bind fails.
        unsafe { ffi::sqlite3_bind_pointer(raw, index, p.cast(), NAME.as_ptr(), Some(free_bound)) }
    }
}

/// SQLite's destructor of a bound table.
unsafe extern "C" fn free_bound(p: *mut c_void) {
    // SAFETY: `p` came from `BoundRows::bind`, and SQLite frees it once.
    boundary_value((), || drop(unsafe { Box::from_raw(p.cast::<Arc<BoundRows>>()) }))
}

/// A `sqlbatch_rows` table: its declared columns, and its hidden argument column after them.
#[repr(C)]
struct Table {
    base: ffi::sqlite3_vtab,
    n_cols: usize,
}

/// A scan of a bound table.
#[repr(C)]
struct Cursor {
    base: ffi::sqlite3_vtab_cursor,
    rows: Option<Arc<BoundRows>>,
    row: usize,
}

/// `idxNum` of a plan that has the table's argument.
const HAS_ROWS: c_int = 1;

/// Registers the `sqlbatch_rows` module on a new connection.
///
/// # Safety
/// `db` is open and used by this thread only.
pub(crate) unsafe fn register(db: *mut ffi::sqlite3) -> c_int {
    // SAFETY: `MODULE` is static; the name is NUL-terminated.
    unsafe { ffi::sqlite3_create_module_v2(db, NAME.as_ptr(), &MODULE, ptr::null_mut(), None) }
}

static MODULE: ffi::sqlite3_module = ffi::sqlite3_module {
    iVersion: 0,
    // The same as xConnect: the eponymous table `sqlbatch_rows` (one column, `value`) and
    // tables of any shape made by CREATE VIRTUAL TABLE.
    xCreate: Some(connect),
    xConnect: Some(connect),
    xBestIndex: Some(best_index),
    xDisconnect: Some(disconnect),
    xDestroy: Some(disconnect),
    xOpen: Some(open),
    xClose: Some(close),
    xFilter: Some(filter),
    xNext: Some(next),
    xEof: Some(eof),
    xColumn: Some(column),
    xRowid: Some(rowid),
    xUpdate: None,
    xBegin: None,
    xSync: None,
    xCommit: None,
    xRollback: None,
    xFindFunction: None,
    xRename: None,
    xSavepoint: None,
    xRelease: None,
    xRollbackTo: None,
    xShadowName: None,
    xIntegrity: None,
};

unsafe extern "C" fn connect(
    db: *mut ffi::sqlite3,
    _aux: *mut c_void,
    argc: c_int,
    argv: *const *const c_char,
    out_vtab: *mut *mut ffi::sqlite3_vtab,
    err: *mut *mut c_char,
) -> c_int {
    boundary_value(ffi::SQLITE_ERROR, || {
        // argv: the module's name, the database's, the table's, then the module's arguments,
        // each a column definition.
        // SAFETY: SQLite passes `argc` NUL-terminated strings.
        let args: Vec<&[u8]> =
            (3..argc.max(3) as usize).map(|i| unsafe { CStr::from_ptr(*argv.add(i)) }.to_bytes()).collect();
        let columns: Vec<&[u8]> = if args.is_empty() { vec![&b"value"[..]] } else { args };
        let mut sql = b"CREATE TABLE x(".to_vec();
        for c in &columns {
            sql.extend_from_slice(c);
            sql.extend_from_slice(b", ");
        }
        sql.extend_from_slice(b"\"sqlbatch_rows\" HIDDEN)\0");
        // SAFETY: `db` is the connection SQLite calls for; `sql` is NUL-terminated.
        let rc = unsafe { ffi::sqlite3_declare_vtab(db, sql.as_ptr().cast()) };
        if rc != ffi::SQLITE_OK {
            // SAFETY: `err` is SQLite's out-parameter for a message it frees.
            let declared: Vec<String> =
                columns.iter().map(|c| String::from_utf8_lossy(c).into_owned()).collect();
            let message = format!("sqlbatch_rows: cannot declare the columns ({})", declared.join(", "));
            // SAFETY: `err` is SQLite's out-parameter for a message it frees.
            unsafe { *err = sqlite_message(&message) };
            return rc;
        }
        let table = Box::new(Table { base: unsafe { std::mem::zeroed() }, n_cols: columns.len() });
        // SAFETY: SQLite's out-parameter; it frees the table through `disconnect`.
        unsafe { *out_vtab = Box::into_raw(table).cast() };
        ffi::SQLITE_OK
    })
}

unsafe extern "C" fn disconnect(vtab: *mut ffi::sqlite3_vtab) -> c_int {
    // SAFETY: made by `connect`, freed once.
    boundary_value(ffi::SQLITE_OK, || {
        drop(unsafe { Box::from_raw(vtab.cast::<Table>()) });
        ffi::SQLITE_OK
    })
}

unsafe extern "C" fn best_index(vtab: *mut ffi::sqlite3_vtab, info: *mut ffi::sqlite3_index_info) -> c_int {
    boundary_value(ffi::SQLITE_ERROR, || {
        // SAFETY: SQLite's table and plan, for the length of the call.
        let (table, info) = unsafe { (&*vtab.cast::<Table>(), &mut *info) };
        let hidden = table.n_cols as c_int;
        let n = info.nConstraint.max(0) as usize;
        let mut unusable = false;
        for i in 0..n {
            // SAFETY: `nConstraint` entries in both arrays.
            let (c, usage) = unsafe { (&*info.aConstraint.add(i), &mut *info.aConstraintUsage.add(i)) };
            if c.iColumn == hidden && c.op == ffi::SQLITE_INDEX_CONSTRAINT_EQ as u8 {
                if c.usable == 0 {
                    unusable = true;
                    continue;
                }
                usage.argvIndex = 1;
                usage.omit = 1;
                info.idxNum = HAS_ROWS;
                info.estimatedCost = 1.0;
                info.estimatedRows = 100;
                return ffi::SQLITE_OK;
            }
        }
        if unusable {
            // A plan that cannot give the table its argument yet: SQLite picks another order.
            return ffi::SQLITE_CONSTRAINT;
        }
        info.idxNum = 0;
        info.estimatedCost = 1e12;
        ffi::SQLITE_OK
    })
}

unsafe extern "C" fn open(_vtab: *mut ffi::sqlite3_vtab, out: *mut *mut ffi::sqlite3_vtab_cursor) -> c_int {
    boundary_value(ffi::SQLITE_NOMEM, || {
        // SAFETY: a zeroed sqlite3_vtab_cursor is what SQLite expects to fill in.
        let cursor = Box::new(Cursor { base: unsafe { std::mem::zeroed() }, rows: None, row: 0 });
        // SAFETY: SQLite's out-parameter; it frees the cursor through `close`.
        unsafe { *out = Box::into_raw(cursor).cast() };
        ffi::SQLITE_OK
    })
}

unsafe extern "C" fn close(cursor: *mut ffi::sqlite3_vtab_cursor) -> c_int {
    // SAFETY: made by `open`, freed once.
    boundary_value(ffi::SQLITE_OK, || {
        drop(unsafe { Box::from_raw(cursor.cast::<Cursor>()) });
        ffi::SQLITE_OK
    })
}

/// Fails a scan of `cursor` with `message` (SQLite reports it as the statement's error).
///
/// # Safety
/// `cursor` is a live cursor whose `pVtab` SQLite set.
unsafe fn fail(cursor: *mut ffi::sqlite3_vtab_cursor, message: &str) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { vtab_error((*cursor).pVtab, ffi::SQLITE_ERROR, message) }
}

unsafe extern "C" fn filter(
    cursor: *mut ffi::sqlite3_vtab_cursor,
    idx_num: c_int,
    _idx_str: *const c_char,
    argc: c_int,
    argv: *mut *mut ffi::sqlite3_value,
) -> c_int {
    boundary_value(ffi::SQLITE_ERROR, || {
        // SAFETY: SQLite's cursor, for the length of the call; its table made by `connect`.
        let c = unsafe { &mut *cursor.cast::<Cursor>() };
        c.rows = None;
        c.row = 0;
        if idx_num != HAS_ROWS || argc < 1 {
            // SAFETY: as above.
            return unsafe {
                fail(cursor, "sqlbatch_rows reads a table bound to a parameter: FROM sqlbatch_rows(?), with the parameter bound by sqlbatch_stmt_bind_rows")
            };
        }
        // SAFETY: `argc` values; a pointer of another type (or any other value) reads as NULL.
        let p = unsafe { ffi::sqlite3_value_pointer(*argv, NAME.as_ptr()) }.cast::<Arc<BoundRows>>();
        if p.is_null() {
            // SAFETY: as above.
            return unsafe {
                fail(cursor, "sqlbatch_rows: the parameter is not a table bound by sqlbatch_stmt_bind_rows")
            };
        }
        // SAFETY: SQLite keeps the bound value alive while the statement runs; the cursor
        // takes a reference of its own.
        let rows = unsafe { Arc::clone(&*p) };
        // SAFETY: as above.
        let declared = unsafe { (*c.base.pVtab.cast::<Table>()).n_cols };
        // No rows have no width to check: an empty list reads as empty from any table.
        if rows.n_cols != declared && rows.n_rows() > 0 {
            let message = format!(
                "sqlbatch_rows: the bound table has {} column(s), the virtual table declares {declared}",
                rows.n_cols
            );
            // SAFETY: as above.
            return unsafe { fail(cursor, &message) };
        }
        c.rows = Some(rows);
        ffi::SQLITE_OK
    })
}

unsafe extern "C" fn next(cursor: *mut ffi::sqlite3_vtab_cursor) -> c_int {
    // SAFETY: SQLite's cursor.
    unsafe { (*cursor.cast::<Cursor>()).row += 1 };
    ffi::SQLITE_OK
}

unsafe extern "C" fn eof(cursor: *mut ffi::sqlite3_vtab_cursor) -> c_int {
    // SAFETY: SQLite's cursor.
    let c = unsafe { &*cursor.cast::<Cursor>() };
    c_int::from(c.rows.as_ref().map_or(true, |r| c.row >= r.n_rows()))
}

unsafe extern "C" fn column(
    cursor: *mut ffi::sqlite3_vtab_cursor,
    ctx: *mut ffi::sqlite3_context,
    i: c_int,
) -> c_int {
    // SAFETY: SQLite's cursor, positioned on a row (`eof` said so), and its result context.
    unsafe {
        let c = &*cursor.cast::<Cursor>();
        let Some(rows) = &c.rows else {
            ffi::sqlite3_result_null(ctx);
            return ffi::SQLITE_OK;
        };
        let i = i as usize;
        if i >= rows.n_cols {
            // The hidden argument column.
            ffi::sqlite3_result_null(ctx);
            return ffi::SQLITE_OK;
        }
        result_cell(ctx, &rows.table.cells[c.row * rows.n_cols + i], rows.table.bytes.as_ptr());
        ffi::SQLITE_OK
    }
}

unsafe extern "C" fn rowid(cursor: *mut ffi::sqlite3_vtab_cursor, out: *mut ffi::sqlite3_int64) -> c_int {
    // SAFETY: SQLite's cursor and out-parameter.
    unsafe { *out = (*cursor.cast::<Cursor>()).row as i64 + 1 };
    ffi::SQLITE_OK
}
