package workload

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// The application-shaped workloads of issue 15 (benches/README.md): point_query and
// few_rows read app.db with a statement kept prepared, prepare_churn prepares and finalizes
// one INSERT per row, small_tx runs one INSERT per transaction, large_values reads big.db's
// 200 KB values.
const (
	PointQ         = "SELECT id, name, qty, price, tag FROM items WHERE id = ?"
	FewRowsQ       = "SELECT id, name, qty, price, tag FROM items WHERE id >= ? ORDER BY id LIMIT 10"
	LargeValuesQ   = "SELECT id, t, b FROM big ORDER BY id"
	ChurnTable     = "CREATE TABLE churn(a INTEGER, b REAL, c TEXT)"
	ChurnInsertQ   = "INSERT INTO churn(a, b, c) VALUES (?, ?, ?)"
	ChurnCheck     = "SELECT count(*), sum(a) + sum(length(c)) FROM churn"
	Synchronous    = "PRAGMA synchronous=NORMAL"
	JournalWAL     = "PRAGMA journal_mode=WAL"
	PointQueries   = 100000
	FewRowsQueries = 20000
	// DefaultChurnN and DefaultSmallTxN are the inputs of prepare_churn and small_tx.
	DefaultChurnN   = 50000
	DefaultSmallTxN = 10000
)

// PointKey is the key of point_query's query i.
func PointKey(i int) int64 { return int64(i*7919%100000 + 1) }

// FewRowsStart is the start key of few_rows' query i.
func FewRowsStart(i int) int64 { return int64(i*7919%99991 + 1) }

// ChurnRow is row i of prepare_churn and small_tx: (i, i * 0.25, "row-" || i); the string is
// built by the caller, inside the timed loop (as an ORM builds its arguments).
func ChurnRow(i int) (int64, float64, string) {
	return int64(i), float64(i) * 0.25, "row-" + strconv.Itoa(i)
}

// Count parses the row or transaction count of prepare_churn and small_tx.
func Count(w, input string) (int, error) {
	n, err := strconv.Atoi(input)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s: input %q is not a count", w, input)
	}
	return n, nil
}

// ChurnPath is the database file of prepare_churn and small_tx: <tmp>/sqlbatch-bench-<pid>.db,
// <tmp> being $TMPDIR or /tmp.
func ChurnPath() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("sqlbatch-bench-%d.db", os.Getpid()))
}

// RemoveChurn deletes the file of ChurnPath and its -wal and -shm files.
func RemoveChurn() {
	p := ChurnPath()
	for _, f := range []string{p, p + "-wal", p + "-shm"} {
		os.Remove(f)
	}
}

// LargeBlob is the large_values contribution of a BLOB: its length plus the unsigned bytes
// at offsets 0, 64, 128, ...
func LargeBlob(b []byte) int64 {
	s := int64(len(b))
	for i := 0; i < len(b); i += 64 {
		s += int64(b[i])
	}
	return s
}

// NullText is the contribution of a nullable TEXT: 1 for NULL, else its code points.
func NullText(s string, valid bool) int64 {
	if !valid {
		return 1
	}
	return TextLen(s)
}
