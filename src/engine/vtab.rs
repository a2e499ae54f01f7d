//! Virtual table modules implemented by the caller, whose cursors fill batches.
//!
//! SQLite asks a virtual table's cursor for every row (`xNext`, `xEof`) and every value
//! (`xColumn`): when the module lives in another language, each of those is a crossing into
//! it. Here the library implements SQLite's `sqlite3_module` itself and asks the caller's
//! module only for whole batches: `fill` pushes up to N rows at once (cells, as a fetch
//! writes them), and the library serves SQLite's per-row and per-value calls from that batch.
//! Planning is one call per `xBestIndex` with every constraint and ORDER BY term in it;
//! `filter` gets its arguments as cells, an IN list processed at once as the whole list.
//! Changes to a writable table (`xUpdate`) are one call per row: SQLite needs each row's
//! outcome (its new rowid, its constraint error) before it goes on.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr;

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::engine::callback::{sqlbatch_destroy_fn, InCallback};
use crate::engine::cells::{result_cell, Cells};
use crate::engine::hooks::Hooks;
use crate::engine::value::{sqlbatch_str, sqlbatch_value, Params};
use crate::error::{sqlite_message, vtab_error, Error};
use crate::panic::{boundary_value, catch};

/// Module flag: the module is also an eponymous table: its name reads as a table (or a
/// table-valued function) without `CREATE VIRTUAL TABLE`, and `CREATE VIRTUAL TABLE` makes
/// tables of it too. `connect`'s `create` is then always false.
pub const SQLBATCH_VTAB_EPONYMOUS: u32 = 1;
/// Module flag: the module is only an eponymous table; `CREATE VIRTUAL TABLE` refuses it.
pub const SQLBATCH_VTAB_EPONYMOUS_ONLY: u32 = 2;
const MODULE_FLAGS_ALLOWED: u32 = SQLBATCH_VTAB_EPONYMOUS | SQLBATCH_VTAB_EPONYMOUS_ONLY;

/// Constraint operator (`sqlbatch_vtab_constraint.op`): `column = value` (SQLite's
/// `SQLITE_INDEX_CONSTRAINT_EQ`; an `IN (...)` is an EQ whose whole list `filter` can take).
pub const SQLBATCH_INDEX_EQ: u8 = 2;
/// Constraint operator: `>` (`SQLITE_INDEX_CONSTRAINT_GT`).
pub const SQLBATCH_INDEX_GT: u8 = 4;
/// Constraint operator: `<=` (`SQLITE_INDEX_CONSTRAINT_LE`).
pub const SQLBATCH_INDEX_LE: u8 = 8;
/// Constraint operator: `<` (`SQLITE_INDEX_CONSTRAINT_LT`).
pub const SQLBATCH_INDEX_LT: u8 = 16;
/// Constraint operator: `>=` (`SQLITE_INDEX_CONSTRAINT_GE`).
pub const SQLBATCH_INDEX_GE: u8 = 32;
/// Constraint operator: `MATCH` (`SQLITE_INDEX_CONSTRAINT_MATCH`).
pub const SQLBATCH_INDEX_MATCH: u8 = 64;
/// Constraint operator: `LIKE` (`SQLITE_INDEX_CONSTRAINT_LIKE`).
pub const SQLBATCH_INDEX_LIKE: u8 = 65;
/// Constraint operator: `GLOB` (`SQLITE_INDEX_CONSTRAINT_GLOB`).
pub const SQLBATCH_INDEX_GLOB: u8 = 66;
/// Constraint operator: `REGEXP` (`SQLITE_INDEX_CONSTRAINT_REGEXP`).
pub const SQLBATCH_INDEX_REGEXP: u8 = 67;
/// Constraint operator: `!=` or `<>` (`SQLITE_INDEX_CONSTRAINT_NE`).
pub const SQLBATCH_INDEX_NE: u8 = 68;
/// Constraint operator: `IS NOT` (`SQLITE_INDEX_CONSTRAINT_ISNOT`).
pub const SQLBATCH_INDEX_ISNOT: u8 = 69;
/// Constraint operator: `IS NOT NULL` (`SQLITE_INDEX_CONSTRAINT_ISNOTNULL`).
pub const SQLBATCH_INDEX_ISNOTNULL: u8 = 70;
/// Constraint operator: `IS NULL` (`SQLITE_INDEX_CONSTRAINT_ISNULL`).
pub const SQLBATCH_INDEX_ISNULL: u8 = 71;
/// Constraint operator: `IS` (`SQLITE_INDEX_CONSTRAINT_IS`).
pub const SQLBATCH_INDEX_IS: u8 = 72;
/// Constraint "operator": the query's `LIMIT` (`column` is -1): a module that takes it as an
/// argument of `filter` knows how many rows the query can use at most.
pub const SQLBATCH_INDEX_LIMIT: u8 = 73;
/// Constraint "operator": the query's `OFFSET` (`column` is -1).
pub const SQLBATCH_INDEX_OFFSET: u8 = 74;

/// A change to a writable table (`sqlbatch_vtab_change.op`): a row inserted.
pub const SQLBATCH_VTAB_INSERT: i32 = 1;
/// A change: a row updated (its rowid may change).
pub const SQLBATCH_VTAB_UPDATE: i32 = 2;
/// A change: a row deleted.
pub const SQLBATCH_VTAB_DELETE: i32 = 3;

/// How many rows a `fill` is asked for when the module says 0.
const BATCH_ROWS: usize = 256;

/// One call of a module's callback: what it may do besides returning (declare the table,
/// push rows, say why it failed). Opaque; the library's, valid only during the callback it
/// was passed to.
pub struct sqlbatch_vtab_call {
    phase: Phase,
    /// Set by `sqlbatch_vtab_error`: the message of the error the callback returns.
    pub(crate) message: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Connect { db: *mut ffi::sqlite3, declared: bool },
    Fill { cursor: *mut Cursor, max_rows: usize },
    Other,
}

