//! Direct reads of result values (src/mem.rs) must read exactly what the public API reads.
//! Their layout is checked at compile time (build.rs); these tests check the behaviour the
//! compiler cannot see. One test in its own binary, because it switches a process-wide setting.

mod common;
use std::collections::BTreeSet;

use common::*;

fn all_rows(c: &Conn, sql: &str, max_rows: usize, max_bytes: usize) -> Vec<Vec<Val>> {
    let s = c.prepare(sql);
    let rows = s.all(max_rows, max_bytes);
    s.finalize();
    rows
}

#[test]
fn direct_reads_agree_with_the_api_on_every_kind_of_value() {
    assert!(
        sqlbatch::mem::direct_reads_enabled(),
        "direct reads are not compiled in (cfg(sqlbatch_direct_reads))"
    );
    let c = Conn::memory();
    // Plain values, values SQLite keeps in unusual forms (zero-filled blobs, integers in REAL
    // columns, text that looks numeric, pointer-less subtypes from json), and many rows.
    c.exec(
        "CREATE TABLE v(i INTEGER, r REAL, t TEXT, b BLOB, x ANY);
         WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < 2000)
         INSERT INTO v SELECT
           iif(n % 7 = 0, NULL, n * 1000003 - 9223372036854775807 / (n + 1)),
           iif(n % 5 = 0, n, n / 3.0),
           iif(n % 11 = 0, '', printf('tëxt %d ✓', n)),
           iif(n % 13 = 0, zeroblob(n % 17), randomblob(n % 9)),
           CASE n % 6 WHEN 0 THEN NULL WHEN 1 THEN '42' WHEN 2 THEN 4.5 WHEN 3 THEN x'' ELSE n END
         FROM k",
    );
    let queries = [
        "SELECT * FROM v",
        "SELECT i, zeroblob(3), json_array(i, t), r + 0, CAST(t AS BLOB), -0.0, 1e308 * 10 FROM v",
        "SELECT i FROM v UNION ALL SELECT t FROM v",
        "SELECT 1, 'a' UNION ALL SELECT 2.5, x'00' UNION ALL SELECT NULL, ''",
        // Rows produced by different result instructions (and so in different registers)
        // within one result: compound selects, a recursive CTE, sorters, window functions.
        "SELECT i, t FROM v WHERE i % 2 = 0 UNION ALL SELECT r, b FROM v WHERE i % 3 = 0 \
         UNION ALL SELECT 'x', NULL",
        "SELECT i, t FROM v UNION SELECT r, b FROM v ORDER BY 2, 1",
        "WITH RECURSIVE k(n, s) AS (SELECT 1, 'a' UNION ALL SELECT n + 1, s || 'b' FROM k WHERE n < 300) \
         SELECT n, s FROM k UNION ALL SELECT count(*), group_concat(t) FROM v",
        "SELECT i, sum(r) OVER (ORDER BY i ROWS 2 PRECEDING), t FROM v ORDER BY i DESC",
        "SELECT x, count(*) FROM v GROUP BY x HAVING count(*) > 1",
        // Rows SQLite produces outside OP_ResultRow, or from pragmas and table-valued functions.
        "EXPLAIN SELECT i, t FROM v WHERE i > 5 ORDER BY t",
        "EXPLAIN QUERY PLAN SELECT i, t FROM v WHERE i > 5 UNION SELECT r, b FROM v",
        "PRAGMA table_info(v)",
        "SELECT * FROM pragma_table_info('v') JOIN json_each('[1, \"a\", 2.5, null]')",
        "UPDATE v SET i = i WHERE rowid > 1990 RETURNING *",
    ];
    for sql in queries {
        for (rows, bytes) in [(1, usize::MAX), (7, 256), (1000, 1 << 20)] {
            sqlbatch::mem::set_direct_reads(true);
            let direct = all_rows(&c, sql, rows, bytes);
            sqlbatch::mem::set_direct_reads(false);
            let api = all_rows(&c, sql, rows, bytes);
            assert_eq!(direct, api, "{sql} with batches of {rows} rows / {bytes} bytes");
            assert!(!direct.is_empty());
        }
    }
    // A UTF-16 database: text is not UTF-8 in SQLite's registers, so it goes through the API.
    let u = Conn::memory();
    u.exec("PRAGMA encoding = 'UTF-16le'; CREATE TABLE w(t); INSERT INTO w VALUES ('ünïcode'), (1), (NULL)");
    sqlbatch::mem::set_direct_reads(true);
    let direct = all_rows(&u, "SELECT t FROM w", 10, usize::MAX);
    sqlbatch::mem::set_direct_reads(false);
    assert_eq!(direct, all_rows(&u, "SELECT t FROM w", 10, usize::MAX));
    assert_eq!(direct[0], vec![t("ünïcode")]);
    sqlbatch::mem::set_direct_reads(true);
}

#[test]
fn a_full_mutex_connection_reads_through_the_api() {
    let c = Conn::open_flags(":memory:", SQLBATCH_OPEN_FULLMUTEX);
    assert_eq!(
        c.rows("SELECT 1, 'two', 3.0, x'04', NULL"),
        vec![vec![Val::Int(1), t("two"), f(3.0), Val::Blob(vec![4]), Val::Null]]
    );
}

/// build.rs checks the layout with the C flags it derives from libsqlite3-sys's build script:
/// every option the linked SQLite reports that changes what is compiled (ENABLE_*, OMIT_*,
/// DEBUG) must be among one of the flag sets it checked, and that set's ENABLE_* all reported.
#[test]
fn the_layout_was_checked_with_the_flags_the_linked_sqlite_was_built_with() {
    // JSON is built in since SQLite 3.38, and ENABLE_JSON1 no longer reported.
    const NOT_REPORTED: &[&str] = &["SQLITE_ENABLE_JSON1"];
    let linked: BTreeSet<String> = Conn::memory()
        .rows("PRAGMA compile_options")
        .into_iter()
        .map(|row| match &row[0] {
            Val::Text(b) => String::from_utf8(b.clone()).unwrap(),
            v => panic!("compile option {v:?}"),
        })
        .filter(|o| o.starts_with("ENABLE_") || o.starts_with("OMIT_") || o == "DEBUG")
        .map(|o| format!("SQLITE_{}", o.split('=').next().unwrap()))
        .collect();
    assert!(linked.contains("SQLITE_ENABLE_FTS5"), "{linked:?}");
    let sets = sqlbatch::mem::CHECKED_FLAG_SETS;
    let matches = |flags: &&&[&str]| {
        let defined: BTreeSet<String> = flags
            .iter()
            .filter_map(|f| f.strip_prefix("-D"))
            .map(|f| f.split('=').next().unwrap().to_string())
            .collect();
        linked.is_subset(&defined)
            && defined
                .iter()
                .filter(|d| d.starts_with("SQLITE_ENABLE_") && !NOT_REPORTED.contains(&d.as_str()))
                .all(|d| linked.contains(d))
    };
    assert!(sets.iter().any(|s| matches(&s)), "linked: {linked:?}\nchecked: {sets:#?}");
}
