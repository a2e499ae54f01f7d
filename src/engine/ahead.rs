//! Fetch-ahead: while the caller reads one batch of a statement, the connection's worker
//! thread (`worker.rs`) steps the next one into a second set of buffers, so that a row costs
//! the larger of SQLite's time and the caller's instead of their sum.
//!
//! After a fetch that leaves the statement on a row the caller has not received, a job is
//! launched with that fetch's bounds. The next fetch claims its result: the job's buffers
//! become the statement's current batch, the ones just read become the next job's. Results
//! are exactly those of synchronous fetching: the job runs `fetch::fill`, the same code, from
//! where the statement stood, and its errors come out where a synchronous fetch would have
//! met them. Where the next call asks for other bounds than the job used, the fetched-ahead
//! batch is handed out in parts that respect them (a batch may then hold fewer rows than the
//! call allows, never more). An interrupt that arrives while a batch is stepped ahead, or
//! handed out in parts, ends it as it would have ended the synchronous fetch: that fetch
//! would have taken the row the statement stood on and then met the interrupt, so the next
//! fetch hands out that one row and the one after returns `SQLITE_INTERRUPT`.
//!
//! Small batches: a job's hand-over costs a few microseconds, more than stepping 256 rows of
//! one integer. So when the caller's batches are small (limited by their row count, at most
//! `JOB_BYTES` together), a job steps up to `JOB_BATCHES` of them at once, and fetches hand it
//! out in parts of the caller's size; the next job is launched as soon as the first part is
//! handed out, and the parts after it are served from memory without waiting for the worker.
//!
//! Memory: at most two batches per statement, the one the caller reads and the one stepped;
//! a job of several of the caller's batches stops once it holds `JOB_BYTES`, so it holds at
//! most that and one of the caller's batches.
//! Only read-only statements fetch ahead: stepping a write early would change what the caller
//! sees between two fetches (`changes`, `last_insert_rowid`, locks).

use std::sync::{Arc, Mutex};

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::engine::conn::ConnShared;
use crate::engine::fetch::{
    fetch_now, fill, reached, sqlbatch_batch, too_small, Arena, Bound, Capped, Filled, Stop,
};
use crate::engine::state::{FetchBuffers, FetchState, Phase};
use crate::engine::worker::Worker;
use crate::error::Error;
use crate::ffi::non_empty;
use crate::panic::{catch, lock};

/// The bound a job fills the arena with: a fetch's [`Bound`], without the caller's buffer
/// (a job steps into the statement's memory; the batch is copied to the buffer when handed out).
#[derive(Clone, Copy, PartialEq, Eq)]
enum JobBound {
    Soft(usize),
    Hard(usize),
}

impl From<Bound> for JobBound {
    fn from(bound: Bound) -> Self {
        match bound {
            Bound::Bytes(max) => JobBound::Soft(max),
            Bound::Buffer(_, cap) => JobBound::Hard(cap),
        }
    }
}

/// What a job that steps several of the caller's small batches may hold at most (16 bytes a
/// cell, plus the TEXT and BLOB bytes; it stops after the batch that reaches it): 64 KiB is
/// about 4,000 rows of one integer, 50 to 100 µs of stepping, well above a hand-over.
const JOB_BYTES: usize = 64 << 10;
/// At most this many of the caller's batches in one job.
const JOB_BATCHES: usize = 16;

/// How many of the caller's batches the next job steps, after a batch of `rows` rows holding
/// `bytes` bytes (as `JOB_BYTES` counts them) was handed out for a fetch of at most
/// `max_rows` rows: one, unless that batch was cut by its row count and small; then as many
/// such batches as `JOB_BYTES` holds, at most `JOB_BATCHES`.
fn job_batches(max_rows: usize, rows: usize, bytes: usize) -> usize {
    if rows < max_rows {
        1
    } else {
        (JOB_BYTES / bytes.max(1)).clamp(1, JOB_BATCHES)
    }
}

/// What a job stepped: its buffers and where the statement stood after it.
struct Stepped {
    state: FetchState,
    /// The rows, and how many of the caller's batches they are.
    result: Result<(Filled, usize), Stop>,
}

