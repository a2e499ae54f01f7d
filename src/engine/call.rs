//! What a function's callback sets: the result of the current call (a value, or bytes the
//! caller hands over with their destructor) or its error. `sqlbatch_call` is the opaque handle
//! the trampolines of `function.rs` create for the length of one callback.

use std::ffi::{c_int, c_void};
use std::ptr;

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::engine::value::{sqlbatch_params, sqlbatch_value, Params};
use crate::error::Error;
use crate::panic::catch;

use crate::engine::value::{SQLBATCH_BLOB, SQLBATCH_FLOAT, SQLBATCH_INTEGER, SQLBATCH_NULL, SQLBATCH_TEXT};

/// One call of a registered function, aggregate or window function: where its result goes.
/// The library creates it for the length of one callback; it must not be used after the
/// callback returns.
///
/// The simplest results, a number or NULL, a callback stores in `result` with plain stores
/// (no call into the library: for a binding, no second crossing of its FFI boundary per call);
/// `result` starts as NULL. TEXT and BLOB results, and errors, go through
/// `sqlbatch_call_result`, `sqlbatch_call_result_bytes` and `sqlbatch_call_error`; once one
/// of them was called, `result` is ignored. Any other kind left in `result` makes the call fail
/// with an error that says so. Only a scalar
/// function's callback and an aggregate's finish and value callbacks have a result; steps
/// and inverses leave `result` alone. The other fields are the library's.
#[repr(C)]
pub struct sqlbatch_call {
    /// The call's result, unless set through a function: `kind` `SQLBATCH_INTEGER` (`bits`
    /// the two's-complement value), `SQLBATCH_FLOAT` (`bits` the IEEE-754 bits) or
    /// `SQLBATCH_NULL`.
    pub result: sqlbatch_value,
    /// The library's: the call's SQLite context.
    _ctx: *mut c_void,
    /// The library's: whether the result was set through a function, or the call failed.
    pub(crate) _set: u8,
}

/// `sqlbatch_call::_set`: nothing set through a function yet (`result` counts).
const UNSET: u8 = 0;
/// A result was set through `sqlbatch_call_result` or `_bytes`.
pub(crate) const SET: u8 = 1;
/// An error was set: SQLite cannot take it back, so later results are refused.
pub(crate) const FAILED: u8 = 2;

impl sqlbatch_call {
    #[inline(always)]
    pub(crate) fn new(ctx: *mut ffi::sqlite3_context) -> Self {
        sqlbatch_call { result: sqlbatch_value::NULL, _ctx: ctx.cast(), _set: UNSET }
    }

    #[inline(always)]
    pub(crate) fn context(&self) -> *mut ffi::sqlite3_context {
        self._ctx.cast()
    }

    /// Sets `e` as the call's result, for good.
    pub(crate) fn fail(&mut self, e: &Error) -> i32 {
        // SAFETY: `ctx` is live during the callback that owns this call.
        unsafe { set_error(self.context(), e) };
        self._set = FAILED;
        e.code
    }

    /// After a callback with a result: hands `result` to SQLite unless a function set one.
    #[inline(always)]
    pub(crate) fn finish(&mut self) {
        if self._set != UNSET {
            return;
        }
        let v = self.result;
        // SAFETY: `ctx` is live until the trampoline that made this call returns.
        unsafe {
            match v.kind {
                SQLBATCH_INTEGER => ffi::sqlite3_result_int64(self.context(), v.bits as i64),
                SQLBATCH_FLOAT => ffi::sqlite3_result_double(self.context(), f64::from_bits(v.bits)),
                SQLBATCH_NULL => {}
                other => {
                    let msg = format!(
                        "call->result holds kind {other}: TEXT and BLOB go through sqlbatch_call_result"
                    );
                    self.fail(&Error::new(SQLBATCH_E_INVALID_ARGUMENT, msg));
                }
            }
        }
    }
}

/// Sets an error result on `ctx`.
///
/// # Safety
/// `ctx` must be the live context of the current callback.
pub(crate) unsafe fn set_error(ctx: *mut ffi::sqlite3_context, e: &Error) {
    // SQLite's own message for its "too big" error, which it reports with its own call.
    if e.code == ffi::SQLITE_TOOBIG {
        // SAFETY: `ctx` is live.
        return unsafe { ffi::sqlite3_result_error_toobig(ctx) };
    }
    let msg = e.message.as_bytes();
    // SAFETY: `ctx` is live; SQLite copies the message.
    unsafe {
        ffi::sqlite3_result_error(ctx, msg.as_ptr().cast(), msg.len().min(i32::MAX as usize) as c_int);
        if e.code != ffi::SQLITE_ERROR && e.code & 0xff != 0 && e.code < 1000 {
            ffi::sqlite3_result_error_code(ctx, e.code);
        }
    }
}

