// Package sbwork holds the sqlbatch implementations of the benchmark workloads: the
// low-level package and the database/sql driver. It has no cgo of its own, so that it links
// whichever libsqlbatch the binding is built against: the static library in sqlbatchbench
// (beside the native C baseline) or the shared one in abtest (beside mattn/go-sqlite3).
package sbwork

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/sqlbatch/sqlbatch/benches/go/internal/sqlwork"
	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	sqldriver "github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

// The implementations here that honour workload.Ahead (issue 14).
func init() {
	workload.AheadImpls["go-sqlbatch"] = true
	workload.AheadImpls["go-sqlbatch-sql"] = true
}

// The implementations here that honour workload.Key and workload.BulkFile (issue 34): in a
// command linked against the encrypted build (cmd/go-sqlbatch-bench-enc), the low-level
// package opens with OpenEncrypted, the driver with the DSN's _pragma_key.
func init() {
	workload.EncImpls["go-sqlbatch"] = true
	workload.EncImpls["go-sqlbatch-sql"] = true
}

// open opens a database of a workload: with workload.Key, encrypted with it (SQLCipher's
// default settings).
func open(path string, flags sqlbatch.OpenFlags) (*sqlbatch.Conn, error) {
	if workload.Key != "" {
		return sqlbatch.OpenEncrypted(path, flags, []byte(workload.Key), nil)
	}
	return sqlbatch.OpenWithFlags(path, flags)
}

// dsnOptions are the DSN's options of the driver rows: _fetch_ahead=1 with workload.Ahead,
// _pragma_key with workload.Key.
func dsnOptions() string {
	var o []string
	if workload.Ahead {
		o = append(o, "_fetch_ahead=1")
	}
	if workload.Key != "" {
		o = append(o, "_pragma_key="+url.QueryEscape(workload.Key))
	}
	if len(o) == 0 {
		return ""
	}
	return "?" + strings.Join(o, "&")
}

// BulkChunk is how many rows the bulk inserts pass per call into C: large enough that the
// call's cost vanishes, small enough that the parameter values stay in the CPU's caches.
const BulkChunk = 4096

