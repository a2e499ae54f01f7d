// A program of a new module outside the repository that links sqlbatch beside
// mattn/go-sqlite3, each with its own SQLite, and uses both on one database file. Built by
// packaging/install-test-go.sh after `go get github.com/sqlbatch/sqlbatch/bindings/go@vX.Y.Z`
// from the release's module proxy tree and `go get github.com/mattn/go-sqlite3`.
package main

import (
	"database/sql"
	"fmt"
	"log"
	"os"
	"path/filepath"

	_ "github.com/mattn/go-sqlite3"
	_ "github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

func open(driver, dsn string) *sql.DB {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		log.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	return db
}

func one(db *sql.DB, query string) string {
	var s string
	if err := db.QueryRow(query).Scan(&s); err != nil {
		log.Fatalf("%s: %v", query, err)
	}
	return s
}

func main() {
	dir, err := os.MkdirTemp("", "sqlbatch-beside")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "shared.db")
	ours, theirs := open("sqlbatch", path), open("sqlite3", path)
	defer ours.Close()
	defer theirs.Close()

	// Two libraries, not one SQLite under two names: a process-wide setting of one is not
	// the other's.
	if _, err := ours.Exec("PRAGMA soft_heap_limit = 123456789"); err != nil {
		log.Fatal(err)
	}
	separate := one(theirs, "PRAGMA soft_heap_limit") != one(ours, "PRAGMA soft_heap_limit")

	// sqlbatch writes 100 rows, mattn 100 more; each reads them all.
	if _, err := ours.Exec(`CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT);
		WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 100)
		INSERT INTO t SELECT i, 'n' || i FROM c`); err != nil {
		log.Fatal(err)
	}
	for i := 101; i <= 200; i++ {
		if _, err := theirs.Exec("INSERT INTO t VALUES (?, 'm' || ?)", i, i); err != nil {
			log.Fatal(err)
		}
	}
	q := "SELECT count(*) || ' rows, id sum ' || sum(id) FROM t"
	fmt.Printf("sqlbatch reads %s; mattn reads %s; separate SQLite libraries: %v\n", one(ours, q), one(theirs, q), separate)
}
