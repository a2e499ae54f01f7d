//! Storage-class conversions: `sqlbatch_value_convert` against SQLite's own answers.
//!
//! `tests/vectors/conversions.tsv` is generated here from the bundled SQLite itself (a raw
//! libsqlite3-sys connection, not sqlbatch): every input value is bound to `SELECT ?1` and read
//! back with `sqlite3_column_type`, `_int64`, `_double`, `_text` and `_blob`, each on a fresh
//! step. The Go and Haskell tests check their accessors against the same file; its format is
//! described in `tests/vectors/README.md`.
//!
//! `the_committed_vectors_are_what_sqlite_says` fails when the file differs from what SQLite
//! says now; `SQLBATCH_BLESS=1 cargo test --release --test conversions` rewrites it.

use std::ffi::c_int;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::ptr;

use libsqlite3_sys as ffi;
use sqlbatch::*;

// ---------------------------------------------------------------------------------------------
// The inputs

#[derive(Clone, Debug)]
enum Input {
    Int(i64),
    Float(f64),
    Text(Vec<u8>),
    Blob(Vec<u8>),
    Null,
}

fn t(s: &str) -> Input {
    Input::Text(s.as_bytes().to_vec())
}

#[allow(clippy::excessive_precision)] // The literals as issue 9 writes them.
fn inputs() -> Vec<Input> {
    let mut v = Vec::new();
    for i in [
        0,
        1,
        -1,
        42,
        i64::MIN,
        i64::MAX,
        (1 << 53) + 1,
        -(1 << 53) - 1,
        i64::MIN + 1,
        1 << 53,
        1_000_000_000_000_000_000,
    ] {
        v.push(Input::Int(i));
    }
    for r in [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
        1e21,
        -1e21,
        1e-7,
        0.1,
        1.5,
        2.5,
        -2.5,
        0.5,
        1e15,
        1e16,
        1e17,
        123456789.123456789,
        9.2233720368547758e18, // 2^63
        -9.2233720368547758e18,
        9223372036854774784.0, // the largest double below 2^63
        -9223372036854774784.0,
        -9.3e18,
        5e-324,
        2.2250738585072014e-308,
        -2.2250738585072014e-308,
        1.7976931348623157e308,
        -1.7976931348623157e308,
        std::f64::consts::PI,
        1.0 / 3.0,
        100.0,
        -123.456,
        4503599627370497.0,
    ] {
        v.push(Input::Float(r));
    }
    for s in [
        "",
        "1e3",
        " +5.5e1",
        "0x10",
        "  12abc",
        "12",
        "-0",
        "+7",
        " 12 ",
        "\t7",
        "\n8\r",
        "1.5",
        "-2.5e-3",
        ".5",
        "5.",
        "1e",
        "e5",
        "--1",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "18446744073709551616",
        "00000000000000000000000000000042",
        "1e400",
        "-1e400",
        "1e-400",
        "abc",
        "Inf",
        "-Inf",
        "Infinity",
        "NaN",
        "0.1",
        "0.30000000000000004",
        "1.0e+21",
        "123456789012345678901234567890",
        "\u{663}",
        "\u{ff11}\u{ff12}",
        "1\u{0} 2",
        "\u{0}5",
    ] {
        v.push(t(s));
    }
    // Not UTF-8: SQLite reads the bytes as they are.
    v.push(Input::Text(vec![b'3', 0xff, b'4']));
    v.push(Input::Text(vec![0xc3, 0x28]));
    for b in [&b""[..], b"1", b"12", b"\x00\xff", b" 1", b"1e3", b"-5.5", b"\x00"] {
        v.push(Input::Blob(b.to_vec()));
    }
    v.push(Input::Null);
    v
}

// ---------------------------------------------------------------------------------------------
// The table

const HEADER: &str = "kind\tinput\tcolumn_type\tint64\tdouble\ttext\tblob\tnote";

/// What SQLite says for one input: each `sqlite3_column_*` on a fresh step.
#[derive(Clone, Debug, PartialEq)]
struct Answer {
    column_type: c_int,
    int64: i64,
    double_bits: u64,
    /// None: `sqlite3_column_text` returned a NULL pointer.
    text: Option<Vec<u8>>,
    /// None: `sqlite3_column_blob` returned a NULL pointer.
    blob: Option<Vec<u8>>,
}

#[derive(Clone, Debug)]
struct Row {
    input: Input,
    answer: Answer,
}

fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(1 + 2 * b.len());
    s.push('x');
    for x in b {
        let _ = write!(s, "{x:02x}");
    }
    s
}

fn unhex(s: &str) -> Vec<u8> {
    let h = s.strip_prefix('x').unwrap_or_else(|| panic!("bytes field {s:?} must start with x"));
    assert!(h.len() % 2 == 0, "odd hex {s:?}");
    (0..h.len()).step_by(2).map(|i| u8::from_str_radix(&h[i..i + 2], 16).expect("hex")).collect()
}

