package sqlbatch_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// fillPages gives c a table of n rows of about 500 bytes each (a few hundred pages for n in
// the thousands).
func fillPages(t testing.TB, c *sqlbatch.Conn, n int) {
	t.Helper()
	mustExec(t, c, `CREATE TABLE IF NOT EXISTS big(id INTEGER PRIMARY KEY, s TEXT);
		WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
		INSERT INTO big(s) SELECT printf('%d-', i) || hex(randomblob(240)) FROM k`, n)
}

// digest is a checksum of every row of big, the same for equal contents.
func digest(t testing.TB, c *sqlbatch.Conn) string {
	t.Helper()
	rows, err := c.Query("SELECT count(*) || ':' || coalesce(sum(length(s) * id), 0) || ':' || coalesce(group_concat(substr(s, 1, 12), ','), '') FROM big")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatal("no row", rows.Err())
	}
	return rows.Text(0)
}

func TestBackupMemoryToMemoryInSteps(t *testing.T) {
	src, dest := memory(t), memory(t)
	fillPages(t, src, 2000)
	mustExec(t, dest, "CREATE TABLE old(x); INSERT INTO old VALUES (1)")
	b, err := dest.Backup("main", src, "main")
	if err != nil {
		t.Fatal(err)
	}
	if n := dest.ActiveBackups() + src.ActiveBackups(); n != 2 {
		t.Fatalf("ActiveBackups: %d, want 1 each", n)
	}
	if b.PageCount() != 0 {
		t.Fatalf("PageCount before the first step: %d", b.PageCount())
	}
	steps := 0
	for {
		done, err := b.Step(10)
		if err != nil {
			t.Fatal(err)
		}
		steps++
		if done {
			break
		}
		if b.Remaining() <= 0 || b.Remaining() >= b.PageCount() {
			t.Fatalf("after step %d: remaining %d of %d", steps, b.Remaining(), b.PageCount())
		}
	}
	if steps < 10 || b.Remaining() != 0 || b.PageCount() < 100 {
		t.Fatalf("steps %d, remaining %d, pages %d", steps, b.Remaining(), b.PageCount())
	}
	if err := b.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil { // twice: a no-op
		t.Fatal(err)
	}
	if dest.ActiveBackups() != 0 || src.ActiveBackups() != 0 {
		t.Fatal("ActiveBackups after Finish")
	}
	if got, want := digest(t, dest), digest(t, src); got != want {
		t.Fatalf("destination %q, source %q", got, want)
	}
	if _, err := dest.Query("SELECT * FROM old"); err == nil {
		t.Fatal("the destination's old table survived the backup")
	}
	if _, err := b.Step(1); !errors.Is(err, sqlbatch.ErrClosed) {
		t.Fatalf("Step after Finish: %v", err)
	}
}

func TestBackupWholeInOneStep(t *testing.T) {
	src, dest := memory(t), memory(t)
	fillPages(t, src, 300)
	b, err := dest.Backup("", src, "")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Finish()
	done, err := b.Step(-1)
	if !done || err != nil {
		t.Fatalf("Step(-1): %v, %v", done, err)
	}
	if err := b.Finish(); err != nil {
		t.Fatal(err)
	}
	if digest(t, dest) != digest(t, src) {
		t.Fatal("contents differ")
	}
}

