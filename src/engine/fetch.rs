//! Batched fetch: one call steps up to N rows and leaves every cell in memory the caller
//! reads with plain loads.
//!
//! A batch is an array of `n_rows * n_cols` cells (`sqlbatch_value`, row-major) plus the bytes
//! of its TEXT and BLOB values, either in an arena the statement owns (`sqlbatch_stmt_fetch`)
//! or in a buffer the caller hands in (`sqlbatch_stmt_fetch_into`). Both are reused from batch
//! to batch, so a steady stream of batches allocates nothing.
//!
//! Plain cells (integer, real, NULL, UTF-8 text, blob) are read directly from SQLite's result
//! registers, the row found through the statement's `pResultRow`, by a layout checked at
//! compile time (see `mem.rs`), in the hot loop `fill_direct`; every other cell, and every
//! cell when direct reads are off, through `sqlite3_column_value` and `sqlite3_value_*`: one
//! column lookup per cell instead of one per accessor. Both are safe because a connection is used by one thread at a time (see the
//! thread model in the header).

use std::ffi::c_int;

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::engine::mem::{self, Direct};
use crate::engine::state::{FetchState, Phase};
use crate::engine::value::sqlbatch_value;
use crate::error::Error;
use crate::ffi::non_empty;

use crate::engine::value::{SQLBATCH_FLOAT, SQLBATCH_INTEGER, SQLBATCH_NULL};

/// A batch of rows, written by `sqlbatch_stmt_fetch` and `sqlbatch_stmt_fetch_into`.
///
/// Cell (r, c) is `cells[r * n_cols + c]`; the bytes of a TEXT or BLOB cell `v` are the `v.len`
/// bytes at `data + v.bits` (at `buf + v.bits` after `sqlbatch_stmt_fetch_into`, which leaves
/// `data` NULL). Reading a batch needs no further call. Empty arrays are NULL: `cells` when
/// the batch has no cells (`n_rows * n_cols == 0`), `data` when it has no bytes.
///
/// Lifetime: `cells` (and `data`, for `sqlbatch_stmt_fetch`) belong to the statement and stay
/// valid until the next fetch, bind, reset, bulk write or finalize on it. With
/// `sqlbatch_stmt_fetch_into`, `data` is the caller's buffer and stays the caller's.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sqlbatch_batch {
    /// `n_rows * n_cols` cells, row-major; NULL when there are none.
    pub cells: *const sqlbatch_value,
    /// Base of the TEXT and BLOB bytes; NULL when there are none, and always after
    /// `sqlbatch_stmt_fetch_into` (use its `buf`).
    pub data: *const u8,
    /// Bytes used at `data`. After `SQLBATCH_E_BUFFER_TOO_SMALL`: the bytes the next row needs.
    pub data_len: usize,
    /// Rows in this batch (0 is possible with `SQLBATCH_DONE`).
    pub n_rows: usize,
    /// Columns per row.
    pub n_cols: usize,
    /// Identifies the batch; `sqlbatch_batch_get` uses it to detect a batch read too late.
    pub generation: u64,
}

/// Where a fetch puts a batch's bytes, and their bound.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bound {
    /// The statement's arena (`sqlbatch_stmt_fetch`): the batch ends once it holds this many
    /// bytes or more.
    Bytes(usize),
    /// The caller's buffer (`sqlbatch_stmt_fetch_into`), at most this many bytes.
    Buffer(*mut u8, usize),
}

/// Where a batch's TEXT and BLOB bytes go.
pub(crate) trait Sink {
    fn len(&self) -> usize;
    /// Appends `n` bytes from `p`, returning their offset; `RowError::Full` if they do not
    /// fit, `RowError::NoMem` if the room for them cannot be allocated.
    ///
    /// # Safety
    /// `p` must point to `n` readable bytes.
    unsafe fn push(&mut self, p: *const u8, n: usize) -> Result<usize, RowError>;
    fn truncate(&mut self, len: usize);
    /// Whether a batch holding `cells` cells and these bytes has reached its bound.
    fn full(&self, cells: usize) -> bool;
    /// How many more rows of `ncols` cells, holding no bytes, a batch of `cells` cells can
    /// take before it is `full` (at least 1 if it is not full yet; `usize::MAX` for no bound).
    fn rows_left(&self, cells: usize, ncols: usize) -> usize;
    fn base(&self) -> *const u8;
}

