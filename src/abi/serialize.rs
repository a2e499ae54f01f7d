//! Entry points: a database as one buffer, and the buffers the library hands over.

use std::ffi::{c_char, c_void};
use std::ptr;

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::error::Error;
use crate::ffi::*;
use crate::panic::boundary_value;

use crate::engine::conn::sqlbatch_conn;
use crate::engine::serialize::SQLBATCH_DESERIALIZE_READONLY;
use crate::engine::serialize::SQLBATCH_DESERIALIZE_RESIZEABLE;

/// sqlbatch_conn_serialize writes the database `schema` of `conn` (NULL: "main"), as the bytes
/// its file would hold, to a new buffer: `*out_data` and `*out_len` (`sqlite3_serialize`). A
/// database of no pages (a file never written) gives `*out_data` NULL and `*out_len` 0.
///
/// Ownership: the buffer is the caller's, released with `sqlbatch_free`; it does not change
/// with the database. Thread: the connection's.
/// NULL: `conn`, `out_data` or `out_len` NULL: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_CLOSED`; `SQLITE_ERROR` (no such schema) or
/// `SQLITE_NOMEM`, recorded on `conn`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_serialize(
    conn: *mut sqlbatch_conn,
    schema: *const c_char,
    schema_len: usize,
    out_data: *mut *mut u8,
    out_len: *mut usize,
) -> i32 {
    ffi_boundary!(conn: conn => |c| {
        let db = c.shared.db()?;
        // SAFETY: the caller vouches for the pointers.
        let (out_data, out_len) = unsafe { (try_mut(out_data, "out_data")?, try_mut(out_len, "out_len")?) };
        let name = unsafe { schema_name(schema, schema_len)? };
        // SAFETY: `db` is open and used by this thread only.
        unsafe {
            // An unknown schema serializes to NULL just as an empty one does: tell them apart.
            if ffi::sqlite3_db_filename(db, name.as_ptr()).is_null() {
                return Err(Error::new(ffi::SQLITE_ERROR, format!("unknown database {}", name.to_string_lossy())));
            }
            let mut size: ffi::sqlite3_int64 = 0;
            let data = ffi::sqlite3_serialize(db, name.as_ptr(), &mut size, 0);
            if data.is_null() && size != 0 {
                return Err(Error::new(ffi::SQLITE_NOMEM, "out of memory serializing the database"));
            }
            if size == 0 && !data.is_null() {
                ffi::sqlite3_free(data.cast());
                *out_data = ptr::null_mut();
            } else {
                *out_data = data;
            }
            *out_len = size as usize;
        }
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_conn_deserialize replaces the database `schema` of `conn` (NULL: "main") with the
/// `data_len` bytes at `data`, which the library copies (`sqlite3_deserialize`; the caller
/// keeps `data`). `flags`: `SQLBATCH_DESERIALIZE_READONLY`, `SQLBATCH_DESERIALIZE_RESIZEABLE`
/// (writes may grow it), or 0. The bytes are not checked here: a buffer that is not a
/// database, or a corrupt one, makes later statements fail with `SQLITE_NOTADB` or
/// `SQLITE_CORRUPT`, never crash. Thread: the connection's; no statement of `conn` may be
/// running (SQLite refuses with `SQLITE_BUSY`).
/// NULL: `conn` NULL, or `data` NULL with `data_len` > 0: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_CLOSED`; `SQLBATCH_E_INVALID_ARGUMENT` (unknown flags);
/// SQLite's error (`SQLITE_ERROR` for an unknown schema or "temp", `SQLITE_BUSY`,
/// `SQLITE_NOMEM`), recorded on `conn`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_deserialize(
    conn: *mut sqlbatch_conn,
    schema: *const c_char,
    schema_len: usize,
    data: *const u8,
    data_len: usize,
    flags: u32,
) -> i32 {
    ffi_boundary!(conn: conn => |c| {
        let db = c.shared.db()?;
        if flags & !(SQLBATCH_DESERIALIZE_READONLY | SQLBATCH_DESERIALIZE_RESIZEABLE) != 0 {
            return Err(Error::new(SQLBATCH_E_INVALID_ARGUMENT, format!("unknown deserialize flags {flags:#x}")));
        }
        // SAFETY: the caller vouches for the pointers.
        let bytes = unsafe { try_slice(data, data_len, "data")? };
        let name = unsafe { schema_name(schema, schema_len)? };
        // SAFETY: SQLite owns the copy from here on (FREEONCLOSE), also when the call fails.
        unsafe {
            let copy = ffi::sqlite3_malloc64(bytes.len().max(1) as u64).cast::<u8>();
            if copy.is_null() {
                return Err(Error::new(ffi::SQLITE_NOMEM, "out of memory copying the database"));
            }
            ptr::copy_nonoverlapping(bytes.as_ptr(), copy, bytes.len());
            let n = bytes.len() as i64;
            let rc = ffi::sqlite3_deserialize(
                db,
                name.as_ptr(),
                copy,
                n,
                n,
                flags | ffi::SQLITE_DESERIALIZE_FREEONCLOSE,
            );
            if rc != ffi::SQLITE_OK {
                return Err(Error::from_db(db, rc));
            }
        }
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_free releases memory the library handed to the caller to own: the buffers of
/// `sqlbatch_conn_serialize`, `sqlbatch_session_changeset`, `sqlbatch_session_patchset`,
/// `sqlbatch_changeset_invert` and `sqlbatch_changeset_concat`. NULL: a no-op. Any thread.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_free(p: *mut c_void) {
    // SAFETY: `p` came from SQLite's allocator through the library (the caller's contract).
    boundary_value((), || unsafe { ffi::sqlite3_free(p) })
}
