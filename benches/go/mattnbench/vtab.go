//go:build sqlite_vtable

package mattnbench

import (
	"context"
	"database/sql"
	"fmt"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/sqlbatch/sqlbatch/benches/go/internal/sqlwork"
	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
)

// vtab_scan and tvf_join with mattn/go-sqlite3's virtual tables (its sqlite_vtable build
// tag, which benches/go/Makefile builds go-mattn-bench with): one call from C into Go per
// row for xNext, xEof (and xRowid when asked) and one per value read for xColumn. The
// cursors are sqlwork's, which the sqlbatch driver runs too.

var vtabHook = mattnVTab

// vmod is an eponymous-only module: vtab_scan's table v, or tvf_join's function pairs.
type vmod struct {
	rows  *workload.VRows
	pairs bool
}

func (vmod) EponymousOnlyModule() {}

func (m vmod) Create(c *sqlite3.SQLiteConn, args []string) (sqlite3.VTab, error) {
	return m.Connect(c, args)
}

func (m vmod) Connect(c *sqlite3.SQLiteConn, _ []string) (sqlite3.VTab, error) {
	schema := workload.VScanSchema
	if m.pairs {
		schema = workload.PairsSchema
	}
	return vtable{m}, c.DeclareVTab(schema)
}

func (vmod) DestroyModule() {}

type vtable struct{ m vmod }

func (t vtable) BestIndex(cst []sqlite3.InfoConstraint, _ []sqlite3.InfoOrderBy) (*sqlite3.IndexResult, error) {
	res := &sqlite3.IndexResult{Used: make([]bool, len(cst))}
	if t.m.pairs {
		res.EstimatedCost = sqlwork.NoPairsCost
		if i := sqlwork.PairsArg(len(cst), func(i int) (int, bool, bool) {
			return cst[i].Column, cst[i].Op == sqlite3.OpEQ, cst[i].Usable
		}); i >= 0 {
			res.Used[i], res.EstimatedCost = true, sqlwork.PairsCost
		}
	}
	return res, nil
}

func (t vtable) Open() (sqlite3.VTabCursor, error) {
	if t.m.pairs {
		return &sqlwork.PairsCursor[*sqlite3.SQLiteContext]{}, nil
	}
	return &sqlwork.ScanCursor[*sqlite3.SQLiteContext]{Rows: t.m.rows}, nil
}

func (vtable) Disconnect() error { return nil }
func (vtable) Destroy() error    { return nil }

// mattnVTab registers v or pairs on conn through sql.Conn.Raw and mattn's CreateModule.
func mattnVTab(_ context.Context, conn *sql.Conn, w string, rows *workload.VRows) (string, error) {
	name := "v"
	if w == workload.TVFJoin {
		name = "pairs"
	}
	err := conn.Raw(func(dc any) error {
		c, ok := dc.(*sqlite3.SQLiteConn)
		if !ok {
			return fmt.Errorf("sql.Conn.Raw gave %T", dc)
		}
		return c.CreateModule(name, vmod{rows: rows, pairs: w == workload.TVFJoin})
	})
	return name, err
}
