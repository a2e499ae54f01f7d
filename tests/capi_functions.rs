//! User-defined functions, aggregates, window functions and collations through the C ABI,
//! called as a C program would (extern "C" callbacks, user data, destructors).

use std::ffi::{c_char, c_void, CStr};
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

use sqlbatch::*;

fn open() -> *mut sqlbatch_conn {
    let mut conn = ptr::null_mut();
    let rc = unsafe { sqlbatch_conn_open(c":memory:".as_ptr(), 8, 0, &mut conn) };
    assert_eq!(rc, SQLBATCH_OK);
    conn
}

fn exec(conn: *mut sqlbatch_conn, sql: &str) -> i32 {
    unsafe { sqlbatch_conn_exec(conn, sql.as_ptr().cast(), sql.len(), ptr::null(), ptr::null_mut()) }
}

fn last_error(conn: *mut sqlbatch_conn) -> (i32, String) {
    let mut e = std::mem::MaybeUninit::<sqlbatch_error>::uninit();
    unsafe {
        assert_eq!(sqlbatch_conn_last_error(conn, e.as_mut_ptr()), SQLBATCH_OK);
        let e = e.assume_init();
        (e.code, CStr::from_ptr(e.message).to_string_lossy().into_owned())
    }
}

/// One cell: its kind, its integer or float bits, and its bytes.
type Cell = (u8, u64, Vec<u8>);

/// Every cell of a one-statement query.
fn query(conn: *mut sqlbatch_conn, sql: &str) -> Result<Vec<Vec<Cell>>, i32> {
    unsafe {
        let mut stmt = ptr::null_mut();
        let rc = sqlbatch_stmt_prepare(conn, sql.as_ptr().cast(), sql.len(), 0, &mut stmt, ptr::null_mut());
        if rc != SQLBATCH_OK {
            return Err(rc);
        }
        let mut rows = Vec::new();
        let mut batch = std::mem::zeroed::<sqlbatch_batch>();
        loop {
            let rc = sqlbatch_stmt_fetch(stmt, 64, usize::MAX, &mut batch);
            if rc != SQLBATCH_ROW && rc != SQLBATCH_DONE {
                sqlbatch_stmt_finalize(stmt);
                return Err(rc);
            }
            for r in 0..batch.n_rows {
                let row = (0..batch.n_cols)
                    .map(|c| {
                        let v = *batch.cells.add(r * batch.n_cols + c);
                        let bytes = if (v.kind == SQLBATCH_TEXT || v.kind == SQLBATCH_BLOB) && v.len > 0 {
                            std::slice::from_raw_parts(batch.data.add(v.bits as usize), v.len as usize)
                                .to_vec()
                        } else {
                            Vec::new()
                        };
                        (v.kind, v.bits, bytes)
                    })
                    .collect();
                rows.push(row);
            }
            if rc == SQLBATCH_DONE {
                break;
            }
        }
        sqlbatch_stmt_finalize(stmt);
        Ok(rows)
    }
}

fn int_of(conn: *mut sqlbatch_conn, sql: &str) -> i64 {
    let rows = query(conn, sql).unwrap_or_else(|rc| panic!("{sql}: {rc} {:?}", last_error(conn)));
    assert_eq!(rows[0][0].0, SQLBATCH_INTEGER, "{sql}: {:?}", rows[0][0]);
    rows[0][0].1 as i64
}

fn set_int(call: *mut sqlbatch_call, v: i64) {
    let value = sqlbatch_value { bits: v as u64, len: 0, kind: SQLBATCH_INTEGER, _pad: [0; 3] };
    assert_eq!(unsafe { sqlbatch_call_result(call, &value, ptr::null(), 0) }, SQLBATCH_OK);
}

/// f(x) = x * 2 + 1 for an INTEGER x; NULL otherwise.
unsafe extern "C" fn twice_plus_one(
    call: *mut sqlbatch_call,
    _user: *mut c_void,
    args: *const sqlbatch_value,
    n_args: usize,
    _data: *const u8,
) {
    assert_eq!(n_args, 1);
    let x = unsafe { *args };
    if x.kind == SQLBATCH_INTEGER {
        set_int(call, (x.bits as i64) * 2 + 1);
    }
}

#[test]
fn a_scalar_function_is_called_for_every_row() {
    let conn = open();
    let rc = unsafe {
        sqlbatch_conn_create_function(
            conn,
            c"f".as_ptr(),
            1,
            1,
            SQLBATCH_FUNCTION_DETERMINISTIC,
            Some(twice_plus_one),
            ptr::null_mut(),
            None,
        )
    };
    assert_eq!(rc, SQLBATCH_OK);
    exec(conn, "CREATE TABLE t(x); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000) INSERT INTO t SELECT i FROM c");
    assert_eq!(int_of(conn, "SELECT sum(f(x)) FROM t"), (1..=1000i64).map(|x| x * 2 + 1).sum::<i64>());
    // A NULL result when the callback sets none.
    assert_eq!(query(conn, "SELECT f('a')").unwrap()[0][0].0, SQLBATCH_NULL);
    // A wrong argument count is SQLite's error.
    assert_eq!(query(conn, "SELECT f(1, 2)").unwrap_err(), libsqlite3_sys::SQLITE_ERROR);
    unsafe { sqlbatch_conn_close(conn) };
}

