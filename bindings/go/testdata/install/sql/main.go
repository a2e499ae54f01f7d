// A program of a new module outside the repository that uses the database/sql driver, built
// by packaging/install-test-go.sh after `go get github.com/sqlbatch/sqlbatch/bindings/go@vX.Y.Z`
// from the release's module proxy tree, with no tag, no environment and no Rust.
package main

import (
	"database/sql"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	_ "github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

func main() {
	dir, err := os.MkdirTemp("", "sqlbatch-install")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlbatch", filepath.Join(dir, "app.db")+"?_journal_mode=WAL&_busy_timeout=5000")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`
		CREATE TABLE city(name TEXT UNIQUE, population INTEGER);
		INSERT INTO city VALUES (?, ?), (?, ?), (?, ?);`,
		"Lyon", 522000, "Turin", 848000, "Porto", 232000); err != nil {
		log.Fatal(err)
	}
	rows, err := db.Query("SELECT name, population FROM city WHERE population > ? ORDER BY name", 300000)
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		var population int64
		if err := rows.Scan(&name, &population); err != nil {
			log.Fatal(err)
		}
		out = append(out, fmt.Sprint(name, " ", population))
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	_, err = db.Exec("INSERT INTO city VALUES (?, ?)", "Lyon", 1)
	fmt.Printf("database/sql: %v; again: %v (unique: %v)\n", out, err, errors.Is(err, sqlbatch.ErrConstraintUnique))
}
