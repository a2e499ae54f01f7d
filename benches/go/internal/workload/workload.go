// Package workload holds what every Go implementation of the cross-language benchmark
// shares: the workload names and inputs, the checksum rules of benches/README.md, the
// runner protocol (flags in, "<ns> <count> <checksum>" lines out), and the glue that runs
// the same repetitions as `go test -bench` benchmarks.
package workload

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// The workloads of benches/README.md.
const (
	FetchNarrow   = "fetch_narrow"
	FetchNarrow1M = "fetch_narrow_1m"
	FetchWide     = "fetch_wide"
	FetchWork     = "fetch_work" // fetch_wide's query with an FNV-1a hash over every cell (FNV)
	ExecScript    = "exec_script"
	ExecScript10k = "exec_script_10k"
	BulkInsert    = "bulk_insert"
	UDFScalar     = "udf_scalar"
	UDFAggregate  = "udf_aggregate"
	UpdateHook    = "update_hook"
	// The application-shaped workloads of issue 15 (see apps.go).
	PointQuery   = "point_query"
	FewRows      = "few_rows"
	PrepareChurn = "prepare_churn"
	SmallTx      = "small_tx"
	LargeValues  = "large_values"
	// Issue 11's blob and backup workloads (see blobs.go).
	BlobRead = "blob_read"
	BlobMany = "blob_many"
	Backup   = "backup"
)

// The SQL of the workloads.
const (
	NarrowQuery   = "SELECT id FROM testdata"
	WideQuery     = "SELECT id, i1, i2, i3, r1, r2, t1, t2, t3, b FROM wide"
	WorkQuery     = WideQuery
	ScriptTable   = "CREATE TABLE script_t(a INTEGER, b TEXT)"
	ScriptCheck   = "SELECT count(*), sum(a) FROM script_t"
	BulkTable     = "CREATE TABLE bulk(a INTEGER, b REAL, c TEXT)"
	BulkInsertQ   = "INSERT INTO bulk VALUES (?, ?, ?)"
	BulkCheck     = "SELECT count(*), sum(a) + sum(length(c)) FROM bulk"
	DefaultBulkN  = 1000000
	UDFScalarQ    = "SELECT sum(f(x)) FROM udf"
	UDFAggregateQ = "SELECT sumsq(x) FROM udf"
	UpdateHookQ   = "UPDATE udf SET x = x + 1"
	// UpdateFeedBatch is the batch size of the change feed implementations of update_hook:
	// 1,000,000 rows make 1000 full batches, all handed over while the UPDATE runs.
	UpdateFeedBatch = 1000
)

// ErrUnsupported is returned by an Impl for a workload it does not implement; the runner
// then exits with status 3.
var ErrUnsupported = errors.New("workload not supported by this implementation")

// Timer brackets the measured part of a repetition. Untimed set-up (a fresh database and
// its table, checking the result) happens outside Start/Stop.
type Timer interface {
	Start()
	Stop()
}

// Rep runs one repetition, timing its measured part with t, and returns the count and
// checksum defined in benches/README.md.
type Rep func(t Timer) (count, checksum int64, err error)

// Impl prepares an implementation for a workload (opening databases, reading the script,
// building bulk rows: all untimed) and returns its repetition and a clean-up function.
type Impl func(workload, input string) (rep Rep, cleanup func(), err error)

// Cell checksum contributions for fetch_wide (benches/README.md).

// Real is the contribution of a REAL: its value times 1000, truncated toward zero.
func Real(f float64) int64 { return int64(f * 1000) }

// TextLen is the contribution of a TEXT: its number of code points.
func TextLen(s string) int64 { return int64(utf8.RuneCountInString(s)) }

// FNV is the hash of fetch_work (benches/README.md): 64-bit FNV-1a, kept across the whole
// repetition and folded over every cell in column order, one byte of the cell's SQLite type
// code (1 INTEGER, 2 FLOAT, 3 TEXT, 4 BLOB, 5 NULL), then its bytes: an INTEGER's 8 bytes
// little-endian, a FLOAT's IEEE-754 bits the same way, the UTF-8 bytes of a TEXT (as bytes,
// not decoded), the bytes of a BLOB, nothing for NULL. The checksum is Sum64 as an int64.
// Start from NewFNV.
type FNV uint64

