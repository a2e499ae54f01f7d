//! The panic boundary: no Rust panic ever unwinds into C.
//!
//! Every exported function runs its body through [`ffi_boundary!`] (or [`boundary`] and
//! [`boundary_value`] directly), which checks the handle it works on for NULL, turns both a
//! returned [`Error`] and a caught panic into a status code, and records the details on the
//! connection when there is one to record them on (after rustls-ffi's `ffi_panic_boundary!`).
//! This module depends on `error.rs` only.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, MutexGuard};

use crate::error::{Error, ErrorSink};

/// Runs `body`, catching panics. Errors (and panics) are recorded on `sink` if given.
pub(crate) fn boundary(sink: Option<&dyn ErrorSink>, body: impl FnOnce() -> Result<i32, Error>) -> i32 {
    match catch(body) {
        Ok(code) => code,
        Err(e) => {
            if let Some(sink) = sink {
                sink.record(&e);
            }
            e.code
        }
    }
}

/// Runs `body`, turning a panic into an `SQLBATCH_E_PANIC` error.
pub(crate) fn catch<T>(body: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(r) => r,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(Error::panic(&what))
        }
    }
}

/// Locks `m`. A panic while holding the lock (caught at the boundary) leaves plain data
/// behind: keep using it rather than poisoning every later call.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Like [`boundary`] for functions that return a value rather than a status:
/// a panic yields `fallback`.
pub(crate) fn boundary_value<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(fallback)
}

/// The prologue of an exported function that returns a status:
///
/// - `ffi_boundary!(conn: ptr => |c| body)`: `ptr` is a `*const`/`*mut sqlbatch_conn`; NULL
///   gives `SQLBATCH_E_NULL_PARAMETER`; otherwise `body` (a `Result<i32, Error>`) runs with
///   `c: &sqlbatch_conn`, and its error is recorded on the connection.
/// - `ffi_boundary!(stmt: ptr => |s| body)`: the same for a `*mut sqlbatch_stmt`, with
///   `s: &mut sqlbatch_stmt`; `ffi_boundary!(stmt_ref: ptr => |s| body)` for a `*const` one,
///   with `s: &sqlbatch_stmt`. Errors go to the statement's connection.
/// - `ffi_boundary!(body)`: no handle, nothing recorded.
///
/// Either way no panic escapes: it becomes `SQLBATCH_E_PANIC`.
macro_rules! ffi_boundary {
    (conn: $ptr:expr => |$c:ident| $body:expr) => {{
        // SAFETY: a non-NULL handle is a live connection (the caller's contract).
        match unsafe { ($ptr).as_ref() } {
            None => $crate::codes::SQLBATCH_E_NULL_PARAMETER,
            Some($c) => {
                let sink: &dyn $crate::error::ErrorSink = &*$c.shared;
                $crate::panic::boundary(Some(sink), || $body)
            }
        }
    }};
    (stmt: $ptr:expr => |$s:ident| $body:expr) => {{
        let p: *mut $crate::stmt::sqlbatch_stmt = $ptr;
        if p.is_null() {
            $crate::codes::SQLBATCH_E_NULL_PARAMETER
        } else if $crate::stmt::sqlbatch_stmt::needs_admit(p) && !$crate::stmt::sqlbatch_stmt::admit(p, true)
        {
            // A callback of a call or job on this statement (an SQL function its step runs)
            // calling it: refused before any reference to the statement is made.
            // SAFETY: `p` is live; only its connection is read, which no call replaces.
            let shared = unsafe { std::sync::Arc::as_ptr(&(*p).conn) };
            // SAFETY: as above.
            let sink: &dyn $crate::error::ErrorSink = unsafe { &*shared };
            $crate::panic::boundary(Some(sink), || Err::<i32, _>($crate::stmt::sqlbatch_stmt::reentered()))
        } else {
            // SAFETY: a non-NULL handle is a live statement that no other thread uses.
            let $s = unsafe { &mut *p };
            $s.enter();
            // The connection state outlives the body, which never replaces `conn`.
            let shared = std::sync::Arc::as_ptr(&$s.conn);
            // SAFETY: `shared` stays alive as long as `$s`, which outlives the call.
            let sink: &dyn $crate::error::ErrorSink = unsafe { &*shared };
            let rc = $crate::panic::boundary(Some(sink), || $body);
            // SAFETY: `p` is still live (no call of this kind frees its statement).
            unsafe { (*p).leave() };
            rc
        }
    }};
    (stmt_ref: $ptr:expr => |$s:ident| $body:expr) => {{
        let p: *const $crate::stmt::sqlbatch_stmt = $ptr;
        if p.is_null() {
            $crate::codes::SQLBATCH_E_NULL_PARAMETER
        } else if $crate::stmt::sqlbatch_stmt::needs_admit(p) && !$crate::stmt::sqlbatch_stmt::admit(p, false)
        {
            // A call `admit` refuses.
            // SAFETY: `p` is live; only its connection is read, which no call replaces.
            let sink: &dyn $crate::error::ErrorSink = unsafe { &*std::sync::Arc::as_ptr(&(*p).conn) };
            $crate::panic::boundary(Some(sink), || Err::<i32, _>($crate::stmt::sqlbatch_stmt::reentered()))
        } else {
            // SAFETY: a non-NULL handle is a live statement.
            let $s = unsafe { &*p };
            let sink: &dyn $crate::error::ErrorSink = &*$s.conn;
            $crate::panic::boundary(Some(sink), || $body)
        }
    }};
    ($body:expr) => {
        $crate::panic::boundary(None, || $body)
    };
}
pub(crate) use ffi_boundary;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_a_status() {
        // Silence the default hook's message for this deliberate panic.
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let code = boundary(None, || panic!("deliberate"));
        let value = boundary_value(7u8, || panic!("deliberate"));
        std::panic::set_hook(prev);
        assert_eq!(code, Error::panic("").code);
        assert_eq!(value, 7);
        assert_eq!(boundary(None, || Ok(0)), 0);
    }

    #[test]
    fn a_panic_message_is_kept() {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let e = catch::<()>(|| panic!("boom {}", 42)).unwrap_err();
        std::panic::set_hook(prev);
        assert_eq!(e.code, Error::panic("").code);
        assert!(e.message.contains("boom 42"), "{}", e.message);
    }
}
