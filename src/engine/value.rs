//! Values crossing the boundary: `sqlbatch_value` (a tagged 16-byte cell, used both for the
//! cells of a fetched batch and for parameters), `sqlbatch_str`, and binding parameters.
//!
//! TEXT and BLOB bytes are never referenced by pointer inside a value: `bits` holds an offset
//! from a base pointer that travels beside the values (`data`). Go can therefore pass arrays
//! of values that live in Go memory without breaking cgo's pointer rules, and a batch's bytes
//! can move (grow) without rewriting its cells. With a NULL base, `bits` is the address itself,
//! which is what C callers usually want.

use std::ffi::{c_char, c_int, CStr};

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::error::Error;

/// Cell type: a 64-bit signed integer, stored in `bits`.
pub const SQLBATCH_INTEGER: u8 = 1;
/// Cell type: an IEEE-754 double, whose bit pattern is stored in `bits`.
pub const SQLBATCH_FLOAT: u8 = 2;
/// Cell type: UTF-8 text of `len` bytes at `data + bits` (not NUL-terminated).
pub const SQLBATCH_TEXT: u8 = 3;
/// Cell type: a blob of `len` bytes at `data + bits`.
pub const SQLBATCH_BLOB: u8 = 4;
/// Cell type: SQL NULL.
pub const SQLBATCH_NULL: u8 = 5;
/// Cell type: no value at all: a column that a change does not carry (the unchanged columns
/// of an UPDATE in a changeset conflict). Never in a fetched batch; not a valid parameter.
pub const SQLBATCH_UNDEFINED: u8 = 0;

/// One SQL value: a cell of a fetched batch, or a parameter to bind.
///
/// | `kind`             | meaning of `bits`                     | `len`        |
/// |--------------------|---------------------------------------|--------------|
/// | `SQLBATCH_INTEGER` | the `int64_t` value                   | 0            |
/// | `SQLBATCH_FLOAT`   | the IEEE-754 bits of the `double`     | 0            |
/// | `SQLBATCH_TEXT`    | offset of the UTF-8 bytes from `data` | byte length  |
/// | `SQLBATCH_BLOB`    | offset of the bytes from `data`       | byte length  |
/// | `SQLBATCH_NULL`    | 0                                     | 0            |
/// | `SQLBATCH_UNDEFINED` (changesets only) | 0                    | 0            |
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
    /// One of `SQLBATCH_INTEGER`, `SQLBATCH_FLOAT`, `SQLBATCH_TEXT`, `SQLBATCH_BLOB`, `SQLBATCH_NULL`
    /// (and `SQLBATCH_UNDEFINED` in a changeset conflict's rows).
    pub kind: u8,
    /// Zero.
    pub _pad: [u8; 3],
}

impl sqlbatch_value {
    pub const NULL: sqlbatch_value = sqlbatch_value { bits: 0, len: 0, kind: SQLBATCH_NULL, _pad: [0; 3] };
    pub const UNDEFINED: sqlbatch_value =
        sqlbatch_value { bits: 0, len: 0, kind: SQLBATCH_UNDEFINED, _pad: [0; 3] };

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

