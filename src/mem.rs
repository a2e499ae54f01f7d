//! Direct reads of SQLite's result values, verified at run time.
//!
//! SQLite keeps the columns of the current result row in an array of `Mem` structs (its
//! `sqlite3_value`) and hands out `&pResultRow[i]` from `sqlite3_column_value`. Going through
//! the public API costs three function calls per cell (`sqlite3_column_value`,
//! `sqlite3_value_type`, `sqlite3_value_int64`), each with its own checks, more than SQLite
//! spends stepping a narrow row. For the plain cases (an integer, a real, NULL, UTF-8 text, a
//! blob without a zero-fill tail), the fields of `Mem` say everything directly: the value at
//! offset 0, `z` at 8, `n` at 16, `flags` at 20, `enc` at 22 on 64-bit targets. sqlbatch
//! reads them directly, and uses the public API for every other case.
//!
//! The address of column 0 is the statement's `pResultRow` field (a `Vdbe` is the
//! `sqlite3_stmt`), which `OP_ResultRow` sets on every step; reading that word directly saves
//! the one `sqlite3_column_value` call per row (with its mutex calls, about 60 instructions:
//! more than the rest of the batch loop) that would otherwise remain. When that field is not
//! found, the row's address comes from `sqlite3_column_value`.
//!
//! This relies on the layout of a struct SQLite does not publish, so it is checked, not
//! assumed: the first time it is needed, `stride` runs probe queries through the public API
//! and compares every field it would read, the distance between consecutive columns, and the
//! row address at the `pResultRow` offset on every row of two statements, with what the API
//! reports. If anything differs (another SQLite version, another target), direct
//! reads stay off and every cell goes through the API. Tests assert that the probe passes for
//! the bundled SQLite and that both paths read the same values. Set the environment variable
//! `SQLBATCH_API_READS=1` to turn direct reads off.

use std::ffi::c_int;
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

use libsqlite3_sys as ffi;

pub(crate) const OFF_Z: usize = 8;
pub(crate) const OFF_N: usize = 16;
pub(crate) const OFF_FLAGS: usize = 20;
pub(crate) const OFF_ENC: usize = 22;

pub(crate) const MEM_NULL: u16 = 0x0001;
pub(crate) const MEM_STR: u16 = 0x0002;
pub(crate) const MEM_INT: u16 = 0x0004;
pub(crate) const MEM_REAL: u16 = 0x0008;
pub(crate) const MEM_BLOB: u16 = 0x0010;
pub(crate) const MEM_AFF_MASK: u16 = 0x003f;
pub(crate) const MEM_ZERO: u16 = 0x0400;
pub(crate) const ENC_UTF8: u8 = 1;

const UNPROBED: usize = usize::MAX;
/// The distance in bytes between consecutive result columns, or 0 when direct reads are off.
static STRIDE: AtomicUsize = AtomicUsize::new(UNPROBED);
/// The offset of `pResultRow` in the statement, or 0 when it was not found. Stored before
/// `STRIDE`; a thread that sees a stride but still 0 here just uses the API for the address.
static RESULT_ROW: AtomicUsize = AtomicUsize::new(0);

/// The stride for direct reads, or 0 to use the public API for every cell.
#[inline]
pub(crate) fn stride() -> usize {
    match STRIDE.load(Ordering::Relaxed) {
        UNPROBED => {
            let s =
                if std::env::var_os("SQLBATCH_API_READS").is_some_and(|v| v != "0") { 0 } else { probe() };
            STRIDE.store(s, Ordering::Relaxed);
            s
        }
        s => s,
    }
}

/// What the batch loop needs to read rows directly.
#[derive(Clone, Copy)]
pub(crate) struct Layout {
    /// From [`stride`], not 0.
    pub stride: usize,
    /// From [`result_row_offset`]: 0 to get the row's address from the API.
    pub row_at: usize,
}

/// The offset of the current row's address (`pResultRow`) in a statement, 0 if unknown; only
/// meaningful while [`stride`] is not 0.
#[inline]
pub(crate) fn result_row_offset() -> usize {
    RESULT_ROW.load(Ordering::Relaxed)
}

/// The address of column 0 of the row `stmt` is positioned on (NULL if there is none), read
/// at `offset` from [`result_row_offset`], or through the API when that is 0.
///
/// # Safety
/// `stmt` must be a live statement, and a non-zero `offset` must come from the probe.
#[inline(always)]
pub(crate) unsafe fn row_address(stmt: *mut ffi::sqlite3_stmt, offset: usize) -> *const u8 {
    if offset != 0 {
        read(stmt as *const u8, offset)
    } else {
        ffi::sqlite3_column_value(stmt, 0) as *const u8
    }
}

