//! An allocation that fails in the library's own buffers fails the call with `SQLITE_NOMEM`;
//! it never aborts the host program. This test process's Rust allocator refuses any single
//! allocation above a limit it sets (SQLite, which allocates with malloc, is not limited, so
//! it can still produce a value too large for the library's buffers).

mod common;
use common::*;
use libsqlite3_sys as sq;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The largest single allocation the Rust allocator grants (usize::MAX: no limit).
static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);
/// The tests set the limit one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

struct Limited;

unsafe impl GlobalAlloc for Limited {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() > LIMIT.load(Ordering::Relaxed) {
            return std::ptr::null_mut();
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > LIMIT.load(Ordering::Relaxed) {
            return std::ptr::null_mut();
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Limited = Limited;

/// Runs `f` with single allocations limited to `limit` bytes.
fn limited<R>(limit: usize, f: impl FnOnce() -> R) -> R {
    LIMIT.store(limit, Ordering::SeqCst);
    let r = f();
    LIMIT.store(usize::MAX, Ordering::SeqCst);
    r
}

const BIG: usize = 40_000_000;
const LIMIT_BYTES: usize = 16 << 20;

#[test]
fn a_value_too_large_for_the_memory_left_fails_the_fetch_and_the_host_lives() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let c = Conn::memory();
    c.exec(&format!(
        "CREATE TABLE t(id INTEGER, v BLOB); INSERT INTO t VALUES (1, zeroblob({BIG})), (2, x'01')"
    ));
    let s = c.prepare("SELECT id, v FROM t ORDER BY id");
    let (rc, _) = limited(LIMIT_BYTES, || s.fetch(10, usize::MAX));
    assert_eq!(rc, sq::SQLITE_NOMEM, "{}", c.error().1);
    assert!(c.error().1.contains("out of memory"), "{}", c.error().1);
    // The statement keeps its error until a reset; then, with memory, it reads everything.
    let (rc, _) = s.fetch(10, usize::MAX);
    assert_eq!(rc, sq::SQLITE_NOMEM);
    assert_eq!(unsafe { sqlbatch_stmt_reset(s.0) }, SQLBATCH_OK);
    let rows = s.all(10, usize::MAX);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0][1], Val::Blob(vec![0; BIG]));
    // A small value still fits under the limit: the connection works as before.
    let rows = limited(LIMIT_BYTES, || c.rows("SELECT id, length(v) FROM t ORDER BY id"));
    assert_eq!(rows, vec![vec![Val::Int(1), Val::Int(BIG as i64)], vec![Val::Int(2), Val::Int(1)]]);
}

#[test]
fn rows_collected_before_the_failure_come_first() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let c = Conn::memory();
    c.exec(&format!(
        "CREATE TABLE t(id INTEGER, v BLOB); INSERT INTO t VALUES (1, x'01'), (2, x'02'), (3, zeroblob({BIG})), (4, x'04')"
    ));
    let s = c.prepare("SELECT id, v FROM t ORDER BY id");
    let (first, second) = limited(LIMIT_BYTES, || {
        let (rc, b) = s.fetch(10, usize::MAX);
        let rows = batch_rows(&b);
        let (rc2, _) = s.fetch(10, usize::MAX);
        ((rc, rows), rc2)
    });
    assert_eq!(first.0, SQLBATCH_ROW);
    assert_eq!(first.1.len(), 2, "the two rows before the large one");
    assert_eq!(second, sq::SQLITE_NOMEM);
}

#[test]
fn a_bound_table_too_large_for_the_memory_left_is_refused() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let c = Conn::memory();
    let s = c.prepare("SELECT count(*) FROM sqlbatch_rows(?)");
    let mut p = Params::default();
    p.push(&Val::Blob(vec![7; BIG]));
    let pc = p.as_c();
    let rc = limited(LIMIT_BYTES, || unsafe { sqlbatch_stmt_bind_rows(s.0, 1, &pc, 1) });
    assert_eq!(rc, sq::SQLITE_NOMEM, "{}", c.error().1);
    assert_eq!(unsafe { sqlbatch_stmt_bind_rows(s.0, 1, &pc, 1) }, SQLBATCH_OK);
    assert_eq!(s.all(10, usize::MAX), vec![vec![Val::Int(1)]]);
}

#[test]
fn a_script_too_large_to_copy_is_refused_before_anything_runs() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let c = Conn::memory();
    c.exec("CREATE TABLE t(a)");
    let mut script = String::from("INSERT INTO t VALUES (1);");
    script.push_str(&" ".repeat(20_000_000));
    let (rc, _) = limited(LIMIT_BYTES, || c.try_exec(&script));
    assert_eq!(rc, sq::SQLITE_NOMEM);
    assert_eq!(c.rows("SELECT count(*) FROM t"), vec![vec![Val::Int(0)]]);
    let (rc, _) = c.try_exec(&script);
    assert_eq!(rc, SQLBATCH_OK);
    assert_eq!(c.rows("SELECT count(*) FROM t"), vec![vec![Val::Int(1)]]);
}

/// A function whose error message is the 20 MB string its user data points at.
unsafe extern "C" fn fail_with_a_long_message(
    call: *mut sqlbatch_call,
    user: *mut std::ffi::c_void,
    _args: *const sqlbatch_value,
    _n: usize,
    _data: *const u8,
) {
    let text = unsafe { &*(user as *const String) };
    unsafe { sqlbatch_call_error(call, 0, text.as_ptr().cast(), text.len()) };
}

#[test]
fn an_error_message_too_long_to_copy_is_replaced_and_the_host_lives() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let c = Conn::memory();
    let message = "m".repeat(20_000_000);
    let rc = unsafe {
        sqlbatch_conn_create_function(
            c.0,
            c"fail".as_ptr(),
            4,
            0,
            0,
            Some(fail_with_a_long_message),
            &message as *const String as *mut std::ffi::c_void,
            None,
        )
    };
    assert_eq!(rc, SQLBATCH_OK);
    // SQLite copies the message with its own allocator; the library's copy of it is refused.
    let (rc, _) = limited(LIMIT_BYTES, || c.try_exec("SELECT fail()"));
    assert_eq!(rc, sq::SQLITE_ERROR);
    assert_eq!(c.error().1, "out of memory copying an error message");
    // With memory, the whole message comes back.
    let (rc, _) = c.try_exec("SELECT fail()");
    assert_eq!(rc, sq::SQLITE_ERROR);
    assert_eq!(c.error().1.len(), message.len());
}

#[test]
fn expanded_sql_too_long_to_copy_is_nomem() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let c = Conn::memory();
    let s = c.prepare("SELECT ?");
    // A 10 MB blob is written as 20 MB of hex in the expanded SQL.
    assert_eq!(s.bind(&Params::of(&[Val::Blob(vec![7; 10_000_000])])), SQLBATCH_OK);
    let mut out = sqlbatch_str { ptr: std::ptr::null(), len: 0 };
    let rc = limited(LIMIT_BYTES, || unsafe { sqlbatch_stmt_expanded_sql(s.0, &mut out) });
    assert_eq!(rc, sq::SQLITE_NOMEM);
    let rc = unsafe { sqlbatch_stmt_expanded_sql(s.0, &mut out) };
    assert_eq!(rc, SQLBATCH_OK);
    assert_eq!(out.len, "SELECT x''".len() + 20_000_000);
}
