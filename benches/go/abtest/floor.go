//go:build sqlbatch_dynamic

package abtest

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"

	"github.com/sqlbatch/sqlbatch/benches/go/internal/sqlwork"
	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// floorDriver serves the rows of a query from memory: they are read once through the
// low-level package and kept as driver.Values, and Next only copies a row's values into
// dest. What remains is database/sql's cost and the workload's loop.
type floorDriver struct{}

type floorResult struct {
	cols []string
	rows [][]driver.Value
}

// floorConn keeps the results of its queries: by SQL text, and for a query with one
// integer argument (point_query, few_rows) by that argument too. They are read the first time
// through a connection of the low-level package (the workloads' untimed first repetition),
// so that a timed query costs two map lookups.
type floorConn struct {
	path string
	db   *sqlbatch.Conn
	byQ  map[string]*floorQuery
}

type floorQuery struct {
	all   *floorResult
	byArg map[int64]*floorResult
}

type floorRows struct {
	res *floorResult
	i   int
}

var errFloor = errors.New("floor driver: not supported (a statement's Query, or arguments other than one integer)")

func (floorDriver) Open(name string) (driver.Conn, error) {
	return &floorConn{path: name, byQ: map[string]*floorQuery{}}, nil
}

// Prepare, Begin and the statements and transactions they return do nothing, so that the
// write workloads (prepare_churn, small_tx) measure database/sql's own cost per statement
// and transaction; their checksums then do not match (nothing is written).
func (c *floorConn) Prepare(string) (driver.Stmt, error) { return floorStmt{}, nil }
func (c *floorConn) Begin() (driver.Tx, error)           { return floorTx{}, nil }

type floorStmt struct{}

func (floorStmt) Close() error  { return nil }
func (floorStmt) NumInput() int { return -1 }
func (floorStmt) Exec([]driver.Value) (driver.Result, error) {
	return driver.RowsAffected(1), nil
}
func (floorStmt) Query([]driver.Value) (driver.Rows, error) { return nil, errFloor }

type floorTx struct{}

func (floorTx) Commit() error   { return nil }
func (floorTx) Rollback() error { return nil }

func (c *floorConn) Close() error {
	if c.db != nil {
		return c.db.Close()
	}
	return nil
}

// Exec runs statements without arguments (the workloads' untimed set-up: PRAGMAs, CREATE
// TABLE) on the file, and does nothing with arguments.
func (c *floorConn) Exec(q string, args []driver.Value) (driver.Result, error) {
	if len(args) > 0 {
		return driver.RowsAffected(1), nil
	}
	if err := c.open(); err != nil {
		return nil, err
	}
	if _, err := c.db.ExecScript(q); err != nil {
		return nil, err
	}
	return driver.ResultNoRows, nil
}

func (c *floorConn) open() error {
	if c.db != nil {
		return nil
	}
	db, err := sqlbatch.Open(c.path)
	if err != nil {
		return err
	}
	c.db = db
	return nil
}

func (c *floorConn) Query(q string, args []driver.Value) (driver.Rows, error) {
	if q == workload.ChurnCheck {
		// The write workloads' check query: the floor wrote nothing.
		return &floorRows{res: &floorResult{cols: []string{"count", "sum"}, rows: [][]driver.Value{{int64(0), int64(0)}}}}, nil
	}
	fq := c.byQ[q]
	if fq == nil {
		fq = &floorQuery{byArg: map[int64]*floorResult{}}
		c.byQ[q] = fq
	}
	var res *floorResult
	switch {
	case len(args) == 0:
		res = fq.all
	case len(args) == 1:
		k, ok := args[0].(int64)
		if !ok {
			return nil, errFloor
		}
		res = fq.byArg[k]
	default:
		return nil, errFloor
	}
	if res == nil {
		var err error
		if res, err = c.load(q, args); err != nil {
			return nil, err
		}
		if len(args) == 0 {
			fq.all = res
		} else {
			fq.byArg[args[0].(int64)] = res
		}
	}
	return &floorRows{res: res}, nil
}

func (c *floorConn) load(q string, args []driver.Value) (*floorResult, error) {
	if err := c.open(); err != nil {
		return nil, err
	}
	a := make([]any, len(args))
	for i, v := range args {
		a[i] = v
	}
	r, err := c.db.Query(q, a...)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	res := &floorResult{cols: r.Stmt().ColumnNames()}
	for r.Next() {
		row := make([]driver.Value, len(res.cols))
		for i := range row {
			row[i] = r.Value(i)
		}
		res.rows = append(res.rows, row)
	}
	return res, r.Err()
}

func (r *floorRows) Columns() []string { return r.res.cols }
func (r *floorRows) Close() error      { return nil }

func (r *floorRows) Next(dest []driver.Value) error {
	if r.i == len(r.res.rows) {
		return io.EOF
	}
	copy(dest, r.res.rows[r.i])
	r.i++
	return nil
}

func init() { sql.Register("sqlbatch-floor", floorDriver{}) }

// Floor is the floor driver for the database/sql workloads it serves (see floorConn, and
// Prepare for the write workloads). Cached: point_query and few_rows query by SQL text.
var Floor = sqlwork.Driver{Name: "sqlbatch-floor", DSN: func(p string) string { return p }, Cached: true}
