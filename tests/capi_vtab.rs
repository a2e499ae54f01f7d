//! Virtual table modules whose cursors fill batches (`sqlbatch_conn_create_module`): a host
//! module written here in Rust against the C ABI, as a binding writes one.

mod common;
use common::*;
use libsqlite3_sys as sq;
use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// What the host module does, and what it saw.
#[derive(Default)]
struct Host {
    /// Rows of the generated table: `n` rows of (i, i * 0.5, 'row i', x'ii').
    n: i64,
    /// Misbehaviours to test.
    push_too_many: bool,
    row_without_rows: bool,
    fail_filter: bool,
    skip_declare: bool,
    declare_twice: Option<i32>,
    push_in_filter: Option<i32>,
    mismatched_push: Option<i32>,
    /// Rows of one column less from the second fill on.
    narrower_later: bool,
    /// The series table-valued function: hidden columns start, stop.
    series: bool,
    /// The writable table: scans read `store`.
    kv: bool,
    /// Take IN lists whole, and LIMIT, in best_index.
    take_in_lists: bool,
    take_limit: bool,
    // What it saw.
    filters: AtomicUsize,
    fills: AtomicUsize,
    opens: AtomicUsize,
    closes: AtomicUsize,
    connects: AtomicUsize,
    disconnects: AtomicUsize,
    destroyed: AtomicUsize,
    last_args: Mutex<Vec<Vec<Val>>>,
    last_limit: Mutex<Option<i64>>,
    /// The writable table's rows (rowid, value).
    store: Mutex<Vec<(i64, Val)>>,
    changes: Mutex<Vec<(i32, i64, Val)>>,
}

/// A cursor: the rows it will hand out.
struct Cur {
    rows: Vec<Vec<Val>>,
    rowids: Vec<i64>,
    at: usize,
}

fn host<'a>(p: *mut c_void) -> &'a Host {
    unsafe { &*(p as *const Host) }
}

unsafe fn val_of(v: &sqlbatch_value, data: *const u8) -> Val {
    match v.kind {
        SQLBATCH_INTEGER => Val::Int(v.bits as i64),
        SQLBATCH_FLOAT => Val::Float(v.bits),
        SQLBATCH_TEXT => Val::Text(
            unsafe { std::slice::from_raw_parts(data.add(v.bits as usize), v.len as usize) }.to_vec(),
        ),
        SQLBATCH_BLOB => Val::Blob(if v.len == 0 {
            vec![]
        } else {
            unsafe { std::slice::from_raw_parts(data.add(v.bits as usize), v.len as usize) }.to_vec()
        }),
        _ => Val::Null,
    }
}

fn declare(call: *mut sqlbatch_vtab_call, sql: &str) -> i32 {
    unsafe { sqlbatch_vtab_declare(call, sql.as_ptr().cast(), sql.len()) }
}

fn say(call: *mut sqlbatch_vtab_call, msg: &str) {
    unsafe { sqlbatch_vtab_error(call, msg.as_ptr().cast(), msg.len()) }
}

unsafe extern "C" fn connect(
    user: *mut c_void,
    call: *mut sqlbatch_vtab_call,
    _create: bool,
    args: *const sqlbatch_str,
    n_args: usize,
    out: *mut *mut c_void,
) -> i32 {
    let h = host(user);
    h.connects.fetch_add(1, Ordering::SeqCst);
    let args: Vec<String> = (0..n_args)
        .map(|i| unsafe {
            let s = &*args.add(i);
            // Module arguments come as written: a quoted one with its quotes.
            String::from_utf8_lossy(std::slice::from_raw_parts(s.ptr.cast::<u8>(), s.len))
                .trim_matches('\'')
                .to_owned()
        })
        .collect();
    // SQLite's argv: the module's name, the database's, the table's, then the arguments.
    assert!(args.len() >= 3 && (args[1] == "main" || args[1] == "temp"), "{args:?}");
    h.last_args.lock().unwrap().push(args.iter().map(|a| Val::Text(a.clone().into_bytes())).collect());
    if h.skip_declare {
        return SQLBATCH_OK;
    }
    let sql = if h.series {
        "CREATE TABLE x(value INTEGER, start HIDDEN, stop HIDDEN)".to_string()
    } else if let Some(cols) = args.get(3).filter(|a| a.starts_with("cols:")) {
        format!("CREATE TABLE x({})", &cols[5..])
    } else {
        "CREATE TABLE x(id INTEGER, half REAL, name TEXT, raw BLOB)".to_string()
    };
    let rc = declare(call, &sql);
    if rc != SQLBATCH_OK {
        return rc;
    }
    if h.declare_twice.is_some() {
        let rc = declare(call, &sql);
        *h.declare_twice.as_ref().map(|_| &h.store).unwrap().lock().unwrap() = vec![(rc as i64, Val::Null)];
    }
    unsafe { *out = user };
    SQLBATCH_OK
}

