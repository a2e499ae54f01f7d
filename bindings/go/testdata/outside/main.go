// A program of an outside module (copied into a temporary directory by run.sh): it uses
// the low-level package and the database/sql driver, and prints what both read.
package main

import (
	"database/sql"
	"fmt"
	"log"
	"os"
	"path/filepath"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	_ "github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

func main() {
	dir, err := os.MkdirTemp("", "sqlbatch-outside")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "app.db")

	db, err := sql.Open("sqlbatch", path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT);
		INSERT INTO t(name) VALUES (?), (?), (?)`, "ada", "grace", "edsger"); err != nil {
		log.Fatal(err)
	}
	var n, total int
	if err := db.QueryRow("SELECT count(*), sum(length(name)) FROM t").Scan(&n, &total); err != nil {
		log.Fatal(err)
	}
	_, dupErr := db.Exec("INSERT INTO t VALUES (1, 'again')")

	c, err := sqlbatch.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	rows, err := c.Query("SELECT name FROM t ORDER BY id DESC")
	if err != nil {
		log.Fatal(err)
	}
	var names []string
	for rows.Next() {
		names = append(names, rows.Text(0))
	}
	rows.Close()
	fmt.Printf("sqlite %s: %d rows, %d bytes, %v, %v\n", sqlbatch.SQLiteVersion(), n, total, names, dupErr)
}