/// Concatenates every argument's bytes (TEXT and BLOB), skipping others; returns TEXT.
unsafe extern "C" fn concat(
    call: *mut sqlbatch_call,
    _user: *mut c_void,
    args: *const sqlbatch_value,
    n_args: usize,
    data: *const u8,
) {
    let mut out = Vec::new();
    for i in 0..n_args {
        let v = unsafe { *args.add(i) };
        if (v.kind == SQLBATCH_TEXT || v.kind == SQLBATCH_BLOB) && v.len > 0 {
            assert!(!data.is_null());
            out.extend_from_slice(unsafe {
                std::slice::from_raw_parts(data.add(v.bits as usize), v.len as usize)
            });
        }
    }
    let value = sqlbatch_value { bits: 0, len: out.len() as u32, kind: SQLBATCH_TEXT, _pad: [0; 3] };
    let base = if out.is_empty() { ptr::null() } else { out.as_ptr() };
    assert_eq!(unsafe { sqlbatch_call_result(call, &value, base, out.len()) }, SQLBATCH_OK);
}

#[test]
fn variadic_arguments_arrive_as_cells_over_one_base() {
    let conn = open();
    let rc = unsafe {
        sqlbatch_conn_create_function(conn, c"cat".as_ptr(), 3, -1, 0, Some(concat), ptr::null_mut(), None)
    };
    assert_eq!(rc, SQLBATCH_OK);
    let rows = query(conn, "SELECT cat('ab', x'6364', NULL, 5, '', 'é'), cat(), cat('a' || char(0) || 'b')")
        .unwrap();
    assert_eq!(rows[0][0], (SQLBATCH_TEXT, 0, "abcdé".as_bytes().to_vec()));
    assert_eq!((rows[0][1].0, rows[0][1].2.len()), (SQLBATCH_TEXT, 0));
    assert_eq!(rows[0][2].2, b"a\0b".to_vec());
    unsafe { sqlbatch_conn_close(conn) };
}

unsafe extern "C" fn fail_with_constraint(
    call: *mut sqlbatch_call,
    _user: *mut c_void,
    _args: *const sqlbatch_value,
    _n: usize,
    _data: *const u8,
) {
    let msg = "no negative values, please";
    unsafe { sqlbatch_call_error(call, libsqlite3_sys::SQLITE_CONSTRAINT, msg.as_ptr().cast(), msg.len()) };
    // The error stands: a later result is refused and changes neither code nor message.
    let value = sqlbatch_value { bits: 99, len: 0, kind: SQLBATCH_INTEGER, _pad: [0; 3] };
    assert_eq!(unsafe { sqlbatch_call_result(call, &value, ptr::null(), 0) }, SQLBATCH_E_INVALID_ARGUMENT);
}

unsafe extern "C" fn bad_result(
    call: *mut sqlbatch_call,
    _user: *mut c_void,
    _args: *const sqlbatch_value,
    _n: usize,
    _data: *const u8,
) {
    // TEXT with bytes but no base: an error, never a read through a NULL pointer.
    let value = sqlbatch_value { bits: 0, len: 3, kind: SQLBATCH_TEXT, _pad: [0; 3] };
    assert_eq!(unsafe { sqlbatch_call_result(call, &value, ptr::null(), 0) }, SQLBATCH_E_INVALID_ARGUMENT);
}

#[test]
fn a_failing_callback_ends_the_statement_with_its_error_and_the_connection_stays_usable() {
    let conn = open();
    unsafe {
        assert_eq!(
            sqlbatch_conn_create_function(
                conn,
                c"must_pass".as_ptr(),
                9,
                1,
                0,
                Some(fail_with_constraint),
                ptr::null_mut(),
                None
            ),
            SQLBATCH_OK
        );
        assert_eq!(
            sqlbatch_conn_create_function(
                conn,
                c"bad".as_ptr(),
                3,
                0,
                0,
                Some(bad_result),
                ptr::null_mut(),
                None
            ),
            SQLBATCH_OK
        );
    }
    assert_eq!(query(conn, "SELECT must_pass(1)").unwrap_err(), libsqlite3_sys::SQLITE_CONSTRAINT);
    let (code, message) = last_error(conn);
    assert_eq!(code, libsqlite3_sys::SQLITE_CONSTRAINT);
    assert!(message.contains("no negative values"), "{message}");
    assert_eq!(query(conn, "SELECT bad()").unwrap_err(), libsqlite3_sys::SQLITE_ERROR);
    assert!(last_error(conn).1.contains("params->data is NULL"), "{:?}", last_error(conn));
    assert_eq!(int_of(conn, "SELECT 41 + 1"), 42);
    unsafe { sqlbatch_conn_close(conn) };
}

