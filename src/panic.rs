//! The panic boundary: no Rust panic ever unwinds into C.
//!
//! Every exported function runs its body through [`boundary`] or [`boundary_value`] (most
//! through the `ffi_boundary!` macro of the entry layer, which also checks the handle the
//! function works on), which turn both a returned [`Error`] and a caught panic into a status
//! code, and record the details on the connection when there is one to record them on (after
//! rustls-ffi's `ffi_panic_boundary!`). This module depends on `error.rs` only.

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