/// A fetched-ahead batch, in the statement's current buffers, not yet handed out in full.
#[derive(Clone, Copy)]
struct Rest {
    /// The first row not handed out, and the offset of its first byte in the arena.
    next: usize,
    bytes_at: usize,
    filled: Filled,
    bound: JobBound,
    max_rows: usize,
    /// How many batches of those bounds the job stepped.
    batches: usize,
    /// The connection's interrupt count when the job was launched.
    interrupts: u64,
}

/// A statement's fetch-ahead state (`sqlbatch_stmt::ahead`).
pub(crate) struct Ahead {
    /// Whether fetches launch jobs (off: a batch already stepped is still handed out).
    pub on: bool,
    /// Whether the statement is read-only (the only kind that fetches ahead).
    readonly: bool,
    /// The buffers the next job fills.
    spare: FetchBuffers,
    /// The job's result, written by the worker; read once the worker is idle.
    slot: Arc<Mutex<Option<Stepped>>>,
    /// The job launched and not yet claimed: its bounds and the interrupt count at its start.
    launched: Option<(usize, JobBound, u64)>,
    rest: Option<Rest>,
}

impl Ahead {
    /// # Safety
    /// `raw` must be NULL or a live statement.
    pub unsafe fn new(raw: *mut ffi::sqlite3_stmt) -> Box<Self> {
        // SAFETY: the caller's contract; an empty statement steps nothing.
        let readonly = raw.is_null() || unsafe { ffi::sqlite3_stmt_readonly(raw) } != 0;
        Box::new(Ahead {
            on: true,
            readonly,
            spare: Default::default(),
            slot: Default::default(),
            launched: None,
            rest: None,
        })
    }

    /// Whether a job was launched and not yet claimed (the worker may be stepping it).
    #[inline]
    pub fn launched(&self) -> bool {
        self.launched.is_some()
    }

    /// Drops what was stepped ahead (the statement is being reset), keeping the buffers. A
    /// launched job has finished: every caller waited for the worker.
    pub fn discard(&mut self) {
        self.rest = None;
        if self.launched.take().is_some() {
            if let Some(mut stepped) = lock(&self.slot).take() {
                self.spare = stepped.state.take_buffers();
            }
        }
    }
}

/// A raw handle moved into a job: the connection is the job's alone while it runs.
struct Handle<T>(*mut T);
// SAFETY: see the type's comment; every call on the connection waits for the job first.
unsafe impl<T> Send for Handle<T> {}

/// `sqlbatch_stmt_fetch` and `sqlbatch_stmt_fetch_into` on a statement with fetch-ahead
/// state `a`, fetch state `st`, on the connection `conn`.
///
/// # Safety
/// `db` and `raw` are the statement's live handles (from `handles`, so no job runs), used by
/// this thread only; a `Bound::Buffer` holds that many writable bytes.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub(crate) unsafe fn fetch(
    st: &mut FetchState,
    a: &mut Ahead,
    conn: &ConnShared,
    db: *mut ffi::sqlite3,
    raw: *mut ffi::sqlite3_stmt,
    max_rows: usize,
    bound: Bound,
    out: &mut sqlbatch_batch,
) -> Result<i32, Error> {
    if max_rows == 0 {
        return Err(Error::new(SQLBATCH_E_RANGE, "max_rows must be at least 1"));
    }
    let interrupts = conn.interrupts_seen();
    st.generation += 1;
    if st.phase == Phase::Ahead && a.rest.is_none() {
        // SAFETY: `raw` is the statement's live handle, and no job runs (the caller's contract).
        unsafe { claim(st, a, raw, interrupts)? };
    }
    if a.rest.is_some_and(|r| r.interrupts != interrupts) {
        // SAFETY: as above.
        return unsafe { one_row_then_interrupted(st, a, raw, bound, out) };
    }
    let (status, bytes) = if a.rest.is_some() {
        serve(st, a, max_rows, bound, out)?
    } else {
        // SAFETY: the caller's contract.
        let status = unsafe { fetch_now(st, db, raw, max_rows, bound, out, conn.direct_read_stride())? };
        (status, out.data_len)
    };
    if a.on
        && a.readonly
        && st.phase == Phase::Pending
        && a.launched.is_none()
        && !Worker::run_here(conn.hooks())
    {
        let batches = job_batches(max_rows, out.n_rows, cell_bytes(out.n_rows * out.n_cols) + bytes);
        launch(st, a, conn, db, raw, max_rows, bound.into(), batches);
    }
    Ok(status)
}

