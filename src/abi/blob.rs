//! Entry points: incremental blob I/O.

use std::ffi::{c_char, c_int, c_void};
use std::ptr;

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::error::{Error, ErrorSink};
use crate::ffi::*;
use crate::panic::{boundary, boundary_value};

use crate::engine::blob::sqlbatch_blob;
use crate::engine::blob::sqlbatch_blob_range;
use crate::engine::blob::SQLBATCH_BLOB_TO_END;
use crate::engine::conn::sqlbatch_conn;

use crate::engine::blob::CHUNK;
use std::sync::atomic::AtomicPtr;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Runs `body` on a live blob handle, recording its error on the blob's connection.
///
/// # Safety
/// `blob` must be NULL or a live handle that no other thread is using.
unsafe fn with_blob(
    blob: *const sqlbatch_blob,
    body: impl FnOnce(&sqlbatch_blob) -> Result<i32, Error>,
) -> i32 {
    // SAFETY: the caller's contract.
    let Some(b) = (unsafe { blob.as_ref() }) else {
        return SQLBATCH_E_NULL_PARAMETER;
    };
    let sink: &dyn ErrorSink = &*b.conn;
    boundary(Some(sink), || body(b))
}

/// sqlbatch_blob_open opens the value in column `column` of row `rowid` of table `table` of
/// database `schema` (NULL: "main") for incremental I/O, for reading and, if `writable`, for
/// writing (`sqlite3_blob_open`). The value's size is fixed: writes cannot grow it (set it
/// with `zeroblob(N)` in SQL first). If the row is changed or deleted by anything else than
/// this handle, later reads and writes fail with `SQLITE_ABORT`; `sqlbatch_blob_reopen` moves
/// the handle to a row again. See <https://sqlite.org/c3ref/blob_open.html>.
///
/// Ownership: `*out_blob` (set on success only) is the caller's, released with
/// `sqlbatch_blob_close`, before or after the connection is closed. Thread: the connection's.
/// NULL: `conn`, `table`, `column` or `out_blob` NULL: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_CLOSED`; `SQLBATCH_E_INVALID_UTF8` or
/// `SQLBATCH_E_INVALID_ARGUMENT` for a bad name; SQLite's error, recorded on `conn`
/// (`SQLITE_ERROR` for no such table, column or row, a column that is not TEXT or BLOB in that
/// row, an indexed column opened for writing; `SQLITE_READONLY`).
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_blob_open(
    conn: *mut sqlbatch_conn,
    schema: *const c_char,
    schema_len: usize,
    table: *const c_char,
    table_len: usize,
    column: *const c_char,
    column_len: usize,
    rowid: i64,
    writable: bool,
    out_blob: *mut *mut sqlbatch_blob,
) -> i32 {
    ffi_boundary!(conn: conn => |c| {
        let db = c.shared.db()?;
        // SAFETY: the caller vouches for every pointer.
        let out = unsafe { try_mut(out_blob, "out_blob")? };
        let (schema, table, column) = unsafe {
            (schema_name(schema, schema_len)?, try_cstring(table, table_len, "table")?, try_cstring(column, column_len, "column")?)
        };
        let mut raw = ptr::null_mut();
        // SAFETY: `db` is open and used by this thread only; the names are NUL-terminated.
        let rc = unsafe {
            ffi::sqlite3_blob_open(db, schema.as_ptr(), table.as_ptr(), column.as_ptr(), rowid, writable as c_int, &mut raw)
        };
        if rc != ffi::SQLITE_OK {
            // SAFETY: as above. SQLite sets `raw` NULL on failure.
            return Err(unsafe { Error::from_db(db, rc) });
        }
        let raw = Arc::new(AtomicPtr::new(raw));
        c.shared.blobs().adopt(&raw);
        *out = Box::into_raw(Box::new(sqlbatch_blob { raw, conn: c.shared.clone(), schema, table, column, writable }));
        Ok(SQLBATCH_OK)
    })
}

/// sqlbatch_blob_size writes to `*out_size` the size of the value in bytes.
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_blob_size(blob: *const sqlbatch_blob, out_size: *mut u64) -> i32 {
    // SAFETY: the caller's contract.
    unsafe {
        with_blob(blob, |b| {
            let size = b.size()?;
            *try_mut(out_size, "out_size")? = size as u64;
            Ok(SQLBATCH_OK)
        })
    }
}

