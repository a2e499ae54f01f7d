//! A connection's worker: one native thread, started the first time the connection fetches
//! ahead or writes behind, ended when it closes, that runs jobs on the connection one at a
//! time, in the order they were queued, while the caller's thread does its own work (see
//! `ahead.rs` and `write.rs`). At most two jobs are queued or running: a fetch-ahead job
//! queues after every job before it has finished, a bulk write after all but one, so that
//! the worker goes from one write straight to the next.
//!
//! The connection is still used by one thread at a time: while a job runs, every call on the
//! connection waits for it first (`ConnShared::db`), and a job starts only from a call on the
//! connection. Jobs never block on the caller, so waiting for one always ends.

use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use crate::panic::lock;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A job: runs on the worker thread with the connection to itself.
pub(crate) type Job = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    quit: bool,
    /// Whether the thread sleeps on `queued` (only then does `run` pay for a wake-up).
    sleeping: bool,
}

#[derive(Default)]
struct Inner {
    queue: Mutex<Queue>,
    /// Signalled when a job is queued or the thread is told to quit, if it sleeps.
    queued: Condvar,
    /// Whether `queue` holds a job (read while spinning, without the lock).
    has_job: AtomicBool,
    /// Jobs queued so far (raised by `run` before it queues one): a job's ticket is this
    /// count just after it was queued.
    queued_n: AtomicU64,
    /// Jobs finished so far (raised by the thread after each): job `t` has finished once
    /// this is at least `t`, and a job is queued or running while it is below `queued_n`.
    done_n: AtomicU64,
    /// Callers sleeping in `wait` (only then does the thread pay for a wake-up).
    waiting: AtomicUsize,
    idle: Mutex<()>,
    /// Signalled when `done_n` is raised, if anyone waits.
    finished: Condvar,
}

/// How long each side spins before it sleeps: the thread for its next job, a caller for the
/// job to end. About what a sleep and wake-up cost, so that a hand-over between batches
/// costs no system call while both sides keep pace.
const SPIN: Duration = Duration::from_micros(10);

/// How long a caller then keeps checking, yielding its core between checks, before it sleeps:
/// about one batch. A caller waits when the worker is the slower side; waking it from a sleep
/// would put a scheduler wake-up (tens of microseconds on a busy machine) between every two
/// batches, and the worker, with no next job yet, would go to sleep too. Yielding, rather
/// than spinning, leaves the core to any thread that needs it, the worker included on a
/// machine with more runnable threads than cores.
const YIELD: Duration = Duration::from_micros(500);

/// Checks `done` for up to `SPIN`, then (if `yield_for` is not zero) yields between checks
/// up to `yield_for`; returns whether `done` came true.
fn spin(done: impl Fn() -> bool, yield_for: Duration) -> bool {
    let start = Instant::now();
    loop {
        for _ in 0..32 {
            if done() {
                return true;
            }
            std::hint::spin_loop();
        }
        if start.elapsed() >= SPIN {
            break;
        }
    }
    while start.elapsed() < yield_for {
        if done() {
            return true;
        }
        std::thread::yield_now();
    }
    done()
}

/// The worker of one connection.
#[derive(Default)]
pub(crate) struct Worker {
    inner: Arc<Inner>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

thread_local! {
    /// Whether this thread is a worker (a callback of a job that calls the library).
    static ON_WORKER: Cell<bool> = const { Cell::new(false) };
}

impl Worker {
    /// Whether the calling thread is a worker: a job's callback calling the library runs
    /// everything it asks for synchronously (a job never waits for a job).
    pub fn on_worker() -> bool {
        ON_WORKER.with(|w| w.get())
    }

    /// Whether a job of the connection whose hook dispatcher is `hooks` must run on the
    /// calling thread rather than be handed to the worker: on a worker, or in a callback of a
    /// call stepping that connection on this thread (see `InCallback`).
    pub fn run_here(hooks: &crate::engine::hooks::Hooks) -> bool {
        Self::on_worker() || crate::engine::callback::InCallback::of(hooks)
    }

    /// Whether a job is queued or running.
    #[inline]
    pub fn busy(&self) -> bool {
        let inner = &*self.inner;
        // `done_n` first: it never passes `queued_n`, so a stale `queued_n` cannot hide a job.
        let done = inner.done_n.load(Ordering::SeqCst);
        done != inner.queued_n.load(Ordering::SeqCst)
    }

    /// Whether job `ticket` (from `run` or `run_next`) has finished.
    #[inline]
    pub fn finished(&self, ticket: u64) -> bool {
        self.inner.done_n.load(Ordering::SeqCst) >= ticket
    }

    /// Returns once no job is queued or running; at once when none is (two atomic loads),
    /// and on the worker itself.
    #[inline]
    pub fn wait(&self) {
        if self.busy() && !Self::on_worker() {
            self.wait_for(self.inner.queued_n.load(Ordering::SeqCst));
        }
    }

    /// Returns once job `ticket` and every job before it have finished (at once on the
    /// worker itself, where every job it could wait for has).
    pub fn wait_for(&self, ticket: u64) {
        if !self.finished(ticket) && !Self::on_worker() {
            self.wait_slow(ticket);
        }
    }

