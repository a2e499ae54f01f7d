//! SQLite extensions: shared libraries loaded by path (off unless a connection enables it), and
//! statically linked extensions initialized through their `sqlite3_*_init` entry point, on one
//! connection or on every new one.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use libsqlite3_sys as ffi;

/// An extension's entry point, as SQLite's loadable extensions define it:
/// `int sqlite3_NAME_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi)`.
/// `db` is the `sqlite3 *` of the connection; the extension must call SQLite through `pApi`
/// (`SQLITE_EXTENSION_INIT2(pApi)`, i.e. compiled without `SQLITE_CORE`) when the library is
/// linked statically, since libsqlbatch.a keeps its SQLite's symbols to itself; an extension
/// compiled with `SQLITE_CORE` works only where those symbols are this SQLite's (as in a Rust
/// program that links the crate). On failure it sets `*pzErrMsg` to a message from
/// `sqlite3_malloc` and returns an SQLite error code.
pub type sqlbatch_extension_init_fn =
    Option<unsafe extern "C" fn(db: *mut c_void, err_msg: *mut *mut c_char, api: *const c_void) -> c_int>;

/// The entry point without its Option.
pub(crate) type InitFn = unsafe extern "C" fn(*mut c_void, *mut *mut c_char, *const c_void) -> c_int;

extern "C" {
    // In the bundled SQLite; blocklisted from libsqlite3-sys's generated bindings.
    pub(crate) fn sqlite3_auto_extension(x: Option<unsafe extern "C" fn()>) -> c_int;
    pub(crate) fn sqlite3_cancel_auto_extension(x: Option<unsafe extern "C" fn()>) -> c_int;
}

/// The address of the bundled SQLite's `sqlite3_api_routines`, which SQLite hands only to
/// extensions it initializes itself: found once by registering a recorder as an automatic
/// extension, opening a private connection, and cancelling it again.
pub(crate) fn api_routines() -> *const c_void {
    static API: OnceLock<usize> = OnceLock::new();
    static SEEN: AtomicUsize = AtomicUsize::new(0);
    unsafe extern "C" fn record(_db: *mut c_void, _err: *mut *mut c_char, api: *const c_void) -> c_int {
        SEEN.store(api as usize, Ordering::SeqCst);
        ffi::SQLITE_OK
    }
    *API.get_or_init(|| {
        // SAFETY: `record` has the entry-point signature SQLite calls automatic extensions
        // with; the private connection is opened and closed here.
        unsafe {
            let entry: unsafe extern "C" fn() = std::mem::transmute(
                record as unsafe extern "C" fn(*mut c_void, *mut *mut c_char, *const c_void) -> c_int,
            );
            sqlite3_auto_extension(Some(entry));
            let mut db = ptr::null_mut();
            ffi::sqlite3_open_v2(c":memory:".as_ptr(), &mut db, ffi::SQLITE_OPEN_READWRITE, ptr::null());
            ffi::sqlite3_close(db);
            sqlite3_cancel_auto_extension(Some(entry));
            SEEN.load(Ordering::SeqCst)
        }
    }) as *const c_void
}

/// Takes an error message SQLite allocated, freeing it.
///
/// # Safety
/// `msg` must be NULL or a NUL-terminated string from `sqlite3_malloc`.
pub(crate) unsafe fn take_message(msg: *mut c_char, fallback: &str) -> String {
    if msg.is_null() {
        return fallback.to_owned();
    }
    // SAFETY: the caller's contract.
    unsafe {
        let s = crate::error::owned_text(CStr::from_ptr(msg).to_bytes()).into_owned();
        ffi::sqlite3_free(msg.cast());
        s
    }
}