/// Whether direct reads are on (after probing if needed).
#[doc(hidden)]
pub fn direct_reads_enabled() -> bool {
    stride() != 0
}

/// Turns direct reads off (`false`) or back to what the probe found (`true`); for tests that
/// compare both paths.
#[doc(hidden)]
pub fn set_direct_reads(on: bool) {
    STRIDE.store(if on { probe() } else { 0 }, Ordering::Relaxed);
}

/// Whether the row address is read from the statement (after probing if needed); for tests.
#[doc(hidden)]
pub fn direct_row_address_enabled() -> bool {
    stride() != 0 && result_row_offset() != 0
}

unsafe fn read<T: Copy>(m: *const u8, off: usize) -> T {
    m.add(off).cast::<T>().read_unaligned()
}

/// Checks the layout against the public API; returns the stride, or 0 if anything differs.
fn probe() -> usize {
    if !(cfg!(target_pointer_width = "64") && cfg!(target_endian = "little")) {
        return 0;
    }
    // SAFETY: plain use of the public API on a private in-memory connection; the direct
    // reads stay inside the Mem structs the API returned pointers to.
    unsafe {
        let mut db = ptr::null_mut();
        let flags = ffi::SQLITE_OPEN_READWRITE | ffi::SQLITE_OPEN_MEMORY | ffi::SQLITE_OPEN_NOMUTEX;
        if ffi::sqlite3_open_v2(c":memory:".as_ptr(), &mut db, flags, ptr::null()) != ffi::SQLITE_OK {
            ffi::sqlite3_close(db);
            return 0;
        }
        let sql =
            c"SELECT -1234567890123, 2.5, 'h\xc3\xa9llo', x'00ff10', NULL, 9223372036854775807, '', x''";
        let mut stmt = ptr::null_mut();
        let mut stride = 0;
        let mut offset = 0;
        if ffi::sqlite3_prepare_v2(db, sql.as_ptr(), -1, &mut stmt, ptr::null_mut()) == ffi::SQLITE_OK
            && ffi::sqlite3_step(stmt) == ffi::SQLITE_ROW
        {
            stride = check_row(stmt);
            offset = find_result_row(db, stmt);
        }
        ffi::sqlite3_finalize(stmt);
        ffi::sqlite3_close(db);
        RESULT_ROW.store(if stride != 0 { offset } else { 0 }, Ordering::Relaxed);
        stride
    }
}

/// The set of words (bit i: bytes 8i..8i+8) of `stmt` that hold the address of column 0,
/// among words 1 to 31 (bytes 8 to 255; word 0 is the connection, and a `Vdbe` is larger than
/// 256 bytes in every SQLite 3 version).
unsafe fn row_words(stmt: *mut ffi::sqlite3_stmt) -> u32 {
    let row = ffi::sqlite3_column_value(stmt, 0) as usize;
    (1..32).filter(|&i| read::<usize>(stmt as *const u8, i * 8) == row).fold(0, |m, i| m | 1 << i)
}

/// The offset of `pResultRow` in a statement, or 0: the one word that holds the address of
/// column 0 in `first` (positioned on a row) and on every row of a second statement, alive at
/// the same time (so its rows are elsewhere), whose rows come from two different result
/// instructions.
///
/// # Safety
/// `db` is an open connection; `first` a statement of it positioned on a row.
unsafe fn find_result_row(db: *mut ffi::sqlite3, first: *mut ffi::sqlite3_stmt) -> usize {
    let sql = c"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5)
        SELECT x, 'a' FROM c UNION ALL SELECT 'b', x * 2.5 FROM c";
    let mut stmt = ptr::null_mut();
    if ffi::sqlite3_prepare_v2(db, sql.as_ptr(), -1, &mut stmt, ptr::null_mut()) != ffi::SQLITE_OK {
        return 0;
    }
    let mut candidates = row_words(first);
    let first_row = ffi::sqlite3_column_value(first, 0);
    let (mut rows, mut distinct) = (0, true);
    while ffi::sqlite3_step(stmt) == ffi::SQLITE_ROW {
        candidates &= row_words(stmt);
        distinct &= ffi::sqlite3_column_value(stmt, 0) != first_row;
        rows += 1;
    }
    let done = ffi::sqlite3_finalize(stmt) == ffi::SQLITE_OK;
    if done && distinct && rows == 10 && candidates.count_ones() == 1 {
        candidates.trailing_zeros() as usize * 8
    } else {
        0
    }
}

