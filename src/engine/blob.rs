//! Incremental blob I/O (`sqlite3_blob_*`): a handle on one TEXT or BLOB value, read and
//! written in ranges of any length in one call each, moved to another row, and a batched read
//! of many (rowid, range) pairs in one call.
//!
//! A blob handle holds its connection's shared state, so the connection may be closed first:
//! closing the connection closes SQLite's handle (SQLite would keep the connection alive only
//! for a handle whose statement still lives), every later call says `SQLBATCH_E_CLOSED`, and
//! `sqlbatch_blob_close` frees the rest.

use std::ffi::{c_int, CString};
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Arc;

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::engine::conn::ConnShared;
use crate::error::Error;

/// A handle on one value of a table for incremental I/O. Opaque; created by
/// `sqlbatch_blob_open`, freed by `sqlbatch_blob_close`.
pub struct sqlbatch_blob {
    /// NULL after a reopen that found no row (until one succeeds), and once the connection
    /// closed it.
    pub(crate) raw: Arc<AtomicPtr<ffi::sqlite3_blob>>,
    pub(crate) conn: Arc<ConnShared>,
    /// What it was opened on, to open it again: SQLite's handle is dead for good once a read
    /// or write met a changed row (`SQLITE_ABORT`) or a reopen failed.
    pub(crate) schema: CString,
    pub(crate) table: CString,
    pub(crate) column: CString,
    pub(crate) writable: bool,
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
pub(crate) const CHUNK: usize = i32::MAX as usize;

impl sqlbatch_blob {
    pub(crate) fn open_raw(&self) -> Result<*mut ffi::sqlite3_blob, Error> {
        self.conn.db()?; // closed, or the destination of a backup

        let raw = self.raw.load(Ordering::SeqCst);
        if raw.is_null() {
            return Err(Error::new(ffi::SQLITE_ABORT, "the blob handle has no row: reopen it on one"));
        }
        Ok(raw)
    }

    pub(crate) fn size(&self) -> Result<usize, Error> {
        // SAFETY: an open handle, used by this thread only.
        Ok(unsafe { ffi::sqlite3_blob_bytes(self.open_raw()?) }.max(0) as usize)
    }

    /// Checks that `[offset, offset + n)` lies inside the value.
    pub(crate) fn check_range(&self, offset: u64, n: usize) -> Result<(), Error> {
        self.check_range_of(self.open_raw()?, offset, n)
    }

    /// `check_range` on SQLite's live handle `raw` (one `sqlite3_blob_bytes`).
    pub(crate) fn check_range_of(
        &self,
        raw: *mut ffi::sqlite3_blob,
        offset: u64,
        n: usize,
    ) -> Result<(), Error> {
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
    pub(crate) fn read(&self, offset: u64, buf: &mut [u8]) -> Result<(), Error> {
        let raw = self.open_raw()?;
        self.check_range_of(raw, offset, buf.len())?;
        self.read_unchecked(raw, offset, buf)
    }

    /// `read` on SQLite's live handle `raw`, the range already checked.
    pub(crate) fn read_unchecked(
        &self,
        raw: *mut ffi::sqlite3_blob,
        offset: u64,
        buf: &mut [u8],
    ) -> Result<(), Error> {
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

    pub(crate) fn check(&self, rc: c_int) -> Result<(), Error> {
        if rc == ffi::SQLITE_OK {
            return Ok(());
        }
        // SAFETY: the connection is open (checked by the caller's open_raw).
        Err(unsafe { Error::from_db(self.conn.db()?, rc) })
    }

    /// Moves to `rowid`: SQLite's reopen while its handle lives, a new handle once it died.
    pub(crate) fn reopen(&self, rowid: i64) -> Result<(), Error> {
        self.reopen_on(self.conn.db()?, rowid)
    }

    /// `reopen` with the connection's handle, `db`, already checked by the caller.
    pub(crate) fn reopen_on(&self, db: *mut ffi::sqlite3, rowid: i64) -> Result<(), Error> {
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