// FNV-1a's 64-bit offset basis and prime.
const (
	FNVOffset = 14695981039346656037
	FNVPrime  = 1099511628211
)

// NewFNV returns the hash of no cell.
func NewFNV() FNV { return FNVOffset }

func (h FNV) byte(b byte) FNV { return (h ^ FNV(b)) * FNVPrime }

func (h FNV) u64(v uint64) FNV {
	for range 8 {
		h = (h ^ FNV(v&0xff)) * FNVPrime
		v >>= 8
	}
	return h
}

func (h FNV) bytes(p []byte) FNV {
	for _, b := range p {
		h = (h ^ FNV(b)) * FNVPrime
	}
	return h
}

// Int64 folds in an INTEGER cell.
func (h FNV) Int64(v int64) FNV { return h.byte(1).u64(uint64(v)) }

// Float64 folds in a FLOAT cell.
func (h FNV) Float64(f float64) FNV { return h.byte(2).u64(math.Float64bits(f)) }

// Text folds in a TEXT cell, given its UTF-8 bytes.
func (h FNV) Text(p []byte) FNV { return h.byte(3).bytes(p) }

// TextString folds in a TEXT cell given as a string (its bytes, as Text; for a driver that
// hands TEXT over only as a string).
func (h FNV) TextString(s string) FNV {
	h = h.byte(3)
	for i := 0; i < len(s); i++ {
		h = (h ^ FNV(s[i])) * FNVPrime
	}
	return h
}

// Blob folds in a BLOB cell.
func (h FNV) Blob(p []byte) FNV { return h.byte(4).bytes(p) }

// Null folds in a NULL cell.
func (h FNV) Null() FNV { return h.byte(5) }

// Sum64 is the checksum of fetch_work: the hash as a wrapping int64.
func (h FNV) Sum64() int64 { return int64(h) }

// BulkRows are the rows of bulk_insert, built before any clock starts:
// row i is (i, i * 0.25, "row-" || i).
type BulkRows struct {
	A []int64
	B []float64
	C []string
}

// MakeBulkRows builds n rows.
func MakeBulkRows(n int) *BulkRows {
	r := &BulkRows{A: make([]int64, n), B: make([]float64, n), C: make([]string, n)}
	for i := range n {
		r.A[i] = int64(i)
		r.B[i] = float64(i) * 0.25
		r.C[i] = "row-" + strconv.Itoa(i)
	}
	return r
}

// BulkCount parses the input of bulk_insert.
func BulkCount(input string) (int, error) {
	if input == "" {
		return DefaultBulkN, nil
	}
	n, err := strconv.Atoi(input)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bulk_insert: input %q is not a row count", input)
	}
	return n, nil
}

// IsFetch reports whether w is one of the fetch workloads.
func IsFetch(w string) bool { return strings.HasPrefix(w, "fetch_") }

// IsUDF reports whether w is one of the SQL function workloads (udf_scalar, udf_aggregate).
func IsUDF(w string) bool { return w == UDFScalar || w == UDFAggregate }

// WarmsCache reports whether w reads a database file whose pages its process warms with at
// least one unmeasured repetition: the fetch and udf workloads.
func WarmsCache(w string) bool {
	return IsFetch(w) || IsUDF(w) || w == UpdateHook || w == PointQuery || w == FewRows || w == LargeValues ||
		IsBlob(w) || w == TVFJoin || w == InList
}

// The counters of update_hook: the rows the hook saw and the sum of their rowids, added to
// by every implementation's hook (or change feed) itself.
var HookRows, HookRowIDs int64

// CountUpdate is an update hook in mattn/go-sqlite3's shape that counts into HookRows and
// HookRowIDs.
func CountUpdate(op int, db, table string, rowid int64) {
	HookRows++
	HookRowIDs += rowid
}