unsafe extern "C" fn best_index(
    user: *mut c_void,
    _call: *mut sqlbatch_vtab_call,
    _table: *mut c_void,
    index: *mut sqlbatch_vtab_index,
) -> i32 {
    let h = host(user);
    let ix = unsafe { &mut *index };
    let cons = unsafe { std::slice::from_raw_parts(ix.constraints, ix.n_constraints) };
    let uses = unsafe { std::slice::from_raw_parts_mut(ix.uses, ix.n_constraints) };
    let mut next = 1;
    let mut plan = 0;
    if h.series {
        // Hidden columns 1 (start) and 2 (stop): both needed.
        for col in [1, 2] {
            match cons.iter().position(|c| c.column == col && c.op == SQLBATCH_INDEX_EQ) {
                Some(i) if cons[i].usable => {
                    uses[i] = sqlbatch_vtab_use { arg_index: next, omit: true, whole_list: false };
                    next += 1;
                }
                Some(_) => return sq::SQLITE_CONSTRAINT,
                None => {}
            }
        }
        plan = next - 1;
    }
    if h.take_in_lists {
        if let Some(i) =
            cons.iter().position(|c| c.column == 0 && c.op == SQLBATCH_INDEX_EQ && c.usable && c.in_list)
        {
            uses[i] = sqlbatch_vtab_use { arg_index: next, omit: true, whole_list: true };
            next += 1;
            plan |= 16;
        }
    }
    if h.take_limit {
        if let Some(i) = cons.iter().position(|c| c.op == SQLBATCH_INDEX_LIMIT && c.usable) {
            uses[i] = sqlbatch_vtab_use { arg_index: next, omit: true, whole_list: false };
            plan |= 32;
        }
    }
    ix.idx_num = plan;
    ix.estimated_cost = 10.0;
    SQLBATCH_OK
}

unsafe extern "C" fn open(
    user: *mut c_void,
    _call: *mut sqlbatch_vtab_call,
    _t: *mut c_void,
    out: *mut *mut c_void,
) -> i32 {
    host(user).opens.fetch_add(1, Ordering::SeqCst);
    unsafe { *out = Box::into_raw(Box::new(Cur { rows: vec![], rowids: vec![], at: 0 })).cast() };
    SQLBATCH_OK
}