// SQL is the sqlbatch database/sql driver; its bulk insert goes through sql.Conn.Raw to
// the driver's ExecMany. Issue 14: with workload.Ahead, DSN adds the driver's fetch-ahead
// option (_fetch_ahead=1) and Bulk runs the chunks through ExecManyFunc (write-behind).
var SQL = sqlwork.Driver{
	Name:    sqldriver.DriverName,
	DSN:     func(path string) string { return path + dsnOptions() },
	UDF:     sqlUDF,
	Cached:  true,
	Blob:    sqlBlob,
	Backup:  sqlBackup,
	VTab:    sqlVTab,
	ListArg: sqlListArg,
	ListSQL: "sqlbatch_rows(?)",
	Bulk: func(ctx context.Context, conn *sql.Conn, rows *workload.BulkRows) error {
		if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
			return err
		}
		err := conn.Raw(func(dc any) error {
			c := dc.(*sqldriver.Conn)
			if workload.Ahead {
				i := 0
				_, err := c.ExecManyFunc(ctx, workload.BulkInsertQ, func(p *sqlbatch.Params) error {
					j := min(i+BulkChunk, len(rows.A))
					err := p.AppendColumns(rows.A[i:j], rows.B[i:j], rows.C[i:j])
					i = j
					return err
				})
				return err
			}
			var p sqlbatch.Params
			for i := 0; i < len(rows.A); i += BulkChunk {
				j := min(i+BulkChunk, len(rows.A))
				p.Reset()
				if err := p.AppendColumns(rows.A[i:j], rows.B[i:j], rows.C[i:j]); err != nil {
					return err
				}
				if _, err := c.ExecMany(ctx, workload.BulkInsertQ, &p); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			conn.ExecContext(ctx, "ROLLBACK")
			return err
		}
		_, err = conn.ExecContext(ctx, "COMMIT")
		return err
	},
}

// sqlUDF is the name of the sqlbatch driver whose connections have the udf workloads' f and
// sumsq, registered by its ConnectHook as a program ported from mattn/go-sqlite3 does.
const sqlUDF = "sqlbatch_udf"

func init() {
	sql.Register(sqlUDF, &sqldriver.Driver{ConnectHook: func(c *sqldriver.SQLiteConn) error {
		return sqlwork.RegisterUDF(c)
	}})
}

// SQLStmtLoop is the sqlbatch driver doing bulk_insert with database/sql's prepared
// statement loop (what mattn/go-sqlite3 and modernc.org/sqlite do), for comparison.
var SQLStmtLoop = sqlwork.Driver{Name: sqldriver.DriverName, DSN: SQL.DSN}

// LowLevel is the low-level package.
func LowLevel(w, input string) (workload.Rep, func(), error) {
	switch w {
	case workload.FetchNarrow, workload.FetchNarrow1M, workload.FetchWide, workload.FetchWork:
		if _, err := os.Stat(input); err != nil {
			return nil, nil, err
		}
		// Issue 14: with workload.Ahead, the connection fetches ahead (OpenFetchAhead), and
		// bulk below writes behind (ExecManyFunc).
		flags := sqlbatch.OpenFlags(0)
		if workload.Ahead {
			flags = sqlbatch.OpenFetchAhead
		}
		c, err := open(input, flags)
		if err != nil {
			return nil, nil, err
		}
		fetch := fetchNarrow
		switch w {
		case workload.FetchWide:
			fetch = fetchWide
		case workload.FetchWork:
			fetch = fetchWork
		}
		return func(t workload.Timer) (int64, int64, error) { return fetch(t, c) }, func() { c.Close() }, nil
	case workload.ExecScript, workload.ExecScript10k:
		script, err := os.ReadFile(input)
		if err != nil {
			return nil, nil, err
		}
		s := string(script)
		return func(t workload.Timer) (int64, int64, error) { return execScript(t, s) }, func() {}, nil
	case workload.BulkInsert:
		n, err := workload.BulkCount(input)
		if err != nil {
			return nil, nil, err
		}
		rows := workload.MakeBulkRows(n)
		return func(t workload.Timer) (int64, int64, error) { return bulkInsert(t, rows) }, func() {}, nil
	case workload.UDFScalar, workload.UDFAggregate:
		if _, err := os.Stat(input); err != nil {
			return nil, nil, err
		}
		c, err := sqlbatch.Open(input)
		if err != nil {
			return nil, nil, err
		}
		if err := RegisterUDF(c); err != nil {
			c.Close()
			return nil, nil, err
		}
		query := func(q string) (int64, error) { return queryInt(c, q) }
		return workload.UDFRep(w, query), func() { c.Close() }, nil
	case workload.UpdateHook:
		return updateHook(input, true)
	case workload.PointQuery, workload.FewRows, workload.LargeValues:
		return appRead(w, input)
	case workload.PrepareChurn, workload.SmallTx:
		return appWrite(w, input)
	case workload.BlobRead, workload.BlobMany:
		return blobs(w, input)
	case workload.Backup:
		return backup(input)
	case workload.VtabScan, workload.TVFJoin, workload.InList:
		if workload.Ahead {
			return nil, nil, workload.ErrUnsupported
		}
		if w == workload.InList {
			return inList(input)
		}
		return vtab(w, input, true)
	}
	return nil, nil, workload.ErrUnsupported
}

// LowLevelEvent is the low-level package with a per-event update hook (Conn.UpdateHook) for
// update_hook; it supports no other workload (LowLevel, with the change feed, is the batched
// form).
func LowLevelEvent(w, input string) (workload.Rep, func(), error) {
	if w != workload.UpdateHook {
		return nil, nil, workload.ErrUnsupported
	}
	return updateHook(input, false)
}

// updateHook opens the udf database with a counting change feed (batched) or update hook.
func updateHook(input string, batched bool) (workload.Rep, func(), error) {
	if _, err := os.Stat(input); err != nil {
		return nil, nil, err
	}
	c, err := sqlbatch.Open(input)
	if err != nil {
		return nil, nil, err
	}
	if batched {
		err = c.ChangeFeed(workload.UpdateFeedBatch, func(ch []sqlbatch.Change, _ sqlbatch.FeedReason) {
			var sum int64
			for i := range ch {
				sum += ch[i].RowID
			}
			workload.HookRows += int64(len(ch))
			workload.HookRowIDs += sum
		})
	} else {
		err = c.UpdateHook(workload.CountUpdate)
	}
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	exec := func(q string) error {
		_, err := c.ExecScript(q)
		return err
	}
	return workload.UpdateHookRep(exec), func() { c.Close() }, nil
}

// UDFBatchRows is how many rows of a group sumsq's Step takes per call (per crossing from C
// to Go), as the package's own example and benchmarks batch; the zero AggregateOptions
// would hand over one row per call.
const UDFBatchRows = 256

// RegisterUDF registers the udf workloads' f and sumsq on c with the low-level API: f is
// called once per row, sumsq's Step once per batch of rows.
func RegisterUDF(c *sqlbatch.Conn) error {
	err := c.CreateFunction("f", 1, sqlbatch.Deterministic, func(ctx *sqlbatch.Context, a sqlbatch.Args) {
		workload.UDFCalls++
		ctx.SetInt64(a.Int64(0)*2 + 1)
	})
	if err != nil {
		return err
	}
	opts := sqlbatch.AggregateOptions{BatchRows: UDFBatchRows}
	return c.CreateAggregate("sumsq", 1, opts, func() sqlbatch.AggregateGroup { return &sumSq{} })
}

// sumSq is a group of sumsq: the wrapping int64 sum of x*x.
type sumSq struct{ acc int64 }

func (g *sumSq) Step(_ *sqlbatch.Context, rows sqlbatch.ArgRows) {
	n := rows.Len()
	workload.UDFRows += int64(n)
	for i := range n {
		x := rows.Row(i).Int64(0)
		g.acc += x * x
	}
}

func (g *sumSq) Final(ctx *sqlbatch.Context) { ctx.SetInt64(g.acc) }

// queryInt prepares, steps and finalizes a query of one integer.
func queryInt(c *sqlbatch.Conn, query string) (int64, error) {
	s, err := c.Prepare(query)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	rows, err := s.Query()
	if err != nil {
		return 0, err
	}
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return 0, err
		}
		return 0, fmt.Errorf("%s: no row", query)
	}
	return rows.Int64(0), nil
}

