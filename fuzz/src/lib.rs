//! Shared parts of the fuzz targets: decoding an input, guarding against SQL that would run
//! forever or eat memory, a raw-SQLite reference to compare with, and checks of what the
//! C ABI hands back.
//!
//! Input layout (every target): the first [`CONTROL`] bytes are knobs (parameter values,
//! batch bounds, flags), read through [`Knobs`] (which yields zeros once they run out), and
//! the rest is the SQL, passed as raw bytes (invalid UTF-8 and NUL bytes included).
//! `fuzz/seeds.py` writes the seed corpora in this layout.
//!
//! Values, their generator ([`pick_value`]), parameter sets, checked batch decoding, the ABI
//! wrappers ([`Conn`]) and the raw-SQLite reference ([`Raw`]) come from the test kit that the
//! tests and the criterion benchmark share (`tests/common/kit.rs`), re-exported here.

#![allow(clippy::missing_safety_doc, clippy::not_unsafe_ptr_arg_deref)]

use std::ffi::{c_int, CStr};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

use libsqlite3_sys as sq;
pub use sqlbatch::*;

#[path = "../../tests/common/kit.rs"]
mod kit;
pub use kit::*;

pub mod functions;

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
    (Knobs::from(&data[..n]), &data[n..])
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

/// Whether a status is one the ABI documents: OK, ROW, DONE, a library code, or a code of the
/// bundled SQLite (exactly the codes `sqlbatch_code_name` knows).
pub fn known_status(rc: i32) -> bool {
    !sqlbatch_code_name(rc).is_null()
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

/// Checks that a connection still works after whatever the fuzzed SQL did.
pub trait CheckUsable {
    fn check_usable(&self);
}

impl CheckUsable for Conn {
    fn check_usable(&self) {
        if !self.autocommit() {
            let _ = self.try_exec("ROLLBACK");
        }
        assert_eq!(self.rows("SELECT 40 + 2"), vec![vec![Val::Int(42)]]);
    }
}

/// The schema and rows both sides start from: every storage class, mixed within columns.
pub const SETUP: &str = "CREATE TABLE t(a, b TEXT, c INTEGER, d REAL, e BLOB);
INSERT INTO t VALUES (1, 'one', 1, 1.5, x'01'), (NULL, '', -9223372036854775808, -0.0, x''),
  ('two', 2, 'x', 9e999, NULL), (4.5, x'00ff', 9223372036854775807, 'nan?', 'text'),
  (x'', NULL, 3.0, -9e999, 12), ('h\u{e9}llo \u{2713} \u{1d11e}', 'n', 0, 5e-324, zeroblob(3));
CREATE TABLE u(k INTEGER PRIMARY KEY, v UNIQUE, w NOT NULL DEFAULT 0);
CREATE INDEX ti ON t(b);";
