//! User-defined SQL functions, aggregates, window functions and collations.
//!
//! The library registers trampolines of its own with SQLite (`sqlite3_create_function_v2`,
//! `sqlite3_create_window_function`, `sqlite3_create_collation_v2`); they hand the caller's
//! callback its arguments as `sqlbatch_value` cells over one base of bytes, as in a fetch, and
//! an opaque `sqlbatch_call` through which it sets the result. An aggregate can take its
//! argument rows in batches: the trampoline collects the rows of a group and crosses into the
//! caller once per batch instead of once per row.

use std::cell::Cell;
use std::ffi::{c_int, c_void, CString};
use std::mem::MaybeUninit;
use std::ptr;

use libsqlite3_sys as ffi;

use crate::codes::*;
use crate::engine::call::{set_error, sqlbatch_call};
use crate::engine::callback::InCallback;
use crate::engine::cells::Cells;
use crate::engine::mem::{self, Direct};
use crate::engine::value::sqlbatch_value;
use crate::error::Error;
use crate::panic::catch;

use crate::engine::callback::sqlbatch_destroy_fn;

/// Function flag: the function gives the same result for the same arguments within one
/// statement, so SQLite may factor calls out (`SQLITE_DETERMINISTIC`).
pub const SQLBATCH_FUNCTION_DETERMINISTIC: u32 = 0x0000_0800;
/// Function flag: the function may not be called from triggers, views, CHECK constraints and
/// other schema structures, only from top-level SQL (`SQLITE_DIRECTONLY`).
pub const SQLBATCH_FUNCTION_DIRECTONLY: u32 = 0x0008_0000;
/// Function flag: the function has no side effects and leaks no information, so it may be
/// used in the schema even with trusted_schema off (`SQLITE_INNOCUOUS`).
pub const SQLBATCH_FUNCTION_INNOCUOUS: u32 = 0x0020_0000;

const FUNCTION_FLAGS_ALLOWED: u32 =
    SQLBATCH_FUNCTION_DETERMINISTIC | SQLBATCH_FUNCTION_DIRECTONLY | SQLBATCH_FUNCTION_INNOCUOUS;

/// A scalar function: computes the result of one call from `n_args` argument cells (`args`,
/// NULL when there are none), whose TEXT and BLOB bytes are at `data + bits` (`data` NULL when
/// no argument has bytes), and sets it through `call`: a number or NULL stored in
/// `call->result`, anything through `sqlbatch_call_result` and its siblings. The cells and
/// bytes are valid only during the callback. Not setting a result gives SQL NULL.
pub type sqlbatch_function_fn = Option<
    unsafe extern "C" fn(
        call: *mut sqlbatch_call,
        user_data: *mut c_void,
        args: *const sqlbatch_value,
        n_args: usize,
        data: *const u8,
    ),
>;

/// An aggregate's step (or a window function's inverse): takes `n_rows` argument rows of
/// `n_args` cells each (`args`, row-major; bytes at `data + bits`, as for a scalar function)
/// into the group's state. `*state` is NULL at a group's first call; the callback sets it to
/// whatever it keeps per group, and the finish callback frees it. An error set through `call`
/// ends the statement with that error.
pub type sqlbatch_step_fn = Option<
    unsafe extern "C" fn(
        call: *mut sqlbatch_call,
        user_data: *mut c_void,
        state: *mut *mut c_void,
        args: *const sqlbatch_value,
        n_rows: usize,
        n_args: usize,
        data: *const u8,
    ),
>;

/// An aggregate's finish (or a window function's value): sets the group's result through
/// `call` (as a scalar function does) from `state` (NULL when the group had no row, e.g. `SELECT agg(x) FROM empty`).
/// The finish callback also frees `state`: it is called exactly once per group, also when
/// the statement ends early (an error, a reset); the value callback leaves it alone.
pub type sqlbatch_finish_fn =
    Option<unsafe extern "C" fn(call: *mut sqlbatch_call, user_data: *mut c_void, state: *mut c_void)>;

