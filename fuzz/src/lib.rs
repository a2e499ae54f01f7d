//! Shared parts of the fuzz targets: decoding an input, guarding against SQL that would run
//! forever or eat memory, a raw-SQLite reference to compare with, and checks of what the
//! C ABI hands back.
//!
//! Input layout (every target): the first [`CONTROL`] bytes are knobs (parameter values,
//! batch bounds, flags), read through [`Knobs`] (which yields zeros once they run out), and
//! the rest is the SQL, passed as raw bytes (invalid UTF-8 and NUL bytes included).
//! `fuzz/seeds.py` writes the seed corpora in this layout.

#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_int, CStr};
use std::ptr;
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

use libsqlite3_sys as sq;
pub use sqlbatch::*;

/// Bytes of knobs before the SQL.
pub const CONTROL: usize = 48;

/// How long one call may run before the watchdog interrupts it.
pub const DEADLINE: Duration = Duration::from_millis(250);

/// At most this many rows are compared; longer results are cut short on both sides.
pub const MAX_ROWS: usize = 20_000;

/// SQLite's heap limit for the fuzz process (enforced because memory statistics are on).
pub const HEAP_LIMIT: i64 = 256 << 20;

/// Splits an input into its knobs and its SQL.
pub fn split(data: &[u8]) -> (Knobs<'_>, &[u8]) {
    let n = data.len().min(CONTROL);
    (Knobs { bytes: &data[..n], at: 0 }, &data[n..])
}

/// A reader of knob bytes that yields zeros when they run out.
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

/// One-time process setup: SQLite's memory statistics on (so that the heap limit holds;
/// sqlbatch is built with SQLITE_DEFAULT_MEMSTATUS=0), the heap limit, and the watchdog.
/// (The working directory stays: libFuzzer reads corpus files by relative path. SQL that
/// could write files, ATTACH and VACUUM INTO, is skipped; see [`skip_sql`].)
pub fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| unsafe {
        sq::sqlite3_shutdown();
        sq::sqlite3_config(sq::SQLITE_CONFIG_MEMSTATUS, 1 as c_int);
        assert_eq!(sq::sqlite3_initialize(), sq::SQLITE_OK);
        sq::sqlite3_hard_heap_limit64(HEAP_LIMIT);
        std::thread::spawn(watchdog);
    });
}

/// SQL the harness does not run: it touches files or process-wide settings, or its result
/// is not deterministic (so the two sides could not be compared).
pub fn skip_sql(sql: &[u8]) -> bool {
    let low = sql.to_ascii_lowercase();
    let has = |w: &[u8]| low.windows(w.len()).any(|x| x == w);
    [&b"attach"[..], b"vacuum", b"heap_limit", b"directory", b"load_extension", b"mmap"]
        .iter()
        .any(|w| has(w))
}

/// Whether `sql` may give different results on two identical databases.
pub fn nondeterministic(sql: &[u8]) -> bool {
    let low = sql.to_ascii_lowercase();
    let has = |w: &[u8]| low.windows(w.len()).any(|x| x == w);
    [
        &b"random"[..],
        b"now",
        b"current_",
        b"changes",
        b"julianday",
        b"unixepoch",
        b"strftime",
        b"date",
        b"time",
    ]
    .iter()
    .any(|w| has(w))
}

// ---- the watchdog --------------------------------------------------------------------------

#[derive(Clone, Copy)]
enum Target {
    Conn(*const sqlbatch_conn),
    Raw(*mut sq::sqlite3),
}

struct Armed {
    target: Target,
    deadline: Instant,
    fired: bool,
}

// The pointers are only used while armed, and disarming takes the lock.
unsafe impl Send for Armed {}

static ARMED: Mutex<Option<Armed>> = Mutex::new(None);

fn watchdog() {
    loop {
        std::thread::sleep(Duration::from_millis(5));
        let mut g = ARMED.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(a) = g.as_mut() {
            if Instant::now() >= a.deadline {
                a.fired = true;
                unsafe {
                    match a.target {
                        Target::Conn(c) => sqlbatch_conn_interrupt(c),
                        Target::Raw(db) => sq::sqlite3_interrupt(db),
                    }
                }
            }
        }
    }
}

fn arm(target: Target) {
    *ARMED.lock().unwrap_or_else(|p| p.into_inner()) =
        Some(Armed { target, deadline: Instant::now() + DEADLINE, fired: false });
}

