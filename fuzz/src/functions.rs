//! SQL functions every fuzz connection has, registered twice with the same meaning: through
//! sqlbatch's function ABI (the code under test: argument cells, results copied and handed
//! over with a destructor, errors, a batched aggregate that is also a window function, a
//! collation) and with plain SQLite for the reference side, so that SQL calling them still
//! takes part in the differential checks. `sql.dict` and `seeds.py` name them.
//!
//! - `fz_echo(...)`: its last argument, as it came (NULL without arguments); an even number of
//!   arguments hands TEXT and BLOB back through `sqlbatch_call_result_bytes` and a destructor.
//! - `fz_fail(x)`: NULL for a NULL `x`, otherwise fails with SQLITE_CONSTRAINT.
//! - `fz_sum(x)`: aggregate and window function, the wrapping sum of its integer arguments,
//!   reals truncated, and the byte length of text and blobs; batched (5 rows, 16 bytes).
//! - `fz_rev`: a collation, byte order reversed.

use std::cmp::Ordering;
use std::ffi::{c_int, c_void};
use std::ptr;

use libsqlite3_sys as sq;
use sqlbatch::*;

use crate::{Conn, Raw};

const DET: u32 = SQLBATCH_FUNCTION_DETERMINISTIC;
const RAW_DET: c_int = sq::SQLITE_UTF8 | sq::SQLITE_DETERMINISTIC;

/// The term one argument adds to fz_sum.
fn term(kind: u8, bits: u64, len: u32) -> i64 {
    match kind {
        SQLBATCH_INTEGER => bits as i64,
        SQLBATCH_FLOAT => f64::from_bits(bits) as i64,
        SQLBATCH_TEXT | SQLBATCH_BLOB => len as i64,
        _ => 0,
    }
}

fn rev(a: &[u8], b: &[u8]) -> Ordering {
    b.cmp(a)
}

extern "C" {
    fn malloc(n: usize) -> *mut c_void;
    fn free(p: *mut c_void);
}

unsafe extern "C" fn free_bytes(p: *mut c_void) {
    unsafe { free(p) }
}

// --- through sqlbatch ---

unsafe extern "C" fn echo(
    call: *mut sqlbatch_call,
    _user: *mut c_void,
    args: *const sqlbatch_value,
    n: usize,
    data: *const u8,
) {
    if n == 0 {
        return;
    }
    unsafe {
        let v = *args.add(n - 1);
        let bytes = (v.kind == SQLBATCH_TEXT || v.kind == SQLBATCH_BLOB) && v.len > 0;
        if n % 2 == 0 && bytes {
            let p = malloc(v.len as usize).cast::<u8>();
            if p.is_null() {
                return sqlbatch_call_error(call, sq::SQLITE_NOMEM, ptr::null(), 0);
            }
            ptr::copy_nonoverlapping(data.add(v.bits as usize), p, v.len as usize);
            sqlbatch_call_result_bytes(call, v.kind, p, v.len as usize, Some(free_bytes));
        } else {
            let len = if bytes { v.bits as usize + v.len as usize } else { 0 };
            sqlbatch_call_result(call, &v, if bytes { data } else { ptr::null() }, len);
        }
    }
}

unsafe extern "C" fn fail(
    call: *mut sqlbatch_call,
    _user: *mut c_void,
    args: *const sqlbatch_value,
    _n: usize,
    _data: *const u8,
) {
    if unsafe { (*args).kind } != SQLBATCH_NULL {
        unsafe { sqlbatch_call_error(call, sq::SQLITE_CONSTRAINT, c"fz_fail".as_ptr(), 7) };
    }
}

unsafe extern "C" fn sum_step(
    _call: *mut sqlbatch_call,
    _user: *mut c_void,
    state: *mut *mut c_void,
    args: *const sqlbatch_value,
    n_rows: usize,
    _n_args: usize,
    _data: *const u8,
) {
    unsafe {
        if (*state).is_null() {
            *state = Box::into_raw(Box::new(0i64)).cast();
        }
        let s = &mut *(*state as *mut i64);
        for r in 0..n_rows {
            let v = *args.add(r);
            *s = s.wrapping_add(term(v.kind, v.bits, v.len));
        }
    }
}