impl sqlbatch_vtab_call {
    fn new(phase: Phase) -> Self {
        sqlbatch_vtab_call { phase, message: None }
    }

    /// Declares the table's columns (`sqlbatch_vtab_declare`): only from `connect`, once.
    pub(crate) fn declare(&mut self, sql: &[u8]) -> Result<(), Error> {
        let Phase::Connect { db, declared } = &mut self.phase else {
            return Err(Error::new(
                ffi::SQLITE_MISUSE,
                "sqlbatch_vtab_declare is for a module's connect callback",
            ));
        };
        if *declared {
            return Err(Error::new(ffi::SQLITE_MISUSE, "the table was declared already"));
        }
        crate::error::check_sql(sql)?;
        let mut text = Vec::with_capacity(sql.len() + 1);
        text.extend_from_slice(sql);
        text.push(0);
        // SAFETY: SQLite's connection of the running xCreate/xConnect; `text` is
        // NUL-terminated.
        let rc = unsafe { ffi::sqlite3_declare_vtab(*db, text.as_ptr().cast()) };
        if rc != ffi::SQLITE_OK {
            // SAFETY: as above.
            return Err(unsafe { Error::from_db(*db, rc) });
        }
        *declared = true;
        Ok(())
    }

    /// Takes a copy of rows for the cursor being filled (`sqlbatch_vtab_push`): only from
    /// `fill`, and not more rows in all than it was asked for.
    ///
    /// # Safety
    /// As for [`Params::bytes_of`]; a non-NULL `rowids` holds one rowid a row.
    pub(crate) unsafe fn push(
        &mut self,
        rows: &Params,
        n_cols: usize,
        rowids: *const i64,
    ) -> Result<(), Error> {
        let Phase::Fill { cursor, max_rows } = self.phase else {
            return Err(Error::new(ffi::SQLITE_MISUSE, "sqlbatch_vtab_push is for a module's fill callback"));
        };
        // SAFETY: the cursor being filled, which the running xFilter or xNext holds.
        let c = unsafe { &mut *cursor };
        let n = rows.values.len();
        if n_cols == 0 || n % n_cols != 0 {
            return Err(Error::new(
                SQLBATCH_E_PARAM_COUNT,
                format!("{n} value(s) are not whole rows of {n_cols} column(s)"),
            ));
        }
        if c.n_cols != 0 && n_cols != c.n_cols {
            return Err(Error::new(
                SQLBATCH_E_PARAM_COUNT,
                format!("rows of {n_cols} column(s) pushed after rows of {}", c.n_cols),
            ));
        }
        let n_rows = n / n_cols;
        if c.batch.rows + n_rows > max_rows {
            return Err(Error::new(
                SQLBATCH_E_RANGE,
                format!(
                    "{} row(s) pushed, more than the {max_rows} the fill asked for",
                    c.batch.rows + n_rows
                ),
            ));
        }
        c.rowids
            .try_reserve(n_rows)
            .map_err(|_| Error::new(ffi::SQLITE_NOMEM, "out of memory copying rows"))?;
        // SAFETY: the caller's contract.
        unsafe { c.batch.append_params(rows)? };
        if !rowids.is_null() {
            // SAFETY: as above.
            c.rowids.extend_from_slice(unsafe { std::slice::from_raw_parts(rowids, n_rows) });
        } else {
            c.rowids.extend((0..n_rows as i64).map(|i| c.next_rowid + i));
        }
        c.next_rowid += n_rows as i64;
        c.n_cols = n_cols;
        c.batch.rows += n_rows;
        Ok(())
    }
}