/// Whether a batch of `cells` cells and `bytes` bytes of TEXT and BLOB has reached the byte
/// bound `max` of `sqlbatch_stmt_fetch` (16 bytes a cell, plus the bytes).
#[inline(always)]
pub(crate) fn reached(cells: usize, bytes: usize, max: usize) -> bool {
    cells.saturating_mul(std::mem::size_of::<sqlbatch_value>()).saturating_add(bytes) >= max
}

/// The error of a fetch into a caller's buffer that cannot hold the next row, which needs
/// `need` bytes (`sqlbatch_stmt_fetch_into`'s `SQLBATCH_E_BUFFER_TOO_SMALL`).
pub(crate) fn too_small(need: usize) -> Error {
    Error::new(
        SQLBATCH_E_BUFFER_TOO_SMALL,
        format!("the next row needs {need} bytes of TEXT/BLOB data, more than the buffer holds"),
    )
}

/// Copies `n` bytes from `src` to `dst`: values of up to 16 bytes (most TEXT cells: names,
/// codes, tags) by two overlapping loads and stores, inline, where a call of `memcpy` costs
/// more than the copy; longer ones by `memcpy`. Reads and writes only the `n` bytes.
///
/// # Safety
/// As for `ptr::copy_nonoverlapping(src, dst, n)`.
#[inline(always)]
unsafe fn copy_bytes(src: *const u8, dst: *mut u8, n: usize) {
    // SAFETY: every access lies within the `n` bytes at `src` and at `dst` (the caller's
    // contract); unaligned accesses are used throughout.
    unsafe {
        if n > 16 {
            std::ptr::copy_nonoverlapping(src, dst, n);
        } else if n >= 8 {
            let (a, b) = (src.cast::<u64>().read_unaligned(), src.add(n - 8).cast::<u64>().read_unaligned());
            dst.cast::<u64>().write_unaligned(a);
            dst.add(n - 8).cast::<u64>().write_unaligned(b);
        } else if n >= 4 {
            let (a, b) = (src.cast::<u32>().read_unaligned(), src.add(n - 4).cast::<u32>().read_unaligned());
            dst.cast::<u32>().write_unaligned(a);
            dst.add(n - 4).cast::<u32>().write_unaligned(b);
        } else if n > 0 {
            // 1 to 3 bytes: the first, the middle and the last cover them.
            let (a, b, c) = (*src, *src.add(n / 2), *src.add(n - 1));
            *dst = a;
            *dst.add(n / 2) = b;
            *dst.add(n - 1) = c;
        }
    }
}

/// The statement's own arena: grows as needed; the batch ends once its cells plus bytes reach
/// `max` (so it exceeds `max` by at most its last row).
pub(crate) struct Arena<'a> {
    pub buf: &'a mut Vec<u8>,
    pub max: usize,
}