func TestBackupDestinationRefusedUntilFinished(t *testing.T) {
	src, dest := memory(t), memory(t)
	fillPages(t, src, 1000)
	mustExec(t, dest, "CREATE TABLE d(x)")
	s, err := dest.Prepare("SELECT count(*) FROM sqlite_schema")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b, err := dest.Backup("main", src, "main")
	if err != nil {
		t.Fatal(err)
	}
	if done, err := b.Step(5); done || err != nil {
		t.Fatal(done, err)
	}
	// The destination is the backup's: its calls, and its statements', are refused.
	if _, err := dest.ExecScript("SELECT 1"); !errors.Is(err, sqlbatch.ErrBusy) {
		t.Fatalf("dest ExecScript during the backup: %v", err)
	}
	if r, err := s.Query(); err == nil {
		if r.Next() {
			t.Fatal("dest statement ran during the backup")
		}
		if err := r.Err(); !errors.Is(err, sqlbatch.ErrBusy) {
			t.Fatalf("dest statement during the backup: %v", err)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	} else if !errors.Is(err, sqlbatch.ErrBusy) {
		t.Fatalf("dest statement during the backup: %v", err)
	}
	if _, err := dest.Serialize(""); !errors.Is(err, sqlbatch.ErrBusy) {
		t.Fatalf("dest Serialize during the backup: %v", err)
	}
	// A second backup into the same destination is refused too.
	other := memory(t)
	if _, err := dest.Backup("main", other, "main"); !errors.Is(err, sqlbatch.ErrBusy) {
		t.Fatalf("second backup into dest: %v", err)
	}
	// The source stays usable between steps, and its own writes are copied.
	mustExec(t, src, "INSERT INTO big(s) VALUES ('written during the backup')")
	for {
		done, err := b.Step(7)
		if err != nil {
			t.Fatal(err)
		}
		if done {
			break
		}
	}
	if err := b.Finish(); err != nil {
		t.Fatal(err)
	}
	if got := ints(t, dest, "SELECT count(*) FROM big WHERE s = 'written during the backup'"); got[0] != 1 {
		t.Fatalf("the source's write during the backup: %v", got)
	}
	if digest(t, dest) != digest(t, src) {
		t.Fatal("contents differ")
	}
}

func TestBackupAbandonedLeavesDestinationAsItWas(t *testing.T) {
	src, dest := memory(t), memory(t)
	fillPages(t, src, 1000)
	mustExec(t, dest, "CREATE TABLE keep(x); INSERT INTO keep VALUES (42)")
	b, err := dest.Backup("main", src, "main")
	if err != nil {
		t.Fatal(err)
	}
	if done, err := b.Step(3); done || err != nil {
		t.Fatal(done, err)
	}
	if err := b.Finish(); err != nil {
		t.Fatal(err)
	}
	if got := ints(t, dest, "SELECT x FROM keep"); len(got) != 1 || got[0] != 42 {
		t.Fatalf("destination after an unfinished backup: %v", got)
	}
}

func TestBackupBusyDestinationIsResumable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "dest.db")
	dest, err := sqlbatch.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer dest.Close()
	mustExec(t, dest, "CREATE TABLE d(x)")
	locker, err := sqlbatch.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()
	mustExec(t, locker, "BEGIN IMMEDIATE; INSERT INTO d VALUES (1)")

	src := memory(t)
	fillPages(t, src, 500)
	b, err := dest.Backup("main", src, "main")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Finish()
	done, err := b.Step(-1)
	if done || !errors.Is(err, sqlbatch.ErrBusy) {
		t.Fatalf("Step with the destination locked: %v, %v", done, err)
	}
	if e := asError(t, err); !e.Temporary() {
		t.Fatalf("busy error not Temporary: %+v", e)
	}
	mustExec(t, locker, "COMMIT")
	done, err = b.Step(-1)
	if !done || err != nil {
		t.Fatalf("Step after the lock went: %v, %v", done, err)
	}
	if err := b.Finish(); err != nil {
		t.Fatal(err)
	}
	if digest(t, dest) != digest(t, src) {
		t.Fatal("contents differ")
	}
	// Another connection on the file sees the copy.
	if digest(t, locker) != digest(t, src) {
		t.Fatal("the file's other connection does not see the copy")
	}
}

