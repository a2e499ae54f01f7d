//! Running statements: to completion (script exec, bulk writes), SQL whose rows nobody
//! wants ([`exec`]), and the first row of a statement such as a pragma ([`first_row`]).

use std::ffi::CStr;
use std::ptr;

use libsqlite3_sys as ffi;

use crate::error::Error;

/// Counts the rows changed directly by successive runs of statements on one connection.
///
/// `sqlite3_changes64` keeps its old value across statements that are not INSERT, UPDATE or
/// DELETE, so a run's changes are counted only if `sqlite3_total_changes64` moved during it.
pub(crate) struct Changes {
    db: *mut ffi::sqlite3,
    total: i64,
}

impl Changes {
    /// # Safety
    /// `db` must be an open connection.
    pub unsafe fn new(db: *mut ffi::sqlite3) -> Self {
        // SAFETY: `db` is open (the caller's contract).
        Changes { db, total: unsafe { ffi::sqlite3_total_changes64(db) } }
    }

    /// Whether `sqlite3_total_changes64` moved since [`Changes::new`] or the last
    /// [`Changes::of_last_run`].
    ///
    /// # Safety
    /// As for [`Changes::new`].
    pub unsafe fn moved(&self) -> bool {
        // SAFETY: `db` is open (the caller's contract).
        unsafe { ffi::sqlite3_total_changes64(self.db) != self.total }
    }

    /// The rows the run that just finished changed directly.
    ///
    /// # Safety
    /// As for [`Changes::new`].
    #[inline]
    pub unsafe fn of_last_run(&mut self) -> i64 {
        // SAFETY: `db` is open (the caller's contract).
        let total = unsafe { ffi::sqlite3_total_changes64(self.db) };
        if total == self.total {
            return 0;
        }
        self.total = total;
        // SAFETY: as above.
        unsafe { ffi::sqlite3_changes64(self.db) }
    }
}

/// Steps `raw` until it is done, discarding any rows, and returns the rows it changed directly.
///
/// # Safety
/// `raw` must be a live statement of `db`, the connection `changes` counts for.
#[inline]
pub(crate) unsafe fn run_to_done(
    db: *mut ffi::sqlite3,
    raw: *mut ffi::sqlite3_stmt,
    changes: &mut Changes,
) -> Result<i64, Error> {
    // SAFETY: `raw` is a live statement of `db`, which `changes` counts for.
    unsafe {
        step_to_done(db, raw)?;
        Ok(changes.of_last_run())
    }
}

/// Steps `raw` until it is done, discarding any rows.
///
/// # Safety
/// `raw` must be a live statement of `db`.
#[inline(always)]
pub(crate) unsafe fn step_to_done(db: *mut ffi::sqlite3, raw: *mut ffi::sqlite3_stmt) -> Result<(), Error> {
    loop {
        // SAFETY: `raw` is a live statement of `db` (the caller's contract).
        match unsafe { ffi::sqlite3_step(raw) } {
            ffi::SQLITE_DONE => return Ok(()),
            ffi::SQLITE_ROW => continue,
            // SAFETY: as above.
            rc => return Err(unsafe { Error::from_db(db, rc) }),
        }
    }
}

/// Runs the statements of `sql` to their end, discarding any rows (`sqlite3_exec`), with
/// SQLite's error.
///
/// # Safety
/// `db` is open and used by this thread only.
pub(crate) unsafe fn exec(db: *mut ffi::sqlite3, sql: &CStr) -> Result<(), Error> {
    // SAFETY: the caller's contract; `sql` is NUL-terminated.
    let rc = unsafe { ffi::sqlite3_exec(db, sql.as_ptr(), None, ptr::null_mut(), ptr::null_mut()) };
    if rc == ffi::SQLITE_OK {
        Ok(())
    } else {
        // SAFETY: as above.
        Err(unsafe { Error::from_db(db, rc) })
    }
}

/// Prepares the one statement of `sql` (a pragma, typically), steps it once and gives the
/// statement on its first row to `read`: `Ok(None)` when it gives no row, SQLite's error when
/// it fails. The statement is finalized on every path, after `read` returns.
///
/// # Safety
/// `db` is open and used by this thread only; `read` may read the row's columns only.
pub(crate) unsafe fn first_row<T>(
    db: *mut ffi::sqlite3,
    sql: &CStr,
    read: impl FnOnce(*mut ffi::sqlite3_stmt) -> T,
) -> Result<Option<T>, Error> {
    // SAFETY: the caller's contract; the statement is finalized on every path.
    unsafe {
        let mut stmt = ptr::null_mut();
        let rc = ffi::sqlite3_prepare_v2(db, sql.as_ptr(), -1, &mut stmt, ptr::null_mut());
        if rc != ffi::SQLITE_OK {
            return Err(Error::from_db(db, rc));
        }
        let result = match ffi::sqlite3_step(stmt) {
            ffi::SQLITE_ROW => Ok(Some(read(stmt))),
            ffi::SQLITE_DONE => Ok(None),
            rc => Err(Error::from_db(db, rc)),
        };
        let rc = ffi::sqlite3_finalize(stmt);
        match result {
            Ok(_) if rc != ffi::SQLITE_OK => Err(Error::from_db(db, rc)),
            r => r,
        }
    }
}

/// The first column of the row `stmt` is on, as text; `None` for NULL (or no memory).
///
/// # Safety
/// `stmt` is on a row; the text is valid until the statement moves or is finalized.
pub(crate) unsafe fn text0<'a>(stmt: *mut ffi::sqlite3_stmt) -> Option<&'a CStr> {
    // SAFETY: the caller's contract; SQLite's text is NUL-terminated.
    unsafe {
        let p = ffi::sqlite3_column_text(stmt, 0);
        (!p.is_null()).then(|| CStr::from_ptr(p.cast()))
    }
}