/// A collation: compares the `a_len` bytes at `a` with the `b_len` bytes at `b` (UTF-8 text,
/// not NUL-terminated, valid during the call) and returns a negative number, 0 or a positive
/// number. It must be a total order, and must not fail.
pub type sqlbatch_collation_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        a: *const u8,
        a_len: usize,
        b: *const u8,
        b_len: usize,
    ) -> i32,
>;

/// The callbacks of an aggregate or window function, for `sqlbatch_conn_create_aggregate`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sqlbatch_aggregate {
    /// Required: takes argument rows into the group's state.
    pub step: sqlbatch_step_fn,
    /// Required: sets the group's result and frees its state.
    pub finish: sqlbatch_finish_fn,
    /// Window functions only (NULL otherwise, together with `value`): removes the oldest
    /// `n_rows` rows (always 1) from the state, as the window's frame moves on.
    pub inverse: sqlbatch_step_fn,
    /// Window functions only: sets the current result, keeping the state.
    pub value: sqlbatch_finish_fn,
    /// 0 or 1: `step` gets one row per call. More: the library collects up to this many rows
    /// of a group (and at most `batch_bytes` bytes of their TEXT and BLOB values, if that is
    /// not 0) and calls `step` once per batch; the rows of a group keep SQLite's order, and
    /// what is left is handed over before `finish`, `value` and `inverse`, so a batched
    /// aggregate also works as a window function (with a frame that moves every row, its
    /// batches are one row long). An error set by `step` is then reported with the batch,
    /// not with the row that caused it.
    pub batch_rows: usize,
    /// The byte bound of a batch (0: none); a batch always holds at least one row.
    pub batch_bytes: usize,
}

/// What the library keeps per registration (the `pApp` of SQLite's functions).
pub(crate) struct Registration {
    pub(crate) func: sqlbatch_function_fn,
    pub(crate) agg: Option<sqlbatch_aggregate>,
    pub(crate) collation: sqlbatch_collation_fn,
    pub(crate) user_data: *mut c_void,
    pub(crate) destroy: sqlbatch_destroy_fn,
    /// Reused by calls that do not overlap (a nested call of the same function gets its own).
    pub(crate) scratch: Cell<Option<Cells>>,
    /// The connection's hook dispatcher (set once registered; the connection's state, which
    /// holds it, outlives SQLite's handle and so every call of this registration).
    pub(crate) hooks: *const crate::engine::hooks::Hooks,
}

impl Registration {
    /// A call of this registration starts: the batched update hook gets the events collected
    /// before it (see `Hooks::before_callback`).
    #[inline]
    fn enter(&self) -> &Self {
        // SAFETY: set by `register` to the connection's dispatcher, which outlives the calls.
        if let Some(h) = unsafe { self.hooks.as_ref() } {
            h.before_callback();
        }
        self
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        if let Some(destroy) = self.destroy {
            // SAFETY: the caller's destructor, called once, with its own user data.
            let _ = catch(|| {
                unsafe { destroy(self.user_data) };
                Ok(())
            });
        }
    }
}

/// The registration behind `ctx`.
///
/// # Safety
/// `ctx` must be the live context of a call of a function registered here.
unsafe fn registration<'a>(ctx: *mut ffi::sqlite3_context) -> &'a Registration {
    // SAFETY: the pApp of our registrations is a live Registration until xDestroy.
    unsafe { (*(ffi::sqlite3_user_data(ctx) as *const Registration)).enter() }
}

/// Marks a call of the registration behind `ctx` as running on this thread (see `InCallback`).
///
/// # Safety
/// As for [`registration`].
#[inline]
unsafe fn running(ctx: *mut ffi::sqlite3_context) -> InCallback {
    // SAFETY: the caller's contract.
    InCallback::enter(unsafe { (*(ffi::sqlite3_user_data(ctx) as *const Registration)).hooks })
}

