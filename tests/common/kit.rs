//! The test kit shared by the Rust tests (`tests/common`), the fuzz targets (`fuzz/src/lib.rs`)
//! and the criterion benchmark (`benches/criterion/core.rs`), each of which includes this one
//! file as a module (`#[path = ...] mod kit;`): owned values ([`Val`]), the value generators
//! ([`random_value`] from a seeded [`Rng`], [`pick_value`] from fuzzer bytes, over one set of
//! interesting values), parameter sets as the bindings build them ([`Params`]), checked
//! decoding of batches ([`cell`], [`batch_rows`]), safe wrappers of the C ABI ([`Conn`],
//! [`Stmt`]) and the plain-SQLite reference reader ([`Raw`], [`column`], [`bind_raw`]).
//!
//! It depends on nothing but `sqlbatch` and `libsqlite3_sys`, so that each includer's build
//! stays as it is.
// Helpers over raw handles, as the tests call the ABI: their callers pass live handles.
#![allow(
    dead_code,
    clippy::missing_safety_doc,
    clippy::not_unsafe_ptr_arg_deref,
    clippy::should_implement_trait
)]

use std::ffi::{c_int, CStr, CString};
use std::ptr;

use libsqlite3_sys as sq;
use sqlbatch::*;

// ---- values --------------------------------------------------------------------------------

/// An owned copy of a cell or parameter, compared by bits (NaN == NaN, -0.0 != 0.0).
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    Null,
    Int(i64),
    /// The IEEE-754 bits.
    Float(u64),
    Text(Vec<u8>),
    Blob(Vec<u8>),
}

pub fn f(x: f64) -> Val {
    Val::Float(x.to_bits())
}

pub fn t(s: &str) -> Val {
    Val::Text(s.as_bytes().to_vec())
}

impl Val {
    /// 0..5 for NULL, INTEGER, REAL, TEXT, BLOB.
    pub fn class(&self) -> usize {
        match self {
            Val::Null => 0,
            Val::Int(_) => 1,
            Val::Float(_) => 2,
            Val::Text(_) => 3,
            Val::Blob(_) => 4,
        }
    }
}

pub type Rows = Vec<Vec<Val>>;

// ---- the value generators ------------------------------------------------------------------

/// Values every generator draws from: extremes, signed zeros, infinities, NaN, subnormals,
/// empty and non-UTF-8 text, embedded NUL, text that looks numeric.
pub const INTS: [i64; 8] = [0, 1, -1, i64::MIN, i64::MAX, 42, 1 << 53, -(1 << 31)];
pub const FLOATS: [f64; 8] =
    [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1.5, f64::MIN_POSITIVE, 5e-324];
pub const TEXTS: [&[u8]; 8] =
    [b"", b"a", b"h\xc3\xa9llo \xe2\x9c\x93", b"nul\0inside", b"\xff\xfe bad utf8", b"12", b"4.5", b"x"];

/// A reader of (fuzzer) bytes that yields zeros when they run out.
pub struct Knobs<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> From<&'a [u8]> for Knobs<'a> {
    fn from(bytes: &'a [u8]) -> Self {
        Knobs { bytes, at: 0 }
    }
}

impl Knobs<'_> {
    pub fn byte(&mut self) -> u8 {
        let b = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }
    pub fn bit(&mut self) -> bool {
        self.byte() & 1 == 1
    }
}

/// A value chosen by two bytes from the tables above (the encoding `fuzz/seeds.py` writes):
/// `a % 6` is NULL, INTEGER, REAL, TEXT, BLOB or an empty BLOB; `b & 7` picks from the table,
/// and `b & 8` makes a shifted integer or a long text or blob instead.
pub fn pick_value(k: &mut Knobs<'_>) -> Val {
    let (a, b) = (k.byte(), k.byte());
    let i = (b & 7) as usize;
    match a % 6 {
        0 => Val::Null,
        1 => Val::Int(if b & 8 != 0 { (b as i64) << (a as u32 % 56) } else { INTS[i] }),
        2 => Val::Float(FLOATS[i].to_bits()),
        3 if b & 8 != 0 => Val::Text(vec![b'z'; (b as usize) << 4]),
        3 => Val::Text(TEXTS[i].to_vec()),
        4 if b & 8 != 0 => Val::Blob((0..(b as usize) << 4).map(|x| x as u8).collect()),
        4 => Val::Blob(TEXTS[i].to_vec()),
        _ => Val::Blob(vec![]),
    }
}

