package sbwork

import (
	"context"
	"database/sql"
	"fmt"
	"os"

	"github.com/sqlbatch/sqlbatch/benches/go/internal/sqlwork"
	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	sqldriver "github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

// The virtual table and table-valued parameter workloads through the low-level package:
// batched modules (sqlbatch.Conn.CreateModule) and sqlbatch.Array.

// VtabBatchRows is how many rows a Fill hands over: the modules' ModuleOptions.BatchRows,
// the library's default.
const VtabBatchRows = 256

// vscan is vtab_scan's module. With prebuilt set (go-sqlbatch), its rows are laid out in
// advance as cells, one sqlbatch.Params per batch, and Fill does nothing but hand one over
// (RowWriter.AppendRows, whose arrays are what crosses into C): the floor of a Go module,
// what remains being the crossing, the copy the library makes, and SQLite's per-value calls
// into the library. Without it (go-sqlbatch-writer, a Go benchmark), Fill writes each value
// of each row (RowWriter.Int64, Float64, Text, Null), as a module that makes its rows as
// they are read does.
type vscan struct {
	rows     *workload.VRows
	batches  []sqlbatch.Params
	prebuilt bool
}

type vscanCursor struct {
	m    *vscan
	i, k int
}

func newVScan(rows *workload.VRows, prebuilt bool) *vscan {
	m := &vscan{rows: rows, prebuilt: prebuilt}
	if !prebuilt {
		return m
	}
	m.batches = make([]sqlbatch.Params, (rows.N+VtabBatchRows-1)/VtabBatchRows)
	for i := range rows.N {
		p := &m.batches[i/VtabBatchRows]
		p.Int64(int64(i)).Float64(float64(i) * 0.5).Text(rows.C[i])
		if d, ok := workload.VRowD(i); ok {
			p.Int64(d)
		} else {
			p.Null()
		}
	}
	return m
}

func (m *vscan) Connect(*sqlbatch.Conn, []string, bool) (string, sqlbatch.VirtualTable, error) {
	return workload.VScanSchema, m, nil
}

func (m *vscan) Open() (sqlbatch.Cursor, error) { return &vscanCursor{m: m}, nil }

func (c *vscanCursor) Filter(int, sqlbatch.FilterArgs) error {
	c.i, c.k = 0, 0
	return nil
}

func (c *vscanCursor) Fill(w *sqlbatch.RowWriter) (bool, error) {
	if c.m.prebuilt {
		if c.k < len(c.m.batches) {
			if err := w.AppendRows(&c.m.batches[c.k], 4); err != nil {
				return false, err
			}
			c.k++
		}
		return c.k == len(c.m.batches), nil
	}
	rows := c.m.rows
	for ; c.i < rows.N && !w.Full(); c.i++ {
		w.Int64(int64(c.i)).Float64(float64(c.i) * 0.5).Text(rows.C[c.i])
		if d, ok := workload.VRowD(c.i); ok {
			w.Int64(d)
		} else {
			w.Null()
		}
		w.EndRow()
	}
	return c.i == rows.N, nil
}

func (c *vscanCursor) Close() {}

// pairs is tvf_join's table-valued function pairs(n): BestIndex takes the equality on its
// hidden column n as Filter's argument, and Fill makes each batch's rows as they are read.
type pairs struct{}

type pairsCursor struct{ j, n int64 }

func (pairs) Connect(*sqlbatch.Conn, []string, bool) (string, sqlbatch.VirtualTable, error) {
	return workload.PairsSchema, pairs{}, nil
}

func (pairs) BestIndex(ix *sqlbatch.IndexInfo) error {
	i := sqlwork.PairsArg(len(ix.Constraints), func(i int) (int, bool, bool) {
		c := &ix.Constraints[i]
		return c.Column, c.Op == sqlbatch.IndexEQ, c.Usable
	})
	if i < 0 {
		return sqlbatch.ErrConstraint
	}
	ix.Use(i, true)
	ix.IdxNum = 1
	ix.EstimatedCost = sqlwork.PairsCost
	return nil
}

func (pairs) Open() (sqlbatch.Cursor, error) { return &pairsCursor{}, nil }

func (c *pairsCursor) Filter(idxNum int, args sqlbatch.FilterArgs) error {
	c.j, c.n = 0, 0
	if idxNum == 1 {
		c.n = args.Int64(0)
	}
	return nil
}

func (c *pairsCursor) Fill(w *sqlbatch.RowWriter) (bool, error) {
	for ; c.j < c.n && !w.Full(); c.j++ {
		w.Int64(workload.PairKey(c.j)).Int64(workload.PairWeight(c.j)).EndRow()
	}
	return c.j == c.n, nil
}

func (c *pairsCursor) Close() {}

// vtab is vtab_scan and tvf_join through the low-level package: the module registered
// (eponymous only) on a connection kept across the repetitions; each repetition prepares the
// query, fetches its one row and finalizes it, as c-sqlbatch does.
func vtab(w, input string, prebuilt bool) (workload.Rep, func(), error) {
	var c *sqlbatch.Conn
	var err error
	var q string
	if w == workload.VtabScan {
		n, err := workload.VRowCount(input)
		if err != nil {
			return nil, nil, err
		}
		rows := workload.MakeVRows(n)
		if c, err = sqlbatch.Open(":memory:"); err != nil {
			return nil, nil, err
		}
		err = c.CreateModule("v", newVScan(rows, prebuilt), sqlbatch.ModuleOptions{EponymousOnly: true, BatchRows: VtabBatchRows})
		q = workload.VScanQuery("v")
	} else {
		if _, err := os.Stat(input); err != nil {
			return nil, nil, err
		}
		if c, err = sqlbatch.Open(input); err != nil {
			return nil, nil, err
		}
		if _, err = c.ExecScript(workload.Synchronous); err == nil {
			err = c.CreateModule("pairs", pairs{}, sqlbatch.ModuleOptions{EponymousOnly: true, BatchRows: VtabBatchRows})
		}
		q = workload.TVFQuery("pairs")
	}
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	rep := func(t workload.Timer) (count, sum int64, err error) {
		t.Start()
		count, sum, err = check(c, q)
		t.Stop()
		return count, count + sum, err
	}
	return rep, func() { c.Close() }, nil
}

// LowLevelWriter is the low-level package with vtab_scan's rows written value by value in
// each Fill (see vscan): a Go benchmark beside go-sqlbatch's prebuilt rows.
func LowLevelWriter(w, input string) (workload.Rep, func(), error) {
	if w != workload.VtabScan {
		return nil, nil, workload.ErrUnsupported
	}
	return vtab(w, input, false)
}

// inList is in_list through the low-level package: the query prepared once (untimed); per
// query the 100 ids as one sqlbatch.Array, bound and the first batch fetched in one call into
// C (Stmt.QueryParams).
func inList(input string) (workload.Rep, func(), error) {
	if _, err := os.Stat(input); err != nil {
		return nil, nil, err
	}
	c, err := sqlbatch.Open(input)
	if err != nil {
		return nil, nil, err
	}
	if _, err := c.ExecScript(workload.Synchronous); err != nil {
		c.Close()
		return nil, nil, err
	}
	s, err := c.Prepare(workload.InListQuery("sqlbatch_rows(?)"))
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	rep := func(t workload.Timer) (count, sum int64, err error) {
		ids := make([]int64, workload.InListIDs)
		var p sqlbatch.Params
		t.Start()
		defer t.Stop()
		for q := range workload.InListQueries {
			for j := range ids {
				ids[j] = workload.InListID(q, j)
			}
			p.Reset()
			if err := p.Any(sqlbatch.Array(ids)); err != nil {
				return 0, 0, err
			}
			rows, err := s.QueryParams(&p)
			if err != nil {
				return 0, 0, err
			}
			if !rows.Next() {
				if err := rows.Err(); err != nil {
					return 0, 0, err
				}
				return 0, 0, fmt.Errorf("in_list: no row")
			}
			sum += rows.Int64(0) + rows.Int64(1)
		}
		return workload.InListQueries, sum, nil
	}
	return rep, func() { s.Close(); c.Close() }, nil
}

// The database/sql driver's virtual tables: mattn/go-sqlite3's module API, which the driver
// keeps (driver.SQLiteConn.CreateModule), with the cursors of sqlwork that go-mattn runs too.

type mattnVMod struct {
	rows  *workload.VRows
	pairs bool
}

func (mattnVMod) EponymousOnlyModule() {}

func (m mattnVMod) Create(c *sqldriver.SQLiteConn, args []string) (sqldriver.VTab, error) {
	return m.Connect(c, args)
}

func (m mattnVMod) Connect(c *sqldriver.SQLiteConn, _ []string) (sqldriver.VTab, error) {
	schema := workload.VScanSchema
	if m.pairs {
		schema = workload.PairsSchema
	}
	return mattnVTab{m}, c.DeclareVTab(schema)
}

func (mattnVMod) DestroyModule() {}

type mattnVTab struct{ m mattnVMod }

func (t mattnVTab) BestIndex(cst []sqldriver.InfoConstraint, _ []sqldriver.InfoOrderBy) (*sqldriver.IndexResult, error) {
	res := &sqldriver.IndexResult{Used: make([]bool, len(cst))}
	if t.m.pairs {
		res.EstimatedCost = sqlwork.NoPairsCost
		if i := sqlwork.PairsArg(len(cst), func(i int) (int, bool, bool) {
			return cst[i].Column, cst[i].Op == sqldriver.OpEQ, cst[i].Usable
		}); i >= 0 {
			res.Used[i], res.EstimatedCost = true, sqlwork.PairsCost
		}
	}
	return res, nil
}

func (t mattnVTab) Open() (sqldriver.VTabCursor, error) {
	if t.m.pairs {
		return &sqlwork.PairsCursor[*sqldriver.SQLiteContext]{}, nil
	}
	return &sqlwork.ScanCursor[*sqldriver.SQLiteContext]{Rows: t.m.rows}, nil
}

func (mattnVTab) Disconnect() error { return nil }
func (mattnVTab) Destroy() error    { return nil }

// sqlVTab registers vtab_scan's table v or tvf_join's function pairs on conn, through
// sql.Conn.Raw and the driver's CreateModule (mattn/go-sqlite3's shape).
func sqlVTab(_ context.Context, conn *sql.Conn, w string, rows *workload.VRows) (string, error) {
	name := "v"
	if w == workload.TVFJoin {
		name = "pairs"
	}
	err := conn.Raw(func(dc any) error {
		return dc.(*sqldriver.SQLiteConn).CreateModule(name, mattnVMod{rows: rows, pairs: w == workload.TVFJoin})
	})
	return name, err
}

// sqlListArg is in_list's argument for the driver: the whole list, sqlbatch.Array.
func sqlListArg(ids []int64) any { return sqlbatch.Array(ids) }