unsafe extern "C" fn filter(
    user: *mut c_void,
    call: *mut sqlbatch_vtab_call,
    cursor: *mut c_void,
    idx_num: i32,
    args: *const sqlbatch_vtab_arg,
    n_args: usize,
    data: *const u8,
) -> i32 {
    let h = host(user);
    h.filters.fetch_add(1, Ordering::SeqCst);
    let c = unsafe { &mut *(cursor as *mut Cur) };
    let args = if n_args == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(args, n_args) } };
    let seen: Vec<Vec<Val>> = args
        .iter()
        .map(|a| {
            if a.list.is_null() && a.n_list == 0 && a.value.kind != SQLBATCH_UNDEFINED {
                vec![unsafe { val_of(&a.value, data) }]
            } else {
                (0..a.n_list).map(|i| unsafe { val_of(&*a.list.add(i), data) }).collect()
            }
        })
        .collect();
    *h.last_args.lock().unwrap() = seen.clone();
    if h.fail_filter {
        say(call, "the host refuses this scan");
        return sq::SQLITE_CONSTRAINT;
    }
    if let Some(slot) = h.push_in_filter {
        let p = Params::of(&[Val::Int(1)]);
        let pc = p.as_c();
        let rc = unsafe { sqlbatch_vtab_push(call, &pc, 1, std::ptr::null()) };
        h.store.lock().unwrap().push((slot as i64, Val::Int(rc as i64)));
    }
    c.at = 0;
    c.rowids.clear();
    if h.series {
        let (start, stop) = match (seen.first(), seen.get(1)) {
            (Some(a), Some(b)) => match (&a[0], &b[0]) {
                (Val::Int(a), Val::Int(b)) => (*a, *b),
                _ => (0, -1),
            },
            _ => (0, -1),
        };
        c.rows = (start..=stop).map(|i| vec![Val::Int(i)]).collect();
        return SQLBATCH_OK;
    }
    if h.kv {
        let store = h.store.lock().unwrap();
        c.rows = store.iter().map(|r| vec![r.1.clone()]).collect();
        c.rowids = store.iter().map(|r| r.0).collect();
        return SQLBATCH_OK;
    }
    let mut ids: Vec<i64> = (0..h.n).collect();
    let mut k = 0;
    if idx_num & 16 != 0 {
        ids = seen[k]
            .iter()
            .filter_map(|v| if let Val::Int(i) = v { Some(*i) } else { None })
            .filter(|i| *i >= 0 && *i < h.n)
            .collect();
        ids.sort();
        k += 1;
    }
    if idx_num & 32 != 0 {
        if let Some(Val::Int(l)) = seen.get(k).and_then(|a| a.first()) {
            *h.last_limit.lock().unwrap() = Some(*l);
        }
    }
    c.rows = ids
        .iter()
        .map(|&i| {
            vec![
                Val::Int(i),
                f(i as f64 * 0.5),
                Val::Text(format!("row {i}").into_bytes()),
                Val::Blob(vec![i as u8; (i % 4) as usize]),
            ]
        })
        .collect();
    c.rowids = ids.iter().map(|i| i + 1000).collect();
    SQLBATCH_OK
}

unsafe extern "C" fn fill(
    user: *mut c_void,
    call: *mut sqlbatch_vtab_call,
    cursor: *mut c_void,
    max_rows: usize,
) -> i32 {
    let h = host(user);
    h.fills.fetch_add(1, Ordering::SeqCst);
    let c = unsafe { &mut *(cursor as *mut Cur) };
    if h.row_without_rows {
        return SQLBATCH_ROW;
    }
    let take = if h.push_too_many { max_rows + 1 } else { max_rows }.min(c.rows.len() - c.at);
    let rows = &c.rows[c.at..c.at + take];
    if take > 0 {
        let n_cols = rows[0].len();
        // Two pushes per fill when it can: pushes add up.
        let half = if h.push_too_many { take } else { take / 2 };
        for (part, ids) in [(&rows[..half], 0..half), (&rows[half..], half..take)] {
            if part.is_empty() {
                continue;
            }
            let mut p = Params::default();
            for r in part {
                for v in r {
                    p.push(v);
                }
            }
            let pc = p.as_c();
            let rowids =
                if c.rowids.is_empty() { std::ptr::null() } else { c.rowids[c.at + ids.start..].as_ptr() };
            let narrower = (h.mismatched_push.is_some() && ids.start > 0) || (h.narrower_later && c.at > 0);
            let cols = if narrower { n_cols - 1 } else { n_cols };
            let p2;
            let pc = if cols != n_cols {
                p2 = Params::of(&part.iter().flat_map(|r| r[..cols].to_vec()).collect::<Vec<_>>());
                p2.as_c()
            } else {
                pc
            };
            let rc = unsafe { sqlbatch_vtab_push(call, &pc, cols, rowids) };
            if rc != SQLBATCH_OK {
                return rc;
            }
        }
    }
    c.at += take;
    if c.at < c.rows.len() {
        SQLBATCH_ROW
    } else {
        SQLBATCH_DONE
    }
}