func fetchNarrow(t workload.Timer, c *sqlbatch.Conn) (count, sum int64, err error) {
	t.Start()
	s, err := c.Prepare(workload.NarrowQuery)
	if err != nil {
		t.Stop()
		return 0, 0, err
	}
	rows, err := s.Query()
	if err != nil {
		t.Stop()
		return 0, 0, err
	}
	for rows.Next() {
		sum += rows.Int64(0)
		count++
	}
	err = rows.Err()
	s.Close()
	t.Stop()
	return count, sum, err
}

func fetchWide(t workload.Timer, c *sqlbatch.Conn) (count, sum int64, err error) {
	var u uint64
	t.Start()
	s, err := c.Prepare(workload.WideQuery)
	if err != nil {
		t.Stop()
		return 0, 0, err
	}
	rows, err := s.Query()
	if err != nil {
		t.Stop()
		return 0, 0, err
	}
	for rows.Next() {
		for i := range 10 {
			switch rows.Type(i) {
			case sqlbatch.Integer:
				u += uint64(rows.Int64(i))
			case sqlbatch.Float:
				u += uint64(workload.Real(rows.Float64(i)))
			case sqlbatch.Text:
				u += uint64(workload.TextLen(rows.Text(i)))
			case sqlbatch.Blob:
				u += uint64(len(rows.Blob(i)))
			default:
				u++
			}
		}
		count++
	}
	err = rows.Err()
	s.Close()
	t.Stop()
	return count, int64(u), err
}

