#!/usr/bin/env python3
"""Generates the benchmark workloads, deterministically, into a directory.

Every implementation in the cross-language runner reads these same files, so their
checksums must agree. The generator uses its own PRNG (xorshift64*), not Python's `random`,
so the bytes do not depend on the Python version; a workload is rebuilt only when its
file is missing or the generator's VERSION changes.

Files (see benches/README.md for what each implementation does with them):
  fetch_narrow.db      testdata(id INTEGER PRIMARY KEY, str TEXT, t TEXT), 10,000 rows (db-bench)
  fetch_narrow_1m.db   the same with 1,000,000 rows
  fetch_wide.db        wide: id + 3 INTEGER, 2 REAL, 3 TEXT (5-40 bytes, some non-ASCII),
                       1 BLOB (0-64 bytes); ~10% NULLs outside id; 200,000 rows (also the
                       input of fetch_work)
  exec_script.sql      1,000 INSERT statements into script_t(a INTEGER, b TEXT)
  exec_script_10k.sql  10,000 of them
  udf.db               udf(x INTEGER NOT NULL), 1,000,000 rows, x = 0, 1, ..., 999,999 in rowid
                       order (udf_scalar, udf_aggregate)
  app.db               items(id INTEGER PRIMARY KEY, name TEXT NOT NULL, qty INTEGER NOT NULL,
                       price REAL NOT NULL, tag TEXT), 100,000 rows, id = 1..100,000; tag NULL
                       when id % 7 == 0; in WAL mode (point_query, few_rows)
  big.db               big(id INTEGER PRIMARY KEY, t TEXT NOT NULL, b BLOB NOT NULL), 2,000
                       rows of a ~200 KB TEXT (some non-ASCII) and a 200,000-byte BLOB; in WAL
                       mode (large_values)
  blob.db              big_blob(id INTEGER PRIMARY KEY, b BLOB NOT NULL), one row (id 1) of a
                       64 MiB BLOB (blob_read); small_blobs(id INTEGER PRIMARY KEY, b BLOB NOT
                       NULL), 100,000 rows, id = 1..100,000, BLOBs of 64-1,024 bytes (blob_many)
  backup.db            bk(id INTEGER PRIMARY KEY, n INTEGER NOT NULL, b BLOB NOT NULL), 262,144
                       rows of a 900-1,000-byte BLOB, n below 2^31: four rows a 4 KiB page,
                       a 256 MiB file (backup)
"""

import os
import sqlite3
import sys

VERSION = "1"
MASK = (1 << 64) - 1

SIZES = {
    "fetch_narrow": 10_000,
    "fetch_narrow_1m": 1_000_000,
    "fetch_wide": 200_000,
    "exec_script": 1_000,
    "exec_script_10k": 10_000,
    "udf": 1_000_000,
    "app": 100_000,
    "big": 2_000,
    "small_blobs": 100_000,
    "backup": 262_144,
}

BIG_VALUE = 200_000  # bytes of each large_values BLOB, and at most that many of each TEXT
BLOB_READ_SIZE = 64 << 20  # bytes of blob_read's one BLOB

WORDS = ["alpha", "beta", "gamma", "delta", "café", "naïve", "grüße", "żółw", "日本語", "ελληνικά", "x", "🙂ok"]


class Rng:
    """xorshift64*: small, fast enough, and identical everywhere."""

    def __init__(self, seed):
        self.s = seed & MASK or 1

    def next(self):
        s = self.s
        s ^= s >> 12
        s ^= (s << 25) & MASK
        s ^= s >> 27
        self.s = s
        return (s * 0x2545F4914F6CDD1D) & MASK

    def below(self, n):
        return self.next() % n


def text(rng, lo, hi):
    """UTF-8 text of lo..hi bytes built from WORDS (some non-ASCII)."""
    want = lo + rng.below(hi - lo + 1)
    out = b""
    while True:
        w = WORDS[rng.below(len(WORDS))].encode()
        if len(out) + len(w) + 1 > want:
            break
        out += w + b" "
    out += b"z" * (want - len(out))
    return out.decode()


def narrow(path, n):
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE testdata(id INTEGER PRIMARY KEY, str TEXT, t TEXT)")
    rng = Rng(1)
    db.executemany(
        "INSERT INTO testdata VALUES (?, ?, ?)",
        ((i, "row %d %s" % (i, WORDS[rng.below(len(WORDS))]), "t%d" % (i * 7 % 1000)) for i in range(1, n + 1)),
    )
    db.commit()
    db.close()


def wide(path, n):
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE wide(id INTEGER PRIMARY KEY, i1 INTEGER, i2 INTEGER, i3 INTEGER,"
        " r1 REAL, r2 REAL, t1 TEXT, t2 TEXT, t3 TEXT, b BLOB)"
    )
    rng = Rng(2)

    def maybe(v):
        return None if rng.below(10) == 0 else v

    def row(i):
        return (
            i,
            maybe(rng.below(1000)),
            maybe(rng.below(1 << 40) - (1 << 39)),
            maybe(rng.below(1 << 62)),
            maybe((rng.below(2_000_000_000) - 1_000_000_000) / 1024.0),
            maybe(rng.below(1_000_000) / 7.0),
            maybe(text(rng, 5, 40)),
            maybe(text(rng, 5, 40)),
            maybe(text(rng, 5, 40)),
            maybe(bytes(rng.below(256) for _ in range(rng.below(65)))),
        )

    db.executemany("INSERT INTO wide VALUES (?,?,?,?,?,?,?,?,?,?)", (row(i) for i in range(1, n + 1)))
    db.commit()
    db.close()


