//! Small safe helpers for calling the C ABI from Rust tests, the way a C caller would.
#![allow(dead_code)]

use std::ffi::CStr;
use std::ptr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

pub use sqlbatch::*;

pub struct Conn(pub *mut sqlbatch_conn);

impl Conn {
    pub fn open(path: &str) -> Conn {
        Self::open_flags(path, 0)
    }

    pub fn open_flags(path: &str, flags: u32) -> Conn {
        let mut c = ptr::null_mut();
        let rc = unsafe { sqlbatch_conn_open(path.as_ptr().cast(), path.len(), flags, &mut c) };
        assert_eq!(rc, SQLBATCH_OK, "open {path}: {}", last_error_of(c).1);
        Conn(c)
    }

    pub fn memory() -> Conn {
        Self::open(":memory:")
    }

    pub fn exec(&self, sql: &str) {
        let rc = self.try_exec(sql, &[], &[]).0;
        assert_eq!(rc, SQLBATCH_OK, "exec {sql}: {}", self.error().1);
    }

    pub fn try_exec(&self, sql: &str, values: &[sqlbatch_value], data: &[u8]) -> (i32, sqlbatch_exec_result) {
        let mut r = sqlbatch_exec_result::default();
        let rc = unsafe {
            sqlbatch_conn_exec(
                self.0,
                sql.as_ptr().cast(),
                sql.len(),
                values.as_ptr(),
                ptr::null(),
                values.len(),
                data.as_ptr(),
                data.len(),
                &mut r,
            )
        };
        (rc, r)
    }

    pub fn prepare(&self, sql: &str) -> Stmt {
        let mut s = ptr::null_mut();
        let rc = unsafe {
            sqlbatch_stmt_prepare(self.0, sql.as_ptr().cast(), sql.len(), 0, &mut s, ptr::null_mut())
        };
        assert_eq!(rc, SQLBATCH_OK, "prepare {sql}: {}", self.error().1);
        Stmt(s)
    }

    pub fn autocommit(&self) -> bool {
        let mut auto = false;
        assert_eq!(unsafe { sqlbatch_conn_autocommit(self.0, &mut auto) }, SQLBATCH_OK);
        auto
    }

    pub fn error(&self) -> (sqlbatch_error, String) {
        last_error_of(self.0)
    }

    /// All rows of `sql` as owned values.
    pub fn rows(&self, sql: &str) -> Vec<Vec<Val>> {
        let s = self.prepare(sql);
        let rows = s.all(7, usize::MAX);
        s.finalize();
        rows
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        unsafe { sqlbatch_conn_close(self.0) };
    }
}

pub fn last_error_of(c: *const sqlbatch_conn) -> (sqlbatch_error, String) {
    let mut e: sqlbatch_error = unsafe { std::mem::zeroed() };
    if unsafe { sqlbatch_conn_last_error(c, &mut e) } != SQLBATCH_OK {
        return (e, "<no connection>".into());
    }
    let msg = unsafe { CStr::from_ptr(e.message) }.to_string_lossy().into_owned();
    (e, msg)
}

pub struct Stmt(pub *mut sqlbatch_stmt);

impl Stmt {
    pub fn fetch(&self, max_rows: usize, max_bytes: usize) -> (i32, sqlbatch_batch) {
        let mut b: sqlbatch_batch = unsafe { std::mem::zeroed() };
        let rc = unsafe { sqlbatch_stmt_fetch(self.0, max_rows, max_bytes, &mut b) };
        (rc, b)
    }

    /// Fetches to the end, returning every row.
    pub fn all(&self, max_rows: usize, max_bytes: usize) -> Vec<Vec<Val>> {
        let mut out = Vec::new();
        loop {
            let (rc, b) = self.fetch(max_rows, max_bytes);
            assert!(rc == SQLBATCH_ROW || rc == SQLBATCH_DONE, "fetch returned {rc}");
            out.extend(batch_rows(&b));
            if rc == SQLBATCH_DONE {
                return out;
            }
        }
    }

    /// Runs the statement for `n_rows` rows of `n_cols` values from `p`.
    pub fn execute_many(&self, p: &Params, n_rows: usize, n_cols: usize) -> (i32, sqlbatch_write_result) {
        let mut w = sqlbatch_write_result::default();
        let rc = unsafe {
            sqlbatch_stmt_execute_many(
                self.0,
                p.values.as_ptr(),
                n_rows,
                n_cols,
                p.data.as_ptr(),
                p.data.len(),
                &mut w,
            )
        };
        (rc, w)
    }

