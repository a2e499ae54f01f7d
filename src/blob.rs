//! Incremental blob I/O (`sqlite3_blob_*`): a handle on one TEXT or BLOB value, read and
//! written in ranges of any length in one call each, moved to another row, and a batched read
//! of many (rowid, range) pairs in one call.
//!
//! A blob handle holds its connection's shared state, so the connection may be closed first:
//! closing the connection closes SQLite's handle (SQLite would keep the connection alive only
//! for a handle whose statement still lives), every later call says `SQLBATCH_E_CLOSED`, and
//! `sqlbatch_blob_close` frees the rest.

use std::ffi::{c_char, c_int, c_void, CString};
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Arc;

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::conn::{sqlbatch_conn, ConnShared};
use crate::error::{Error, ErrorSink};
use crate::ffi::{schema_name, try_cstring, try_mut};
use crate::panic::{boundary, boundary_value, ffi_boundary};

/// A handle on one value of a table for incremental I/O. Opaque; created by
/// `sqlbatch_blob_open`, freed by `sqlbatch_blob_close`.
pub struct sqlbatch_blob {
    /// NULL after a reopen that found no row (until one succeeds), and once the connection
    /// closed it.
    raw: Arc<AtomicPtr<ffi::sqlite3_blob>>,
    conn: Arc<ConnShared>,
    /// What it was opened on, to open it again: SQLite's handle is dead for good once a read
    /// or write met a changed row (`SQLITE_ABORT`) or a reopen failed.
    schema: CString,
    table: CString,
    column: CString,
    writable: bool,
}

/// `sqlbatch_blob_range.len` to read from `offset` to the end of the value.
pub const SQLBATCH_BLOB_TO_END: u64 = u64::MAX;

/// One range of a batched read (`sqlbatch_blob_read_many`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct sqlbatch_blob_range {
    /// In: the row to read.
    pub rowid: i64,
    /// In: the first byte to read.
    pub offset: u64,
    /// In: how many bytes, or `SQLBATCH_BLOB_TO_END`. Out: how many were read; for the range
    /// that did not fit (`SQLBATCH_E_BUFFER_TOO_SMALL`), how many it needs.
    pub len: u64,
    /// Out: where in the buffer its bytes are.
    pub at: u64,
}

/// The largest range SQLite moves in one call.
const CHUNK: usize = i32::MAX as usize;

impl sqlbatch_blob {
    fn open_raw(&self) -> Result<*mut ffi::sqlite3_blob, Error> {
        self.conn.db()?; // closed, or the destination of a backup

        let raw = self.raw.load(Ordering::SeqCst);
        if raw.is_null() {
            return Err(Error::new(ffi::SQLITE_ABORT, "the blob handle has no row: reopen it on one"));
        }
        Ok(raw)
    }

    fn size(&self) -> Result<usize, Error> {
        // SAFETY: an open handle, used by this thread only.
        Ok(unsafe { ffi::sqlite3_blob_bytes(self.open_raw()?) }.max(0) as usize)
    }

    /// Checks that `[offset, offset + n)` lies inside the value.
    fn check_range(&self, offset: u64, n: usize) -> Result<(), Error> {
        self.check_range_of(self.open_raw()?, offset, n)
    }

    /// `check_range` on SQLite's live handle `raw` (one `sqlite3_blob_bytes`).
    fn check_range_of(&self, raw: *mut ffi::sqlite3_blob, offset: u64, n: usize) -> Result<(), Error> {
        // SAFETY: an open handle, used by this thread only.
        let size = unsafe { ffi::sqlite3_blob_bytes(raw) }.max(0) as u64;
        if offset > size || n as u64 > size - offset {
            if size == 0 {
                // SQLite reads a dead handle's size as 0: a read of nothing says whether the
                // handle died (SQLITE_ABORT), which is the error to report then.
                // SAFETY: a live handle object; zero bytes are read.
                self.check(unsafe { ffi::sqlite3_blob_read(raw, ptr::null_mut(), 0, 0) })?;
            }
            return Err(Error::new(
                SQLBATCH_E_RANGE,
                format!(
                    "bytes {offset}..{} are outside the value of {size} bytes",
                    offset as u128 + n as u128
                ),
            ));
        }
        Ok(())
    }

    /// Reads `buf.len()` bytes at `offset`, in as many SQLite calls as the length needs.
    fn read(&self, offset: u64, buf: &mut [u8]) -> Result<(), Error> {
        let raw = self.open_raw()?;
        self.check_range_of(raw, offset, buf.len())?;
        self.read_unchecked(raw, offset, buf)
    }

