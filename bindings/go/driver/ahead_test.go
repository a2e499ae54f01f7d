package driver_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	"github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

// _fetch_ahead=1 (issue 14): the same rows as without it, cancellation mid-query, a Go SQL
// function on the worker thread; ExecManyFunc with write-behind.

func aheadTable(t *testing.T, db *sql.DB) {
	t.Helper()
	exec(t, db, `CREATE TABLE w(i INTEGER PRIMARY KEY, f REAL, t TEXT, b BLOB, d DATETIME, ok BOOLEAN);
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
		INSERT INTO w SELECT i, i / 7.0, iif(i % 9 = 0, NULL, printf('%.*c', 1 + (i * 37) % 3000, 'x')),
			iif(i % 5 = 0, NULL, randomblob(i % 70)), '2024-01-02 03:04:05', i % 2 FROM n`)
}

func scanAll(t *testing.T, db *sql.DB, q string) [][]any {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestFetchAheadDSNGivesTheSameRows(t *testing.T) {
	dir := t.TempDir()
	plain, err := sql.Open("sqlbatch", dir+"/a.db")
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	aheadTable(t, plain)
	const q = "SELECT i, f, t, b, d, ok FROM w ORDER BY i"
	want := scanAll(t, plain, q)
	for _, opts := range []string{"_fetch_ahead=1", "_fetch_ahead=true&_batch_rows=7", "_fetch_ahead=on&_batch_rows=1000&_stmt_cache=0"} {
		db, err := sql.Open("sqlbatch", dir+"/a.db?"+opts)
		if err != nil {
			t.Fatal(err)
		}
		for run := 0; run < 2; run++ {
			if got := scanAll(t, db, q); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s run %d: %d rows differ from the %d without fetch-ahead", opts, run, len(got), len(want))
			}
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := driver.ParseDSN("x.db?_fetch_ahead=1")
	if err != nil || cfg.Flags&sqlbatch.OpenFetchAhead == 0 {
		t.Fatal(cfg, err)
	}
	if cfg, err := driver.ParseDSN("x.db?_fetch_ahead=0"); err != nil || cfg.Flags&sqlbatch.OpenFetchAhead != 0 {
		t.Fatal("_fetch_ahead=0 sets the flag", err)
	}
	if _, err := driver.ParseDSN("x.db?_fetch_ahead=maybe"); err == nil || !strings.Contains(err.Error(), "_fetch_ahead") {
		t.Fatal(err)
	}
}

func TestFetchAheadContextCancelsMidQuery(t *testing.T) {
	db := open(t, "_fetch_ahead=1")
	for k := 0; k < 5; k++ {
		ctx, cancel := context.WithCancel(context.Background())
		rows, err := db.QueryContext(ctx, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x, x * 2 FROM c")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			n++
			if n == 1000+k*300 {
				cancel()
			}
		}
		if !errors.Is(rows.Err(), context.Canceled) || n < 1000 {
			t.Fatalf("after %d rows: %v", n, rows.Err())
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		cancel()
		// The connection (and its cached statements) work on.
		if got := one[int](t, db, "SELECT 7"); got != 7 {
			t.Fatal(got)
		}
	}
	// Cancelled while the first batch is stepped (a slow query).
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(30*time.Millisecond, cancel)
	var n int
	err := db.QueryRowContext(ctx, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c").Scan(&n)
	if !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}

var (
	registerOnce   sync.Once
	aheadUDFDriver = &driver.Driver{ConnectHook: func(c *driver.Conn) error {
		if err := c.RegisterFunc("twice", func(x int64) (string, error) {
			if x == 2500 {
				return "", errors.New("no 2500")
			}
			return fmt.Sprint(2 * x), nil
		}, true); err != nil {
			return err
		}
		return c.RegisterFunc("boom", func(x int64) int64 {
			if x == 2600 {
				panic("boom")
			}
			return x
		}, true)
	}}
)

func TestFetchAheadGoFunction(t *testing.T) {
	name := "sqlbatch_ahead_udf"
	registerOnce.Do(func() { sql.Register(name, aheadUDFDriver) })
	db, err := sql.Open(name, t.TempDir()+"/u.db?_fetch_ahead=1&_batch_rows=100")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec(t, db, `CREATE TABLE n(i INTEGER PRIMARY KEY);
		WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 3000) INSERT INTO n SELECT i FROM k`)
	count := func(q string) (int, error) {
		rows, err := db.Query(q)
		if err != nil {
			return 0, err
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			var i int64
			var s string
			if err := rows.Scan(&i, &s); err != nil {
				t.Fatal(err)
			}
			n++
		}
		return n, rows.Err()
	}
	if n, err := count("SELECT i, twice(i) FROM n WHERE i < 2500 ORDER BY i"); n != 2499 || err != nil {
		t.Fatal(n, err)
	}
	if n, err := count("SELECT i, twice(i) FROM n ORDER BY i"); n != 2499 || err == nil || !strings.Contains(err.Error(), "no 2500") {
		t.Fatal(n, err)
	}
	if n, err := count("SELECT i, boom(i) FROM n ORDER BY i"); n != 2599 || err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatal(n, err)
	}
}

// ExecManyFunc against a loop of ExecMany, with and without write-behind, and its errors.
func TestExecManyFunc(t *testing.T) {
	db := open(t, "")
	ctx := context.Background()
	exec(t, db, "CREATE TABLE bulk(a INTEGER PRIMARY KEY, b TEXT)")
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const insert = "INSERT INTO bulk VALUES (?, ?)"
	load := func(dc *driver.Conn, n, dup int, viaFunc bool) (sqlbatch.WriteResult, error) {
		next := 0
		fill := func(p *sqlbatch.Params) error {
			for k := 0; k < 1000 && next < n; k++ {
				id := next
				if next == dup {
					id = 0
				}
				p.Int64(int64(id)).Text(fmt.Sprint("v", next))
				next++
			}
			return nil
		}
		if viaFunc {
			return dc.ExecManyFunc(ctx, insert, fill)
		}
		var total sqlbatch.WriteResult
		var p sqlbatch.Params
		for {
			p.Reset()
			if err := fill(&p); err != nil {
				t.Error(err)
			}
			if p.Len() == 0 {
				return total, nil
			}
			r, err := dc.ExecMany(ctx, insert, &p)
			var e *sqlbatch.Error
			if errors.As(err, &e) {
				e.RowIndex += total.Rows
			}
			total.Rows += r.Rows
			total.Changes += r.Changes
			total.LastInsertRowID = r.LastInsertRowID
			if err != nil {
				return total, err
			}
		}
	}
	type outcome struct {
		r     sqlbatch.WriteResult
		err   string
		row   int
		count int
	}
	for _, tc := range []struct{ n, dup int }{{5500, -1}, {5500, 4321}, {0, -1}} {
		var got [2]outcome
		for k, viaFunc := range []bool{false, true} {
			cexec(t, conn, "DELETE FROM bulk")
			cexec(t, conn, "BEGIN")
			err := conn.Raw(func(dc any) error {
				r, err := load(dc.(*driver.Conn), tc.n, tc.dup, viaFunc)
				got[k].r = r
				if err != nil {
					got[k].err = err.Error()
					var e *sqlbatch.Error
					if errors.As(err, &e) {
						got[k].row = e.RowIndex
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			cexec(t, conn, "COMMIT")
			if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM bulk").Scan(&got[k].count); err != nil {
				t.Fatal(err)
			}
		}
		if got[0] != got[1] {
			t.Fatalf("%+v: ExecMany loop %+v, ExecManyFunc %+v", tc, got[0], got[1])
		}
		if tc.dup >= 0 && (got[1].row != tc.dup || got[1].r.Rows != tc.dup || got[1].count != tc.dup) {
			t.Fatalf("%+v: %+v", tc, got[1])
		}
		if tc.dup < 0 && (got[1].count != tc.n || got[1].r.Rows != tc.n) {
			t.Fatalf("%+v: %+v", tc, got[1])
		}
	}
	// Cancelling the context stops an endless load.
	cctx, cancel := context.WithCancel(ctx)
	cexec(t, conn, "DELETE FROM bulk")
	cexec(t, conn, "BEGIN")
	err = conn.Raw(func(dc any) error {
		next := 0
		_, err := dc.(*driver.Conn).ExecManyFunc(cctx, insert, func(p *sqlbatch.Params) error {
			for k := 0; k < 1000; k++ {
				p.Int64(int64(next)).Text("x")
				next++
			}
			if next == 20000 {
				cancel()
			}
			return nil
		})
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	// An interrupted INSERT inside BEGIN rolls the transaction back itself (SQLite's rule),
	// so the transaction may be gone already.
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil && !strings.Contains(err.Error(), "no transaction is active") {
		t.Fatal(err)
	}
	if got := one[int](t, db, "SELECT count(*) FROM bulk"); got != 0 {
		t.Fatal(got)
	}
}

func cexec(t *testing.T, conn *sql.Conn, query string) {
	t.Helper()
	if _, err := conn.ExecContext(context.Background(), query); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}