unsafe extern "C" fn close(user: *mut c_void, cursor: *mut c_void) {
    host(user).closes.fetch_add(1, Ordering::SeqCst);
    drop(unsafe { Box::from_raw(cursor as *mut Cur) });
}

unsafe extern "C" fn disconnect(user: *mut c_void, _table: *mut c_void, _destroy: bool) {
    host(user).disconnects.fetch_add(1, Ordering::SeqCst);
}

unsafe extern "C" fn update(
    user: *mut c_void,
    call: *mut sqlbatch_vtab_call,
    _table: *mut c_void,
    change: *const sqlbatch_vtab_change,
    out_rowid: *mut i64,
) -> i32 {
    let h = host(user);
    let ch = unsafe { &*change };
    let values: Vec<Val> = (0..ch.n_values).map(|i| unsafe { val_of(&*ch.values.add(i), ch.data) }).collect();
    let mut store = h.store.lock().unwrap();
    h.changes.lock().unwrap().push((ch.op, ch.old_rowid, values.first().cloned().unwrap_or(Val::Null)));
    match ch.op {
        SQLBATCH_VTAB_INSERT => {
            if values.first() == Some(&t("bad")) {
                say(call, "the host refuses 'bad'");
                return sq::SQLITE_CONSTRAINT;
            }
            let rowid = if ch.new_rowid.kind == SQLBATCH_INTEGER {
                ch.new_rowid.bits as i64
            } else {
                store.iter().map(|r| r.0).max().unwrap_or(0) + 1
            };
            store.push((rowid, values[0].clone()));
            unsafe { *out_rowid = rowid };
        }
        SQLBATCH_VTAB_UPDATE => {
            for r in store.iter_mut().filter(|r| r.0 == ch.old_rowid) {
                r.1 = values[0].clone();
            }
        }
        SQLBATCH_VTAB_DELETE => store.retain(|r| r.0 != ch.old_rowid),
        _ => return sq::SQLITE_ERROR,
    }
    SQLBATCH_OK
}

unsafe extern "C" fn destroyed(user: *mut c_void) {
    host(user).destroyed.fetch_add(1, Ordering::SeqCst);
}

fn module(batch_rows: usize) -> sqlbatch_vtab_module {
    sqlbatch_vtab_module {
        connect: Some(connect),
        best_index: Some(best_index),
        open: Some(open),
        filter: Some(filter),
        fill: Some(fill),
        close: Some(close),
        disconnect: Some(disconnect),
        update: None,
        batch_rows,
    }
}

fn register(c: &Conn, name: &str, h: &Host, m: &sqlbatch_vtab_module, flags: u32) -> i32 {
    unsafe {
        sqlbatch_conn_create_module(
            c.0,
            name.as_ptr().cast(),
            name.len(),
            m,
            flags,
            h as *const Host as *mut c_void,
            Some(destroyed),
        )
    }
}

fn expected_rows(n: i64) -> Vec<Vec<Val>> {
    (0..n)
        .map(|i| {
            vec![
                Val::Int(i),
                f(i as f64 * 0.5),
                Val::Text(format!("row {i}").into_bytes()),
                Val::Blob(vec![i as u8; (i % 4) as usize]),
            ]
        })
        .collect()
}

#[test]
fn a_scan_is_served_from_batches_the_host_fills() {
    let h = Host { n: 10_000, ..Default::default() };
    let c = Conn::memory();
    assert_eq!(register(&c, "gen", &h, &module(300), 0), SQLBATCH_OK, "{}", c.error().1);
    c.exec("CREATE VIRTUAL TABLE temp.g USING gen()");
    assert_eq!(c.rows("SELECT * FROM g"), expected_rows(10_000));
    // 10,000 rows in batches of at most 300: 34 fills, one filter, one cursor.
    assert_eq!(h.fills.load(Ordering::SeqCst), 34);
    assert_eq!(h.filters.load(Ordering::SeqCst), 1);
    assert_eq!(
        c.rows("SELECT sum(id), sum(length(name)), min(rowid), max(rowid) FROM g")[0][0],
        Val::Int(49_995_000)
    );
    assert_eq!(c.rows("SELECT min(rowid), max(rowid) FROM g"), vec![vec![Val::Int(1000), Val::Int(10_999)]]);
    drop(c);
    assert_eq!(h.opens.load(Ordering::SeqCst), h.closes.load(Ordering::SeqCst));
    assert_eq!(h.connects.load(Ordering::SeqCst), h.disconnects.load(Ordering::SeqCst));
    assert_eq!(h.destroyed.load(Ordering::SeqCst), 1);
}

