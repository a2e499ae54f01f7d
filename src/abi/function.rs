//! Entry points: SQL functions, aggregates and collations, and what their callbacks set.

use std::ffi::{c_char, c_int, c_void, CString};
use std::ptr;

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::error::Error;
use crate::ffi::*;

use crate::engine::value::{SQLBATCH_FLOAT, SQLBATCH_INTEGER, SQLBATCH_NULL};

use crate::engine::call::sqlbatch_call;
use crate::engine::callback::sqlbatch_destroy_fn;
use crate::engine::conn::sqlbatch_conn;
use crate::engine::function::sqlbatch_aggregate;
use crate::engine::function::sqlbatch_collation_fn;
use crate::engine::function::sqlbatch_function_fn;
use crate::engine::value::sqlbatch_value;
use crate::panic::catch;

use crate::engine::call::release;
use crate::engine::call::set_bytes;
use crate::engine::call::set_with_bytes;
use crate::engine::call::FAILED;
use crate::engine::call::SET;
use crate::engine::function::check_flags;
use crate::engine::function::checked_name;
use crate::engine::function::collation_trampoline;
use crate::engine::function::destroy_registration;
use crate::engine::function::final_trampoline;
use crate::engine::function::inverse_trampoline;
use crate::engine::function::scalar_trampoline;
use crate::engine::function::step_trampoline;
use crate::engine::function::value_trampoline;
use crate::engine::function::Registration;
use std::cell::Cell;

/// Registers `reg` under `name` with `hand_over`, which gives it to SQLite. The registration's
/// destructor (and so the caller's) runs exactly once: by SQLite once it has the pointer
/// (also when registering fails), or here, when the call fails before that.
///
/// # Safety
/// `conn` must be NULL or a live connection; `name` must point to `name_len` bytes.
unsafe fn register(
    conn: *mut sqlbatch_conn,
    name: *const c_char,
    name_len: usize,
    reg: Box<Registration>,
    hand_over: impl FnOnce(*mut ffi::sqlite3, &CString, *mut c_void) -> c_int,
) -> i32 {
    // Dropped (destroy runs) on every path that does not reach SQLite.
    let mut reg = Some(reg);
    let rc = ffi_boundary!(conn: conn => |c| {
        let db = c.shared.db()?;
        // SAFETY: the caller vouches for `name`.
        let name = checked_name(unsafe { try_bytes(name, name_len, "name")? })?;
        let mut r = reg.take().expect("taken once");
        r.hooks = c.shared.hooks();
        let p = Box::into_raw(r) as *mut c_void;
        let rc = hand_over(db, &name, p);
        if rc != ffi::SQLITE_OK {
            // SAFETY: `db` is open; SQLite has called destroy_registration already.
            return Err(unsafe { Error::from_db(db, rc) });
        }
        Ok(SQLBATCH_OK)
    });
    rc
}

/// sqlbatch_conn_create_function registers (or replaces, or with `fn` NULL deletes) the
/// scalar SQL function `name` (`name_len` bytes of UTF-8) taking `n_args` arguments (-1 for
/// any number) on `conn` (`sqlite3_create_function_v2`).
///
/// `flags` is 0 or a bitwise OR of `SQLBATCH_FUNCTION_DETERMINISTIC`, `_INNOCUOUS` and
/// `_DIRECTONLY`. Each call of the function in SQL calls `fn(call, user_data, args, n_args,
/// data)` on the thread that runs the statement, with the arguments as cells (see
/// `sqlbatch_function_fn`); the callback sets the result with `sqlbatch_call_result` or
/// `sqlbatch_call_error`. It may run SQL on any connection, `conn` included (from the same
/// thread: the statement that calls it is mid-step, as with SQLite's own callbacks), and may
/// call `sqlbatch_conn_interrupt`, which stops the calling statement with `SQLITE_INTERRUPT`. A function may be registered under one name once
/// per argument count.
///
/// Ownership: `user_data` passes to the library with this call: `destroy(user_data)` (if
/// `destroy` is not NULL) runs exactly once, when the function is replaced or deleted, when
/// `conn` closes, or before this call returns if it fails.
/// NULL: `conn` NULL, or `name` NULL with `name_len > 0`: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_INVALID_ARGUMENT` (unknown flags, an empty name or one
/// with a NUL byte), `SQLBATCH_E_INVALID_UTF8`, `SQLBATCH_E_CLOSED`, or SQLite's error
/// (`SQLITE_MISUSE` for a bad argument count or a name over 255 bytes, `SQLITE_BUSY` while a
/// statement that uses the function runs).
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_create_function(
    conn: *mut sqlbatch_conn,
    name: *const c_char,
    name_len: usize,
    n_args: i32,
    flags: u32,
    r#fn: sqlbatch_function_fn,
    user_data: *mut c_void,
    destroy: sqlbatch_destroy_fn,
) -> i32 {
    let reg = Box::new(Registration {
        func: r#fn,
        agg: None,
        collation: None,
        user_data,
        destroy,
        scratch: Cell::new(None),
        hooks: ptr::null(),
    });
    let rep = match check_flags(flags) {
        Ok(rep) => rep,
        Err(e) => {
            drop(reg);
            return report(conn, e);
        }
    };
    let hand_over = |db: *mut ffi::sqlite3, name: &CString, p: *mut c_void| {
        let func = r#fn.map(|_| scalar_trampoline as unsafe extern "C" fn(_, _, _));
        // SAFETY: `db` is open; `p` is a Registration that SQLite now owns.
        unsafe {
            if func.is_none() {
                // Deleting: SQLite destroys the old registration; ours has no one to own it.
                drop(Box::from_raw(p as *mut Registration));
                return ffi::sqlite3_create_function_v2(
                    db,
                    name.as_ptr(),
                    n_args,
                    rep,
                    ptr::null_mut(),
                    None,
                    None,
                    None,
                    None,
                );
            }
            ffi::sqlite3_create_function_v2(
                db,
                name.as_ptr(),
                n_args,
                rep,
                p,
                func,
                None,
                None,
                Some(destroy_registration),
            )
        }
    };
    // SAFETY: the caller's contract is `register`'s.
    unsafe { register(conn, name, name_len, reg, hand_over) }
}