/// A table's module, as the caller implements it. Every callback gets the module's
/// `user_data` and a call context; every callback that can fail returns `SQLBATCH_OK` (or, for
/// `fill`, `SQLBATCH_ROW` / `SQLBATCH_DONE`) or an error code, whose message it may give with
/// `sqlbatch_vtab_error`. Callbacks run on the thread stepping the statement (see "Thread
/// model"); they may use the connection, as SQLite allows.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sqlbatch_vtab_module {
    /// Required. Makes a table: declares its columns with `sqlbatch_vtab_declare` (once) and
    /// sets `*out_table` to the caller's state for it (any pointer, NULL too). `args` are
    /// SQLite's (`xCreate`'s and `xConnect`'s argv): `args[0]` the module's name, `args[1]`
    /// the database's ("main", "temp", an attached one), `args[2]` the table's (the module's
    /// own for an eponymous table), then the module arguments of `CREATE VIRTUAL TABLE t
    /// USING m(args...)` as written; `n_args` is at least 3. `create` is true when `CREATE
    /// VIRTUAL TABLE` makes the table (false when it is connected again, after the database
    /// was reopened, and for an eponymous table). The strings are valid during the call.
    pub connect: Option<
        unsafe extern "C" fn(
            user_data: *mut c_void,
            call: *mut sqlbatch_vtab_call,
            create: bool,
            args: *const sqlbatch_str,
            n_args: usize,
            out_table: *mut *mut c_void,
        ) -> i32,
    >,
    /// Optional. Plans a scan: reads the constraints and ORDER BY terms of `index` and writes
    /// its outputs (which constraints become arguments of `filter`, a plan number, a cost).
    /// NULL: every scan reads the whole table, with no arguments.
    pub best_index: Option<
        unsafe extern "C" fn(
            user_data: *mut c_void,
            call: *mut sqlbatch_vtab_call,
            table: *mut c_void,
            index: *mut sqlbatch_vtab_index,
        ) -> i32,
    >,
    /// Required. Opens a cursor on `table`: sets `*out_cursor` to the caller's state for it.
    pub open: Option<
        unsafe extern "C" fn(
            user_data: *mut c_void,
            call: *mut sqlbatch_vtab_call,
            table: *mut c_void,
            out_cursor: *mut *mut c_void,
        ) -> i32,
    >,
    /// Required. Starts (or restarts) a scan of `cursor` with the plan `best_index` chose
    /// (`idx_num`) and the constraints' values it asked for, in the order of their `arg_index`
    /// (`args[0]` is argument 1); the bytes of TEXT and BLOB values are at `data + bits`.
    /// Everything is valid during the call.
    pub filter: Option<
        unsafe extern "C" fn(
            user_data: *mut c_void,
            call: *mut sqlbatch_vtab_call,
            cursor: *mut c_void,
            idx_num: i32,
            args: *const sqlbatch_vtab_arg,
            n_args: usize,
            data: *const u8,
        ) -> i32,
    >,
    /// Required. Hands over the scan's next rows: calls `sqlbatch_vtab_push` with up to
    /// `max_rows` rows in all (once or several times), then returns `SQLBATCH_ROW` if more rows
    /// may follow (it pushed at least one) or `SQLBATCH_DONE` if these are the last (possibly
    /// none). Called after `filter`, and again when SQLite has read every row pushed.
    pub fill: Option<
        unsafe extern "C" fn(
            user_data: *mut c_void,
            call: *mut sqlbatch_vtab_call,
            cursor: *mut c_void,
            max_rows: usize,
        ) -> i32,
    >,
    /// Required. Frees a cursor's state: its scan ended (the statement finished, was reset or
    /// finalized, or its connection closed). Called once per cursor `open` made.
    pub close: Option<unsafe extern "C" fn(user_data: *mut c_void, cursor: *mut c_void)>,
    /// Required. Frees a table's state; `destroy` is true when the table is dropped (`DROP
    /// TABLE`: its data may go too), false when the connection closes. Called once per table
    /// `connect` made.
    pub disconnect: Option<unsafe extern "C" fn(user_data: *mut c_void, table: *mut c_void, destroy: bool)>,
    /// Optional: a writable table. Makes one change (`INSERT`, `UPDATE`, `DELETE` of one row),
    /// one call per row; for an insert that leaves the rowid to the table, sets `*out_rowid`.
    /// NULL: the table is read-only (SQLite refuses changes).
    pub update: Option<
        unsafe extern "C" fn(
            user_data: *mut c_void,
            call: *mut sqlbatch_vtab_call,
            table: *mut c_void,
            change: *const sqlbatch_vtab_change,
            out_rowid: *mut i64,
        ) -> i32,
    >,
    /// How many rows a `fill` is asked for at most (0: 256).
    pub batch_rows: usize,
}

/// One constraint of a query on a virtual table, for `best_index` (SQLite's
/// `sqlite3_index_constraint`, with what SQLite can tell about it at planning time).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sqlbatch_vtab_constraint {
    /// The column (from 0, hidden ones counted); -1 for the rowid, and for LIMIT and OFFSET.
    pub column: i32,
    /// `SQLBATCH_INDEX_*`.
    pub op: u8,
    /// Whether this plan can use it (false: its value comes from a table later in the join
    /// order SQLite is costing; a plan that needs it should return `SQLITE_CONSTRAINT`).
    pub usable: bool,
    /// An EQ constraint that is an `IN (...)`, which `filter` can take as the whole list (set
    /// `whole_list` in its use).
    pub in_list: bool,
    /// Its value, if SQLite knows it already (a literal; `SQLBATCH_UNDEFINED` otherwise), the
    /// bytes at `sqlbatch_vtab_index.data + bits`.
    pub value: sqlbatch_value,
}

/// What `best_index` decides for one constraint (SQLite's `sqlite3_index_constraint_usage`).
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct sqlbatch_vtab_use {
    /// 0: not used; otherwise the constraint's value becomes argument `arg_index` of `filter`
    /// (the ones used count 1, 2, ... with no gap).
    pub arg_index: i32,
    /// Whether SQLite may skip checking the constraint on the rows (the table applies it).
    pub omit: bool,
    /// For an `in_list` constraint: `filter` gets the whole list (`sqlbatch_vtab_arg.list`),
    /// and one scan, instead of one scan per value.
    pub whole_list: bool,
}

/// One ORDER BY term.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sqlbatch_vtab_order {
    /// The column (from 0; -1 for the rowid).
    pub column: i32,
    pub desc: bool,
}

/// A planning call of `best_index`: the query's constraints and order on the table, and the
/// plan the module chooses. The input fields and arrays are valid during the call; the
/// module writes the output fields (their defaults: no constraint used, plan 0, a full scan's
/// cost).
#[repr(C)]
pub struct sqlbatch_vtab_index {
    /// In: the constraints.
    pub constraints: *const sqlbatch_vtab_constraint,
    pub n_constraints: usize,
    /// In: the ORDER BY terms.
    pub order_by: *const sqlbatch_vtab_order,
    pub n_order_by: usize,
    /// In: the columns the query reads: bit `i` for column `i` (bit 63 for column 63 and up).
    pub columns_used: u64,
    /// In: the base of the bytes of the constraints' TEXT and BLOB values.
    pub data: *const u8,
    /// Out: one use per constraint (`n_constraints` of them), all zero on entry.
    pub uses: *mut sqlbatch_vtab_use,
    /// Out: the plan's number, handed to `filter`.
    pub idx_num: i32,
    /// Out: whether the rows come in the ORDER BY's order (SQLite then does not sort them).
    pub order_by_consumed: bool,
    /// Out: whether the plan returns at most one row.
    pub unique: bool,
    /// Out: the plan's estimated cost (compared between plans; a disk page read is 1).
    pub estimated_cost: f64,
    /// Out: the estimated number of rows.
    pub estimated_rows: i64,
}

/// An argument of `filter`: a constraint's value, or, for an IN constraint taken whole, its
/// whole list.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sqlbatch_vtab_arg {
    /// The value (`SQLBATCH_UNDEFINED` for a list).
    pub value: sqlbatch_value,
    /// The list's values (NULL when this is not a list, or an empty one).
    pub list: *const sqlbatch_value,
    pub n_list: usize,
}

