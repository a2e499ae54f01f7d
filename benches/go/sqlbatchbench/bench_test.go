package sqlbatchbench

import (
	"testing"

	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
)

// Each benchmark runs the sqlbatch implementations and the native C baseline on one
// workload; mattnbench and modernbench have the same benchmarks for their drivers.
func run(b *testing.B, w string) {
	workload.Bench(b, w, "c-native", Native)
	workload.Bench(b, w, "c-sqlbatch", CSqlbatch)
	workload.Bench(b, w, "sqlbatch", LowLevel)
	workload.Bench(b, w, "sqlbatch-sql", SQL.Impl())
}

func BenchmarkFetchNarrow(b *testing.B) { run(b, workload.FetchNarrow) }
func BenchmarkFetchWide(b *testing.B)   { run(b, workload.FetchWide) }
func BenchmarkFetchWork(b *testing.B)   { run(b, workload.FetchWork) }
func BenchmarkFetchWideTyped(b *testing.B) {
	workload.Bench(b, workload.FetchWide, "sqlbatch-sql", SQL.FetchWideTyped())
}
func BenchmarkExecScript(b *testing.B) { run(b, workload.ExecScript) }
func BenchmarkExecScript10k(b *testing.B) {
	run(b, workload.ExecScript10k)
}
func BenchmarkBulkInsert(b *testing.B) {
	run(b, workload.BulkInsert)
	workload.Bench(b, workload.BulkInsert, "sqlbatch-sql-stmt", SQLStmtLoop.Impl())
}
func BenchmarkUDFScalar(b *testing.B)    { run(b, workload.UDFScalar) }
func BenchmarkUDFAggregate(b *testing.B) { run(b, workload.UDFAggregate) }

// The application-shaped workloads (issue 15): the low-level package and the driver; the
// native C loops of this package do not implement them (c-native is benches/native's).
func runApp(b *testing.B, w string) {
	workload.Bench(b, w, "sqlbatch", LowLevel)
	workload.Bench(b, w, "sqlbatch-sql", SQL.Impl())
}

func BenchmarkPointQuery(b *testing.B)   { runApp(b, workload.PointQuery) }
func BenchmarkFewRows(b *testing.B)      { runApp(b, workload.FewRows) }
func BenchmarkPrepareChurn(b *testing.B) { runApp(b, workload.PrepareChurn) }
func BenchmarkSmallTx(b *testing.B)      { runApp(b, workload.SmallTx) }
func BenchmarkLargeValues(b *testing.B)  { runApp(b, workload.LargeValues) }

// The blob and backup workloads (issue 11): the low-level package and the driver (through
// sql.Conn.Raw).
func BenchmarkBlobRead(b *testing.B) { runApp(b, workload.BlobRead) }
func BenchmarkBlobMany(b *testing.B) { runApp(b, workload.BlobMany) }
func BenchmarkBackup(b *testing.B)   { runApp(b, workload.Backup) }

// Virtual tables and table-valued parameters: the low-level package (vtab_scan's rows
// prepared in advance, the floor of a Go module; sqlbatch-writer writes them value by value
// in each Fill) and the driver (mattn/go-sqlite3's module shape, sqlbatch.Array).
func BenchmarkVtabScan(b *testing.B) {
	runApp(b, workload.VtabScan)
	workload.Bench(b, workload.VtabScan, "sqlbatch-writer", LowLevelWriter)
}
func BenchmarkTVFJoin(b *testing.B) { runApp(b, workload.TVFJoin) }
func BenchmarkInList(b *testing.B)  { runApp(b, workload.InList) }
