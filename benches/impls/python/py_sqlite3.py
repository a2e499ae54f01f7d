#!/usr/bin/env python3
"""py-sqlite3: Python's standard sqlite3 module, the familiar reference row of the runner.

Follows the implementation protocol in benches/README.md:
  py_sqlite3.py --impl py-sqlite3 --workload W --input PATH_OR_COUNT --reps N --warmup W
"""

import argparse
import os
import sqlite3
import struct
import sys
import time


def clock():
    """The start of a timed part: the wall clock and the process's CPU time (user + sys, all
    threads)."""
    return time.perf_counter_ns(), time.process_time_ns()


def since(t0):
    """(wall ns, CPU ns) since clock() returned t0: each workload returns it as its time."""
    return time.perf_counter_ns() - t0[0], time.process_time_ns() - t0[1]


def fetch_narrow(con):
    t0 = clock()
    total = count = 0
    for (i,) in con.execute("SELECT id FROM testdata"):
        total += i
        count += 1
    return since(t0), count, total


def fetch_wide(con):
    t0 = clock()
    total = count = 0
    for row in con.execute("SELECT id, i1, i2, i3, r1, r2, t1, t2, t3, b FROM wide"):
        for v in row:
            if v is None:
                total += 1
            elif type(v) is int:
                total += v
            elif type(v) is float:
                total += int(v * 1000.0)
            elif type(v) is str:
                total += len(v)
            else:
                total += len(v)
        count += 1
    ns = since(t0)
    return ns, count, wrap(total)


FNV_OFFSET = 14695981039346656037
FNV_PRIME = 1099511628211
MASK64 = (1 << 64) - 1


def fnv_bytes(h, data):
    """FNV-1a over bytes (every language's fetch_work helper, benches/README.md)."""
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & MASK64
    return h


def fnv_cell(h, v):
    """One cell: its SQLite type code, then its bytes (INTEGER and FLOAT 8 bytes little-endian,
    TEXT its UTF-8 bytes, BLOB its bytes, NULL nothing). TEXT comes as a memoryview of the
    bytes SQLite returned (the connection's text_factory), BLOB as bytes, so that the two are
    told apart without decoding."""
    if v is None:
        return ((h ^ 5) * FNV_PRIME) & MASK64
    t = type(v)
    if t is int:
        return fnv_bytes(((h ^ 1) * FNV_PRIME) & MASK64, (v & MASK64).to_bytes(8, "little"))
    if t is float:
        return fnv_bytes(((h ^ 2) * FNV_PRIME) & MASK64, struct.pack("<d", v))
    if t is memoryview:
        return fnv_bytes(((h ^ 3) * FNV_PRIME) & MASK64, v)
    return fnv_bytes(((h ^ 4) * FNV_PRIME) & MASK64, v)


def fetch_work(con):
    """fetch_wide's query, every cell folded into one FNV-1a hash; con's text_factory is
    memoryview (TEXT read as its bytes, not decoded)."""
    t0 = clock()
    h, count = FNV_OFFSET, 0
    for row in con.execute("SELECT id, i1, i2, i3, r1, r2, t1, t2, t3, b FROM wide"):
        for v in row:
            h = fnv_cell(h, v)
        count += 1
    ns = since(t0)
    return ns, count, wrap(h)


def wrap(x):
    """Wrapping int64, like the other languages' sums."""
    x &= (1 << 64) - 1
    return x - (1 << 64) if x >= 1 << 63 else x


def exec_script(script):
    con = sqlite3.connect(":memory:", isolation_level=None)
    con.execute("CREATE TABLE script_t(a INTEGER, b TEXT)")
    t0 = clock()
    con.executescript(script)
    ns = since(t0)
    count, total = con.execute("SELECT count(*), sum(a) FROM script_t").fetchone()
    con.close()
    return ns, count, total


def bulk_insert(rows):
    con = sqlite3.connect(":memory:", isolation_level=None)
    con.execute("CREATE TABLE bulk(a INTEGER, b REAL, c TEXT)")
    t0 = clock()
    con.execute("BEGIN")
    con.executemany("INSERT INTO bulk VALUES (?, ?, ?)", rows)
    con.execute("COMMIT")
    ns = since(t0)
    count, total = con.execute("SELECT count(*), sum(a) + sum(length(c)) FROM bulk").fetchone()
    con.close()
    return ns, count, total