/// Sets TEXT or BLOB bytes as the result; `del` is what SQLite does with them (copy, or the
/// caller's destructor, which SQLite then calls exactly once, also on failure).
///
/// # Safety
/// `ctx` is live; `p` points to `len` readable bytes (any pointer when `len` is 0) that stay
/// valid until `del` runs.
pub(crate) unsafe fn set_bytes(
    ctx: *mut ffi::sqlite3_context,
    kind: u8,
    p: *const u8,
    len: usize,
    del: ffi::sqlite3_destructor_type,
) -> Result<(), Error> {
    // SAFETY: `ctx` is live; its connection too.
    let limit =
        unsafe { ffi::sqlite3_limit(ffi::sqlite3_context_db_handle(ctx), ffi::SQLITE_LIMIT_LENGTH, -1) };
    let too_big = len > limit.max(0) as usize;
    // SAFETY: the caller's contract; SQLite takes over `p` (copying it or calling `del`), and
    // calls `del` itself when it refuses the length.
    unsafe {
        match kind {
            // Non-NULL pointers for empty values: NULL would make them SQL NULL.
            SQLBATCH_TEXT if len == 0 => {
                release(p, del);
                ffi::sqlite3_result_text(ctx, c"".as_ptr(), 0, ffi::SQLITE_STATIC())
            }
            SQLBATCH_BLOB if len == 0 => {
                release(p, del);
                ffi::sqlite3_result_zeroblob(ctx, 0)
            }
            SQLBATCH_TEXT => {
                ffi::sqlite3_result_text64(ctx, p.cast(), len as u64, del, ffi::SQLITE_UTF8 as u8)
            }
            SQLBATCH_BLOB => ffi::sqlite3_result_blob64(ctx, p.cast(), len as u64, del),
            other => {
                release(p, del);
                return Err(Error::new(
                    SQLBATCH_E_INVALID_ARGUMENT,
                    format!("kind {other} is not TEXT or BLOB"),
                ));
            }
        }
    }
    if too_big {
        return Err(Error::new(ffi::SQLITE_TOOBIG, "string or blob too big"));
    }
    Ok(())
}

/// Runs a caller's destructor (not SQLite's copy/static markers) on `p` now.
///
/// # Safety
/// `del` may be called with `p`.
pub(crate) unsafe fn release(p: *const u8, del: ffi::sqlite3_destructor_type) {
    let marker = del.map(|f| f as usize);
    if marker == ffi::SQLITE_TRANSIENT().map(|f| f as usize)
        || marker == ffi::SQLITE_STATIC().map(|f| f as usize)
    {
        return;
    }
    if let Some(f) = del {
        // SAFETY: the caller's contract.
        unsafe { f(p as *mut c_void) }
    }
}

/// The rest of `sqlbatch_call_result`: a TEXT or BLOB value (or a bad one), checked.
///
/// # Safety
/// As for `sqlbatch_call_result`, with `call` its live call.
pub(crate) unsafe fn set_with_bytes(
    call: &mut sqlbatch_call,
    value: *const sqlbatch_value,
    data: *const u8,
    data_len: usize,
) -> i32 {
    let ctx = call.context();
    let result = catch(|| {
        // SAFETY: the caller vouches for `value` and `data`.
        let v = unsafe { crate::ffi::try_ref(value, "value")? };
        let set = sqlbatch_params { values: v, names: ptr::null(), n_values: 1, data, data_len, flags: 0 };
        // SAFETY: as above; `ctx` is live during the callback.
        unsafe {
            let params = Params::from_c(&set)?;
            match v.kind {
                SQLBATCH_TEXT | SQLBATCH_BLOB => {
                    let b = params.bytes_of(v)?;
                    set_bytes(ctx, v.kind, b.as_ptr(), b.len(), ffi::SQLITE_TRANSIENT())?
                }
                other => {
                    return Err(Error::new(
                        SQLBATCH_E_INVALID_ARGUMENT,
                        format!("unknown value kind {other}"),
                    ))
                }
            }
        }
        Ok(())
    });
    match result {
        Ok(()) => SQLBATCH_OK,
        Err(e) => call.fail(&e),
    }
}
