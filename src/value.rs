//! Values crossing the boundary: `sqlbatch_value` (a tagged 16-byte cell, used both for the
//! cells of a fetched batch and for parameters), `sqlbatch_str`, and binding parameters.
//!
//! TEXT and BLOB bytes are never referenced by pointer inside a value: `bits` holds an offset
//! from a base pointer that travels beside the values (`data`). Go can therefore pass arrays
//! of values that live in Go memory without breaking cgo's pointer rules, and a batch's bytes
//! can move (grow) without rewriting its cells. With a NULL base, `bits` is the address itself,
//! which is what C callers usually want.

use std::ffi::{c_char, c_int};

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::error::Error;

/// One SQL value: a cell of a fetched batch, or a parameter to bind.
///
/// | `kind`             | meaning of `bits`                     | `len`        |
/// |--------------------|---------------------------------------|--------------|
/// | `SQLBATCH_INTEGER` | the `int64_t` value                   | 0            |
/// | `SQLBATCH_FLOAT`   | the IEEE-754 bits of the `double`     | 0            |
/// | `SQLBATCH_TEXT`    | offset of the UTF-8 bytes from `data` | byte length  |
/// | `SQLBATCH_BLOB`    | offset of the bytes from `data`       | byte length  |
/// | `SQLBATCH_NULL`    | 0                                     | 0            |
///
/// Text is not NUL-terminated and may contain NUL bytes. NULL, empty text and an empty blob
/// are three different values. `data` is the base pointer passed beside the values (or the
/// batch's `data`); when that base is NULL, `bits` is the address of the bytes itself.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct sqlbatch_value {
    /// The value, or the offset of its bytes (see the table above).
    pub bits: u64,
    /// Byte length of TEXT and BLOB values; 0 otherwise.
    pub len: u32,
    /// One of `SQLBATCH_INTEGER`, `SQLBATCH_FLOAT`, `SQLBATCH_TEXT`, `SQLBATCH_BLOB`, `SQLBATCH_NULL`.
    pub kind: u8,
    /// Zero.
    pub _pad: [u8; 3],
}

impl sqlbatch_value {
    pub const NULL: sqlbatch_value = sqlbatch_value { bits: 0, len: 0, kind: SQLBATCH_NULL, _pad: [0; 3] };

    pub fn int(v: i64) -> Self {
        sqlbatch_value { bits: v as u64, kind: SQLBATCH_INTEGER, ..Self::NULL }
    }

    pub fn float(v: f64) -> Self {
        sqlbatch_value { bits: v.to_bits(), kind: SQLBATCH_FLOAT, ..Self::NULL }
    }

    /// TEXT or BLOB bytes at offset `at` of length `len`.
    pub fn bytes(kind: u8, at: u64, len: u32) -> Self {
        sqlbatch_value { bits: at, len, kind, _pad: [0; 3] }
    }
}

/// A borrowed string: `len` bytes at `ptr`, NUL-terminated unless said otherwise.
/// `ptr` is NULL when there is no string (e.g. a column without a declared type).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sqlbatch_str {
    /// The bytes, or NULL.
    pub ptr: *const c_char,
    /// Their length, without the terminating NUL.
    pub len: usize,
}

impl sqlbatch_str {
    pub const NONE: sqlbatch_str = sqlbatch_str { ptr: std::ptr::null(), len: 0 };
}

/// Parameter values as they come in: an array of values and the base of their bytes.
#[derive(Clone, Copy)]
pub(crate) struct Params<'a> {
    pub values: &'a [sqlbatch_value],
    data: *const u8,
    data_len: usize,
}

static EMPTY: [u8; 1] = [0];

impl<'a> Params<'a> {
    /// # Safety
    /// `values` must point to `n` values; a non-NULL `data` to `data_len` bytes.
    pub unsafe fn new(
        values: *const sqlbatch_value,
        n: usize,
        data: *const u8,
        data_len: usize,
    ) -> Result<Self, Error> {
        Ok(Params { values: crate::ffi::try_slice(values, n, "values")?, data, data_len })
    }

    /// The bytes of a TEXT or BLOB value, checked against `data_len`.
    ///
    /// # Safety
    /// With a NULL base, `v.bits` must be the address of `v.len` readable bytes.
    #[inline(always)]
    pub unsafe fn bytes_of(&self, v: &sqlbatch_value) -> Result<&'a [u8], Error> {
        let len = v.len as usize;
        if len == 0 {
            return Ok(&EMPTY[..0]);
        }
        if self.data.is_null() {
            if v.bits == 0 {
                return Err(Error::null("a TEXT/BLOB value's address"));
            }
            return Ok(std::slice::from_raw_parts(v.bits as usize as *const u8, len));
        }
        let end = v.bits.checked_add(len as u64);
        match end {
            Some(end) if end <= self.data_len as u64 => {
                Ok(std::slice::from_raw_parts(self.data.add(v.bits as usize), len))
            }
            _ => Err(Error::new(
                SQLBATCH_E_RANGE,
                format!(
                    "value bytes {}..{}+{} lie outside data (data_len {})",
                    v.bits, v.bits, len, self.data_len
                ),
            )),
        }
    }

    /// The text of a TEXT value, checked to be UTF-8 (used for parameter names).
    ///
    /// # Safety
    /// As for [`Params::bytes_of`].
    pub unsafe fn text_of(&self, v: &sqlbatch_value) -> Result<&'a [u8], Error> {
        if v.kind != SQLBATCH_TEXT {
            return Err(Error::new(SQLBATCH_E_INVALID_ARGUMENT, "a parameter name must be a TEXT value"));
        }
        let b = self.bytes_of(v)?;
        crate::error::check_utf8(b, "a parameter name")?;
        Ok(b)
    }
}

