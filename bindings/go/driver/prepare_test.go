package driver_test

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"fmt"
	"strings"
	"testing"
)

// NumInput comes from the prepare call (no call into C of its own): the largest parameter
// index, counting a name used twice once, 0 without parameters, -1 for a script.
func TestNumInput(t *testing.T) {
	db := open(t, "")
	exec(t, db, "CREATE TABLE p(a, b, c)")
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, c := range []struct {
		q string
		n int
	}{
		{"SELECT 1", 0},
		{"SELECT ?", 1},
		{"INSERT INTO p VALUES (?, ?, ?)", 3},
		{"SELECT ?3", 3},
		{"SELECT :a, :b, :a", 2},
		{"SELECT ?, @x, $y, ?5", 5},
		{"   ", 0},
		{"SELECT 1; SELECT 2", -1},
	} {
		err := conn.Raw(func(dc any) error {
			st, err := dc.(sqldriver.ConnPrepareContext).PrepareContext(context.Background(), c.q)
			if err != nil {
				return err
			}
			defer st.Close()
			if got := st.NumInput(); got != c.n {
				return fmt.Errorf("NumInput of %q: %d, want %d", c.q, got, c.n)
			}
			if got := st.NumInput(); got != c.n { // again: the same
				return fmt.Errorf("NumInput of %q the second time: %d, want %d", c.q, got, c.n)
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	}
}

// The argument-count errors are database/sql's for a *sql.Stmt (through NumInput) and the
// driver's for Query and Exec of SQL text (which the statement cache serves).
func TestArgumentCountErrors(t *testing.T) {
	db := open(t, "")
	db.SetMaxOpenConns(1)
	exec(t, db, "CREATE TABLE p(a, b)")
	const ins = "INSERT INTO p VALUES (?, ?)"
	st, err := db.Prepare(ins)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, args := range [][]any{{1}, {1, 2, 3}} {
		if _, err := st.Exec(args...); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("expected 2 arguments, got %d", len(args))) {
			t.Errorf("Stmt.Exec with %d arguments: %v", len(args), err)
		}
	}
	for round := 0; round < 2; round++ { // the second round runs from the statement cache
		if _, err := db.Exec(ins, 1); err == nil || !strings.Contains(err.Error(), "not enough arguments") {
			t.Errorf("round %d: Exec with 1 argument: %v", round, err)
		}
		if _, err := db.Exec(ins, 1, 2, 3); err == nil || !strings.Contains(err.Error(), "too many arguments") {
			t.Errorf("round %d: Exec with 3 arguments: %v", round, err)
		}
		var a int
		if err := db.QueryRow("SELECT ? + ?", 1).Scan(&a); err == nil || !strings.Contains(err.Error(), "not enough arguments") {
			t.Errorf("round %d: QueryRow with 1 argument: %v", round, err)
		}
		if _, err := db.Exec(ins, 1, 2); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM p").Scan(&n); err != nil || n != 2 {
		t.Fatalf("%d rows, %v", n, err)
	}
}

// A statement prepared once (by the first QueryRow of its text) serves every later call from
// the statement cache, with new arguments each time; a *sql.Stmt prepared, run and closed per
// call (the prepare-per-statement pattern, prepared without the persistent flag) works beside
// it, and so does one kept and run again.
func TestStatementReusedThroughTheCache(t *testing.T) {
	db := open(t, "")
	db.SetMaxOpenConns(1)
	exec(t, db, `CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT);
		WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 500)
		INSERT INTO items SELECT i, 'item ' || i FROM k`)
	kept, err := db.Prepare("SELECT name FROM items WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	defer kept.Close()
	for i := 1; i <= 500; i++ {
		var name, again, once string
		if err := db.QueryRow("SELECT name FROM items WHERE id = ?", i).Scan(&name); err != nil {
			t.Fatal(err)
		}
		if err := kept.QueryRow(i).Scan(&again); err != nil {
			t.Fatal(err)
		}
		st, err := db.Prepare("SELECT name FROM items WHERE id = ?")
		if err != nil {
			t.Fatal(err)
		}
		err = st.QueryRow(i).Scan(&once)
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("item %d", i)
		if err != nil || name != want || again != want || once != want {
			t.Fatalf("row %d: %q %q %q, %v", i, name, again, once, err)
		}
	}
	var missing string
	if err := db.QueryRow("SELECT name FROM items WHERE id = ?", 501).Scan(&missing); err != sql.ErrNoRows {
		t.Fatalf("id 501: %v", err)
	}
}

// Rows of growing sizes, up to well over the binding's 32 KiB chunk and its 1 MiB batch
// bound, read whole through database/sql into a string and a []byte, at the default batch
// size and one row per batch.
func TestGrowingRowsThroughDatabaseSQL(t *testing.T) {
	for _, opts := range []string{"", "_batch_rows=1"} {
		db := open(t, opts)
		db.SetMaxOpenConns(1)
		exec(t, db, "CREATE TABLE g(i INTEGER PRIMARY KEY, t TEXT, b BLOB)")
		const n = 120
		size := func(i int) int { return 8 + i*i*80 } // row 120: 1.15 MB each
		text := func(i int) string {
			return fmt.Sprintf("%d:%s", i, strings.Repeat(fmt.Sprintf("%02d", i%100), size(i)/2))
		}
		blob := func(i int) []byte { return []byte(strings.Repeat(string([]byte{byte(i % 251)}), size(i))) }
		for i := 1; i <= n; i++ {
			exec(t, db, "INSERT INTO g VALUES (?, ?, ?)", i, text(i), blob(i))
		}
		rows, err := db.Query("SELECT i, t, b FROM g ORDER BY i")
		if err != nil {
			t.Fatal(err)
		}
		var texts []string
		var blobs [][]byte
		for rows.Next() {
			var i int
			var s string
			var b []byte
			if err := rows.Scan(&i, &s, &b); err != nil {
				t.Fatal(err)
			}
			texts, blobs = append(texts, s), append(blobs, b)
		}
		if err := rows.Err(); err != nil || len(texts) != n {
			t.Fatalf("%q: %d rows, %v", opts, len(texts), err)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= n; i++ {
			if texts[i-1] != text(i) || string(blobs[i-1]) != string(blob(i)) {
				t.Fatalf("%q row %d: %d text bytes, %d blob bytes", opts, i, len(texts[i-1]), len(blobs[i-1]))
			}
		}
	}
}
