//! Storage-class conversions of single values, exactly as SQLite's `sqlite3_column_*` make them.
//!
//! Bindings read a cell as another storage class than its own (Go's `Int64` of a TEXT cell,
//! Haskell's `FromField Double` of an INTEGER); the answer must be what `sqlite3_column_int64`,
//! `_double`, `_text` or `_blob` of the bundled SQLite returns for that value. It is exact by
//! construction:
//!
//! - TEXT/BLOB to INTEGER/FLOAT is done by SQLite itself: the bytes are bound to a
//!   `SELECT ?1` statement of a private in-memory connection (one per thread, created on
//!   first use, finalized and closed when the thread exits) and read back with
//!   `sqlite3_column_int64` / `sqlite3_column_double`.
//! - REAL to TEXT/BLOB is SQLite's own rendering: `sqlite3VdbeMemStringify` renders a REAL with
//!   `sqlite3_str_appendf(acc, "%!.*g", db->nFpDigit, r)` into a 32-byte accumulator, and
//!   `sqlite3_snprintf(32, buf, "%!.*g", 17, r)` is the same call on the same kind of
//!   accumulator (17 is every connection's `nFpDigit`: only `SQLITE_DBCONFIG_FP_DIGITS`
//!   changes it, which sqlbatch does not expose).
//! - INTEGER to TEXT/BLOB is `sqlite3Int64ToText`: the plain decimal, '-' for negatives.
//! - INTEGER to FLOAT is C's `(double)i`, Rust's `i as f64` (both round to nearest).
//! - FLOAT to INTEGER is `sqlite3RealToI64`: `r < -9223372036854774784.0` gives `i64::MIN`,
//!   `r > 9223372036854774784.0` gives `i64::MAX`, the rest truncate toward zero. The bound is
//!   the largest double below 2^63, so this is Rust's saturating `r as i64` for every non-NaN.
//! - A NaN is what `sqlite3_bind_double` makes of it, SQL NULL (SQLite never holds a NaN).
//! - TEXT/BLOB to TEXT/BLOB keeps the bytes (a UTF-8 connection changes nothing).
//! - In a UTF-16 database SQLite reads a BLOB's bytes as text in that encoding when it makes a
//!   number of them: with `SQLBATCH_CONVERT_UTF16LE`/`_BE` in `to`, the bytes are bound as
//!   UTF-16 text of that byte order, so that SQLite reads them as a column of such a
//!   database would be read. (TEXT cells are always UTF-8: a fetch reads them so.)
//!
//! `tests/conversions.rs` checks every case against SQLite's answers in
//! `tests/vectors/conversions.tsv`, and random values against a plain SQLite connection.

use std::cell::RefCell;
use std::ffi::c_int;
use std::io::Write;
use std::ptr;

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::engine::value::sqlbatch_value;
use crate::error::Error;

use crate::engine::value::{SQLBATCH_BLOB, SQLBATCH_FLOAT, SQLBATCH_INTEGER, SQLBATCH_NULL, SQLBATCH_TEXT};

/// `to` flag of `sqlbatch_value_convert`: the value comes from a UTF-16LE database, so a BLOB's
/// bytes become a number as UTF-16LE text (as `sqlite3_column_int64`/`_double` read them there).
pub const SQLBATCH_CONVERT_UTF16LE: u8 = 0x40;
/// `to` flag: the same for a UTF-16BE database.
pub const SQLBATCH_CONVERT_UTF16BE: u8 = 0x80;

/// Bytes `buf` must hold when a number is rendered as TEXT or BLOB (SQLite's own buffer size
/// for the rendering; the longest rendering is 24 bytes plus the NUL).
const RENDER_BUF_LEN: usize = 32;

/// A private in-memory connection with a prepared `SELECT ?1`, used by one thread only.
struct Converter {
    db: *mut ffi::sqlite3,
    stmt: *mut ffi::sqlite3_stmt,
}

