//! What a function's callback sets: the result of the current call (a value, or bytes the
//! caller hands over with their destructor) or its error. `sqlbatch_call` is the opaque handle
//! the trampolines of `function.rs` create for the length of one callback.

use std::ffi::{c_char, c_int, c_void};
use std::ptr;

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::error::Error;
use crate::function::sqlbatch_destroy_fn;
use crate::panic::catch;
use crate::value::{sqlbatch_params, sqlbatch_value, Params};

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
    _set: u8,
}

/// `sqlbatch_call::_set`: nothing set through a function yet (`result` counts).
const UNSET: u8 = 0;
/// A result was set through `sqlbatch_call_result` or `_bytes`.
const SET: u8 = 1;
/// An error was set: SQLite cannot take it back, so later results are refused.
const FAILED: u8 = 2;

impl sqlbatch_call {
    #[inline(always)]
    pub(crate) fn new(ctx: *mut ffi::sqlite3_context) -> Self {
        sqlbatch_call { result: sqlbatch_value::NULL, _ctx: ctx.cast(), _set: UNSET }
    }

    #[inline(always)]
    fn context(&self) -> *mut ffi::sqlite3_context {
        self._ctx.cast()
    }

    /// Sets `e` as the call's result, for good.
    fn fail(&mut self, e: &Error) -> i32 {
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
unsafe fn set_bytes(
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
unsafe fn release(p: *const u8, del: ffi::sqlite3_destructor_type) {
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

/// sqlbatch_call_result sets the result of the current call of a function (or of an
/// aggregate's finish or value callback) to `*value`, whose TEXT or BLOB bytes are at
/// `data + value->bits` (`data_len` bytes at `data`); the bytes are copied (to hand them over
/// without a copy, use `sqlbatch_call_result_bytes`; a number or NULL can also be stored in
/// `call->result` without a call). A later result replaces it, and so does
/// an error; but once the call has failed (`sqlbatch_call_error`, or a bad result here),
/// SQLite cannot take the error back, so a later result is refused with
/// `SQLBATCH_E_INVALID_ARGUMENT` and changes nothing.
///
/// Thread: only inside the callback that received `call`.
/// NULL: `call` or `value` NULL: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_INVALID_ARGUMENT` (an unknown kind, bytes without
/// `data`), `SQLBATCH_E_RANGE` (bytes outside `data_len`) or `SQLITE_TOOBIG` (text or a blob
/// over the connection's `SQLITE_LIMIT_LENGTH`), each of which also makes the call fail with
/// that error.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_call_result(
    call: *mut sqlbatch_call,
    value: *const sqlbatch_value,
    data: *const u8,
    data_len: usize,
) -> i32 {
    // SAFETY: a non-NULL `call` is the current callback's (the caller's contract).
    let Some(call) = (unsafe { call.as_mut() }) else {
        return SQLBATCH_E_NULL_PARAMETER;
    };
    if call._set == FAILED {
        return SQLBATCH_E_INVALID_ARGUMENT;
    }
    call._set = SET;
    let ctx = call.context();
    // The common results first, with nothing to check: a number or NULL.
    // SAFETY: a non-NULL `value` is readable (the caller's contract); `ctx` is live.
    if let Some(v) = unsafe { value.as_ref() } {
        unsafe {
            match v.kind {
                SQLBATCH_INTEGER => ffi::sqlite3_result_int64(ctx, v.bits as i64),
                SQLBATCH_FLOAT => ffi::sqlite3_result_double(ctx, f64::from_bits(v.bits)),
                SQLBATCH_NULL => ffi::sqlite3_result_null(ctx),
                _ => return set_with_bytes(call, v, data, data_len),
            }
        }
        return SQLBATCH_OK;
    }
    // SAFETY: the caller's contract.
    unsafe { set_with_bytes(call, value, data, data_len) }
}

/// The rest of `sqlbatch_call_result`: a TEXT or BLOB value (or a bad one), checked.
///
/// # Safety
/// As for `sqlbatch_call_result`, with `call` its live call.
unsafe fn set_with_bytes(
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

/// sqlbatch_call_result_bytes sets the result of the current call to TEXT (`kind`
/// `SQLBATCH_TEXT`, UTF-8) or BLOB (`SQLBATCH_BLOB`) bytes that the caller hands over without
/// a copy: SQLite keeps the `len` bytes at `bytes` for as long as it needs them and then calls
/// `destroy(bytes)`. When `bytes` is not NULL, `destroy` runs exactly once whatever happens,
/// also when this call fails, and possibly before it returns (for an empty value, or when
/// SQLite copies or refuses the bytes); it runs on the thread running the statement and must
/// not call into the library. A NULL `destroy` means copy the bytes now, as
/// `sqlbatch_call_result` does. The other rules are `sqlbatch_call_result`'s.
///
/// Thread: only inside the callback that received `call`.
/// NULL: `call` NULL: `SQLBATCH_E_NULL_PARAMETER` (`destroy` still runs); `bytes` NULL with
/// `len` > 0: `SQLBATCH_E_INVALID_ARGUMENT`; `bytes` NULL with `len` 0: an empty value.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_INVALID_ARGUMENT` (a kind other than TEXT or BLOB, a
/// call that has failed already) or `SQLITE_TOOBIG` (over the connection's
/// `SQLITE_LIMIT_LENGTH`), which (but for the failed call) also make the call fail.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_call_result_bytes(
    call: *mut sqlbatch_call,
    kind: u8,
    bytes: *const u8,
    len: usize,
    destroy: sqlbatch_destroy_fn,
) -> i32 {
    let del: ffi::sqlite3_destructor_type = if destroy.is_some() { destroy } else { ffi::SQLITE_TRANSIENT() };
    // SAFETY: `destroy` takes `bytes` (the caller's contract); it runs once on every early
    // return below, and otherwise SQLite runs it.
    let drop_bytes = || unsafe {
        if !bytes.is_null() {
            release(bytes, del)
        }
    };
    // SAFETY: a non-NULL `call` is the current callback's (the caller's contract).
    let Some(call) = (unsafe { call.as_mut() }) else {
        drop_bytes();
        return SQLBATCH_E_NULL_PARAMETER;
    };
    if call._set == FAILED {
        drop_bytes();
        return SQLBATCH_E_INVALID_ARGUMENT;
    }
    if bytes.is_null() && len > 0 {
        let e = Error::new(SQLBATCH_E_INVALID_ARGUMENT, format!("{len} result bytes without a pointer"));
        return call.fail(&e);
    }
    let p = if bytes.is_null() { ptr::NonNull::<u8>::dangling().as_ptr().cast_const() } else { bytes };
    // `set_bytes` takes the bytes over in every case; a NULL `bytes` has nothing to release.
    let del = if bytes.is_null() { ffi::SQLITE_STATIC() } else { del };
    // SAFETY: `ctx` is live during the callback; `p` has `len` bytes (the caller's contract).
    call._set = SET;
    match catch(|| unsafe { set_bytes(call.context(), kind, p, len, del) }) {
        Ok(()) => SQLBATCH_OK,
        Err(e) => call.fail(&e),
    }
}

/// sqlbatch_call_error makes the current call fail: the statement stops with `code` (an
/// SQLite result code, e.g. `SQLITE_CONSTRAINT`; 0 or a library code give `SQLITE_ERROR`) and
/// the `message_len` bytes of UTF-8 at `message` (copied) as its message.
/// Thread: only inside the callback that received `call`. NULL `call`: a no-op; NULL
/// `message`: SQLite's description of `code`.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_call_error(
    call: *mut sqlbatch_call,
    code: i32,
    message: *const c_char,
    message_len: usize,
) {
    // SAFETY: a non-NULL `call` is the current callback's (the caller's contract).
    let Some(call) = (unsafe { call.as_mut() }) else { return };
    call._set = FAILED;
    let ctx = call.context();
    crate::panic::boundary_value((), || {
        let code = if code == 0 || code >= 1000 { ffi::SQLITE_ERROR } else { code };
        // SAFETY: the caller vouches for `message`; `ctx` is live during the callback.
        unsafe {
            let text = if message.is_null() {
                None
            } else {
                Some(std::slice::from_raw_parts(message.cast::<u8>(), message_len))
            };
            match text {
                Some(t) => {
                    ffi::sqlite3_result_error(ctx, t.as_ptr().cast(), t.len().min(i32::MAX as usize) as c_int)
                }
                None => ffi::sqlite3_result_error(ctx, ffi::sqlite3_errstr(code), -1),
            }
            if code != ffi::SQLITE_ERROR {
                ffi::sqlite3_result_error_code(ctx, code);
            }
        }
    })
}