/// xorshift64*: deterministic across runs and platforms.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545F4914F6CDD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Random valid UTF-8 of mostly 0-40 bytes (now and then 2-62 kB), NULs and 1-4 byte
/// characters included.
pub fn random_text(r: &mut Rng) -> Vec<u8> {
    let len = match r.below(400) {
        0..=19 => 0,
        20 => 2000 + r.below(60_000) as usize,
        _ => r.below(40) as usize,
    };
    let mut s = String::new();
    while s.len() < len {
        let c = match r.below(10) {
            0 => '\0',
            1..=5 => (b'a' + r.below(26) as u8) as char,
            6 => char::from_u32(0x80 + r.below(0x780) as u32).unwrap_or('é'),
            7 => char::from_u32(0x800 + r.below(0xD000) as u32).unwrap_or('日'),
            _ => char::from_u32(0x10000 + r.below(0x1000) as u32).unwrap_or('𝄞'),
        };
        s.push(c);
    }
    s.into_bytes()
}

/// A random value of any storage class: the interesting values of [`pick_value`], random
/// integers and bit patterns of doubles (NaNs included), random text, blobs of 0 to 300 kB.
pub fn random_value(r: &mut Rng) -> Val {
    match r.below(12) {
        0 | 1 => Val::Null,
        2 => Val::Int(INTS[r.below(8) as usize]),
        3 | 4 => Val::Int(r.next() as i64 >> r.below(64)),
        5 => Val::Float(FLOATS[r.below(8) as usize].to_bits()),
        6 => f(f64::from_bits(r.next())), // any bit pattern; NaNs come back as NULL
        7..=9 => Val::Text(random_text(r)),
        _ => {
            let n = match r.below(1000) {
                0..=99 => 0,
                100 => 100_000 + r.below(200_000) as usize,
                _ => r.below(64) as usize,
            };
            Val::Blob((0..n).map(|_| r.next() as u8).collect())
        }
    }
}

// ---- parameter sets ------------------------------------------------------------------------

/// Parameter values (and optionally names) with their bytes packed into one buffer, as Go and
/// Haskell pass them; [`Params::as_c`] gives the `sqlbatch_params` that points at them.
#[derive(Default, Clone)]
pub struct Params {
    pub values: Vec<sqlbatch_value>,
    /// Empty (every value positional), or one name per value (NULL-kind: positional).
    pub names: Vec<sqlbatch_value>,
    pub data: Vec<u8>,
    pub flags: u32,
}

impl Params {
    /// Appends `b` to `data`; returns the value of kind `kind` that refers to it.
    pub fn bytes(&mut self, kind: u8, b: &[u8]) -> sqlbatch_value {
        let at = self.data.len() as u64;
        self.data.extend_from_slice(b);
        sqlbatch_value::bytes(kind, at, b.len() as u32)
    }

    fn value(&mut self, v: &Val) -> sqlbatch_value {
        match v {
            Val::Null => sqlbatch_value::NULL,
            Val::Int(i) => sqlbatch_value::int(*i),
            Val::Float(b) => sqlbatch_value { bits: *b, kind: SQLBATCH_FLOAT, ..sqlbatch_value::NULL },
            Val::Text(b) => self.bytes(SQLBATCH_TEXT, b),
            Val::Blob(b) => self.bytes(SQLBATCH_BLOB, b),
        }
    }

    /// Appends a positional value.
    pub fn push(&mut self, v: &Val) -> &mut Self {
        let value = self.value(v);
        self.push_value(value, sqlbatch_value::NULL)
    }

    /// Appends a value bound by `name` (TEXT; with or without its prefix).
    pub fn push_named(&mut self, name: &[u8], v: &Val) -> &mut Self {
        let value = self.value(v);
        let name = self.bytes(SQLBATCH_TEXT, name);
        self.push_value(value, name)
    }

