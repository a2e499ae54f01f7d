// A program of a new module outside the repository that uses the low-level package, built
// by packaging/install-test-go.sh after `go get github.com/sqlbatch/sqlbatch/bindings/go@vX.Y.Z`
// from the release's module proxy tree, with no tag, no environment and no Rust.
package main

import (
	"fmt"
	"log"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

func main() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecScript("CREATE TABLE bulk(id INTEGER, name TEXT)"); err != nil {
		log.Fatal(err)
	}
	// A bulk insert: every row's values laid out, then one call into C.
	var p sqlbatch.Params
	for i := range 1000 {
		p.Int(i).Text(fmt.Sprint("name-", i))
	}
	stmt, err := c.Prepare("INSERT INTO bulk VALUES (?, ?)")
	if err != nil {
		log.Fatal(err)
	}
	defer stmt.Close()
	if _, err := c.ExecScript("BEGIN"); err != nil {
		log.Fatal(err)
	}
	if _, err := stmt.ExecMany(&p); err != nil {
		log.Fatal(err)
	}
	if _, err := c.ExecScript("COMMIT"); err != nil {
		log.Fatal(err)
	}
	// Rows in batches, read in place.
	rows, err := c.Query("SELECT id, name FROM bulk ORDER BY id")
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	var n, sum, bytes int64
	for rows.Next() {
		n, sum, bytes = n+1, sum+rows.Int64(0), bytes+int64(len(rows.Text(1)))
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("sqlbatch %s (SQLite %s): %d rows, id sum %d, %d bytes of names\n",
		sqlbatch.Version(), sqlbatch.SQLiteVersion(), n, sum, bytes)
}
