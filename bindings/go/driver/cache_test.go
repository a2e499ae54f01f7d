package driver_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	"github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

// SQLite recompiles a statement whose schema changed when it next runs it; the columns the
// driver reports (their number, names, declared types and the conversions those imply) must
// follow, for statements of the cache and for statements prepared through database/sql.
func TestSchemaChangesReachCachedAndPreparedStatements(t *testing.T) {
	for _, options := range []string{"", "_stmt_cache=0"} {
		db := open(t, options)
		db.SetMaxOpenConns(1)
		exec(t, db, "CREATE TABLE t(a INTEGER, b TEXT); INSERT INTO t VALUES (1, 'x')")
		prepared, err := db.Prepare("SELECT * FROM t")
		if err != nil {
			t.Fatal(err)
		}
		read := func(how string) ([]string, []string, []any) {
			var rows *sql.Rows
			var err error
			if how == "prepared" {
				rows, err = prepared.Query()
			} else {
				rows, err = db.Query("SELECT * FROM t")
			}
			if err != nil {
				t.Fatalf("%s %s: %v", options, how, err)
			}
			defer rows.Close()
			cols, err := rows.Columns()
			if err != nil {
				t.Error(err)
			}
			types, err := rows.ColumnTypes()
			if err != nil {
				t.Error(err)
			}
			var decls []string
			for _, ct := range types {
				decls = append(decls, ct.DatabaseTypeName())
			}
			if !rows.Next() {
				t.Fatalf("%s %s: no row: %v", options, how, rows.Err())
			}
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatalf("%s %s: %v", options, how, err)
			}
			return cols, decls, vals
		}
		for _, how := range []string{"cached", "prepared", "cached", "prepared"} {
			if cols, _, vals := read(how); len(cols) != 2 || vals[0] != int64(1) {
				t.Fatalf("%s %s: %v %v", options, how, cols, vals)
			}
		}
		exec(t, db, "ALTER TABLE t ADD COLUMN c DATETIME DEFAULT '2020-01-02 03:04:05'")
		when := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
		for _, how := range []string{"cached", "prepared", "cached"} {
			cols, decls, vals := read(how)
			if strings.Join(cols, ",") != "a,b,c" || decls[2] != "DATETIME" || vals[2] != when {
				t.Fatalf("%s %s after ADD COLUMN: %v %v %#v", options, how, cols, decls, vals)
			}
		}
		exec(t, db, "DROP TABLE t")
		if _, err := db.Query("SELECT * FROM t"); err == nil || !strings.Contains(err.Error(), "no such table") {
			t.Fatalf("%s: query of a dropped table: %v", options, err)
		}
		exec(t, db, "CREATE TABLE t(a DATETIME, b BOOLEAN); INSERT INTO t VALUES (0, 1)")
		for _, how := range []string{"cached", "prepared"} {
			cols, decls, vals := read(how)
			if len(cols) != 2 || decls[0] != "DATETIME" || vals[0] != time.Unix(0, 0).UTC() || vals[1] != true {
				t.Fatalf("%s %s after re-creating the table: %v %v %#v", options, how, cols, decls, vals)
			}
		}
		if err := prepared.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// A query whose statement is busy with open rows (nested queries on one connection) gets a
// statement of its own; both read all their rows.
func TestSameQueryNestedOnOneConnection(t *testing.T) {
	db := open(t, "_batch_rows=3")
	exec(t, db, "CREATE TABLE n(i); WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 10) INSERT INTO n SELECT i FROM k")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const q = "SELECT i FROM n WHERE i > ? ORDER BY i"
	for round := 0; round < 3; round++ {
		outer, err := conn.QueryContext(ctx, q, 0)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0
		for outer.Next() {
			var i int
			if err := outer.Scan(&i); err != nil {
				t.Fatal(err)
			}
			inner, err := conn.QueryContext(ctx, q, i)
			if err != nil {
				t.Fatal(err)
			}
			for inner.Next() {
				var j int
				if err := inner.Scan(&j); err != nil {
					t.Fatal(err)
				}
				sum += j
			}
			if err := inner.Close(); err != nil {
				t.Fatal(err)
			}
			// Exec of the same text while the outer rows are open.
			if _, err := conn.ExecContext(ctx, q, 100); err != nil {
				t.Fatal(err)
			}
		}
		if err := outer.Err(); err != nil {
			t.Fatal(err)
		}
		if err := outer.Close(); err != nil {
			t.Fatal(err)
		}
		if sum != 330 { // sum over i of the j > i
			t.Fatalf("round %d: sum %d", round, sum)
		}
	}
}

// A small cache evicts statements, also ones whose rows are still open (they are finalized
// when the rows close).
func TestStmtCacheEviction(t *testing.T) {
	db := open(t, "_stmt_cache=2&_batch_rows=2")
	db.SetMaxOpenConns(1)
	exec(t, db, "CREATE TABLE n(i); INSERT INTO n VALUES (1), (2), (3), (4), (5)")
	for k := 0; k < 8; k++ {
		q := fmt.Sprintf("SELECT i + %d FROM n ORDER BY i", k)
		for rep := 0; rep < 2; rep++ {
			var first int
			if err := db.QueryRow(q).Scan(&first); err != nil || first != k+1 {
				t.Fatalf("%s: %d %v", q, first, err)
			}
		}
	}
	// Six queries with open rows on one connection: four of their statements are evicted
	// while busy.
	var open []*sql.Rows
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for k := 0; k < 6; k++ {
		rows, err := conn.QueryContext(ctx, fmt.Sprintf("SELECT i * %d FROM n ORDER BY i", k+1))
		if err != nil {
			t.Fatal(err)
		}
		rows.Next()
		open = append(open, rows)
	}
	for k, rows := range open {
		n := 1
		for rows.Next() {
			var v int
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			n++
			if v != n*(k+1) {
				t.Fatalf("query %d row %d: %d", k, n, v)
			}
		}
		if err := rows.Err(); err != nil || n != 5 {
			t.Fatalf("query %d: %d rows, %v", k, n, err)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// Exec of a single statement runs it from the cache; arguments are checked as for Query.
func TestExecOfCachedStatements(t *testing.T) {
	db := open(t, "")
	db.SetMaxOpenConns(1)
	exec(t, db, "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, n)")
	for i := 1; i <= 5; i++ {
		r := exec(t, db, "INSERT INTO t(name, n) VALUES (:name, ?)", sql.Named("name", fmt.Sprint("r", i)), i)
		if id, err := r.LastInsertId(); err != nil || id != int64(i) {
			t.Fatalf("LastInsertId %d, want %d (error %v)", id, i, err)
		}
	}
	r := exec(t, db, "UPDATE t SET n = n * 10 WHERE n > ?", 2)
	if n, err := r.RowsAffected(); err != nil || n != 3 {
		t.Fatalf("RowsAffected %d (error %v)", n, err)
	}
	if got := one[int](t, db, "SELECT sum(n) FROM t"); got != 123 {
		t.Fatalf("sum %d", got)
	}
	_, err := db.Exec("UPDATE t SET n = ? WHERE id = ?", 1, 2, 3)
	if !errors.Is(err, sqlbatch.ErrParamCount) {
		t.Fatalf("too many arguments: %v", err)
	}
	if _, err := db.Exec("UPDATE t SET n = ? WHERE id = ?", 1); err == nil {
		t.Fatal("too few arguments accepted")
	}
	// A constraint error from a cached statement, then the statement works again.
	exec(t, db, "CREATE UNIQUE INDEX t_name ON t(name)")
	for i := 0; i < 2; i++ {
		_, err = db.Exec("INSERT INTO t(name) VALUES (?)", "r1")
		if !errors.Is(err, sqlbatch.ErrConstraintUnique) {
			t.Fatalf("got %v", err)
		}
		exec(t, db, "INSERT INTO t(name) VALUES (?)", fmt.Sprint("new", i))
	}
	// A short script (several statements) runs as a script, also the second time.
	for i := 0; i < 2; i++ {
		r = exec(t, db, "UPDATE t SET n = 0 WHERE id = 1; UPDATE t SET n = 0 WHERE id = ?", 2)
		if n, err := r.RowsAffected(); err != nil || n != 2 {
			t.Fatalf("script RowsAffected %d (error %v)", n, err)
		}
	}
	// A statement that does not compile reports the error as a script does.
	_, err = db.Exec("INSERT INTO nowhere VALUES (1)")
	var e *sqlbatch.Error
	if !errors.As(err, &e) || e.StatementIndex != 0 || !strings.Contains(e.Msg, "no such table") {
		t.Fatalf("got %v", err)
	}
}

func TestStmtCacheOption(t *testing.T) {
	for _, bad := range []string{"-1", "x"} {
		if _, err := sql.Open("sqlbatch", ":memory:?_stmt_cache="+bad); err == nil {
			t.Errorf("_stmt_cache=%s accepted", bad)
		}
	}
	db := open(t, "_stmt_cache=0")
	exec(t, db, "CREATE TABLE t(a)")
	for i := 0; i < 3; i++ {
		exec(t, db, "INSERT INTO t VALUES (?)", i)
	}
	if got := one[int](t, db, "SELECT count(*) FROM t"); got != 3 {
		t.Fatal(got)
	}
}

// ExecMany keeps its statement in the cache (a bulk insert of many calls prepares it once),
// and works the same with the cache off, with the cached statement's rows open, and with a
// script (an error).
func TestExecManyUsesTheCache(t *testing.T) {
	for _, options := range []string{"", "_stmt_cache=0", "_stmt_cache=1"} {
		t.Run(options, func(t *testing.T) {
			db := open(t, options)
			exec(t, db, "CREATE TABLE bulk(a INTEGER, b TEXT)")
			ctx := context.Background()
			conn, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			const insert = "INSERT INTO bulk VALUES (?, ?) RETURNING a"
			a, b := make([]int64, 1000), make([]string, 1000)
			for i := range a {
				a[i], b[i] = int64(i), fmt.Sprint("row-", i)
			}
			var p sqlbatch.Params
			bulk := func(i, j int) error {
				return conn.Raw(func(dc any) error {
					p.Reset()
					if err := p.AppendColumns(a[i:j], b[i:j]); err != nil {
						return err
					}
					res, err := dc.(*driver.Conn).ExecMany(ctx, insert, &p)
					if err == nil && (res.Rows != j-i || res.Changes != int64(j-i)) {
						err = fmt.Errorf("rows %d..%d: %+v", i, j, res)
					}
					return err
				})
			}
			if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
				t.Fatal(err)
			}
			// Rows of the same statement open meanwhile: ExecMany prepares its own.
			rows, err := conn.QueryContext(ctx, insert, -1, "open")
			if err != nil {
				t.Fatal(err)
			}
			if err := bulk(0, 300); err != nil {
				t.Fatal(err)
			}
			if err := rows.Close(); err != nil {
				t.Fatal(err)
			}
			for i := 300; i < len(a); i += 300 {
				if err := bulk(i, min(i+300, len(a))); err != nil {
					t.Fatal(err)
				}
			}
			err = conn.Raw(func(dc any) error {
				_, err := dc.(*driver.Conn).ExecMany(ctx, "INSERT INTO bulk VALUES (?, ?); SELECT 1", &p)
				return err
			})
			if err == nil {
				t.Fatal("ExecMany ran a script")
			}
			if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
				t.Fatal(err)
			}
			if got := one[int](t, db, "SELECT sum(a) FROM bulk WHERE b LIKE 'row-%'"); got != 999*1000/2 {
				t.Fatalf("sum %d", got)
			}
			// The cached statement still serves Exec, with its own arguments.
			exec(t, db, insert, 5000, "x")
			if got := one[int](t, db, "SELECT count(*) FROM bulk"); got != 1000+1+1 {
				t.Fatalf("count %d", got)
			}
		})
	}
}
