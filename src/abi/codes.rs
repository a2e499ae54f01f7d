//! Entry points: versions and the names and descriptions of status codes.

use std::ffi::c_char;

use crate::codes;

/// sqlbatch_code_str describes a status code in English.
///
/// Works for the library's own codes and for every SQLite result code, primary or extended
/// (through `sqlite3_errstr`). Unknown codes give "unknown error".
///
/// Lifetime: the string is static, NUL-terminated, and must not be freed.
/// @return never NULL.
#[no_mangle]
pub extern "C" fn sqlbatch_code_str(code: i32) -> *const c_char {
    codes::description(code)
}

/// sqlbatch_code_name gives the symbolic name of a status code, as the C headers spell it:
/// "SQLITE_CONSTRAINT_UNIQUE", "SQLITE_BUSY", "SQLBATCH_E_RANGE", "SQLBATCH_OK".
///
/// Knows every primary and extended result code of the bundled SQLite and every library
/// code, so that bindings need no table of their own (they print it beside the message, and
/// name their error constants after it).
///
/// Lifetime: the string is static, NUL-terminated, and must not be freed. Any thread.
/// @return the name, or NULL for a code that is neither SQLite's nor the library's.
#[no_mangle]
pub extern "C" fn sqlbatch_code_name(code: i32) -> *const c_char {
    codes::name(code).map_or(std::ptr::null(), |name| name.as_ptr())
}

/// sqlbatch_version returns the version of this library, e.g. "0.1.0".
///
/// Lifetime: static, NUL-terminated, must not be freed. It equals the `SQLBATCH_VERSION` macro
/// of the header the caller was compiled against when the two match.
#[no_mangle]
pub extern "C" fn sqlbatch_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// sqlbatch_sqlite_version returns the version of the SQLite library built into sqlbatch, e.g. "3.54.1".
///
/// Lifetime: static, NUL-terminated, must not be freed.
#[no_mangle]
pub extern "C" fn sqlbatch_sqlite_version() -> *const c_char {
    // SAFETY: sqlite3_libversion returns a static string.
    unsafe { libsqlite3_sys::sqlite3_libversion() }
}