fn opt_hex(b: &Option<Vec<u8>>) -> String {
    b.as_deref().map(hex).unwrap_or_else(|| "null".into())
}

fn opt_unhex(s: &str) -> Option<Vec<u8>> {
    (s != "null").then(|| unhex(s))
}

fn type_name(t: c_int) -> &'static str {
    match t {
        ffi::SQLITE_INTEGER => "INTEGER",
        ffi::SQLITE_FLOAT => "FLOAT",
        ffi::SQLITE_TEXT => "TEXT",
        ffi::SQLITE_BLOB => "BLOB",
        ffi::SQLITE_NULL => "NULL",
        other => panic!("column type {other}"),
    }
}

fn type_code(name: &str) -> c_int {
    match name {
        "INTEGER" => ffi::SQLITE_INTEGER,
        "FLOAT" => ffi::SQLITE_FLOAT,
        "TEXT" => ffi::SQLITE_TEXT,
        "BLOB" => ffi::SQLITE_BLOB,
        "NULL" => ffi::SQLITE_NULL,
        other => panic!("type name {other:?}"),
    }
}

/// A readable description of the input for the last column: no tab, newline or quote.
fn note(input: &Input) -> String {
    let show = |b: &[u8]| -> String {
        String::from_utf8_lossy(b)
            .chars()
            .flat_map(|c| match c {
                '"' | '\'' | '\\' => format!("\\u{{{:x}}}", c as u32).chars().collect::<Vec<_>>(),
                c => c.escape_debug().collect(),
            })
            .collect()
    };
    match input {
        Input::Int(i) => format!("integer {i}"),
        Input::Float(r) => format!("real {r:e}"),
        Input::Text(b) => {
            format!("text <{}>{}", show(b), if std::str::from_utf8(b).is_err() { " (not UTF-8)" } else { "" })
        }
        Input::Blob(b) => format!("blob {}", hex(b)),
        Input::Null => "NULL".into(),
    }
}

fn format_table(rows: &[Row]) -> String {
    let mut out = String::new();
    out.push_str(HEADER);
    out.push('\n');
    for r in rows {
        let (kind, input) = match &r.input {
            Input::Int(i) => ("INTEGER", i.to_string()),
            Input::Float(f) => ("FLOAT", format!("{:016x}", f.to_bits())),
            Input::Text(b) => ("TEXT", hex(b)),
            Input::Blob(b) => ("BLOB", hex(b)),
            Input::Null => ("NULL", "-".into()),
        };
        let a = &r.answer;
        let fields = [
            kind.to_string(),
            input,
            type_name(a.column_type).to_string(),
            a.int64.to_string(),
            format!("{:016x}", a.double_bits),
            opt_hex(&a.text),
            opt_hex(&a.blob),
            note(&r.input),
        ];
        for f in &fields {
            assert!(!f.contains(['\t', '\n', '\r', '"']), "field {f:?} would break the format");
        }
        out.push_str(&fields.join("\t"));
        out.push('\n');
    }
    out
}

fn parse_table(text: &str) -> Vec<Row> {
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(HEADER), "header line");
    lines
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 8, "line {line:?}");
            let input = match f[0] {
                "INTEGER" => Input::Int(f[1].parse().expect("int")),
                "FLOAT" => Input::Float(f64::from_bits(u64::from_str_radix(f[1], 16).expect("bits"))),
                "TEXT" => Input::Text(unhex(f[1])),
                "BLOB" => Input::Blob(unhex(f[1])),
                "NULL" => Input::Null,
                other => panic!("kind {other:?}"),
            };
            let answer = Answer {
                column_type: type_code(f[2]),
                int64: f[3].parse().expect("int64"),
                double_bits: u64::from_str_radix(f[4], 16).expect("double bits"),
                text: opt_unhex(f[5]),
                blob: opt_unhex(f[6]),
            };
            Row { input, answer }
        })
        .collect()
}

fn vectors_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/conversions.tsv")
}

// ---------------------------------------------------------------------------------------------
// Plain SQLite (the reference)

struct Sqlite {
    db: *mut ffi::sqlite3,
    select: *mut ffi::sqlite3_stmt,
    insert: *mut ffi::sqlite3_stmt,
    read: *mut ffi::sqlite3_stmt,
}

