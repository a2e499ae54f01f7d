//! Rows of SQLite values copied out as `sqlbatch_value` cells over one buffer of bytes: the
//! arguments a function's callback gets, the old and new rows of a preupdate event, the rows
//! of a changeset conflict. (A fetched batch is built by `fetch`, which writes into the
//! caller's or its own bounded memory instead.)

use std::ffi::c_int;

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::engine::mem::{self, Direct};
use crate::engine::value::{
    sqlbatch_value, Params, SQLBATCH_BLOB, SQLBATCH_FLOAT, SQLBATCH_INTEGER, SQLBATCH_NULL, SQLBATCH_TEXT,
};
use crate::error::Error;

/// Cells, row after row, and the bytes their TEXT and BLOB values point into (by offset).
#[derive(Default)]
pub(crate) struct Cells {
    pub cells: Vec<sqlbatch_value>,
    pub bytes: Vec<u8>,
    /// Rows pushed with `push_row`.
    pub rows: usize,
}

impl Cells {
    pub fn clear(&mut self) {
        self.cells.clear();
        self.bytes.clear();
        self.rows = 0;
    }

    /// Appends one row of SQLite values; false if memory ran out (SQLite's producing one, or
    /// the room to copy it).
    ///
    /// # Safety
    /// `argv` must hold `argc` live values.
    pub unsafe fn push_row(&mut self, argc: c_int, argv: *mut *mut ffi::sqlite3_value) -> bool {
        let n = argc.max(0) as usize;
        if self.cells.try_reserve(n).is_err() {
            return false;
        }
        for i in 0..n {
            // SAFETY: `argv` holds `argc` live values (the caller's contract).
            if !unsafe { self.push(*argv.add(i)) } {
                return false;
            }
        }
        self.rows += 1;
        true
    }

    /// Appends one value, or, for a NULL pointer, an `SQLBATCH_UNDEFINED` cell (no value at
    /// all, as for a column a changeset's UPDATE leaves out); false if SQLite ran out of memory
    /// producing it. Plain values are read directly from SQLite's `Mem` structs where the fetch
    /// does so (`mem.rs`: the same layout check); the others through the public API.
    ///
    /// # Safety
    /// `v` must be NULL or a live value.
    pub unsafe fn push(&mut self, v: *mut ffi::sqlite3_value) -> bool {
        if v.is_null() {
            self.cells.push(sqlbatch_value::UNDEFINED);
            return true;
        }
        let direct = mem::direct_reads_enabled();
        // SAFETY: `v` is a live value; every `sqlite3_value` is a `Mem`, as a result column is.
        let plain = if direct { unsafe { mem::read_direct(v as *const u8) } } else { Direct::Other };
        let cell = match plain {
            Direct::Int(x) => sqlbatch_value::int(x),
            Direct::Real(x) => sqlbatch_value::float(x),
            Direct::Null => sqlbatch_value::NULL,
            // SAFETY: `p` holds `len` bytes of the live value.
            Direct::Bytes(kind, p, len) => match unsafe { self.push_bytes(kind, p, len) } {
                Some(cell) => cell,
                None => return false,
            },
            // SAFETY: `v` is a live value.
            Direct::Other => match unsafe { self.api_cell(v) } {
                Some(cell) => cell,
                None => return false,
            },
        };
        self.cells.push(cell);
        true
    }

    /// Appends the `n` values that `get(i, &mut value)` hands out (an SQLite getter such as
    /// `sqlite3_preupdate_old` or `sqlite3changeset_new`); one it cannot give, or that SQLite
    /// cannot produce (out of memory), is an `SQLBATCH_UNDEFINED` cell. Returns the index of
    /// the first.
    ///
    /// # Safety
    /// `get` returns `SQLITE_OK` only with NULL or a live value.
    pub unsafe fn push_from(
        &mut self,
        n: c_int,
        mut get: impl FnMut(c_int, &mut *mut ffi::sqlite3_value) -> c_int,
    ) -> usize {
        let from = self.cells.len();
        for i in 0..n {
            let mut v = std::ptr::null_mut();
            // (`push` adds no cell when it fails.)
            // SAFETY: `get`'s contract.
            if get(i, &mut v) != ffi::SQLITE_OK || !unsafe { self.push(v) } {
                self.cells.push(sqlbatch_value::UNDEFINED);
            }
        }
        from
    }

