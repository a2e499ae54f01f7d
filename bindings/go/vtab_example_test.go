package sqlbatch_test

import (
	"fmt"
	"log"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// An IN list from the program: the whole list is one parameter, bound in the call that
// runs the query.
func ExampleArray() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecScript(`CREATE TABLE city(id INTEGER PRIMARY KEY, name TEXT);
		INSERT INTO city VALUES (1, 'Lyon'), (2, 'Turin'), (3, 'Porto'), (4, 'Ghent')`); err != nil {
		log.Fatal(err)
	}
	ids := []int64{4, 1, 9}
	rows, err := c.Query("SELECT name FROM city WHERE id IN sqlbatch_rows(?) ORDER BY name", sqlbatch.Array(ids))
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		fmt.Println(rows.Text(0))
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// Ghent
	// Lyon
}

// Rows held in slices, inserted by one statement: a table of their shape is declared once
// per connection, and read as a table-valued function of the bound table.
func ExampleTable() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecScript(`CREATE TABLE reading(sensor INTEGER, value REAL);
		CREATE VIRTUAL TABLE temp.incoming USING sqlbatch_rows(sensor INTEGER, value REAL)`); err != nil {
		log.Fatal(err)
	}
	sensors := []int{7, 7, 9}
	values := []float64{20.5, 21.0, 18.25}
	s, err := c.Prepare("INSERT INTO reading SELECT * FROM incoming(?)")
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	res, err := s.Exec(sqlbatch.Table(sensors, values))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Changes, "rows")
	rows, err := c.Query("SELECT sensor, avg(value) FROM reading GROUP BY sensor")
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		fmt.Println(rows.Int64(0), rows.Float64(1))
	}
	// Output:
	// 3 rows
	// 7 20.75
	// 9 18.25
}

// squares is a table-valued function, squares(n): the rows (i, i*i) for i in 1..n. Its
// cursor writes up to w.Max() rows per Fill, which reach SQLite in one call into C.
type squares struct{}

func (squares) Connect(*sqlbatch.Conn, []string, bool) (string, sqlbatch.VirtualTable, error) {
	return "CREATE TABLE x(i INTEGER, square INTEGER, n HIDDEN)", squares{}, nil
}

// BestIndex takes n = ? (the function's argument) as Filter's argument; without it, the
// plan cannot be used.
func (squares) BestIndex(ix *sqlbatch.IndexInfo) error {
	for i, c := range ix.Constraints {
		if c.Column == 2 && c.Op == sqlbatch.IndexEQ {
			if !c.Usable {
				return sqlbatch.ErrConstraint
			}
			ix.Use(i, true)
			ix.IdxNum = 1
		}
	}
	return nil
}

func (squares) Open() (sqlbatch.Cursor, error) { return &squaresCursor{}, nil }

type squaresCursor struct{ i, n int64 }

func (c *squaresCursor) Filter(idxNum int, args sqlbatch.FilterArgs) error {
	c.i, c.n = 1, 0
	if idxNum == 1 {
		c.n = args.Int64(0)
	}
	return nil
}

func (c *squaresCursor) Fill(w *sqlbatch.RowWriter) (done bool, err error) {
	for ; c.i <= c.n && !w.Full(); c.i++ {
		w.Int64(c.i).Int64(c.i * c.i).EndRow()
	}
	return c.i > c.n, nil
}

func (c *squaresCursor) Close() {}

func ExampleConn_CreateModule() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if err := c.CreateModule("squares", squares{}, sqlbatch.ModuleOptions{EponymousOnly: true}); err != nil {
		log.Fatal(err)
	}
	rows, err := c.Query("SELECT i, square FROM squares(?) WHERE square > 10", 5)
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		fmt.Println(rows.Int64(0), rows.Int64(1))
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// 4 16
	// 5 25
}
