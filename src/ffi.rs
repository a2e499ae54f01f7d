//! Pointer checks for arguments that come in from C: a NULL is an error, never a crash.

use std::ffi::{c_char, CString};

use crate::codes::SQLBATCH_E_INVALID_ARGUMENT;
use crate::error::Error;

/// A shared reference from a pointer, or a NULL-parameter error naming `what`.
///
/// # Safety
/// A non-NULL `ptr` must point to a live `T`.
pub(crate) unsafe fn try_ref<'a, T>(ptr: *const T, what: &'static str) -> Result<&'a T, Error> {
    // SAFETY: a non-NULL `ptr` points to a live `T` (the caller's contract).
    unsafe { ptr.as_ref() }.ok_or_else(|| Error::null(what))
}

/// A mutable reference from a pointer, or a NULL-parameter error naming `what`.
///
/// # Safety
/// A non-NULL `ptr` must point to a live `T` that nothing else is using.
pub(crate) unsafe fn try_mut<'a, T>(ptr: *mut T, what: &'static str) -> Result<&'a mut T, Error> {
    // SAFETY: as for `try_ref`, and nothing else uses the `T`.
    unsafe { ptr.as_mut() }.ok_or_else(|| Error::null(what))
}

/// A slice from a pointer and a length. A NULL pointer is fine when `len == 0`.
///
/// # Safety
/// A non-NULL `ptr` must point to `len` live `T`s.
pub(crate) unsafe fn try_slice<'a, T>(
    ptr: *const T,
    len: usize,
    what: &'static str,
) -> Result<&'a [T], Error> {
    if len == 0 {
        Ok(&[])
    } else if ptr.is_null() {
        Err(Error::null(what))
    } else {
        // SAFETY: `ptr` points to `len` live `T`s (the caller's contract).
        Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
    }
}

/// The bytes of a `(const char *, size_t)` argument.
///
/// # Safety
/// As for [`try_slice`].
pub(crate) unsafe fn try_bytes<'a>(
    ptr: *const c_char,
    len: usize,
    what: &'static str,
) -> Result<&'a [u8], Error> {
    // SAFETY: as for this function.
    unsafe { try_slice(ptr.cast::<u8>(), len, what) }
}

/// Writes `value` through `out` if `out` is not NULL.
///
/// # Safety
/// A non-NULL `out` must be valid for writes.
pub(crate) unsafe fn write_opt<T>(out: *mut T, value: T) {
    if !out.is_null() {
        // SAFETY: a non-NULL `out` is valid for writes (the caller's contract).
        unsafe { out.write(value) };
    }
}

/// A `(const char *, size_t)` name or path as a NUL-terminated string for SQLite: UTF-8,
/// without a NUL byte inside.
///
/// # Safety
/// As for [`try_slice`].
pub(crate) unsafe fn try_cstring(
    ptr: *const c_char,
    len: usize,
    what: &'static str,
) -> Result<CString, Error> {
    if ptr.is_null() {
        return Err(Error::null(what));
    }
    // SAFETY: as for this function.
    let bytes = unsafe { try_bytes(ptr, len, what)? };
    crate::error::check_utf8(bytes, what)?;
    CString::new(bytes)
        .map_err(|_| Error::new(SQLBATCH_E_INVALID_ARGUMENT, format!("{what} contains a NUL byte")))
}

/// A schema name argument (`"main"`, `"temp"`, an attached database): NULL means `"main"`.
///
/// # Safety
/// As for [`try_slice`].
pub(crate) unsafe fn schema_name(ptr: *const c_char, len: usize) -> Result<CString, Error> {
    if ptr.is_null() {
        return Ok(CString::from(c"main"));
    }
    // SAFETY: as for this function.
    unsafe { try_cstring(ptr, len, "schema") }
}

/// The start of `items`, or NULL when it is empty: the library hands out no dangling pointers.
pub(crate) fn non_empty<T>(items: &[T]) -> *const T {
    if items.is_empty() {
        std::ptr::null()
    } else {
        items.as_ptr()
    }
}