    /// Appends a value struct as it is, with `name` (NULL-kind for none).
    pub fn push_value(&mut self, value: sqlbatch_value, name: sqlbatch_value) -> &mut Self {
        if name.kind != SQLBATCH_NULL || !self.names.is_empty() {
            self.names.resize(self.values.len(), sqlbatch_value::NULL);
            self.names.push(name);
        }
        self.values.push(value);
        self
    }

    /// A value struct straight from knob bytes: any kind tag, offsets and lengths that may
    /// lie outside `data` (the library must refuse them, never read out of bounds).
    pub fn push_raw(&mut self, k: &mut Knobs<'_>) -> &mut Self {
        let kind = k.byte();
        let bits = k.byte() as u64 * if k.bit() { u64::MAX / 255 } else { 1 };
        let len = k.byte() as u32 * if k.bit() { u32::MAX / 255 } else { 1 };
        self.push_value(sqlbatch_value { bits, len, kind, _pad: [0; 3] }, sqlbatch_value::NULL)
    }

    pub fn of(vals: &[Val]) -> Params {
        let mut p = Params::default();
        for v in vals {
            p.push(v);
        }
        p
    }

    /// The parameter set pointing at these values, with NULL for every empty array (as a
    /// binding passes it). Valid while `self` is neither moved nor changed.
    pub fn as_c(&self) -> sqlbatch_params {
        let names = if self.names.is_empty() { ptr::null() } else { self.names.as_ptr() };
        sqlbatch_params { names, flags: self.flags, ..params_of(&self.values, &self.data) }
    }

    /// The values as the library must read them, `None` when one of them is misuse the
    /// library must refuse (an unknown kind, bytes outside `data`). A raw value struct can be
    /// well formed by chance (kind INTEGER, bits 0): the reference must bind what it says.
    pub fn decoded(&self) -> Option<Vec<Val>> {
        self.values
            .iter()
            .map(|v| {
                let bytes = || {
                    let end = v.bits.checked_add(v.len as u64).filter(|&e| e <= self.data.len() as u64)?;
                    Some(self.data[v.bits as usize..end as usize].to_vec())
                };
                match v.kind {
                    SQLBATCH_NULL => Some(Val::Null),
                    SQLBATCH_INTEGER => Some(Val::Int(v.bits as i64)),
                    SQLBATCH_FLOAT => Some(Val::Float(v.bits)),
                    SQLBATCH_TEXT => bytes().map(Val::Text),
                    SQLBATCH_BLOB => bytes().map(Val::Blob),
                    _ => None,
                }
            })
            .collect()
    }
}

/// A positional parameter set over `values` and `data`, NULL for an empty array, flags 0.
pub fn params_of(values: &[sqlbatch_value], data: &[u8]) -> sqlbatch_params {
    sqlbatch_params {
        values: if values.is_empty() { ptr::null() } else { values.as_ptr() },
        names: ptr::null(),
        n_values: values.len(),
        data: if data.is_empty() { ptr::null() } else { data.as_ptr() },
        data_len: data.len(),
        flags: 0,
    }
}

/// `p` as the `const sqlbatch_params *` argument: NULL for `None`.
pub fn params_ptr(p: Option<&sqlbatch_params>) -> *const sqlbatch_params {
    p.map_or(ptr::null(), |p| p as *const _)
}

// ---- reading batches -----------------------------------------------------------------------

/// The cells of a batch (an empty slice for a NULL `cells`), after checking the pointer
/// contract: `cells` is NULL exactly when the batch has no cells.
pub fn cells(b: &sqlbatch_batch) -> &[sqlbatch_value] {
    let n = b.n_rows.checked_mul(b.n_cols).expect("n_rows * n_cols overflows");
    assert_eq!(b.cells.is_null(), n == 0, "cells {:?} for {} x {} cells", b.cells, b.n_rows, b.n_cols);
    if n == 0 {
        &[]
    } else {
        unsafe { std::slice::from_raw_parts(b.cells, n) }
    }
}