unsafe extern "C" fn sum_inverse(
    _call: *mut sqlbatch_call,
    _user: *mut c_void,
    state: *mut *mut c_void,
    args: *const sqlbatch_value,
    n_rows: usize,
    _n_args: usize,
    _data: *const u8,
) {
    unsafe {
        if (*state).is_null() {
            *state = Box::into_raw(Box::new(0i64)).cast();
        }
        let s = &mut *(*state as *mut i64);
        for r in 0..n_rows {
            let v = *args.add(r);
            *s = s.wrapping_sub(term(v.kind, v.bits, v.len));
        }
    }
}

fn set_int(call: *mut sqlbatch_call, v: i64) {
    let value = sqlbatch_value { bits: v as u64, len: 0, kind: SQLBATCH_INTEGER, _pad: [0; 3] };
    unsafe { sqlbatch_call_result(call, &value, ptr::null(), 0) };
}

unsafe extern "C" fn sum_finish(call: *mut sqlbatch_call, _user: *mut c_void, state: *mut c_void) {
    if !state.is_null() {
        set_int(call, *unsafe { Box::from_raw(state as *mut i64) });
    }
}

unsafe extern "C" fn sum_value(call: *mut sqlbatch_call, _user: *mut c_void, state: *mut c_void) {
    set_int(call, if state.is_null() { 0 } else { unsafe { *(state as *const i64) } });
}

unsafe extern "C" fn compare(_user: *mut c_void, a: *const u8, na: usize, b: *const u8, nb: usize) -> c_int {
    let slice =
        |p: *const u8, n: usize| if n == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(p, n) } };
    rev(slice(a, na), slice(b, nb)) as c_int
}

/// Registers the functions on a connection under test.
pub fn register(conn: &Conn) {
    let agg = sqlbatch_aggregate {
        step: Some(sum_step),
        finish: Some(sum_finish),
        inverse: Some(sum_inverse),
        value: Some(sum_value),
        batch_rows: 5,
        batch_bytes: 16,
    };
    let c = conn.0;
    let none = ptr::null_mut();
    unsafe {
        assert_eq!(
            sqlbatch_conn_create_function(c, c"fz_echo".as_ptr(), 7, -1, DET, Some(echo), none, None),
            0
        );
        assert_eq!(
            sqlbatch_conn_create_function(c, c"fz_fail".as_ptr(), 7, 1, DET, Some(fail), none, None),
            0
        );
        assert_eq!(sqlbatch_conn_create_aggregate(c, c"fz_sum".as_ptr(), 6, 1, DET, &agg, none, None), 0);
        assert_eq!(sqlbatch_conn_create_collation(c, c"fz_rev".as_ptr(), 6, Some(compare), none, None), 0);
    }
}

// --- the reference, with plain SQLite ---

unsafe fn raw_term(v: *mut sq::sqlite3_value) -> i64 {
    unsafe {
        match sq::sqlite3_value_type(v) {
            sq::SQLITE_INTEGER => sq::sqlite3_value_int64(v),
            sq::SQLITE_FLOAT => sq::sqlite3_value_double(v) as i64,
            sq::SQLITE_TEXT | sq::SQLITE_BLOB => sq::sqlite3_value_bytes(v) as i64,
            _ => 0,
        }
    }
}

unsafe extern "C" fn raw_echo(ctx: *mut sq::sqlite3_context, n: c_int, argv: *mut *mut sq::sqlite3_value) {
    if n == 0 {
        return;
    }
    unsafe {
        let v = *argv.add(n as usize - 1);
        match sq::sqlite3_value_type(v) {
            sq::SQLITE_INTEGER => sq::sqlite3_result_int64(ctx, sq::sqlite3_value_int64(v)),
            sq::SQLITE_FLOAT => sq::sqlite3_result_double(ctx, sq::sqlite3_value_double(v)),
            sq::SQLITE_TEXT => {
                let p = sq::sqlite3_value_text(v);
                sq::sqlite3_result_text(ctx, p.cast(), sq::sqlite3_value_bytes(v), sq::SQLITE_TRANSIENT())
            }
            sq::SQLITE_BLOB => {
                let n = sq::sqlite3_value_bytes(v);
                if n == 0 {
                    sq::sqlite3_result_zeroblob(ctx, 0)
                } else {
                    sq::sqlite3_result_blob(ctx, sq::sqlite3_value_blob(v), n, sq::SQLITE_TRANSIENT())
                }
            }
            _ => sq::sqlite3_result_null(ctx),
        }
    }
}