// UpdateHookRep is the repetition of update_hook over an implementation's exec function: BEGIN
// (untimed), the UPDATE of every row of udf (timed, the hook counting), ROLLBACK (untimed, so
// every repetition starts from the same file); the count is the rows the hook saw, the
// checksum the sum of their rowids (including any the ROLLBACK hands over).
func UpdateHookRep(exec func(q string) error) Rep {
	return func(t Timer) (count, checksum int64, err error) {
		HookRows, HookRowIDs = 0, 0
		if err := exec("BEGIN"); err != nil {
			return 0, 0, err
		}
		t.Start()
		err = exec(UpdateHookQ)
		t.Stop()
		if rerr := exec("ROLLBACK"); err == nil {
			err = rerr
		}
		return HookRows, HookRowIDs, err
	}
}

// The counters of the udf workloads. Every implementation's f adds 1 to UDFCalls per call,
// and its sumsq's step adds the number of rows it saw (a batch's row count, when batched)
// to UDFRows, inside the function itself. They are plain variables: the statements that
// call the functions run on one goroutine at a time. (The native C loop has its own
// counters, in native_loop.c.)
var UDFCalls, UDFRows int64

// UDFQuery returns the query of a udf workload.
func UDFQuery(w string) string {
	if w == UDFAggregate {
		return UDFAggregateQ
	}
	return UDFScalarQ
}

// UDFCount returns the count of a udf workload since the last ResetUDF: the calls of f for
// udf_scalar, the rows sumsq's step saw for udf_aggregate.
func UDFCount(w string) int64 {
	if w == UDFAggregate {
		return UDFRows
	}
	return UDFCalls
}

// ResetUDF sets the udf counters to zero, before each repetition.
func ResetUDF() { UDFCalls, UDFRows = 0, 0 }

// UDFRep is the repetition of a udf workload over an implementation's query function,
// which runs the query (prepare, step, finalize) and returns its integer: the counters are
// reset, query is timed, and the count is read from the counters.
func UDFRep(w string, query func(q string) (int64, error)) Rep {
	q := UDFQuery(w)
	return func(t Timer) (count, checksum int64, err error) {
		ResetUDF()
		t.Start()
		checksum, err = query(q)
		t.Stop()
		return UDFCount(w), checksum, err
	}
}

// Ahead says that the runner asked for fetch-ahead and write-behind (issue 14): the
// environment variable SQLBATCH_BENCH_AHEAD=1, which the runner sets for an implementation
// listed with the suffix +ahead (go-sqlbatch+ahead, go-sqlbatch-sql+ahead). Main reads it once,
// before calling the Impl. An Impl that honours it uses fetch-ahead for every fetch workload
// and write-behind for bulk_insert, and its command lists its name in AheadImpls; for any
// other, Main exits with status 3 (n/a).
var Ahead bool

// AheadImpls are the implementations (by runner name) that honour Ahead: internal/sbwork
// adds go-sqlbatch (OpenFetchAhead, ExecManyFunc) and go-sqlbatch-sql (the DSN's
// _fetch_ahead=1, the driver's ExecManyFunc).
var AheadImpls = map[string]bool{}

// Encryption (issue 34). Key is the passphrase of SQLBATCH_BENCH_KEY, which the runner sets
// for an implementation listed with the suffix +enc (go-sqlbatch-sqlcipher+enc, ...): the
// fetch workloads' input is then an encrypted copy of the workload database (SQLCipher's
// default settings), to be opened with this key, and bulk_insert writes an encrypted file.
// BulkFile (SQLBATCH_BENCH_BULK_FILE=1, set by the runner for every row of an encrypted
// build, keyed or not, and implied by Key) makes bulk_insert write a fresh file at BulkPath
// with synchronous=OFF instead of :memory:, which SQLCipher does not encrypt. Main reads both
// once, before calling the Impl; an implementation that honours them lists its name in
// EncImpls, and for any other, or any workload but the fetch ones and bulk_insert, Main exits
// with status 3 (n/a).
var (
	Key      string
	BulkFile bool
)

// EncImpls are the implementations (by runner name) that honour Key and BulkFile.
var EncImpls = map[string]bool{}

// BulkPath is the file of bulk_insert with BulkFile: <$TMPDIR or /tmp>/sqlbatch-bench-bulk-<pid>.db.
func BulkPath() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("sqlbatch-bench-bulk-%d.db", os.Getpid()))
}