impl Sqlite {
    fn open() -> Sqlite {
        unsafe {
            let mut db = ptr::null_mut();
            let rc = ffi::sqlite3_open_v2(
                c":memory:".as_ptr(),
                &mut db,
                ffi::SQLITE_OPEN_READWRITE | ffi::SQLITE_OPEN_MEMORY,
                ptr::null(),
            );
            assert_eq!(rc, ffi::SQLITE_OK);
            let exec = |sql: &std::ffi::CStr| {
                let rc = ffi::sqlite3_exec(db, sql.as_ptr(), None, ptr::null_mut(), ptr::null_mut());
                assert_eq!(rc, ffi::SQLITE_OK, "{sql:?}");
            };
            // A column without affinity keeps every value as it is.
            exec(c"CREATE TABLE t(v)");
            let prep = |sql: &std::ffi::CStr| {
                let mut s = ptr::null_mut();
                let rc = ffi::sqlite3_prepare_v2(db, sql.as_ptr(), -1, &mut s, ptr::null_mut());
                assert_eq!(rc, ffi::SQLITE_OK, "{sql:?}");
                s
            };
            Sqlite {
                db,
                select: prep(c"SELECT ?1"),
                insert: prep(c"INSERT INTO t(rowid, v) VALUES (1, ?1)"),
                read: prep(c"SELECT v FROM t WHERE rowid = 1"),
            }
        }
    }

    unsafe fn bind(&self, stmt: *mut ffi::sqlite3_stmt, input: &Input) {
        let rc = match input {
            Input::Int(i) => ffi::sqlite3_bind_int64(stmt, 1, *i),
            Input::Float(r) => ffi::sqlite3_bind_double(stmt, 1, *r),
            // (An empty Vec's pointer is dangling but not NULL: it binds '' and x''.)
            Input::Text(b) => ffi::sqlite3_bind_text64(
                stmt,
                1,
                b.as_ptr().cast(),
                b.len() as u64,
                ffi::SQLITE_TRANSIENT(),
                ffi::SQLITE_UTF8 as u8,
            ),
            Input::Blob(b) => {
                ffi::sqlite3_bind_blob64(stmt, 1, b.as_ptr().cast(), b.len() as u64, ffi::SQLITE_TRANSIENT())
            }
            Input::Null => ffi::sqlite3_bind_null(stmt, 1),
        };
        assert_eq!(rc, ffi::SQLITE_OK);
    }

    /// Steps `stmt` (already bound) once per accessor, each on a fresh row.
    unsafe fn answers(&self, stmt: *mut ffi::sqlite3_stmt) -> Answer {
        let step = || {
            ffi::sqlite3_reset(stmt);
            assert_eq!(ffi::sqlite3_step(stmt), ffi::SQLITE_ROW);
        };
        let bytes = |p: *const u8| {
            if p.is_null() {
                assert_ne!(ffi::sqlite3_errcode(self.db) & 0xff, ffi::SQLITE_NOMEM, "out of memory");
                None
            } else {
                let n = ffi::sqlite3_column_bytes(stmt, 0) as usize;
                Some(std::slice::from_raw_parts(p, n).to_vec())
            }
        };
        step();
        let column_type = ffi::sqlite3_column_type(stmt, 0);
        step();
        let int64 = ffi::sqlite3_column_int64(stmt, 0);
        step();
        let double_bits = ffi::sqlite3_column_double(stmt, 0).to_bits();
        step();
        let text = bytes(ffi::sqlite3_column_text(stmt, 0));
        step();
        let blob = bytes(ffi::sqlite3_column_blob(stmt, 0).cast());
        ffi::sqlite3_reset(stmt);
        Answer { column_type, int64, double_bits, text, blob }
    }

    /// SQLite's answers for `input` bound to `SELECT ?1`.
    fn ask(&self, input: &Input) -> Answer {
        unsafe {
            self.bind(self.select, input);
            let a = self.answers(self.select);
            ffi::sqlite3_clear_bindings(self.select);
            a
        }
    }

    /// SQLite's answers for `input` stored in a table column and read back.
    fn ask_stored(&self, input: &Input) -> Answer {
        unsafe {
            self.bind(self.insert, input);
            let rc = ffi::sqlite3_step(self.insert);
            assert_eq!(rc, ffi::SQLITE_DONE);
            ffi::sqlite3_reset(self.insert);
            let a = self.answers(self.read);
            let rc =
                ffi::sqlite3_exec(self.db, c"DELETE FROM t".as_ptr(), None, ptr::null_mut(), ptr::null_mut());
            assert_eq!(rc, ffi::SQLITE_OK);
            a
        }
    }
}

impl Drop for Sqlite {
    fn drop(&mut self) {
        unsafe {
            ffi::sqlite3_finalize(self.select);
            ffi::sqlite3_finalize(self.insert);
            ffi::sqlite3_finalize(self.read);
            ffi::sqlite3_close(self.db);
        }
    }
}