/// Runs a callback body, turning a panic or an error into an SQL error on `ctx`.
///
/// # Safety
/// `ctx` must be the live context of the current callback.
unsafe fn guarded(ctx: *mut ffi::sqlite3_context, body: impl FnOnce() -> Result<(), Error>) {
    if let Err(e) = catch(body) {
        // SAFETY: as for this function.
        unsafe { set_error(ctx, &e) };
    }
}

fn no_memory() -> Error {
    Error::new(ffi::SQLITE_NOMEM, "out of memory reading a function argument")
}

pub(crate) unsafe extern "C" fn scalar_trampoline(
    ctx: *mut ffi::sqlite3_context,
    argc: c_int,
    argv: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: SQLite calls this with a live context of our registration.
    let _callback = unsafe { running(ctx) };
    // SAFETY: SQLite calls this with a live context of our registration and `argc` values.
    unsafe {
        if !scalar_fast(ctx, argc, argv) {
            scalar_general(ctx, argc, argv)
        }
    }
}

/// A scalar function's call with TEXT or BLOB arguments, or many: cells over a buffer that
/// the registration keeps between calls. A separate function, so that the fast path's frame
/// stays small.
///
/// # Safety
/// As for [`scalar_trampoline`].
#[inline(never)]
unsafe fn scalar_general(ctx: *mut ffi::sqlite3_context, argc: c_int, argv: *mut *mut ffi::sqlite3_value) {
    // SAFETY: the caller's contract.
    unsafe {
        guarded(ctx, || {
            let reg = registration(ctx);
            let mut args = reg.scratch.take().unwrap_or_default();
            args.clear();
            if !args.push_row(argc, argv) {
                reg.scratch.set(Some(args));
                return Err(no_memory());
            }
            let mut call = sqlbatch_call::new(ctx);
            if let Some(f) = reg.func {
                f(&mut call, reg.user_data, args.cells_ptr(), args.cells.len(), args.data_ptr());
                call.finish();
            }
            reg.scratch.set(Some(args));
            Ok(())
        })
    }
}

/// Arguments that [`scalar_fast`] passes in cells on the stack.
const FAST_ARGS: usize = 8;

/// The common call of a scalar function, up to [`FAST_ARGS`] numbers or NULLs read directly,
/// with their cells on the stack: no buffer, nothing that can fail or panic. False (nothing
/// done) for any other call, which takes the general path.
///
/// # Safety
/// As for [`scalar_trampoline`].
#[inline(always)]
unsafe fn scalar_fast(
    ctx: *mut ffi::sqlite3_context,
    argc: c_int,
    argv: *mut *mut ffi::sqlite3_value,
) -> bool {
    let n = argc.max(0) as usize;
    if n > FAST_ARGS || !mem::direct_reads_enabled() {
        return false;
    }
    let mut cells = [MaybeUninit::<sqlbatch_value>::uninit(); FAST_ARGS];
    for (i, cell) in cells.iter_mut().enumerate().take(n) {
        // SAFETY: `argv` holds `argc` live values, each a `Mem` (see `Cells::push_row`).
        cell.write(match unsafe { mem::read_direct(*argv.add(i) as *const u8) } {
            Direct::Int(x) => sqlbatch_value::int(x),
            Direct::Real(x) => sqlbatch_value::float(x),
            Direct::Null => sqlbatch_value::NULL,
            Direct::Bytes(..) | Direct::Other => return false,
        });
    }
    // SAFETY: a live context of our registration (the caller's contract).
    let reg = unsafe { registration(ctx) };
    let mut call = sqlbatch_call::new(ctx);
    if let Some(f) = reg.func {
        // The first `n` cells are written.
        let args = if n == 0 { ptr::null() } else { cells.as_ptr().cast::<sqlbatch_value>() };
        // SAFETY: the caller's callback, with cells valid for the call and no bytes; an
        // `extern "C"` function cannot unwind into this frame.
        unsafe { f(&mut call, reg.user_data, args, n, ptr::null()) };
        call.finish();
    }
    true
}

/// The per-group state of an aggregate, behind the pointer SQLite's aggregate context holds.
struct Group {
    state: *mut c_void,
    pending: Cells,
}