/// A change to a writable table, for `update`.
#[repr(C)]
pub struct sqlbatch_vtab_change {
    /// `SQLBATCH_VTAB_INSERT`, `_UPDATE` or `_DELETE`.
    pub op: i32,
    /// The rowid of the row updated or deleted (0 for an insert).
    pub old_rowid: i64,
    /// The new row's rowid: INTEGER, or NULL when the table should choose one (an insert
    /// without one); for a delete, NULL.
    pub new_rowid: sqlbatch_value,
    /// The new row's columns (hidden ones included), for an insert or an update; none for a
    /// delete. The bytes of TEXT and BLOB values are at `data + bits`.
    pub values: *const sqlbatch_value,
    pub n_values: usize,
    pub data: *const u8,
}

/// A registered module: the caller's callbacks, their user data, and SQLite's module that
/// calls them (the `pAux` of SQLite's registration, freed by its destructor).
pub(crate) struct Module {
    host: sqlbatch_vtab_module,
    user_data: *mut c_void,
    destroy: sqlbatch_destroy_fn,
    /// The connection's hook dispatcher, which outlives SQLite's handle and so every call.
    hooks: *const Hooks,
    sqlite: ffi::sqlite3_module,
}

impl Drop for Module {
    fn drop(&mut self) {
        if let Some(destroy) = self.destroy {
            // SAFETY: the caller's destructor, called once, with its own user data.
            let _ = catch(|| {
                unsafe { destroy(self.user_data) };
                Ok(())
            });
        }
    }
}

impl Module {
    /// Checks a module the caller hands over and makes the library's side of it.
    pub(crate) fn new(
        host: &sqlbatch_vtab_module,
        flags: u32,
        user_data: *mut c_void,
        destroy: sqlbatch_destroy_fn,
        hooks: *const Hooks,
    ) -> Result<Box<Module>, Error> {
        let module = Box::new(Module {
            host: *host,
            user_data,
            destroy,
            hooks,
            // SAFETY: an all-NULL module; filled in below.
            sqlite: unsafe { std::mem::zeroed() },
        });
        // (`module` drops, running `destroy`, on the errors below.)
        if flags & !MODULE_FLAGS_ALLOWED != 0 || flags == MODULE_FLAGS_ALLOWED {
            return Err(Error::new(SQLBATCH_E_INVALID_ARGUMENT, format!("bad module flags {flags:#x}")));
        }
        let h = &module.host;
        if h.connect.is_none()
            || h.open.is_none()
            || h.filter.is_none()
            || h.fill.is_none()
            || h.close.is_none()
            || h.disconnect.is_none()
        {
            return Err(Error::new(
                SQLBATCH_E_INVALID_ARGUMENT,
                "a module needs connect, open, filter, fill, close and disconnect",
            ));
        }
        let mut module = module;
        module.sqlite = ffi::sqlite3_module {
            iVersion: 2,
            xCreate: match flags {
                SQLBATCH_VTAB_EPONYMOUS_ONLY => None,
                SQLBATCH_VTAB_EPONYMOUS => Some(connect),
                _ => Some(create),
            },
            xConnect: Some(connect),
            xBestIndex: Some(best_index),
            xDisconnect: Some(disconnect),
            xDestroy: Some(destroy_table),
            xOpen: Some(open),
            xClose: Some(close),
            xFilter: Some(filter),
            xNext: Some(next),
            xEof: Some(eof),
            xColumn: Some(column),
            xRowid: Some(rowid),
            xUpdate: if module.host.update.is_some() { Some(update) } else { None },
            // SAFETY: the rest stays NULL.
            ..unsafe { std::mem::zeroed() }
        };
        Ok(module)
    }

    /// SQLite's module to register, which lives as long as this.
    pub(crate) fn sqlite(&self) -> *const ffi::sqlite3_module {
        &self.sqlite
    }

    /// A callback of this module starts (see `InCallback`): the batched update hook gets the
    /// events collected before it.
    fn enter(&self) -> InCallback {
        // SAFETY: the connection's dispatcher, which outlives every call of the module.
        if let Some(h) = unsafe { self.hooks.as_ref() } {
            h.before_callback();
        }
        InCallback::enter(self.hooks)
    }
}

/// SQLite's destructor of a registered module.
pub(crate) unsafe extern "C" fn free_module(p: *mut c_void) {
    // SAFETY: `p` is a `Box<Module>` handed to SQLite as the registration's pAux, freed once.
    boundary_value((), || drop(unsafe { Box::from_raw(p.cast::<Module>()) }))
}

/// A table of a module.
#[repr(C)]
struct Table {
    base: ffi::sqlite3_vtab,
    module: *const Module,
    host: *mut c_void,
}

/// A cursor of a module's table, and the batch it serves rows from.
#[repr(C)]
pub(crate) struct Cursor {
    base: ffi::sqlite3_vtab_cursor,
    module: *const Module,
    host: *mut c_void,
    /// The rows pushed by the last fill, `n_cols` cells each.
    batch: Cells,
    rowids: Vec<i64>,
    n_cols: usize,
    /// The row SQLite is on, in `batch`.
    pos: usize,
    /// Whether the last fill said more rows may follow.
    more: bool,
    /// The rowid of the next row pushed without one (rows count from 1 per scan).
    next_rowid: i64,
}

/// The message of a failed callback: what it said, or a description of its code.
fn message_of(call: &sqlbatch_vtab_call, rc: i32, what: &str) -> String {
    match &call.message {
        Some(m) => m.clone(),
        None => {
            // SAFETY: static, NUL-terminated.
            let desc =
                unsafe { CStr::from_ptr(crate::codes::description(rc)) }.to_string_lossy().into_owned();
            format!("{what} failed: {desc}")
        }
    }
}