static DESTROYED: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn count_destroy(user: *mut c_void) {
    assert_eq!(user as usize, 0xfeed);
    DESTROYED.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn the_destructor_runs_exactly_once_on_replacement_deletion_close_and_failure() {
    let user = 0xfeed as *mut c_void;
    let create = |conn, name: &CStr, f: sqlbatch_function_fn, flags| unsafe {
        sqlbatch_conn_create_function(
            conn,
            name.as_ptr(),
            name.to_bytes().len(),
            1,
            flags,
            f,
            user,
            Some(count_destroy),
        )
    };
    let before = DESTROYED.load(Ordering::SeqCst);
    let seen = || DESTROYED.load(Ordering::SeqCst) - before;
    let conn = open();
    assert_eq!(create(conn, c"f", Some(twice_plus_one), 0), SQLBATCH_OK);
    assert_eq!(seen(), 0);
    // Replacing: the old registration's destructor runs.
    assert_eq!(create(conn, c"f", Some(twice_plus_one), 0), SQLBATCH_OK);
    assert_eq!(seen(), 1);
    // Deleting: the registered one and the one passed with the deletion.
    assert_eq!(create(conn, c"f", None, 0), SQLBATCH_OK);
    assert_eq!(seen(), 3);
    assert_eq!(query(conn, "SELECT f(1)").unwrap_err(), libsqlite3_sys::SQLITE_ERROR);
    // Failing calls: bad flags, an empty name, a bad argument count (SQLite's refusal).
    assert_eq!(create(conn, c"g", Some(twice_plus_one), 0x1), SQLBATCH_E_INVALID_ARGUMENT);
    assert_eq!(seen(), 4);
    assert_eq!(create(conn, c"", Some(twice_plus_one), 0), SQLBATCH_E_INVALID_ARGUMENT);
    assert_eq!(seen(), 5);
    let rc = unsafe {
        sqlbatch_conn_create_function(
            conn,
            c"g".as_ptr(),
            1,
            -2,
            0,
            Some(twice_plus_one),
            user,
            Some(count_destroy),
        )
    };
    assert_eq!(rc, libsqlite3_sys::SQLITE_MISUSE);
    assert_eq!(seen(), 6);
    // Closing: the live registration's destructor runs.
    assert_eq!(create(conn, c"f", Some(twice_plus_one), 0), SQLBATCH_OK);
    assert_eq!(seen(), 6);
    unsafe { sqlbatch_conn_close(conn) };
    assert_eq!(seen(), 7);
    // A NULL connection.
    assert_eq!(create(ptr::null_mut(), c"f", Some(twice_plus_one), 0), SQLBATCH_E_NULL_PARAMETER);
    assert_eq!(seen(), 8);
}

/// Sum of squares, with the largest batch seen in `*user` (an AtomicUsize).
#[derive(Default)]
struct SumSq {
    sum: i64,
}

unsafe extern "C" fn sumsq_step(
    _call: *mut sqlbatch_call,
    user: *mut c_void,
    state: *mut *mut c_void,
    args: *const sqlbatch_value,
    n_rows: usize,
    n_args: usize,
    _data: *const u8,
) {
    assert_eq!(n_args, 1);
    let largest = unsafe { &*(user as *const AtomicUsize) };
    largest.fetch_max(n_rows, Ordering::SeqCst);
    unsafe {
        if (*state).is_null() {
            *state = Box::into_raw(Box::<SumSq>::default()).cast();
        }
        let s = &mut *(*state as *mut SumSq);
        for r in 0..n_rows {
            let v = *args.add(r);
            if v.kind == SQLBATCH_INTEGER {
                s.sum += (v.bits as i64) * (v.bits as i64);
            }
        }
    }
}

unsafe extern "C" fn sumsq_finish(call: *mut sqlbatch_call, _user: *mut c_void, state: *mut c_void) {
    if state.is_null() {
        return; // NULL for a group without rows
    }
    let s = unsafe { Box::from_raw(state as *mut SumSq) };
    set_int(call, s.sum);
}

unsafe extern "C" fn sumsq_value(call: *mut sqlbatch_call, _user: *mut c_void, state: *mut c_void) {
    let sum = if state.is_null() { 0 } else { unsafe { &*(state as *const SumSq) }.sum };
    set_int(call, sum);
}

unsafe extern "C" fn sumsq_inverse(
    _call: *mut sqlbatch_call,
    _user: *mut c_void,
    state: *mut *mut c_void,
    args: *const sqlbatch_value,
    n_rows: usize,
    _n_args: usize,
    _data: *const u8,
) {
    assert_eq!(n_rows, 1);
    unsafe {
        let s = &mut *(*state as *mut SumSq);
        let v = *args;
        s.sum -= (v.bits as i64) * (v.bits as i64);
    }
}

unsafe extern "C" fn free_counter(user: *mut c_void) {
    drop(unsafe { Box::from_raw(user as *mut AtomicUsize) });
}

fn aggregate(batch_rows: usize, window: bool) -> sqlbatch_aggregate {
    sqlbatch_aggregate {
        step: Some(sumsq_step),
        finish: Some(sumsq_finish),
        inverse: if window { Some(sumsq_inverse) } else { None },
        value: if window { Some(sumsq_value) } else { None },
        batch_rows,
        batch_bytes: 0,
    }
}

#[test]
fn aggregates_per_row_and_in_batches_agree_with_sql() {
    let conn = open();
    exec(conn, "CREATE TABLE t(g, x); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 5000) INSERT INTO t SELECT i % 7, i FROM c; CREATE TABLE empty(x)");
    for (name, batch_rows) in [(c"sq1", 1usize), (c"sq256", 256)] {
        // Outlives the connection's use of it: the registration keeps it until the conn closes.
        let largest = Box::into_raw(Box::new(AtomicUsize::new(0)));
        let fns = aggregate(batch_rows, false);
        let rc = unsafe {
            sqlbatch_conn_create_aggregate(
                conn,
                name.as_ptr(),
                name.to_bytes().len(),
                1,
                0,
                &fns,
                largest.cast(),
                Some(free_counter),
            )
        };
        let largest = unsafe { &*largest };
        assert_eq!(rc, SQLBATCH_OK);
        let n = name.to_str().unwrap();
        let ours = query(conn, &format!("SELECT g, {n}(x) FROM t GROUP BY g ORDER BY g")).unwrap();
        let sqls = query(conn, "SELECT g, sum(x * x) FROM t GROUP BY g ORDER BY g").unwrap();
        assert_eq!(ours, sqls, "{n}");
        assert_eq!(query(conn, &format!("SELECT {n}(x) FROM empty")).unwrap()[0][0].0, SQLBATCH_NULL);
        let seen = largest.load(Ordering::SeqCst);
        if batch_rows == 1 {
            assert_eq!(seen, 1);
        } else {
            assert_eq!(seen, 256, "groups of about 714 rows come in batches of 256");
        }
    }
    unsafe { sqlbatch_conn_close(conn) };
}

#[test]
fn a_batched_aggregate_works_as_a_window_function() {
    let conn = open();
    exec(conn, "CREATE TABLE t(x); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 300) INSERT INTO t SELECT i FROM c");
    let largest = Box::into_raw(Box::new(AtomicUsize::new(0)));
    let fns = aggregate(64, true);
    let rc = unsafe {
        sqlbatch_conn_create_aggregate(
            conn,
            c"sq".as_ptr(),
            2,
            1,
            0,
            &fns,
            largest.cast(),
            Some(free_counter),
        )
    };
    let largest = unsafe { &*largest };
    assert_eq!(rc, SQLBATCH_OK);
    let frame = "OVER (ORDER BY x ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)";
    let ours = query(conn, &format!("SELECT x, sq(x) {frame} FROM t ORDER BY x")).unwrap();
    let sqls = query(conn, &format!("SELECT x, sum(x * x) {frame} FROM t ORDER BY x")).unwrap();
    assert_eq!(ours, sqls);
    // As a plain aggregate it still batches.
    assert_eq!(int_of(conn, "SELECT sq(x) FROM t"), (1..=300i64).map(|x| x * x).sum::<i64>());
    assert_eq!(largest.load(Ordering::SeqCst), 64);
    // Only one of inverse and value: refused.
    let mut half = aggregate(1, true);
    half.value = None;
    let rc =
        unsafe { sqlbatch_conn_create_aggregate(conn, c"h".as_ptr(), 1, 1, 0, &half, ptr::null_mut(), None) };
    assert_eq!(rc, SQLBATCH_E_INVALID_ARGUMENT);
    let rc = unsafe {
        sqlbatch_conn_create_aggregate(conn, c"h".as_ptr(), 1, 1, 0, ptr::null(), ptr::null_mut(), None)
    };
    assert_eq!(rc, SQLBATCH_E_NULL_PARAMETER);
    unsafe { sqlbatch_conn_close(conn) };
}

unsafe extern "C" fn reverse_bytes(
    _user: *mut c_void,
    a: *const u8,
    a_len: usize,
    b: *const u8,
    b_len: usize,
) -> i32 {
    let (a, b) = unsafe { (std::slice::from_raw_parts(a, a_len), std::slice::from_raw_parts(b, b_len)) };
    b.cmp(a) as i32
}

#[test]
fn a_collation_orders_and_compares() {
    let conn = open();
    let rc = unsafe {
        sqlbatch_conn_create_collation(conn, c"rev".as_ptr(), 3, Some(reverse_bytes), ptr::null_mut(), None)
    };
    assert_eq!(rc, SQLBATCH_OK);
    exec(conn, "CREATE TABLE t(s TEXT COLLATE rev); INSERT INTO t VALUES ('b'), ('a'), ('c')");
    let rows = query(conn, "SELECT s FROM t ORDER BY s").unwrap();
    let order: Vec<Vec<u8>> = rows.into_iter().map(|r| r[0].2.clone()).collect();
    assert_eq!(order, vec![b"c".to_vec(), b"b".to_vec(), b"a".to_vec()]);
    assert_eq!(int_of(conn, "SELECT 'a' < 'b' COLLATE rev"), 0);
    // Deleting it: a statement that needs it no longer prepares.
    let rc = unsafe { sqlbatch_conn_create_collation(conn, c"rev".as_ptr(), 3, None, ptr::null_mut(), None) };
    assert_eq!(rc, SQLBATCH_OK);
    assert_eq!(
        query(conn, "SELECT 'a' < 'b' COLLATE rev").unwrap_err(),
        libsqlite3_sys::SQLITE_ERROR_MISSING_COLLSEQ
    );
    unsafe { sqlbatch_conn_close(conn) };
}

#[test]
fn registering_on_a_closed_or_null_connection_is_an_error() {
    let name: *const c_char = c"f".as_ptr();
    let rc = unsafe {
        sqlbatch_conn_create_collation(ptr::null_mut(), name, 1, Some(reverse_bytes), ptr::null_mut(), None)
    };
    assert_eq!(rc, SQLBATCH_E_NULL_PARAMETER);
    let conn = open();
    let rc = unsafe {
        sqlbatch_conn_create_function(conn, ptr::null(), 1, 1, 0, Some(twice_plus_one), ptr::null_mut(), None)
    };
    assert_eq!(rc, SQLBATCH_E_NULL_PARAMETER);
    unsafe { sqlbatch_conn_close(conn) };
    // After close, the handle is gone; a statement outliving it gets SQLBATCH_E_CLOSED, but a
    // registration needs the connection handle itself, which is freed: nothing more to test.
    // sqlbatch_call_* with a NULL call: an error or a no-op, never a crash.
    assert_eq!(
        unsafe { sqlbatch_call_result(ptr::null_mut(), ptr::null(), ptr::null(), 0) },
        SQLBATCH_E_NULL_PARAMETER
    );
    unsafe { sqlbatch_call_error(ptr::null_mut(), 1, ptr::null(), 0) };
}

/// Interrupts its own connection (in `user`) on the 1,000th call.
unsafe extern "C" fn interrupt_at_1000(
    _call: *mut sqlbatch_call,
    user: *mut c_void,
    _args: *const sqlbatch_value,
    _n: usize,
    _data: *const u8,
) {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    if CALLS.fetch_add(1, Ordering::SeqCst) + 1 == 1000 {
        unsafe { sqlbatch_conn_interrupt(user as *const sqlbatch_conn) };
    }
}

#[test]
fn an_interrupt_stops_a_query_that_calls_functions() {
    let conn = open();
    let rc = unsafe {
        sqlbatch_conn_create_function(
            conn,
            c"tick".as_ptr(),
            4,
            1,
            0,
            Some(interrupt_at_1000),
            conn.cast(),
            None,
        )
    };
    assert_eq!(rc, SQLBATCH_OK);
    let endless =
        "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT count(tick(i)) FROM c";
    assert_eq!(query(conn, endless).unwrap_err(), libsqlite3_sys::SQLITE_INTERRUPT);
    assert_eq!(int_of(conn, "SELECT 7"), 7);
    unsafe { sqlbatch_conn_close(conn) };
}

/// Counts the rows of table t through a nested query on its own connection (in `user`).
unsafe extern "C" fn count_t(
    call: *mut sqlbatch_call,
    user: *mut c_void,
    _args: *const sqlbatch_value,
    _n: usize,
    _data: *const u8,
) {
    let n = query(user.cast(), "SELECT count(*) FROM t").map(|rows| rows[0][0].1 as i64);
    match n {
        Ok(n) => set_int(call, n),
        Err(rc) => unsafe { sqlbatch_call_error(call, rc, ptr::null(), 0) },
    }
}

#[test]
fn a_callback_may_query_its_own_connection() {
    let conn = open();
    exec(conn, "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)");
    let rc = unsafe {
        sqlbatch_conn_create_function(conn, c"n_t".as_ptr(), 3, 0, 0, Some(count_t), conn.cast(), None)
    };
    assert_eq!(rc, SQLBATCH_OK);
    let rows = query(conn, "SELECT x, n_t() FROM t ORDER BY x").unwrap();
    assert_eq!(rows.iter().map(|r| (r[0].1, r[1].1)).collect::<Vec<_>>(), vec![(1, 3), (2, 3), (3, 3)]);
    unsafe { sqlbatch_conn_close(conn) };
}

extern "C" {
    fn malloc(n: usize) -> *mut c_void;
    fn free(p: *mut c_void);
}

/// Results handed over with a destructor: how many were freed, and how many fake pointers
/// (never allocated, never read) were released.
static OWNED_FREED: AtomicUsize = AtomicUsize::new(0);
static FAKE_RELEASED: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn free_owned(p: *mut c_void) {
    OWNED_FREED.fetch_add(1, Ordering::SeqCst);
    unsafe { free(p) };
}

unsafe extern "C" fn release_fake(p: *mut c_void) {
    assert_eq!(p as usize, 0x1000);
    FAKE_RELEASED.fetch_add(1, Ordering::SeqCst);
}

/// `bytes` in memory from malloc, for a destructor to free.
fn malloced(bytes: &[u8]) -> *const u8 {
    unsafe {
        let p = malloc(bytes.len().max(1)).cast::<u8>();
        assert!(!p.is_null());
        ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len());
        p
    }
}