impl Sink for Arena<'_> {
    fn len(&self) -> usize {
        self.buf.len()
    }
    /// # Safety
    /// As for [`Sink::push`].
    #[inline(always)]
    unsafe fn push(&mut self, p: *const u8, n: usize) -> Result<usize, RowError> {
        // SAFETY: the contract in this function's # Safety section covers each operation.
        unsafe {
            let at = self.buf.len();
            if self.buf.capacity() - at < n {
                // A value too large for the memory left fails the fetch; it must not abort the
                // host program.
                reserve(self.buf, n)?;
            }
            // The room is there; the bytes are written before the length covers them.
            copy_bytes(p, self.buf.as_mut_ptr().add(at), n);
            self.buf.set_len(at + n);
            Ok(at)
        }
    }
    fn truncate(&mut self, len: usize) {
        self.buf.truncate(len)
    }
    #[inline(always)]
    fn full(&self, cells: usize) -> bool {
        reached(cells, self.buf.len(), self.max)
    }
    fn rows_left(&self, cells: usize, ncols: usize) -> usize {
        const CELL: usize = std::mem::size_of::<sqlbatch_value>();
        let used = cells.saturating_mul(CELL).saturating_add(self.buf.len());
        let row = ncols.saturating_mul(CELL).max(1);
        self.max.saturating_sub(used).div_ceil(row)
    }
    fn base(&self) -> *const u8 {
        self.buf.as_ptr()
    }
}

/// Makes room for `n` more bytes in an arena (out of the hot loop).
#[cold]
#[inline(never)]
fn reserve(buf: &mut Vec<u8>, n: usize) -> Result<(), RowError> {
    buf.try_reserve(n).map_err(|_| RowError::NoMem)
}

/// The caller's buffer: a hard bound.
pub(crate) struct Caller {
    pub base: *mut u8,
    pub cap: usize,
    pub len: usize,
}

impl Sink for Caller {
    fn len(&self) -> usize {
        self.len
    }
    /// # Safety
    /// As for [`Sink::push`]; `base` holds `cap` writable bytes.
    unsafe fn push(&mut self, p: *const u8, n: usize) -> Result<usize, RowError> {
        // SAFETY: the contract in this function's # Safety section covers each operation.
        unsafe {
            let at = self.len;
            if n > self.cap - at {
                return Err(RowError::Full);
            }
            copy_bytes(p, self.base.add(at), n);
            self.len += n;
            Ok(at)
        }
    }
    fn truncate(&mut self, len: usize) {
        self.len = len
    }
    #[inline(always)]
    fn full(&self, _cells: usize) -> bool {
        false
    }
    fn rows_left(&self, _cells: usize, _ncols: usize) -> usize {
        usize::MAX
    }
    fn base(&self) -> *const u8 {
        // Not written back: see sqlbatch_stmt_fetch_into.
        std::ptr::null()
    }
}

/// An arena with a hard bound: what a job fetching ahead for `sqlbatch_stmt_fetch_into` fills,
/// so that its batch fits the caller's next buffer as a synchronous fetch's would.
pub(crate) struct Capped<'a> {
    pub buf: &'a mut Vec<u8>,
    pub cap: usize,
}

impl Sink for Capped<'_> {
    fn len(&self) -> usize {
        self.buf.len()
    }
    /// # Safety
    /// As for [`Sink::push`].
    unsafe fn push(&mut self, p: *const u8, n: usize) -> Result<usize, RowError> {
        let at = self.buf.len();
        if n > self.cap - at {
            return Err(RowError::Full);
        }
        if n > 0 {
            self.buf.try_reserve(n).map_err(|_| RowError::NoMem)?;
            // SAFETY: `p` points to `n` readable bytes (the caller's contract).
            self.buf.extend_from_slice(unsafe { std::slice::from_raw_parts(p, n) });
        }
        Ok(at)
    }
    fn truncate(&mut self, len: usize) {
        self.buf.truncate(len)
    }
    #[inline(always)]
    fn full(&self, _cells: usize) -> bool {
        false
    }
    fn rows_left(&self, _cells: usize, _ncols: usize) -> usize {
        usize::MAX
    }
    fn base(&self) -> *const u8 {
        self.buf.as_ptr()
    }
}

/// Why a row could not be added (small and `Copy`, so the hot loop passes it in a register).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum RowError {
    /// The sink is full (caller buffer).
    Full,
    /// Out of memory: SQLite could not produce a value, or the room for it could not be
    /// allocated.
    NoMem,
}

