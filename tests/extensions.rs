//! Extensions: a shared library loaded by path (only once enabled), a statically linked one
//! initialized on one connection and on every new one (sqlite-vec, a real third-party
//! extension), and the API routines handed to an extension compiled in the loadable style.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::PathBuf;
use std::process::Command;
use std::ptr;

use sqlbatch::*;

/// An extension entry point.
type Init = unsafe extern "C" fn(*mut c_void, *mut *mut c_char, *const c_void) -> c_int;

fn open() -> *mut sqlbatch_conn {
    let mut conn = ptr::null_mut();
    assert_eq!(unsafe { sqlbatch_conn_open(c":memory:".as_ptr(), 8, 0, &mut conn) }, SQLBATCH_OK);
    conn
}

/// The first cell of a query as text (numbers rendered by SQLite), or the error code.
fn text_of(conn: *mut sqlbatch_conn, sql: &str) -> Result<String, i32> {
    let sql = format!("SELECT CAST(({sql}) AS TEXT)");
    unsafe {
        let mut stmt = ptr::null_mut();
        let rc = sqlbatch_stmt_prepare(conn, sql.as_ptr().cast(), sql.len(), 0, &mut stmt, ptr::null_mut());
        if rc != SQLBATCH_OK {
            return Err(rc);
        }
        let mut batch = std::mem::zeroed::<sqlbatch_batch>();
        let rc = sqlbatch_stmt_fetch(stmt, 1, usize::MAX, &mut batch);
        let out = if rc == SQLBATCH_ROW || rc == SQLBATCH_DONE {
            let v = *batch.cells;
            let b = if v.len == 0 {
                &[][..]
            } else {
                std::slice::from_raw_parts(batch.data.add(v.bits as usize), v.len as usize)
            };
            Ok(String::from_utf8_lossy(b).into_owned())
        } else {
            Err(rc)
        };
        sqlbatch_stmt_finalize(stmt);
        out
    }
}

fn message(conn: *mut sqlbatch_conn) -> String {
    let mut e = std::mem::MaybeUninit::<sqlbatch_error>::uninit();
    unsafe {
        sqlbatch_conn_last_error(conn, e.as_mut_ptr());
        CStr::from_ptr(e.assume_init().message).to_string_lossy().into_owned()
    }
}

/// tests/ext/half.c built as a shared library against the bundled sqlite3ext.h.
/// `tag` keeps the tests, which run in parallel, out of each other's directories.
fn half_so(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sqlbatch-ext-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let so = dir.join("half.so");
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ext/half.c");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(cc)
        .args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(&so)
        .arg(format!("-I{}", env!("SQLBATCH_SQLITE_INCLUDE")))
        .arg(src)
        .status()
        .expect("a C compiler");
    assert!(status.success(), "building {src}");
    so
}

fn load(conn: *mut sqlbatch_conn, path: &str, entry: Option<&str>) -> i32 {
    let (e, n) = entry.map_or((ptr::null(), 0), |e| (e.as_ptr().cast::<c_char>(), e.len()));
    unsafe { sqlbatch_conn_load_extension(conn, path.as_ptr().cast(), path.len(), e, n) }
}

#[test]
fn a_shared_library_loads_by_path_only_once_enabled() {
    let so = half_so("by-path");
    let path = so.to_str().unwrap();
    let conn = open();
    // Off by default, through the C API and through SQL.
    assert_eq!(load(conn, path, None), libsqlite3_sys::SQLITE_ERROR);
    assert!(message(conn).contains("not authorized"), "{}", message(conn));
    assert_eq!(unsafe { sqlbatch_conn_enable_load_extension(conn, true) }, SQLBATCH_OK);
    assert!(text_of(conn, &format!("load_extension('{path}')")).is_err(), "SQL's load_extension stays off");
    // The default entry point is derived from the file name: sqlite3_half_init.
    assert_eq!(load(conn, path, None), SQLBATCH_OK);
    assert_eq!(text_of(conn, "half(5)").unwrap(), "2.5");
    // An entry point that fails, and one that does not exist: SQLite's message comes back.
    assert_eq!(load(conn, path, Some("sqlite3_half_fail")), libsqlite3_sys::SQLITE_ERROR);
    assert!(message(conn).contains("refusing on purpose"), "{}", message(conn));
    assert_eq!(load(conn, path, Some("no_such_entry")), libsqlite3_sys::SQLITE_ERROR);
    assert_eq!(load(conn, "/no/such/file.so", None), libsqlite3_sys::SQLITE_ERROR);
    // Turned off again, the next load is refused.
    assert_eq!(unsafe { sqlbatch_conn_enable_load_extension(conn, false) }, SQLBATCH_OK);
    assert_eq!(load(conn, path, None), libsqlite3_sys::SQLITE_ERROR);
    assert_eq!(
        unsafe { sqlbatch_conn_load_extension(conn, ptr::null(), 0, ptr::null(), 0) },
        SQLBATCH_E_NULL_PARAMETER
    );
    unsafe { sqlbatch_conn_close(conn) };
    let _ = std::fs::remove_dir_all(so.parent().unwrap());
}