/// owned(mode): a result handed over without a copy (or refused), by mode.
unsafe extern "C" fn owned(
    call: *mut sqlbatch_call,
    _user: *mut c_void,
    args: *const sqlbatch_value,
    _n: usize,
    _data: *const u8,
) {
    let mode = unsafe { (*args).bits };
    let rc = unsafe {
        match mode {
            0 => sqlbatch_call_result_bytes(call, SQLBATCH_TEXT, malloced(b"hello"), 5, Some(free_owned)),
            1 => sqlbatch_call_result_bytes(call, SQLBATCH_BLOB, malloced(&[1, 2, 3]), 3, Some(free_owned)),
            2 => sqlbatch_call_result_bytes(call, SQLBATCH_TEXT, malloced(b""), 0, Some(free_owned)),
            3 => sqlbatch_call_result_bytes(call, SQLBATCH_BLOB, malloced(b""), 0, Some(free_owned)),
            4 => sqlbatch_call_result_bytes(call, SQLBATCH_INTEGER, malloced(b"x"), 1, Some(free_owned)),
            // Over SQLite's default length limit (1e9): refused before a byte is read.
            5 => sqlbatch_call_result_bytes(
                call,
                SQLBATCH_TEXT,
                0x1000 as *const u8,
                1_500_000_000,
                Some(release_fake),
            ),
            6 => sqlbatch_call_result_bytes(call, SQLBATCH_TEXT, b"copied".as_ptr(), 6, None),
            7 => sqlbatch_call_result_bytes(call, SQLBATCH_BLOB, ptr::null(), 0, Some(free_owned)),
            8 => sqlbatch_call_result_bytes(call, SQLBATCH_BLOB, ptr::null(), 4, Some(free_owned)),
            // A result after an error is refused, and its bytes are still released.
            _ => {
                sqlbatch_call_error(call, 0, c"failed first".as_ptr(), 12);
                sqlbatch_call_result_bytes(call, SQLBATCH_TEXT, malloced(b"late"), 4, Some(free_owned))
            }
        }
    };
    let expected = match mode {
        4 | 8 | 9 => SQLBATCH_E_INVALID_ARGUMENT,
        5 => libsqlite3_sys::SQLITE_TOOBIG,
        _ => SQLBATCH_OK,
    };
    assert_eq!(rc, expected, "mode {mode}");
}

