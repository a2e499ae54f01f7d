//! The fetch state of a statement: where it stands (fresh, on a pending row, done, failed),
//! the cells and arena of its current batch, and the reset that changes both SQLite's
//! statement and this state together. A leaf of the statement: `fetch.rs`, `ahead.rs` and
//! `stmt.rs` build on it.

use libsqlite3_sys as ffi;

use crate::engine::value::sqlbatch_value;
use crate::error::Error;

/// Where the statement stands.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Not stepped since prepare or the last reset.
    #[default]
    Fresh,
    /// Positioned on a row that the caller has not received yet.
    Pending,
    /// Finished; fetches return `SQLBATCH_DONE` with no rows until a reset.
    Done,
    /// A step failed; fetches return `FetchState::failure` until a reset.
    Failed,
    /// The connection's worker took the statement to step its next batch (see `ahead.rs`):
    /// where it stands is in that job's result, which the next fetch or reset claims.
    Ahead,
}

/// The memory a statement fetches into: its cells and its arena, both empty. A finalized
/// statement hands them to its connection, the next prepare takes them (see `ConnShared::adopt`).
#[derive(Default)]
pub(crate) struct FetchBuffers {
    cells: Vec<sqlbatch_value>,
    arena: Vec<u8>,
}

impl FetchBuffers {
    /// Whether they are worth keeping: small enough that a connection's few spare sets bound
    /// no memory worth mentioning (64 KiB of each at most).
    pub fn small(&self) -> bool {
        self.cells.capacity() <= 4096 && self.arena.capacity() <= 1 << 16
    }
}

/// The statement-owned state of batched fetching.
#[derive(Default)]
pub(crate) struct FetchState {
    pub cells: Vec<sqlbatch_value>,
    pub arena: Vec<u8>,
    /// Where the current batch starts in `cells` (not 0 only for a fetched-ahead batch handed
    /// out in parts, see `ahead.rs`).
    pub window: usize,
    pub generation: u64,
    pub phase: Phase,
    /// Boxed: a statement carries the room for it (and each prepare writes it) while only a
    /// failed one has one.
    pub failure: Option<Box<Error>>,
}

impl FetchState {
    /// A fresh state fetching into `buffers`.
    pub fn new(buffers: FetchBuffers) -> Self {
        FetchState { cells: buffers.cells, arena: buffers.arena, ..Default::default() }
    }

    /// The current batch's cells (those from `window` on).
    pub fn batch_cells(&self) -> &[sqlbatch_value] {
        &self.cells[self.window.min(self.cells.len())..]
    }

    /// Empties the state's buffers and takes them out (for the next statement).
    pub fn take_buffers(&mut self) -> FetchBuffers {
        let (mut cells, mut arena) = (std::mem::take(&mut self.cells), std::mem::take(&mut self.arena));
        cells.clear();
        arena.clear();
        FetchBuffers { cells, arena }
    }

    /// Whether the statement has been stepped since it was last reset.
    pub fn started(&self) -> bool {
        self.phase != Phase::Fresh
    }

    /// Resets `raw` if it has run since it was last reset (`sqlite3_reset`), and starts over:
    /// the current batch ends. The one place where a statement is reset between runs.
    ///
    /// # Safety
    /// `raw` must be NULL or the live statement this state belongs to.
    pub unsafe fn rewind(&mut self, raw: *mut ffi::sqlite3_stmt) {
        if self.started() && !raw.is_null() {
            // Its return value repeats the last step's error, which was already reported.
            // SAFETY: `raw` is live (the caller's contract).
            unsafe { ffi::sqlite3_reset(raw) };
        }
        self.phase = Phase::Fresh;
        self.failure = None;
        self.window = 0;
        self.generation += 1;
    }

    pub fn fail(&mut self, e: &Error) {
        self.phase = Phase::Failed;
        self.failure = Some(Box::new(e.clone()));
    }
}