/// The group of the current call: created on first use when `create` is set, else None if
/// the group never got a row.
///
/// # Safety
/// `ctx` must be the live context of an aggregate call.
unsafe fn group<'a>(ctx: *mut ffi::sqlite3_context, create: bool) -> Result<Option<&'a mut Group>, Error> {
    let size = if create { std::mem::size_of::<*mut Group>() as c_int } else { 0 };
    // SAFETY: SQLite's per-group memory, zeroed at first use, pointer-sized and aligned.
    let slot = unsafe { ffi::sqlite3_aggregate_context(ctx, size) } as *mut *mut Group;
    if slot.is_null() {
        return if create { Err(Error::new(ffi::SQLITE_NOMEM, "out of memory")) } else { Ok(None) };
    }
    // SAFETY: the slot holds NULL or a Group this module boxed.
    unsafe {
        if (*slot).is_null() {
            if !create {
                return Ok(None);
            }
            *slot = Box::into_raw(Box::new(Group { state: ptr::null_mut(), pending: Cells::default() }));
        }
        Ok(Some(&mut **slot))
    }
}

/// Hands the rows collected for `g` to the step callback.
///
/// # Safety
/// `ctx` must be the live context of a call of `reg`'s aggregate.
unsafe fn flush(ctx: *mut ffi::sqlite3_context, reg: &Registration, agg: &sqlbatch_aggregate, g: &mut Group) {
    if g.pending.rows == 0 {
        return;
    }
    let n_args = g.pending.cells.len() / g.pending.rows;
    let mut call = sqlbatch_call::new(ctx);
    if let Some(step) = agg.step {
        // SAFETY: the caller's step callback, with cells and bytes alive during the call.
        unsafe {
            step(
                &mut call,
                reg.user_data,
                &mut g.state,
                g.pending.cells_ptr(),
                g.pending.rows,
                n_args,
                g.pending.data_ptr(),
            )
        };
    }
    g.pending.clear();
}

/// The aggregate callbacks of `reg` (registered through `sqlbatch_conn_create_aggregate`).
fn aggregate_of(reg: &Registration) -> Result<&sqlbatch_aggregate, Error> {
    reg.agg.as_ref().ok_or_else(|| Error::new(ffi::SQLITE_MISUSE, "not an aggregate"))
}

pub(crate) unsafe extern "C" fn step_trampoline(
    ctx: *mut ffi::sqlite3_context,
    argc: c_int,
    argv: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: SQLite calls this with a live context of our registration.
    let _callback = unsafe { running(ctx) };
    // SAFETY: SQLite calls this with a live context of our aggregate and `argc` values.
    unsafe {
        guarded(ctx, || {
            let reg = registration(ctx);
            let agg = aggregate_of(reg)?;
            let g = group(ctx, true)?.ok_or_else(no_memory)?;
            if !g.pending.push_row(argc, argv) {
                return Err(no_memory());
            }
            let full = g.pending.rows >= agg.batch_rows.max(1)
                || (agg.batch_bytes != 0 && g.pending.bytes.len() >= agg.batch_bytes);
            if full {
                flush(ctx, reg, agg, g);
            }
            Ok(())
        })
    }
}

pub(crate) unsafe extern "C" fn inverse_trampoline(
    ctx: *mut ffi::sqlite3_context,
    argc: c_int,
    argv: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: SQLite calls this with a live context of our registration.
    let _callback = unsafe { running(ctx) };
    // SAFETY: as for step_trampoline.
    unsafe {
        guarded(ctx, || {
            let reg = registration(ctx);
            let agg = aggregate_of(reg)?;
            let g = group(ctx, true)?.ok_or_else(no_memory)?;
            flush(ctx, reg, agg, g);
            let mut row = reg.scratch.take().unwrap_or_default();
            row.clear();
            let ok = row.push_row(argc, argv);
            if ok {
                if let Some(inverse) = agg.inverse {
                    let mut call = sqlbatch_call::new(ctx);
                    inverse(
                        &mut call,
                        reg.user_data,
                        &mut g.state,
                        row.cells_ptr(),
                        1,
                        row.cells.len(),
                        row.data_ptr(),
                    );
                }
            }
            reg.scratch.set(Some(row));
            if ok {
                Ok(())
            } else {
                Err(no_memory())
            }
        })
    }
}

