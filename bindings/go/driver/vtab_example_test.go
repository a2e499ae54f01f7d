package driver_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	"github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

// An IN list as one argument: sqlbatch.Array binds the whole list to one parameter, read by
// the sqlbatch_rows table that every connection has. One statement for any length of list,
// bound in the call that runs it.
func Example_inList() {
	db, err := sql.Open("sqlbatch", ":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE city(id INTEGER PRIMARY KEY, name TEXT);
		INSERT INTO city VALUES (1, 'Lyon'), (2, 'Turin'), (3, 'Porto'), (4, 'Ghent')`); err != nil {
		log.Fatal(err)
	}
	ids := []int64{4, 1, 9}
	rows, err := db.Query("SELECT name FROM city WHERE id IN sqlbatch_rows(?) ORDER BY name", sqlbatch.Array(ids))
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			log.Fatal(err)
		}
		fmt.Println(name)
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// Ghent
	// Lyon
}

// Rows held in slices, inserted by one statement: sqlbatch.Table binds them, one slice per
// column, to one parameter. A table of their shape is declared on every connection (here by
// a ConnectHook) and read as a table-valued function.
func Example_insertSelect() {
	sql.Register("sqlbatch_readings", &driver.Driver{ConnectHook: func(c *driver.Conn) error {
		_, err := c.Raw().ExecScript("CREATE VIRTUAL TABLE temp.incoming USING sqlbatch_rows(sensor INTEGER, value REAL)")
		return err
	}})
	db, err := sql.Open("sqlbatch_readings", ":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("CREATE TABLE reading(sensor INTEGER, value REAL)"); err != nil {
		log.Fatal(err)
	}
	sensors := []int{7, 7, 9}
	values := []float64{20.5, 21.0, 18.25}
	res, err := db.Exec("INSERT INTO reading SELECT * FROM incoming(?)", sqlbatch.Table(sensors, values))
	if err != nil {
		log.Fatal(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		log.Fatal(err)
	}
	var avg float64
	if err := db.QueryRow("SELECT avg(value) FROM reading WHERE sensor = 7").Scan(&avg); err != nil {
		log.Fatal(err)
	}
	fmt.Println(n, avg)
	// Output: 3 20.75
}

// A virtual table written for mattn/go-sqlite3 (its sqlite_vtable tag) works as it is:
// here a table-valued function, squares(n), eponymous only. The driver serves it in
// batches: one call from C into Go per 256 rows instead of several per row.
type squaresModule struct{}

func (squaresModule) EponymousOnlyModule() {}

func (m squaresModule) Create(c *driver.SQLiteConn, args []string) (driver.VTab, error) {
	return m.Connect(c, args)
}

func (squaresModule) Connect(c *driver.SQLiteConn, args []string) (driver.VTab, error) {
	return squaresTable{}, c.DeclareVTab("CREATE TABLE x(i INTEGER, square INTEGER, n HIDDEN)")
}

func (squaresModule) DestroyModule() {}

type squaresTable struct{}

// BestIndex uses the constraint on n, the function's argument: it becomes Filter's vals[0].
func (squaresTable) BestIndex(cst []driver.InfoConstraint, ob []driver.InfoOrderBy) (*driver.IndexResult, error) {
	used := make([]bool, len(cst))
	for i, c := range cst {
		used[i] = c.Column == 2 && c.Op == driver.OpEQ && c.Usable
	}
	return &driver.IndexResult{Used: used}, nil
}

func (squaresTable) Open() (driver.VTabCursor, error) { return &squaresCursor{}, nil }
func (squaresTable) Disconnect() error                { return nil }
func (squaresTable) Destroy() error                   { return nil }

type squaresCursor struct{ i, n int64 }

func (c *squaresCursor) Filter(idxNum int, idxStr string, vals []any) error {
	c.i, c.n = 1, 0
	if len(vals) > 0 {
		c.n, _ = vals[0].(int64)
	}
	return nil
}

func (c *squaresCursor) Next() error           { c.i++; return nil }
func (c *squaresCursor) EOF() bool             { return c.i > c.n }
func (c *squaresCursor) Rowid() (int64, error) { return c.i, nil }
func (c *squaresCursor) Close() error          { return nil }

func (c *squaresCursor) Column(ctx *driver.SQLiteContext, col int) error {
	switch col {
	case 0:
		ctx.ResultInt64(c.i)
	case 1:
		ctx.ResultInt64(c.i * c.i)
	default:
		ctx.ResultInt64(c.n)
	}
	return nil
}

func ExampleConn_CreateModule() {
	db, err := sql.Open("sqlbatch", ":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	conn, err := db.Conn(ctx) // a module is registered on one connection (or in a ConnectHook)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		return dc.(*driver.SQLiteConn).CreateModule("squares", squaresModule{})
	})
	if err != nil {
		log.Fatal(err)
	}
	var sum int64
	if err := conn.QueryRowContext(ctx, "SELECT sum(square) FROM squares(?)", 100).Scan(&sum); err != nil {
		log.Fatal(err)
	}
	fmt.Println(sum)
	// Output: 338350
}