/// The SQLite code of a callback's failure: a library code becomes `SQLITE_ERROR` (SQLite
/// knows only its own), SQLite's codes stay.
fn sqlite_code(rc: i32) -> c_int {
    if (1000..1024).contains(&rc) || rc == SQLBATCH_OK || rc == SQLBATCH_ROW || rc == SQLBATCH_DONE {
        ffi::SQLITE_ERROR
    } else {
        rc
    }
}

unsafe extern "C" fn create(
    db: *mut ffi::sqlite3,
    aux: *mut c_void,
    argc: c_int,
    argv: *const *const c_char,
    out: *mut *mut ffi::sqlite3_vtab,
    err: *mut *mut c_char,
) -> c_int {
    // SAFETY: SQLite's arguments, passed on.
    unsafe { make_table(db, aux, argc, argv, out, err, true) }
}

unsafe extern "C" fn connect(
    db: *mut ffi::sqlite3,
    aux: *mut c_void,
    argc: c_int,
    argv: *const *const c_char,
    out: *mut *mut ffi::sqlite3_vtab,
    err: *mut *mut c_char,
) -> c_int {
    // SAFETY: SQLite's arguments, passed on.
    unsafe { make_table(db, aux, argc, argv, out, err, false) }
}

/// xCreate and xConnect: the caller's `connect`, which must declare the table.
///
/// # Safety
/// SQLite's arguments of xCreate/xConnect for a module registered with a `Module` as pAux.
unsafe fn make_table(
    db: *mut ffi::sqlite3,
    aux: *mut c_void,
    argc: c_int,
    argv: *const *const c_char,
    out: *mut *mut ffi::sqlite3_vtab,
    err: *mut *mut c_char,
    create: bool,
) -> c_int {
    boundary_value(ffi::SQLITE_ERROR, || {
        // SAFETY: the registration's pAux, alive while the module is registered.
        let module = unsafe { &*aux.cast::<Module>() };
        // argv: the module's name, the database's, the table's, then the module's arguments,
        // handed on as they are.
        let args: Vec<sqlbatch_str> = (0..argc.max(0) as usize)
            .map(|i| {
                // SAFETY: SQLite passes `argc` NUL-terminated strings.
                let s = unsafe { CStr::from_ptr(*argv.add(i)) };
                sqlbatch_str { ptr: s.as_ptr(), len: s.to_bytes().len() }
            })
            .collect();
        let mut call = sqlbatch_vtab_call::new(Phase::Connect { db, declared: false });
        let mut host = ptr::null_mut();
        let connect = module.host.connect.expect("checked at registration");
        let rc = {
            let _callback = module.enter();
            // SAFETY: the caller's callback, with arguments valid during the call.
            unsafe { connect(module.user_data, &mut call, create, args.as_ptr(), args.len(), &mut host) }
        };
        let declared = matches!(call.phase, Phase::Connect { declared: true, .. });
        if rc != SQLBATCH_OK || !declared {
            let message = if rc != SQLBATCH_OK {
                message_of(&call, rc, "the module's connect")
            } else {
                "the module's connect did not declare the table (sqlbatch_vtab_declare)".to_string()
            };
            // SAFETY: SQLite's out-parameter for a message it frees.
            unsafe { *err = sqlite_message(&message) };
            if rc == SQLBATCH_OK {
                // The table was made on the caller's side: it goes again.
                if let Some(disconnect) = module.host.disconnect {
                    let _callback = module.enter();
                    // SAFETY: the caller's callback, with the state its connect made.
                    unsafe { disconnect(module.user_data, host, false) };
                }
            }
            return sqlite_code(if rc == SQLBATCH_OK { ffi::SQLITE_ERROR } else { rc });
        }
        let table = Box::new(Table {
            // SAFETY: a zeroed sqlite3_vtab is what SQLite expects to fill in.
            base: unsafe { std::mem::zeroed() },
            module,
            host,
        });
        // SAFETY: SQLite's out-parameter; it frees the table through xDisconnect/xDestroy.
        unsafe { *out = Box::into_raw(table).cast() };
        ffi::SQLITE_OK
    })
}

/// xDisconnect and xDestroy.
///
/// # Safety
/// `vtab` was made by `make_table` and is freed once.
unsafe fn end_table(vtab: *mut ffi::sqlite3_vtab, destroy: bool) -> c_int {
    boundary_value(ffi::SQLITE_OK, || {
        // SAFETY: the caller's contract.
        let table = unsafe { Box::from_raw(vtab.cast::<Table>()) };
        // SAFETY: the registration outlives its tables.
        let module = unsafe { &*table.module };
        if let Some(disconnect) = module.host.disconnect {
            let _callback = module.enter();
            // SAFETY: the caller's callback, once per table.
            unsafe { disconnect(module.user_data, table.host, destroy) };
        }
        // SAFETY: a message SQLite did not take.
        unsafe { ffi::sqlite3_free(table.base.zErrMsg.cast()) };
        ffi::SQLITE_OK
    })
}

unsafe extern "C" fn disconnect(vtab: *mut ffi::sqlite3_vtab) -> c_int {
    // SAFETY: SQLite's table, freed once.
    unsafe { end_table(vtab, false) }
}

unsafe extern "C" fn destroy_table(vtab: *mut ffi::sqlite3_vtab) -> c_int {
    // SAFETY: SQLite's table, freed once.
    unsafe { end_table(vtab, true) }
}

