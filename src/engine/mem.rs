//! Direct reads of SQLite's result values, by a layout the compiler checked.
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
//! more than the rest of the batch loop) that would otherwise remain.
//!
//! SQLite does not publish these structs, so the layout is a compile-time fact, not an
//! assumption: every offset, size and flag value used here comes from one table in build.rs,
//! which generates these constants and has the C compiler assert each of them, with the
//! fields' types and the flag bits direct reads rely on (src/layout_check.c), against the very
//! amalgamation libsqlite3-sys compiles and links, with the same `-D` flags. A mismatch fails
//! the build. Direct reads are compiled in (`cfg(sqlbatch_direct_reads)`, set by build.rs)
//! only on 64-bit little-endian targets, where that check runs; elsewhere every cell goes
//! through the API. What the compiler cannot see, that `sqlite3_column_value(stmt, i)` is
//! `&pResultRow[i]`, the fetch loop checks on column 0 (until it has held once: it is the
//! same for every statement), and tests compare both
//! paths on every kind of value. A connection opened with `SQLBATCH_OPEN_FULLMUTEX` always
//! reads through the API.

use std::ffi::c_int;
use std::sync::atomic::{AtomicBool, Ordering};

use libsqlite3_sys as ffi;

// OFF_VALUE, OFF_Z, OFF_N, OFF_FLAGS, OFF_ENC, STRIDE (= sizeof(Mem)), OFF_RESULT_ROW, the
// MEM_* flags and ENC_UTF8, from build.rs's LAYOUT table.
#[allow(dead_code)]
mod layout {
    include!(concat!(env!("OUT_DIR"), "/layout.rs"));
}
#[doc(hidden)]
pub use layout::CHECKED_FLAG_SETS;
pub(crate) use layout::*;

/// Whether direct reads are compiled in: build.rs checked the layout for this target.
pub(crate) const DIRECT_READS: bool = cfg!(sqlbatch_direct_reads);

/// Set by [`set_direct_reads`]`(false)`, for tests only.
static FORCE_API: AtomicBool = AtomicBool::new(false);

/// The distance in bytes between consecutive result columns ([`STRIDE`]) for direct reads,
/// or 0 to use the public API for every cell.
#[inline]
pub(crate) fn stride() -> usize {
    if direct_reads_enabled() {
        STRIDE
    } else {
        0
    }
}

/// The address of column 0 of the row `stmt` is positioned on (NULL if there is none): its
/// `pResultRow`.
///
/// # Safety
/// `stmt` must be a live statement, and direct reads compiled in ([`DIRECT_READS`]).
#[inline(always)]
pub(crate) unsafe fn row_address(stmt: *mut ffi::sqlite3_stmt) -> *const u8 {
    // SAFETY: `stmt` is a live Vdbe, whose pResultRow lies at OFF_RESULT_ROW (build.rs).
    unsafe { read(stmt as *const u8, OFF_RESULT_ROW) }
}

/// Set once [`api_reads_result_row`] has seen it hold.
static RESULT_ROW_CHECKED: AtomicBool = AtomicBool::new(false);

/// Whether `sqlite3_column_value(stmt, 0)` is the statement's `pResultRow` (see the module's
/// documentation): SQLite's code decides it, the same for every statement positioned on a row,
/// so it is asked (a call of about 50 instructions) until it has held once in the process.
///
/// # Safety
/// `stmt` must be a live statement positioned on a row of at least one column, and direct
/// reads compiled in ([`DIRECT_READS`]).
#[inline]
pub(crate) unsafe fn api_reads_result_row(stmt: *mut ffi::sqlite3_stmt) -> bool {
    if RESULT_ROW_CHECKED.load(Ordering::Relaxed) {
        return true;
    }
    // SAFETY: the caller's contract.
    let same = unsafe { row_address(stmt) == ffi::sqlite3_column_value(stmt, 0) as *const u8 };
    if same {
        RESULT_ROW_CHECKED.store(true, Ordering::Relaxed);
    }
    same
}

/// Whether fetches read plain cells directly (on connections without FULLMUTEX).
#[doc(hidden)]
pub fn direct_reads_enabled() -> bool {
    DIRECT_READS && !FORCE_API.load(Ordering::Relaxed)
}

/// For tests that compare both paths: `false` makes every fetch of the process read through
/// the API, `true` (the default) direct reads again where they are compiled in.
#[doc(hidden)]
pub fn set_direct_reads(on: bool) {
    FORCE_API.store(!on, Ordering::Relaxed);
}

/// # Safety
/// `m + off` must hold a readable `T`.
#[inline(always)]
unsafe fn read<T: Copy>(m: *const u8, off: usize) -> T {
    // SAFETY: the caller's contract.
    unsafe { m.add(off).cast::<T>().read_unaligned() }
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

/// Reads the `Mem` at `m` directly, for the cases the layout check covers.
///
/// # Safety
/// `m` must be the address of a result column of a statement positioned on a row, and direct
/// reads compiled in ([`DIRECT_READS`]).
#[inline(always)]
pub(crate) unsafe fn read_direct(m: *const u8) -> Direct {
    // SAFETY: `m` is a Mem whose field offsets build.rs checked (the caller's contract).
    unsafe {
        let flags: u16 = read(m, OFF_FLAGS);
        if flags & MEM_AFF_MASK == MEM_INT {
            // The most common cell by far gets a straight path of its own.
            return Direct::Int(read(m, OFF_VALUE));
        }
        read_other(m, flags)
    }
}

/// # Safety
/// As for [`read_direct`]; `flags` are `m`'s.
#[inline(always)]
unsafe fn read_other(m: *const u8, flags: u16) -> Direct {
    // SAFETY: as for this function.
    unsafe {
        match flags & MEM_AFF_MASK {
            MEM_STR if read::<u8>(m, OFF_ENC) == ENC_UTF8 => Direct::Bytes(
                crate::engine::value::SQLBATCH_TEXT,
                read(m, OFF_Z),
                read::<c_int>(m, OFF_N) as usize,
            ),
            MEM_REAL => Direct::Real(read(m, OFF_VALUE)),
            MEM_NULL => Direct::Null,
            MEM_BLOB if flags & MEM_ZERO == 0 => Direct::Bytes(
                crate::engine::value::SQLBATCH_BLOB,
                read(m, OFF_Z),
                read::<c_int>(m, OFF_N) as usize,
            ),
            _ => Direct::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    #[cfg(all(target_pointer_width = "64", target_endian = "little"))]
    fn direct_reads_are_compiled_in_for_this_target() {
        // build.rs checked the layout for the bundled SQLite on this (64-bit little-endian) target.
        const { assert!(super::DIRECT_READS, "build.rs did not set cfg(sqlbatch_direct_reads)") };
        assert_eq!((super::STRIDE, super::OFF_RESULT_ROW), (56, 160));
    }
}