/// A fetch that the rest of a fetched-ahead batch answers while the connection's worker steps
/// the next one: served from the statement's memory, without waiting for the worker (which
/// has the connection, not this batch). None where this does not apply: no such rest, no job
/// running, an interrupt since the job that stepped the rest (the fetch then waits for the
/// worker and ends the statement), a bulk write queued on the statement, a closed
/// connection, or a NULL `out` (the waiting path reports the errors).
///
/// # Safety
/// `out` is NULL or valid for writes; a `Bound::Buffer` holds that many writable bytes.
/// `writes_queued`: whether a bulk write is queued on the statement.
pub(crate) unsafe fn fetch_served(
    st: &mut FetchState,
    a: &mut Ahead,
    conn: &ConnShared,
    writes_queued: bool,
    max_rows: usize,
    bound: Bound,
    out: *mut sqlbatch_batch,
) -> Option<Result<i32, Error>> {
    let rest = a.rest?;
    // SAFETY: the caller's contract.
    let out = unsafe { out.as_mut() }?;
    if a.launched.is_none()
        || max_rows == 0
        || rest.interrupts != conn.interrupts_seen()
        || writes_queued
        || !conn.is_open()
    {
        return None;
    }
    st.generation += 1;
    Some(serve(st, a, max_rows, bound, out).map(|(status, _)| status))
}

/// The fetch after an interrupt that came while rows were stepped ahead, or handed out in
/// parts, answered as a synchronous fetch would have answered it: that fetch would have
/// started on the row the statement stood on (the first row not yet handed out), taken it,
/// and met the interrupt at its next step. So it hands out that one row, `SQLBATCH_ROW`, and
/// ends the statement ([`end_interrupted`]): the next fetch returns `SQLITE_INTERRUPT`. The
/// row handed out stays in the statement's buffers until the next fetch.
///
/// # Safety
/// `raw` is the statement's live handle, used by this thread only, and no job runs; a
/// `Bound::Buffer` holds that many writable bytes.
unsafe fn one_row_then_interrupted(
    st: &mut FetchState,
    a: &mut Ahead,
    raw: *mut ffi::sqlite3_stmt,
    bound: Bound,
    out: &mut sqlbatch_batch,
) -> Result<i32, Error> {
    // A row too large for the caller's buffer fails as it would synchronously, and stays.
    serve(st, a, 1, bound, out)?;
    // SAFETY: the caller's contract.
    unsafe { end_interrupted(st, a, raw) };
    Ok(SQLBATCH_ROW)
}

/// Ends the statement as a fetch after an interrupt would have where it stood on no row the
/// caller has not received: it stops at once, with no rows ([`end_interrupted`]).
///
/// # Safety
/// As for [`one_row_then_interrupted`].
unsafe fn interrupted(st: &mut FetchState, a: &mut Ahead, raw: *mut ffi::sqlite3_stmt) -> Error {
    st.cells.clear();
    st.arena.clear();
    st.window = 0;
    // SAFETY: the caller's contract.
    unsafe { end_interrupted(st, a, raw) }
}

/// Ends the statement as the synchronous step that met an interrupt would have: drops what
/// was stepped ahead, halts the statement (that step halts it, so a reset here does too:
/// SQLite keeps an interrupt pending while any statement of the connection is in the middle
/// of a run, and would stop the next statement of the connection with it), and fails it, so
/// that the fetches after return `SQLITE_INTERRUPT`. Returns that error.
///
/// # Safety
/// As for [`one_row_then_interrupted`].
unsafe fn end_interrupted(st: &mut FetchState, a: &mut Ahead, raw: *mut ffi::sqlite3_stmt) -> Error {
    a.discard();
    // SAFETY: the caller's contract.
    unsafe { ffi::sqlite3_reset(raw) };
    let e = Error::interrupted();
    st.fail(&e);
    e
}