/// Writes the `ncols` cells of the row `raw` is positioned on to `out` (bytes already pushed to
/// `sink` before an error are the caller's to truncate).
///
/// With `stride != 0` (see `mem.rs`), plain cells are read directly from SQLite's result
/// registers; otherwise, and for any other cell, through the public API.
///
/// # Safety
/// `raw` must be a statement positioned on a row with `ncols` columns; `out` must have
/// room for `ncols` cells; a non-zero `stride` must come from `mem::stride`.
#[inline(always)]
unsafe fn push_row<S: Sink>(
    raw: *mut ffi::sqlite3_stmt,
    ncols: usize,
    out: *mut sqlbatch_value,
    sink: &mut S,
    stride: usize,
) -> Result<(), RowError> {
    // SAFETY: the contract in this function's # Safety section covers each operation.
    unsafe {
        if stride != 0 && ncols != 0 {
            let base = ffi::sqlite3_column_value(raw, 0) as *const u8;
            let (mut m, mut cell, end) = (base, out, out.add(ncols));
            while cell < end {
                match mem::read_direct(m) {
                    Direct::Int(i) => write_cell(cell, i as u64, 0, SQLBATCH_INTEGER),
                    Direct::Real(r) => write_cell(cell, r.to_bits(), 0, SQLBATCH_FLOAT),
                    Direct::Null => write_cell(cell, 0, 0, SQLBATCH_NULL),
                    Direct::Bytes(kind, p, n) => {
                        let at = sink.push(p, n)?;
                        write_cell(cell, at as u64, n as u32, kind);
                    }
                    Direct::Other => {
                        let c = cell.offset_from(out) as c_int;
                        api_cell(ffi::sqlite3_column_value(raw, c), cell, sink)?
                    }
                }
                m = m.add(stride);
                cell = cell.add(1);
            }
        } else {
            for c in 0..ncols {
                api_cell(ffi::sqlite3_column_value(raw, c as c_int), out.add(c), sink)?;
            }
        }
        Ok(())
    }
}

/// Writes the cell for value `v` through the public API.
///
/// # Safety
/// `v` must be a live value of a statement positioned on a row; `out` writable.
#[inline(always)]
unsafe fn api_cell<S: Sink>(
    v: *mut ffi::sqlite3_value,
    out: *mut sqlbatch_value,
    sink: &mut S,
) -> Result<(), RowError> {
    // SAFETY: the contract in this function's # Safety section covers each operation.
    unsafe {
        let kind = ffi::sqlite3_value_type(v);
        if kind == ffi::SQLITE_INTEGER {
            write_cell(out, ffi::sqlite3_value_int64(v) as u64, 0, SQLBATCH_INTEGER);
        } else if kind == ffi::SQLITE_FLOAT {
            write_cell(out, ffi::sqlite3_value_double(v).to_bits(), 0, SQLBATCH_FLOAT);
        } else if kind == ffi::SQLITE_TEXT || kind == ffi::SQLITE_BLOB {
            let p = if kind == ffi::SQLITE_TEXT {
                ffi::sqlite3_value_text(v)
            } else {
                ffi::sqlite3_value_blob(v).cast()
            };
            let n = ffi::sqlite3_value_bytes(v) as usize;
            if p.is_null() && n > 0 {
                return Err(RowError::NoMem);
            }
            let at = sink.push(p, n)?;
            write_cell(out, at as u64, n as u32, kind as u8);
        } else {
            write_cell(out, 0, 0, SQLBATCH_NULL);
        }
        Ok(())
    }
}

/// Writes one cell as two 8-byte stores (the padding is written as zeros with the kind).
///
/// # Safety
/// `out` must be valid for a write of one cell.
#[inline(always)]
unsafe fn write_cell(out: *mut sqlbatch_value, bits: u64, len: u32, kind: u8) {
    // SAFETY: the contract in this function's # Safety section covers each operation.
    unsafe {
        if cfg!(target_endian = "little") {
            let words = out.cast::<u64>();
            words.write(bits);
            words.add(1).write(len as u64 | (kind as u64) << 32);
        } else {
            out.write(sqlbatch_value { bits, len, kind, _pad: [0; 3] });
        }
    }
}