#[test]
fn an_eponymous_table_valued_function_takes_its_arguments_from_hidden_columns() {
    let h = Host { series: true, ..Default::default() };
    let c = Conn::memory();
    assert_eq!(register(&c, "series", &h, &module(0), SQLBATCH_VTAB_EPONYMOUS_ONLY), SQLBATCH_OK);
    assert_eq!(
        c.rows("SELECT sum(value), count(*) FROM series(1, 1000)"),
        vec![vec![Val::Int(500_500), Val::Int(1000)]]
    );
    // Joined: one filter per outer row.
    c.exec("CREATE TABLE lim(n INTEGER)");
    c.exec("INSERT INTO lim VALUES (3), (4)");
    assert_eq!(c.rows("SELECT sum(value) FROM lim, series(1, lim.n)"), vec![vec![Val::Int(6 + 10)]]);
    // Eponymous only: CREATE VIRTUAL TABLE refuses it.
    let (rc, _) = c.try_exec("CREATE VIRTUAL TABLE temp.s USING series");
    assert_ne!(rc, SQLBATCH_OK);
}

#[test]
fn an_in_list_reaches_filter_whole_and_a_limit_as_an_argument() {
    let h = Host { n: 1000, take_in_lists: true, take_limit: true, ..Default::default() };
    let c = Conn::memory();
    assert_eq!(register(&c, "gen", &h, &module(0), SQLBATCH_VTAB_EPONYMOUS), SQLBATCH_OK);
    let before = h.filters.load(Ordering::SeqCst);
    assert_eq!(
        c.rows("SELECT id FROM gen WHERE id IN (5, 3, 999, 5000)"),
        vec![vec![Val::Int(3)], vec![Val::Int(5)], vec![Val::Int(999)]]
    );
    assert_eq!(h.filters.load(Ordering::SeqCst) - before, 1, "one scan for the whole list");
    let mut list = h.last_args.lock().unwrap()[0].clone();
    list.sort_by_key(|v| if let Val::Int(i) = v { *i } else { 0 });
    assert_eq!(list, vec![Val::Int(3), Val::Int(5), Val::Int(999), Val::Int(5000)]);
    assert_eq!(c.rows("SELECT id FROM gen LIMIT 7").len(), 7);
    assert_eq!(*h.last_limit.lock().unwrap(), Some(7));
}

#[test]
fn a_writable_table_gets_each_change_with_its_rowid() {
    let h = Host { kv: true, ..Default::default() };
    let c = Conn::memory();
    let m = sqlbatch_vtab_module { update: Some(update), ..module(0) };
    assert_eq!(register(&c, "kv", &h, &m, 0), SQLBATCH_OK);
    c.exec("CREATE VIRTUAL TABLE temp.kv USING kv('cols:v TEXT')");
    assert_eq!(
        h.last_args.lock().unwrap().last().cloned(),
        Some(vec![t("kv"), t("temp"), t("kv"), t("cols:v TEXT")]),
        "connect's args: the module, the database, the table, the arguments (their quotes trimmed here)"
    );
    c.exec("INSERT INTO kv(v) VALUES ('a'), ('b')");
    c.exec("INSERT INTO kv(rowid, v) VALUES (10, 'c')");
    let mut rowid = 0i64;
    assert_eq!(unsafe { sqlbatch_conn_last_insert_rowid(c.0, &mut rowid) }, SQLBATCH_OK);
    assert_eq!(rowid, 10);
    c.exec("UPDATE kv SET v = 'B' WHERE rowid = 2");
    c.exec("DELETE FROM kv WHERE rowid = 1");
    assert_eq!(*h.store.lock().unwrap(), vec![(2, t("B")), (10, t("c"))]);
    assert_eq!(
        c.rows("SELECT rowid, v FROM kv"),
        vec![vec![Val::Int(2), t("B")], vec![Val::Int(10), t("c")]]
    );
    let ops: Vec<i32> = h.changes.lock().unwrap().iter().map(|c| c.0).collect();
    assert_eq!(
        ops,
        vec![
            SQLBATCH_VTAB_INSERT,
            SQLBATCH_VTAB_INSERT,
            SQLBATCH_VTAB_INSERT,
            SQLBATCH_VTAB_UPDATE,
            SQLBATCH_VTAB_DELETE
        ]
    );
    // The host's error, with its message.
    let (rc, _) = c.try_exec("INSERT INTO kv(v) VALUES ('bad')");
    assert_eq!(rc, sq::SQLITE_CONSTRAINT);
    assert!(c.error().1.contains("the host refuses 'bad'"), "{}", c.error().1);
    // A module without update is read-only.
    let h2 = Host::default();
    assert_eq!(register(&c, "ro", &h2, &module(0), 0), SQLBATCH_OK);
    c.exec("CREATE VIRTUAL TABLE temp.ro USING ro()");
    let (rc, _) = c.try_exec("INSERT INTO ro(id) VALUES (1)");
    assert_ne!(rc, SQLBATCH_OK);
}