/// Disarms; true if the watchdog interrupted the call.
fn disarm() -> bool {
    ARMED.lock().unwrap_or_else(|p| p.into_inner()).take().is_some_and(|a| a.fired)
}

/// Runs `f` with the watchdog ready to interrupt `conn`; returns f's result and whether
/// the watchdog fired.
pub fn guarded<T>(conn: *const sqlbatch_conn, f: impl FnOnce() -> T) -> (T, bool) {
    arm(Target::Conn(conn));
    let r = f();
    (r, disarm())
}

/// As [`guarded`], for the raw reference connection.
pub fn guarded_raw<T>(db: *mut sq::sqlite3, f: impl FnOnce() -> T) -> (T, bool) {
    arm(Target::Raw(db));
    let r = f();
    (r, disarm())
}

// ---- values --------------------------------------------------------------------------------

/// An owned SQL value, compared by bits (NaN == NaN, -0.0 != 0.0).
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    Null,
    Int(i64),
    Float(u64),
    Text(Vec<u8>),
    Blob(Vec<u8>),
}

const INTS: [i64; 8] = [0, 1, -1, i64::MIN, i64::MAX, 42, 1 << 53, -(1 << 31)];
const FLOATS: [f64; 8] =
    [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1.5, f64::MIN_POSITIVE, 5e-324];
const TEXTS: [&[u8]; 8] =
    [b"", b"a", b"h\xc3\xa9llo \xe2\x9c\x93", b"nul\0inside", b"\xff\xfe bad utf8", b"12", b"4.5", b"x"];

/// A value chosen by two knob bytes from tables of interesting values.
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

/// Parameter values with their bytes in one buffer, as the bindings pass them.
#[derive(Default, Clone)]
pub struct Params {
    pub values: Vec<sqlbatch_value>,
    pub data: Vec<u8>,
}

impl Params {
    pub fn push(&mut self, v: &Val) {
        let mut bytes = |kind, b: &[u8]| {
            let at = self.data.len() as u64;
            self.data.extend_from_slice(b);
            sqlbatch_value { bits: at, len: b.len() as u32, kind, _pad: [0; 3] }
        };
        let value = match v {
            Val::Null => sqlbatch_value::NULL,
            Val::Int(i) => sqlbatch_value::int(*i),
            Val::Float(b) => sqlbatch_value::float(f64::from_bits(*b)),
            Val::Text(b) => bytes(SQLBATCH_TEXT, b),
            Val::Blob(b) => bytes(SQLBATCH_BLOB, b),
        };
        self.values.push(value);
    }

    /// A value struct straight from knob bytes: any kind tag, offsets and lengths that may
    /// lie outside `data` (the library must refuse them, never read out of bounds).
    pub fn push_raw(&mut self, k: &mut Knobs<'_>) {
        let kind = k.byte();
        let bits = k.byte() as u64 * if k.bit() { u64::MAX / 255 } else { 1 };
        let len = k.byte() as u32 * if k.bit() { u32::MAX / 255 } else { 1 };
        self.values.push(sqlbatch_value { bits, len, kind, _pad: [0; 3] });
    }

    /// The values as the library must read them, `None` when one of them is raw misuse the
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

/// Decodes a cell of a batch whose bytes are at `base` (`base_len` of them), checking it.
pub unsafe fn cell(b: &sqlbatch_batch, base: *const u8, base_len: usize, r: usize, c: usize) -> Val {
    let v = *b.cells.add(r * b.n_cols + c);
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

/// Whether a status is one the ABI documents: OK, ROW, DONE, a library code, or a SQLite code.
pub fn known_status(rc: i32) -> bool {
    matches!(rc, SQLBATCH_OK | SQLBATCH_ROW | SQLBATCH_DONE)
        || (SQLBATCH_E_NULL_PARAMETER..=SQLBATCH_E_BUFFER_TOO_SMALL).contains(&rc)
        || (rc & 0xff >= 1 && rc & 0xff <= 28 && rc >> 8 < 64)
}

/// Statuses after which two runs are not compared: the run was cut short by the watchdog,
/// the heap limit or a size limit.
pub fn cut_short(rc: i32) -> bool {
    matches!(rc & 0xff, sq::SQLITE_INTERRUPT | sq::SQLITE_NOMEM | sq::SQLITE_TOOBIG | sq::SQLITE_FULL)
        || rc == SQLBATCH_E_PANIC
}

/// The connection's last error, with its message checked to be what the header promises.
pub fn last_error(c: *const sqlbatch_conn) -> sqlbatch_error {
    let mut e: sqlbatch_error = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { sqlbatch_conn_last_error(c, &mut e) }, SQLBATCH_OK);
    assert!(!e.message.is_null());
    let msg = unsafe { CStr::from_ptr(e.message) };
    assert_eq!(msg.to_bytes().len(), e.message_len);
    assert!(std::str::from_utf8(msg.to_bytes()).is_ok(), "message not UTF-8");
    e
}

/// A connection through the ABI.
pub struct Conn(pub *mut sqlbatch_conn);

impl Conn {
    pub fn memory() -> Conn {
        let mut c = ptr::null_mut();
        assert_eq!(unsafe { sqlbatch_conn_open(c":memory:".as_ptr(), 8, 0, &mut c) }, SQLBATCH_OK);
        Conn(c)
    }