/// Makes room for `rows` more rows of `ncols` cells, at most 1024 rows at a time (out of the
/// hot loop); false if it cannot be allocated.
#[cold]
#[inline(never)]
fn grow(cells: &mut Vec<sqlbatch_value>, ncols: usize, rows: usize) -> bool {
    cells.try_reserve(ncols.saturating_mul(rows.clamp(1, 1024))).is_ok()
}

/// The bytes the TEXT and BLOB values of the current row take.
///
/// # Safety
/// `raw` must be a statement positioned on a row of `ncols` columns.
unsafe fn row_bytes(raw: *mut ffi::sqlite3_stmt, ncols: usize) -> usize {
    // SAFETY: the contract in this function's # Safety section covers each operation.
    unsafe {
        (0..ncols)
            .map(|c| {
                let v = ffi::sqlite3_column_value(raw, c as c_int);
                match ffi::sqlite3_value_type(v) {
                    ffi::SQLITE_TEXT | ffi::SQLITE_BLOB => ffi::sqlite3_value_bytes(v) as usize,
                    _ => 0,
                }
            })
            .sum()
    }
}

/// The error of a row that could not be read into the batch for lack of memory (SQLite could
/// not produce a value, or the batch could not grow): the fetch fails, the host lives.
#[cold]
fn out_of_memory() -> Error {
    Error::new(ffi::SQLITE_NOMEM, "out of memory reading a row into the batch")
}

/// Why a fill produced no batch.
pub(crate) enum Stop {
    Error(Error),
    /// The caller's buffer cannot hold the next row, which needs this many bytes.
    TooSmall(usize),
}

impl From<Error> for Stop {
    fn from(e: Error) -> Self {
        Stop::Error(e)
    }
}

/// What a fill produced.
#[derive(Clone, Copy)]
pub(crate) struct Filled {
    pub status: i32,
    pub rows: usize,
    pub ncols: usize,
}

/// Why [`fill_direct`] stopped.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FastStop {
    /// It reached its row limit or the byte bound; positioned on a row not yet taken.
    Limit,
    /// The row it is positioned on has a cell that must be read through the API.
    Slow,
    /// The statement finished.
    Done,
    /// A step failed with this code.
    Failed(c_int),
}

/// The hot loop of the common case, direct reads: takes up to `max_rows` whole rows, stepping
/// after each, while every cell reads directly, its bytes fit in `sink`, and the batch
/// (`cells_before` cells so far, plus what this adds) has not reached its bound. The first row
/// of a batch is always taken if it fits. Kept apart from [`fill`] so that its few live values
/// stay in registers. Returns the rows taken and why it stopped.
///
/// # Safety
/// `raw` is positioned on a row of `ncols > 0` columns, direct reads are on (see `mem.rs`);
/// `out` has room for `max_rows * ncols` cells.
#[inline(never)]
unsafe fn fill_direct<S: Sink>(
    raw: *mut ffi::sqlite3_stmt,
    ncols: usize,
    mut out: *mut sqlbatch_value,
    max_rows: usize,
    sink: &mut S,
    cells_before: usize,
) -> (usize, FastStop) {
    // SAFETY: the contract in this function's # Safety section covers each operation.
    unsafe {
        let mut rows = 0;
        // Rows that certainly fit before the byte bound is reached, re-checked exactly once that
        // many rows are taken, or as soon as a row brings bytes along.
        let mut limit = 0;
        loop {
            if rows >= limit {
                let cells = cells_before + rows * ncols;
                if rows == max_rows || (cells > 0 && sink.full(cells)) {
                    return (rows, FastStop::Limit);
                }
                limit = rows.saturating_add(sink.rows_left(cells, ncols).max(1)).min(max_rows);
                if cells == 0 {
                    limit = limit.max(1);
                }
            }
            let mark = sink.len();
            let mut m = mem::row_address(raw);
            if m.is_null() {
                return (rows, FastStop::Slow);
            }
            let end = out.add(ncols);
            let mut cell = out;
            while cell < end {
                match mem::read_direct(m) {
                    Direct::Int(i) => write_cell(cell, i as u64, 0, SQLBATCH_INTEGER),
                    Direct::Real(r) => write_cell(cell, r.to_bits(), 0, SQLBATCH_FLOAT),
                    Direct::Null => write_cell(cell, 0, 0, SQLBATCH_NULL),
                    Direct::Bytes(kind, p, n) => match sink.push(p, n) {
                        Ok(at) => {
                            write_cell(cell, at as u64, n as u32, kind);
                            // The bytes count toward the bound: check it before the next row.
                            limit = 0;
                        }
                        Err(_) => {
                            // Does not fit: the general path decides what happens to this row.
                            sink.truncate(mark);
                            return (rows, FastStop::Slow);
                        }
                    },
                    Direct::Other => {
                        sink.truncate(mark);
                        return (rows, FastStop::Slow);
                    }
                }
                m = m.add(mem::STRIDE);
                cell = cell.add(1);
            }
            out = end;
            rows += 1;
            match ffi::sqlite3_step(raw) {
                ffi::SQLITE_ROW => {}
                ffi::SQLITE_DONE => return (rows, FastStop::Done),
                rc => return (rows, FastStop::Failed(rc)),
            }
        }
    }
}