/// How long SQLite may keep pointers to bound bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lifetime {
    /// The bytes stay valid until the statement is reset/finalized within this call.
    Call,
    /// The bytes must be copied now: the binding outlives the call.
    Copy,
}

impl Lifetime {
    fn destructor(self) -> ffi::sqlite3_destructor_type {
        match self {
            Lifetime::Call => ffi::SQLITE_STATIC(),
            Lifetime::Copy => ffi::SQLITE_TRANSIENT(),
        }
    }
}

/// Binds `v` to parameter `idx` (from 1) of `stmt`; `destructor` comes from [`Lifetime`].
///
/// # Safety
/// `stmt` must be a live statement of `db`; `params` as in [`Params::bytes_of`].
#[inline(always)]
unsafe fn bind_one(
    db: *mut ffi::sqlite3,
    stmt: *mut ffi::sqlite3_stmt,
    idx: c_int,
    v: &sqlbatch_value,
    params: &Params<'_>,
    destructor: ffi::sqlite3_destructor_type,
) -> Result<(), Error> {
    let rc = match v.kind {
        SQLBATCH_INTEGER => ffi::sqlite3_bind_int64(stmt, idx, v.bits as i64),
        SQLBATCH_FLOAT => ffi::sqlite3_bind_double(stmt, idx, f64::from_bits(v.bits)),
        SQLBATCH_NULL => ffi::sqlite3_bind_null(stmt, idx),
        SQLBATCH_TEXT => {
            let b = params.bytes_of(v)?;
            // A non-NULL pointer even for "" (a NULL pointer would bind SQL NULL).
            let p = if b.is_empty() { EMPTY.as_ptr() } else { b.as_ptr() };
            match c_int::try_from(b.len()) {
                Ok(n) => ffi::sqlite3_bind_text(stmt, idx, p.cast(), n, destructor),
                Err(_) => ffi::sqlite3_bind_text64(
                    stmt,
                    idx,
                    p.cast(),
                    b.len() as u64,
                    destructor,
                    ffi::SQLITE_UTF8 as u8,
                ),
            }
        }
        SQLBATCH_BLOB => {
            let b = params.bytes_of(v)?;
            match c_int::try_from(b.len()) {
                Ok(0) => ffi::sqlite3_bind_zeroblob(stmt, idx, 0),
                Ok(n) => ffi::sqlite3_bind_blob(stmt, idx, b.as_ptr().cast(), n, destructor),
                Err(_) => ffi::sqlite3_bind_blob64(stmt, idx, b.as_ptr().cast(), b.len() as u64, destructor),
            }
        }
        other => return Err(unknown_kind(idx, other)),
    };
    if rc != ffi::SQLITE_OK {
        return Err(bind_error(db, rc, idx));
    }
    Ok(())
}

#[cold]
fn unknown_kind(idx: c_int, kind: u8) -> Error {
    Error::new(SQLBATCH_E_INVALID_ARGUMENT, format!("parameter {idx}: unknown value kind {kind}"))
}

#[cold]
unsafe fn bind_error(db: *mut ffi::sqlite3, rc: c_int, idx: c_int) -> Error {
    let mut e = Error::from_db(db, rc);
    e.message = format!("parameter {idx}: {}", e.message).into();
    e
}

/// Binds `v` to parameter `idx` (from 1) of `stmt`.
///
/// # Safety
/// `stmt` must be a live statement of `db`; `params` as in [`Params::bytes_of`].
pub(crate) unsafe fn bind_value(
    db: *mut ffi::sqlite3,
    stmt: *mut ffi::sqlite3_stmt,
    idx: c_int,
    v: &sqlbatch_value,
    params: &Params<'_>,
    lifetime: Lifetime,
) -> Result<(), Error> {
    bind_one(db, stmt, idx, v, params, lifetime.destructor())
}

/// Binds `values` to parameters 1..=n of `stmt`, which must take exactly n parameters.
///
/// # Safety
/// As for [`bind_value`].
#[inline(always)]
pub(crate) unsafe fn bind_all(
    db: *mut ffi::sqlite3,
    stmt: *mut ffi::sqlite3_stmt,
    values: &[sqlbatch_value],
    params: &Params<'_>,
    lifetime: Lifetime,
) -> Result<(), Error> {
    let destructor = lifetime.destructor();
    for (i, v) in values.iter().enumerate() {
        bind_one(db, stmt, (i + 1) as c_int, v, params, destructor)?;
    }
    Ok(())
}

/// The number of parameters `stmt` takes (the largest index), 0 for an empty statement.
///
/// # Safety
/// `stmt` must be NULL or a live statement.
pub(crate) unsafe fn param_count(stmt: *mut ffi::sqlite3_stmt) -> usize {
    if stmt.is_null() {
        0
    } else {
        ffi::sqlite3_bind_parameter_count(stmt) as usize
    }
}

pub(crate) fn param_count_error(expected: usize, got: usize) -> Error {
    Error::new(
        SQLBATCH_E_PARAM_COUNT,
        format!("the statement takes {expected} parameter(s) but {got} value(s) were given"),
    )
}