unsafe extern "C" fn best_index(vtab: *mut ffi::sqlite3_vtab, info: *mut ffi::sqlite3_index_info) -> c_int {
    boundary_value(ffi::SQLITE_ERROR, || {
        // SAFETY: SQLite's table and plan, for the length of the call.
        let (table, info_ref) = unsafe { (&*vtab.cast::<Table>(), &mut *info) };
        // SAFETY: the registration outlives its tables.
        let module = unsafe { &*table.module };
        let Some(plan) = module.host.best_index else {
            info_ref.estimatedCost = 1e6;
            return ffi::SQLITE_OK;
        };
        let n = info_ref.nConstraint.max(0) as usize;
        let mut values = Cells::default();
        let mut constraints = Vec::with_capacity(n);
        for i in 0..n {
            // SAFETY: `nConstraint` entries.
            let c = unsafe { &*info_ref.aConstraint.add(i) };
            let mut rhs = ptr::null_mut();
            // SAFETY: within xBestIndex, with `i` a constraint's index.
            let known = unsafe { ffi::sqlite3_vtab_rhs_value(info, i as c_int, &mut rhs) } == ffi::SQLITE_OK;
            // SAFETY: as above; -1 asks without changing anything.
            let in_list = c.usable != 0 && unsafe { ffi::sqlite3_vtab_in(info, i as c_int, -1) } != 0;
            // SAFETY: a live value when known.
            let value = if known && unsafe { values.push(rhs) } {
                values.cells.pop().unwrap_or(sqlbatch_value::UNDEFINED)
            } else {
                sqlbatch_value::UNDEFINED
            };
            constraints.push(sqlbatch_vtab_constraint {
                column: c.iColumn,
                op: c.op,
                usable: c.usable != 0,
                in_list,
                value,
            });
        }
        let order: Vec<sqlbatch_vtab_order> = (0..info_ref.nOrderBy.max(0) as usize)
            .map(|i| {
                // SAFETY: `nOrderBy` entries.
                let o = unsafe { &*info_ref.aOrderBy.add(i) };
                sqlbatch_vtab_order { column: o.iColumn, desc: o.desc != 0 }
            })
            .collect();
        let mut uses = vec![sqlbatch_vtab_use::default(); n];
        let mut index = sqlbatch_vtab_index {
            constraints: crate::ffi::non_empty(&constraints),
            n_constraints: n,
            order_by: crate::ffi::non_empty(&order),
            n_order_by: order.len(),
            columns_used: info_ref.colUsed,
            data: values.data_ptr(),
            uses: if n == 0 { ptr::null_mut() } else { uses.as_mut_ptr() },
            idx_num: 0,
            order_by_consumed: false,
            unique: false,
            estimated_cost: 1e6,
            estimated_rows: 1_000_000,
        };
        let mut call = sqlbatch_vtab_call::new(Phase::Other);
        let rc = {
            let _callback = module.enter();
            // SAFETY: the caller's callback, with arrays valid during the call.
            unsafe { plan(module.user_data, &mut call, table.host, &mut index) }
        };
        if rc == ffi::SQLITE_CONSTRAINT {
            // The plan cannot be used (it needs a constraint that is not usable).
            return rc;
        }
        if rc != SQLBATCH_OK {
            // SAFETY: SQLite's live table.
            return unsafe {
                vtab_error(vtab, sqlite_code(rc), &message_of(&call, rc, "the module's best_index"))
            };
        }
        // The arguments must count 1, 2, ... with no gap and no repeat, from usable
        // constraints; SQLite would call the plan a malfunction with less to go on.
        let mut used: Vec<i32> = uses.iter().map(|u| u.arg_index).filter(|&a| a != 0).collect();
        used.sort_unstable();
        let bad_use =
            uses.iter().zip(&constraints).any(|(u, c)| u.arg_index != 0 && (!c.usable || u.arg_index < 0))
                || used.iter().enumerate().any(|(k, &a)| a != k as i32 + 1);
        if bad_use {
            // SAFETY: SQLite's live table.
            return unsafe {
                vtab_error(
                    vtab,
                    ffi::SQLITE_ERROR,
                    "the module's best_index gave arg_index values that are not 1, 2, ... over usable constraints",
                )
            };
        }
        let mut lists = vec![b'0'; used.len()];
        for (i, u) in uses.iter().enumerate() {
            if u.arg_index == 0 {
                continue;
            }
            // SAFETY: `n` entries.
            let usage = unsafe { &mut *info_ref.aConstraintUsage.add(i) };
            usage.argvIndex = u.arg_index;
            usage.omit = u8::from(u.omit);
            if u.whole_list && constraints[i].in_list {
                // SAFETY: within xBestIndex; asks SQLite to pass the list whole.
                unsafe { ffi::sqlite3_vtab_in(info, i as c_int, 1) };
                lists[u.arg_index as usize - 1] = b'1';
            }
        }
        info_ref.idxNum = index.idx_num;
        info_ref.orderByConsumed = c_int::from(index.order_by_consumed);
        info_ref.estimatedCost = index.estimated_cost;
        info_ref.estimatedRows = index.estimated_rows;
        if index.unique {
            info_ref.idxFlags |= ffi::SQLITE_INDEX_SCAN_UNIQUE;
        }
        // Which arguments are whole lists, for filter: one '0' or '1' each.
        if lists.contains(&b'1') {
            lists.push(0);
            // SAFETY: a NUL-terminated format and argument; SQLite frees the copy.
            info_ref.idxStr = unsafe { ffi::sqlite3_mprintf(c"%s".as_ptr(), lists.as_ptr()) };
            info_ref.needToFreeIdxStr = 1;
        }
        ffi::SQLITE_OK
    })
}

unsafe extern "C" fn open(vtab: *mut ffi::sqlite3_vtab, out: *mut *mut ffi::sqlite3_vtab_cursor) -> c_int {
    boundary_value(ffi::SQLITE_ERROR, || {
        // SAFETY: SQLite's table, live during the call.
        let table = unsafe { &*vtab.cast::<Table>() };
        // SAFETY: the registration outlives its tables.
        let module = unsafe { &*table.module };
        let open = module.host.open.expect("checked at registration");
        let mut call = sqlbatch_vtab_call::new(Phase::Other);
        let mut host = ptr::null_mut();
        let rc = {
            let _callback = module.enter();
            // SAFETY: the caller's callback.
            unsafe { open(module.user_data, &mut call, table.host, &mut host) }
        };
        if rc != SQLBATCH_OK {
            // SAFETY: SQLite's live table.
            return unsafe { vtab_error(vtab, sqlite_code(rc), &message_of(&call, rc, "the module's open")) };
        }
        let cursor = Box::new(Cursor {
            // SAFETY: a zeroed sqlite3_vtab_cursor is what SQLite expects to fill in.
            base: unsafe { std::mem::zeroed() },
            module,
            host,
            batch: Cells::default(),
            rowids: Vec::new(),
            n_cols: 0,
            pos: 0,
            more: false,
            next_rowid: 1,
        });
        // SAFETY: SQLite's out-parameter; it frees the cursor through xClose.
        unsafe { *out = Box::into_raw(cursor).cast() };
        ffi::SQLITE_OK
    })
}