/// Steps `raw` once: true on a row; false when done or failed, recorded in `st`.
///
/// # Safety
/// `raw` must be a live statement of `db`, used by this thread only.
#[inline(always)]
unsafe fn step(st: &mut FetchState, db: *mut ffi::sqlite3, raw: *mut ffi::sqlite3_stmt) -> bool {
    // SAFETY: the contract in this function's # Safety section covers each operation.
    unsafe {
        let rc = ffi::sqlite3_step(raw);
        if rc == ffi::SQLITE_ROW {
            return true;
        }
        stopped(st, db, rc);
        false
    }
}

/// Records why stepping stopped: the end of the result (inline: the end of every write), or
/// an error.
///
/// # Safety
/// `db` must be open.
#[inline(always)]
unsafe fn stopped(st: &mut FetchState, db: *mut ffi::sqlite3, rc: c_int) {
    if rc == ffi::SQLITE_DONE {
        st.phase = Phase::Done;
    } else {
        // SAFETY: the caller's contract.
        unsafe { failed(st, db, rc) }
    }
}

/// Records the error of a step that returned `rc`.
///
/// # Safety
/// `db` must be open.
#[cold]
#[inline(never)]
unsafe fn failed(st: &mut FetchState, db: *mut ffi::sqlite3, rc: c_int) {
    // SAFETY: the caller's contract.
    st.fail(&unsafe { Error::from_db(db, rc) });
}