/// sqlbatch_blob_read copies the `buf_len` bytes at `offset` of the value into `buf`, all of them
/// in one call whatever `buf_len` is (SQLite's own call takes at most 2 GiB).
/// NULL: `blob` NULL, or `buf` NULL with `buf_len` > 0: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_RANGE` (a range outside the value: nothing read);
/// `SQLITE_ABORT` (the row changed since the handle was opened or moved); `SQLBATCH_E_CLOSED`;
/// another SQLite error. Recorded on the connection.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_blob_read(
    blob: *mut sqlbatch_blob,
    offset: u64,
    buf: *mut u8,
    buf_len: usize,
) -> i32 {
    // SAFETY: the caller's contract; `buf` holds `buf_len` writable bytes.
    unsafe {
        with_blob(blob, |b| {
            if buf.is_null() && buf_len > 0 {
                return Err(Error::null("buf"));
            }
            let buf = if buf_len == 0 { &mut [][..] } else { std::slice::from_raw_parts_mut(buf, buf_len) };
            b.read(offset, buf)?;
            Ok(SQLBATCH_OK)
        })
    }
}

/// sqlbatch_blob_write copies `buf_len` bytes from `buf` over the value at `offset`, in one call;
/// the handle must have been opened `writable`, and the range must lie inside the value (a
/// write cannot change its size). Callbacks: the connection's preupdate hook
/// (`sqlbatch_conn_preupdate_hook`) is called from this call, on this thread.
/// NULL: `blob` NULL, or `buf` NULL with `buf_len` > 0: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_RANGE`; `SQLITE_READONLY` (not opened for writing);
/// `SQLITE_ABORT`; `SQLBATCH_E_CLOSED`; another SQLite error. Recorded on the connection.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_blob_write(
    blob: *mut sqlbatch_blob,
    offset: u64,
    buf: *const u8,
    buf_len: usize,
) -> i32 {
    // SAFETY: the caller's contract; `buf` holds `buf_len` readable bytes.
    unsafe {
        with_blob(blob, |b| {
            if buf.is_null() && buf_len > 0 {
                return Err(Error::null("buf"));
            }
            b.check_range(offset, buf_len)?;
            let raw = b.open_raw()?;
            let buf = if buf_len == 0 { &[][..] } else { std::slice::from_raw_parts(buf, buf_len) };
            for (i, chunk) in buf.chunks(CHUNK).enumerate() {
                let at = offset as usize + i * CHUNK;
                let rc = ffi::sqlite3_blob_write(
                    raw,
                    chunk.as_ptr().cast::<c_void>(),
                    chunk.len() as c_int,
                    at as c_int,
                );
                b.check(rc)?;
            }
            Ok(SQLBATCH_OK)
        })
    }
}

/// sqlbatch_blob_reopen moves the handle to the same column of row `rowid`, faster than
/// closing and opening again; it also revives a handle whose row changed (`SQLITE_ABORT`) or
/// whose last reopen failed (the library then opens SQLite's handle anew).
/// @return `SQLBATCH_OK`; SQLite's error (`SQLITE_ERROR` for no such row, or a value that is
/// not TEXT or BLOB there: reads and writes then say `SQLITE_ABORT` until a reopen succeeds);
/// `SQLBATCH_E_CLOSED`; `SQLBATCH_E_NULL_PARAMETER`. Recorded on the connection.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_blob_reopen(blob: *mut sqlbatch_blob, rowid: i64) -> i32 {
    // SAFETY: the caller's contract.
    unsafe {
        with_blob(blob, |b| {
            b.reopen(rowid)?;
            Ok(SQLBATCH_OK)
        })
    }
}