impl Converter {
    fn open() -> Result<Converter, Error> {
        let mut db = ptr::null_mut();
        let flags = ffi::SQLITE_OPEN_READWRITE
            | ffi::SQLITE_OPEN_MEMORY
            | ffi::SQLITE_OPEN_NOMUTEX
            | ffi::SQLITE_OPEN_EXRESCODE;
        // SAFETY: a static NUL-terminated name; `db` receives a handle (or NULL on OOM).
        let rc = unsafe { ffi::sqlite3_open_v2(c":memory:".as_ptr(), &mut db, flags, ptr::null()) };
        // From here on, Drop closes whatever was opened.
        let mut conv = Converter { db, stmt: ptr::null_mut() };
        if rc != ffi::SQLITE_OK {
            return Err(if db.is_null() {
                Error::new(ffi::SQLITE_NOMEM, "out of memory opening the conversion connection")
            } else {
                // SAFETY: `db` is a connection handle, possibly in an error state.
                unsafe { Error::from_db(db, rc) }
            });
        }
        let sql = c"SELECT ?1";
        // SAFETY: `db` is open; the SQL is NUL-terminated (-1: read to the NUL).
        let rc = unsafe {
            ffi::sqlite3_prepare_v3(
                db,
                sql.as_ptr(),
                -1,
                ffi::SQLITE_PREPARE_PERSISTENT,
                &mut conv.stmt,
                ptr::null_mut(),
            )
        };
        if rc != ffi::SQLITE_OK || conv.stmt.is_null() {
            // SAFETY: `db` is open.
            return Err(unsafe { Error::from_db(db, rc) });
        }
        Ok(conv)
    }

    /// Binds TEXT or BLOB bytes to `?1`, steps once and reads column 0 of the row with `read`.
    /// The statement is reset and its binding cleared before this returns, whatever happens,
    /// so SQLite keeps no pointer to `bytes`.
    fn read_bytes<T>(
        &self,
        kind: u8,
        utf16: Option<u8>,
        bytes: &[u8],
        read: unsafe extern "C" fn(*mut ffi::sqlite3_stmt, c_int) -> T,
    ) -> Result<T, Error> {
        struct Rewind(*mut ffi::sqlite3_stmt);
        impl Drop for Rewind {
            fn drop(&mut self) {
                // SAFETY: a live statement of the converter.
                unsafe {
                    ffi::sqlite3_reset(self.0);
                    ffi::sqlite3_clear_bindings(self.0);
                }
            }
        }
        let stmt = self.stmt;
        let _rewind = Rewind(stmt);
        // A non-NULL pointer even for no bytes: a NULL pointer would bind SQL NULL.
        let p = if bytes.is_empty() { NON_NULL.as_ptr() } else { bytes.as_ptr() };
        let n = bytes.len() as u64;
        // SAFETY: `stmt` is this thread's live statement of `self.db`; `p` points to `n`
        // readable bytes, which SQLite may keep (SQLITE_STATIC) only until `_rewind` clears
        // the binding, before `bytes` can go.
        let rc = unsafe {
            if let (SQLBATCH_BLOB, Some(enc)) = (kind, utf16) {
                // A UTF-16 database's BLOB: its bytes read as text of that encoding.
                ffi::sqlite3_bind_text64(stmt, 1, p.cast(), n, ffi::SQLITE_STATIC(), enc)
            } else if kind == SQLBATCH_TEXT {
                ffi::sqlite3_bind_text64(stmt, 1, p.cast(), n, ffi::SQLITE_STATIC(), ffi::SQLITE_UTF8 as u8)
            } else {
                ffi::sqlite3_bind_blob64(stmt, 1, p.cast(), n, ffi::SQLITE_STATIC())
            }
        };
        if rc != ffi::SQLITE_OK {
            // SAFETY: `self.db` is open.
            return Err(unsafe { Error::from_db(self.db, rc) });
        }
        // SAFETY: as above; `SELECT ?1` gives one row of one column.
        let rc = unsafe { ffi::sqlite3_step(stmt) };
        if rc != ffi::SQLITE_ROW {
            // SAFETY: `self.db` is open.
            return Err(unsafe { Error::from_db(self.db, rc) });
        }
        // SAFETY: the statement holds a row; `read` is a `sqlite3_column_*` accessor.
        let value = unsafe { read(stmt, 0) };
        // sqlite3_column_* return 0 when they run out of memory, leaving SQLITE_NOMEM here.
        if unsafe { ffi::sqlite3_errcode(self.db) } == ffi::SQLITE_NOMEM {
            return Err(Error::new(ffi::SQLITE_NOMEM, "out of memory converting the value"));
        }
        Ok(value)
    }
}

impl Drop for Converter {
    fn drop(&mut self) {
        // SAFETY: the handles are this converter's own (or NULL, which both calls accept).
        unsafe {
            ffi::sqlite3_finalize(self.stmt);
            ffi::sqlite3_close(self.db);
        }
    }
}

static NON_NULL: [u8; 1] = [0];

