//! The panic boundary: no Rust panic ever unwinds into C.
//!
//! Every exported function runs its body through [`boundary`], which turns both a returned
//! [`Error`] and a caught panic into a status code, and records the details on the
//! connection when there is one to record them on.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::codes::SQLBATCH_E_PANIC;
use crate::conn::ConnShared;
use crate::error::Error;

/// Runs `body`, catching panics. Errors (and panics) are recorded on `sink` if given.
pub(crate) fn boundary(sink: Option<&ConnShared>, body: impl FnOnce() -> Result<i32, Error>) -> i32 {
    let result = catch(body);
    match result {
        Ok(code) => code,
        Err(e) => {
            if let Some(conn) = sink {
                conn.record(&e);
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
            Err(Error::new(SQLBATCH_E_PANIC, format!("internal error (panic): {what}")))
        }
    }
}

/// Like [`boundary`] for functions that return a value rather than a status:
/// a panic yields `fallback`.
pub(crate) fn boundary_value<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(fallback)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::SQLBATCH_OK;

    #[test]
    fn a_panic_becomes_a_status() {
        // Silence the default hook's message for this deliberate panic.
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let code = boundary(None, || panic!("deliberate"));
        let value = boundary_value(7u8, || panic!("deliberate"));
        std::panic::set_hook(prev);
        assert_eq!(code, SQLBATCH_E_PANIC);
        assert_eq!(value, 7);
        assert_eq!(boundary(None, || Ok(SQLBATCH_OK)), SQLBATCH_OK);
    }

    #[test]
    fn a_panic_message_is_kept() {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let e = catch::<()>(|| panic!("boom {}", 42)).unwrap_err();
        std::panic::set_hook(prev);
        assert_eq!(e.code, SQLBATCH_E_PANIC);
        assert!(e.message.contains("boom 42"), "{}", e.message);
    }
}