/// Decodes cell (r, c) of a batch whose bytes are at `base` (`base_len` of them), checking
/// it: a known kind, zero padding, zero bits and length where they mean nothing, and bytes
/// inside the base (none are read for a cell of length 0, so `base` may then be NULL).
pub unsafe fn cell(b: &sqlbatch_batch, base: *const u8, base_len: usize, r: usize, c: usize) -> Val {
    let v = cells(b)[r * b.n_cols + c];
    assert_eq!(v._pad, [0; 3], "padding not zero");
    let bytes = || {
        let end = v.bits.checked_add(v.len as u64).expect("offset overflows");
        assert!(end <= base_len as u64, "cell bytes {}+{} past the data ({base_len})", v.bits, v.len);
        if v.len == 0 {
            Vec::new()
        } else {
            std::slice::from_raw_parts(base.add(v.bits as usize), v.len as usize).to_vec()
        }
    };
    match v.kind {
        SQLBATCH_NULL => {
            assert_eq!((v.bits, v.len), (0, 0));
            Val::Null
        }
        SQLBATCH_INTEGER => {
            assert_eq!(v.len, 0);
            Val::Int(v.bits as i64)
        }
        SQLBATCH_FLOAT => {
            assert_eq!(v.len, 0);
            Val::Float(v.bits)
        }
        SQLBATCH_TEXT => Val::Text(bytes()),
        SQLBATCH_BLOB => Val::Blob(bytes()),
        k => panic!("cell kind {k}"),
    }
}

/// The rows of a batch from `sqlbatch_stmt_fetch`, checking that `data` is NULL exactly when
/// the batch has no bytes.
pub fn batch_rows(b: &sqlbatch_batch) -> Rows {
    assert_eq!(b.data.is_null(), b.data_len == 0, "data {:?} with {} bytes", b.data, b.data_len);
    batch_rows_in(b, b.data, b.data_len)
}

/// The rows of a batch whose bytes are at `base` (`base_len` of them): the caller's buffer
/// after `sqlbatch_stmt_fetch_into`.
pub fn batch_rows_in(b: &sqlbatch_batch, base: *const u8, base_len: usize) -> Rows {
    (0..b.n_rows).map(|r| (0..b.n_cols).map(|c| unsafe { cell(b, base, base_len, r, c) }).collect()).collect()
}

/// The bytes a batch's cells count for its byte bound (16 per cell plus TEXT/BLOB bytes).
pub fn row_cost(row: &[Val]) -> usize {
    row.iter()
        .map(|v| {
            16 + match v {
                Val::Text(b) | Val::Blob(b) => b.len(),
                _ => 0,
            }
        })
        .sum()
}

// ---- the C ABI, wrapped --------------------------------------------------------------------

/// The connection's last error and its message.
pub fn last_error_of(c: *const sqlbatch_conn) -> (sqlbatch_error, String) {
    let mut e: sqlbatch_error = unsafe { std::mem::zeroed() };
    if unsafe { sqlbatch_conn_last_error(c, &mut e) } != SQLBATCH_OK {
        return (e, "<no connection>".into());
    }
    let msg = unsafe { CStr::from_ptr(e.message) }.to_string_lossy().into_owned();
    (e, msg)
}

/// Whether the tests run in fetch-ahead mode (`SQLBATCH_TEST_AHEAD=1`, which `make test-rust`
/// sets for a second run of the differential, fault and fetch tests): [`Conn`] opens every
/// connection with `SQLBATCH_OPEN_FETCH_AHEAD`, and [`Stmt::execute_many_raw`] writes behind
/// (start, then wait), so that the same assertions hold for both modes.
pub fn ahead_mode() -> bool {
    static MODE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *MODE.get_or_init(|| std::env::var("SQLBATCH_TEST_AHEAD").is_ok_and(|v| v == "1"))
}

/// A connection through the ABI, closed on drop.
pub struct Conn(pub *mut sqlbatch_conn);

impl Conn {
    pub fn open(path: &str) -> Conn {
        Self::open_flags(path, 0)
    }

    pub fn open_flags(path: &str, flags: u32) -> Conn {
        let flags = if ahead_mode() { flags | SQLBATCH_OPEN_FETCH_AHEAD } else { flags };
        let mut c = ptr::null_mut();
        let rc = unsafe { sqlbatch_conn_open(path.as_ptr().cast(), path.len(), flags, &mut c) };
        assert_eq!(rc, SQLBATCH_OK, "open {path}: {}", last_error_of(c).1);
        Conn(c)
    }