/// Steps `raw` and appends up to `max_rows` rows to `st.cells` and `sink`.
///
/// After the last row the statement is stepped once more, so a result that ends with the
/// batch is reported `SQLBATCH_DONE` in the same call; the row found instead is kept pending.
///
/// # Safety
/// `raw` must be NULL or a live statement of `db` that `st` belongs to, used by this
/// thread only; a non-zero `stride` must come from `mem.rs`.
#[inline(always)]
pub(crate) unsafe fn fill<S: Sink>(
    st: &mut FetchState,
    db: *mut ffi::sqlite3,
    raw: *mut ffi::sqlite3_stmt,
    max_rows: usize,
    sink: &mut S,
    mut stride: usize,
) -> Result<Filled, Stop> {
    // SAFETY: the contract in this function's # Safety section covers each operation.
    unsafe {
        st.cells.clear();
        st.window = 0;
        if raw.is_null() {
            st.phase = Phase::Done;
            return Ok(Filled { status: SQLBATCH_DONE, rows: 0, ncols: 0 });
        }
        let mut ncols = ffi::sqlite3_column_count(raw) as usize;
        match st.phase {
            Phase::Done => return Ok(Filled { status: SQLBATCH_DONE, rows: 0, ncols }),
            Phase::Failed => {
                let e = st
                    .failure
                    .as_deref()
                    .cloned()
                    .unwrap_or_else(|| Error::new(ffi::SQLITE_ERROR, "statement failed"));
                return Err(e.into());
            }
            _ => {}
        }
        if st.phase != Phase::Pending {
            if !step(st, db, raw) {
                return match st.phase {
                    Phase::Done => Ok(Filled { status: SQLBATCH_DONE, rows: 0, ncols }),
                    _ => Err(st
                        .failure
                        .as_deref()
                        .cloned()
                        .unwrap_or_else(|| Error::new(ffi::SQLITE_ERROR, "step failed"))
                        .into()),
                };
            }
            // A statement re-prepared by its first step may have changed shape.
            ncols = ffi::sqlite3_column_count(raw) as usize;
        }
        // Direct reads take column c at pResultRow + c * STRIDE (the layout is a compile-time
        // fact, see mem.rs); that the API reads the same row is SQLite's behaviour, checked on
        // a statement's row (see `mem::api_reads_result_row`).
        if stride != 0 && ncols != 0 && !mem::api_reads_result_row(raw) {
            stride = 0;
        }
        // Invariant at the top of the loop: positioned on a row the caller has not received.
        let mut rows = 0;
        // Cells are written through a raw cursor; `st.cells` gets its length once, at the end
        // (every early return below happens with no rows written).
        let (mut base, mut room) = (st.cells.as_mut_ptr(), st.cells.capacity());
        let status = loop {
            if rows == max_rows || (rows > 0 && sink.full(rows * ncols)) {
                st.phase = Phase::Pending;
                break SQLBATCH_ROW;
            }
            if room < (rows + 1) * ncols {
                st.cells.set_len(rows * ncols);
                if !grow(&mut st.cells, ncols, max_rows - rows) {
                    let e = out_of_memory();
                    st.fail(&e);
                    if rows == 0 {
                        return Err(e.into());
                    }
                    break SQLBATCH_ROW;
                }
                (base, room) = (st.cells.as_mut_ptr(), st.cells.capacity());
            }
            if stride != 0 && ncols != 0 {
                // The rows left to take, or as many as the cells' room holds (a division,
                // tens of cycles, only when the room is what limits them).
                let (left, free) = (max_rows - rows, room - rows * ncols);
                let fit = if left.saturating_mul(ncols) <= free { left } else { free / ncols };
                let (n, why) = fill_direct(raw, ncols, base.add(rows * ncols), fit, sink, rows * ncols);
                rows += n;
                match why {
                    FastStop::Limit => continue,
                    FastStop::Slow => {} // this row goes through the general path below
                    FastStop::Done => {
                        st.phase = Phase::Done;
                        break SQLBATCH_DONE;
                    }
                    FastStop::Failed(rc) => {
                        // At least one row was taken before the step that failed.
                        stopped(st, db, rc);
                        break SQLBATCH_ROW;
                    }
                }
            }
            let byte_mark = sink.len();
            match push_row(raw, ncols, base.add(rows * ncols), sink, stride) {
                Ok(()) => {}
                Err(RowError::Full) => {
                    // The caller's buffer cannot take this row: keep it for the next batch.
                    sink.truncate(byte_mark);
                    st.phase = Phase::Pending;
                    if rows == 0 {
                        return Err(Stop::TooSmall(row_bytes(raw, ncols)));
                    }
                    break SQLBATCH_ROW;
                }
                Err(RowError::NoMem) => {
                    sink.truncate(byte_mark);
                    let e = out_of_memory();
                    st.fail(&e);
                    if rows == 0 {
                        return Err(e.into());
                    }
                    break SQLBATCH_ROW;
                }
            }
            rows += 1;
            if !step(st, db, raw) {
                // At the end, DONE; after an error, the rows collected so far go out now and the
                // error comes with the next fetch.
                break if st.phase == Phase::Done { SQLBATCH_DONE } else { SQLBATCH_ROW };
            }
        };
        // The first rows * ncols cells were written above, within the capacity.
        st.cells.set_len(rows * ncols);
        Ok(Filled { status, rows, ncols })
    }
}

