//! The entry points: every `extern "C"` function of the library, and nothing else but the
//! prologue they share. One file per handle family, in the order a program meets them (the
//! header is generated in that order, see `tests/header_in_sync.rs`). Each entry point checks
//! its arguments, runs its body through the panic boundary and hands the work to the engine.

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
        let p: *mut $crate::engine::stmt::sqlbatch_stmt = $ptr;
        if p.is_null() {
            $crate::codes::SQLBATCH_E_NULL_PARAMETER
        } else if $crate::engine::stmt::sqlbatch_stmt::needs_admit(p)
            && !$crate::engine::stmt::sqlbatch_stmt::admit(p, true)
        {
            // A callback of a call or job on this statement (an SQL function its step runs)
            // calling it: refused before any reference to the statement is made.
            // SAFETY: `p` is live; only its connection is read, which no call replaces.
            let shared = unsafe { std::sync::Arc::as_ptr(&(*p).conn) };
            // SAFETY: as above.
            let sink: &dyn $crate::error::ErrorSink = unsafe { &*shared };
            $crate::panic::boundary(Some(sink), || {
                Err::<i32, _>($crate::engine::stmt::sqlbatch_stmt::reentered())
            })
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
        let p: *const $crate::engine::stmt::sqlbatch_stmt = $ptr;
        if p.is_null() {
            $crate::codes::SQLBATCH_E_NULL_PARAMETER
        } else if $crate::engine::stmt::sqlbatch_stmt::needs_admit(p)
            && !$crate::engine::stmt::sqlbatch_stmt::admit(p, false)
        {
            // A call `admit` refuses.
            // SAFETY: `p` is live; only its connection is read, which no call replaces.
            let sink: &dyn $crate::error::ErrorSink = unsafe { &*std::sync::Arc::as_ptr(&(*p).conn) };
            $crate::panic::boundary(Some(sink), || {
                Err::<i32, _>($crate::engine::stmt::sqlbatch_stmt::reentered())
            })
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

pub mod codes;
pub mod conn;
pub mod cipher;
pub mod stmt;
pub mod fetch;
pub mod exec;
pub mod write;
pub mod function;
pub mod vtab;
pub mod hooks;
pub mod config;
pub mod extension;
pub mod backup;
pub mod serialize;
pub mod blob;
pub mod session;
pub mod convert;

pub use self::{
    backup::*, blob::*, cipher::*, codes::*, config::*, conn::*, convert::*, exec::*, extension::*, fetch::*,
    function::*, hooks::*, serialize::*, session::*, stmt::*, vtab::*, write::*,
};
