package driver_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io"
	"path/filepath"
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	"github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

// raw2 runs f with the driver connections of a and b, as mattn's backup test does.
func raw2(t *testing.T, a, b *sql.Conn, f func(ca, cb *driver.SQLiteConn) error) {
	t.Helper()
	err := a.Raw(func(x any) error {
		return b.Raw(func(y any) error {
			return f(x.(*driver.SQLiteConn), y.(*driver.SQLiteConn))
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}

func conn(t *testing.T, db *sql.DB) *sql.Conn {
	t.Helper()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func fill(t *testing.T, db *sql.DB, n int) {
	t.Helper()
	exec(t, db, `CREATE TABLE big(id INTEGER PRIMARY KEY, s TEXT);
		WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
		INSERT INTO big(s) SELECT printf('%d-', i) || hex(randomblob(200)) FROM k`, n)
}

func sum(t *testing.T, db *sql.DB) string {
	return one[string](t, db, "SELECT count(*) || ':' || total(length(s) * id) || ':' || group_concat(substr(s, 1, 10)) FROM big")
}

func TestDriverBackup(t *testing.T) {
	src, dest := open(t, ""), open(t, "")
	fill(t, src, 2000)
	sc, dc := conn(t, src), conn(t, dest)
	raw2(t, dc, sc, func(d, s *driver.SQLiteConn) error {
		var b *driver.SQLiteBackup
		b, err := d.Backup("main", s, "main")
		if err != nil {
			return err
		}
		for {
			done, err := b.Step(20)
			if err != nil {
				return err
			}
			if done {
				break
			}
			if b.Remaining() == 0 || b.PageCount() == 0 {
				t.Errorf("remaining %d of %d before done", b.Remaining(), b.PageCount())
			}
		}
		if b.Remaining() != 0 {
			t.Errorf("remaining %d when done", b.Remaining())
		}
		if err := b.Finish(); err != nil {
			return err
		}
		return b.Close()
	})
	sc.Close()
	dc.Close()
	if sum(t, dest) != sum(t, src) {
		t.Fatal("contents differ")
	}
}

// Step reports a busy destination as mattn's does: not done, no error; the copy goes on
// once the lock is gone.
func TestDriverBackupBusyIsNotAnError(t *testing.T) {
	src := open(t, "")
	fill(t, src, 300)
	path := filepath.Join(t.TempDir(), "dest.db")
	dest, err := sql.Open("sqlbatch", path)
	if err != nil {
		t.Fatal(err)
	}
	defer dest.Close()
	exec(t, dest, "CREATE TABLE d(x)")
	locker, err := sql.Open("sqlbatch", path+"?_busy_timeout=0")
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()
	tx, err := locker.Begin()
	if err != nil {
		t.Fatal(err)
	}
	exec(t, tx, "INSERT INTO d VALUES (1)")

	sc, dc := conn(t, src), conn(t, dest)
	defer sc.Close()
	defer dc.Close()
	raw2(t, dc, sc, func(d, s *driver.SQLiteConn) error {
		d.Raw().SetBusyTimeout(0)
		b, err := d.Backup("", s, "")
		if err != nil {
			return err
		}
		defer b.Finish()
		if done, err := b.Step(-1); done || err != nil {
			t.Errorf("Step with the destination locked: %v, %v", done, err)
		}
		if _, err := b.Raw().Step(-1); !errors.Is(err, sqlbatch.ErrBusy) {
			t.Errorf("low-level Step with the destination locked: %v", err)
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		if done, err := b.Step(-1); !done || err != nil {
			t.Errorf("Step after the lock went: %v, %v", done, err)
		}
		return b.Finish()
	})
	if one[int](t, dest, "SELECT count(*) FROM big") != 300 {
		t.Fatal("copy missing")
	}
}

// A connection given back to the pool with an unfinished backup is closed, not reused.
func TestDriverUnfinishedBackupLeavesThePool(t *testing.T) {
	src, dest := open(t, ""), open(t, "")
	dest.SetMaxIdleConns(4)
	fill(t, src, 500)
	exec(t, dest, "CREATE TABLE keep(x)")
	sc, dc := conn(t, src), conn(t, dest)
	var b *driver.Backup
	raw2(t, dc, sc, func(d, s *driver.SQLiteConn) error {
		var err error
		b, err = d.Backup("main", s, "main")
		if err != nil {
			return err
		}
		_, err = b.Step(2)
		return err
	})
	dc.Close() // the pool closes it: its backup ends
	if _, err := b.Raw().Step(2); !errors.Is(err, sqlbatch.ErrClosed) {
		t.Fatalf("Step after the pool closed the destination: %v", err)
	}
	b.Finish()
	sc.Close()
	// Both pools work, and the destination is as it was.
	if one[int](t, dest, "SELECT count(*) FROM sqlite_schema WHERE name = 'keep'") != 1 {
		t.Fatal("destination changed")
	}
	if one[int](t, src, "SELECT count(*) FROM big") != 500 {
		t.Fatal("source changed")
	}
	if st := dest.Stats(); st.OpenConnections != 1 {
		t.Fatalf("destination pool has %d connections, want 1 (the one of the queries above)", st.OpenConnections)
	}
}

func TestDriverSerializeDeserialize(t *testing.T) {
	src := open(t, "")
	fill(t, src, 200)
	sc := conn(t, src)
	defer sc.Close()
	var data []byte
	err := sc.Raw(func(dc any) error {
		var err error
		data, err = dc.(*driver.SQLiteConn).Serialize("")
		return err
	})
	if err != nil || len(data) == 0 {
		t.Fatal(len(data), err)
	}
	mem, err := sql.Open("sqlbatch", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	mem.SetMaxOpenConns(1)
	mc := conn(t, mem)
	err = mc.Raw(func(dc any) error {
		return dc.(*driver.SQLiteConn).Deserialize(data, "main")
	})
	if err != nil {
		t.Fatal(err)
	}
	// Unlike mattn's, the deserialized database grows.
	if _, err := mc.ExecContext(context.Background(), "INSERT INTO big(s) SELECT s FROM big"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := mc.QueryRowContext(context.Background(), "SELECT count(*) FROM big").Scan(&n); err != nil || n != 400 {
		t.Fatal(n, err)
	}
	err = mc.Raw(func(dc any) error {
		return dc.(*driver.SQLiteConn).Deserialize([]byte("garbage garbage garbage"), "main")
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mc.ExecContext(context.Background(), "SELECT * FROM big"); !errors.Is(err, sqlbatch.ErrNotADB) {
		t.Fatalf("query of garbage: %v", err)
	}
	mc.Close()
}

func TestDriverLimitsFilenameBlob(t *testing.T) {
	if driver.SQLITE_LIMIT_LENGTH != 0 || driver.SQLITE_LIMIT_VARIABLE_NUMBER != 9 || driver.SQLITE_LIMIT_WORKER_THREADS != 11 {
		t.Fatal("limit constants")
	}
	path := filepath.Join(t.TempDir(), "f.db")
	db, err := sql.Open("sqlbatch", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec(t, db, "CREATE TABLE b(id INTEGER PRIMARY KEY, data BLOB); INSERT INTO b VALUES (1, zeroblob(?))", 100_000)
	c := conn(t, db)
	defer c.Close()
	err = c.Raw(func(dc any) error {
		sc := dc.(*driver.SQLiteConn)
		old := sc.GetLimit(driver.SQLITE_LIMIT_SQL_LENGTH)
		if prev := sc.SetLimit(driver.SQLITE_LIMIT_SQL_LENGTH, 50); prev != old {
			t.Errorf("SetLimit returned %d, GetLimit %d", prev, old)
		}
		if got := sc.GetLimit(driver.SQLITE_LIMIT_SQL_LENGTH); got != 50 {
			t.Errorf("GetLimit after SetLimit: %d", got)
		}
		if sc.SetLimit(driver.SQLITE_LIMIT_SQL_LENGTH, -1) != 50 {
			t.Error("SetLimit(-1) changed or misread the limit")
		}
		if sc.GetLimit(42) != -1 || sc.SetLimit(42, 1) != -1 {
			t.Error("unknown limit id")
		}
		sc.SetLimit(driver.SQLITE_LIMIT_SQL_LENGTH, old)
		abs, _ := filepath.Abs(path)
		if f := sc.GetFilename(""); f != abs {
			t.Errorf("GetFilename: %q, want %q", f, abs)
		}
		if f := sc.GetFilename("nosuch"); f != "" {
			t.Errorf("GetFilename(nosuch): %q", f)
		}

		var b *driver.Blob
		b, err := sc.OpenBlob("main", "b", "data", 1, true)
		if err != nil {
			return err
		}
		defer b.Close()
		v := bytes.Repeat([]byte("0123456789"), 10_000)
		if _, err := b.Write(v); err != nil {
			return err
		}
		got := make([]byte, len(v))
		if _, err := b.ReadAt(got, 0); err != nil && err != io.EOF {
			return err
		}
		if !bytes.Equal(got, v) {
			t.Error("blob read back differs")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if one[string](t, db, "SELECT substr(data, 99991, 10) FROM b") != "0123456789" {
		t.Fatal("the blob write is not visible through SQL")
	}
}

// The ConnectHook reaches every connection of a pool: limits and switches set there apply
// pool-wide.
func TestDriverConnectHookSetsLimitsAndSwitches(t *testing.T) {
	sql.Register("sqlbatch-surface-hook", &driver.Driver{ConnectHook: func(c *driver.SQLiteConn) error {
		c.SetLimit(driver.SQLITE_LIMIT_LENGTH, 1000)
		_, err := c.Raw().SetDBConfig(sqlbatch.DBConfigDQSDML, false)
		return err
	}})
	db, err := sql.Open("sqlbatch-surface-hook", filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c1, c2 := conn(t, db), conn(t, db)
	defer c1.Close()
	defer c2.Close()
	for _, c := range []*sql.Conn{c1, c2} {
		if _, err := c.ExecContext(context.Background(), "SELECT zeroblob(2000)"); !errors.Is(err, sqlbatch.ErrTooBig) {
			t.Fatalf("a value over the hook's limit: %v", err)
		}
		if _, err := c.ExecContext(context.Background(), `SELECT "not a column"`); err == nil {
			t.Fatal("DQS_DML is on")
		}
	}
}
