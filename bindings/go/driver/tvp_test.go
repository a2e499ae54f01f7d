package driver_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	"github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

// Table-valued parameters through database/sql: sqlbatch.Array and sqlbatch.Table as
// arguments of Query and Exec.

func init() {
	// Every connection of this driver has a table shape to insert through.
	sql.Register("sqlbatch-tvp-test", &driver.Driver{ConnectHook: func(c *driver.Conn) error {
		_, err := c.Raw().ExecScript("CREATE VIRTUAL TABLE temp.incoming USING sqlbatch_rows(id INTEGER, name TEXT, at DATETIME)")
		return err
	}})
}

func tvpPool(t *testing.T, options string) *sql.DB {
	t.Helper()
	dsn := t.TempDir() + "/tvp.db"
	if options != "" {
		dsn += "?" + options
	}
	db, err := sql.Open("sqlbatch-tvp-test", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	exec(t, db, `CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, at DATETIME);
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
		INSERT INTO item(id, name) SELECT i, 'n' || i FROM n`)
	return db
}

func TestDriverArrayInList(t *testing.T) {
	for _, options := range []string{"", "_stmt_cache=0"} {
		db := tvpPool(t, options)
		ids := []int64{5, 3, 999, 5000}
		rows, err := db.Query("SELECT id, name FROM item WHERE id IN sqlbatch_rows(?) ORDER BY id", sqlbatch.Array(ids))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for rows.Next() {
			var id int64
			var name string
			if err := rows.Scan(&id, &name); err != nil {
				t.Fatal(err)
			}
			got = append(got, name)
		}
		if err := rows.Err(); err != nil || strings.Join(got, ",") != "n3,n5,n999" {
			t.Fatalf("%s: got %v, %v", options, got, err)
		}
		// A prepared statement, run with lists of every length (none included), in a
		// transaction; a named argument.
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		st, err := tx.Prepare("SELECT count(*) FROM item WHERE id IN sqlbatch_rows(:ids) AND id > ?")
		if err != nil {
			t.Fatal(err)
		}
		for n := range 20 {
			xs := make([]int, n)
			for i := range xs {
				xs[i] = i + 1
			}
			var count int
			if err := st.QueryRow(sql.Named("ids", sqlbatch.Array(xs)), 0).Scan(&count); err != nil || count != n {
				t.Fatalf("%d ids: %d, %v", n, count, err)
			}
		}
		st.Close()
		tx.Rollback()
	}
}

func TestDriverTableInsertsInOneStatement(t *testing.T) {
	for _, options := range []string{"", "_stmt_cache=0"} {
		db := tvpPool(t, options)
		when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		ids := []int{2001, 2002, 2003}
		names := []any{"a", nil, "c"}
		ats := []time.Time{when, when.Add(time.Hour), when.Add(2 * time.Hour)}
		res, err := db.Exec("INSERT INTO item SELECT * FROM incoming(?)", sqlbatch.Table(ids, names, ats))
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := res.RowsAffected(); n != 3 {
			t.Fatalf("%d rows affected", n)
		}
		if id, _ := res.LastInsertId(); id != 2003 {
			t.Errorf("last insert id %d", id)
		}
		var got time.Time
		if err := db.QueryRow("SELECT at FROM item WHERE id = 2002").Scan(&got); err != nil || !got.Equal(when.Add(time.Hour)) {
			t.Errorf("at %v, %v", got, err)
		}
		if n := one[int](t, db, "SELECT count(*) FROM item WHERE id > 2000 AND name IS NULL"); n != 1 {
			t.Errorf("%d NULL names", n)
		}
		// Through a prepared statement, and a connection's ExecContext.
		st, err := db.Prepare("INSERT INTO item(id) SELECT value FROM sqlbatch_rows(?)")
		if err != nil {
			t.Fatal(err)
		}
		if r, err := st.Exec(sqlbatch.Array([]int{3001, 3002})); err != nil {
			t.Fatal(err)
		} else if n, _ := r.RowsAffected(); n != 2 {
			t.Errorf("%d rows affected", n)
		}
		st.Close()
		ctx := context.Background()
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(ctx, "DELETE FROM item WHERE id IN sqlbatch_rows(?)", sqlbatch.Array([]int{3001, 3002, 2001})); err != nil {
			t.Fatal(err)
		}
		conn.Close()
		if n := one[int](t, db, "SELECT count(*) FROM item WHERE id > 2000"); n != 2 {
			t.Errorf("%d rows left", n)
		}
	}
}

func TestDriverTableValueErrors(t *testing.T) {
	db := tvpPool(t, "")
	bad := []struct {
		v    any
		want string
	}{
		{sqlbatch.Table([]int{1, 2}, []string{"a"}), "column 1 has 1 values, column 0 has 2"},
		{sqlbatch.Array([]byte("ab")), "a []byte is one BLOB"},
		{sqlbatch.Array([]struct{}{{}}), "is not an array"},
		{sqlbatch.Table(), "at least one column"},
		{sqlbatch.Array([]any{make(chan int)}), "unsupported parameter type"},
	}
	for _, b := range bad {
		_, err := db.Query("SELECT count(*) FROM sqlbatch_rows(?)", b.v)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("Query: got %v, want %q", err, b.want)
		}
		_, err = db.Exec("INSERT INTO item(id) SELECT value FROM sqlbatch_rows(?)", b.v)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("Exec: got %v, want %q", err, b.want)
		}
	}
	// A table binds one statement, not a script.
	if _, err := db.Exec("SELECT 1; INSERT INTO item(id) SELECT value FROM sqlbatch_rows(?)", sqlbatch.Array([]int{1})); err == nil ||
		!strings.Contains(err.Error(), "single statement") {
		t.Errorf("script: %v", err)
	}
	// The pool's connection is fine afterwards.
	if n := one[int](t, db, "SELECT count(*) FROM sqlbatch_rows(?)", sqlbatch.Array([]string{"x", "y"})); n != 2 {
		t.Errorf("got %d", n)
	}
}