/// Shared body of the two fetch entry points: fills `sink` and describes the batch in `out`.
///
/// # Safety
/// As for [`fill`].
unsafe fn fetch_with<S: Sink>(
    st: &mut FetchState,
    db: *mut ffi::sqlite3,
    raw: *mut ffi::sqlite3_stmt,
    max_rows: usize,
    sink: &mut S,
    out: &mut sqlbatch_batch,
    stride: usize,
) -> Result<i32, Error> {
    // SAFETY: the contract in this function's # Safety section covers each operation.
    unsafe {
        if max_rows == 0 {
            return Err(Error::new(SQLBATCH_E_RANGE, "max_rows must be at least 1"));
        }
        st.generation += 1;
        let result = fill(st, db, raw, max_rows, sink, stride);
        let batch = |data_len, n_rows, n_cols| sqlbatch_batch {
            cells: non_empty(&st.cells),
            data: if sink.len() == 0 { std::ptr::null() } else { sink.base() },
            data_len,
            n_rows,
            n_cols,
            generation: st.generation,
        };
        match result {
            Ok(f) => {
                *out = batch(sink.len(), f.rows, f.ncols);
                Ok(f.status)
            }
            Err(Stop::Error(e)) => Err(e),
            Err(Stop::TooSmall(need)) => {
                *out = batch(need, 0, 0);
                Err(too_small(need))
            }
        }
    }
}

/// Empties the arena for the next batch, giving back memory a huge value once needed but
/// keeping what the bound `max_bytes` allows.
pub(crate) fn recycle_arena(arena: &mut Vec<u8>, max_bytes: usize) {
    arena.clear();
    let keep = max_bytes.saturating_mul(2).max(1 << 16);
    if arena.capacity() > keep {
        arena.shrink_to(keep);
    }
}

/// Fetches the next batch on this thread.
///
/// # Safety
/// As for [`fill`]; a `Bound::Buffer` holds that many writable bytes.
pub(crate) unsafe fn fetch_now(
    st: &mut FetchState,
    db: *mut ffi::sqlite3,
    raw: *mut ffi::sqlite3_stmt,
    max_rows: usize,
    bound: Bound,
    out: &mut sqlbatch_batch,
    stride: usize,
) -> Result<i32, Error> {
    // SAFETY: the caller's contract.
    unsafe {
        match bound {
            Bound::Bytes(max) => {
                let mut arena = std::mem::take(&mut st.arena);
                recycle_arena(&mut arena, max);
                let result =
                    fetch_with(st, db, raw, max_rows, &mut Arena { buf: &mut arena, max }, out, stride);
                st.arena = arena;
                result
            }
            Bound::Buffer(base, cap) => {
                fetch_with(st, db, raw, max_rows, &mut Caller { base, cap, len: 0 }, out, stride)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::copy_bytes;

    #[test]
    fn copy_bytes_copies_exactly_n_bytes() {
        let src: Vec<u8> = (1..=40).collect();
        for n in 0..=40 {
            let mut dst = [0u8; 48];
            // SAFETY: `src` holds 40 bytes, `dst` 48, apart.
            unsafe { copy_bytes(src.as_ptr(), dst.as_mut_ptr().add(3), n) };
            assert_eq!(&dst[3..3 + n], &src[..n], "n = {n}");
            assert!(dst[..3].iter().chain(&dst[3 + n..]).all(|&b| b == 0), "n = {n} wrote outside");
        }
    }
}