extern "C" {
    fn dlopen(file: *const c_char, mode: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void;
}

#[test]
fn an_extension_in_the_loadable_style_gets_the_api_routines() {
    // half.c calls SQLite only through the routines it is given (SQLITE_EXTENSION_INIT2), as
    // an extension linked beside the symbol-hiding libsqlbatch.a must.
    let so = half_so("static");
    let path = std::ffi::CString::new(so.to_str().unwrap()).unwrap();
    let init: sqlbatch_extension_init_fn = unsafe {
        let h = dlopen(path.as_ptr(), 2);
        assert!(!h.is_null());
        let f = dlsym(h, c"sqlite3_half_init".as_ptr());
        assert!(!f.is_null());
        Some(std::mem::transmute::<*mut c_void, Init>(f))
    };
    let conn = open();
    assert_eq!(unsafe { sqlbatch_conn_init_extension(conn, init) }, SQLBATCH_OK);
    assert_eq!(text_of(conn, "half(7)").unwrap(), "3.5");
    assert_eq!(unsafe { sqlbatch_conn_init_extension(conn, None) }, SQLBATCH_E_NULL_PARAMETER);
    unsafe { sqlbatch_conn_close(conn) };
    let _ = std::fs::remove_dir_all(so.parent().unwrap());
}

fn vec_init() -> sqlbatch_extension_init_fn {
    Some(unsafe { std::mem::transmute::<unsafe extern "C" fn(), Init>(sqlite_vec::sqlite3_vec_init) })
}

#[test]
fn sqlite_vec_initializes_statically_per_connection_and_for_every_new_one() {
    let conn = open();
    assert!(text_of(conn, "vec_version()").is_err(), "not there before");
    assert_eq!(unsafe { sqlbatch_conn_init_extension(conn, vec_init()) }, SQLBATCH_OK);
    assert!(text_of(conn, "vec_version()").unwrap().starts_with('v'));
    // A vector query: L2 distance, and a KNN search over a vec0 table.
    assert_eq!(text_of(conn, "vec_distance_l2('[1, 2]', '[4, 6]')").unwrap(), "5.0");
    let script = "CREATE VIRTUAL TABLE v USING vec0(e float[2]);
        INSERT INTO v(rowid, e) VALUES (1, '[0, 0]'), (2, '[1, 1]'), (3, '[5, 5]')";
    let rc = unsafe {
        sqlbatch_conn_exec(conn, script.as_ptr().cast(), script.len(), ptr::null(), ptr::null_mut())
    };
    assert_eq!(rc, SQLBATCH_OK, "{}", message(conn));
    let nearest = "SELECT rowid FROM v WHERE e MATCH '[4, 4]' ORDER BY distance LIMIT 1";
    assert_eq!(text_of(conn, nearest).unwrap(), "3");
    unsafe { sqlbatch_conn_close(conn) };

    // For every new connection, until cancelled.
    assert_eq!(unsafe { sqlbatch_auto_extension(vec_init()) }, SQLBATCH_OK);
    let c2 = open();
    assert!(text_of(c2, "vec_version()").unwrap().starts_with('v'));
    assert_eq!(unsafe { sqlbatch_cancel_auto_extension(vec_init()) }, SQLBATCH_OK);
    assert_eq!(unsafe { sqlbatch_cancel_auto_extension(vec_init()) }, SQLBATCH_DONE);
    let c3 = open();
    assert!(text_of(c3, "vec_version()").is_err());
    assert_eq!(unsafe { sqlbatch_auto_extension(None) }, SQLBATCH_E_NULL_PARAMETER);
    unsafe {
        sqlbatch_conn_close(c2);
        sqlbatch_conn_close(c3);
    }
}