unsafe extern "C" fn close(cursor: *mut ffi::sqlite3_vtab_cursor) -> c_int {
    boundary_value(ffi::SQLITE_OK, || {
        // SAFETY: made by `open`, freed once.
        let c = unsafe { Box::from_raw(cursor.cast::<Cursor>()) };
        // SAFETY: the registration outlives its cursors.
        let module = unsafe { &*c.module };
        if let Some(close) = module.host.close {
            let _callback = module.enter();
            // SAFETY: the caller's callback, once per cursor.
            unsafe { close(module.user_data, c.host) };
        }
        ffi::SQLITE_OK
    })
}

impl Cursor {
    /// Asks the module for the next rows; SQLite's code.
    ///
    /// # Safety
    /// `this` is a live cursor whose `pVtab` SQLite set.
    unsafe fn refill(this: *mut Cursor) -> c_int {
        // SAFETY: the caller's contract.
        let c = unsafe { &mut *this };
        // SAFETY: the registration outlives its cursors.
        let module = unsafe { &*c.module };
        c.batch.clear();
        c.rowids.clear();
        c.pos = 0;
        c.more = false;
        let max_rows = if module.host.batch_rows == 0 { BATCH_ROWS } else { module.host.batch_rows };
        let fill = module.host.fill.expect("checked at registration");
        let mut call = sqlbatch_vtab_call::new(Phase::Fill { cursor: this, max_rows });
        let host = c.host;
        let rc = {
            let _callback = module.enter();
            // SAFETY: the caller's callback; it pushes into this cursor through `call`.
            unsafe { fill(module.user_data, &mut call, host, max_rows) }
        };
        // SAFETY: as above (the callback is over).
        let c = unsafe { &mut *this };
        let vtab = c.base.pVtab;
        match rc {
            SQLBATCH_DONE => ffi::SQLITE_OK,
            SQLBATCH_ROW if c.batch.rows > 0 => {
                c.more = true;
                ffi::SQLITE_OK
            }
            SQLBATCH_ROW => {
                // SAFETY: SQLite's live table.
                unsafe {
                    vtab_error(
                        vtab,
                        ffi::SQLITE_ERROR,
                        "the module's fill returned SQLBATCH_ROW without pushing a row",
                    )
                }
            }
            rc => {
                c.batch.clear();
                c.rowids.clear();
                // SAFETY: SQLite's live table.
                unsafe { vtab_error(vtab, sqlite_code(rc), &message_of(&call, rc, "the module's fill")) }
            }
        }
    }
}

unsafe extern "C" fn filter(
    cursor: *mut ffi::sqlite3_vtab_cursor,
    idx_num: c_int,
    idx_str: *const c_char,
    argc: c_int,
    argv: *mut *mut ffi::sqlite3_value,
) -> c_int {
    boundary_value(ffi::SQLITE_ERROR, || {
        let this = cursor.cast::<Cursor>();
        // SAFETY: SQLite's cursor, live during the call.
        let c = unsafe { &mut *this };
        // SAFETY: the registration outlives its cursors.
        let module = unsafe { &*c.module };
        let vtab = c.base.pVtab;
        // Which arguments are whole IN lists: what best_index asked for.
        let lists: &[u8] = if idx_str.is_null() {
            &[]
        } else {
            // SAFETY: the string best_index made.
            unsafe { CStr::from_ptr(idx_str) }.to_bytes()
        };
        let mut values = Cells::default();
        // (first cell, list length or None for a single value) per argument.
        let mut spans: Vec<(usize, Option<usize>)> = Vec::with_capacity(argc.max(0) as usize);
        for i in 0..argc.max(0) as usize {
            // SAFETY: `argc` live values.
            let v = unsafe { *argv.add(i) };
            let from = values.cells.len();
            if lists.get(i) == Some(&b'1') {
                let mut item = ptr::null_mut();
                // SAFETY: an IN list SQLite passes whole, as best_index asked.
                let mut rc = unsafe { ffi::sqlite3_vtab_in_first(v, &mut item) };
                while rc == ffi::SQLITE_OK {
                    // SAFETY: a live value of the list.
                    if !unsafe { values.push(item) } {
                        // SAFETY: SQLite's live table.
                        return unsafe {
                            vtab_error(vtab, ffi::SQLITE_NOMEM, "out of memory reading an IN list")
                        };
                    }
                    // SAFETY: as above.
                    rc = unsafe { ffi::sqlite3_vtab_in_next(v, &mut item) };
                }
                if rc != ffi::SQLITE_DONE {
                    return rc;
                }
                spans.push((from, Some(values.cells.len() - from)));
            } else {
                // SAFETY: a live value.
                if !unsafe { values.push(v) } {
                    // SAFETY: SQLite's live table.
                    return unsafe {
                        vtab_error(vtab, ffi::SQLITE_NOMEM, "out of memory reading an argument")
                    };
                }
                spans.push((from, None));
            }
        }
        let args: Vec<sqlbatch_vtab_arg> = spans
            .iter()
            .map(|&(from, list)| match list {
                None => sqlbatch_vtab_arg { value: values.cells[from], list: ptr::null(), n_list: 0 },
                Some(n) => sqlbatch_vtab_arg {
                    value: sqlbatch_value::UNDEFINED,
                    list: if n == 0 { ptr::null() } else { values.cells_from(from) },
                    n_list: n,
                },
            })
            .collect();
        c.batch.clear();
        c.rowids.clear();
        c.pos = 0;
        c.more = false;
        c.next_rowid = 1;
        c.n_cols = 0;
        let filter = module.host.filter.expect("checked at registration");
        let mut call = sqlbatch_vtab_call::new(Phase::Other);
        let host = c.host;
        let rc = {
            let _callback = module.enter();
            // SAFETY: the caller's callback, with arguments valid during the call.
            unsafe {
                filter(
                    module.user_data,
                    &mut call,
                    host,
                    idx_num,
                    crate::ffi::non_empty(&args),
                    args.len(),
                    values.data_ptr(),
                )
            }
        };
        if rc != SQLBATCH_OK {
            // SAFETY: SQLite's live table.
            return unsafe {
                vtab_error(vtab, sqlite_code(rc), &message_of(&call, rc, "the module's filter"))
            };
        }
        // SAFETY: SQLite's live cursor.
        unsafe { Cursor::refill(this) }
    })
}

