// Package vectest holds what the extension tests share: the path of sqlite-vec built as a
// shared library, the vector queries that show it works, and (with the build tag
// sqlbatch_vec, which bindings/go/Makefile sets) sqlite-vec linked statically from
// build/ext/libsqlite_vec.a, for Conn.InitExtension and AutoExtension.
//
// Both files come from scripts/build-sqlite-vec.sh at the top of the repository, which
// `make test` in bindings/go runs first. Without the tag the package links nothing extra, so
// `go build ./...` and `go vet ./...` work without build/ext.
package vectest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// SharedLibraryEnv names the variable holding the path of vec0.so; the Makefile sets it.
const SharedLibraryEnv = "SQLBATCH_VEC0_SO"

// SharedLibrary returns the path of vec0.so: $SQLBATCH_VEC0_SO, or build/ext/vec0.so at the
// top of the repository. The test fails if the variable is set and the file is missing, and
// is skipped if it is not set and the file is missing (plain `go test` before build/ext is
// built).
func SharedLibrary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(SharedLibraryEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s: %v", SharedLibraryEnv, err)
		}
		return p
	}
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "build", "ext", "vec0.so")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no %s: run scripts/build-sqlite-vec.sh (make test does)", p)
	}
	return p
}

// Queries are sqlite-vec's vector queries and their answers (each SELECT returns one value,
// compared as text); the script runs before them.
var (
	Script = `CREATE VIRTUAL TABLE temp.v USING vec0(e float[2]);
		INSERT INTO temp.v(rowid, e) VALUES (1, '[0, 0]'), (2, '[1, 1]'), (3, '[5, 5]')`
	Queries = [][2]string{
		{"SELECT substr(vec_version(), 1, 1)", "v"},
		{"SELECT vec_distance_l2('[1, 2]', '[4, 6]')", "5.0"},
		{"SELECT rowid FROM temp.v WHERE e MATCH '[4, 4]' ORDER BY distance LIMIT 1", "3"},
	}
)

// Check runs Script and Queries on c, which must have sqlite-vec, and reports the first
// failure or wrong answer. It drops the table again.
func Check(c *sqlbatch.Conn) error {
	if _, err := c.ExecScript(Script); err != nil {
		return fmt.Errorf("vec0 table: %w", err)
	}
	defer c.ExecScript("DROP TABLE temp.v")
	for _, q := range Queries {
		got, err := One(c, q[0])
		if err != nil {
			return err
		}
		if got != q[1] {
			return fmt.Errorf("%s = %q, want %q", q[0], got, q[1])
		}
	}
	return nil
}

// One is the first value of the first row of query, as text.
func One(c *sqlbatch.Conn, query string) (string, error) {
	r, err := c.Query(query)
	if err != nil {
		return "", err
	}
	defer r.Close()
	if !r.Next() {
		if err := r.Err(); err != nil {
			return "", err
		}
		return "", fmt.Errorf("%s: no row", query)
	}
	return r.Text(0), nil
}

// HasVec reports whether c has sqlite-vec's functions; an error other than "no such
// function" fails t.
func HasVec(t testing.TB, c *sqlbatch.Conn) bool {
	t.Helper()
	_, err := One(c, "SELECT vec_version()")
	if err != nil && !strings.Contains(err.Error(), "no such function: vec_version") {
		t.Fatal(err)
	}
	return err == nil
}
