// Package linkbeside checks that sqlbatch links beside mattn/go-sqlite3: one Go binary with
// both database/sql drivers, each with its own SQLite. libsqlbatch.a carries SQLite too,
// and before scripts/hide-symbols.sh made its sqlite3_* symbols local the external link
// failed with "multiple definition of `sqlite3_...'". Run by `make test-linkbeside` (in
// `make test-go`), with mattn's bundled SQLite, with -tags libsqlite3 (mattn then uses the
// system's libsqlite3), and as a fully static binary.
package linkbeside

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattn/go-sqlite3"
	"github.com/sqlbatch/sqlbatch/bindings/go"
	_ "github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

func open(t *testing.T, driver, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatalf("sql.Open(%q): %v", driver, err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	return db
}

func queryString(t *testing.T, db *sql.DB, query string) string {
	t.Helper()
	var s string
	if err := db.QueryRow(query).Scan(&s); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return s
}

// sums returns the row count, the sum of id and the total length of name over the rows of t
// that match where.
func sums(t *testing.T, db *sql.DB, where string) (n, ids, lens int64) {
	t.Helper()
	rows, err := db.Query("SELECT id, name FROM t WHERE " + where)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			t.Fatal(err)
		}
		n, ids, lens = n+1, ids+id, lens+int64(len(name))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return n, ids, lens
}

func TestTwoSQLitesInOneBinary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.db")
	// A rollback journal: readable by any SQLite 3, also the system's older one.
	ours := open(t, "sqlbatch", path+"?_journal_mode=DELETE")
	theirs := open(t, "sqlite3", path+"?_journal_mode=DELETE")

	// Each driver's sqlite_version() is its own library's.
	ourVersion, mattnVersion := queryString(t, ours, "SELECT sqlite_version()"), queryString(t, theirs, "SELECT sqlite_version()")
	mattnLib, _, _ := sqlite3.Version()
	t.Logf("sqlbatch: SQLite %s (sqlbatch.SQLiteVersion %s); mattn/go-sqlite3: SQLite %s (sqlite3.Version %s)",
		ourVersion, sqlbatch.SQLiteVersion(), mattnVersion, mattnLib)
	if !strings.HasPrefix(ourVersion, "3.54.") || ourVersion != sqlbatch.SQLiteVersion() {
		t.Errorf("sqlbatch's connection runs SQLite %s, sqlbatch.SQLiteVersion() is %s; want both 3.54.x", ourVersion, sqlbatch.SQLiteVersion())
	}
	if mattnVersion != mattnLib {
		t.Errorf("mattn's connection runs SQLite %s, sqlite3.Version() says %s", mattnVersion, mattnLib)
	}

	// The same version number does not prove two libraries (mattn v1.14.53 bundles 3.54.1
	// too): a process-wide setting of one SQLite must not show in the other.
	if _, err := ours.Exec("PRAGMA soft_heap_limit = 123456789"); err != nil {
		t.Fatal(err)
	}
	if got := queryString(t, ours, "PRAGMA soft_heap_limit"); got != "123456789" {
		t.Errorf("sqlbatch: soft_heap_limit is %s after setting it", got)
	}
	if got := queryString(t, theirs, "PRAGMA soft_heap_limit"); got == "123456789" {
		t.Errorf("mattn's connection sees sqlbatch's soft_heap_limit: both drivers use one SQLite")
	}
	if _, err := ours.Exec("PRAGMA soft_heap_limit = 0"); err != nil {
		t.Fatal(err)
	}

	// sqlbatch writes, mattn reads: ids 1..100, names n1..n100.
	if _, err := ours.Exec(`CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
		WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 100)
		INSERT INTO t SELECT i, 'n' || i FROM c`); err != nil {
		t.Fatal(err)
	}
	if n, ids, lens := sums(t, theirs, "1"); n != 100 || ids != 5050 || lens != 292 {
		t.Errorf("mattn read %d rows, id sum %d, name bytes %d; want 100, 5050, 292", n, ids, lens)
	}
	// mattn writes, sqlbatch reads: ids 101..200, names m101..m200.
	tx, err := theirs.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := 101; i <= 200; i++ {
		if _, err := tx.Exec("INSERT INTO t VALUES (?, 'm' || ?)", i, i); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if n, ids, lens := sums(t, ours, "id > 100"); n != 100 || ids != 15050 || lens != 400 {
		t.Errorf("sqlbatch read %d rows, id sum %d, name bytes %d; want 100, 15050, 400", n, ids, lens)
	}
	for _, db := range []*sql.DB{ours, theirs} {
		if n, ids, _ := sums(t, db, "1"); n != 200 || ids != 20100 {
			t.Errorf("read %d rows, id sum %d; want 200, 20100", n, ids)
		}
	}
}