    /// Whether the value is TEXT or BLOB: `bits` locates `len` bytes.
    pub fn has_bytes(&self) -> bool {
        self.kind == SQLBATCH_TEXT || self.kind == SQLBATCH_BLOB
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

/// Params flag: the `bits` of TEXT and BLOB values are the addresses of their bytes, not
/// offsets from `data` (which must then be NULL, with `data_len` 0). Convenient from C.
pub const SQLBATCH_PARAMS_ADDRESSES: u32 = 1;

/// Params flag for `sqlbatch_conn_exec`: the SQL is one statement and the values are exactly
/// its parameters, as a one-off `execute(sql, values)` of a language binding means it. A second
/// statement (anything after the first but whitespace, comments and semicolons) is refused
/// with `SQLBATCH_E_MULTIPLE_STATEMENTS`, and positional values that are not exactly the
/// statement's parameter count with `SQLBATCH_E_PARAM_COUNT`, both before the statement runs:
/// a refused call runs nothing. The other calls that take parameters bind one statement and
/// refuse values left over already; they accept the flag and do the same with it.
pub const SQLBATCH_PARAMS_SINGLE: u32 = 2;

/// The params flags the library knows.
const PARAMS_FLAGS_ALLOWED: u32 = SQLBATCH_PARAMS_ADDRESSES | SQLBATCH_PARAMS_SINGLE;

/// A set of parameter values, taken by `sqlbatch_conn_exec`, `sqlbatch_stmt_bind` and
/// `sqlbatch_stmt_execute_many`.
///
/// The bytes of a TEXT or BLOB value `v` (in `values` and in `names`) are the `v.len` bytes at
/// `data + v.bits`, which must lie within the `data_len` bytes at `data`. With the flag
/// `SQLBATCH_PARAMS_ADDRESSES`, `v.bits` is the address of the bytes instead. A TEXT or BLOB
/// value with bytes but no base (`data` NULL without that flag) is an error
/// (`SQLBATCH_E_INVALID_ARGUMENT`), never a crash; a value of length 0 reads no bytes.
///
/// Ownership: everything stays the caller's; the library only reads it during the call it is
/// passed to (bound bytes are copied where they must outlive the call).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sqlbatch_params {
    /// `n_values` values; may be NULL when `n_values` is 0.
    pub values: *const sqlbatch_value,
    /// NULL (every value positional), or `n_values` names: where `names[i]` is a TEXT value,
    /// `values[i]` is bound by that name (see `sqlbatch_conn_exec` for how names match); a
    /// NULL-kind name leaves `values[i]` positional.
    pub names: *const sqlbatch_value,
    /// The number of values (and of names, when `names` is not NULL).
    pub n_values: usize,
    /// The base of the TEXT and BLOB bytes; NULL when no value has bytes, or with
    /// `SQLBATCH_PARAMS_ADDRESSES`.
    pub data: *const u8,
    /// The number of bytes at `data`.
    pub data_len: usize,
    /// 0, or a bitwise OR of `SQLBATCH_PARAMS_ADDRESSES` and `SQLBATCH_PARAMS_SINGLE`.
    pub flags: u32,
}

/// Parameter values as they come in: an array of values, optional names, and the base of
/// their bytes.
#[derive(Clone, Copy)]
pub(crate) struct Params<'a> {
    pub values: &'a [sqlbatch_value],
    /// Empty, or one name per value.
    pub names: &'a [sqlbatch_value],
    data: *const u8,
    data_len: usize,
    addresses: bool,
    /// `SQLBATCH_PARAMS_SINGLE`.
    pub single: bool,
}

static EMPTY: [u8; 1] = [0];