// RemoveBulkFiles removes BulkPath and its rollback journal: before every repetition and at
// the end of the process.
func RemoveBulkFiles() {
	os.Remove(BulkPath())
	os.Remove(BulkPath() + "-journal")
}

// BulkSynchronous is what a bulk_insert file runs after open (untimed): the commit does not
// wait for the disk, so that what is measured is the work on the pages (SQLCipher's too).
const BulkSynchronous = "PRAGMA synchronous=OFF"

// stopwatch is the runner's Timer: the wall time and the process's CPU time (user + sys,
// all threads: the Go runtime's and a library worker thread's too) of the timed parts.
type stopwatch struct {
	start    time.Time
	cpuStart time.Duration
	elapsed  time.Duration
	cpu      time.Duration
}

func (s *stopwatch) Start() {
	s.cpuStart = processCPU()
	s.start = time.Now()
}

func (s *stopwatch) Stop() {
	s.elapsed += time.Since(s.start)
	s.cpu += processCPU() - s.cpuStart
}

// processCPU is the CPU time the process has used so far (getrusage(RUSAGE_SELF)).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Main is the runner protocol of benches/README.md:
//
//	<command> --impl NAME --workload WORKLOAD --input PATH_OR_COUNT --reps N --warmup W
//
// It runs W unprinted repetitions (at least one for the fetch and udf workloads, to warm
// the page cache), then N printed ones, one "<nanoseconds> <count> <checksum> <cpu ns>" line
// each (the CPU time of the process during the timed part, user + sys, all threads).
func Main(prog string, impls map[string]Impl) {
	fs := flag.NewFlagSet(prog, flag.ExitOnError)
	implName := fs.String("impl", "", "implementation: "+strings.Join(names(impls), ", "))
	wl := fs.String("workload", "", "workload name")
	input := fs.String("input", "", "input file or row count")
	reps := fs.Int("reps", 5, "measured repetitions")
	warmup := fs.Int("warmup", 1, "unmeasured repetitions")
	fs.Parse(os.Args[1:])
	fail := func(status int, format string, args ...any) {
		fmt.Fprintf(os.Stderr, prog+": "+format+"\n", args...)
		os.Exit(status)
	}
	impl, ok := impls[*implName]
	if !ok {
		fail(2, "unknown --impl %q (have %s)", *implName, strings.Join(names(impls), ", "))
	}
	if v := os.Getenv("SQLBATCH_BENCH_AHEAD"); v != "" && v != "0" {
		Ahead = true
		if !AheadImpls[*implName] {
			fail(3, "%s has no fetch-ahead / write-behind yet (SQLBATCH_BENCH_AHEAD)", *implName)
		}
	}
	Key = os.Getenv("SQLBATCH_BENCH_KEY")
	if v := os.Getenv("SQLBATCH_BENCH_BULK_FILE"); (v != "" && v != "0") || Key != "" {
		BulkFile = true
		if !EncImpls[*implName] {
			fail(3, "%s has no encrypted form (SQLBATCH_BENCH_KEY, SQLBATCH_BENCH_BULK_FILE)", *implName)
		}
		if !IsFetch(*wl) && *wl != BulkInsert {
			fail(3, "%s: no encrypted form of %q (the fetch workloads and bulk_insert have one)", *implName, *wl)
		}
		defer RemoveBulkFiles()
	}
	rep, cleanup, err := impl(*wl, *input)
	if errors.Is(err, ErrUnsupported) {
		fail(3, "%s does not support workload %q", *implName, *wl)
	}
	if err != nil {
		fail(1, "%s %s: %v", *implName, *wl, err)
	}
	defer cleanup()
	w := *warmup
	if WarmsCache(*wl) && w < 1 {
		w = 1
	}
	for range w {
		if _, _, err := rep(&stopwatch{}); err != nil {
			fail(1, "%s %s warm-up: %v", *implName, *wl, err)
		}
	}
	out := make([]string, 0, *reps)
	for range *reps {
		sw := &stopwatch{}
		count, sum, err := rep(sw)
		if err != nil {
			fail(1, "%s %s: %v", *implName, *wl, err)
		}
		out = append(out, fmt.Sprintf("%d %d %d %d", sw.elapsed.Nanoseconds(), count, sum, sw.cpu.Nanoseconds()))
	}
	fmt.Println(strings.Join(out, "\n"))
}

