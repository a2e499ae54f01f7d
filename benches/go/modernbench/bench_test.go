package modernbench

import (
	"testing"

	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
)

func BenchmarkFetchNarrow(b *testing.B) {
	workload.Bench(b, workload.FetchNarrow, "modernc", Driver.Impl())
}
func BenchmarkFetchWide(b *testing.B) {
	workload.Bench(b, workload.FetchWide, "modernc", Driver.Impl())
}
func BenchmarkFetchWideTyped(b *testing.B) {
	workload.Bench(b, workload.FetchWide, "modernc", Driver.FetchWideTyped())
}
func BenchmarkExecScript(b *testing.B) {
	workload.Bench(b, workload.ExecScript, "modernc", Driver.Impl())
}
func BenchmarkExecScript10k(b *testing.B) {
	workload.Bench(b, workload.ExecScript10k, "modernc", Driver.Impl())
}
func BenchmarkBulkInsert(b *testing.B) {
	workload.Bench(b, workload.BulkInsert, "modernc", Driver.Impl())
}
func BenchmarkUDFScalar(b *testing.B) {
	workload.Bench(b, workload.UDFScalar, "modernc", Driver.Impl())
}
func BenchmarkUDFAggregate(b *testing.B) {
	workload.Bench(b, workload.UDFAggregate, "modernc", Driver.Impl())
}

// The application-shaped workloads (issue 15).
func BenchmarkPointQuery(b *testing.B) {
	workload.Bench(b, workload.PointQuery, "modernc", Driver.Impl())
}
func BenchmarkFewRows(b *testing.B) { workload.Bench(b, workload.FewRows, "modernc", Driver.Impl()) }
func BenchmarkPrepareChurn(b *testing.B) {
	workload.Bench(b, workload.PrepareChurn, "modernc", Driver.Impl())
}
func BenchmarkSmallTx(b *testing.B) { workload.Bench(b, workload.SmallTx, "modernc", Driver.Impl()) }
func BenchmarkLargeValues(b *testing.B) {
	workload.Bench(b, workload.LargeValues, "modernc", Driver.Impl())
}

func BenchmarkFetchWork(b *testing.B) {
	workload.Bench(b, workload.FetchWork, "modernc", Driver.Impl())
}

// Backup (issue 11); modernc has no blob I/O.
func BenchmarkBackup(b *testing.B) { workload.Bench(b, workload.Backup, "modernc", Driver.Impl()) }

// Virtual tables (modernc.org/sqlite/vtab) and an IN list of one placeholder per id.
func BenchmarkVtabScan(b *testing.B) {
	workload.Bench(b, workload.VtabScan, "modernc", Driver.Impl())
}
func BenchmarkTVFJoin(b *testing.B) { workload.Bench(b, workload.TVFJoin, "modernc", Driver.Impl()) }
func BenchmarkInList(b *testing.B)  { workload.Bench(b, workload.InList, "modernc", Driver.Impl()) }