#[test]
fn a_result_can_be_handed_over_with_a_destructor_that_runs_exactly_once() {
    let conn = open();
    let rc = unsafe {
        sqlbatch_conn_create_function(conn, c"owned".as_ptr(), 5, 1, 0, Some(owned), ptr::null_mut(), None)
    };
    assert_eq!(rc, SQLBATCH_OK);
    let cell = |mode: i32| query(conn, &format!("SELECT owned({mode})")).map(|rows| rows[0][0].clone());
    assert_eq!(cell(0).unwrap(), (SQLBATCH_TEXT, 0, b"hello".to_vec()));
    assert_eq!(cell(1).unwrap(), (SQLBATCH_BLOB, 0, vec![1, 2, 3]));
    assert_eq!(cell(2).unwrap().0, SQLBATCH_TEXT, "empty text is text, not NULL");
    assert_eq!(cell(3).unwrap().0, SQLBATCH_BLOB, "an empty blob is a blob, not NULL");
    assert_eq!(cell(4).unwrap_err(), libsqlite3_sys::SQLITE_ERROR);
    assert!(last_error(conn).1.contains("not TEXT or BLOB"), "{:?}", last_error(conn));
    assert_eq!(cell(5).unwrap_err(), libsqlite3_sys::SQLITE_TOOBIG);
    assert_eq!(FAKE_RELEASED.load(Ordering::SeqCst), 1, "the refused bytes were released once");
    assert_eq!(cell(6).unwrap(), (SQLBATCH_TEXT, 0, b"copied".to_vec()));
    assert_eq!(cell(7).unwrap().0, SQLBATCH_BLOB);
    assert_eq!(cell(8).unwrap_err(), libsqlite3_sys::SQLITE_ERROR);
    assert!(last_error(conn).1.contains("without a pointer"), "{:?}", last_error(conn));
    assert_eq!(cell(9).unwrap_err(), libsqlite3_sys::SQLITE_ERROR);
    assert!(last_error(conn).1.contains("failed first"), "{:?}", last_error(conn));
    // Outside a callback (NULL call) the bytes are released too.
    let rc = unsafe {
        sqlbatch_call_result_bytes(ptr::null_mut(), SQLBATCH_TEXT, malloced(b"x"), 1, Some(free_owned))
    };
    assert_eq!(rc, SQLBATCH_E_NULL_PARAMETER);
    // Every malloc'd result was freed exactly once: modes 0-4 and 9, and the NULL call.
    assert_eq!(OWNED_FREED.load(Ordering::SeqCst), 7);
    unsafe { sqlbatch_conn_close(conn) };
}

