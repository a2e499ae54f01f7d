package sqlwork

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
)

// vtab_scan, tvf_join and in_list through database/sql. The virtual tables are each driver's
// own module API, reached through sql.Conn.Raw (Driver.VTab); the cursors of the
// mattn/go-sqlite3-shaped ones (mattn's sqlite_vtable tag, and the sqlbatch driver's copy of
// it) are written once, here, over the context type they share the methods of.

// Resulter is what the SQLiteContext of mattn/go-sqlite3 and of the sqlbatch driver have in
// common, as VTabCursor.Column uses it.
type Resulter interface {
	ResultInt64(int64)
	ResultDouble(float64)
	ResultText(string)
	ResultNull()
}

// ScanCursor is a mattn-shaped cursor over vtab_scan's rows: Column sets each value.
type ScanCursor[C Resulter] struct {
	Rows *workload.VRows
	i    int
}

func (c *ScanCursor[C]) Filter(int, string, []any) error { c.i = 0; return nil }
func (c *ScanCursor[C]) Next() error                     { c.i++; return nil }
func (c *ScanCursor[C]) EOF() bool                       { return c.i >= c.Rows.N }
func (c *ScanCursor[C]) Rowid() (int64, error)           { return int64(c.i) + 1, nil }
func (c *ScanCursor[C]) Close() error                    { return nil }

// Column sets column col of row i: (i, i * 0.5, c, d).
func (c *ScanCursor[C]) Column(ctx C, col int) error {
	switch col {
	case 0:
		ctx.ResultInt64(int64(c.i))
	case 1:
		ctx.ResultDouble(float64(c.i) * 0.5)
	case 2:
		ctx.ResultText(c.Rows.C[c.i])
	case 3:
		if d, ok := workload.VRowD(c.i); ok {
			ctx.ResultInt64(d)
		} else {
			ctx.ResultNull()
		}
	default:
		return fmt.Errorf("vtab_scan has no column %d", col)
	}
	return nil
}

// PairsCursor is a mattn-shaped cursor of pairs(n), whose rows Column makes as they are read.
type PairsCursor[C Resulter] struct {
	j, n int64
}

// Filter takes n from vals[0] (BestIndex used the hidden column's constraint).
func (c *PairsCursor[C]) Filter(_ int, _ string, vals []any) error {
	c.j, c.n = 0, 0
	if len(vals) > 0 {
		c.n, _ = vals[0].(int64)
	}
	return nil
}

func (c *PairsCursor[C]) Next() error           { c.j++; return nil }
func (c *PairsCursor[C]) EOF() bool             { return c.j >= c.n }
func (c *PairsCursor[C]) Rowid() (int64, error) { return c.j + 1, nil }
func (c *PairsCursor[C]) Close() error          { return nil }

// Column sets column col of row j: (k, w, n).
func (c *PairsCursor[C]) Column(ctx C, col int) error {
	switch col {
	case 0:
		ctx.ResultInt64(workload.PairKey(c.j))
	case 1:
		ctx.ResultInt64(workload.PairWeight(c.j))
	default:
		ctx.ResultInt64(c.n)
	}
	return nil
}

// PairsArg is the constraint pairs' BestIndex uses, given each constraint's column, whether
// it is an equality and whether it is usable: the usable equality on the hidden column n
// (column 2); -1 if there is none (the plan is then priced out).
func PairsArg(n int, con func(i int) (col int, eq, usable bool)) int {
	for i := range n {
		if col, eq, usable := con(i); col == 2 && eq && usable {
			return i
		}
	}
	return -1
}

// Costs of pairs' plans: with its argument, and the full scan SQLite must not choose.
const (
	PairsCost   = 1e5
	NoPairsCost = 1e12
)

// vtab is vtab_scan and tvf_join: one connection (to a private database for vtab_scan, to
// app.db for tvf_join) on which d.VTab made the table, kept across the repetitions; each
// repetition runs the query (prepare, step, finalize, as the driver does them) and reads
// its two numbers.
func (d Driver) vtab(w, input string) (workload.Rep, func(), error) {
	if d.VTab == nil || workload.Ahead {
		return nil, nil, workload.ErrUnsupported
	}
	var rows *workload.VRows
	if w == workload.VtabScan {
		n, err := workload.VRowCount(input)
		if err != nil {
			return nil, nil, err
		}
		rows = workload.MakeVRows(n)
	}
	if d.VTabSetup != nil {
		if err := d.VTabSetup(w, rows); err != nil {
			return nil, nil, err
		}
	}
	var db *sql.DB
	var err error
	if w == workload.VtabScan {
		db, err = sql.Open(d.Name, d.DSN(":memory:"))
		if err == nil {
			db.SetMaxOpenConns(1)
			db.SetMaxIdleConns(1)
		}
	} else if db, err = d.openFile(input); err == nil {
		if _, err = db.Exec(workload.Synchronous); err != nil {
			db.Close()
		}
	}
	if err != nil {
		return nil, nil, err
	}
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	cleanup := func() { conn.Close(); db.Close() }
	name, err := d.VTab(ctx, conn, w, rows)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	q := workload.TVFQuery(name)
	if w == workload.VtabScan {
		q = workload.VScanQuery(name)
	}
	rep := func(t workload.Timer) (count, sum int64, err error) {
		t.Start()
		err = conn.QueryRowContext(ctx, q).Scan(&count, &sum)
		t.Stop()
		return count, count + sum, err
	}
	return rep, cleanup, nil
}

// inList is in_list: app.db (one connection, synchronous=NORMAL); each query's 100 ids
// bound as one table (d.ListArg) or one placeholder each, as the driver's users write it.
// Without the driver's statement cache, the query is a *sql.Stmt prepared once (untimed).
func (d Driver) inList(input string) (workload.Rep, func(), error) {
	if workload.Ahead {
		return nil, nil, workload.ErrUnsupported
	}
	db, err := d.openFile(input)
	if err != nil {
		return nil, nil, err
	}
	if _, err := db.Exec(workload.Synchronous); err != nil {
		db.Close()
		return nil, nil, err
	}
	q := workload.InListQuery(workload.Placeholders(workload.InListIDs))
	if d.ListArg != nil {
		q = workload.InListQuery(d.ListSQL)
	}
	var st *sql.Stmt
	if !d.Cached {
		if st, err = db.Prepare(q); err != nil {
			db.Close()
			return nil, nil, err
		}
	}
	cleanup := func() {
		if st != nil {
			st.Close()
		}
		db.Close()
	}
	ctx := context.Background()
	rep := func(t workload.Timer) (count, sum int64, err error) {
		ids := make([]int64, workload.InListIDs)
		args := make([]any, workload.InListIDs)
		one := make([]any, 1)
		var n, s int64
		t.Start()
		defer t.Stop()
		for qi := range workload.InListQueries {
			for j := range ids {
				ids[j] = workload.InListID(qi, j)
			}
			a := args
			if d.ListArg != nil {
				one[0] = d.ListArg(ids)
				a = one
			} else {
				for j, id := range ids {
					a[j] = id
				}
			}
			if st == nil {
				err = db.QueryRowContext(ctx, q, a...).Scan(&n, &s)
			} else {
				err = st.QueryRowContext(ctx, a...).Scan(&n, &s)
			}
			if err != nil {
				return 0, 0, err
			}
			sum += n + s
		}
		return workload.InListQueries, sum, nil
	}
	return rep, cleanup, nil
}
