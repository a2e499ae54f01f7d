package sqlbatch_test

import (
	"errors"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

func TestSerializeRoundTrip(t *testing.T) {
	src := memory(t)
	fillPages(t, src, 500)
	b, err := src.Serialize("")
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 100*1024 || string(b[:16]) != "SQLite format 3\x00" {
		t.Fatalf("serialized %d bytes starting %q", len(b), b[:16])
	}
	for _, flags := range []sqlbatch.DeserializeFlags{0, sqlbatch.DeserializeResizeable, sqlbatch.DeserializeReadOnly} {
		dst := memory(t)
		mustExec(t, dst, "CREATE TABLE gone(x)")
		if err := dst.Deserialize(b, "main", flags); err != nil {
			t.Fatal(err)
		}
		if digest(t, dst) != digest(t, src) {
			t.Fatalf("flags %d: contents differ", flags)
		}
		if _, err := dst.Query("SELECT * FROM gone"); err == nil {
			t.Fatal("the old table survived")
		}
		// Serializing again gives the same bytes.
		again, err := dst.Serialize("main")
		if err != nil || string(again) != string(b) {
			t.Fatalf("flags %d: serialized again: %d bytes, %v", flags, len(again), err)
		}
	}
	// The caller keeps its buffer: changing it changes nothing in the database.
	dst := memory(t)
	if err := dst.Deserialize(b, "", sqlbatch.DeserializeResizeable); err != nil {
		t.Fatal(err)
	}
	want := digest(t, src)
	clear(b)
	if digest(t, dst) != want {
		t.Fatal("the database changed with the caller's buffer")
	}
}

func TestDeserializeFlags(t *testing.T) {
	src := memory(t)
	mustExec(t, src, "CREATE TABLE t(x); INSERT INTO t VALUES (1)")
	b, err := src.Serialize("")
	if err != nil {
		t.Fatal(err)
	}
	ro := memory(t)
	if err := ro.Deserialize(b, "", sqlbatch.DeserializeReadOnly); err != nil {
		t.Fatal(err)
	}
	if got := ints(t, ro, "SELECT x FROM t"); len(got) != 1 || got[0] != 1 {
		t.Fatal(got)
	}
	if _, err := ro.ExecScript("INSERT INTO t VALUES (2)"); !errors.Is(err, sqlbatch.ErrReadOnly) {
		t.Fatalf("write into a read-only deserialized database: %v", err)
	}
	// Fixed size: a write that needs a new page fails; resizeable: it grows.
	fixed := memory(t)
	if err := fixed.Deserialize(b, "", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := fixed.ExecScript("INSERT INTO t SELECT hex(randomblob(4000)) FROM t"); !errors.Is(err, sqlbatch.ErrFull) {
		t.Fatalf("growing a fixed-size deserialized database: %v", err)
	}
	grow := memory(t)
	if err := grow.Deserialize(b, "", sqlbatch.DeserializeResizeable); err != nil {
		t.Fatal(err)
	}
	fillPages(t, grow, 1000)
	if got := ints(t, grow, "SELECT count(*) FROM big"); got[0] != 1000 {
		t.Fatal(got)
	}
	if err := grow.Deserialize(b, "", 1<<20); !errors.Is(err, sqlbatch.ErrInvalidArgument) {
		t.Fatalf("unknown flags: %v", err)
	}
	if err := grow.Deserialize(b, "nosuch", 0); !errors.Is(err, sqlbatch.ErrError) {
		t.Fatalf("unknown schema: %v", err)
	}
	if err := grow.Deserialize(b, "temp", 0); !errors.Is(err, sqlbatch.ErrError) {
		t.Fatalf("temp: %v", err)
	}
	// A running statement makes it busy.
	rows, err := grow.Query("SELECT id FROM big")
	if err != nil {
		t.Fatal(err)
	}
	rows.Next()
	if err := grow.Deserialize(b, "", 0); !errors.Is(err, sqlbatch.ErrBusy) {
		t.Fatalf("Deserialize while a statement runs: %v", err)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	// An attached schema can be the target.
	mustExec(t, grow, "ATTACH ':memory:' AS aux")
	if err := grow.Deserialize(b, "aux", sqlbatch.DeserializeResizeable); err != nil {
		t.Fatal(err)
	}
	if got := ints(t, grow, "SELECT x FROM aux.t"); len(got) != 1 || got[0] != 1 {
		t.Fatal(got)
	}
	auxb, err := grow.Serialize("aux")
	if err != nil || len(auxb) != len(b) {
		t.Fatalf("Serialize(aux): %d bytes, %v", len(auxb), err)
	}
}

func TestSerializeEdgeCases(t *testing.T) {
	c := memory(t)
	b, err := c.Serialize("")
	if err != nil {
		t.Fatalf("Serialize of an empty database: %v", err)
	}
	if len(b) != 0 {
		t.Logf("empty database serialized to %d bytes", len(b))
	}
	if _, err := c.Serialize("nosuch"); !errors.Is(err, sqlbatch.ErrError) {
		t.Fatalf("Serialize(nosuch): %v", err)
	}
	// An empty buffer is an empty database.
	if err := c.Deserialize(nil, "", sqlbatch.DeserializeResizeable); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "CREATE TABLE t(x); INSERT INTO t VALUES (5)")
	if got := ints(t, c, "SELECT x FROM t"); got[0] != 5 {
		t.Fatal(got)
	}
	closed, err := sqlbatch.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := closed.Serialize(""); !errors.Is(err, sqlbatch.ErrClosed) {
		t.Fatalf("Serialize on a closed connection: %v", err)
	}
	if err := closed.Deserialize([]byte("x"), "", 0); !errors.Is(err, sqlbatch.ErrClosed) {
		t.Fatalf("Deserialize on a closed connection: %v", err)
	}
}

// A buffer that is not a database, or a damaged one, gives errors, never a crash: random
// bytes, a truncated database, and databases with bytes changed at random.
func TestDeserializeCorruptBuffer(t *testing.T) {
	src := memory(t)
	fillPages(t, src, 300)
	mustExec(t, src, "CREATE INDEX big_s ON big(s)")
	good, err := src.Serialize("")
	if err != nil {
		t.Fatal(err)
	}
	verbose := false
	// Each buffer goes into a new connection: once a corrupt database is a connection's
	// main, SQLite cannot deserialize into it again (sqlite3_deserialize prepares an ATTACH,
	// which reads the corrupt schema, and fails with ErrCorrupt); close it instead.
	check := func(b []byte, flags sqlbatch.DeserializeFlags) (failed bool) {
		t.Helper()
		c, err := sqlbatch.Open(":memory:")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := c.Deserialize(b, "", flags); err != nil {
			if verbose {
				t.Logf("Deserialize: %v", err)
			}
			return true
		}
		for _, q := range []string{
			"SELECT count(*), sum(length(s)) FROM big",
			"SELECT s FROM big ORDER BY s DESC LIMIT 5",
			"PRAGMA integrity_check",
			"INSERT INTO big(s) VALUES ('after')",
			"DELETE FROM big WHERE id % 7 = 0",
		} {
			rows, err := c.Query(q)
			if err != nil {
				if verbose {
					t.Logf("%s: %v", q, err)
				}
				failed = true
				continue
			}
			for rows.Next() {
				if q == "PRAGMA integrity_check" && rows.Text(0) != "ok" {
					failed = true
				}
			}
			if rows.Err() != nil {
				if verbose {
					t.Logf("%s: %v", q, rows.Err())
				}
				failed = true
			}
			if err := rows.Close(); err != nil {
				t.Error(err)
			}
		}
		return failed
	}
	if check(good, sqlbatch.DeserializeResizeable) {
		t.Fatal("the good database fails")
	}
	c := memory(t)
	notDB := []byte(strings.Repeat("not a database at all ", 300))
	if err := c.Deserialize(notDB, "", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecScript("SELECT * FROM sqlite_schema"); !errors.Is(err, sqlbatch.ErrNotADB) {
		t.Fatalf("query of a buffer that is not a database: %v", err)
	}
	r := rand.New(rand.NewPCG(11, 13))
	failures := 0
	for i := range 300 {
		b := append([]byte(nil), good...)
		switch i % 3 {
		case 0: // truncated
			b = b[:r.IntN(len(b))]
		case 1: // a few bytes changed anywhere
			for range 1 + r.IntN(8) {
				b[r.IntN(len(b))] = byte(r.Uint32())
			}
		default: // a run of bytes changed in one page, past the header
			at := 100 + r.IntN(len(b)-200)
			for j := range 1 + r.IntN(64) {
				if at+j < len(b) {
					b[at+j] = byte(r.Uint32())
				}
			}
		}
		if check(b, sqlbatch.DeserializeResizeable) {
			failures++
		}
	}
	if failures < 50 {
		t.Fatalf("only %d of 300 damaged databases failed: the damage did not reach SQLite", failures)
	}
	// The connection is fine afterwards.
	verbose = true
	if check(good, sqlbatch.DeserializeResizeable) {
		t.Fatal("the good database fails after the corrupt ones")
	}
}

func TestLimits(t *testing.T) {
	c := memory(t)
	old, err := c.Limit(sqlbatch.LimitLength, -1)
	if err != nil || old <= 1000 {
		t.Fatalf("LimitLength: %d, %v", old, err)
	}
	if prev, err := c.Limit(sqlbatch.LimitLength, 1000); err != nil || prev != old {
		t.Fatalf("set: %d, %v", prev, err)
	}
	if now, err := c.Limit(sqlbatch.LimitLength, -1); err != nil || now != 1000 {
		t.Fatalf("after set: %d (error %v)", now, err)
	}
	if _, err := c.ExecScript("SELECT zeroblob(2000)"); !errors.Is(err, sqlbatch.ErrTooBig) {
		t.Fatalf("a value over the limit: %v", err)
	}
	if _, err := c.Limit(sqlbatch.LimitLength, old); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecScript("SELECT zeroblob(2000)"); err != nil {
		t.Fatal(err)
	}
	if prev, err := c.Limit(sqlbatch.LimitVariableNumber, 3); err != nil || prev < 3 {
		t.Fatal(prev, err)
	}
	if _, err := c.Prepare("SELECT ?, ?, ?, ?"); err == nil {
		t.Fatal("four parameters over a limit of 3")
	}
	if _, err := c.Limit(99, -1); !errors.Is(err, sqlbatch.ErrOutOfRange) {
		t.Fatalf("unknown limit: %v", err)
	}
	// Above the compile-time maximum: lowered to it.
	if _, err := c.Limit(sqlbatch.LimitAttached, 1000); err != nil {
		t.Fatal(err)
	}
	if now, err := c.Limit(sqlbatch.LimitAttached, -1); err != nil || now > 125 {
		t.Fatalf("LimitAttached after setting 1000: %d (error %v)", now, err)
	}
	closed, err := sqlbatch.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := closed.Limit(sqlbatch.LimitLength, -1); !errors.Is(err, sqlbatch.ErrClosed) {
		t.Fatalf("Limit on a closed connection: %v", err)
	}
}

func TestDBConfig(t *testing.T) {
	c := memory(t)
	for _, op := range []sqlbatch.DBConfigOp{sqlbatch.DBConfigDefensive, sqlbatch.DBConfigEnableFKey, sqlbatch.DBConfigTrustedSchema,
		sqlbatch.DBConfigDQSDML, sqlbatch.DBConfigDQSDDL, sqlbatch.DBConfigEnableTrigger, sqlbatch.DBConfigEnableView} {
		was, err := c.DBConfig(op)
		if err != nil {
			t.Fatalf("DBConfig(%d): %v", op, err)
		}
		if now, err := c.SetDBConfig(op, !was); err != nil || now == was {
			t.Fatalf("SetDBConfig(%d, %v): %v, %v", op, !was, now, err)
		}
		if now, err := c.DBConfig(op); err != nil || now == was {
			t.Fatalf("DBConfig(%d) did not change (error %v)", op, err)
		}
		if _, err := c.SetDBConfig(op, was); err != nil {
			t.Fatal(err)
		}
	}
	// Foreign keys through the switch.
	if _, err := c.SetDBConfig(sqlbatch.DBConfigEnableFKey, true); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "CREATE TABLE p(id INTEGER PRIMARY KEY); CREATE TABLE ch(p REFERENCES p(id))")
	if _, err := c.ExecScript("INSERT INTO ch VALUES (5)"); !errors.Is(err, sqlbatch.ErrConstraint) {
		t.Fatalf("foreign key with ENABLE_FKEY: %v", err)
	}
	// Double-quoted strings off in DML: "x" is a column name only.
	if _, err := c.SetDBConfig(sqlbatch.DBConfigDQSDML, false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecScript(`SELECT "no such column"`); !errors.Is(err, sqlbatch.ErrError) {
		t.Fatalf("double-quoted string with DQS_DML off: %v", err)
	}
	// Defensive mode refuses writable_schema.
	if _, err := c.SetDBConfig(sqlbatch.DBConfigDefensive, true); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "PRAGMA writable_schema = ON")
	if _, err := c.ExecScript("UPDATE sqlite_schema SET sql = sql"); err == nil {
		t.Fatal("defensive mode let the schema be written")
	}
	// Reset database, as SQLite documents it.
	if _, err := c.SetDBConfig(sqlbatch.DBConfigDefensive, false); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "PRAGMA writable_schema = OFF")
	if _, err := c.SetDBConfig(sqlbatch.DBConfigResetDatabase, true); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "VACUUM")
	if _, err := c.SetDBConfig(sqlbatch.DBConfigResetDatabase, false); err != nil {
		t.Fatal(err)
	}
	if got := ints(t, c, "SELECT count(*) FROM sqlite_schema"); got[0] != 0 {
		t.Fatalf("tables after the reset: %v", got)
	}
	if _, err := c.DBConfig(1); !errors.Is(err, sqlbatch.ErrInvalidArgument) {
		t.Fatalf("DBConfig(1): %v", err)
	}
	if _, err := c.DBConfig(5000); !errors.Is(err, sqlbatch.ErrInvalidArgument) {
		t.Fatalf("DBConfig(5000): %v", err)
	}
}