// fetchWork is fetch_work: every cell of fetch_wide's rows folded into workload.FNV, TEXT
// and BLOB read in place (Rows.RawBytes).
func fetchWork(t workload.Timer, c *sqlbatch.Conn) (count, sum int64, err error) {
	h := workload.NewFNV()
	t.Start()
	s, err := c.Prepare(workload.WorkQuery)
	if err != nil {
		t.Stop()
		return 0, 0, err
	}
	rows, err := s.Query()
	if err != nil {
		t.Stop()
		return 0, 0, err
	}
	for rows.Next() {
		for i := range 10 {
			switch rows.Type(i) {
			case sqlbatch.Integer:
				h = h.Int64(rows.Int64(i))
			case sqlbatch.Float:
				h = h.Float64(rows.Float64(i))
			case sqlbatch.Text:
				h = h.Text(rows.RawBytes(i))
			case sqlbatch.Blob:
				h = h.Blob(rows.RawBytes(i))
			default:
				h = h.Null()
			}
		}
		count++
	}
	err = rows.Err()
	s.Close()
	t.Stop()
	return count, h.Sum64(), err
}

func check(c *sqlbatch.Conn, query string) (a, b int64, err error) {
	rows, err := c.Query(query)
	if err != nil {
		return 0, 0, err
	}
	defer rows.Close()
	if rows.Next() {
		a, b = rows.Int64(0), rows.Int64(1)
	}
	return a, b, rows.Err()
}

func execScript(t workload.Timer, script string) (count, sum int64, err error) {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	if _, err := c.ExecScript(workload.ScriptTable); err != nil {
		return 0, 0, err
	}
	t.Start()
	_, err = c.ExecScript(script)
	t.Stop()
	if err != nil {
		return 0, 0, err
	}
	return check(c, workload.ScriptCheck)
}

func bulkInsert(t workload.Timer, rows *workload.BulkRows) (count, sum int64, err error) {
	path, schema := ":memory:", workload.BulkTable
	if workload.BulkFile {
		workload.RemoveBulkFiles()
		path, schema = workload.BulkPath(), workload.BulkSynchronous+"; "+workload.BulkTable
	}
	c, err := open(path, 0)
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	if _, err := c.ExecScript(schema); err != nil {
		return 0, 0, err
	}
	t.Start()
	err = bulk(c, rows)
	t.Stop()
	if err != nil {
		return 0, 0, err
	}
	return check(c, workload.BulkCheck)
}

func bulk(c *sqlbatch.Conn, rows *workload.BulkRows) error {
	if _, err := c.ExecScript("BEGIN"); err != nil {
		return err
	}
	s, err := c.Prepare(workload.BulkInsertQ)
	if err != nil {
		return err
	}
	defer s.Close()
	if workload.Ahead {
		i := 0
		_, err := s.ExecManyFunc(func(p *sqlbatch.Params) error {
			j := min(i+BulkChunk, len(rows.A))
			err := p.AppendColumns(rows.A[i:j], rows.B[i:j], rows.C[i:j])
			i = j
			return err
		})
		if err != nil {
			return err
		}
		_, err = c.ExecScript("COMMIT")
		return err
	}
	var p sqlbatch.Params
	for i := 0; i < len(rows.A); i += BulkChunk {
		j := min(i+BulkChunk, len(rows.A))
		p.Reset()
		if err := p.AppendColumns(rows.A[i:j], rows.B[i:j], rows.C[i:j]); err != nil {
			return err
		}
		if _, err := s.ExecMany(&p); err != nil {
			return err
		}
	}
	_, err = c.ExecScript("COMMIT")
	return err
}
