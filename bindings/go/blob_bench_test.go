package sqlbatch_test

import (
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// BenchmarkBlobRead64KiB reads a 64 MiB value in 64 KiB ranges (ReadAt), issue 11's
// blob_read shape; BenchmarkBlobReadMany reads 100,000 small values by rowid in calls of
// 10,000 ranges each.
func BenchmarkBlobRead64KiB(b *testing.B) {
	c := memory(b)
	const size = 64 << 20
	mustExec(b, c, "CREATE TABLE b(id INTEGER PRIMARY KEY, data BLOB); INSERT INTO b VALUES (1, zeroblob(?))", size)
	h, err := c.OpenBlob("", "b", "data", 1, false)
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	buf := make([]byte, 64<<10)
	b.SetBytes(size)
	b.ResetTimer()
	for range b.N {
		for off := int64(0); off < size; off += int64(len(buf)) {
			if _, err := h.ReadAt(buf, off); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkBlobReadMany(b *testing.B) {
	c := memory(b)
	const n = 100_000
	mustExec(b, c, `CREATE TABLE b(id INTEGER PRIMARY KEY, data BLOB);
		WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
		INSERT INTO b SELECT i, randomblob(64) FROM k`, n)
	h, err := c.OpenBlob("", "b", "data", 1, false)
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	ranges := make([]sqlbatch.BlobRange, 10_000)
	buf := make([]byte, 64*len(ranges))
	b.SetBytes(64 * n)
	b.ResetTimer()
	for range b.N {
		for first := int64(1); first <= n; first += int64(len(ranges)) {
			for i := range ranges {
				ranges[i] = sqlbatch.BlobRange{RowID: first + int64(i), Len: sqlbatch.BlobToEnd}
			}
			if done, err := h.ReadMany(ranges, buf); err != nil || done != len(ranges) {
				b.Fatal(done, err)
			}
		}
	}
}