    /// `read` on SQLite's live handle `raw`, the range already checked.
    fn read_unchecked(&self, raw: *mut ffi::sqlite3_blob, offset: u64, buf: &mut [u8]) -> Result<(), Error> {
        for (i, chunk) in buf.chunks_mut(CHUNK).enumerate() {
            let at = offset as usize + i * CHUNK;
            // SAFETY: an open handle; `chunk` is writable; the range is inside the value.
            let rc = unsafe {
                ffi::sqlite3_blob_read(raw, chunk.as_mut_ptr().cast(), chunk.len() as c_int, at as c_int)
            };
            self.check(rc)?;
        }
        Ok(())
    }

    fn check(&self, rc: c_int) -> Result<(), Error> {
        if rc == ffi::SQLITE_OK {
            return Ok(());
        }
        // SAFETY: the connection is open (checked by the caller's open_raw).
        Err(unsafe { Error::from_db(self.conn.db()?, rc) })
    }

    /// Moves to `rowid`: SQLite's reopen while its handle lives, a new handle once it died.
    fn reopen(&self, rowid: i64) -> Result<(), Error> {
        self.reopen_on(self.conn.db()?, rowid)
    }

    /// `reopen` with the connection's handle, `db`, already checked by the caller.
    fn reopen_on(&self, db: *mut ffi::sqlite3, rowid: i64) -> Result<(), Error> {
        let raw = self.raw.load(Ordering::SeqCst);
        if !raw.is_null() {
            // SAFETY: a live handle of an open connection, used by this thread only.
            let rc = unsafe { ffi::sqlite3_blob_reopen(raw, rowid) };
            if rc != ffi::SQLITE_ABORT {
                return self.check(rc);
            }
            // SAFETY: as above; SQLite's handle is dead (it finalized its statement).
            unsafe { ffi::sqlite3_blob_close(raw) };
            self.raw.store(ptr::null_mut(), Ordering::SeqCst);
        }
        let mut fresh = ptr::null_mut();
        // SAFETY: `db` is open and used by this thread only; the names are NUL-terminated.
        let rc = unsafe {
            ffi::sqlite3_blob_open(
                db,
                self.schema.as_ptr(),
                self.table.as_ptr(),
                self.column.as_ptr(),
                rowid,
                self.writable as c_int,
                &mut fresh,
            )
        };
        self.raw.store(fresh, Ordering::SeqCst);
        self.check(rc)
    }
}

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

/// sqlbatch_blob_size writes to `*out` the size of the value in bytes.
/// @return `SQLBATCH_OK`, `SQLBATCH_E_NULL_PARAMETER`, `SQLBATCH_E_CLOSED`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_blob_size(blob: *const sqlbatch_blob, out: *mut u64) -> i32 {
    // SAFETY: the caller's contract.
    unsafe {
        with_blob(blob, |b| {
            let size = b.size()?;
            *try_mut(out, "out")? = size as u64;
            Ok(SQLBATCH_OK)
        })
    }
}

/// sqlbatch_blob_read copies the `n` bytes at `offset` of the value into `buf`, all of them
/// in one call whatever `n` is (SQLite's own call takes at most 2 GiB).
/// NULL: `blob` NULL, or `buf` NULL with `n` > 0: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_RANGE` (a range outside the value: nothing read);
/// `SQLITE_ABORT` (the row changed since the handle was opened or moved); `SQLBATCH_E_CLOSED`;
/// another SQLite error. Recorded on the connection.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_blob_read(
    blob: *mut sqlbatch_blob,
    offset: u64,
    buf: *mut u8,
    n: usize,
) -> i32 {
    // SAFETY: the caller's contract; `buf` holds `n` writable bytes.
    unsafe {
        with_blob(blob, |b| {
            if buf.is_null() && n > 0 {
                return Err(Error::null("buf"));
            }
            let buf = if n == 0 { &mut [][..] } else { std::slice::from_raw_parts_mut(buf, n) };
            b.read(offset, buf)?;
            Ok(SQLBATCH_OK)
        })
    }
}

/// sqlbatch_blob_write copies `n` bytes from `buf` over the value at `offset`, in one call;
/// the handle must have been opened `writable`, and the range must lie inside the value (a
/// write cannot change its size). Callbacks: the connection's preupdate hook
/// (`sqlbatch_conn_preupdate_hook`) is called from this call, on this thread.
/// NULL: `blob` NULL, or `buf` NULL with `n` > 0: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_RANGE`; `SQLITE_READONLY` (not opened for writing);
/// `SQLITE_ABORT`; `SQLBATCH_E_CLOSED`; another SQLite error. Recorded on the connection.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_blob_write(
    blob: *mut sqlbatch_blob,
    offset: u64,
    buf: *const u8,
    n: usize,
) -> i32 {
    // SAFETY: the caller's contract; `buf` holds `n` readable bytes.
    unsafe {
        with_blob(blob, |b| {
            if buf.is_null() && n > 0 {
                return Err(Error::null("buf"));
            }
            b.check_range(offset, n)?;
            let raw = b.open_raw()?;
            let buf = if n == 0 { &[][..] } else { std::slice::from_raw_parts(buf, n) };
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