pub(crate) unsafe extern "C" fn value_trampoline(ctx: *mut ffi::sqlite3_context) {
    // SAFETY: SQLite calls this with a live context of our registration.
    let _callback = unsafe { running(ctx) };
    // SAFETY: SQLite calls this with a live context of our aggregate.
    unsafe {
        guarded(ctx, || {
            let reg = registration(ctx);
            let agg = aggregate_of(reg)?;
            let g = group(ctx, true)?.ok_or_else(no_memory)?;
            flush(ctx, reg, agg, g);
            if let Some(value) = agg.value {
                let mut call = sqlbatch_call::new(ctx);
                value(&mut call, reg.user_data, g.state);
                call.finish();
            }
            Ok(())
        })
    }
}

pub(crate) unsafe extern "C" fn final_trampoline(ctx: *mut ffi::sqlite3_context) {
    // SAFETY: SQLite calls this with a live context of our registration.
    let _callback = unsafe { running(ctx) };
    // SAFETY: SQLite calls this once per group with a live context of our aggregate.
    unsafe {
        guarded(ctx, || {
            let reg = registration(ctx);
            let agg = aggregate_of(reg)?;
            let slot = ffi::sqlite3_aggregate_context(ctx, 0) as *mut *mut Group;
            let group = if slot.is_null() || (*slot).is_null() {
                None
            } else {
                let g = Box::from_raw(*slot);
                *slot = ptr::null_mut();
                Some(g)
            };
            let mut state = ptr::null_mut();
            if let Some(mut g) = group {
                flush(ctx, reg, agg, &mut g);
                state = g.state;
            }
            if let Some(finish) = agg.finish {
                let mut call = sqlbatch_call::new(ctx);
                finish(&mut call, reg.user_data, state);
                call.finish();
            }
            Ok(())
        })
    }
}

pub(crate) unsafe extern "C" fn collation_trampoline(
    p: *mut c_void,
    n1: c_int,
    p1: *const c_void,
    n2: c_int,
    p2: *const c_void,
) -> c_int {
    // SAFETY: SQLite passes our Registration.
    let _callback = InCallback::enter(unsafe { (*(p as *const Registration)).hooks });
    // SAFETY: SQLite passes our Registration and two strings of the given lengths.
    unsafe {
        let reg = (*(p as *const Registration)).enter();
        let f = reg.collation;
        crate::panic::boundary_value(0, || match f {
            Some(f) => f(reg.user_data, p1.cast(), n1.max(0) as usize, p2.cast(), n2.max(0) as usize),
            None => 0,
        })
    }
}

pub(crate) unsafe extern "C" fn destroy_registration(p: *mut c_void) {
    // SAFETY: SQLite calls this once for each registration it was given.
    crate::panic::boundary_value((), || drop(unsafe { Box::from_raw(p as *mut Registration) }));
}

/// A function or collation name: UTF-8, no NUL, NUL-terminated for SQLite.
pub(crate) fn checked_name(bytes: &[u8]) -> Result<CString, Error> {
    crate::error::check_utf8(bytes, "the name")?;
    if bytes.is_empty() {
        return Err(Error::new(SQLBATCH_E_INVALID_ARGUMENT, "the name is empty"));
    }
    CString::new(bytes).map_err(|_| Error::new(SQLBATCH_E_INVALID_ARGUMENT, "the name contains a NUL byte"))
}

pub(crate) fn check_flags(flags: u32) -> Result<c_int, Error> {
    if flags & !FUNCTION_FLAGS_ALLOWED != 0 {
        return Err(Error::new(
            SQLBATCH_E_INVALID_ARGUMENT,
            format!("unknown function flags {:#x}", flags & !FUNCTION_FLAGS_ALLOWED),
        ));
    }
    Ok(flags as c_int | ffi::SQLITE_UTF8)
}