func TestCheckpointStatusTxnStateReadOnlyFilename(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "wal.db")
	c, err := sqlbatch.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Not in WAL mode: -1, -1.
	if l, ck, err := c.Checkpoint("", sqlbatch.CheckpointPassive); err != nil || l != -1 || ck != -1 {
		t.Fatalf("checkpoint without WAL: %d %d %v", l, ck, err)
	}
	mustExec(t, c, "PRAGMA journal_mode = WAL")
	fillPages(t, c, 500)
	l, ck, err := c.Checkpoint("main", sqlbatch.CheckpointTruncate)
	if err != nil || l < 0 || ck != l {
		t.Fatalf("TRUNCATE checkpoint: %d %d %v", l, ck, err)
	}
	if l, ck, err := c.Checkpoint("", sqlbatch.CheckpointPassive); err != nil || l != 0 || ck != 0 {
		t.Fatalf("checkpoint after truncating: %d %d %v", l, ck, err)
	}
	if _, _, err := c.Checkpoint("nosuch", sqlbatch.CheckpointFull); !errors.Is(err, sqlbatch.ErrError) {
		t.Fatalf("checkpoint of an unknown schema: %v", err)
	}
	if _, _, err := c.Checkpoint("", 9); !errors.Is(err, sqlbatch.ErrInvalidArgument) {
		t.Fatalf("checkpoint with a bad mode: %v", err)
	}
	// A reader on another connection keeps a RESTART checkpoint from finishing: busy, with
	// the counts.
	mustExec(t, c, "INSERT INTO big(s) VALUES ('x')")
	r, err := sqlbatch.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rows, err := r.Query("SELECT id FROM big")
	if err != nil {
		t.Fatal(err)
	}
	rows.Next()
	mustExec(t, c, "INSERT INTO big(s) VALUES ('y')")
	if l, _, err := c.Checkpoint("", sqlbatch.CheckpointRestart); !errors.Is(err, sqlbatch.ErrBusy) || l <= 0 {
		t.Fatalf("RESTART checkpoint with a reader: log %d, %v", l, err)
	}
	if st, err := r.TxnState(""); err != nil || st != sqlbatch.TxnRead {
		t.Fatalf("reader's TxnState: %v, %v", st, err)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}

	// Status counters.
	if cur, _, err := c.Status(sqlbatch.DBStatusCacheUsed, false); err != nil || cur <= 0 {
		t.Fatalf("CacheUsed: %d, %v", cur, err)
	}
	if _, _, err := c.Status(99, false); !errors.Is(err, sqlbatch.ErrOutOfRange) {
		t.Fatalf("unknown status: %v", err)
	}
	s, err := c.Prepare("SELECT count(*) FROM big WHERE s LIKE '%abc%'")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rs, err := s.Query()
	if err != nil {
		t.Fatal(err)
	}
	for rs.Next() {
	}
	if err := rs.Close(); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Status(sqlbatch.StmtStatusVMStep, false); err != nil || n <= 0 {
		t.Fatalf("VMStep: %d, %v", n, err)
	}
	if n, err := s.Status(sqlbatch.StmtStatusFullscanStep, true); err != nil || n <= 0 {
		t.Fatalf("FullscanStep: %d, %v", n, err)
	}
	if n, err := s.Status(sqlbatch.StmtStatusFullscanStep, false); err != nil || n != 0 {
		t.Fatalf("FullscanStep after reset: %d (error %v)", n, err)
	}
	if _, err := s.Status(50, false); !errors.Is(err, sqlbatch.ErrOutOfRange) {
		t.Fatalf("unknown statement status: %v", err)
	}

	// Transaction states.
	if st, err := c.TxnState(""); err != nil || st != sqlbatch.TxnNone {
		t.Fatal(st, err)
	}
	mustExec(t, c, "BEGIN; SELECT count(*) FROM big")
	if st, err := c.TxnState("main"); err != nil || st != sqlbatch.TxnRead {
		t.Fatal(st, err)
	}
	mustExec(t, c, "INSERT INTO big(s) VALUES ('z')")
	if st, err := c.TxnState("main"); err != nil || st != sqlbatch.TxnWrite || st.String() != "write" {
		t.Fatal(st, err)
	}
	mustExec(t, c, "COMMIT")
	if _, err := c.TxnState("nosuch"); !errors.Is(err, sqlbatch.ErrError) {
		t.Fatalf("TxnState(nosuch): %v", err)
	}

	// Read-only and file names.
	if ro, err := c.ReadOnly(""); err != nil || ro {
		t.Fatal(ro, err)
	}
	roc, err := sqlbatch.OpenWithFlags(path, sqlbatch.OpenReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer roc.Close()
	if ro, err := roc.ReadOnly("main"); err != nil || !ro {
		t.Fatal(ro, err)
	}
	if _, err := c.ReadOnly("nosuch"); !errors.Is(err, sqlbatch.ErrError) {
		t.Fatalf("ReadOnly(nosuch): %v", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	if f, err := c.Filename(""); err != nil || f != abs {
		t.Fatalf("Filename: %q, %v; want %q", f, err, abs)
	}
	if f, err := memory(t).Filename("main"); err != nil || f != "" {
		t.Fatalf("Filename of :memory:: %q, %v", f, err)
	}
	if _, err := c.Filename("nosuch"); !errors.Is(err, sqlbatch.ErrError) {
		t.Fatalf("Filename(nosuch): %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Filename(""); !errors.Is(err, sqlbatch.ErrClosed) {
		t.Fatalf("Filename after Close: %v", err)
	}
	if _, err := c.TxnState(""); !errors.Is(err, sqlbatch.ErrClosed) {
		t.Fatalf("TxnState after Close: %v", err)
	}
}