/// sqlbatch_conn_create_aggregate registers (or replaces) the aggregate SQL function `name`
/// taking `n_args` arguments (-1 for any number) on `conn`: a window function too when
/// `fns->inverse` and `fns->value` are set (`sqlite3_create_window_function`).
///
/// For each group, the library calls `fns->step` with the group's argument rows, one row per
/// call or in batches of up to `fns->batch_rows` rows (see `sqlbatch_aggregate`), then
/// `fns->finish` once; a window function also gets `inverse` and `value` calls. `*fns` is
/// copied. `flags`, the thread that calls back, and the ownership of `user_data` are as for
/// `sqlbatch_conn_create_function`. To delete an aggregate, register a scalar function of
/// that name with a NULL `fn`.
/// NULL: `conn` or `fns` NULL, `fns->step` or `fns->finish` NULL, or `name` NULL with
/// `name_len > 0`: `SQLBATCH_E_NULL_PARAMETER` (and `destroy(user_data)` has run).
/// @return as `sqlbatch_conn_create_function`, plus `SQLBATCH_E_INVALID_ARGUMENT` when only
/// one of `inverse` and `value` is set.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_create_aggregate(
    conn: *mut sqlbatch_conn,
    name: *const c_char,
    name_len: usize,
    n_args: i32,
    flags: u32,
    fns: *const sqlbatch_aggregate,
    user_data: *mut c_void,
    destroy: sqlbatch_destroy_fn,
) -> i32 {
    // SAFETY: a non-NULL `fns` points to a sqlbatch_aggregate (the caller's contract).
    let agg = unsafe { fns.as_ref() }.copied();
    let reg = Box::new(Registration {
        func: None,
        agg,
        collation: None,
        user_data,
        destroy,
        scratch: Cell::new(None),
        hooks: ptr::null(),
    });
    let checked = match agg {
        None => Err(Error::null("fns")),
        Some(a) if a.step.is_none() || a.finish.is_none() => Err(Error::null("fns->step or fns->finish")),
        Some(a) if a.inverse.is_some() != a.value.is_some() => Err(Error::new(
            SQLBATCH_E_INVALID_ARGUMENT,
            "a window function needs both fns->inverse and fns->value",
        )),
        Some(a) => check_flags(flags).map(|rep| (rep, a.inverse.is_some())),
    };
    let (rep, window) = match checked {
        Ok(c) => c,
        Err(e) => {
            drop(reg);
            return report(conn, e);
        }
    };
    let hand_over = |db: *mut ffi::sqlite3, name: &CString, p: *mut c_void| {
        // SAFETY: `db` is open; `p` is a Registration that SQLite now owns.
        unsafe {
            if window {
                ffi::sqlite3_create_window_function(
                    db,
                    name.as_ptr(),
                    n_args,
                    rep,
                    p,
                    Some(step_trampoline),
                    Some(final_trampoline),
                    Some(value_trampoline),
                    Some(inverse_trampoline),
                    Some(destroy_registration),
                )
            } else {
                ffi::sqlite3_create_function_v2(
                    db,
                    name.as_ptr(),
                    n_args,
                    rep,
                    p,
                    None,
                    Some(step_trampoline),
                    Some(final_trampoline),
                    Some(destroy_registration),
                )
            }
        }
    };
    // SAFETY: the caller's contract is `register`'s.
    unsafe { register(conn, name, name_len, reg, hand_over) }
}

