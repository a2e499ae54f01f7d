//go:build sqlbatch_dynamic

package abtest

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sqlbatch/sqlbatch/benches/go/internal/sbwork"
	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
	"github.com/sqlbatch/sqlbatch/benches/go/mattnbench"
	"github.com/sqlbatch/sqlbatch/benches/go/modernbench"
)

var impls = map[string]workload.Impl{
	"sqlbatch":     sbwork.LowLevel,
	"sqlbatch-sql": sbwork.SQL.Impl(),
	"mattn":        mattnbench.Driver.Impl(),
	"modernc":      modernbench.Driver.Impl(),
	"floor":        Floor.Impl(),
	// The driver with fetch-ahead (issue 14): _fetch_ahead=1 in its DSN, the rest as
	// sqlbatch-sql.
	"sqlbatch-sql+ahead": func() workload.Impl {
		d := sbwork.SQL
		d.DSN = func(path string) string { return path + "?_fetch_ahead=1" }
		return d.Impl()
	}(),
}

type stopwatch struct {
	t0 time.Time
	d  time.Duration
}

func (s *stopwatch) Start() { s.t0 = time.Now() }
func (s *stopwatch) Stop()  { s.d += time.Since(s.t0) }

// TestAB interleaves repetitions of the implementations in SQLBATCH_AB_IMPLS (default
// sqlbatch-sql,mattn) on workload SQLBATCH_AB, SQLBATCH_AB_REPS rounds (default 200), and
// prints each one's minimum and median, with ratios of the medians to the first one and to
// mattn. Skipped unless SQLBATCH_AB is set.
func TestAB(t *testing.T) {
	w := os.Getenv("SQLBATCH_AB")
	if w == "" {
		t.Skip("set SQLBATCH_AB=<workload> to run")
	}
	n, _ := strconv.Atoi(os.Getenv("SQLBATCH_AB_REPS"))
	if n == 0 {
		n = 200
	}
	names := strings.Split(os.Getenv("SQLBATCH_AB_IMPLS"), ",")
	if names[0] == "" {
		names = []string{"sqlbatch-sql", "mattn"}
	}
	reps := make([]workload.Rep, len(names))
	sums := make([]int64, len(names))
	for i, name := range names {
		impl, ok := impls[name]
		if !ok {
			t.Fatalf("unknown implementation %q", name)
		}
		rep, cleanup, err := impl(w, workload.Input(w))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		defer cleanup()
		if _, sums[i], err = rep(&stopwatch{}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// The floor writes nothing, so the write workloads' checksums are not its.
		writes := w == workload.PrepareChurn || w == workload.SmallTx
		if sums[i] != sums[0] && !(writes && (name == "floor" || names[0] == "floor")) {
			t.Errorf("%s: checksum %d, %s: %d", name, sums[i], names[0], sums[0])
		}
		reps[i] = rep
	}
	times := make([][]time.Duration, len(names))
	for k := 0; k < n; k++ {
		for j := range reps {
			i := (j + k) % len(reps) // rotate the order
			s := &stopwatch{}
			if _, _, err := reps[i](s); err != nil {
				t.Fatal(err)
			}
			times[i] = append(times[i], s.d)
		}
	}
	med := make([]time.Duration, len(names))
	for i, ts := range times {
		sort.Slice(ts, func(a, b int) bool { return ts[a] < ts[b] })
		med[i] = ts[len(ts)/2]
	}
	mattn := -1
	for i, name := range names {
		if name == "mattn" {
			mattn = i
		}
	}
	for i, name := range names {
		line := fmt.Sprintf("%-13s min %12v  median %12v  %6.3fx %s", name, times[i][0], med[i],
			float64(med[0])/float64(med[i]), names[0])
		if mattn >= 0 {
			line += fmt.Sprintf("  %6.3fx mattn (min: %6.3fx)", float64(med[mattn])/float64(med[i]),
				float64(times[mattn][0])/float64(times[i][0]))
		}
		fmt.Println(line)
	}
}