impl<'a> Params<'a> {
    /// No values.
    pub const NONE: Params<'static> = Params {
        values: &[],
        names: &[],
        data: std::ptr::null(),
        data_len: 0,
        addresses: false,
        single: false,
    };

    /// The parameter set `p` points to; NULL means no values.
    ///
    /// # Safety
    /// A non-NULL `p` must point to a `sqlbatch_params` whose arrays hold `n_values` values
    /// (and names), and whose non-NULL `data` points to `data_len` bytes.
    #[inline(always)]
    pub unsafe fn from_c(p: *const sqlbatch_params) -> Result<Params<'a>, Error> {
        // SAFETY: the caller vouches for `p` and what it points to.
        let Some(p) = (unsafe { p.as_ref() }) else {
            return Ok(Params::NONE);
        };
        let addresses = p.flags & SQLBATCH_PARAMS_ADDRESSES != 0;
        // Every check at once (this is inlined into every call that takes parameters); which
        // one failed is found out of line.
        let valid = p.flags & !PARAMS_FLAGS_ALLOWED == 0
            && !(addresses && (!p.data.is_null() || p.data_len != 0))
            && !(p.data.is_null() && p.data_len != 0)
            && !(p.values.is_null() && p.n_values != 0);
        if !valid {
            return Err(params_error(p));
        }
        let slice = |ptr: *const sqlbatch_value| {
            if p.n_values == 0 {
                &[][..]
            } else {
                // SAFETY: `ptr` is not NULL (checked above for `values`, below for `names`)
                // and holds `n_values` values (the caller's contract).
                unsafe { std::slice::from_raw_parts(ptr, p.n_values) }
            }
        };
        let values = slice(p.values);
        let names = if p.names.is_null() { &[][..] } else { slice(p.names) };
        let single = p.flags & SQLBATCH_PARAMS_SINGLE != 0;
        Ok(Params { values, names, data: p.data, data_len: p.data_len, addresses, single })
    }

    /// The bytes of a TEXT or BLOB value, checked against `data_len`.
    ///
    /// # Safety
    /// With `SQLBATCH_PARAMS_ADDRESSES`, `v.bits` must be the address of `v.len` readable
    /// bytes; otherwise `Params::from_c`'s contract holds.
    #[inline(always)]
    pub unsafe fn bytes_of(&self, v: &sqlbatch_value) -> Result<&'a [u8], Error> {
        let len = v.len as usize;
        if len == 0 {
            return Ok(&EMPTY[..0]);
        }
        if self.addresses {
            if v.bits == 0 {
                return Err(Error::null("a TEXT/BLOB value's address"));
            }
            // SAFETY: with SQLBATCH_PARAMS_ADDRESSES the caller vouches for the address.
            return Ok(unsafe { std::slice::from_raw_parts(v.bits as usize as *const u8, len) });
        }
        if self.data.is_null() {
            return Err(no_base());
        }
        let end = v.bits.checked_add(len as u64);
        match end {
            // SAFETY: the range lies inside the data_len bytes at data.
            Some(end) if end <= self.data_len as u64 => {
                Ok(unsafe { std::slice::from_raw_parts(self.data.add(v.bits as usize), len) })
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

    /// Whether the values' bytes are addressed by pointers (`SQLBATCH_PARAMS_ADDRESSES`)
    /// rather than by offsets into `data`.
    pub fn addresses(&self) -> bool {
        self.addresses
    }

    /// The bytes `lo..hi` of `data`.
    ///
    /// # Safety
    /// `lo..hi` lies within `data_len` (as the ranges [`Params::bytes_of`] accepted do), and
    /// the values are not addressed by pointers.
    pub unsafe fn data_range(&self, lo: u64, hi: u64) -> &'a [u8] {
        debug_assert!(!self.addresses && lo <= hi && hi <= self.data_len as u64);
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts(self.data.add(lo as usize), (hi - lo) as usize) }
    }

    /// The text of a TEXT value, checked to be UTF-8 (used for parameter names).
    ///
    /// # Safety
    /// As for [`Params::bytes_of`].
    pub unsafe fn text_of(&self, v: &sqlbatch_value) -> Result<&'a [u8], Error> {
        if v.kind != SQLBATCH_TEXT {
            return Err(Error::new(SQLBATCH_E_INVALID_ARGUMENT, "a parameter name must be a TEXT value"));
        }
        // SAFETY: as for this function.
        let b = unsafe { self.bytes_of(v)? };
        crate::error::check_utf8(b, "a parameter name")?;
        Ok(b)
    }
}

/// The error of a parameter set that `Params::from_c` refused, found in the order its checks
/// have always run: flags, then `data` and `data_len`, then `values`.
#[cold]
#[inline(never)]
fn params_error(p: &sqlbatch_params) -> Error {
    if p.flags & !PARAMS_FLAGS_ALLOWED != 0 {
        return Error::new(
            SQLBATCH_E_INVALID_ARGUMENT,
            format!("unknown params flags {:#x}", p.flags & !PARAMS_FLAGS_ALLOWED),
        );
    }
    if p.flags & SQLBATCH_PARAMS_ADDRESSES != 0 && (!p.data.is_null() || p.data_len != 0) {
        return Error::new(
            SQLBATCH_E_INVALID_ARGUMENT,
            "with SQLBATCH_PARAMS_ADDRESSES, data must be NULL and data_len 0",
        );
    }
    if p.data.is_null() && p.data_len != 0 {
        return Error::null("params->data");
    }
    Error::null("params->values")
}

