package sqlbatch_test

import (
	"fmt"
	"log"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// A bulk load with write-behind, then a query with fetch-ahead: the library's worker thread
// inserts one batch while fill builds the next, then steps the next batch of rows while the
// loop reads this one. The results are those of the synchronous calls.
func ExampleStmt_ExecManyFunc() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecScript("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT)"); err != nil {
		log.Fatal(err)
	}
	ins, err := c.Prepare("INSERT INTO t VALUES (?, ?)")
	if err != nil {
		log.Fatal(err)
	}
	defer ins.Close()

	if _, err := c.ExecScript("BEGIN"); err != nil {
		log.Fatal(err)
	}
	next := 0
	res, err := ins.ExecManyFunc(func(p *sqlbatch.Params) error {
		for k := 0; k < 1000 && next < 10000; k++ { // a batch of up to 1000 rows
			p.Int64(int64(next)).Text(fmt.Sprint("name ", next))
			next++
		}
		return nil // a batch of no rows ends the load
	})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.ExecScript("COMMIT"); err != nil {
		log.Fatal(err)
	}
	fmt.Println("inserted", res.Rows, "last id", res.LastInsertRowID)

	q, err := c.Prepare("SELECT id, name FROM t ORDER BY id")
	if err != nil {
		log.Fatal(err)
	}
	defer q.Close()
	if err := q.SetFetchAhead(true); err != nil { // or open the connection with sqlbatch.OpenFetchAhead
		log.Fatal(err)
	}
	rows, err := q.Query()
	if err != nil {
		log.Fatal(err)
	}
	n, bytes := 0, 0
	for rows.Next() {
		n++
		bytes += len(rows.RawBytes(1))
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("read", n, "rows,", bytes, "bytes of names")
	// Output:
	// inserted 10000 last id 9999
	// read 10000 rows, 88890 bytes of names
}