class Udf:
    """f and sumsq, registered on con, counting their calls / rows in this object."""

    def __init__(self, con):
        self.calls = self.rows = 0
        udf = self

        def f(x):
            udf.calls += 1
            return x * 2 + 1

        class SumSq:
            def __init__(self):
                self.total = 0

            def step(self, x):
                udf.rows += 1
                self.total += x * x

            def finalize(self):
                return wrap(self.total)

        con.create_function("f", 1, f, deterministic=True)
        con.create_aggregate("sumsq", 1, SumSq)
        self.con = con

    def scalar(self):
        self.calls = 0
        t0 = clock()
        (total,) = self.con.execute("SELECT sum(f(x)) FROM udf").fetchone()
        return since(t0), self.calls, total

    def aggregate(self):
        self.rows = 0
        t0 = clock()
        (total,) = self.con.execute("SELECT sumsq(x) FROM udf").fetchone()
        return since(t0), self.rows, total


# ---- issue 15: point_query, few_rows, prepare_churn, small_tx, large_values ----

POINT_SQL = "SELECT id, name, qty, price, tag FROM items WHERE id = ?"
FEW_ROWS_SQL = "SELECT id, name, qty, price, tag FROM items WHERE id >= ? ORDER BY id LIMIT 10"
CHURN_INSERT_SQL = "INSERT INTO churn(a, b, c) VALUES (?, ?, ?)"
CHURN_CHECK_SQL = "SELECT count(*), sum(a) + sum(length(c)) FROM churn"


def item_row(row):
    """The cell rule over an items row: (int, str, int, float, str or None)."""
    i, name, qty, price, tag = row
    return i + len(name) + qty + int(price * 1000.0) + (1 if tag is None else len(tag))


def point_query(con):
    """The statement stays prepared in the connection's statement cache (same SQL text)."""
    t0 = clock()
    total = 0
    for i in range(100_000):
        row = con.execute(POINT_SQL, ((i * 7919) % 100_000 + 1,)).fetchone()
        total += item_row(row)
    return since(t0), 100_000, wrap(total)


def few_rows(con):
    t0 = clock()
    total = 0
    for i in range(20_000):
        for row in con.execute(FEW_ROWS_SQL, ((i * 7919) % 99_991 + 1,)):
            total += item_row(row)
    return since(t0), 20_000, wrap(total)


def churn_path():
    return os.path.join(os.environ.get("TMPDIR") or "/tmp", "sqlbatch-bench-%d.db" % os.getpid())


def remove_churn(path):
    for suffix in ("", "-wal", "-shm"):
        try:
            os.remove(path + suffix)
        except FileNotFoundError:
            pass


def churn_open(path, **kw):
    remove_churn(path)
    con = sqlite3.connect(path, isolation_level=None, **kw)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    con.execute("CREATE TABLE churn(a INTEGER, b REAL, c TEXT)")
    return con


def prepare_churn(path, n):
    """cached_statements=0: Python's statement cache would otherwise keep the INSERT, and
    con.execute has no way to ask for a fresh prepare; with no cache, each execute prepares
    and finalizes its statement."""
    con = churn_open(path, cached_statements=0)
    t0 = clock()
    con.execute("BEGIN")
    for i in range(n):
        con.execute(CHURN_INSERT_SQL, (i, i * 0.25, "row-%d" % i))
    con.execute("COMMIT")
    ns = since(t0)
    count, total = con.execute(CHURN_CHECK_SQL).fetchone()
    con.close()
    return ns, count, total


def small_tx(path, n):
    """isolation_level=None (autocommit, explicit BEGIN/COMMIT); the statement cache keeps
    the INSERT prepared (prepared once, untimed, by a first execute inside a rolled-back
    transaction)."""
    con = churn_open(path)
    con.execute("BEGIN")
    con.execute(CHURN_INSERT_SQL, (0, 0.0, ""))
    con.execute("ROLLBACK")
    t0 = clock()
    for i in range(n):
        con.execute("BEGIN")
        con.execute(CHURN_INSERT_SQL, (i, i * 0.25, "row-%d" % i))
        con.execute("COMMIT")
    ns = since(t0)
    count, total = con.execute(CHURN_CHECK_SQL).fetchone()
    con.close()
    return ns, count, total


def large_values(con):
    t0 = clock()
    total = count = 0
    for i, t, b in con.execute("SELECT id, t, b FROM big ORDER BY id"):
        total += i + len(t) + len(b) + sum(b[::64])
        count += 1
    return since(t0), count, wrap(total)


# ---- issue 11: blob_read, blob_many, backup ----

BLOB_RANGE = 65536
BLOB_MANY = 100_000
BACKUP_CHECK_SQL = ("SELECT (SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()), "
                    "count(*) + sum(n) + sum(length(b)) FROM bk")


def blob_sum(b):
    """The BLOB rule: the length plus the bytes at offsets 0, 64, 128, ..."""
    return len(b) + sum(b[::64])


def blob_read(con):
    """Connection.blobopen (Python 3.11), read() in 64 KiB ranges (each a new bytes)."""
    t0 = clock()
    total = count = 0
    with con.blobopen("big_blob", "b", 1, readonly=True) as blob:
        while chunk := blob.read(BLOB_RANGE):
            total += blob_sum(chunk)
            count += len(chunk)
    return since(t0), count, wrap(total)


