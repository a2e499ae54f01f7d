//! Running a statement to completion, shared by script exec and bulk writes.

use libsqlite3_sys as ffi;

use crate::error::Error;

/// Steps `raw` until it is done, discarding any rows, and returns the rows it changed directly
/// (`sqlite3_changes64`, counted only if the statement changed something: the counter keeps
/// its old value across statements that are not INSERT, UPDATE or DELETE).
///
/// # Safety
/// `raw` must be a live statement of `db`.
#[inline]
pub(crate) unsafe fn run_to_done(
    db: *mut ffi::sqlite3,
    raw: *mut ffi::sqlite3_stmt,
) -> Result<i64, Error> {
    let before = ffi::sqlite3_total_changes64(db);
    loop {
        match ffi::sqlite3_step(raw) {
            ffi::SQLITE_DONE => break,
            ffi::SQLITE_ROW => continue,
            rc => return Err(Error::from_db(db, rc)),
        }
    }
    Ok(if ffi::sqlite3_total_changes64(db) != before {
        ffi::sqlite3_changes64(db)
    } else {
        0
    })
}