    pub fn memory() -> Conn {
        Self::open(":memory:")
    }

    /// Runs a script without parameters, which must succeed.
    pub fn exec(&self, sql: &str) {
        let rc = self.try_exec(sql).0;
        assert_eq!(rc, SQLBATCH_OK, "exec {sql}: {}", self.error().1);
    }

    /// Runs a script without parameters (`params` NULL).
    pub fn try_exec(&self, sql: &str) -> (i32, sqlbatch_exec_result) {
        self.exec_raw(sql.as_bytes(), None)
    }

    /// Runs a script with the parameters `p`.
    pub fn try_exec_with(&self, sql: &str, p: &Params) -> (i32, sqlbatch_exec_result) {
        self.exec_raw(sql.as_bytes(), Some(&p.as_c()))
    }

    /// `sqlbatch_conn_exec` as it is: any bytes, any parameter set.
    pub fn exec_raw(&self, sql: &[u8], params: Option<&sqlbatch_params>) -> (i32, sqlbatch_exec_result) {
        let mut r = sqlbatch_exec_result::default();
        let rc =
            unsafe { sqlbatch_conn_exec(self.0, sql.as_ptr().cast(), sql.len(), params_ptr(params), &mut r) };
        (rc, r)
    }

    pub fn prepare(&self, sql: &str) -> Stmt {
        self.prepare_flags(sql, 0)
    }

    pub fn prepare_flags(&self, sql: &str, flags: u32) -> Stmt {
        match self.try_prepare(sql.as_bytes(), flags) {
            (SQLBATCH_OK, Some(s), _) => s,
            (rc, _, _) => panic!("prepare {sql}: {rc} {}", self.error().1),
        }
    }

    /// `sqlbatch_stmt_prepare`: (status, the statement, the tail offset).
    pub fn try_prepare(&self, sql: &[u8], flags: u32) -> (i32, Option<Stmt>, usize) {
        let (mut s, mut tail) = (ptr::null_mut(), usize::MAX);
        let rc = unsafe {
            sqlbatch_stmt_prepare(self.0, sql.as_ptr().cast(), sql.len(), flags, &mut s, &mut tail)
        };
        assert_eq!(rc == SQLBATCH_OK, !s.is_null(), "prepare returned {rc} and statement {s:?}");
        (rc, (!s.is_null()).then_some(Stmt(s)), tail)
    }

    pub fn autocommit(&self) -> bool {
        let mut auto = false;
        assert_eq!(unsafe { sqlbatch_conn_autocommit(self.0, &mut auto) }, SQLBATCH_OK);
        auto
    }

    pub fn total_changes(&self) -> i64 {
        let mut n = 0;
        assert_eq!(unsafe { sqlbatch_conn_total_changes(self.0, &mut n) }, SQLBATCH_OK);
        n
    }

    pub fn error(&self) -> (sqlbatch_error, String) {
        last_error_of(self.0)
    }

    /// All rows of `sql` through the batched fetch, which must succeed.
    pub fn rows(&self, sql: &str) -> Rows {
        self.try_rows(sql, usize::MAX).unwrap_or_else(|rc| panic!("{sql}: {rc} {}", self.error().1))
    }

    /// The first `limit` rows of `sql` through the batched fetch, or the status that stopped it.
    pub fn try_rows(&self, sql: &str, limit: usize) -> Result<Rows, i32> {
        let s = match self.try_prepare(sql.as_bytes(), 0) {
            (SQLBATCH_OK, Some(s), _) => s,
            (rc, _, _) => return Err(rc),
        };
        let mut out = Vec::new();
        let rc = s.each_batch(64, 1 << 16, |b| {
            out.extend(batch_rows(b));
            out.len() < limit
        });
        out.truncate(limit);
        match rc {
            SQLBATCH_ROW | SQLBATCH_DONE => Ok(out),
            rc => Err(rc),
        }
    }

    /// Every table's rows (see [`dump`]), at most `limit` rows a table.
    pub fn dump(&self, limit: usize) -> Option<Vec<Rows>> {
        dump(|q| self.try_rows(q, limit))
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        unsafe { sqlbatch_conn_close(self.0) };
    }
}