    #[cold]
    fn wait_slow(&self, ticket: u64) {
        if spin(|| self.finished(ticket), YIELD) {
            return;
        }
        let inner = &*self.inner;
        // With `waiting` raised before `done_n` is read again (both SeqCst), either the thread
        // sees it after raising `done_n` and signals under `idle`, or this sees `done_n` raised.
        inner.waiting.fetch_add(1, Ordering::SeqCst);
        let mut guard = lock(&inner.idle);
        while !self.finished(ticket) {
            guard = inner.finished.wait(guard).unwrap_or_else(|p| p.into_inner());
        }
        drop(guard);
        inner.waiting.fetch_sub(1, Ordering::SeqCst);
    }

    /// Hands `job` to the worker thread, after every job before it has finished; starts the
    /// thread the first time. Returns the job's ticket (for `wait_for`), or gives the job back
    /// if no thread can be started (the caller then runs it itself).
    ///
    /// Must not be called on the worker thread.
    pub fn run(&self, job: Job) -> Result<u64, Job> {
        self.wait();
        self.queue(job)
    }

    /// `run`, but queued as soon as at most one job is queued or running (not waiting for
    /// it): the worker starts `job` the moment the one before it ends.
    pub fn run_next(&self, job: Job) -> Result<u64, Job> {
        let queued = self.inner.queued_n.load(Ordering::SeqCst);
        self.wait_for(queued.saturating_sub(1));
        self.queue(job)
    }

    fn queue(&self, job: Job) -> Result<u64, Job> {
        debug_assert!(!Self::on_worker());
        let inner = &*self.inner;
        let mut thread = lock(&self.thread);
        if thread.is_none() {
            let me = self.inner.clone();
            match std::thread::Builder::new().name("sqlbatch-worker".into()).spawn(move || work(&me)) {
                Ok(handle) => *thread = Some(handle),
                Err(_) => return Err(job),
            }
        }
        drop(thread);
        // Raised before the job is visible to the thread, so `done_n` never passes it.
        let ticket = inner.queued_n.fetch_add(1, Ordering::SeqCst) + 1;
        let mut queue = lock(&inner.queue);
        queue.jobs.push_back(job);
        inner.has_job.store(true, Ordering::Release);
        let sleeping = queue.sleeping;
        drop(queue);
        if sleeping {
            inner.queued.notify_one();
        }
        Ok(ticket)
    }

    /// Waits for the jobs queued or running, then ends the thread. Idempotent.
    pub fn stop(&self) {
        self.wait();
        let Some(handle) = lock(&self.thread).take() else { return };
        lock(&self.inner.queue).quit = true;
        self.inner.queued.notify_one();
        // The thread only waits for jobs, and has none: it ends at once.
        let _ = handle.join();
    }
}

/// The worker thread's loop.
fn work(inner: &Inner) {
    ON_WORKER.with(|w| w.set(true));
    loop {
        spin(|| inner.has_job.load(Ordering::Acquire), Duration::ZERO);
        let job = {
            let mut queue = lock(&inner.queue);
            loop {
                if let Some(job) = queue.jobs.pop_front() {
                    inner.has_job.store(!queue.jobs.is_empty(), Ordering::Relaxed);
                    break job;
                }
                if queue.quit {
                    return;
                }
                queue.sleeping = true;
                queue = inner.queued.wait(queue).unwrap_or_else(|p| p.into_inner());
                queue.sleeping = false;
            }
        };
        // A job catches its own panics (it reports them as errors); this is the last guard,
        // so that the thread survives and `done_n` is raised whatever happens.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
        inner.done_n.fetch_add(1, Ordering::SeqCst);
        if inner.waiting.load(Ordering::SeqCst) != 0 {
            let guard = lock(&inner.idle);
            drop(guard);
            inner.finished.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_run_in_order_and_wait_sees_them_done() {
        let w = Worker::default();
        let n = Arc::new(AtomicUsize::new(0));
        for i in 0..100 {
            let n2 = n.clone();
            w.run(Box::new(move || {
                assert_eq!(n2.load(Ordering::SeqCst), i);
                n2.store(i + 1, Ordering::SeqCst);
            }))
            .unwrap_or_else(|_| panic!("no thread"));
            if i % 3 == 0 {
                w.wait();
                assert_eq!(n.load(Ordering::SeqCst), i + 1);
            }
        }
        w.wait();
        assert_eq!(n.load(Ordering::SeqCst), 100);
        w.stop();
        w.stop();
        assert!(!w.busy());
    }

    #[test]
    fn a_panicking_job_leaves_the_worker_usable() {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let w = Worker::default();
        w.run(Box::new(|| panic!("deliberate"))).unwrap_or_else(|_| panic!("no thread"));
        w.wait();
        std::panic::set_hook(prev);
        let ran = Arc::new(AtomicBool::new(false));
        let r = ran.clone();
        w.run(Box::new(move || r.store(true, Ordering::SeqCst))).unwrap_or_else(|_| panic!("no thread"));
        w.wait();
        assert!(ran.load(Ordering::SeqCst));
    }
}