/// sqlbatch_blob_read_many reads `n_ranges` ranges, each of row `ranges[i].rowid` (the handle
/// moves from row to row as needed, and stays on the last row read), into `buf`, back to
/// back: range i's `len` bytes end up at `buf + ranges[i].at`. A `len` of
/// `SQLBATCH_BLOB_TO_END` reads to the end of that row's value, and `len` is set to what was
/// read. One call serves any number of small values (e.g. 100,000 thumbnails by rowid).
///
/// `*out_done` (if not NULL) is set to the number of ranges read, in every case: on an error,
/// ranges `[0, *out_done)` are complete and range `*out_done` is the one that failed.
/// NULL: `blob` NULL, `ranges` NULL with `n_ranges` > 0, or `buf` NULL with `buf_len` > 0:
/// `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_BUFFER_TOO_SMALL` (the next range does not fit in what
/// is left of `buf`; its `len` is then what it needs: call again from that range with room);
/// `SQLBATCH_E_RANGE`; SQLite's error for a row that does not exist or holds no TEXT or BLOB
/// there; `SQLBATCH_E_CLOSED`. Recorded on the connection.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_blob_read_many(
    blob: *mut sqlbatch_blob,
    ranges: *mut sqlbatch_blob_range,
    n_ranges: usize,
    buf: *mut u8,
    buf_len: usize,
    out_done: *mut usize,
) -> i32 {
    let mut done = 0usize;
    // SAFETY: the caller's contract: `ranges` holds `n_ranges` ranges, `buf` `buf_len` bytes.
    let rc = unsafe {
        with_blob(blob, |b| {
            if ranges.is_null() && n_ranges > 0 {
                return Err(Error::null("ranges"));
            }
            if buf.is_null() && buf_len > 0 {
                return Err(Error::null("buf"));
            }
            let ranges =
                if n_ranges == 0 { &mut [][..] } else { std::slice::from_raw_parts_mut(ranges, n_ranges) };
            let buf = if buf_len == 0 { &mut [][..] } else { std::slice::from_raw_parts_mut(buf, buf_len) };
            // The connection is checked once: the whole call is the caller's (one thread).
            let db = b.conn.db()?;
            let mut current: Option<i64> = None;
            let mut used = 0usize;
            for r in ranges.iter_mut() {
                if current != Some(r.rowid) {
                    b.reopen_on(db, r.rowid)?;
                    current = Some(r.rowid);
                }
                // Live after a reopen that succeeded (one read of SQLite's size, too).
                let raw = b.raw.load(Ordering::Relaxed);
                let size = ffi::sqlite3_blob_bytes(raw).max(0) as u64;
                let len = if r.len == SQLBATCH_BLOB_TO_END {
                    size.checked_sub(r.offset).ok_or_else(|| {
                        Error::new(
                            SQLBATCH_E_RANGE,
                            format!("offset {} is past the end of the value", r.offset),
                        )
                    })?
                } else {
                    r.len
                };
                if len > (buf.len() - used) as u64 {
                    r.len = len;
                    return Err(Error::new(
                        SQLBATCH_E_BUFFER_TOO_SMALL,
                        format!(
                            "range {done} needs {len} bytes, {} are left in the buffer",
                            buf.len() - used
                        ),
                    ));
                }
                let len = len as usize;
                if !matches!(r.offset.checked_add(len as u64), Some(end) if end <= size) {
                    b.check_range_of(raw, r.offset, len)?;
                }
                b.read_unchecked(raw, r.offset, &mut buf[used..used + len])?;
                r.len = len as u64;
                r.at = used as u64;
                used += len;
                done += 1;
            }
            Ok(SQLBATCH_OK)
        })
    };
    if !out_done.is_null() {
        // SAFETY: a non-NULL `out_done` is valid for writes (the caller's contract).
        unsafe { out_done.write(done) };
    }
    rc
}

/// sqlbatch_blob_close frees a blob handle (`sqlite3_blob_close`), before or after its
/// connection is closed. NULL: a no-op. Must not be called twice.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_blob_close(blob: *mut sqlbatch_blob) {
    if blob.is_null() {
        return;
    }
    boundary_value((), || {
        // SAFETY: `blob` came from sqlbatch_blob_open and is freed once (the caller's contract).
        let b = unsafe { Box::from_raw(blob) };
        // The worker may be fetching ahead on the connection.
        b.conn.worker().wait();
        let raw = b.conn.blobs().release(&b.raw);
        // SAFETY: the connection is open (its close would have closed the handle and left
        // NULL here); closing NULL is a no-op.
        unsafe { ffi::sqlite3_blob_close(raw) };
    })
}