/// Takes the finished job's result into the statement: its buffers become the current ones.
/// If an interrupt came since it was launched, its rows stay, stamped with the interrupt
/// count from before (so that the fetch hands out only the first, see
/// [`one_row_then_interrupted`]); a job that holds no row then ends the statement at once.
///
/// # Safety
/// `raw` is the statement's live handle, used by this thread only.
unsafe fn claim(
    st: &mut FetchState,
    a: &mut Ahead,
    raw: *mut ffi::sqlite3_stmt,
    interrupts: u64,
) -> Result<(), Error> {
    // The batch just read goes to the next job.
    a.spare = st.take_buffers();
    let (max_rows, bound, at_launch) = a.launched.take().expect("a launched job");
    let stepped = lock(&a.slot).take().expect("the worker is idle: its job finished");
    let mut job = stepped.state;
    st.cells = std::mem::take(&mut job.cells);
    st.arena = std::mem::take(&mut job.arena);
    st.window = 0;
    st.phase = job.phase;
    st.failure = job.failure;
    let holds_rows = matches!(&stepped.result, Ok((filled, _)) if filled.rows > 0);
    let pending = matches!(stepped.result, Err(Stop::TooSmall(_)));
    if interrupts != at_launch && !holds_rows && !pending {
        // No row to hand out: a synchronous fetch would have stopped at once.
        // SAFETY: the caller's contract.
        return Err(unsafe { interrupted(st, a, raw) });
    }
    match stepped.result {
        Ok((filled, batches)) => {
            let interrupts = at_launch;
            a.rest = Some(Rest { next: 0, bytes_at: 0, filled, bound, max_rows, batches, interrupts });
            Ok(())
        }
        Err(Stop::Error(e)) => Err(e),
        // The row is still pending (the job's buffer bound was smaller than it): the fetch
        // runs synchronously, and meets an interrupt, which SQLite keeps pending while the
        // statement is in the middle of its run, as a synchronous fetch would.
        Err(Stop::TooSmall(_)) => Ok(()),
    }
}

/// Hands out the next rows of the fetched-ahead batch, within this call's bounds; returns the
/// status and how many TEXT and BLOB bytes the rows handed out hold.
fn serve(
    st: &mut FetchState,
    a: &mut Ahead,
    max_rows: usize,
    bound: Bound,
    out: &mut sqlbatch_batch,
) -> Result<(i32, usize), Error> {
    let mut rest = a.rest.expect("a batch to hand out");
    let ncols = rest.filled.ncols;
    let (first, total) = (rest.next, rest.filled.rows);
    let whole = first == 0
        && rest.batches == 1
        && total <= max_rows
        && match (bound, rest.bound) {
            (Bound::Bytes(max), JobBound::Soft(used)) => used <= max && rest.max_rows <= max_rows,
            (Bound::Buffer(_, cap), _) => st.arena.len() <= cap,
            _ => false,
        };
    let (rows, bytes_end) = if whole {
        (total, st.arena.len())
    } else if st.arena.is_empty() {
        // No bytes at all (rows of numbers): only the cells count.
        let fit = match bound {
            Bound::Bytes(max) => max.div_ceil(cell_bytes(ncols).max(1)).max(1),
            Bound::Buffer(..) => usize::MAX,
        };
        ((total - first).min(max_rows).min(fit), 0)
    } else if total - first <= max_rows
        && match bound {
            // Every row left fits: no prefix of them reaches the bound.
            Bound::Bytes(max) => !reached((total - first) * ncols, st.arena.len() - rest.bytes_at, max),
            Bound::Buffer(_, cap) => st.arena.len() - rest.bytes_at <= cap,
        }
    {
        (total - first, st.arena.len())
    } else {
        let bytes_of_row = |r: usize| -> usize {
            st.cells[r * ncols..(r + 1) * ncols]
                .iter()
                .filter(|v| v.has_bytes())
                .map(|v| v.len as usize)
                .sum()
        };
        let (mut rows, mut bytes) = (0, rest.bytes_at);
        while first + rows < total && rows < max_rows {
            let need = bytes_of_row(first + rows);
            let used = bytes - rest.bytes_at;
            match bound {
                Bound::Bytes(max) => {
                    if rows > 0 && reached(rows * ncols, used, max) {
                        break;
                    }
                }
                Bound::Buffer(_, cap) => {
                    if used + need > cap {
                        if rows == 0 {
                            *out = sqlbatch_batch {
                                cells: std::ptr::null(),
                                data: std::ptr::null(),
                                data_len: need,
                                n_rows: 0,
                                n_cols: 0,
                                generation: st.generation,
                            };
                            return Err(too_small(need));
                        }
                        break;
                    }
                }
            }
            bytes += need;
            rows += 1;
        }
        (rows, bytes)
    };
    st.window = first * ncols;
    let window = st.window..(first + rows) * ncols;
    // The part's bytes, and its cells' offsets from their start, as in a synchronous batch.
    let n = bytes_end - rest.bytes_at;
    if rest.bytes_at != 0 {
        for v in &mut st.cells[window.clone()] {
            if v.has_bytes() {
                v.bits -= rest.bytes_at as u64;
            }
        }
    }
    let data = match bound {
        // SAFETY: `bytes_at` is within the arena (at most its length).
        Bound::Bytes(_) if n > 0 => unsafe { st.arena.as_ptr().add(rest.bytes_at) },
        Bound::Bytes(_) => std::ptr::null(),
        Bound::Buffer(buf, _) => {
            if n > 0 {
                // SAFETY: `buf` holds at least `n` writable bytes (checked above, or by
                // `whole`), and does not overlap the statement's arena.
                unsafe { std::ptr::copy_nonoverlapping(st.arena.as_ptr().add(rest.bytes_at), buf, n) };
            }
            std::ptr::null()
        }
    };
    *out = sqlbatch_batch {
        cells: non_empty(&st.cells[window]),
        data,
        data_len: n,
        n_rows: rows,
        n_cols: ncols,
        generation: st.generation,
    };
    rest.next += rows;
    rest.bytes_at = bytes_end;
    if rest.next == total {
        a.rest = None;
        Ok((rest.filled.status, n))
    } else {
        a.rest = Some(rest);
        Ok((SQLBATCH_ROW, n))
    }
}