#[cold]
fn no_base() -> Error {
    Error::new(
        SQLBATCH_E_INVALID_ARGUMENT,
        "a TEXT/BLOB value has bytes but params->data is NULL (pass the base of the bytes, or \
         set SQLBATCH_PARAMS_ADDRESSES for values that hold addresses)",
    )
}

/// Whether a parameter name SQLite reports (`:id`, `@id`, `$id`, `?3`) answers to the name a
/// caller gave: the same spelling, or the caller's name without its prefix character.
pub(crate) fn name_matches(param: &[u8], given: &[u8]) -> bool {
    param == given
        || (!given.is_empty() && matches!(param.first(), Some(b':' | b'@' | b'$')) && &param[1..] == given)
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
    // SAFETY: `stmt` is a live statement of `db` and the bytes are readable for as long as
    // `destructor` says (the caller's contract).
    let rc = unsafe {
        match v.kind {
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
                    Err(_) => {
                        ffi::sqlite3_bind_blob64(stmt, idx, b.as_ptr().cast(), b.len() as u64, destructor)
                    }
                }
            }
            other => return Err(unknown_kind(idx, other)),
        }
    };
    if rc != ffi::SQLITE_OK {
        // SAFETY: `db` is open.
        return Err(unsafe { bind_error(db, rc, idx) });
    }
    Ok(())
}

#[cold]
fn unknown_kind(idx: c_int, kind: u8) -> Error {
    Error::new(SQLBATCH_E_INVALID_ARGUMENT, format!("parameter {idx}: unknown value kind {kind}"))
}

/// # Safety
/// `db` must be open.
#[cold]
unsafe fn bind_error(db: *mut ffi::sqlite3, rc: c_int, idx: c_int) -> Error {
    // SAFETY: `db` is open (the caller's contract).
    let mut e = unsafe { Error::from_db(db, rc) };
    e.message = format!("parameter {idx}: {}", e.message).into();
    e
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
        // SAFETY: as for this function; `i + 1` is a parameter of `stmt`.
        unsafe { bind_one(db, stmt, (i + 1) as c_int, v, params, destructor)? };
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
        // SAFETY: `stmt` is live (the caller's contract).
        unsafe { ffi::sqlite3_bind_parameter_count(stmt) as usize }
    }
}

pub(crate) fn param_count_error(expected: usize, got: usize) -> Error {
    Error::new(
        SQLBATCH_E_PARAM_COUNT,
        format!("the statement takes {expected} parameter(s) but {got} value(s) were given"),
    )
}

/// Binds the parameters of one statement after another from a parameter set, as
/// `sqlbatch_conn_exec` and a named `sqlbatch_stmt_bind` do: a parameter with a name
/// (`:x`, `@x`, `$x`) takes the value given for that name when names were given; every
/// other parameter takes the next positional value, in order across the statements.
pub(crate) struct Binder<'a> {
    params: Params<'a>,
    /// Index of the next positional value not yet consumed.
    next: usize,
}

impl<'a> Binder<'a> {
    pub fn new(params: Params<'a>) -> Self {
        Binder { params, next: 0 }
    }

    fn is_named(&self, i: usize) -> bool {
        self.params.names.get(i).is_some_and(|n| n.kind != SQLBATCH_NULL)
    }

