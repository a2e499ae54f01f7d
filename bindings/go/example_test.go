package sqlbatch_test

import (
	"errors"
	"fmt"
	"log"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

func Example() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	// A whole script, with its arguments, in one call into C.
	_, err = c.ExecScript(`
		CREATE TABLE city(name TEXT, population INTEGER);
		INSERT INTO city VALUES (?, ?), (?, ?), (?, ?);`,
		"Lyon", 522000, "Turin", 848000, "Porto", 232000)
	if err != nil {
		log.Fatal(err)
	}

	// Rows come in batches; Next and the accessors read the current batch.
	rows, err := c.Query("SELECT name, population FROM city WHERE population > ? ORDER BY name", 300000)
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		fmt.Println(rows.Text(0), rows.Int64(1))
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// Lyon 522000
	// Turin 848000
}

func ExampleConn_ExecScript() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	r, err := c.ExecScript(`
		CREATE TABLE t(a INTEGER, b TEXT);
		INSERT INTO t VALUES (?, :tag);
		INSERT INTO t VALUES (?, :tag);`,
		1, 2, sqlbatch.Named("tag", "x"))
	fmt.Println(r.Statements, r.Changes, err)
	// Output: 3 2 <nil>
}

func ExampleStmt_ExecMany() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecScript("CREATE TABLE bulk(id INTEGER, score REAL, name TEXT)"); err != nil {
		log.Fatal(err)
	}

	// Lay out every row's values, then insert them all in one call, in one transaction.
	var p sqlbatch.Params
	for i := range 1000 {
		p.Int(i).Float64(float64(i) / 2).Text(fmt.Sprint("name-", i))
	}
	stmt, err := c.Prepare("INSERT INTO bulk VALUES (?, ?, ?)")
	if err != nil {
		log.Fatal(err)
	}
	defer stmt.Close()
	if _, err := c.ExecScript("BEGIN"); err != nil {
		log.Fatal(err)
	}
	res, err := stmt.ExecMany(&p)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.ExecScript("COMMIT"); err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Rows, res.Changes)
	// Output: 1000 1000
}

func ExampleParams_AppendColumns() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecScript("CREATE TABLE reading(sensor INTEGER, value REAL, unit TEXT, note TEXT)"); err != nil {
		log.Fatal(err)
	}

	// Data already held column by column: each slice is a column, row i takes element i of
	// each. Pass a few thousand rows per call; a []any column carries NULLs or mixed types.
	sensors := []int64{1, 2, 3, 4, 5}
	values := []float64{20.5, 21, 19.75, 22.25, 20}
	units := []string{"C", "C", "C", "C", "C"}
	notes := []any{nil, "recalibrated", nil, nil, "door open"}

	stmt, err := c.Prepare("INSERT INTO reading VALUES (?, ?, ?, ?)")
	if err != nil {
		log.Fatal(err)
	}
	defer stmt.Close()
	var p sqlbatch.Params
	if _, err := c.ExecScript("BEGIN"); err != nil {
		log.Fatal(err)
	}
	for i := 0; i < len(sensors); i += 2 { // batches of 2 rows, to show the loop
		j := min(i+2, len(sensors))
		p.Reset()
		if err := p.AppendColumns(sensors[i:j], values[i:j], units[i:j], notes[i:j]); err != nil {
			log.Fatal(err)
		}
		if _, err := stmt.ExecMany(&p); err != nil {
			log.Fatal(err)
		}
	}
	if _, err := c.ExecScript("COMMIT"); err != nil {
		log.Fatal(err)
	}

	rows, err := c.Query("SELECT count(*), sum(value), count(note) FROM reading")
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() {
		log.Fatal(rows.Err())
	}
	fmt.Println(rows.Int64(0), rows.Float64(1), rows.Int64(2))
	// Output: 5 103.5 2
}

func ExampleStmt_Query() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	stmt, err := c.Prepare("WITH RECURSIVE k(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM k WHERE v < ?) SELECT v, v * v FROM k")
	if err != nil {
		log.Fatal(err)
	}
	defer stmt.Close()
	for _, n := range []int{2, 3} {
		rows, err := stmt.Query(n)
		if err != nil { // binds and starts over; the Rows is reused
			log.Fatal(err)
		}
		var sum int64
		for rows.Next() {
			sum += rows.Int64(1)
		}
		if err := rows.Close(); err != nil {
			log.Fatal(err)
		}
		fmt.Println(n, sum)
	}
	// Output:
	// 2 5
	// 3 14
}

func ExampleError() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	script := "CREATE TABLE t(a UNIQUE); INSERT INTO t VALUES (1); INSERT INTO t VALUES (1);"
	_, err = c.ExecScript(script)

	var e *sqlbatch.Error
	if errors.As(err, &e) {
		fmt.Println(e.ExtendedCode.String(), e.StatementIndex, e.Statement())
	}
	fmt.Println(errors.Is(err, sqlbatch.ErrConstraint))
	// Output:
	// SQLITE_CONSTRAINT_UNIQUE 2 INSERT INTO t VALUES (1);
	// true
}

func ExampleRows_RawBytes() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	rows, err := c.Query("SELECT 'abc' UNION ALL SELECT 'de'")
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	total := 0
	for rows.Next() {
		total += len(rows.RawBytes(0)) // no copy: valid until the next call to Next
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(total)
	// Output: 5
}

func ExampleStmt_QueryParams() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecScript("CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO item VALUES (1, 'bolt'), (2, 'nut'), (3, 'washer')"); err != nil {
		log.Fatal(err)
	}
	stmt, err := c.Prepare("SELECT name FROM item WHERE id = ?")
	if err != nil {
		log.Fatal(err)
	}
	defer stmt.Close()
	// A lookup by key, run again and again: one call into C binds the key and fetches the row.
	var p sqlbatch.Params
	for _, id := range []int64{3, 1} {
		p.Reset()
		p.Int64(id)
		rows, err := stmt.QueryParams(&p)
		if err != nil {
			log.Fatal(err)
		}
		for rows.Next() {
			fmt.Println(id, rows.Text(0))
		}
		if err := rows.Err(); err != nil {
			log.Fatal(err)
		}
		if err := rows.Close(); err != nil {
			log.Fatal(err)
		}
	}
	// Output:
	// 3 washer
	// 1 bolt
}
