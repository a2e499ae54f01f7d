//! A connection's worker: one native thread, started the first time the connection fetches
//! ahead or writes behind, ended when it closes, that runs one job at a time on the
//! connection while the caller's thread does its own work (see `ahead.rs` and `write.rs`).
//!
//! The connection is still used by one thread at a time: while a job runs, every call on the
//! connection waits for it first (`ConnShared::db`), and a job starts only from a call on the
//! connection. Jobs never block on the caller, so waiting for one always ends.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

/// A job: runs on the worker thread with the connection to itself.
pub(crate) type Job = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct Queue {
    job: Option<Job>,
    quit: bool,
}

#[derive(Default)]
struct Inner {
    queue: Mutex<Queue>,
    /// Signalled when a job is queued or the thread is told to quit.
    queued: Condvar,
    /// Whether a job is queued or running (set by `run`, cleared by the thread after it).
    busy: AtomicBool,
    /// Taken while clearing `busy`, so that `wait` cannot miss the wake-up.
    idle: Mutex<()>,
    /// Signalled when `busy` is cleared.
    finished: Condvar,
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

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Worker {
    /// Whether the calling thread is a worker: a job's callback calling the library runs
    /// everything it asks for synchronously (a job never waits for a job).
    pub fn on_worker() -> bool {
        ON_WORKER.with(|w| w.get())
    }

    /// Whether a job is queued or running.
    #[inline]
    pub fn busy(&self) -> bool {
        self.inner.busy.load(Ordering::Acquire)
    }

    /// Returns once no job is queued or running; at once when none is (one atomic load),
    /// and on the worker itself.
    #[inline]
    pub fn wait(&self) {
        if self.busy() && !Self::on_worker() {
            self.wait_slow();
        }
    }

    #[cold]
    fn wait_slow(&self) {
        // A batch takes tens of microseconds or more: spin briefly for the common case of a
        // job about to finish, then sleep.
        for _ in 0..200 {
            if !self.busy() {
                return;
            }
            std::hint::spin_loop();
        }
        let mut guard = lock(&self.inner.idle);
        while self.busy() {
            guard = self.inner.finished.wait(guard).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Hands `job` to the worker thread, after the job before it has finished; starts the
    /// thread the first time. Gives the job back if no thread can be started (the caller then
    /// runs it itself).
    ///
    /// Must not be called on the worker thread.
    pub fn run(&self, job: Job) -> Result<(), Job> {
        debug_assert!(!Self::on_worker());
        self.wait();
        let mut thread = lock(&self.thread);
        if thread.is_none() {
            let inner = self.inner.clone();
            match std::thread::Builder::new().name("sqlbatch-worker".into()).spawn(move || work(&inner)) {
                Ok(handle) => *thread = Some(handle),
                Err(_) => return Err(job),
            }
        }
        drop(thread);
        self.inner.busy.store(true, Ordering::Release);
        lock(&self.inner.queue).job = Some(job);
        self.inner.queued.notify_one();
        Ok(())
    }

    /// Waits for the job in progress, then ends the thread. Idempotent.
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
        let job = {
            let mut queue = lock(&inner.queue);
            loop {
                if let Some(job) = queue.job.take() {
                    break job;
                }
                if queue.quit {
                    return;
                }
                queue = inner.queued.wait(queue).unwrap_or_else(|p| p.into_inner());
            }
        };
        // A job catches its own panics (it reports them as errors); this is the last guard,
        // so that the thread survives and `busy` is cleared whatever happens.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
        let guard = lock(&inner.idle);
        inner.busy.store(false, Ordering::Release);
        drop(guard);
        inner.finished.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

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