    /// Runs SQL with no parameters (the harness's own SQL, expected to succeed).
    pub fn exec(&self, sql: &str) -> i32 {
        unsafe {
            sqlbatch_conn_exec(
                self.0,
                sql.as_ptr().cast(),
                sql.len(),
                ptr::null(),
                ptr::null(),
                0,
                ptr::null(),
                0,
                ptr::null_mut(),
            )
        }
    }

    /// Rows of `sql` through the batched fetch (the harness's own queries).
    pub fn rows(&self, sql: &str) -> Vec<Vec<Val>> {
        self.try_rows(sql).unwrap_or_else(|rc| panic!("{sql}: {rc}"))
    }

    /// Rows of `sql` through the batched fetch, or the status that stopped it.
    pub fn try_rows(&self, sql: &str) -> Result<Vec<Vec<Val>>, i32> {
        let mut s = ptr::null_mut();
        let rc = unsafe {
            sqlbatch_stmt_prepare(self.0, sql.as_ptr().cast(), sql.len(), 0, &mut s, ptr::null_mut())
        };
        if rc != SQLBATCH_OK {
            return Err(rc);
        }
        let mut out = Vec::new();
        let status = loop {
            let mut b: sqlbatch_batch = unsafe { std::mem::zeroed() };
            let rc = unsafe { sqlbatch_stmt_fetch(s, 64, 1 << 16, &mut b) };
            if rc != SQLBATCH_ROW && rc != SQLBATCH_DONE {
                break Err(rc);
            }
            for r in 0..b.n_rows {
                out.push((0..b.n_cols).map(|c| unsafe { cell(&b, b.data, b.data_len, r, c) }).collect());
            }
            if rc == SQLBATCH_DONE || out.len() > MAX_ROWS {
                break Ok(());
            }
        };
        unsafe { sqlbatch_stmt_finalize(s) };
        status.map(|()| out)
    }

    /// Every table's rows (for comparing two databases after the same SQL ran on both),
    /// or None if a table cannot be read.
    pub fn dump(&self) -> Option<Vec<Vec<Vec<Val>>>> {
        let names = self.try_rows(DUMP_TABLES).ok()?;
        let mut out = vec![names.clone()];
        for n in names {
            let Val::Text(name) = &n[0] else { return None };
            out.push(self.try_rows(&table_query(name)).ok()?);
        }
        Some(out)
    }