fn generate() -> Vec<Row> {
    let sqlite = Sqlite::open();
    inputs()
        .into_iter()
        .map(|input| {
            let answer = sqlite.ask(&input);
            // A bound parameter and a stored value read back convert alike.
            assert_eq!(sqlite.ask_stored(&input), answer, "{input:?} stored in a table");
            Row { input, answer }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// sqlbatch_value_convert, checked against an answer

const TARGETS: [u8; 4] = [SQLBATCH_INTEGER, SQLBATCH_FLOAT, SQLBATCH_TEXT, SQLBATCH_BLOB];

/// What SQLite's answer means for a sqlbatch result: (kind, number bits or bytes).
#[derive(Debug, PartialEq)]
enum Expect {
    Number(u8, u64),
    Bytes(u8, Vec<u8>),
    Null,
}

fn expected(a: &Answer, to: u8) -> Expect {
    match to {
        SQLBATCH_INTEGER => Expect::Number(to, a.int64 as u64),
        SQLBATCH_FLOAT => Expect::Number(to, a.double_bits),
        // A NULL pointer from a non-NULL value is a zero-length result
        // (sqlite3_column_blob returns NULL for zero bytes).
        _ if a.column_type == ffi::SQLITE_NULL => Expect::Null,
        SQLBATCH_TEXT => Expect::Bytes(to, a.text.clone().unwrap_or_default()),
        _ => Expect::Bytes(to, a.blob.clone().unwrap_or_default()),
    }
}

/// Converts `input` through sqlbatch_value_convert, with its bytes at offset `at` of a data
/// buffer (`pad` bytes follow them), and checks the result's own invariants.
fn convert(input: &Input, to: u8, at: usize, pad: usize) -> Expect {
    let mut data = vec![0xa5u8; at];
    let value = match input {
        Input::Int(i) => sqlbatch_value::int(*i),
        Input::Float(r) => sqlbatch_value::float(*r),
        Input::Text(b) | Input::Blob(b) => {
            data.extend_from_slice(b);
            let kind = if matches!(input, Input::Text(_)) { SQLBATCH_TEXT } else { SQLBATCH_BLOB };
            sqlbatch_value::bytes(kind, at as u64, b.len() as u32)
        }
        Input::Null => sqlbatch_value::NULL,
    };
    data.extend(std::iter::repeat(0x5a).take(pad));
    let mut out = sqlbatch_value { bits: 1, len: 2, kind: 99, _pad: [0; 3] };
    let mut buf = [0xeeu8; 40];
    let rc = unsafe {
        sqlbatch_value_convert(&value, data.as_ptr(), data.len(), to, &mut out, buf.as_mut_ptr(), 32)
    };
    assert_eq!(rc, SQLBATCH_OK, "{input:?} to {to}");
    assert_eq!(buf[32..], [0xee; 8], "wrote past buf_len");
    assert_eq!(out._pad, [0; 3]);
    match out.kind {
        SQLBATCH_NULL => {
            assert_eq!((out.bits, out.len), (0, 0));
            Expect::Null
        }
        SQLBATCH_INTEGER | SQLBATCH_FLOAT => {
            assert_eq!(out.len, 0);
            Expect::Number(out.kind, out.bits)
        }
        SQLBATCH_TEXT | SQLBATCH_BLOB => {
            let len = out.len as usize;
            let bytes = if matches!(input, Input::Int(_) | Input::Float(_)) {
                assert_eq!(out.bits, 0, "a rendering starts at buf");
                assert!(len < 32, "{len}");
                assert_eq!(buf[len], 0, "NUL after the rendering");
                buf[..len].to_vec()
            } else {
                assert_eq!((out.bits, out.len), (value.bits, value.len), "the bytes stay where they are");
                data[out.bits as usize..][..len].to_vec()
            };
            Expect::Bytes(out.kind, bytes)
        }
        other => panic!("result kind {other}"),
    }
}

fn check_row(row: &Row) {
    for to in TARGETS {
        let want = expected(&row.answer, to);
        for (at, pad) in [(0, 0), (13, 0), (5, 7)] {
            let got = convert(&row.input, to, at, pad);
            assert_eq!(got, want, "{:?} to {to} (bytes at {at}, {pad} after)", row.input);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Tests

#[test]
fn the_committed_vectors_are_what_sqlite_says() {
    let generated = format_table(&generate());
    let path = vectors_path();
    if std::env::var_os("SQLBATCH_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, &generated).expect("write vectors");
        return;
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        current == generated,
        "tests/vectors/conversions.tsv differs from what the bundled SQLite says: \
         rerun with SQLBATCH_BLESS=1 and review the diff"
    );
}

#[test]
fn the_table_reads_back_as_written() {
    let rows = generate();
    let text = format_table(&rows);
    assert_eq!(format_table(&parse_table(&text)), text);
}

#[test]
fn the_table_shows_the_known_differences() {
    // The cases issue 9 names, as SQLite answers them (and the table says).
    let rows = parse_table(&std::fs::read_to_string(vectors_path()).expect("read vectors"));
    let find = |pred: &dyn Fn(&Input) -> bool| -> Answer {
        rows.iter().find(|r| pred(&r.input)).map(|r| r.answer.clone()).expect("row")
    };
    let text = |s: &'static str| move |i: &Input| matches!(i, Input::Text(b) if b == s.as_bytes());
    let real = |x: f64| move |i: &Input| matches!(i, Input::Float(r) if r.to_bits() == x.to_bits());
    assert_eq!(find(&text("1e3")).int64, 1);
    assert_eq!(f64::from_bits(find(&text("1e3")).double_bits), 1000.0);
    assert_eq!(find(&text(" +5.5e1")).int64, 5);
    assert_eq!(find(&text("0x10")).int64, 0);
    assert_eq!(find(&text("  12abc")).int64, 12);
    assert_eq!(find(&real(1e21)).text.as_deref(), Some(&b"1.0e+21"[..]));
    assert_eq!(find(&real(-0.0)).text.as_deref(), Some(&b"0.0"[..]));
    assert_eq!(find(&real(f64::INFINITY)).text.as_deref(), Some(&b"Inf"[..]));
    let nan = rows.iter().find(|r| matches!(r.input, Input::Float(x) if x.is_nan())).expect("NaN row");
    assert_eq!(nan.answer.column_type, ffi::SQLITE_NULL, "SQLite binds a NaN as NULL");
}

#[test]
fn convert_gives_the_tables_answer_for_every_row_and_target() {
    let rows = parse_table(&std::fs::read_to_string(vectors_path()).expect("read vectors"));
    assert!(rows.len() >= 90, "{} rows", rows.len());
    for row in &rows {
        check_row(row);
    }
}

#[test]
fn convert_agrees_with_sqlite_on_random_values() {
    // Beyond the table: random integers, random bit patterns of doubles (every exponent),
    // doubles rendered as text, and short strings of number-like characters.
    let sqlite = Sqlite::open();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let alphabet = b"0123456789+-.eExX \t\n\rabInfNa\x00";
    let n = 20_000;
    for k in 0..n {
        let input = match k % 6 {
            0 => Input::Int(rng.next() as i64 >> (rng.next() % 64)),
            1 | 2 => Input::Float(f64::from_bits(rng.next())),
            3 => {
                let r = f64::from_bits(rng.next());
                Input::Text(format!("{r:e}").into_bytes())
            }
            4 => {
                let len = (rng.next() % 12) as usize;
                Input::Text(
                    (0..len).map(|_| alphabet[(rng.next() % alphabet.len() as u64) as usize]).collect(),
                )
            }
            _ => {
                let len = (rng.next() % 6) as usize;
                Input::Blob((0..len).map(|_| b"0123456789.e-+ "[(rng.next() % 15) as usize]).collect())
            }
        };
        let row = Row { answer: sqlite.ask(&input), input };
        check_row(&row);
    }
}

#[test]
fn two_threads_at_once_and_threads_that_come_and_go() {
    let rows = parse_table(&std::fs::read_to_string(vectors_path()).expect("read vectors"));
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                for _ in 0..50 {
                    for row in &rows {
                        check_row(row);
                    }
                }
            });
        }
        // Short-lived threads: each opens its converter and closes it as it exits.
        s.spawn(|| {
            for _ in 0..100 {
                std::thread::spawn(|| {
                    assert_eq!(
                        convert(&t("12abc"), SQLBATCH_INTEGER, 0, 0),
                        Expect::Number(SQLBATCH_INTEGER, 12)
                    );
                })
                .join()
                .expect("thread");
            }
        });
    });
}

fn call(value: *const sqlbatch_value, data: &[u8], to: u8, out: *mut sqlbatch_value, buf_len: usize) -> i32 {
    let mut buf = [0u8; 64];
    unsafe { sqlbatch_value_convert(value, data.as_ptr(), data.len(), to, out, buf.as_mut_ptr(), buf_len) }
}

#[test]
fn errors_are_codes_never_crashes() {
    let mut out = sqlbatch_value::int(7);
    let one = sqlbatch_value::int(1);
    let data = b"12345".to_vec();
    let text = sqlbatch_value::bytes(SQLBATCH_TEXT, 1, 3);

    // NULL pointers.
    assert_eq!(call(ptr::null(), &data, SQLBATCH_TEXT, &mut out, 32), SQLBATCH_E_NULL_PARAMETER);
    assert_eq!(out.kind, SQLBATCH_NULL, "the result is NULL on error");
    assert_eq!(call(&one, &data, SQLBATCH_TEXT, ptr::null_mut(), 32), SQLBATCH_E_NULL_PARAMETER);
    unsafe {
        // A number rendered into a NULL buf.
        let rc = sqlbatch_value_convert(&one, ptr::null(), 0, SQLBATCH_TEXT, &mut out, ptr::null_mut(), 32);
        assert_eq!(rc, SQLBATCH_E_NULL_PARAMETER);
        let rc = sqlbatch_value_convert(&one, ptr::null(), 0, SQLBATCH_BLOB, &mut out, ptr::null_mut(), 0);
        assert_eq!(rc, SQLBATCH_E_BUFFER_TOO_SMALL);
        // No buf and no data needed.
        let rc = sqlbatch_value_convert(&one, ptr::null(), 0, SQLBATCH_FLOAT, &mut out, ptr::null_mut(), 0);
        assert_eq!((rc, out), (SQLBATCH_OK, sqlbatch_value::float(1.0)));
        let rc = sqlbatch_value_convert(
            &text,
            data.as_ptr(),
            data.len(),
            SQLBATCH_BLOB,
            &mut out,
            ptr::null_mut(),
            0,
        );
        assert_eq!((rc, out), (SQLBATCH_OK, sqlbatch_value::bytes(SQLBATCH_BLOB, 1, 3)));
        let empty = sqlbatch_value::bytes(SQLBATCH_TEXT, 0, 0);
        let rc =
            sqlbatch_value_convert(&empty, ptr::null(), 0, SQLBATCH_INTEGER, &mut out, ptr::null_mut(), 0);
        assert_eq!((rc, out), (SQLBATCH_OK, sqlbatch_value::int(0)));
        // Bytes with a NULL data base.
        let rc =
            sqlbatch_value_convert(&text, ptr::null(), 0, SQLBATCH_INTEGER, &mut out, ptr::null_mut(), 0);
        assert_eq!(rc, SQLBATCH_E_INVALID_ARGUMENT);
        let rc = sqlbatch_value_convert(&text, ptr::null(), 100, SQLBATCH_TEXT, &mut out, ptr::null_mut(), 0);
        assert_eq!(rc, SQLBATCH_E_INVALID_ARGUMENT);
    }

    // Unknown target and value kinds.
    for to in [0, SQLBATCH_NULL, 6, 7, 100, 255] {
        out = sqlbatch_value::int(7);
        assert_eq!(call(&one, &data, to, &mut out, 32), SQLBATCH_E_INVALID_ARGUMENT, "to {to}");
        assert_eq!(out, sqlbatch_value::NULL);
    }
    for kind in [0, 6, 7, 100, 255] {
        let v = sqlbatch_value { kind, ..one };
        for to in TARGETS {
            assert_eq!(call(&v, &data, to, &mut out, 32), SQLBATCH_E_INVALID_ARGUMENT, "kind {kind}");
        }
    }

    // Bytes out of range.
    for (bits, len) in [(3, 3), (5, 1), (6, 0xffff_ffff), (u64::MAX, 1), (u64::MAX - 1, 2), (1 << 63, 1)] {
        for kind in [SQLBATCH_TEXT, SQLBATCH_BLOB] {
            let v = sqlbatch_value::bytes(kind, bits, len);
            for to in TARGETS {
                assert_eq!(call(&v, &data, to, &mut out, 32), SQLBATCH_E_RANGE, "{v:?} to {to}");
            }
        }
    }
    // In range at the very end, and zero bytes anywhere.
    let v = sqlbatch_value::bytes(SQLBATCH_TEXT, 2, 3);
    assert_eq!(call(&v, &data, SQLBATCH_INTEGER, &mut out, 32), SQLBATCH_OK);
    assert_eq!(out, sqlbatch_value::int(345));
    let v = sqlbatch_value::bytes(SQLBATCH_BLOB, 1000, 0);
    assert_eq!(call(&v, &data, SQLBATCH_FLOAT, &mut out, 32), SQLBATCH_OK);
    assert_eq!(out, sqlbatch_value::float(0.0));

    // buf too small for a rendering (whatever its length would be), fine for the rest.
    for v in [one, sqlbatch_value::float(1e21), sqlbatch_value::float(f64::NAN)] {
        for to in [SQLBATCH_TEXT, SQLBATCH_BLOB] {
            for buf_len in [0, 1, 7, 31] {
                assert_eq!(call(&v, &data, to, &mut out, buf_len), SQLBATCH_E_BUFFER_TOO_SMALL);
            }
            assert_eq!(call(&v, &data, to, &mut out, 33), SQLBATCH_OK);
        }
    }
    for to in TARGETS {
        assert_eq!(call(&text, &data, to, &mut out, 0), SQLBATCH_OK);
        assert_eq!(call(&sqlbatch_value::NULL, &data, to, &mut out, 0), SQLBATCH_OK);
    }

    // The value and the result may be the same struct.
    let mut v = sqlbatch_value::bytes(SQLBATCH_TEXT, 0, 5);
    let p: *mut sqlbatch_value = &mut v;
    assert_eq!(call(p, &data, SQLBATCH_INTEGER, p, 0), SQLBATCH_OK);
    assert_eq!(v, sqlbatch_value::int(12345));
}

#[test]
fn bytes_over_sqlites_length_limit_are_toobig() {
    // 1 GiB + 1 zero bytes (calloc'd: never touched, SQLite refuses them before reading).
    let big = vec![0u8; (1 << 30) + 1];
    let v = sqlbatch_value::bytes(SQLBATCH_TEXT, 0, big.len() as u32);
    let mut out = sqlbatch_value::int(7);
    for to in [SQLBATCH_INTEGER, SQLBATCH_FLOAT] {
        assert_eq!(call(&v, &big, to, &mut out, 0) & 0xff, ffi::SQLITE_TOOBIG);
        assert_eq!(out, sqlbatch_value::NULL);
    }
    // Converting between TEXT and BLOB needs no SQLite, so no limit.
    assert_eq!(call(&v, &big, SQLBATCH_BLOB, &mut out, 0), SQLBATCH_OK);
    // The thread's converter still works.
    assert_eq!(convert(&t(" 42x"), SQLBATCH_INTEGER, 0, 0), Expect::Number(SQLBATCH_INTEGER, 42));
}

/// xorshift64*: a fixed sequence, so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// SQLite's answers for BLOBs in a database of encoding `enc` ("UTF-16le"/"UTF-16be"): each text
/// is stored as `CAST(text AS BLOB)` (its bytes in that encoding) and read back with
/// `sqlite3_column_blob`, `_int64` and `_double`, each on a fresh step.
fn utf16_blob_answers(enc: &str, texts: &[Vec<u8>]) -> Vec<(Vec<u8>, i64, u64)> {
    unsafe {
        let mut db = ptr::null_mut();
        let rc = ffi::sqlite3_open_v2(
            c":memory:".as_ptr(),
            &mut db,
            ffi::SQLITE_OPEN_READWRITE | ffi::SQLITE_OPEN_MEMORY,
            ptr::null(),
        );
        assert_eq!(rc, ffi::SQLITE_OK);
        let setup = std::ffi::CString::new(format!("PRAGMA encoding = '{enc}'; CREATE TABLE t(v)")).unwrap();
        let rc = ffi::sqlite3_exec(db, setup.as_ptr(), None, ptr::null_mut(), ptr::null_mut());
        assert_eq!(rc, ffi::SQLITE_OK);
        let prep = |sql: &std::ffi::CStr| {
            let mut s = ptr::null_mut();
            assert_eq!(
                ffi::sqlite3_prepare_v2(db, sql.as_ptr(), -1, &mut s, ptr::null_mut()),
                ffi::SQLITE_OK
            );
            s
        };
        let insert = prep(c"INSERT INTO t(rowid, v) VALUES (1, CAST(?1 AS BLOB))");
        let read = prep(c"SELECT v FROM t WHERE rowid = 1");
        let mut out = Vec::new();
        for text in texts {
            let rc = ffi::sqlite3_bind_text64(
                insert,
                1,
                text.as_ptr().cast(),
                text.len() as u64,
                ffi::SQLITE_TRANSIENT(),
                ffi::SQLITE_UTF8 as u8,
            );
            assert_eq!(rc, ffi::SQLITE_OK);
            assert_eq!(ffi::sqlite3_step(insert), ffi::SQLITE_DONE);
            ffi::sqlite3_reset(insert);
            let step = || {
                ffi::sqlite3_reset(read);
                assert_eq!(ffi::sqlite3_step(read), ffi::SQLITE_ROW);
            };
            step();
            assert_eq!(ffi::sqlite3_column_type(read, 0), ffi::SQLITE_BLOB);
            let p = ffi::sqlite3_column_blob(read, 0).cast::<u8>();
            let n = ffi::sqlite3_column_bytes(read, 0) as usize;
            let blob = if n == 0 { Vec::new() } else { std::slice::from_raw_parts(p, n).to_vec() };
            step();
            let int64 = ffi::sqlite3_column_int64(read, 0);
            step();
            let double_bits = ffi::sqlite3_column_double(read, 0).to_bits();
            ffi::sqlite3_reset(read);
            let rc = ffi::sqlite3_exec(db, c"DELETE FROM t".as_ptr(), None, ptr::null_mut(), ptr::null_mut());
            assert_eq!(rc, ffi::SQLITE_OK);
            out.push((blob, int64, double_bits));
        }
        ffi::sqlite3_finalize(insert);
        ffi::sqlite3_finalize(read);
        ffi::sqlite3_close(db);
        out
    }
}

#[test]
fn a_utf16_databases_blob_becomes_the_number_sqlite_reads_in_it() {
    // Every text input of the table, and random numeric-looking ones.
    let mut texts: Vec<Vec<u8>> = inputs()
        .into_iter()
        .filter_map(|i| match i {
            Input::Text(b) if std::str::from_utf8(&b).is_ok() => Some(b),
            _ => None,
        })
        .collect();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..2000 {
        let len = (rng.next() % 12) as usize;
        texts.push((0..len).map(|_| b"0123456789.e-+ x"[(rng.next() % 16) as usize]).collect());
    }
    for (enc, flag) in [("UTF-16le", SQLBATCH_CONVERT_UTF16LE), ("UTF-16be", SQLBATCH_CONVERT_UTF16BE)] {
        let answers = utf16_blob_answers(enc, &texts);
        let mut differs_without_flag = 0;
        for (text, (blob, int64, double_bits)) in texts.iter().zip(&answers) {
            let v = sqlbatch_value::bytes(SQLBATCH_BLOB, 0, blob.len() as u32);
            let mut out = sqlbatch_value::NULL;
            assert_eq!(call(&v, blob, SQLBATCH_INTEGER | flag, &mut out, 0), SQLBATCH_OK);
            assert_eq!(
                out,
                sqlbatch_value::int(*int64),
                "{enc} {:?} to INTEGER",
                String::from_utf8_lossy(text)
            );
            assert_eq!(call(&v, blob, SQLBATCH_FLOAT | flag, &mut out, 0), SQLBATCH_OK);
            assert!(
                out.kind == SQLBATCH_FLOAT && out.bits == *double_bits,
                "{enc} {:?} to FLOAT: {out:?}, SQLite {}",
                String::from_utf8_lossy(text),
                f64::from_bits(*double_bits)
            );
            // Between TEXT and BLOB the flag changes nothing: the bytes stay.
            assert_eq!(call(&v, blob, SQLBATCH_TEXT | flag, &mut out, 0), SQLBATCH_OK);
            assert_eq!(out, sqlbatch_value::bytes(SQLBATCH_TEXT, 0, blob.len() as u32));
            // Read as UTF-8 bytes (no flag), a UTF-16 digit string is often not its number (in
            // UTF-16LE "1" is 31 00, which still reads as 1; in UTF-16BE, 00 31 reads as 0).
            assert_eq!(call(&v, blob, SQLBATCH_INTEGER, &mut out, 0), SQLBATCH_OK);
            differs_without_flag += usize::from(out != sqlbatch_value::int(*int64));
        }
        assert!(
            differs_without_flag > texts.len() / 5,
            "{enc}: the flag mattered for {differs_without_flag} values only"
        );
        // The example of the header: '12' in UTF-16BE is 00 31 00 32.
        if flag == SQLBATCH_CONVERT_UTF16BE {
            let v = sqlbatch_value::bytes(SQLBATCH_BLOB, 0, 4);
            let mut out = sqlbatch_value::NULL;
            assert_eq!(call(&v, b"\0\x31\0\x32", SQLBATCH_INTEGER | flag, &mut out, 0), SQLBATCH_OK);
            assert_eq!(out, sqlbatch_value::int(12));
            assert_eq!(call(&v, b"\0\x31\0\x32", SQLBATCH_INTEGER, &mut out, 0), SQLBATCH_OK);
            assert_eq!(out, sqlbatch_value::int(0));
        }
    }
    // Both flags at once are refused.
    let v = sqlbatch_value::bytes(SQLBATCH_BLOB, 0, 2);
    let mut out = sqlbatch_value::int(7);
    let both = SQLBATCH_INTEGER | SQLBATCH_CONVERT_UTF16LE | SQLBATCH_CONVERT_UTF16BE;
    assert_eq!(call(&v, b"12", both, &mut out, 0), SQLBATCH_E_INVALID_ARGUMENT);
    assert_eq!(out, sqlbatch_value::NULL);
}

#[test]
fn conn_encoding_names_the_databases_encoding() {
    for (pragma, want) in [
        ("", SQLBATCH_ENCODING_UTF8),
        ("PRAGMA encoding = 'UTF-16le';", SQLBATCH_ENCODING_UTF16LE),
        ("PRAGMA encoding = 'UTF-16be';", SQLBATCH_ENCODING_UTF16BE),
    ] {
        unsafe {
            let mut c = ptr::null_mut();
            assert_eq!(sqlbatch_conn_open(c":memory:".as_ptr(), 8, 0, &mut c), SQLBATCH_OK);
            let sql = format!("{pragma} CREATE TABLE t(v)");
            let mut r = sqlbatch_exec_result::default();
            assert_eq!(
                sqlbatch_conn_exec(c, sql.as_ptr().cast(), sql.len(), ptr::null(), &mut r),
                SQLBATCH_OK
            );
            let mut enc = -1;
            assert_eq!(sqlbatch_conn_encoding(c, &mut enc), SQLBATCH_OK);
            assert_eq!(enc, want, "{pragma}");
            assert_eq!(sqlbatch_conn_encoding(c, ptr::null_mut()), SQLBATCH_E_NULL_PARAMETER);
            sqlbatch_conn_close(c);
            assert_eq!(sqlbatch_conn_encoding(ptr::null(), &mut enc), SQLBATCH_E_NULL_PARAMETER);
        }
    }
}