unsafe extern "C" fn next(cursor: *mut ffi::sqlite3_vtab_cursor) -> c_int {
    boundary_value(ffi::SQLITE_ERROR, || {
        let this = cursor.cast::<Cursor>();
        // SAFETY: SQLite's cursor, on a row.
        let c = unsafe { &mut *this };
        c.pos += 1;
        if c.pos >= c.batch.rows && c.more {
            // SAFETY: SQLite's live cursor.
            return unsafe { Cursor::refill(this) };
        }
        ffi::SQLITE_OK
    })
}

unsafe extern "C" fn eof(cursor: *mut ffi::sqlite3_vtab_cursor) -> c_int {
    // SAFETY: SQLite's cursor.
    let c = unsafe { &*cursor.cast::<Cursor>() };
    c_int::from(c.pos >= c.batch.rows)
}

unsafe extern "C" fn column(
    cursor: *mut ffi::sqlite3_vtab_cursor,
    ctx: *mut ffi::sqlite3_context,
    i: c_int,
) -> c_int {
    // SAFETY: SQLite's cursor, on a row (`eof` said so), and its result context.
    unsafe {
        let c = &*cursor.cast::<Cursor>();
        let i = i as usize;
        if i >= c.n_cols || c.pos >= c.batch.rows {
            // A column the module does not push (a hidden argument column, say).
            ffi::sqlite3_result_null(ctx);
        } else {
            result_cell(ctx, &c.batch.cells[c.pos * c.n_cols + i], c.batch.bytes.as_ptr());
        }
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn rowid(cursor: *mut ffi::sqlite3_vtab_cursor, out: *mut ffi::sqlite3_int64) -> c_int {
    // SAFETY: SQLite's cursor, on a row, and its out-parameter.
    unsafe {
        let c = &*cursor.cast::<Cursor>();
        *out = c.rowids.get(c.pos).copied().unwrap_or(0);
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn update(
    vtab: *mut ffi::sqlite3_vtab,
    argc: c_int,
    argv: *mut *mut ffi::sqlite3_value,
    out_rowid: *mut ffi::sqlite3_int64,
) -> c_int {
    boundary_value(ffi::SQLITE_ERROR, || {
        // SAFETY: SQLite's table, live during the call.
        let table = unsafe { &*vtab.cast::<Table>() };
        // SAFETY: the registration outlives its tables.
        let module = unsafe { &*table.module };
        let update = module.host.update.expect("xUpdate is set only with update");
        // SAFETY: `argc` live values (argv[0] the old rowid or NULL, argv[1] the new rowid,
        // then the columns), as SQLite's xUpdate documents.
        let (op, old, new) = unsafe {
            let first = *argv;
            if argc == 1 {
                (SQLBATCH_VTAB_DELETE, ffi::sqlite3_value_int64(first), sqlbatch_value::NULL)
            } else {
                let mut new = Cells::default();
                if !new.push(*argv.add(1)) {
                    return vtab_error(vtab, ffi::SQLITE_NOMEM, "out of memory reading a change");
                }
                if ffi::sqlite3_value_type(first) == ffi::SQLITE_NULL {
                    (SQLBATCH_VTAB_INSERT, 0, new.cells[0])
                } else {
                    (SQLBATCH_VTAB_UPDATE, ffi::sqlite3_value_int64(first), new.cells[0])
                }
            }
        };
        let mut values = Cells::default();
        for i in 2..argc.max(2) as usize {
            // SAFETY: as above.
            if !unsafe { values.push(*argv.add(i)) } {
                // SAFETY: SQLite's live table.
                return unsafe { vtab_error(vtab, ffi::SQLITE_NOMEM, "out of memory reading a change") };
            }
        }
        let change = sqlbatch_vtab_change {
            op,
            old_rowid: old,
            new_rowid: new,
            values: values.cells_ptr(),
            n_values: values.cells.len(),
            data: values.data_ptr(),
        };
        let mut call = sqlbatch_vtab_call::new(Phase::Other);
        // An insert's rowid, unless the module sets one: the one SQLite gave, if any.
        let mut rowid = if new.kind == crate::engine::value::SQLBATCH_INTEGER { new.bits as i64 } else { 0 };
        let rc = {
            let _callback = module.enter();
            // SAFETY: the caller's callback, with the change valid during the call.
            unsafe { update(module.user_data, &mut call, table.host, &change, &mut rowid) }
        };
        if rc != SQLBATCH_OK {
            // SAFETY: SQLite's live table.
            return unsafe {
                vtab_error(vtab, sqlite_code(rc), &message_of(&call, rc, "the module's update"))
            };
        }
        if op == SQLBATCH_VTAB_INSERT {
            // SAFETY: SQLite's out-parameter.
            unsafe { *out_rowid = rowid };
        }
        ffi::SQLITE_OK
    })
}