/// Bytes of `n` cells, as `JOB_BYTES` counts them.
fn cell_bytes(n: usize) -> usize {
    n.saturating_mul(std::mem::size_of::<crate::engine::value::sqlbatch_value>())
}

/// Steps one batch into `st`, as a synchronous fetch with `max_rows` and `bound` would.
///
/// # Safety
/// As for [`fill`].
unsafe fn step_one(
    st: &mut FetchState,
    db: *mut ffi::sqlite3,
    raw: *mut ffi::sqlite3_stmt,
    max_rows: usize,
    bound: JobBound,
    stride: usize,
) -> Result<Filled, Stop> {
    let mut arena = std::mem::take(&mut st.arena);
    // SAFETY: the caller's contract.
    let result = unsafe {
        match bound {
            JobBound::Soft(max) => {
                crate::engine::fetch::recycle_arena(&mut arena, max);
                fill(st, db, raw, max_rows, &mut Arena { buf: &mut arena, max }, stride)
            }
            JobBound::Hard(cap) => {
                arena.clear();
                fill(st, db, raw, max_rows, &mut Capped { buf: &mut arena, cap }, stride)
            }
        }
    };
    st.arena = arena;
    result
}

/// A job's work: up to `batches` batches, each stepped as a synchronous fetch with `max_rows`
/// and `bound` would step it, one after the other in `job`'s buffers, so that `serve`, cutting
/// them with the same bounds, hands out each of them as it was. Stops after a batch that ends
/// the result or meets an error (which comes with the next fetch, after the rows), before a
/// row that a batch of its own could not hold (it stays pending, as it would synchronously),
/// and once the batches hold `JOB_BYTES`. Returns the rows and how many batches they are.
///
/// # Safety
/// As for [`fill`].
unsafe fn step_batches(
    job: &mut FetchState,
    db: *mut ffi::sqlite3,
    raw: *mut ffi::sqlite3_stmt,
    max_rows: usize,
    bound: JobBound,
    batches: usize,
    stride: usize,
) -> Result<(Filled, usize), Stop> {
    if batches > 1 {
        // The buffers come from a batch read before, which may have been large: a job of
        // small batches needs no more room to start with (see `append`).
        job.arena.shrink_to(JOB_BYTES);
        job.cells.shrink_to(JOB_BYTES / std::mem::size_of::<crate::engine::value::sqlbatch_value>());
    }
    // SAFETY: the caller's contract.
    let mut total = unsafe { step_one(job, db, raw, max_rows, bound, stride)? };
    let mut next = FetchState::default();
    let mut stepped = 1;
    for _ in 1..batches {
        if total.status != SQLBATCH_ROW
            || job.phase != Phase::Pending
            || cell_bytes(job.cells.len()) + job.arena.len() >= JOB_BYTES
        {
            break;
        }
        next.phase = Phase::Pending;
        // SAFETY: as above.
        match unsafe { step_one(&mut next, db, raw, max_rows, bound, stride) } {
            Ok(filled) => {
                if append(job, &mut next).is_err() {
                    // Those rows were stepped and cannot be kept: the statement fails there,
                    // after the job's rows, as a step that ran out of memory would.
                    next.fail(&Error::new(ffi::SQLITE_NOMEM, "out of memory collecting rows fetched ahead"));
                    next.cells.clear();
                    next.arena.clear();
                    total.status = SQLBATCH_ROW;
                } else {
                    total.rows += filled.rows;
                    total.status = filled.status;
                    stepped += 1;
                }
            }
            Err(Stop::TooSmall(_)) => break,
            // No row (out of memory on the first): the error comes with the next fetch.
            Err(Stop::Error(_)) => {}
        }
        job.phase = next.phase;
        job.failure = next.failure.take();
    }
    Ok((total, stepped))
}

