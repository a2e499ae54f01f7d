//! The online backup: copying a database, page by page, between two connections
//! (`sqlite3_backup_*`), or to and from a file in one call.
//!
//! A backup holds both connections' shared state, so either may be closed first: its steps
//! then say `SQLBATCH_E_CLOSED`, and `sqlbatch_backup_finish` still frees everything. (SQLite
//! keeps a closed source connection as a "zombie" until its backups finish, but frees a
//! closed destination at once, so closing the destination finishes its backups first.)

use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Arc;

use libsqlite3_sys as ffi;

use crate::engine::conn::ConnShared;
use crate::error::Error;

/// An online backup from one connection's database to another's. Opaque; created by
/// `sqlbatch_backup_init`, freed by `sqlbatch_backup_finish`.
pub struct sqlbatch_backup {
    /// NULL once the destination connection closed (and finished it).
    pub(crate) raw: Arc<AtomicPtr<ffi::sqlite3_backup>>,
    /// Errors of the backup are recorded on the destination, as SQLite reports them there.
    pub(crate) dest: Arc<ConnShared>,
    pub(crate) src: Arc<ConnShared>,
}

impl sqlbatch_backup {
    /// SQLite's backup, while both connections are open.
    pub(crate) fn open_raw(&self) -> Result<*mut ffi::sqlite3_backup, Error> {
        // A step uses both connections: neither worker may be running a job.
        self.src.worker().wait();
        self.dest.worker().wait();
        let raw = self.raw.load(Ordering::SeqCst);
        if raw.is_null() || !self.dest.is_open() || !self.src.is_open() {
            return Err(Error::closed());
        }
        Ok(raw)
    }
}

// The backup handle may be finished on another thread than the one that made it, as long as
// no two threads use it at once (the caller's contract, as for statements).
unsafe impl Send for sqlbatch_backup {}
