package sqlbatch_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// FuzzQuery runs arbitrary queries, with integer and text arguments, through Stmt.Query with
// batches of 1, 7 and DefaultBatchRows rows (the first batch through sqlbatch_stmt_fetch, the
// next ones through sqlbatch_stmt_fetch_into into the statement's Go chunks), reading each row
// with Rows.Value: all three must see the same rows and end with the same error. Each run has
// a fresh database holding table t(a, b) with one value of every type (see runBounded in
// fuzz_test.go, which also interrupts runs that take over two seconds).
//
//	go test -run '^$' -fuzz '^FuzzQuery$' -fuzztime 30s
func FuzzQuery(f *testing.F) {
	for _, seed := range []struct {
		query string
		a     int64
		b     string
	}{
		{"SELECT * FROM t", 0, ""},
		{"SELECT a, b, typeof(a), ? FROM t WHERE a IS NOT ?2", 1, "x"},
		{"WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 2000) SELECT i, printf('%0*d', i % 300, i), zeroblob(i % 50) FROM k", 0, ""},
		{"SELECT ?, ?, ?", -9223372036854775808, "h\u00e9llo \u2713"},
		{"INSERT INTO t VALUES (?, ?) RETURNING rowid, *", 42, "returned"},
		{"SELECT CASE WHEN a = 2.5 THEN abs(-9223372036854775807 - 1) ELSE a END FROM t", 0, ""},
		{"SELECT json_group_array(b) FROM t", 0, ""},
		{"", 0, ""},
	} {
		f.Add(seed.query, seed.a, seed.b)
	}
	f.Fuzz(func(t *testing.T, query string, a int64, b string) {
		if len(query) > 2048 || len(b) > 1<<16 || strings.IndexByte(query, 0) >= 0 {
			t.Skip()
		}
		low := strings.ToLower(query)
		for _, skip := range []string{"attach", "vacuum", "directory", "load_extension", "heap_limit",
			"random", "now", "date", "time", "changes", "mmap"} {
			if strings.Contains(low, skip) {
				t.Skip() // touches files or process-wide settings, or is not deterministic
			}
		}
		var (
			results [3][][]any
			errs    [3]error
		)
		for i, batch := range []int{1, 7, sqlbatch.DefaultBatchRows} {
			_, err, interrupted := runBounded(t, func(c *sqlbatch.Conn) (int, error) {
				if _, err := c.ExecScript("INSERT INTO t VALUES (1, 'x'), (2.5, x'00ff'), (NULL, ''), (9223372036854775807, -0.0)"); err != nil {
					t.Fatal(err)
				}
				s, err := c.Prepare(query)
				if err != nil {
					return 0, err
				}
				defer s.Close()
				s.SetBatchRows(batch)
				args := make([]any, s.ParamCount())
				for j := range args {
					if j%2 == 0 {
						args[j] = a
					} else {
						args[j] = b
					}
				}
				rows, err := s.Query(args...)
				if err != nil {
					return 0, err
				}
				for rows.Next() && len(results[i]) < 5000 {
					row := make([]any, rows.ColumnCount())
					for k := range row {
						row[k] = rows.Value(k)
					}
					results[i] = append(results[i], row)
				}
				err = rows.Err()
				if cerr := rows.Close(); err == nil {
					err = cerr
				}
				return len(results[i]), err
			})
			if interrupted {
				t.Skip("ran too long")
			}
			errs[i] = err
		}
		for i := 1; i < 3; i++ {
			if !reflect.DeepEqual(results[i], results[0]) {
				t.Fatalf("query %q: %d rows with batches of 1, %d with batch %d; first difference at %d",
					query, len(results[0]), len(results[i]), []int{1, 7, sqlbatch.DefaultBatchRows}[i], firstDiff(results[0], results[i]))
			}
			if (errs[i] == nil) != (errs[0] == nil) {
				t.Fatalf("query %q: errors %v and %v", query, errs[0], errs[i])
			}
			var e0, ei *sqlbatch.Error
			if errs[0] != nil && errors.As(errs[0], &e0) && errors.As(errs[i], &ei) && e0.ExtendedCode != ei.ExtendedCode {
				t.Fatalf("query %q: errors %v and %v", query, errs[0], errs[i])
			}
		}
	})
}

func firstDiff(a, b [][]any) int {
	for i := range min(len(a), len(b)) {
		if !reflect.DeepEqual(a[i], b[i]) {
			return i
		}
	}
	return min(len(a), len(b))
}