    /// One value through the public API; None if SQLite ran out of memory producing it.
    ///
    /// # Safety
    /// `v` must be a live value.
    unsafe fn api_cell(&mut self, v: *mut ffi::sqlite3_value) -> Option<sqlbatch_value> {
        // SAFETY: `v` is live (the caller's contract), read through the public API.
        unsafe {
            Some(match ffi::sqlite3_value_type(v) {
                ffi::SQLITE_INTEGER => sqlbatch_value::int(ffi::sqlite3_value_int64(v)),
                ffi::SQLITE_FLOAT => sqlbatch_value::float(ffi::sqlite3_value_double(v)),
                kind @ (ffi::SQLITE_TEXT | ffi::SQLITE_BLOB) => {
                    let p: *const u8 = if kind == ffi::SQLITE_TEXT {
                        ffi::sqlite3_value_text(v)
                    } else {
                        ffi::sqlite3_value_blob(v).cast()
                    };
                    let n = ffi::sqlite3_value_bytes(v) as usize;
                    if p.is_null() && n > 0 {
                        return None;
                    }
                    self.push_bytes(kind as u8, p, n)?
                }
                _ => sqlbatch_value::NULL,
            })
        }
    }

    /// Copies `len` bytes of a TEXT or BLOB value into the buffer; their cell.
    ///
    /// # Safety
    /// `p` must hold `len` readable bytes (any pointer when `len` is 0).
    unsafe fn push_bytes(&mut self, kind: u8, p: *const u8, len: usize) -> Option<sqlbatch_value> {
        let at = self.bytes.len();
        if len > 0 {
            self.bytes.try_reserve(len).ok()?;
            // SAFETY: the caller's contract.
            self.bytes.extend_from_slice(unsafe { std::slice::from_raw_parts(p, len) });
        }
        Some(sqlbatch_value::bytes(kind, at as u64, len as u32))
    }