/// A statement through the ABI, finalized on drop.
pub struct Stmt(pub *mut sqlbatch_stmt);

impl Stmt {
    pub fn fetch(&self, max_rows: usize, max_bytes: usize) -> (i32, sqlbatch_batch) {
        let mut b: sqlbatch_batch = unsafe { std::mem::zeroed() };
        let rc = unsafe { sqlbatch_stmt_fetch(self.0, max_rows, max_bytes, &mut b) };
        (rc, b)
    }

    /// Fetches batches until DONE, an error, or `on_batch` returns false; returns the last
    /// status (ROW when stopped early).
    pub fn each_batch(
        &self,
        max_rows: usize,
        max_bytes: usize,
        mut on_batch: impl FnMut(&sqlbatch_batch) -> bool,
    ) -> i32 {
        loop {
            let (rc, b) = self.fetch(max_rows, max_bytes);
            if rc != SQLBATCH_ROW && rc != SQLBATCH_DONE {
                return rc;
            }
            if !on_batch(&b) || rc == SQLBATCH_DONE {
                return rc;
            }
        }
    }

    /// Fetches to the end, returning every row.
    pub fn all(&self, max_rows: usize, max_bytes: usize) -> Rows {
        let mut out = Vec::new();
        let rc = self.each_batch(max_rows, max_bytes, |b| {
            out.extend(batch_rows(b));
            true
        });
        assert_eq!(rc, SQLBATCH_DONE, "fetch returned {rc}");
        out
    }

    /// Binds `p` (`sqlbatch_stmt_bind`).
    pub fn bind(&self, p: &Params) -> i32 {
        unsafe { sqlbatch_stmt_bind(self.0, &p.as_c()) }
    }

    /// Runs the statement for `n_rows` rows of values from `p` (`sqlbatch_stmt_execute_many`).
    pub fn execute_many(&self, p: &Params, n_rows: usize) -> (i32, sqlbatch_write_result) {
        self.execute_many_raw(Some(&p.as_c()), n_rows)
    }

    pub fn execute_many_raw(
        &self,
        rows: Option<&sqlbatch_params>,
        n_rows: usize,
    ) -> (i32, sqlbatch_write_result) {
        let mut w = sqlbatch_write_result::default();
        if ahead_mode() {
            // Write-behind: the same rows and result through start and wait.
            let rc = unsafe { sqlbatch_stmt_execute_many_start(self.0, params_ptr(rows), n_rows) };
            if rc != SQLBATCH_OK {
                return (rc, w);
            }
            let rc = unsafe { sqlbatch_stmt_execute_many_wait(self.0, &mut w) };
            return (rc, w);
        }
        let rc = unsafe { sqlbatch_stmt_execute_many(self.0, params_ptr(rows), n_rows, &mut w) };
        (rc, w)
    }

    /// The names of the parameters (`sqlbatch_stmt_params`); `None` for a nameless `?`.
    pub fn params(&self) -> Vec<Option<String>> {
        let (mut names, mut n) = (ptr::null(), usize::MAX);
        assert_eq!(unsafe { sqlbatch_stmt_params(self.0, &mut names, &mut n) }, SQLBATCH_OK);
        assert_eq!(names.is_null(), n == 0, "params array {names:?} for {n} parameters");
        (0..n)
            .map(|i| {
                let s = unsafe { *names.add(i) };
                (!s.ptr.is_null()).then(|| unsafe { CStr::from_ptr(s.ptr) }.to_string_lossy().into_owned())
            })
            .collect()
    }

    /// `sqlbatch_stmt_param_index`.
    pub fn param_index(&self, name: &[u8]) -> (i32, usize) {
        let mut i = usize::MAX;
        let rc = unsafe { sqlbatch_stmt_param_index(self.0, name.as_ptr().cast(), name.len(), &mut i) };
        (rc, i)
    }

    pub fn finalize(self) {
        unsafe { sqlbatch_stmt_finalize(self.0) };
        std::mem::forget(self);
    }
}

impl Drop for Stmt {
    fn drop(&mut self) {
        unsafe { sqlbatch_stmt_finalize(self.0) };
    }
}

// ---- the plain-SQLite reference ------------------------------------------------------------