/// Appends the batch stepped into `next` to the one in `job` (its cells' offsets moved past
/// `job`'s bytes). The job holds less than `JOB_BYTES` when a batch is stepped after it (and
/// its buffers no more room, see `step_batches`), but that batch may be large (rows can grow
/// along a result): then the job's rows are moved in front of it, within its buffers, and the
/// buffers swapped, rather than the large batch copied into the job's, which would hold it
/// twice for a while.
/// `Err` if the room for the two cannot be allocated (nothing moved then).
fn append(job: &mut FetchState, next: &mut FetchState) -> Result<(), std::collections::TryReserveError> {
    let into_next =
        next.arena.len() + cell_bytes(next.cells.len()) > cell_bytes(job.cells.len()) + job.arena.len();
    if into_next {
        next.arena.try_reserve_exact(job.arena.len())?;
        next.cells.try_reserve_exact(job.cells.len())?;
    } else {
        job.cells.try_reserve(next.cells.len())?;
        job.arena.try_reserve(next.arena.len())?;
    }
    let base = job.arena.len() as u64;
    for v in next.cells.iter_mut() {
        if v.has_bytes() {
            v.bits += base;
        }
    }
    if into_next {
        next.arena.splice(0..0, job.arena.drain(..));
        next.cells.splice(0..0, job.cells.drain(..));
        std::mem::swap(&mut job.arena, &mut next.arena);
        std::mem::swap(&mut job.cells, &mut next.cells);
    } else {
        job.cells.extend_from_slice(&next.cells);
        job.arena.extend_from_slice(&next.arena);
    }
    Ok(())
}

/// Hands the statement to the worker to step its next batch; runs nothing if no thread can
/// be started (the next fetch then steps it itself).
#[allow(clippy::too_many_arguments)]
fn launch(
    st: &mut FetchState,
    a: &mut Ahead,
    conn: &ConnShared,
    db: *mut ffi::sqlite3,
    raw: *mut ffi::sqlite3_stmt,
    max_rows: usize,
    bound: JobBound,
    batches: usize,
) {
    let mut job = FetchState::new(std::mem::take(&mut a.spare));
    job.phase = st.phase;
    job.failure = st.failure.take();
    let slot = a.slot.clone();
    let (db, raw) = (Handle(db), Handle(raw));
    let stride = conn.direct_read_stride();
    let work = move || {
        let (db, raw) = (db, raw);
        // SAFETY: the statement is this job's alone until it finishes (every call on the
        // connection waits for it); `db` and `raw` are live until then.
        let result =
            catch(|| Ok(unsafe { step_batches(&mut job, db.0, raw.0, max_rows, bound, batches, stride) }));
        let result = result.unwrap_or_else(|e| {
            job.fail(&e);
            Err(Stop::Error(e))
        });
        *lock(&slot) = Some(Stepped { state: job, result });
    };
    let interrupts = conn.interrupts_seen();
    if let Err(work) = conn.worker().run(Box::new(work)) {
        // No thread: step it here and now, as the next fetch would have.
        work();
    }
    a.launched = Some((max_rows, bound, interrupts));
    st.phase = Phase::Ahead;
}
