package modernbench

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	"modernc.org/sqlite/vtab"

	"github.com/sqlbatch/sqlbatch/benches/go/internal/sqlwork"
	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
)

// vtab_scan and tvf_join with modernc.org/sqlite's virtual tables (modernc.org/sqlite/vtab):
// one Go call per row for Next and Eof and one per value read for Column, which returns the
// value boxed in a driver.Value. Its modules are registered for the connections the driver
// opens afterwards (vtab.RegisterModule) and are not eponymous: each workload's table is
// made by CREATE VIRTUAL TABLE on its connection (a virtual table with a hidden column reads
// as a table-valued function all the same).

var (
	vtabOnce sync.Once
	vtabErr  error
	// vtabRows is vtab_scan's rows, set before the module's first table is made.
	vtabRows *workload.VRows
)

// vtabSetup registers the modules gv (vtab_scan) and gpairs (tvf_join), once per process.
func vtabSetup(_ string, rows *workload.VRows) error {
	vtabRows = rows
	vtabOnce.Do(func() {
		vtabErr = vtab.RegisterModule(nil, "gv", &vmod{})
		if vtabErr == nil {
			vtabErr = vtab.RegisterModule(nil, "gpairs", &vmod{pairs: true})
		}
	})
	return vtabErr
}

// modernVTab makes v (vtab_scan) or pairs (tvf_join) on conn.
func modernVTab(ctx context.Context, conn *sql.Conn, w string, _ *workload.VRows) (string, error) {
	name, mod := "v", "gv"
	if w == workload.TVFJoin {
		name, mod = "pairs", "gpairs"
	}
	_, err := conn.ExecContext(ctx, fmt.Sprintf("CREATE VIRTUAL TABLE temp.%s USING %s", name, mod))
	return name, err
}

type vmod struct{ pairs bool }

func (m *vmod) Create(ctx vtab.Context, args []string) (vtab.Table, error) {
	return m.Connect(ctx, args)
}

func (m *vmod) Connect(ctx vtab.Context, _ []string) (vtab.Table, error) {
	schema := workload.VScanSchema
	if m.pairs {
		schema = workload.PairsSchema
	}
	if err := ctx.Declare(schema); err != nil {
		return nil, err
	}
	return &vtable{m: m, rows: vtabRows}, nil
}

type vtable struct {
	m    *vmod
	rows *workload.VRows
}

func (t *vtable) BestIndex(info *vtab.IndexInfo) error {
	if !t.m.pairs {
		return nil
	}
	info.EstimatedCost = sqlwork.NoPairsCost
	if i := sqlwork.PairsArg(len(info.Constraints), func(i int) (int, bool, bool) {
		c := &info.Constraints[i]
		return c.Column, c.Op == vtab.OpEQ, c.Usable
	}); i >= 0 {
		info.Constraints[i].ArgIndex, info.Constraints[i].Omit = 0, true
		info.IdxNum, info.EstimatedCost = 1, sqlwork.PairsCost
	}
	return nil
}

func (t *vtable) Open() (vtab.Cursor, error) {
	if t.m.pairs {
		return &pairsCursor{}, nil
	}
	return &scanCursor{rows: t.rows}, nil
}

func (t *vtable) Disconnect() error { return nil }
func (t *vtable) Destroy() error    { return nil }

type scanCursor struct {
	rows *workload.VRows
	i    int
}

func (c *scanCursor) Filter(int, string, []vtab.Value) error { c.i = 0; return nil }
func (c *scanCursor) Next() error                            { c.i++; return nil }
func (c *scanCursor) Eof() bool                              { return c.i >= c.rows.N }
func (c *scanCursor) Rowid() (int64, error)                  { return int64(c.i) + 1, nil }
func (c *scanCursor) Close() error                           { return nil }

func (c *scanCursor) Column(col int) (vtab.Value, error) {
	switch col {
	case 0:
		return int64(c.i), nil
	case 1:
		return float64(c.i) * 0.5, nil
	case 2:
		return c.rows.C[c.i], nil
	case 3:
		if d, ok := workload.VRowD(c.i); ok {
			return d, nil
		}
		return nil, nil
	}
	return nil, fmt.Errorf("vtab_scan has no column %d", col)
}

type pairsCursor struct{ j, n int64 }

func (c *pairsCursor) Filter(idxNum int, _ string, vals []vtab.Value) error {
	c.j, c.n = 0, 0
	if idxNum == 1 && len(vals) > 0 {
		c.n, _ = vals[0].(int64)
	}
	return nil
}

func (c *pairsCursor) Next() error           { c.j++; return nil }
func (c *pairsCursor) Eof() bool             { return c.j >= c.n }
func (c *pairsCursor) Rowid() (int64, error) { return c.j + 1, nil }
func (c *pairsCursor) Close() error          { return nil }

func (c *pairsCursor) Column(col int) (vtab.Value, error) {
	switch col {
	case 0:
		return workload.PairKey(c.j), nil
	case 1:
		return workload.PairWeight(c.j), nil
	}
	return c.n, nil
}
