//! Running a statement to completion, shared by script exec and bulk writes.

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
