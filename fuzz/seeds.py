#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (fuzz/corpus/<target>/seed-*).

Each input is 48 bytes of knobs (see fuzz/src/lib.rs and each target's doc comment) followed
by SQL. Run from anywhere; existing seed-* files are rewritten, files the fuzzer added are
kept. The knobs below are chosen by hand to reach each target's branches."""
import hashlib
import os

CONTROL = 48
HERE = os.path.dirname(os.path.abspath(__file__))


def knobs(*b):
    b = bytes(b)
    assert len(b) <= CONTROL
    return b + bytes(CONTROL - len(b))


# (value kind, value selector) pairs for pick_value: kind % 6 = NULL, INT, FLOAT, TEXT, BLOB, empty BLOB.
INT_MIN, INT_MAX, NAN, NEG0, TEXT_NUL, BAD_UTF8, BIG_TEXT, BIG_BLOB = (1, 3), (1, 4), (2, 4), (2, 1), (3, 3), (3, 4), (3, 0xf8), (4, 0xf8)

EXEC = {
    "plain": (knobs(0, 0), "INSERT INTO t VALUES (1, 2, 3, 4, 5); UPDATE t SET a = a + 1; SELECT * FROM t;"),
    "params": (knobs(0, 4, *INT_MIN, *NAN, *TEXT_NUL, *BIG_BLOB),
               "INSERT INTO t(a, b) VALUES (?, ?); INSERT INTO t(c, e) VALUES (?, ?);"),
    "numbered": (knobs(0, 3, *INT_MAX, *NEG0, *BAD_UTF8), "SELECT ?3, ?1; INSERT INTO t(a) VALUES (?)"),
    "too_few": (knobs(0, 1, 1, 1), "INSERT INTO t(a) VALUES (?); INSERT INTO t(a) VALUES (?)"),
    "too_many": (knobs(0, 3, 1, 1, 1, 2, 1, 3), "INSERT INTO t(a) VALUES (?)"),
    "named": (knobs(2, 3, 1, 1, 3, 1, 1, 2, 0x80, 0x81, 0), "INSERT INTO t(a, b, c) VALUES (:a, @b, ?); SELECT :a"),
    "named_bad": (knobs(2, 2, 1, 1, 3, 1, 0x87, 0x88), "SELECT :a, $c"),
    "raw_values": (knobs(1, 3, 1, 3, 7, 1, 90, 1, 1, 4, 200, 0, 20, 1, 1, 1, 1), "SELECT ?, ?, ?"),
    "syntax_error": (knobs(0, 0), "SELECT 1; SELECT 2;\nSELECT * FORM t; SELECT 3"),
    "constraint": (knobs(0, 0), "INSERT INTO u(v) VALUES (1); INSERT INTO u(v) VALUES (1); INSERT INTO u(v) VALUES (2)"),
    "transaction": (knobs(0, 0), "BEGIN; INSERT INTO u(v) VALUES (7); SAVEPOINT s; DELETE FROM t; ROLLBACK TO s; COMMIT"),
    "failed_txn": (knobs(0, 0), "BEGIN; INSERT INTO u(v) VALUES (8); INSERT INTO u(w) VALUES (NULL); COMMIT"),
    "comments": (knobs(0, 0), "-- c\n/* d */ ;; SELECT 1 /* e */ ; -- tail"),
    "unterminated": (knobs(0, 0), "SELECT 1; /* open"),
    "triggers": (knobs(0, 0), "CREATE TRIGGER tr AFTER INSERT ON u BEGIN INSERT INTO t(a) VALUES (new.v); END; INSERT INTO u(v) VALUES (3); SELECT count(*) FROM t"),
    "cte": (knobs(0, 0), "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 500) INSERT INTO t(a) SELECT i FROM k"),
    "endless": (knobs(0, 0), "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k) SELECT count(*) FROM k"),
    "big_value": (knobs(0, 0), "SELECT zeroblob(100000000); SELECT length(printf('%.*c', 50000000, 'x'))"),
    "nul_byte": (knobs(0, 0), "SELECT 1;\0SELECT 2"),
    "bad_utf8": (knobs(0, 0), b"SELECT 'ok'; SELECT '\xc3\x28'"),
    "schema": (knobs(0, 0), "CREATE TABLE n(x INTEGER PRIMARY KEY, y) STRICT; INSERT INTO n VALUES (1, 'a'); ALTER TABLE n ADD COLUMN z DEFAULT 5; DROP INDEX ti"),
    "json": (knobs(0, 0), "CREATE TABLE j(d); INSERT INTO j SELECT json_object('a', 1, 'b', json_array(2, 3.5, 'x'))"),
    "vtab": (knobs(0, 0), "CREATE VIRTUAL TABLE f USING fts5(x); INSERT INTO f VALUES ('hello world'); SELECT * FROM f WHERE f MATCH 'hello'"),
    "returning": (knobs(0, 1, *BIG_TEXT), "INSERT INTO t(b) VALUES (?) RETURNING rowid, b"),
    # The functions of fuzz/src/functions.rs: results copied and handed over, an error, a
    # batched aggregate as aggregate and window function, a collation.
    "functions": (knobs(0, 1, *BIG_TEXT), "SELECT fz_echo(a), fz_echo(1, b), fz_echo(?, e), fz_sum(c) FROM t; "
                  "SELECT fz_sum(b) OVER (ORDER BY rowid ROWS 2 PRECEDING) FROM t; "
                  "SELECT b FROM t ORDER BY b COLLATE fz_rev; INSERT INTO t(a) SELECT fz_echo(d, b) FROM t"),
    "function_fails": (knobs(0, 0), "INSERT INTO u(v) VALUES (1); INSERT INTO u(v) SELECT fz_fail(a) FROM t; SELECT 1"),
}

FETCH = {
    "all_types": (knobs(0, 0, 0), "SELECT * FROM t"),
    "direct_off": (knobs(1, 0, 0x09, 0x11, 0x42, 0x53), "SELECT a, b, c, d, e, typeof(a) FROM t ORDER BY rowid"),
    "params": (knobs(0, *INT_MIN, *NAN, *TEXT_NUL, *BIG_BLOB, *NEG0, 0x01, 0x0a, 0x13, 0x5c, 0x64),
               "SELECT ?, ?, ?, ?, ?"),
    "wrong_count": (knobs(2, 1, 1, 1), "SELECT ?, ?"),
    "raw_values": (knobs(4, 1, 3, 7, 1, 90, 1, 1, 4, 200), "SELECT ?, ?"),
    "many_rows": (knobs(0, 0x0c, 0x2d, 0x46, 0x7f, 0xff, 0x1a),
                  "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 5000) SELECT i, printf('row %d', i), zeroblob(i % 50), i * 0.5, NULL FROM k"),
    "fetch_into_small": (knobs(0, 0x4a, 0x4b, 0x51, 0x79, 0x40), "SELECT b, e, zeroblob(300) FROM t"),
    "functions": (knobs(0, 0x0c, 0x2d), "SELECT fz_echo(e, b), fz_sum(a) OVER w, fz_fail(NULL) FROM t WINDOW w AS (ORDER BY b COLLATE fz_rev)"),
    "huge_row": (knobs(0, 0x4a, 0x09), "SELECT zeroblob(2000000), 'x' UNION ALL SELECT x'01', 'y'"),
    "error_mid": (knobs(0, 0x06), "SELECT CASE WHEN a = 4 THEN abs(-9223372036854775807 - 1) ELSE a END FROM (SELECT 1 a UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4)"),
    "write_returning": (knobs(0, *BIG_TEXT, 0x01, 0x01), "INSERT INTO t(b) VALUES (?) RETURNING *"),
    "empty": (knobs(0), "  -- nothing"),
    "tail": (knobs(0), "SELECT 1; SELECT 2"),
    "persistent": (knobs(8), "SELECT count(*), sum(c) FROM t"),
    "bad_flags": (knobs(16), "SELECT 1"),
    "max_rows_zero": (knobs(0, 0xff, 0xff, 0x00), "SELECT 1 UNION ALL SELECT 2"),
    "endless": (knobs(0), "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k) SELECT sum(i) FROM k"),
    "endless_rows": (knobs(0, 0x07), "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k) SELECT i, 'abc' FROM k"),
    "utf16": (knobs(0), "SELECT CAST(x'00d800dc' AS TEXT), char(0x1d11e), hex(char(0))"),
    "wide": (knobs(0, 0x17), "SELECT " + ", ".join(f"{i}, 'c{i}', x'{i:02x}', {i}.5, NULL" for i in range(200))),
    "json": (knobs(0), "SELECT json_object('a', 1), json_array(1, 2.5, 'x', NULL), jsonb('[1]')"),
    "mixed_column": (knobs(0, 0x02), "SELECT 1 UNION ALL SELECT 'two' UNION ALL SELECT 3.0 UNION ALL SELECT x'04' UNION ALL SELECT NULL"),
}

EXECUTE_MANY = {
    "insert": (knobs(0, 10, 0x12, 0x34, 0x56, 0x78), "INSERT INTO t VALUES (?, ?, ?, ?, ?)"),
    "txn": (knobs(4, 32, 0x9a, 0xbc, 0xde, 0xf0), "INSERT INTO t(a, b) VALUES (?, ?)"),
    "wrong_cols": (knobs(1, 3, 0x11, 0x22, 0x33, 0x44, 1), "INSERT INTO t(a) VALUES (?)"),
    "raw": (knobs(2, 2, 0x11, 0x22, 0x33, 0x44, 1, 3, 7, 1, 90, 1, 1, 4, 200), "INSERT INTO t(a, b) VALUES (?, ?)"),
    "unique": (knobs(0, 20, 1, 0, 0, 0), "INSERT INTO u(v) VALUES (?)"),
    "not_null": (knobs(0, 5, 3, 0, 0, 0), "INSERT INTO u(w) VALUES (?)"),
    "update": (knobs(0, 8, 0x55, 0x66, 0x77, 0x88), "UPDATE t SET a = ? WHERE rowid = ?"),
    "select": (knobs(0, 4, 0x21, 0x43, 0x65, 0x87), "SELECT ?, ? UNION ALL SELECT 1, 2"),
    "no_params": (knobs(0, 3), "DELETE FROM t WHERE rowid = 1"),
    "empty": (knobs(0, 5), "  "),
    "upsert": (knobs(0, 16, 0x13, 0x57, 0x9b, 0xdf), "INSERT INTO u(k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET w = w + 1"),
    "endless": (knobs(0, 2, 1, 0, 0, 0), "INSERT INTO t(a) SELECT sum(i) FROM (WITH RECURSIVE k(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM k) SELECT i FROM k)"),
    "returning": (knobs(0, 6, 0x31, 0x41, 0x59, 0x26), "INSERT INTO t(b, e) VALUES (?, ?) RETURNING rowid"),
}

# lifecycle: pairs of (op, arg) bytes; below 0x80, op % 16 is the call and op >> 4 the
# statement slot; from 0x80, (op & 15) % 5 is a blob, backup or session call (BLOB_OPEN .. SESSION).
def ops(*pairs):
    return knobs(*[b for p in pairs for b in p])


FETCH_, INTO, RESET, BIND, CLEAR, COLS, PARAMS, EXPANDED, MANY, GET, FINAL, PREP, SCRIPT, INTR, CLOSE, GETTERS = range(16)
BLOB_OPEN, BLOB_OP, BLOB_CLOSE, BACKUP, SESSION = 0x80, 0x81, 0x82, 0x83, 0x84
LIFECYCLE = {
    # A writable blob on row 1: read, write, reopen on row 2, a batched read; a backup into
    # the connection, stepped, its source closed under it, finished; then the connection
    # closed under the blob.
    "blob_and_backup": (ops((BLOB_OPEN, 11), (BLOB_OP, 8), (BLOB_OP, 1), (BLOB_OP, 10), (BLOB_OP, 0x87), (BACKUP, 0),
                            (BACKUP, 38), (BACKUP, 1), (BACKUP, 2), (BACKUP, 0), (CLOSE, 0), (BLOB_OP, 0), (BLOB_CLOSE, 0)),
                        "SELECT * FROM bl"),
    "read_then_close": (ops((FETCH_, 1), (GET, 0), (0x10 | FETCH_, 2), (CLOSE, 0), (FETCH_, 1), (GET, 0), (0x10 | GET, 3), (FINAL, 0)),
                        "SELECT x FROM f WHERE f MATCH 'hello'; SELECT * FROM r; SELECT * FROM t; SELECT ?, ?"),
    "stale_batches": (ops((FETCH_, 0), (GET, 5), (FETCH_, 0), (GET, 5), (RESET, 0), (GET, 1), (INTO, 9), (GET, 2), (BIND, 0), (GET, 0)),
                      "SELECT a, b, e FROM t WHERE a IS NOT ?; SELECT 1"),
    "bulk_and_script": (ops((MANY, 3), (0x10 | FETCH_, 4), (SCRIPT, 0), (0x10 | GET, 0), (MANY, 2), (COLS, 0), (PARAMS, 0), (EXPANDED, 0)),
                        "INSERT INTO u(v) VALUES (?); SELECT * FROM u; SELECT * FROM f"),
    "interrupt_between": (ops((FETCH_, 1), (INTR, 0), (0x10 | FETCH_, 1), (FETCH_, 1), (0x10 | RESET, 0), (0x10 | FETCH_, 1)),
                          "SELECT * FROM t; SELECT * FROM r"),
    "finalize_and_prepare": (ops((FINAL, 0), (PREP, 0), (FETCH_, 3), (0x20 | FINAL, 0), (0x20 | PREP, 0), (0x20 | FETCH_, 3), (CLOSE, 4), (CLOSE, 0), (0x30 | GETTERS, 1)),
                             "SELECT * FROM f; SELECT count(*) FROM r; INSERT INTO f VALUES ('new') RETURNING rowid"),
    # A session: created, changes made by a bulk write and a script, its changeset applied back
    # (conflicts: OMIT) and to the other connection, a preupdate hook refused, the connection
    # closed under it.
    "session": (ops((SESSION, 0), (MANY, 3), (SCRIPT, 0), (SESSION, 1), (BACKUP, 0), (BACKUP, 0), (SESSION, 2), (SESSION, 3),
                    (SESSION, 5), (CLOSE, 0), (SESSION, 1), (SESSION, 0)),
                "INSERT INTO u(v) VALUES (?); UPDATE u SET w = w + 1; DELETE FROM u WHERE v IS NULL"),
    "drop_under_reader": (ops((FETCH_, 1), (SCRIPT, 0), (FETCH_, 1), (GET, 0), (CLEAR, 0), (GETTERS, 0)),
                          "SELECT * FROM t; DROP TABLE f; DROP TABLE t"),
}

# untrusted_bytes: knob 0 bit 0 = changeset (else database image), bit 1 = the bytes as they
# are (else SQL whose result is damaged at the (u16 position, byte) pairs from knob 8 on);
# knob 1 = deserialize flags / patchset (bit 2); knob 2 = apply policy, flags, callback (bit 7).
def damaged(*pairs):
    return bytes(b for at, v in pairs for b in (at & 0xff, at >> 8, v))


def db_image():
    import sqlite3
    c = sqlite3.connect(":memory:")
    c.executescript("CREATE TABLE t(a, b TEXT, c INTEGER, d REAL, e BLOB); INSERT INTO t VALUES (1, 'x', 2, 3.5, x'ff');"
                    "CREATE INDEX i ON t(b); CREATE TABLE big(x); INSERT INTO big VALUES (zeroblob(9000));")
    return c.serialize()


CHANGES = ("INSERT INTO u(v, w) VALUES ('a', 1), (2, 3); UPDATE t SET b = 'changed' WHERE a = 1; "
           "DELETE FROM t WHERE b = ''; UPDATE u SET w = 9 WHERE v = 2; INSERT INTO u(v) VALUES (x'00ff')")
UNTRUSTED = {
    "db_sql": (knobs(0, 0), "INSERT INTO t VALUES (7, 'seven', 7, 7.5, zeroblob(5000)); CREATE TABLE w(k PRIMARY KEY, v) WITHOUT ROWID; INSERT INTO w VALUES (1, 2)"),
    "db_damaged_header": (knobs(0, 2, 0, 0, 0, 0, 0, 0, *damaged((16, 0x7f), (18, 9), (28, 0xff), (100, 0x0d))), "INSERT INTO t(a) VALUES (1)"),
    "db_damaged_page": (knobs(0, 1, 0, 0, 0, 0, 0, 0, *damaged((4100, 0), (4101, 0xff), (4200, 7), (8200, 0x42))), "INSERT INTO t SELECT * FROM t; INSERT INTO t SELECT * FROM t"),
    # Files from anyone (knob 1 bit 2): opened with SQLBATCH_OPEN_UNTRUSTED.
    "file_sql": (knobs(0, 4), "INSERT INTO t VALUES (7, 'seven', 7, 7.5, zeroblob(5000)); CREATE INDEX tb ON t(b)"),
    "file_damaged_page": (knobs(0, 4, 0, 0, 0, 0, 0, 0, *damaged((4100, 0), (4101, 0xff), (8200, 0x42))), "INSERT INTO t SELECT * FROM t; INSERT INTO t SELECT * FROM t"),
    "file_fts5": (knobs(0, 4, 0, 0, 0, 0, 0, 0, *damaged((9000, 0x13), (13000, 0))), "CREATE VIRTUAL TABLE f USING fts5(x, y); INSERT INTO f VALUES ('hello world', 'a b c'), ('sqlite fts', 'x y z'); INSERT INTO f SELECT x || y, y FROM f"),
    "file_rtree": (knobs(0, 4, 0, 0, 0, 0, 0, 0, *damaged((9000, 0x7f), (12300, 1))), "CREATE VIRTUAL TABLE r USING rtree(id, x0, x1, y0, y1); INSERT INTO r VALUES (1, 0, 1, 0, 1), (2, 5, 9, -3, 4), (3, 0.5, 0.6, 0.5, 0.6)"),
    "file_fts5_small": (knobs(0, 4), "CREATE VIRTUAL TABLE f USING fts5(x); INSERT INTO f VALUES ('one two three')"),
    "db_raw": (knobs(2, 0), db_image()),
    "db_garbage": (knobs(2, 2), b"SQLite format 3\0" + bytes(range(256)) * 4),
    "cs_sql": (knobs(1, 0, 0x80), CHANGES),
    "cs_patchset": (knobs(1, 4, 0x81), CHANGES),
    "cs_replace_noop": (knobs(1, 0, 0x01 | 0x10 | 0x20), CHANGES),
    "cs_damaged": (knobs(1, 0, 0x82, 0, 0, 0, 0, 0, *damaged((3, 0xff), (9, 0x80), (30, 0x12), (41, 0))), CHANGES),
    "cs_garbage": (knobs(3, 0, 0x80), b"T\x05\x01\x00\x00\x00\x00\x00t\x00\x12\x00\x01\x01\x03\x01a" * 3),
}

for target, seeds in (("exec", EXEC), ("fetch", FETCH), ("execute_many", EXECUTE_MANY), ("lifecycle", LIFECYCLE),
                      ("untrusted_bytes", UNTRUSTED)):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    for name, (k, sql) in seeds.items():
        data = k + (sql if isinstance(sql, bytes) else sql.encode())
        with open(os.path.join(d, "seed-" + name), "wb") as f:
            f.write(data)
print("seeds written to", os.path.join(HERE, "corpus"))
