#!/usr/bin/env python3
"""Crash durability: writers killed at random moments, and power losses played after a kill.

A child process (child.c through one write path of the C ABI, or gochild through the Go
driver) commits numbered transactions into a database and writes "ack N" on its stdout after
each commit the library acknowledged. This parent kills it with SIGKILL at a random moment,
then checks a copy of the database with Python's own sqlite3 module (another SQLite build):
it opens (recovering a hot journal or the WAL), passes PRAGMA integrity_check, and holds
exactly the rows of transactions 1..N for some N (every row of every transaction checked
byte for byte, see Expected), where N obeys the rule of the case:

  process kill (every journal mode and synchronous level)
      N >= every transaction acknowledged: nothing acknowledged is lost
      (a killed process leaves its writes in the OS, which keeps them)
  power loss, synchronous=FULL (WAL and DELETE), and synchronous=NORMAL in DELETE mode on a
  file system that grows a file only with its data (see power_loss)
      N >= every transaction acknowledged
  power loss, synchronous=NORMAL in WAL mode
      N >= every transaction acknowledged before the last sync of the database's files
      (the WAL is synced at checkpoints, not at commits)
  and in every case N <= one past the last acknowledged (only the transaction in flight may
  be there unacknowledged), and N never goes back from what the last check found.

A power loss runs the child under powerloss.so (LD_PRELOAD), which keeps what the last fsync
of each file made durable and every write since; after the kill, each file becomes its durable
state plus a random part of the writes since (each 512-byte piece written, lost, or torn), and
a file that grew gets garbage where nothing was written (see power_loss). Half of the power
losses strike at a chosen write or sync (PL_CRASH_AT), the others at a random time.

The next child opens the very files the check copied, so recovery is the library's own; the
"ready LAST TOTAL" line it prints must agree with what the check found. Every configuration
(write path x journal mode x synchronous level) keeps its own database for --rotate kills.

  run.py --build-dir DIR --kills N [--power-losses N] [--seed S] [--keep-failures DIR]
"""

import argparse
import os
import random
import select
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys
import tempfile
import time

MASK = (1 << 64) - 1
KEEP = 8  # transaction N deletes the rows k >= 2 of transaction N - KEEP (as the children do)


def mix(x):
    """splitmix64's finalizer, as child.c's mix."""
    x = (x + 0x9E3779B97F4A7C15) & MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def tx_rows(n):
    h = mix(n)
    return 200 if (h >> 8) % 16 == 0 else 1 + h % 24