/// The schema listing [`dump`] starts from.
pub const DUMP_TABLES: &str =
    "SELECT name, type, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite%' ORDER BY name";

/// Every table of a database read through `read` (for comparing two databases after the same
/// SQL ran on both): the schema listing, then each table's rows in scan order; `None` if a
/// table cannot be read.
pub fn dump(mut read: impl FnMut(&str) -> Result<Rows, i32>) -> Option<Vec<Rows>> {
    let names = read(DUMP_TABLES).ok()?;
    let mut out = vec![names.clone()];
    for n in names {
        let Val::Text(name) = &n[0] else { return None };
        let q = format!("SELECT * FROM \"{}\"", String::from_utf8_lossy(name).replace('"', "\"\""));
        out.push(read(&q).ok()?);
    }
    Some(out)
}

/// A plain SQLite connection (extended result codes, no mutex, as sqlbatch opens them), read
/// one column at a time with `sqlite3_column_*`.
pub struct Raw(pub *mut sq::sqlite3);

impl Raw {
    pub fn open(path: &str) -> Raw {
        let c = CString::new(path).unwrap();
        let mut db = ptr::null_mut();
        let flags = sq::SQLITE_OPEN_READWRITE | sq::SQLITE_OPEN_CREATE | sq::SQLITE_OPEN_NOMUTEX;
        assert_eq!(unsafe { sq::sqlite3_open_v2(c.as_ptr(), &mut db, flags, ptr::null()) }, sq::SQLITE_OK);
        unsafe { sq::sqlite3_extended_result_codes(db, 1) };
        Raw(db)
    }

    pub fn memory() -> Raw {
        Self::open(":memory:")
    }

    /// `sqlite3_exec`, which must succeed.
    pub fn exec(&self, sql: &str) {
        assert_eq!(self.try_exec(sql), sq::SQLITE_OK, "{sql}: {}", self.errmsg());
    }

    pub fn try_exec(&self, sql: &str) -> i32 {
        let c = CString::new(sql).unwrap();
        unsafe { sq::sqlite3_exec(self.0, c.as_ptr(), None, ptr::null_mut(), ptr::null_mut()) }
    }

    pub fn errmsg(&self) -> String {
        unsafe { CStr::from_ptr(sq::sqlite3_errmsg(self.0)) }.to_string_lossy().into_owned()
    }

    pub fn extended(&self) -> i32 {
        unsafe { sq::sqlite3_extended_errcode(self.0) }
    }

    /// Prepares the first statement of `sql`, which must compile.
    pub fn prepare(&self, sql: &str) -> *mut sq::sqlite3_stmt {
        let (rc, s, _) = unsafe { self.try_prepare(sql.as_bytes()) };
        assert_eq!(rc, sq::SQLITE_OK, "{sql}: {}", self.errmsg());
        s
    }

    /// Prepares the first statement of `sql`; returns (extended rc, stmt, bytes consumed).
    pub unsafe fn try_prepare(&self, sql: &[u8]) -> (i32, *mut sq::sqlite3_stmt, usize) {
        let mut s = ptr::null_mut();
        let mut tail = ptr::null();
        let rc = sq::sqlite3_prepare_v2(self.0, sql.as_ptr().cast(), sql.len() as c_int, &mut s, &mut tail);
        let used = if tail.is_null() { sql.len() } else { (tail as usize) - (sql.as_ptr() as usize) };
        (if rc == sq::SQLITE_OK { rc } else { self.extended() }, s, used)
    }

    /// Every row of `sql`, which must succeed.
    pub fn rows(&self, sql: &str) -> Rows {
        self.try_rows(sql, usize::MAX).unwrap_or_else(|rc| panic!("{sql}: {rc} {}", self.errmsg()))
    }

    /// The first `limit` rows of `sql`, or the extended code that stopped it.
    pub fn try_rows(&self, sql: &str, limit: usize) -> Result<Rows, i32> {
        unsafe {
            let (rc, s, _) = self.try_prepare(sql.as_bytes());
            if rc != sq::SQLITE_OK {
                return Err(rc);
            }
            let (rows, rc) = step_all(self, s, limit);
            sq::sqlite3_finalize(s);
            if rc == sq::SQLITE_DONE || rc == sq::SQLITE_ROW {
                Ok(rows)
            } else {
                Err(rc)
            }
        }
    }