/// stored(mode): the result stored in call->result, without a call, by mode.
unsafe extern "C" fn stored(
    call: *mut sqlbatch_call,
    _user: *mut c_void,
    args: *const sqlbatch_value,
    _n: usize,
    _data: *const u8,
) {
    let call = unsafe { &mut *call };
    assert_eq!(call.result.kind, SQLBATCH_NULL, "result starts as NULL");
    match unsafe { (*args).bits } {
        0 => {
            call.result =
                sqlbatch_value { bits: (-7i64) as u64, len: 0, kind: SQLBATCH_INTEGER, _pad: [0; 3] }
        }
        1 => {
            call.result =
                sqlbatch_value { bits: 2.5f64.to_bits(), len: 0, kind: SQLBATCH_FLOAT, _pad: [0; 3] }
        }
        2 => {} // left alone: NULL
        // A kind that needs bytes: an error, never a read.
        3 => call.result = sqlbatch_value { bits: 0, len: 3, kind: SQLBATCH_TEXT, _pad: [0; 3] },
        // A result set through a function wins over the stored one, before or after.
        4 => {
            call.result = sqlbatch_value { bits: 1, len: 0, kind: SQLBATCH_INTEGER, _pad: [0; 3] };
            unsafe { sqlbatch_call_result_bytes(call, SQLBATCH_TEXT, b"set".as_ptr(), 3, None) };
            call.result.bits = 2;
        }
        // So does an error.
        _ => {
            call.result = sqlbatch_value { bits: 1, len: 0, kind: SQLBATCH_INTEGER, _pad: [0; 3] };
            unsafe { sqlbatch_call_error(call, 0, c"stored error".as_ptr(), 12) };
        }
    }
}