def blob_many(con):
    """Python's Blob has no reopen: one blobopen (sqlite3_blob_open) per value."""
    t0 = clock()
    total = 0
    for i in range(BLOB_MANY):
        with con.blobopen("small_blobs", "b", (i * 7919) % 100_000 + 1, readonly=True) as blob:
            total += blob_sum(blob.read())
    return since(t0), BLOB_MANY, wrap(total)


def backup_path():
    return os.path.join(os.environ.get("TMPDIR") or "/tmp", "sqlbatch-bench-backup-%d.db" % os.getpid())


def remove_backup(path):
    for suffix in ("", "-journal", "-wal", "-shm"):
        try:
            os.remove(path + suffix)
        except FileNotFoundError:
            pass


def backup(con, path):
    """Connection.backup into a connection to a new file (synchronous=OFF), all pages in
    one step (pages=-1, the default)."""
    remove_backup(path)
    t0 = clock()
    dest = sqlite3.connect(path, isolation_level=None)
    dest.execute("PRAGMA synchronous=OFF")
    con.backup(dest)
    dest.close()
    ns = since(t0)
    copy = sqlite3.connect(path)
    count, total = copy.execute(BACKUP_CHECK_SQL).fetchone()
    copy.close()
    remove_backup(path)
    return ns, count, total


# ---- in_list: one placeholder per id, as Python's sqlite3 users write it ----

IN_LIST_SQL = "SELECT count(*), coalesce(sum(qty), 0) FROM items WHERE id IN (%s)" % ", ".join("?" * 100)


def in_list(con):
    t0 = clock()
    total = 0
    for q in range(20_000):
        ids = [((q * 100 + j) * 7919) % 100_000 + 1 for j in range(100)]
        n, s = con.execute(IN_LIST_SQL, ids).fetchone()
        total += n + s
    return since(t0), 20_000, wrap(total)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--impl", required=True)
    p.add_argument("--workload", required=True)
    p.add_argument("--input", required=True)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--warmup", type=int, default=1)
    a = p.parse_args()
    if a.impl != "py-sqlite3":
        sys.exit("py_sqlite3.py: unknown impl " + a.impl)
    w = a.workload
    if w.startswith("fetch_narrow") or w == "fetch_wide":
        con = sqlite3.connect(a.input, isolation_level=None)
        run = (lambda: fetch_narrow(con)) if w.startswith("fetch_narrow") else (lambda: fetch_wide(con))
    elif w == "fetch_work":
        con = sqlite3.connect(a.input, isolation_level=None)
        con.text_factory = memoryview
        run = lambda: fetch_work(con)  # noqa: E731
    elif w.startswith("exec_script"):
        with open(a.input, encoding="utf-8") as f:
            script = f.read()
        run = lambda: exec_script(script)  # noqa: E731
    elif w in ("udf_scalar", "udf_aggregate"):
        udf = Udf(sqlite3.connect(a.input, isolation_level=None))
        run = udf.scalar if w == "udf_scalar" else udf.aggregate
    elif w in ("point_query", "few_rows", "large_values", "in_list"):
        con = sqlite3.connect(a.input, isolation_level=None)
        con.execute("PRAGMA synchronous=NORMAL")
        run = {"point_query": point_query, "few_rows": few_rows, "large_values": large_values, "in_list": in_list}[w]
        run = (lambda f: lambda: f(con))(run)
    elif w in ("prepare_churn", "small_tx"):
        path, n = churn_path(), int(a.input)
        f = prepare_churn if w == "prepare_churn" else small_tx
        run = lambda: f(path, n)  # noqa: E731
        import atexit
        atexit.register(remove_churn, path)
    elif w in ("blob_read", "blob_many"):
        con = sqlite3.connect(a.input, isolation_level=None)
        run = (lambda f: lambda: f(con))(blob_read if w == "blob_read" else blob_many)
    elif w == "backup":
        con, path = sqlite3.connect(a.input, isolation_level=None), backup_path()
        run = lambda: backup(con, path)  # noqa: E731
        import atexit
        atexit.register(remove_backup, path)
    elif w == "bulk_insert":
        rows = [(i, i * 0.25, "row-%d" % i) for i in range(int(a.input))]
        run = lambda: bulk_insert(rows)  # noqa: E731
    else:
        print("py_sqlite3.py: workload %s not supported" % w, file=sys.stderr)
        sys.exit(3)
    for i in range(a.warmup + a.reps):
        (ns, cpu_ns), count, checksum = run()
        if i >= a.warmup:
            print(ns, count, checksum, cpu_ns, flush=True)


if __name__ == "__main__":
    main()