/// sqlbatch_conn_create_collation registers (or replaces, or with `compare` NULL deletes)
/// the collation `name` on `conn` (`sqlite3_create_collation_v2`), used by `COLLATE name`,
/// column declarations and indexes. `compare` is called on the thread that runs the
/// statement. Ownership of `user_data` is as for `sqlbatch_conn_create_function`.
/// NULL: `conn` NULL, or `name` NULL with `name_len > 0`: `SQLBATCH_E_NULL_PARAMETER`.
/// @return `SQLBATCH_OK`, `SQLBATCH_E_INVALID_ARGUMENT`, `SQLBATCH_E_INVALID_UTF8`,
/// `SQLBATCH_E_CLOSED`, or SQLite's error (`SQLITE_BUSY` while a statement uses it).
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_conn_create_collation(
    conn: *mut sqlbatch_conn,
    name: *const c_char,
    name_len: usize,
    compare: sqlbatch_collation_fn,
    user_data: *mut c_void,
    destroy: sqlbatch_destroy_fn,
) -> i32 {
    let reg = Box::new(Registration {
        func: None,
        agg: None,
        collation: compare,
        user_data,
        destroy,
        scratch: Cell::new(None),
        hooks: ptr::null(),
    });
    let hand_over = |db: *mut ffi::sqlite3, name: &CString, p: *mut c_void| {
        // SAFETY: `db` is open; `p` is a Registration that SQLite now owns.
        unsafe {
            if compare.is_none() {
                drop(Box::from_raw(p as *mut Registration));
                return ffi::sqlite3_create_collation_v2(
                    db,
                    name.as_ptr(),
                    ffi::SQLITE_UTF8,
                    ptr::null_mut(),
                    None,
                    None,
                );
            }
            let rc = ffi::sqlite3_create_collation_v2(
                db,
                name.as_ptr(),
                ffi::SQLITE_UTF8,
                p,
                Some(collation_trampoline),
                Some(destroy_registration),
            );
            // Unlike its other registrations, SQLite does not call the destructor when this fails.
            if rc != ffi::SQLITE_OK {
                destroy_registration(p);
            }
            rc
        }
    };
    // SAFETY: the caller's contract is `register`'s.
    unsafe { register(conn, name, name_len, reg, hand_over) }
}

/// Records `e` on `conn` (if any) and returns its code: for errors found before registering.
fn report(conn: *mut sqlbatch_conn, e: Error) -> i32 {
    // SAFETY: a non-NULL `conn` is live (the caller's contract).
    ffi_boundary!(conn: conn => |_c| Err(e))
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

/// sqlbatch_call_result_bytes sets the result of the current call to TEXT (`kind`
/// `SQLBATCH_TEXT`, UTF-8) or BLOB (`SQLBATCH_BLOB`) bytes that the caller hands over without
/// a copy: SQLite keeps the `bytes_len` bytes at `bytes` for as long as it needs them and then calls
/// `destroy(bytes)`. When `bytes` is not NULL, `destroy` runs exactly once whatever happens,
/// also when this call fails, and possibly before it returns (for an empty value, or when
/// SQLite copies or refuses the bytes); it runs on the thread running the statement and must
/// not call into the library. A NULL `destroy` means copy the bytes now, as
/// `sqlbatch_call_result` does. The other rules are `sqlbatch_call_result`'s.
///
/// Thread: only inside the callback that received `call`.
/// NULL: `call` NULL: `SQLBATCH_E_NULL_PARAMETER` (`destroy` still runs); `bytes` NULL with
/// `bytes_len` > 0: `SQLBATCH_E_INVALID_ARGUMENT`; `bytes` NULL with `bytes_len` 0: an empty value.
/// @return `SQLBATCH_OK`; `SQLBATCH_E_INVALID_ARGUMENT` (a kind other than TEXT or BLOB, a
/// call that has failed already) or `SQLITE_TOOBIG` (over the connection's
/// `SQLITE_LIMIT_LENGTH`), which (but for the failed call) also make the call fail.
#[no_mangle]
pub unsafe extern "C" fn sqlbatch_call_result_bytes(
    call: *mut sqlbatch_call,
    kind: u8,
    bytes: *const u8,
    bytes_len: usize,
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
    if bytes.is_null() && bytes_len > 0 {
        let e =
            Error::new(SQLBATCH_E_INVALID_ARGUMENT, format!("{bytes_len} result bytes without a pointer"));
        return call.fail(&e);
    }
    let p = if bytes.is_null() { ptr::NonNull::<u8>::dangling().as_ptr().cast_const() } else { bytes };
    // `set_bytes` takes the bytes over in every case; a NULL `bytes` has nothing to release.
    let del = if bytes.is_null() { ffi::SQLITE_STATIC() } else { del };
    // SAFETY: `ctx` is live during the callback; `p` has `bytes_len` bytes (the caller's contract).
    call._set = SET;
    match catch(|| unsafe { set_bytes(call.context(), kind, p, bytes_len, del) }) {
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