    /// Every table's rows, as [`Conn::dump`].
    pub fn dump(&self, limit: usize) -> Option<Vec<Rows>> {
        dump(|q| self.try_rows(q, limit))
    }

    /// Inserts `rows` into `table` with a prepared statement, one row at a time.
    pub fn insert(&self, table: &str, rows: &[Vec<Val>]) {
        let ncols = rows.first().map_or(0, |r| r.len());
        let marks = vec!["?"; ncols].join(", ");
        let s = self.prepare(&format!("INSERT INTO {table} VALUES ({marks})"));
        unsafe {
            for row in rows {
                for (i, v) in row.iter().enumerate() {
                    assert_eq!(bind_raw(s, i as c_int + 1, v), sq::SQLITE_OK);
                }
                assert_eq!(sq::sqlite3_step(s), sq::SQLITE_DONE, "{}", self.errmsg());
                sq::sqlite3_reset(s);
            }
            sq::sqlite3_finalize(s);
        }
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        unsafe { sq::sqlite3_close(self.0) };
    }
}

/// Binds `v` to parameter `i` the way a plain SQLite user would.
pub unsafe fn bind_raw(s: *mut sq::sqlite3_stmt, i: c_int, v: &Val) -> i32 {
    match v {
        Val::Null => sq::sqlite3_bind_null(s, i),
        Val::Int(x) => sq::sqlite3_bind_int64(s, i, *x),
        Val::Float(b) => sq::sqlite3_bind_double(s, i, f64::from_bits(*b)),
        Val::Text(t) => {
            sq::sqlite3_bind_text(s, i, t.as_ptr().cast(), t.len() as c_int, sq::SQLITE_TRANSIENT())
        }
        Val::Blob(b) if b.is_empty() => sq::sqlite3_bind_zeroblob(s, i, 0),
        Val::Blob(b) => {
            sq::sqlite3_bind_blob(s, i, b.as_ptr().cast(), b.len() as c_int, sq::SQLITE_TRANSIENT())
        }
    }
}

/// Reads column `c` of the current row with `sqlite3_column_*`.
pub unsafe fn column(s: *mut sq::sqlite3_stmt, c: c_int) -> Val {
    match sq::sqlite3_column_type(s, c) {
        sq::SQLITE_INTEGER => Val::Int(sq::sqlite3_column_int64(s, c)),
        sq::SQLITE_FLOAT => Val::Float(sq::sqlite3_column_double(s, c).to_bits()),
        sq::SQLITE_TEXT => {
            let p = sq::sqlite3_column_text(s, c);
            let n = sq::sqlite3_column_bytes(s, c) as usize;
            Val::Text(if n == 0 { vec![] } else { std::slice::from_raw_parts(p, n).to_vec() })
        }
        sq::SQLITE_BLOB => {
            let p = sq::sqlite3_column_blob(s, c).cast::<u8>();
            let n = sq::sqlite3_column_bytes(s, c) as usize;
            Val::Blob(if n == 0 { vec![] } else { std::slice::from_raw_parts(p, n).to_vec() })
        }
        _ => Val::Null,
    }
}

/// Steps `s` to its end (or `limit` rows), reading every row; returns the rows and the last
/// step's extended code (`SQLITE_DONE`, or the error; `SQLITE_ROW` if cut at `limit`).
pub unsafe fn step_all(db: &Raw, s: *mut sq::sqlite3_stmt, limit: usize) -> (Rows, i32) {
    let mut rows = Vec::new();
    if s.is_null() {
        return (rows, sq::SQLITE_DONE);
    }
    loop {
        if rows.len() >= limit {
            return (rows, sq::SQLITE_ROW);
        }
        match sq::sqlite3_step(s) {
            sq::SQLITE_ROW => {
                let n = sq::sqlite3_column_count(s);
                rows.push((0..n).map(|c| column(s, c)).collect());
            }
            sq::SQLITE_DONE => return (rows, sq::SQLITE_DONE),
            _ => return (rows, db.extended()),
        }
    }
}