thread_local! {
    /// This thread's converter, opened on first use; dropped (finalized and closed) when the
    /// thread exits.
    static CONVERTER: RefCell<Option<Converter>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's converter. If it cannot be had (the thread is exiting and its
/// thread-locals are gone, or it is in use further up this thread's stack), a temporary one
/// is opened for this call.
fn with_converter<T>(f: impl FnOnce(&Converter) -> Result<T, Error>) -> Result<T, Error> {
    let mut f = Some(f);
    let done = CONVERTER.try_with(|cell| {
        let Ok(mut slot) = cell.try_borrow_mut() else {
            return None;
        };
        if slot.is_none() {
            match Converter::open() {
                Ok(c) => *slot = Some(c),
                Err(e) => return Some(Err(e)),
            }
        }
        let f = f.take()?;
        slot.as_ref().map(f)
    });
    match done {
        Ok(Some(result)) => result,
        _ => match f.take() {
            Some(f) => f(&Converter::open()?),
            None => Err(Error::new(SQLBATCH_E_PANIC, "value conversion: converter lost")),
        },
    }
}

/// What `sqlite3_column_int64` returns for TEXT or BLOB `bytes` (of a database of encoding
/// `utf16`, SQLite's `SQLITE_UTF16LE`/`_BE`, or UTF-8).
fn bytes_to_int(kind: u8, utf16: Option<u8>, bytes: &[u8]) -> Result<i64, Error> {
    with_converter(|c| c.read_bytes(kind, utf16, bytes, ffi::sqlite3_column_int64))
}

/// What `sqlite3_column_double` returns for TEXT or BLOB `bytes` (as for [`bytes_to_int`]).
fn bytes_to_float(kind: u8, utf16: Option<u8>, bytes: &[u8]) -> Result<f64, Error> {
    with_converter(|c| c.read_bytes(kind, utf16, bytes, ffi::sqlite3_column_double))
}

/// SQLite's TEXT rendering of an INTEGER into `buf`, NUL-terminated; returns its length.
fn render_int(i: i64, buf: &mut [u8; RENDER_BUF_LEN]) -> usize {
    let mut cursor = &mut buf[..];
    // Cannot fail: 20 bytes at most ("-9223372036854775808") and a NUL.
    let _ = write!(cursor, "{i}\0");
    let left = cursor.len();
    buf.len() - left - 1
}

/// SQLite's TEXT rendering of a (non-NaN) REAL into `buf`, NUL-terminated; returns its length.
fn render_float(r: f64, buf: &mut [u8; RENDER_BUF_LEN]) -> usize {
    // SAFETY: `buf` holds the 32 bytes the call may write (it truncates, then NUL-terminates);
    // the format is NUL-terminated and takes exactly an int and a double.
    // This is the call vdbeMemRenderNum makes, on an accumulator of the same 32 bytes.
    unsafe {
        ffi::sqlite3_snprintf(
            RENDER_BUF_LEN as c_int,
            buf.as_mut_ptr().cast(),
            c"%!.*g".as_ptr(),
            17 as c_int,
            r,
        );
    }
    buf.iter().position(|&b| b == 0).unwrap_or(RENDER_BUF_LEN - 1)
}

/// The bytes of a TEXT or BLOB value: `len` bytes at `data + bits`, checked against `data_len`.
///
/// # Safety
/// A non-NULL `data` must point to `data_len` readable bytes that outlive `'a`.
unsafe fn bytes_of<'a>(v: &sqlbatch_value, data: *const u8, data_len: usize) -> Result<&'a [u8], Error> {
    let len = v.len as usize;
    if len == 0 {
        return Ok(&NON_NULL[..0]);
    }
    if data.is_null() {
        return Err(Error::new(
            SQLBATCH_E_INVALID_ARGUMENT,
            "a TEXT/BLOB value with bytes needs a data base (data is NULL)",
        ));
    }
    match v.bits.checked_add(len as u64) {
        // SAFETY: `bits + len <= data_len`, inside the caller's `data`.
        Some(end) if end <= data_len as u64 => {
            Ok(unsafe { std::slice::from_raw_parts(data.add(v.bits as usize), len) })
        }
        _ => Err(Error::new(
            SQLBATCH_E_RANGE,
            format!("value bytes {}..{}+{} lie outside data (data_len {data_len})", v.bits, v.bits, len),
        )),
    }
}

/// The conversion itself, after the pointer checks.
///
/// # Safety
/// As for [`bytes_of`]; a non-NULL `buf` must be valid for `buf_len` bytes of writes.
pub(crate) unsafe fn convert(
    v: &sqlbatch_value,
    data: *const u8,
    data_len: usize,
    to: u8,
    buf: *mut u8,
    buf_len: usize,
) -> Result<sqlbatch_value, Error> {
    let utf16 = match to & (SQLBATCH_CONVERT_UTF16LE | SQLBATCH_CONVERT_UTF16BE) {
        0 => None,
        SQLBATCH_CONVERT_UTF16LE => Some(ffi::SQLITE_UTF16LE as u8),
        SQLBATCH_CONVERT_UTF16BE => Some(ffi::SQLITE_UTF16BE as u8),
        _ => {
            return Err(Error::new(
                SQLBATCH_E_INVALID_ARGUMENT,
                "SQLBATCH_CONVERT_UTF16LE and SQLBATCH_CONVERT_UTF16BE together",
            ))
        }
    };
    let to = to & !(SQLBATCH_CONVERT_UTF16LE | SQLBATCH_CONVERT_UTF16BE);
    if !matches!(to, SQLBATCH_INTEGER | SQLBATCH_FLOAT | SQLBATCH_TEXT | SQLBATCH_BLOB) {
        return Err(Error::new(
            SQLBATCH_E_INVALID_ARGUMENT,
            format!("unknown target storage class {to} (want SQLBATCH_INTEGER, _FLOAT, _TEXT or _BLOB)"),
        ));
    }
    let to_bytes = matches!(to, SQLBATCH_TEXT | SQLBATCH_BLOB);
    match v.kind {
        SQLBATCH_INTEGER | SQLBATCH_FLOAT => {
            let mut out = if v.kind == SQLBATCH_INTEGER {
                let i = v.bits as i64;
                match to {
                    SQLBATCH_INTEGER => sqlbatch_value::int(i),
                    SQLBATCH_FLOAT => sqlbatch_value::float(i as f64),
                    _ => sqlbatch_value::bytes(to, 0, 0),
                }
            } else {
                let r = f64::from_bits(v.bits);
                match to {
                    // SQLite binds a NaN as NULL: 0 and 0.0.
                    _ if r.is_nan() && !to_bytes => {
                        if to == SQLBATCH_INTEGER {
                            sqlbatch_value::int(0)
                        } else {
                            sqlbatch_value::float(0.0)
                        }
                    }
                    SQLBATCH_INTEGER => sqlbatch_value::int(r as i64),
                    SQLBATCH_FLOAT => *v,
                    _ => sqlbatch_value::bytes(to, 0, 0),
                }
            };
            if to_bytes {
                if buf_len < RENDER_BUF_LEN {
                    return Err(Error::new(
                        SQLBATCH_E_BUFFER_TOO_SMALL,
                        format!("rendering a number needs buf_len >= {RENDER_BUF_LEN} (got {buf_len})"),
                    ));
                }
                if buf.is_null() {
                    return Err(Error::null("buf"));
                }
                // SAFETY: a non-NULL `buf` holds `buf_len >= 32` writable bytes.
                let buf = unsafe { &mut *buf.cast::<[u8; RENDER_BUF_LEN]>() };
                let n = if v.kind == SQLBATCH_INTEGER {
                    render_int(v.bits as i64, buf)
                } else {
                    let r = f64::from_bits(v.bits);
                    if r.is_nan() {
                        return Ok(sqlbatch_value::NULL);
                    }
                    render_float(r, buf)
                };
                out.len = n as u32;
            }
            Ok(out)
        }
        SQLBATCH_TEXT | SQLBATCH_BLOB => {
            // SAFETY: the caller vouches for `data` and `data_len`.
            let bytes = unsafe { bytes_of(v, data, data_len)? };
            Ok(match to {
                SQLBATCH_INTEGER => sqlbatch_value::int(bytes_to_int(v.kind, utf16, bytes)?),
                SQLBATCH_FLOAT => sqlbatch_value::float(bytes_to_float(v.kind, utf16, bytes)?),
                _ => sqlbatch_value { kind: to, _pad: [0; 3], ..*v },
            })
        }
        SQLBATCH_NULL => Ok(match to {
            SQLBATCH_INTEGER => sqlbatch_value::int(0),
            SQLBATCH_FLOAT => sqlbatch_value::float(0.0),
            _ => sqlbatch_value::NULL,
        }),
        other => Err(Error::new(SQLBATCH_E_INVALID_ARGUMENT, format!("unknown value kind {other}"))),
    }
}