    /// Checks that the connection still works after whatever the fuzzed SQL did.
    pub fn check_usable(&self) {
        let mut auto = true;
        assert_eq!(unsafe { sqlbatch_conn_autocommit(self.0, &mut auto) }, SQLBATCH_OK);
        if !auto {
            self.exec("ROLLBACK");
        }
        assert_eq!(self.rows("SELECT 40 + 2"), vec![vec![Val::Int(42)]]);
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        unsafe { sqlbatch_conn_close(self.0) };
    }
}

/// The schema and rows both sides start from: every storage class, mixed within columns.
pub const SETUP: &str = "CREATE TABLE t(a, b TEXT, c INTEGER, d REAL, e BLOB);
INSERT INTO t VALUES (1, 'one', 1, 1.5, x'01'), (NULL, '', -9223372036854775808, -0.0, x''),
  ('two', 2, 'x', 9e999, NULL), (4.5, x'00ff', 9223372036854775807, 'nan?', 'text'),
  (x'', NULL, 3.0, -9e999, 12), ('h\u{e9}llo \u{2713} \u{1d11e}', 'n', 0, 5e-324, zeroblob(3));
CREATE TABLE u(k INTEGER PRIMARY KEY, v UNIQUE, w NOT NULL DEFAULT 0);
CREATE INDEX ti ON t(b);";

/// The tables to compare after fuzzed SQL ran on two databases.
const DUMP_TABLES: &str =
    "SELECT name, type, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite%' ORDER BY name";

fn table_query(name: &[u8]) -> String {
    format!("SELECT * FROM \"{}\"", String::from_utf8_lossy(name).replace('"', "\"\""))
}

// ---- the raw-SQLite reference --------------------------------------------------------------

/// A plain SQLite connection, read one column at a time with `sqlite3_column_*`.
pub struct Raw(pub *mut sq::sqlite3);

impl Raw {
    pub fn memory() -> Raw {
        let mut db = ptr::null_mut();
        let flags = sq::SQLITE_OPEN_READWRITE | sq::SQLITE_OPEN_CREATE | sq::SQLITE_OPEN_NOMUTEX;
        assert_eq!(
            unsafe { sq::sqlite3_open_v2(c":memory:".as_ptr(), &mut db, flags, ptr::null()) },
            sq::SQLITE_OK
        );
        unsafe { sq::sqlite3_extended_result_codes(db, 1) };
        Raw(db)
    }

    pub fn exec(&self, sql: &str) -> i32 {
        let c = std::ffi::CString::new(sql).unwrap();
        unsafe { sq::sqlite3_exec(self.0, c.as_ptr(), None, ptr::null_mut(), ptr::null_mut()) }
    }

    /// Every table's rows, as [`Conn::dump`].
    pub fn dump(&self) -> Option<Vec<Vec<Vec<Val>>>> {
        let names = self.try_rows(DUMP_TABLES).ok()?;
        let mut out = vec![names.clone()];
        for n in names {
            let Val::Text(name) = &n[0] else { return None };
            out.push(self.try_rows(&table_query(name)).ok()?);
        }
        Some(out)
    }

    /// Rows of `sql`, or the extended code that stopped it.
    pub fn try_rows(&self, sql: &str) -> Result<Vec<Vec<Val>>, i32> {
        unsafe {
            let (rc, s, _) = self.prepare(sql.as_bytes());
            if rc != sq::SQLITE_OK {
                return Err(rc);
            }
            let (rows, rc) = step_all(self, s, MAX_ROWS + 1);
            sq::sqlite3_finalize(s);
            if rc == sq::SQLITE_DONE || rc == sq::SQLITE_ROW {
                Ok(rows)
            } else {
                Err(rc)
            }
        }
    }

    pub fn extended(&self) -> i32 {
        unsafe { sq::sqlite3_extended_errcode(self.0) }
    }

    /// Prepares the first statement of `sql`; returns (rc, stmt, bytes consumed).
    pub unsafe fn prepare(&self, sql: &[u8]) -> (i32, *mut sq::sqlite3_stmt, usize) {
        let mut s = ptr::null_mut();
        let mut tail = ptr::null();
        let rc = sq::sqlite3_prepare_v2(self.0, sql.as_ptr().cast(), sql.len() as c_int, &mut s, &mut tail);
        let used = if tail.is_null() { sql.len() } else { (tail as usize) - (sql.as_ptr() as usize) };
        (if rc == sq::SQLITE_OK { rc } else { self.extended() }, s, used)
    }

    /// All rows of `sql` (the harness's own queries).
    pub fn rows(&self, sql: &str) -> Vec<Vec<Val>> {
        unsafe {
            let (rc, s, _) = self.prepare(sql.as_bytes());
            assert_eq!(rc, sq::SQLITE_OK, "{sql}");
            let (rows, rc) = step_all(self, s, usize::MAX);
            assert_eq!(rc, sq::SQLITE_DONE, "{sql}");
            sq::sqlite3_finalize(s);
            rows
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
pub unsafe fn step_all(db: &Raw, s: *mut sq::sqlite3_stmt, limit: usize) -> (Vec<Vec<Val>>, i32) {
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
