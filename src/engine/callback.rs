//! What every callback registration shares: the destructor of its user data, and the guard a
//! user callback runs under (a connection's SQL functions, collations and hooks).
//!
//! A callback runs inside a step that is still using its connection; [`InCallback`] marks the
//! thread while it runs, so that a job it starts runs on this thread (not on the connection's
//! worker, beside that step), and the connection cannot be closed under the step.

use std::cell::Cell;
use std::ffi::c_void;

/// Releases the `user_data` of a registration; called exactly once.
pub type sqlbatch_destroy_fn = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

/// The connections (their dispatchers' addresses) whose callbacks run on this thread,
/// innermost last: deeper than `RUNNING_MAX` nested callbacks, every connection
/// counts as one.
struct Running {
    depth: Cell<usize>,
    conns: [Cell<usize>; RUNNING_MAX],
}

const RUNNING_MAX: usize = 8;

thread_local! {
    static RUNNING: Running =
        const { Running { depth: Cell::new(0), conns: [const { Cell::new(0) }; RUNNING_MAX] } };
}

/// Held while a user callback of a connection runs (an SQL function, aggregate or
/// collation, a hook): the step that called it is still using the connection, so a
/// job started from the callback runs on this thread, before the call that starts it returns,
/// rather than on the worker beside that step, and the connection cannot be closed from it.
pub(crate) struct InCallback(());

impl InCallback {
    #[inline]
    pub fn enter<T>(conn: *const T) -> InCallback {
        RUNNING.with(|r| {
            let d = r.depth.get();
            if let Some(slot) = r.conns.get(d) {
                slot.set(conn as usize);
            }
            r.depth.set(d + 1);
        });
        InCallback(())
    }

    /// Whether a callback of the connection whose dispatcher is `conn` runs on this thread.
    pub fn of<T>(conn: *const T) -> bool {
        RUNNING.with(|r| {
            let d = r.depth.get();
            d > RUNNING_MAX || r.conns[..d].iter().any(|c| c.get() == conn as usize)
        })
    }
}

impl Drop for InCallback {
    #[inline]
    fn drop(&mut self) {
        RUNNING.with(|r| r.depth.set(r.depth.get() - 1));
    }
}