    /// The value given for parameter `name` (as SQLite reports it, with its prefix).
    ///
    /// # Safety
    /// As for [`Params::bytes_of`].
    unsafe fn by_name(&self, name: &[u8]) -> Result<Option<&'a sqlbatch_value>, Error> {
        for (i, n) in self.params.names.iter().enumerate() {
            if n.kind == SQLBATCH_NULL {
                continue;
            }
            // SAFETY: as for this function.
            if name_matches(name, unsafe { self.params.text_of(n)? }) {
                return Ok(Some(&self.params.values[i]));
            }
        }
        Ok(None)
    }

    /// The next positional value.
    fn next_positional(&mut self) -> Option<&'a sqlbatch_value> {
        while self.next < self.params.values.len() && self.is_named(self.next) {
            self.next += 1;
        }
        let v = self.params.values.get(self.next);
        if v.is_some() {
            self.next += 1;
        }
        v
    }

    /// Positional values not consumed yet.
    pub fn positional_left(&self) -> usize {
        (self.next..self.params.values.len()).filter(|&i| !self.is_named(i)).count()
    }

    /// Binds every parameter of `raw`, a statement the values are for alone: positional
    /// values must be exactly its share, none left over (`sqlbatch_stmt_bind`,
    /// `SQLBATCH_PARAMS_SINGLE`). Returns how many parameters it bound.
    ///
    /// # Safety
    /// As for [`Binder::bind`].
    pub unsafe fn bind_single(
        &mut self,
        db: *mut ffi::sqlite3,
        raw: *mut ffi::sqlite3_stmt,
        lifetime: Lifetime,
    ) -> Result<u64, Error> {
        if self.params.names.is_empty() {
            // Positional values only: their count says it all, and they bind in order.
            // SAFETY: `raw` is a live statement (the caller's contract).
            let expected = unsafe { param_count(raw) };
            let values = self.params.values;
            if values.len() != expected {
                return Err(param_count_error(expected, values.len()));
            }
            // SAFETY: `raw` is a live statement of `db` taking exactly this many values.
            unsafe { bind_all(db, raw, values, &self.params, lifetime)? };
            self.next = expected;
            return Ok(expected as u64);
        }
        // SAFETY: as for this function.
        let used = unsafe { self.bind(db, raw, lifetime)? };
        match self.positional_left() {
            0 => Ok(used),
            left => Err(Error::new(
                SQLBATCH_E_PARAM_COUNT,
                format!("too many parameter values: {left} positional value(s) left over"),
            )),
        }
    }

    /// Binds every parameter of `raw`; returns how many it bound.
    ///
    /// # Safety
    /// `raw` must be a live statement of `db`; the bytes as for [`Params::bytes_of`], and alive
    /// as long as `lifetime` says.
    pub unsafe fn bind(
        &mut self,
        db: *mut ffi::sqlite3,
        raw: *mut ffi::sqlite3_stmt,
        lifetime: Lifetime,
    ) -> Result<u64, Error> {
        // SAFETY: `raw` is a live statement.
        let n = unsafe { ffi::sqlite3_bind_parameter_count(raw) };
        let mut used = 0;
        for idx in 1..=n {
            // Names are looked up only when values are given by name.
            let name = if self.params.names.is_empty() {
                &b""[..]
            } else {
                // SAFETY: `raw` is live and `idx` in range; the name lives as long as `raw`.
                let name = unsafe { ffi::sqlite3_bind_parameter_name(raw, idx) };
                if name.is_null() {
                    &b""[..]
                } else {
                    unsafe { CStr::from_ptr(name) }.to_bytes()
                }
            };
            let named = matches!(name.first(), Some(b':' | b'@' | b'$'));
            let value = if named {
                // SAFETY: as for this function.
                match unsafe { self.by_name(name)? } {
                    Some(v) => v,
                    None => {
                        return Err(Error::new(
                            SQLBATCH_E_PARAM_COUNT,
                            format!("no value given for parameter {}", String::from_utf8_lossy(name)),
                        ))
                    }
                }
            } else {
                match self.next_positional() {
                    Some(v) => v,
                    None => {
                        return Err(Error::new(
                            SQLBATCH_E_PARAM_COUNT,
                            format!(
                                "too few parameter values: none left for parameter {idx} of this statement"
                            ),
                        ))
                    }
                }
            };
            // SAFETY: as for this function.
            unsafe { bind_one(db, raw, idx, value, &self.params, lifetime.destructor())? };
            used += 1;
        }
        Ok(used)
    }
}

#[cfg(test)]
mod tests {
    use super::name_matches;

    #[test]
    fn names_match_with_or_without_their_prefix() {
        assert!(name_matches(b":id", b":id"));
        assert!(name_matches(b":id", b"id"));
        assert!(name_matches(b"@id", b"id"));
        assert!(name_matches(b"$id", b"id"));
        assert!(!name_matches(b":id", b"@id"));
        assert!(!name_matches(b":id", b""));
        assert!(!name_matches(b"?3", b"3"));
        assert!(!name_matches(b":idx", b"id"));
    }
}