    pub fn bind(&self, values: &[sqlbatch_value], data: &[u8]) -> i32 {
        unsafe { sqlbatch_stmt_bind(self.0, values.as_ptr(), values.len(), data.as_ptr(), data.len()) }
    }

    pub fn finalize(self) {
        assert_eq!(unsafe { sqlbatch_stmt_finalize(self.0) }, SQLBATCH_OK);
        std::mem::forget(self);
    }
}

impl Drop for Stmt {
    fn drop(&mut self) {
        unsafe { sqlbatch_stmt_finalize(self.0) };
    }
}

/// An owned copy of a cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    Null,
    Int(i64),
    /// Compared by bits, so that NaN == NaN and -0.0 != 0.0.
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

pub fn batch_rows(b: &sqlbatch_batch) -> Vec<Vec<Val>> {
    batch_rows_in(b, b.data)
}

/// The rows of a batch whose bytes are at `base` (the caller's buffer after fetch_into).
pub fn batch_rows_in(b: &sqlbatch_batch, base: *const u8) -> Vec<Vec<Val>> {
    (0..b.n_rows).map(|r| (0..b.n_cols).map(|c| cell(b, base, r, c)).collect()).collect()
}

pub fn cell(b: &sqlbatch_batch, base: *const u8, r: usize, c: usize) -> Val {
    let v = unsafe { *b.cells.add(r * b.n_cols + c) };
    let bytes = || unsafe { std::slice::from_raw_parts(base.add(v.bits as usize), v.len as usize) }.to_vec();
    match v.kind {
        SQLBATCH_NULL => Val::Null,
        SQLBATCH_INTEGER => Val::Int(v.bits as i64),
        SQLBATCH_FLOAT => Val::Float(v.bits),
        SQLBATCH_TEXT => Val::Text(bytes()),
        SQLBATCH_BLOB => Val::Blob(bytes()),
        k => panic!("bad kind {k}"),
    }
}

/// Parameter values with their bytes packed into one buffer, as Go and Haskell pass them.
#[derive(Default)]
pub struct Params {
    pub values: Vec<sqlbatch_value>,
    pub data: Vec<u8>,
}

impl Params {
    pub fn push(&mut self, v: &Val) -> &mut Self {
        let mut bytes = |kind, b: &[u8]| {
            let at = self.data.len() as u64;
            self.data.extend_from_slice(b);
            sqlbatch_value { bits: at, len: b.len() as u32, kind, _pad: [0; 3] }
        };
        let value = match v {
            Val::Null => sqlbatch_value { kind: SQLBATCH_NULL, ..Default::default() },
            Val::Int(i) => sqlbatch_value { bits: *i as u64, kind: SQLBATCH_INTEGER, ..Default::default() },
            Val::Float(b) => sqlbatch_value { bits: *b, kind: SQLBATCH_FLOAT, ..Default::default() },
            Val::Text(b) => bytes(SQLBATCH_TEXT, b),
            Val::Blob(b) => bytes(SQLBATCH_BLOB, b),
        };
        self.values.push(value);
        self
    }

    pub fn of(vals: &[Val]) -> Params {
        let mut p = Params::default();
        for v in vals {
            p.push(v);
        }
        p
    }
}

/// Calls `sqlbatch_conn_interrupt` on `conn` every millisecond until stopped: whatever the
/// moment the call under test reaches, an interrupt arrives while it runs.
pub struct Interrupter {
    stop: Arc<AtomicBool>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Interrupter {
    pub fn start(c: &Conn, after: Duration) -> Interrupter {
        let stop = Arc::new(AtomicBool::new(false));
        let (handle, flag) = (c.0 as usize, stop.clone());
        let thread = thread::spawn(move || {
            thread::sleep(after);
            while !flag.load(Ordering::SeqCst) {
                unsafe { sqlbatch_conn_interrupt(handle as *const sqlbatch_conn) };
                thread::sleep(Duration::from_millis(1));
            }
        });
        Interrupter { stop, thread: Some(thread) }
    }
}

impl Drop for Interrupter {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.thread.take().unwrap().join().unwrap();
    }
}
