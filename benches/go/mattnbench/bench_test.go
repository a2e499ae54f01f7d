package mattnbench

import (
	"testing"

	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
)

func BenchmarkFetchNarrow(b *testing.B) {
	workload.Bench(b, workload.FetchNarrow, "mattn", Driver.Impl())
}
func BenchmarkFetchWide(b *testing.B) { workload.Bench(b, workload.FetchWide, "mattn", Driver.Impl()) }
func BenchmarkFetchWideTyped(b *testing.B) {
	workload.Bench(b, workload.FetchWide, "mattn", Driver.FetchWideTyped())
}
func BenchmarkExecScript(b *testing.B) {
	workload.Bench(b, workload.ExecScript, "mattn", Driver.Impl())
}
func BenchmarkExecScript10k(b *testing.B) {
	workload.Bench(b, workload.ExecScript10k, "mattn", Driver.Impl())
}
func BenchmarkBulkInsert(b *testing.B) {
	workload.Bench(b, workload.BulkInsert, "mattn", Driver.Impl())
}
func BenchmarkUDFScalar(b *testing.B) {
	workload.Bench(b, workload.UDFScalar, "mattn", Driver.Impl())
}
func BenchmarkUDFAggregate(b *testing.B) {
	workload.Bench(b, workload.UDFAggregate, "mattn", Driver.Impl())
}

// The application-shaped workloads (issue 15).
func BenchmarkPointQuery(b *testing.B) {
	workload.Bench(b, workload.PointQuery, "mattn", Driver.Impl())
}
func BenchmarkFewRows(b *testing.B) { workload.Bench(b, workload.FewRows, "mattn", Driver.Impl()) }
func BenchmarkPrepareChurn(b *testing.B) {
	workload.Bench(b, workload.PrepareChurn, "mattn", Driver.Impl())
}
func BenchmarkSmallTx(b *testing.B) { workload.Bench(b, workload.SmallTx, "mattn", Driver.Impl()) }
func BenchmarkLargeValues(b *testing.B) {
	workload.Bench(b, workload.LargeValues, "mattn", Driver.Impl())
}

func BenchmarkFetchWork(b *testing.B) {
	workload.Bench(b, workload.FetchWork, "mattn", Driver.Impl())
}

// Backup (issue 11); mattn has no blob I/O (blob_read and blob_many are skipped).
func BenchmarkBackup(b *testing.B) { workload.Bench(b, workload.Backup, "mattn", Driver.Impl()) }

// Virtual tables (with the sqlite_vtable tag; skipped without it) and an IN list of one
// placeholder per id.
func BenchmarkVtabScan(b *testing.B) { workload.Bench(b, workload.VtabScan, "mattn", Driver.Impl()) }
func BenchmarkTVFJoin(b *testing.B)  { workload.Bench(b, workload.TVFJoin, "mattn", Driver.Impl()) }
func BenchmarkInList(b *testing.B)   { workload.Bench(b, workload.InList, "mattn", Driver.Impl()) }