unsafe extern "C" fn count_step(
    _call: *mut sqlbatch_call,
    _user: *mut c_void,
    state: *mut *mut c_void,
    _args: *const sqlbatch_value,
    n_rows: usize,
    _n_args: usize,
    _data: *const u8,
) {
    // The count itself is the state: no allocation to free.
    unsafe { *state = (*state as usize + n_rows) as *mut c_void };
}

unsafe extern "C" fn count_finish(call: *mut sqlbatch_call, _user: *mut c_void, state: *mut c_void) {
    unsafe { (*call).result = sqlbatch_value::int(state as usize as i64) };
}

fn cell_of_text(conn: *mut sqlbatch_conn) -> Cell {
    query(conn, "SELECT stored('text')").unwrap()[0][0].clone()
}

#[test]
fn a_number_or_null_can_be_stored_in_the_call_without_a_function() {
    let conn = open();
    let agg = sqlbatch_aggregate {
        step: Some(count_step),
        finish: Some(count_finish),
        inverse: None,
        value: None,
        batch_rows: 16,
        batch_bytes: 0,
    };
    unsafe {
        let rc = sqlbatch_conn_create_function(
            conn,
            c"stored".as_ptr(),
            6,
            1,
            0,
            Some(stored),
            ptr::null_mut(),
            None,
        );
        assert_eq!(rc, SQLBATCH_OK);
        let rc = sqlbatch_conn_create_aggregate(conn, c"cnt".as_ptr(), 3, 1, 0, &agg, ptr::null_mut(), None);
        assert_eq!(rc, SQLBATCH_OK);
    }
    let cell = |mode: i32| query(conn, &format!("SELECT stored({mode})")).map(|rows| rows[0][0].clone());
    assert_eq!(cell(0).unwrap(), (SQLBATCH_INTEGER, (-7i64) as u64, vec![]));
    assert_eq!(cell(1).unwrap(), (SQLBATCH_FLOAT, 2.5f64.to_bits(), vec![]));
    assert_eq!(cell(2).unwrap().0, SQLBATCH_NULL);
    assert_eq!(cell(3).unwrap_err(), libsqlite3_sys::SQLITE_ERROR);
    assert!(last_error(conn).1.contains("call->result holds kind 3"), "{:?}", last_error(conn));
    assert_eq!(cell(4).unwrap(), (SQLBATCH_TEXT, 0, b"set".to_vec()));
    assert_eq!(cell(5).unwrap_err(), libsqlite3_sys::SQLITE_ERROR);
    assert!(last_error(conn).1.contains("stored error"), "{:?}", last_error(conn));
    // The general path too (TEXT arguments), and an aggregate's finish.
    // (A TEXT argument, whose cell's bits are its offset 0: mode 0.)
    assert_eq!(cell_of_text(conn), (SQLBATCH_INTEGER, (-7i64) as u64, vec![]));
    assert_eq!(
        int_of(conn, "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 100) SELECT cnt(i) FROM k"),
        100
    );
    assert_eq!(query(conn, "SELECT cnt(1) FROM (SELECT 1 WHERE 0)").unwrap()[0][0].1, 0);
    unsafe { sqlbatch_conn_close(conn) };
}

/// What `uses_its_own_statement` does to the statement that runs it (user data: a `Reentry`).
struct Reentry {
    stmt: *mut sqlbatch_stmt,
    mode: u8,
    rcs: Vec<i32>,
}

unsafe extern "C" fn uses_its_own_statement(
    call: *mut sqlbatch_call,
    user: *mut c_void,
    _args: *const sqlbatch_value,
    _n_args: usize,
    _data: *const u8,
) {
    let r = unsafe { &mut *(user as *mut Reentry) };
    let s = r.stmt;
    let rc = unsafe {
        match r.mode {
            0 => sqlbatch_stmt_reset(s),
            1 => {
                let mut b = std::mem::zeroed();
                sqlbatch_stmt_fetch(s, 10, usize::MAX, &mut b)
            }
            2 => sqlbatch_stmt_execute_many(s, ptr::null(), 1, ptr::null_mut()),
            3 => sqlbatch_stmt_clear_bindings(s),
            _ => {
                if r.rcs.is_empty() {
                    sqlbatch_stmt_finalize(s); // once: finalizing twice is the caller's bug
                }
                SQLBATCH_OK
            }
        }
    };
    r.rcs.push(rc);
    set_int(call, 1);
}