def row(n, k):
    """The row (tx, k, h, v) that transaction n inserts as its k-th."""
    seed = mix(((n << 16) | k) & MASK)
    length = 3000 + (seed >> 20) % 6001 if (seed >> 40) % 32 == 0 else (seed >> 20) % 97
    v = (seed.to_bytes(8, "little") * (length // 8 + 1))[:length]
    h = seed - (1 << 64) if seed >= 1 << 63 else seed
    return (n, k, h, v)


class Expected:
    """What a database holding transactions 1..N contains, built once per N and kept."""

    def __init__(self):
        self.kept = []  # rows k < 2 of transactions 1.., which no transaction deletes
        self.totals = [0]

    def extend(self, n):
        while len(self.totals) <= n:
            m = len(self.totals)
            self.totals.append(self.totals[-1] + tx_rows(m))
            self.kept.extend(row(m, k) for k in range(min(2, tx_rows(m))))

    def rows(self, n):
        self.extend(n)
        fixed = [r for r in self.kept if r[0] <= n - KEEP] if n > KEEP else []
        recent = [row(m, k) for m in range(max(1, n - KEEP + 1), n + 1) for k in range(tx_rows(m))]
        return fixed + recent

    def total(self, n):
        self.extend(n)
        return self.totals[n]


EXPECTED = Expected()

# ---------------------------------------------------------------------------------------------
# The power loss


PIECE = 512
HEAD = struct.Struct("<IBQI")  # magic, 'W' or 'T', offset or size, length (powerloss.c's record)
MAGIC = 0x31574C50


def read_records(path):
    """The records of a .pl-pending file; a record cut short by the kill is dropped."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return []
    out, at = [], 0
    while at + HEAD.size <= len(data):
        magic, kind, off, length = HEAD.unpack_from(data, at)
        if magic != MAGIC:
            raise RuntimeError("%s: bad record at %d" % (path, at))
        body = data[at + HEAD.size:at + HEAD.size + length]
        if len(body) < length:
            break
        out.append((chr(kind), off, body))
        at += HEAD.size + length
    return out


def power_loss(db, rng, stats, safe_append):
    """Replaces each of db's files by what a power loss could leave of it, from the files
    powerloss.so kept, and removes the shared-memory index (a reboot's fresh start).

    A file that grew may hold garbage where nothing was written yet (an older file system's
    behaviour, which SQLite allows for); with safe_append it ends instead where the first
    such gap would begin (a file system that grows a file only with its data, as ext4's
    default data=ordered does)."""
    for suffix in ("", "-journal", "-wal"):
        path = db + suffix
        durable, pending = path + ".pl-durable", path + ".pl-pending"
        if os.path.exists(path):
            with open(durable if os.path.exists(durable) else path, "rb") as f:
                content = bytearray(f.read())
            gap = None  # where the first gap filled with garbage begins
            for kind, off, body in read_records(pending):
                stats["records"] += 1
                if kind == "T":
                    if rng.random() < 0.5:
                        del content[off:]
                        content.extend(bytes(off - len(content)))
                        stats["pieces written"] += 1
                    else:
                        stats["pieces lost"] += 1
                    continue
                at = 0
                while at < len(body):
                    end = min(len(body), (off + at) // PIECE * PIECE + PIECE - off)
                    piece = body[at:end]
                    r = rng.random()
                    if r < 0.45:
                        outcome = "written"
                    elif r < 0.55:
                        outcome = "torn"  # a sector written from its start, partly
                        piece = piece[:rng.randrange(1, len(piece) + 1)]
                    else:
                        outcome = "lost"
                        piece = b""
                    stats["pieces " + outcome] += 1
                    if piece:
                        start = off + at
                        if start > len(content):  # the file grew: garbage where nothing was written
                            gap = len(content) if gap is None else min(gap, len(content))
                            content.extend(rng.randbytes(start - len(content)))
                        content[start:start + len(piece)] = piece
                    at = end
            if safe_append and gap is not None:
                stats["files ended at a gap"] += 1
                del content[gap:]
            with open(path, "wb") as f:
                f.write(content)
        for side in (durable, pending, path + ".pl-tmp"):
            if os.path.exists(side):
                os.remove(side)
    if os.path.exists(db + "-shm"):
        os.remove(db + "-shm")


# ---------------------------------------------------------------------------------------------
# The check


class CheckFailed(Exception):
    pass


def check_database(db, scratch):
    """Copies db (and its journal or WAL) into scratch and checks the copy with Python's
    sqlite3: integrity, then every row against transactions 1..N. Returns N."""
    if os.path.exists(scratch):
        shutil.rmtree(scratch)
    os.makedirs(scratch)
    copy = os.path.join(scratch, "check.db")
    for suffix in ("", "-journal", "-wal"):
        if os.path.exists(db + suffix):
            shutil.copyfile(db + suffix, copy + suffix)
    try:
        return check_copy(copy)
    except sqlite3.Error as e:
        raise CheckFailed("sqlite3: %s" % e)


def check_copy(copy):
    con = sqlite3.connect(copy, isolation_level=None)
    try:
        integrity = con.execute("PRAGMA integrity_check").fetchall()
        if integrity != [("ok",)]:
            raise CheckFailed("integrity_check: %r" % integrity[:5])
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
        if "meta" not in tables:
            if tables - {"t"}:
                raise CheckFailed("unexpected tables %r" % sorted(tables))
            if "t" in tables and con.execute("SELECT count(*) FROM t").fetchone()[0]:
                raise CheckFailed("rows without meta")
            return 0
        meta = con.execute("SELECT id, last, total FROM meta").fetchall()
        if len(meta) != 1 or meta[0][0] != 1:
            raise CheckFailed("meta is %r" % meta)
        n, total = meta[0][1], meta[0][2]
        if total != EXPECTED.total(n):
            raise CheckFailed("meta.total %d, want %d for transactions 1..%d" % (total, EXPECTED.total(n), n))
        got = con.execute("SELECT tx, k, h, v FROM t ORDER BY tx, k").fetchall()
        want = EXPECTED.rows(n)
        if got != want:
            gs, ws = set(got), set(want)
            missing, extra = sorted(ws - gs)[:3], sorted(gs - ws)[:3]
            raise CheckFailed("transactions 1..%d: %d rows, want %d; missing %r; unexpected %r" % (
                n, len(got), len(want), [r[:2] for r in missing], [r[:2] for r in extra]))
        return n
    finally:
        con.close()


# ---------------------------------------------------------------------------------------------
# The runs


class Config:
    def __init__(self, how, journal, sync, work):
        self.how, self.journal, self.sync = how, journal, sync
        self.name = "%s/%s/%s" % (how, journal, sync)
        self.dir = os.path.join(work, "%s-%s-%s" % (how, journal, sync))
        self.generation = 0
        self.kills = self.power_losses = self.acks = 0
        self.fresh()

    def fresh(self):
        """A new database for this configuration."""
        self.generation += 1
        self.db = os.path.join(self.dir, "g%d.db" % self.generation)
        self.n = 0  # transactions 1..n are in the database (as last checked)
        self.on_db = 0
        os.makedirs(self.dir, exist_ok=True)
        for name in os.listdir(self.dir):
            os.remove(os.path.join(self.dir, name))


def run_child(cfg, args, rng, power):
    """Starts the child on cfg's database, kills it, and returns what it said: the ready line's
    fields (or None), the acknowledged transactions, the last one acknowledged before the
    last sync note (-1 if none), and the I/O the shim was told to crash at (or None)."""
    exe = os.path.join(args.build_dir, "gochild" if cfg.how == "go" else "child")
    env = dict(os.environ)
    crash_at = None
    if power:
        env.update(LD_PRELOAD=os.path.join(args.build_dir, "powerloss.so"), PL_DB=os.path.abspath(cfg.db),
                   PL_NOTES="1")
        if rng.random() < 0.5:
            crash_at = rng.randrange(1, 600)
            env["PL_CRASH_AT"] = str(crash_at)
    proc = subprocess.Popen([exe, os.path.abspath(cfg.db), cfg.how, cfg.journal, cfg.sync],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    start = time.monotonic()
    # A quarter of the kills count from the start (so that some land while the child opens
    # and recovers the database), the others from its ready line.
    early = rng.random() < 0.25
    delay = rng.uniform(0, 0.03 if early else args.max_delay)
    deadline = start + delay if early else None
    fd = proc.stdout.fileno()
    try:
        return read_child(proc, fd, start, delay, deadline, crash_at)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def read_child(proc, fd, start, delay, deadline, crash_at):
    ready, acks, synced_acks, buf, eof = None, [], -1, b"", False
    while not eof:
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            break
        if deadline is None and now - start > 20:
            raise CheckFailed("no ready line in 20 s")
        timeout = 0.5 if deadline is None else deadline - now
        if not select.select([fd], [], [], timeout)[0]:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            eof = True
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            words = line.decode().split() or [""]
            if words[0] == "ready":
                ready = words[1:]
                if deadline is None:
                    deadline = time.monotonic() + delay
            elif words[0] == "ack":
                acks.append(int(words[1]))
            elif words[0] == "sync":
                synced_acks = acks[-1] if acks else -1
            else:
                raise CheckFailed("child said %r" % line)
    proc.send_signal(signal.SIGKILL)
    rest, err = proc.communicate()
    for line in (buf + rest).decode().splitlines():
        words = line.split()
        if words and words[0] == "ack":
            acks.append(int(words[1]))
        elif words and words[0] == "sync":
            synced_acks = acks[-1] if acks else -1
        elif words and words[0] == "ready":
            ready = words[1:]
    if proc.returncode != -signal.SIGKILL:
        raise CheckFailed("the child exited with %s before the kill: %s" % (proc.returncode, err.decode().strip()))
    return ready, acks, synced_acks, crash_at


def one_kill(cfg, args, rng, power, stats):
    before = cfg.n
    try:
        ready, acks, synced_acks, crash_at = run_child(cfg, args, rng, power)
    except CheckFailed as e:
        raise CheckFailed("%s %s (db %d, kill %d on it): %s" % (
            "power loss" if power else "kill", cfg.name, cfg.generation, cfg.on_db, e))
    where = "%s %s (db %d, kill %d on it%s)" % (
        "power loss" if power else "kill", cfg.name, cfg.generation, cfg.on_db,
        ", at I/O %d" % crash_at if crash_at else "")
    if ready is not None:
        want = [str(before), str(EXPECTED.total(before)), cfg.journal, cfg.sync]
        if ready != want:
            raise CheckFailed("%s: the child opened the database as %r, want %r" % (where, ready, want))
    if acks and acks != list(range(before + 1, before + 1 + len(acks))):
        raise CheckFailed("%s: acknowledgements out of order: %r" % (where, acks[:10]))
    last_ack = acks[-1] if acks else before
    if power:
        # NORMAL in DELETE mode syncs the journal once, after its header: SQLite warns that a
        # power loss can then corrupt the database on older file systems, and it does when a
        # journal that grew holds garbage in the tail of a record, which its checksum (every
        # 200th byte) does not cover (docs/durability.md). That case is played on a file system
        # that grows files only with their data.
        power_loss(cfg.db, rng, stats,
                   safe_append=cfg.journal == "delete" and cfg.sync == "normal" and not args.older_fs)
        must = synced_acks if (cfg.journal == "wal" and cfg.sync == "normal") else last_ack
    else:
        must = last_ack
    must = max(must, before)
    may = last_ack + 1 if ready is not None else before
    try:
        n = check_database(cfg.db, os.path.join(args.work, "check"))
    except CheckFailed as e:
        raise CheckFailed("%s: %s" % (where, str(e)[:600]))
    if n < must:
        raise CheckFailed("%s: the database holds transactions 1..%d; %d were acknowledged%s" % (
            where, n, last_ack, " (%d before the last sync)" % synced_acks if must != last_ack else ""))
    if n > may:
        raise CheckFailed("%s: the database holds transactions 1..%d; at most %d may be there" % (where, n, may))
    stats["acked"] += len(acks)
    stats["unacked committed"] += n - last_ack if n > last_ack else 0
    if power and n < last_ack:
        stats["acked lost to power (allowed)"] += last_ack - n
    cfg.n = n
    cfg.acks += len(acks)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", required=True, help="where child, gochild and powerloss.so are")
    ap.add_argument("--kills", type=int, default=200, help="process kills")
    ap.add_argument("--power-losses", type=int, default=64, help="power losses")
    ap.add_argument("--max-delay", type=float, default=0.06, help="longest run before a kill, seconds")
    ap.add_argument("--rotate", type=int, default=25, help="kills on one database before a fresh one")
    ap.add_argument("--paths", default="exec,many,behind,go", help="write paths (go: the Go driver)")
    ap.add_argument("--journals", default="wal,delete", help="journal modes")
    ap.add_argument("--syncs", default="full,normal", help="synchronous levels")
    ap.add_argument("--older-fs", action="store_true",
                    help="play NORMAL in DELETE mode on an older file system too (SQLite's documented risk)")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--work", default=None, help="working directory (default: a temporary one)")
    ap.add_argument("--keep-failures", default=None, help="copy the databases of failed checks here")
    ap.add_argument("--max-failures", type=int, default=10, help="stop after this many failures")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    rng = random.Random(seed)
    own_work = args.work is None
    args.work = args.work or tempfile.mkdtemp(prefix="sqlbatch-durability.")
    configs = [Config(how, journal, sync, args.work)
               for how in args.paths.split(",") for journal in args.journals.split(",")
               for sync in args.syncs.split(",")]
    print("durability: %d kills and %d power losses over %d configurations, seed %d" % (
        args.kills, args.power_losses, len(configs), seed), flush=True)
    plan = [False] * args.kills + [True] * args.power_losses
    rng.shuffle(plan)
    stats = {k: 0 for k in ("acked", "unacked committed", "acked lost to power (allowed)", "records",
                            "pieces written", "pieces torn", "pieces lost", "files ended at a gap")}
    failures = []
    start = time.monotonic()
    order = []
    for i, power in enumerate(plan):
        if not order:
            order = configs[:]
            rng.shuffle(order)
        cfg = order.pop()
        if cfg.on_db >= args.rotate:
            cfg.fresh()
        cfg.on_db += 1
        try:
            one_kill(cfg, args, rng, power, stats)
        except CheckFailed as e:
            failures.append(str(e))
            print("FAIL " + str(e), flush=True)
            if args.keep_failures:
                dest = os.path.join(args.keep_failures, "failure-%d" % len(failures))
                shutil.copytree(cfg.dir, dest, dirs_exist_ok=True)
                print("     its files: " + dest, flush=True)
            cfg.fresh()
            if len(failures) >= args.max_failures:
                break
        if power:
            cfg.power_losses += 1
        else:
            cfg.kills += 1
        if (i + 1) % 50 == 0:
            print("  %d/%d (%.0f s)" % (i + 1, len(plan), time.monotonic() - start), flush=True)
    took = time.monotonic() - start
    print("%-22s %6s %6s %8s" % ("configuration", "kills", "power", "acked"))
    for cfg in configs:
        print("%-22s %6d %6d %8d" % (cfg.name, cfg.kills, cfg.power_losses, cfg.acks))
    print("; ".join("%s %d" % kv for kv in stats.items()))
    print("durability: %d kills, %d power losses, %d transactions acknowledged, %.0f s, %d failures (seed %d)" % (
        sum(c.kills for c in configs), sum(c.power_losses for c in configs), stats["acked"], took,
        len(failures), seed), flush=True)
    if own_work and not failures:
        shutil.rmtree(args.work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