    /// Appends a copy of the values of `p` (positional, of the five kinds of a cell), their
    /// bytes re-based onto this buffer; nothing is appended when one of them is refused.
    /// Allocation failure is `SQLITE_NOMEM`, not an abort.
    ///
    /// # Safety
    /// As for [`Params::bytes_of`].
    pub unsafe fn append_params(&mut self, p: &Params) -> Result<(), Error> {
        if !p.names.is_empty() {
            return Err(Error::new(
                SQLBATCH_E_INVALID_ARGUMENT,
                "these values have no names: names must be NULL",
            ));
        }
        // Every value checked first (its kind, its bytes within `data`), and the span of
        // `data` their bytes lie in: when it is not much more than the bytes themselves (the
        // usual case: rows written one after another), it is copied in one piece.
        let (mut lo, mut hi, mut total) = (u64::MAX, 0u64, 0usize);
        for v in p.values {
            match v.kind {
                SQLBATCH_INTEGER | SQLBATCH_FLOAT | SQLBATCH_NULL => {}
                SQLBATCH_TEXT | SQLBATCH_BLOB => {
                    // SAFETY: the caller's contract.
                    total += unsafe { p.bytes_of(v)? }.len();
                    if v.len > 0 {
                        lo = lo.min(v.bits);
                        hi = hi.max(v.bits + u64::from(v.len));
                    }
                }
                k => return Err(Error::new(SQLBATCH_E_INVALID_ARGUMENT, format!("unknown value kind {k}"))),
            }
        }
        let span =
            !p.addresses() && lo < hi && (hi - lo) as usize <= total.saturating_mul(2).saturating_add(4096);
        let no_memory = |_| Error::new(ffi::SQLITE_NOMEM, "out of memory copying values");
        self.bytes.try_reserve(if span { (hi - lo) as usize } else { total }).map_err(no_memory)?;
        self.cells.try_reserve(p.values.len()).map_err(no_memory)?;
        let base = self.bytes.len() as u64;
        if span {
            // SAFETY: every range within lo..hi was checked above, so lo..hi is in `data`.
            self.bytes.extend_from_slice(unsafe { p.data_range(lo, hi) });
            // The cells in one copy, then each one made canonical, its bytes' offset moved.
            let first = self.cells.len();
            self.cells.extend_from_slice(p.values);
            for c in &mut self.cells[first..] {
                match c.kind {
                    SQLBATCH_TEXT | SQLBATCH_BLOB => {
                        c.bits = if c.len == 0 { base } else { c.bits - lo + base }
                    }
                    SQLBATCH_NULL => c.bits = 0,
                    _ => c.len = 0,
                }
                c._pad = [0; 3];
            }
            return Ok(());
        }
        for v in p.values {
            let cell = match v.kind {
                // SAFETY: checked above; the room is reserved.
                SQLBATCH_TEXT | SQLBATCH_BLOB => unsafe {
                    let b = p.bytes_of(v)?;
                    self.push_bytes(v.kind, b.as_ptr(), b.len())
                        .ok_or_else(|| Error::new(ffi::SQLITE_NOMEM, "out of memory copying values"))?
                },
                SQLBATCH_NULL => sqlbatch_value::NULL,
                _ => sqlbatch_value { bits: v.bits, len: 0, kind: v.kind, _pad: [0; 3] },
            };
            self.cells.push(cell);
        }
        Ok(())
    }

    /// The cells from index `from` on (NULL when there are none).
    pub fn cells_from(&self, from: usize) -> *const sqlbatch_value {
        crate::ffi::non_empty(&self.cells[from.min(self.cells.len())..])
    }

    pub fn cells_ptr(&self) -> *const sqlbatch_value {
        crate::ffi::non_empty(&self.cells)
    }

    pub fn data_ptr(&self) -> *const u8 {
        crate::ffi::non_empty(&self.bytes)
    }
}

/// Sets the result of `ctx` (a column of a virtual table, a function) to the value of
/// `cell`, whose bytes are at `base + cell.bits`; SQLite copies them.
///
/// # Safety
/// `ctx` is a live result context; a TEXT or BLOB cell's bytes lie at `base + cell.bits`.
pub(crate) unsafe fn result_cell(ctx: *mut ffi::sqlite3_context, cell: &sqlbatch_value, base: *const u8) {
    // SAFETY: the caller's contract.
    unsafe {
        let bytes = || base.add(cell.bits as usize);
        match cell.kind {
            SQLBATCH_INTEGER => ffi::sqlite3_result_int64(ctx, cell.bits as i64),
            SQLBATCH_FLOAT => ffi::sqlite3_result_double(ctx, f64::from_bits(cell.bits)),
            SQLBATCH_TEXT if cell.len == 0 => {
                ffi::sqlite3_result_text(ctx, c"".as_ptr(), 0, ffi::SQLITE_STATIC())
            }
            SQLBATCH_TEXT => ffi::sqlite3_result_text64(
                ctx,
                bytes().cast(),
                u64::from(cell.len),
                ffi::SQLITE_TRANSIENT(),
                ffi::SQLITE_UTF8 as u8,
            ),
            SQLBATCH_BLOB if cell.len == 0 => ffi::sqlite3_result_zeroblob(ctx, 0),
            SQLBATCH_BLOB => {
                ffi::sqlite3_result_blob64(ctx, bytes().cast(), u64::from(cell.len), ffi::SQLITE_TRANSIENT())
            }
            _ => ffi::sqlite3_result_null(ctx),
        }
    }
}