unsafe extern "C" fn raw_fail(ctx: *mut sq::sqlite3_context, _n: c_int, argv: *mut *mut sq::sqlite3_value) {
    unsafe {
        if sq::sqlite3_value_type(*argv) != sq::SQLITE_NULL {
            sq::sqlite3_result_error(ctx, c"fz_fail".as_ptr(), 7);
            sq::sqlite3_result_error_code(ctx, sq::SQLITE_CONSTRAINT);
        }
    }
}

unsafe fn raw_state(ctx: *mut sq::sqlite3_context, create: bool) -> *mut i64 {
    unsafe { sq::sqlite3_aggregate_context(ctx, if create { 8 } else { 0 }).cast() }
}

unsafe extern "C" fn raw_step(ctx: *mut sq::sqlite3_context, _n: c_int, argv: *mut *mut sq::sqlite3_value) {
    unsafe {
        let s = raw_state(ctx, true);
        if !s.is_null() {
            *s = (*s).wrapping_add(raw_term(*argv));
        }
    }
}

unsafe extern "C" fn raw_inverse(
    ctx: *mut sq::sqlite3_context,
    _n: c_int,
    argv: *mut *mut sq::sqlite3_value,
) {
    unsafe {
        let s = raw_state(ctx, true);
        if !s.is_null() {
            *s = (*s).wrapping_sub(raw_term(*argv));
        }
    }
}

unsafe extern "C" fn raw_final(ctx: *mut sq::sqlite3_context) {
    unsafe {
        let s = raw_state(ctx, false);
        if !s.is_null() {
            sq::sqlite3_result_int64(ctx, *s);
        }
    }
}

unsafe extern "C" fn raw_value(ctx: *mut sq::sqlite3_context) {
    unsafe {
        let s = raw_state(ctx, false);
        sq::sqlite3_result_int64(ctx, if s.is_null() { 0 } else { *s });
    }
}

unsafe extern "C" fn raw_compare(
    _u: *mut c_void,
    na: c_int,
    a: *const c_void,
    nb: c_int,
    b: *const c_void,
) -> c_int {
    let slice = |p: *const c_void, n: c_int| {
        if n <= 0 {
            &[][..]
        } else {
            unsafe { std::slice::from_raw_parts(p.cast::<u8>(), n as usize) }
        }
    };
    rev(slice(a, na), slice(b, nb)) as c_int
}

/// Registers the same functions on the reference connection.
pub fn register_raw(raw: &Raw) {
    let db = raw.0;
    let none = ptr::null_mut();
    unsafe {
        let ok = sq::SQLITE_OK;
        let f = sq::sqlite3_create_function_v2;
        assert_eq!(f(db, c"fz_echo".as_ptr(), -1, RAW_DET, none, Some(raw_echo), None, None, None), ok);
        assert_eq!(f(db, c"fz_fail".as_ptr(), 1, RAW_DET, none, Some(raw_fail), None, None, None), ok);
        let w = sq::sqlite3_create_window_function(
            db,
            c"fz_sum".as_ptr(),
            1,
            RAW_DET,
            none,
            Some(raw_step),
            Some(raw_final),
            Some(raw_value),
            Some(raw_inverse),
            None,
        );
        assert_eq!(w, ok);
        let c = sq::sqlite3_create_collation_v2(
            db,
            c"fz_rev".as_ptr(),
            sq::SQLITE_UTF8,
            none,
            Some(raw_compare),
            None,
        );
        assert_eq!(c, ok);
    }
}