func names(impls map[string]Impl) []string {
	var n []string
	for k := range impls {
		n = append(n, k)
	}
	return n
}

// Dir returns the directory holding the generated workloads: $SQLBATCH_WORKLOADS, or
// build/workloads at the top of the repository (found from the caller's package directory).
func Dir() string {
	if d := os.Getenv("SQLBATCH_WORKLOADS"); d != "" {
		return d
	}
	wd, _ := os.Getwd()
	for d := wd; ; d = filepath.Dir(d) {
		cand := filepath.Join(d, "build", "workloads")
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return cand
		}
		if filepath.Dir(d) == d {
			return filepath.Join(wd, "build", "workloads")
		}
	}
}

// Input returns the input of a workload in Dir: a file path, or the row count.
func Input(w string) string {
	switch w {
	case FetchNarrow, FetchNarrow1M, FetchWide:
		return filepath.Join(Dir(), w+".db")
	case FetchWork:
		return filepath.Join(Dir(), "fetch_wide.db")
	case ExecScript, ExecScript10k:
		return filepath.Join(Dir(), w+".sql")
	case UDFScalar, UDFAggregate, UpdateHook:
		return filepath.Join(Dir(), "udf.db")
	case PointQuery, FewRows, TVFJoin, InList:
		return filepath.Join(Dir(), "app.db")
	case VtabScan:
		return strconv.Itoa(DefaultVtabRows)
	case LargeValues:
		return filepath.Join(Dir(), "big.db")
	case BlobRead, BlobMany:
		return filepath.Join(Dir(), "blob.db")
	case Backup:
		return filepath.Join(Dir(), "backup.db")
	case PrepareChurn:
		return strconv.Itoa(DefaultChurnN)
	case SmallTx:
		return strconv.Itoa(DefaultSmallTxN)
	case BulkInsert:
		if n := os.Getenv("SQLBATCH_BULK_ROWS"); n != "" {
			return n
		}
		return strconv.Itoa(DefaultBulkN)
	}
	return ""
}

// benchTimer is the Timer of a benchmark: b's own timer, so ns/op is the measured part.
type benchTimer struct{ b *testing.B }

func (t benchTimer) Start() { t.b.StartTimer() }
func (t benchTimer) Stop()  { t.b.StopTimer() }

// Unit is the unit of a workload's throughput metric.
func Unit(w string) string {
	switch {
	case strings.HasPrefix(w, "exec_script"), w == PrepareChurn:
		return "stmts/s"
	case w == PointQuery || w == FewRows || w == InList:
		return "queries/s"
	case w == SmallTx:
		return "tx/s"
	case w == BlobRead || w == Backup:
		return "bytes/s"
	case w == BlobMany:
		return "blobs/s"
	}
	return "rows/s"
}

// Bench runs impl on workload w as a benchmark named impl=<name> under b, reporting
// throughput (rows/s or stmts/s) over the measured parts of the repetitions.
func Bench(b *testing.B, w, name string, impl Impl) {
	b.Run("impl="+name, func(b *testing.B) {
		in := Input(w)
		if strings.HasSuffix(in, ".db") || strings.HasSuffix(in, ".sql") {
			if _, err := os.Stat(in); err != nil {
				b.Skipf("%s missing: run `python3 benches/workloads/generate.py build/workloads` at the top of the repository", in)
			}
		}
		b.StopTimer()
		rep, cleanup, err := impl(w, in)
		if errors.Is(err, ErrUnsupported) {
			b.Skip(err)
		}
		if err != nil {
			b.Fatal(err)
		}
		defer cleanup()
		if WarmsCache(w) {
			if _, _, err := rep(&stopwatch{}); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		b.ResetTimer()
		b.StopTimer()
		var total int64
		for i := 0; i < b.N; i++ {
			count, _, err := rep(benchTimer{b})
			if err != nil {
				b.Fatal(err)
			}
			total += count
		}
		b.ReportMetric(float64(total)/b.Elapsed().Seconds(), Unit(w))
	})
}