#[test]
fn a_function_that_uses_its_own_statement_is_refused_and_breaks_nothing() {
    // Stepping, resetting or freeing the statement from inside its own step would recurse
    // until the stack overflows, or free it under the step: each is refused (SQLITE_MISUSE),
    // and a finalize is carried out later.
    for mode in 0..5u8 {
        let conn = open();
        exec(conn, "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3), (4), (5)");
        let mut r = Box::new(Reentry { stmt: ptr::null_mut(), mode, rcs: Vec::new() });
        let user = &mut *r as *mut Reentry as *mut c_void;
        let rc = unsafe {
            sqlbatch_conn_create_function(
                conn,
                c"own".as_ptr(),
                3,
                1,
                0,
                Some(uses_its_own_statement),
                user,
                None,
            )
        };
        assert_eq!(rc, SQLBATCH_OK);
        let sql = if mode == 2 { "INSERT INTO t SELECT own(x) FROM t" } else { "SELECT own(x) FROM t" };
        let mut s = ptr::null_mut();
        let rc = unsafe {
            sqlbatch_stmt_prepare(conn, sql.as_ptr().cast(), sql.len(), 0, &mut s, ptr::null_mut())
        };
        assert_eq!(rc, SQLBATCH_OK);
        r.stmt = s;
        if mode == 2 {
            assert_eq!(
                unsafe { sqlbatch_stmt_execute_many(s, ptr::null(), 1, ptr::null_mut()) },
                SQLBATCH_OK
            );
            assert_eq!(int_of(conn, "SELECT count(*) FROM t"), 10);
        } else {
            let mut b = unsafe { std::mem::zeroed::<sqlbatch_batch>() };
            assert_eq!(unsafe { sqlbatch_stmt_fetch(s, 100, usize::MAX, &mut b) }, SQLBATCH_DONE);
            assert_eq!(b.n_rows, 5, "mode {mode}: every row, as without the inner calls");
        }
        let want = if mode == 4 { SQLBATCH_OK } else { libsqlite3_sys::SQLITE_MISUSE };
        assert_eq!(r.rcs, vec![want; 5], "mode {mode}");
        if mode < 4 {
            assert!(last_error(conn).1.contains("callback"), "{:?}", last_error(conn));
            unsafe { sqlbatch_stmt_finalize(s) };
        } else {
            // Finalized from inside: deferred, carried out by a later call.
            assert_eq!(int_of(conn, "SELECT 7"), 7);
        }
        unsafe { sqlbatch_conn_close(conn) };
    }
}

/// User data of `closes`: the connection to close, and (for `other`) a second one.
struct Closing {
    conn: *mut sqlbatch_conn,
    other: *mut sqlbatch_conn,
}

unsafe extern "C" fn closes(
    call: *mut sqlbatch_call,
    user: *mut c_void,
    _args: *const sqlbatch_value,
    _n: usize,
    _data: *const u8,
) {
    let c = unsafe { &mut *(user as *mut Closing) };
    unsafe { sqlbatch_conn_close(c.conn) };
    if !c.other.is_null() {
        unsafe { sqlbatch_conn_close(c.other) };
        c.other = ptr::null_mut();
    }
    set_int(call, 1);
}

unsafe extern "C" fn closes_from_a_hook(
    user: *mut c_void,
    _op: i32,
    _s: *const c_char,
    _t: *const c_char,
    _r: i64,
) {
    unsafe { sqlbatch_conn_close(user.cast()) };
}

#[test]
fn closing_a_connection_from_its_callback_does_nothing_and_says_so() {
    // The step that ran the callback would go on with its statement finalized and its
    // connection freed (before: a segfault).
    let conn = open();
    let other = open();
    exec(conn, "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)");
    let mut c = Box::new(Closing { conn, other });
    let rc = unsafe {
        sqlbatch_conn_create_function(
            conn,
            c"bye".as_ptr(),
            3,
            0,
            0,
            Some(closes),
            (&mut *c as *mut Closing).cast(),
            None,
        )
    };
    assert_eq!(rc, SQLBATCH_OK);
    let rows = query(conn, "SELECT x, bye() FROM t ORDER BY x").unwrap();
    assert_eq!(rows.len(), 3, "every row, the connection still open");
    assert!(c.other.is_null(), "another connection closes from the callback");
    let (code, msg) = last_error(conn);
    assert_eq!(code, libsqlite3_sys::SQLITE_MISUSE);
    assert!(msg.contains("callback"), "{msg}");
    // From a hook as well.
    let rc = unsafe { sqlbatch_conn_update_hook(conn, Some(closes_from_a_hook), conn.cast(), None) };
    assert_eq!(rc, SQLBATCH_OK);
    assert_eq!(exec(conn, "INSERT INTO t VALUES (4)"), SQLBATCH_OK);
    assert_eq!(last_error(conn).0, libsqlite3_sys::SQLITE_MISUSE);
    assert_eq!(int_of(conn, "SELECT count(*) FROM t"), 4);
    unsafe { sqlbatch_conn_close(conn) };
}