fn scan_error(h: &Host) -> (i32, String) {
    let c = Conn::memory();
    assert_eq!(register(&c, "gen", h, &module(10), SQLBATCH_VTAB_EPONYMOUS), SQLBATCH_OK);
    match c.try_rows("SELECT * FROM gen", 1_000_000) {
        Ok(_) => (SQLBATCH_OK, String::new()),
        Err(rc) => (rc, c.error().1),
    }
}

#[test]
fn a_misbehaving_host_ends_the_statement_with_a_message() {
    let (rc, msg) = scan_error(&Host { n: 100, push_too_many: true, ..Default::default() });
    assert_eq!(rc, sq::SQLITE_ERROR, "{msg}");
    assert!(msg.contains("more than the 10 the fill asked for"), "{msg}");
    let (rc, msg) = scan_error(&Host { n: 100, row_without_rows: true, ..Default::default() });
    assert_eq!(rc, sq::SQLITE_ERROR);
    assert!(msg.contains("SQLBATCH_ROW without pushing a row"), "{msg}");
    let (rc, msg) = scan_error(&Host { n: 100, fail_filter: true, ..Default::default() });
    assert_eq!(rc, sq::SQLITE_CONSTRAINT);
    assert!(msg.contains("the host refuses this scan"), "{msg}");
    let (rc, msg) = scan_error(&Host { n: 100, mismatched_push: Some(1), ..Default::default() });
    assert_eq!(rc, sq::SQLITE_ERROR);
    assert!(msg.contains("pushed after rows of 4"), "{msg}");
    let (rc, msg) = scan_error(&Host { n: 100, narrower_later: true, ..Default::default() });
    assert_eq!(rc, sq::SQLITE_ERROR);
    assert!(msg.contains("rows of 3 column(s) pushed after rows of 4"), "{msg}");
    // A connect that declares nothing.
    let h = Host { skip_declare: true, ..Default::default() };
    let (rc, msg) = scan_error(&h);
    assert_ne!(rc, SQLBATCH_OK);
    assert!(msg.contains("did not declare the table"), "{msg}");
    assert_eq!(h.connects.load(Ordering::SeqCst), h.disconnects.load(Ordering::SeqCst));
}

