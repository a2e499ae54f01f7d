//go:build sqlbatch_dynamic

package abtest

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"sync"

	"github.com/sqlbatch/sqlbatch/benches/go/internal/sqlwork"
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

var (
	floorMu    sync.Mutex
	floorCache = map[string]*floorResult{}
)

type floorConn struct{ path string }

type floorRows struct {
	res *floorResult
	i   int
}

var errFloor = errors.New("floor driver: queries only")

func (floorDriver) Open(name string) (driver.Conn, error) { return &floorConn{name}, nil }

func (c *floorConn) Prepare(string) (driver.Stmt, error) { return nil, errFloor }
func (c *floorConn) Close() error                        { return nil }
func (c *floorConn) Begin() (driver.Tx, error)           { return nil, errFloor }

func (c *floorConn) Query(q string, args []driver.Value) (driver.Rows, error) {
	floorMu.Lock()
	defer floorMu.Unlock()
	k := c.path + "\x00" + q
	res := floorCache[k]
	if res == nil {
		db, err := sqlbatch.Open(c.path)
		if err != nil {
			return nil, err
		}
		defer db.Close()
		r, err := db.Query(q)
		if err != nil {
			return nil, err
		}
		res = &floorResult{cols: r.Stmt().ColumnNames()}
		for r.Next() {
			row := make([]driver.Value, len(res.cols))
			for i := range row {
				row[i] = r.Value(i)
			}
			res.rows = append(res.rows, row)
		}
		if err := r.Err(); err != nil {
			return nil, err
		}
		r.Close()
		floorCache[k] = res
	}
	return &floorRows{res: res}, nil
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

// Floor is the floor driver for the database/sql workloads (fetches only).
var Floor = sqlwork.Driver{Name: "sqlbatch-floor", DSN: func(p string) string { return p }}