func TestBackupConnectionClosedFirst(t *testing.T) {
	for _, which := range []string{"source", "destination", "both"} {
		t.Run(which, func(t *testing.T) {
			src, err := sqlbatch.Open(":memory:")
			if err != nil {
				t.Fatal(err)
			}
			dest, err := sqlbatch.Open(":memory:")
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			defer dest.Close()
			fillPages(t, src, 1000)
			b, err := dest.Backup("main", src, "main")
			if err != nil {
				t.Fatal(err)
			}
			if done, err := b.Step(4); done || err != nil {
				t.Fatal(done, err)
			}
			switch which {
			case "source":
				if err := src.Close(); err != nil {
					t.Fatal(err)
				}
			case "destination":
				if err := dest.Close(); err != nil {
					t.Fatal(err)
				}
			default:
				if err := dest.Close(); err != nil {
					t.Fatal(err)
				}
				if err := src.Close(); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := b.Step(4); !errors.Is(err, sqlbatch.ErrClosed) {
				t.Fatalf("Step after closing the %s: %v", which, err)
			}
			b.Remaining()
			b.PageCount()
			_ = b.Finish() // its error, if any, is the closing's; it must not crash
			if which == "source" {
				// The destination is usable again, as it was.
				if _, err := dest.ExecScript("SELECT 1"); err != nil {
					t.Fatalf("destination after the backup ended: %v", err)
				}
			}
		})
	}
}

func TestBackupFinishAfterBothClosed(t *testing.T) {
	src, err := sqlbatch.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	dest, err := sqlbatch.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	fillPages(t, src, 100)
	b, err := dest.Backup("main", src, "main")
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if err := dest.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := b.Finish(); err != nil {
		t.Fatal(err)
	}
}

func TestBackupBadArguments(t *testing.T) {
	c, other := memory(t), memory(t)
	if _, err := c.Backup("main", c, "main"); !errors.Is(err, sqlbatch.ErrInvalidArgument) {
		t.Fatalf("backup into itself: %v", err)
	}
	if _, err := c.Backup("main", nil, "main"); !errors.Is(err, sqlbatch.ErrInvalidArgument) {
		t.Fatalf("nil source: %v", err)
	}
	if _, err := c.Backup("main", other, "nosuch"); !errors.Is(err, sqlbatch.ErrError) {
		t.Fatalf("unknown source schema: %v", err)
	}
	if _, err := c.Backup("nosuch", other, "main"); !errors.Is(err, sqlbatch.ErrError) {
		t.Fatalf("unknown destination schema: %v", err)
	}
	if c.ActiveBackups() != 0 || other.ActiveBackups() != 0 {
		t.Fatal("a failed Backup counted")
	}
	closed, err := sqlbatch.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Backup("main", closed, "main"); err == nil {
		t.Fatal("backup from a closed connection")
	}
	if _, err := closed.Backup("main", c, "main"); !errors.Is(err, sqlbatch.ErrClosed) {
		t.Fatalf("backup into a closed connection: %v", err)
	}
}

func TestBackupToFileAndRestore(t *testing.T) {
	src := memory(t)
	fillPages(t, src, 800)
	path := filepath.Join(t.TempDir(), "copy.db")
	// An existing database at path is replaced.
	old, err := sqlbatch.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, old, "CREATE TABLE replaced(x); INSERT INTO replaced VALUES (1)")
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	if err := src.BackupToFile("", path); err != nil {
		t.Fatal(err)
	}
	f, err := sqlbatch.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if digest(t, f) != digest(t, src) {
		t.Fatal("file contents differ")
	}
	if _, err := f.Query("SELECT * FROM replaced"); err == nil {
		t.Fatal("the file's old table survived")
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	r := memory(t)
	mustExec(t, r, "CREATE TABLE gone(x)")
	if err := r.RestoreFromFile("main", path); err != nil {
		t.Fatal(err)
	}
	if digest(t, r) != digest(t, src) {
		t.Fatal("restored contents differ")
	}
	if _, err := r.Query("SELECT * FROM gone"); err == nil {
		t.Fatal("restore kept the old table")
	}

	notDB := filepath.Join(t.TempDir(), "text.db")
	if err := os.WriteFile(notDB, []byte("this is not an SQLite database, not at all, no header here........................................................................................."), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.RestoreFromFile("", notDB); !errors.Is(err, sqlbatch.ErrNotADB) {
		t.Fatalf("restore from a text file: %v", err)
	}
	if err := r.RestoreFromFile("", filepath.Join(t.TempDir(), "no", "such.db")); !errors.Is(err, sqlbatch.ErrCantOpen) {
		t.Fatalf("restore from a missing file: %v", err)
	}
	if err := src.BackupToFile("", filepath.Join(t.TempDir(), "no", "such.db")); !errors.Is(err, sqlbatch.ErrCantOpen) {
		t.Fatalf("backup into a missing directory: %v", err)
	}
	if err := src.BackupToFile("nosuch", path); !errors.Is(err, sqlbatch.ErrError) {
		t.Fatalf("backup of an unknown schema: %v", err)
	}
	closed, err := sqlbatch.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}
	if err := closed.BackupToFile("", path); !errors.Is(err, sqlbatch.ErrClosed) {
		t.Fatalf("BackupToFile on a closed connection: %v", err)
	}
}