#[test]
fn calls_made_from_the_wrong_callback_are_misuse() {
    // Declaring twice, pushing from filter.
    let h = Host { n: 3, declare_twice: Some(1), push_in_filter: Some(7), ..Default::default() };
    let c = Conn::memory();
    assert_eq!(register(&c, "gen", &h, &module(0), SQLBATCH_VTAB_EPONYMOUS), SQLBATCH_OK);
    assert_eq!(c.rows("SELECT count(*) FROM gen"), vec![vec![Val::Int(3)]]);
    let store = h.store.lock().unwrap().clone();
    assert!(store.contains(&(sq::SQLITE_MISUSE as i64, Val::Null)), "declare twice: {store:?}");
    assert!(store.contains(&(7, Val::Int(sq::SQLITE_MISUSE as i64))), "push from filter: {store:?}");
    // NULL calls.
    assert_eq!(
        unsafe { sqlbatch_vtab_declare(std::ptr::null_mut(), c"x".as_ptr(), 1) },
        SQLBATCH_E_NULL_PARAMETER
    );
    assert_eq!(
        unsafe { sqlbatch_vtab_push(std::ptr::null_mut(), std::ptr::null(), 1, std::ptr::null()) },
        SQLBATCH_E_NULL_PARAMETER
    );
    unsafe { sqlbatch_vtab_error(std::ptr::null_mut(), c"x".as_ptr(), 1) };
}

#[test]
fn cursors_and_tables_end_once_whatever_ends_the_scan() {
    let h = Host { n: 100_000, ..Default::default() };
    let c = Conn::memory();
    assert_eq!(register(&c, "gen", &h, &module(100), SQLBATCH_VTAB_EPONYMOUS), SQLBATCH_OK);
    // Finalized mid-scan.
    let s = c.prepare("SELECT * FROM gen");
    let (rc, b) = s.fetch(5, usize::MAX);
    assert_eq!((rc, b.n_rows), (SQLBATCH_ROW, 5));
    drop(s);
    assert_eq!(h.opens.load(Ordering::SeqCst), 1);
    assert_eq!(h.closes.load(Ordering::SeqCst), 1);
    // Left mid-scan when the connection closes.
    let s = c.prepare("SELECT * FROM gen");
    let (rc, _) = s.fetch(5, usize::MAX);
    assert_eq!(rc, SQLBATCH_ROW);
    drop(c);
    assert_eq!(h.closes.load(Ordering::SeqCst), 2);
    assert_eq!(h.connects.load(Ordering::SeqCst), h.disconnects.load(Ordering::SeqCst));
    assert_eq!(h.destroyed.load(Ordering::SeqCst), 1);
    drop(s);
}

#[test]
fn a_bad_registration_releases_the_user_data_once() {
    let c = Conn::memory();
    let h = Host::default();
    // Bad flags, a required callback missing, an empty name, a NULL connection.
    assert_eq!(register(&c, "m", &h, &module(0), 3), SQLBATCH_E_INVALID_ARGUMENT);
    assert_eq!(
        register(&c, "m", &h, &sqlbatch_vtab_module { fill: None, ..module(0) }, 0),
        SQLBATCH_E_INVALID_ARGUMENT
    );
    assert_eq!(register(&c, "", &h, &module(0), 0), SQLBATCH_E_INVALID_ARGUMENT);
    let m = module(0);
    let rc = unsafe {
        sqlbatch_conn_create_module(
            std::ptr::null_mut(),
            c"m".as_ptr(),
            1,
            &m,
            0,
            &h as *const Host as *mut c_void,
            Some(destroyed),
        )
    };
    assert_eq!(rc, SQLBATCH_E_NULL_PARAMETER);
    assert_eq!(h.destroyed.load(Ordering::SeqCst), 4);
    // Replaced, then removed (a NULL module): each registration's user data released once.
    let h2 = Host { n: 3, ..Default::default() };
    assert_eq!(register(&c, "m", &h2, &module(0), SQLBATCH_VTAB_EPONYMOUS), SQLBATCH_OK);
    assert_eq!(register(&c, "m", &h2, &module(0), SQLBATCH_VTAB_EPONYMOUS), SQLBATCH_OK);
    assert_eq!(h2.destroyed.load(Ordering::SeqCst), 1);
    let rc = unsafe {
        sqlbatch_conn_create_module(c.0, c"m".as_ptr(), 1, std::ptr::null(), 0, std::ptr::null_mut(), None)
    };
    assert_eq!(rc, SQLBATCH_OK);
    assert_eq!(h2.destroyed.load(Ordering::SeqCst), 2);
    assert!(c.try_rows("SELECT * FROM m", 10).is_err());
    drop(c);
    assert_eq!(h2.destroyed.load(Ordering::SeqCst), 2);
}