/// Compares direct reads of every column of the current row of `stmt` with the public API.
unsafe fn check_row(stmt: *mut ffi::sqlite3_stmt) -> usize {
    let n = ffi::sqlite3_column_count(stmt);
    let base = ffi::sqlite3_column_value(stmt, 0) as *const u8;
    let second = ffi::sqlite3_column_value(stmt, 1) as *const u8;
    let stride = (second as usize).wrapping_sub(base as usize);
    if !(32..=256).contains(&stride) || stride % 8 != 0 {
        return 0;
    }
    for c in 0..n {
        let v = ffi::sqlite3_column_value(stmt, c);
        let m = v as *const u8;
        if m != base.add(c as usize * stride) || !agrees(v, m) {
            return 0;
        }
    }
    stride
}

/// Whether the direct reading of `m` agrees with the API's view of the same value `v`.
unsafe fn agrees(v: *mut ffi::sqlite3_value, m: *const u8) -> bool {
    let flags: u16 = read(m, OFF_FLAGS);
    match (flags & MEM_AFF_MASK, ffi::sqlite3_value_type(v)) {
        (MEM_INT, ffi::SQLITE_INTEGER) => read::<i64>(m, 0) == ffi::sqlite3_value_int64(v),
        (MEM_REAL, ffi::SQLITE_FLOAT) => {
            read::<f64>(m, 0).to_bits() == ffi::sqlite3_value_double(v).to_bits()
        }
        (MEM_NULL, ffi::SQLITE_NULL) => true,
        (MEM_STR, ffi::SQLITE_TEXT) => {
            let (z, n): (*const u8, c_int) = (read(m, OFF_Z), read(m, OFF_N));
            let api = ffi::sqlite3_value_text(v);
            read::<u8>(m, OFF_ENC) == ENC_UTF8
                && n == ffi::sqlite3_value_bytes(v)
                && (n == 0 || bytes_eq(z, api, n))
        }
        (MEM_BLOB, ffi::SQLITE_BLOB) => {
            let (z, n): (*const u8, c_int) = (read(m, OFF_Z), read(m, OFF_N));
            let api = ffi::sqlite3_value_blob(v).cast::<u8>();
            flags & MEM_ZERO == 0 && n == ffi::sqlite3_value_bytes(v) && (n == 0 || bytes_eq(z, api, n))
        }
        _ => false,
    }
}

unsafe fn bytes_eq(a: *const u8, b: *const u8, n: c_int) -> bool {
    !a.is_null()
        && !b.is_null()
        && std::slice::from_raw_parts(a, n as usize) == std::slice::from_raw_parts(b, n as usize)
}

/// One cell read directly from the `Mem` at `m`: what `push_row` needs.
pub(crate) enum Direct {
    Int(i64),
    Real(f64),
    Null,
    /// TEXT (UTF-8) or BLOB bytes.
    Bytes(u8, *const u8, usize),
    /// Anything else: read it through the API.
    Other,
}

/// Reads the `Mem` at `m` directly, for the cases the probe verified.
///
/// # Safety
/// `m` must be the address of a result column of a statement positioned on a row, and the
/// probe must have passed.
#[inline(always)]
pub(crate) unsafe fn read_direct(m: *const u8) -> Direct {
    let flags: u16 = read(m, OFF_FLAGS);
    if flags & MEM_AFF_MASK == MEM_INT {
        // The most common cell by far gets a straight path of its own.
        return Direct::Int(read(m, 0));
    }
    read_other(m, flags)
}

#[inline(always)]
unsafe fn read_other(m: *const u8, flags: u16) -> Direct {
    match flags & MEM_AFF_MASK {
        MEM_STR if read::<u8>(m, OFF_ENC) == ENC_UTF8 => {
            Direct::Bytes(crate::codes::SQLBATCH_TEXT, read(m, OFF_Z), read::<c_int>(m, OFF_N) as usize)
        }
        MEM_REAL => Direct::Real(read(m, 0)),
        MEM_NULL => Direct::Null,
        MEM_BLOB if flags & MEM_ZERO == 0 => {
            Direct::Bytes(crate::codes::SQLBATCH_BLOB, read(m, OFF_Z), read::<c_int>(m, OFF_N) as usize)
        }
        _ => Direct::Other,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_probe_passes_for_the_bundled_sqlite() {
        assert!(super::probe() >= 48, "direct reads would be off: the Mem layout check failed");
        // pResultRow in SQLite 3.54's Vdbe, on 64-bit targets.
        assert_eq!(super::result_row_offset(), 160, "the row address would come from the API");
    }
}