def script(path, n):
    with open(path, "w", encoding="utf-8") as f:
        for k in range(1, n + 1):
            f.write("INSERT INTO script_t(a, b) VALUES (%d, 'statement %d');\n" % (k, k))


def udf(path, n):
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE udf(x INTEGER NOT NULL)")
    db.execute("WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c WHERE x < ?)"
               " INSERT INTO udf(x) SELECT x FROM c", (n - 1,))
    db.commit()
    db.close()


def app(path, n):
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT NOT NULL, qty INTEGER NOT NULL,"
               " price REAL NOT NULL, tag TEXT)")
    rng = Rng(3)

    def row(i):
        return (
            i,
            text(rng, 8, 24),
            rng.below(1000),
            rng.below(400_000) / 4.0,  # exact in binary: the x1000 truncation agrees everywhere
            None if i % 7 == 0 else text(rng, 3, 12),
        )

    db.executemany("INSERT INTO items VALUES (?,?,?,?,?)", (row(i) for i in range(1, n + 1)))
    db.commit()
    db.close()


def big(path, n):
    """Values cut from two 1 MiB pools, at row-dependent offsets, so that every row differs
    without drawing 800 MB from the PRNG."""
    rng = Rng(4)
    blob_pool = bytes(rng.below(256) for _ in range(1 << 20))
    text_pool = text(rng, 1 << 20, 1 << 20).encode()
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE big(id INTEGER PRIMARY KEY, t TEXT NOT NULL, b BLOB NOT NULL)")

    def row(i):
        o = rng.below(len(blob_pool) - BIG_VALUE)
        t = rng.below(len(text_pool) - BIG_VALUE)
        # start and end the TEXT on character boundaries (no UTF-8 continuation byte)
        end = t + BIG_VALUE
        while text_pool[t] & 0xC0 == 0x80:
            t += 1
        while text_pool[end] & 0xC0 == 0x80:
            end -= 1
        return (i, text_pool[t:end].decode(), blob_pool[o:o + BIG_VALUE])

    db.executemany("INSERT INTO big VALUES (?,?,?)", (row(i) for i in range(1, n + 1)))
    db.commit()
    db.close()


def pool(rng, n=1 << 20):
    """n bytes drawn from the PRNG: the source every larger value is cut from."""
    return bytes(rng.below(256) for _ in range(n))


def blobs(path, n):
    """blob_read's 64 MiB BLOB (64 rotations of a 1 MiB pool, each at its own offset) and
    blob_many's n small BLOBs (64-1,024 bytes, cut from the pool at row-dependent offsets)."""
    rng = Rng(5)
    p = pool(rng)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE big_blob(id INTEGER PRIMARY KEY, b BLOB NOT NULL)")
    db.execute("CREATE TABLE small_blobs(id INTEGER PRIMARY KEY, b BLOB NOT NULL)")
    parts = []
    for _ in range(BLOB_READ_SIZE // len(p)):
        o = rng.below(len(p))
        parts.append(p[o:] + p[:o])
    db.execute("INSERT INTO big_blob VALUES (1, ?)", (b"".join(parts),))
    del parts

    def row(i):
        k = 64 + rng.below(1024 - 64 + 1)
        o = rng.below(len(p) - k)
        return (i, p[o:o + k])

    db.executemany("INSERT INTO small_blobs VALUES (?, ?)", (row(i) for i in range(1, n + 1)))
    db.commit()
    db.close()


def backup_db(path, n):
    """backup's source: n rows of (id, n below 2^31, a 900-1,000-byte BLOB cut from a pool),
    inserted in rowid order, so that each 4 KiB leaf page holds four rows: 256 MiB for
    262,144 rows."""
    rng = Rng(6)
    p = pool(rng)
    db = sqlite3.connect(path)
    db.execute("PRAGMA page_size=4096")
    db.execute("CREATE TABLE bk(id INTEGER PRIMARY KEY, n INTEGER NOT NULL, b BLOB NOT NULL)")

    def row(i):
        k = 900 + rng.below(101)
        o = rng.below(len(p) - k)
        return (i, rng.below(1 << 31), p[o:o + k])

    db.executemany("INSERT INTO bk VALUES (?, ?, ?)", (row(i) for i in range(1, n + 1)))
    db.commit()
    db.close()


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "build/workloads"
    os.makedirs(out, exist_ok=True)
    stamp = os.path.join(out, "VERSION")
    if not os.path.exists(stamp) or open(stamp).read().strip() != VERSION:
        for name in os.listdir(out):
            os.remove(os.path.join(out, name))
    makers = {
        "fetch_narrow.db": lambda p: narrow(p, SIZES["fetch_narrow"]),
        "fetch_narrow_1m.db": lambda p: narrow(p, SIZES["fetch_narrow_1m"]),
        "fetch_wide.db": lambda p: wide(p, SIZES["fetch_wide"]),
        "exec_script.sql": lambda p: script(p, SIZES["exec_script"]),
        "exec_script_10k.sql": lambda p: script(p, SIZES["exec_script_10k"]),
        "udf.db": lambda p: udf(p, SIZES["udf"]),
        "app.db": lambda p: app(p, SIZES["app"]),
        "big.db": lambda p: big(p, SIZES["big"]),
        "blob.db": lambda p: blobs(p, SIZES["small_blobs"]),
        "backup.db": lambda p: backup_db(p, SIZES["backup"]),
    }
    for name, make in makers.items():
        path = os.path.join(out, name)
        if not os.path.exists(path):
            tmp = path + ".tmp"
            if os.path.exists(tmp):
                os.remove(tmp)
            make(tmp)
            os.replace(tmp, path)
    with open(stamp, "w") as f:
        f.write(VERSION + "\n")
    print(out)


if __name__ == "__main__":
    main()
