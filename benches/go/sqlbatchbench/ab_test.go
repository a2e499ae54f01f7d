package sqlbatchbench

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
)

type sw struct {
	t0 time.Time
	d  time.Duration
}

func (s *sw) Start() { s.t0 = time.Now() }
func (s *sw) Stop()  { s.d += time.Since(s.t0) }

// TestAB interleaves repetitions of the implementations (set SQLBATCH_AB=workload) and
// prints each one's minimum and median time: a noise-resistant comparison for development
// on a shared machine. It is skipped unless SQLBATCH_AB is set.
func TestAB(t *testing.T) {
	w := os.Getenv("SQLBATCH_AB")
	if w == "" {
		t.Skip("set SQLBATCH_AB=<workload> to run")
	}
	n := 200
	if v := os.Getenv("SQLBATCH_AB_REPS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatalf("SQLBATCH_AB_REPS: %v", err)
		}
	}
	impls := []struct {
		name string
		impl workload.Impl
	}{{"c-native", Native}, {"c-sqlbatch", CSqlbatch}, {"sqlbatch", LowLevel}, {"sqlbatch-sql", SQL.Impl()}}
	reps := make([]workload.Rep, len(impls))
	times := make([][]time.Duration, len(impls))
	for i, im := range impls {
		rep, cleanup, err := im.impl(w, workload.Input(w))
		if err != nil {
			continue
		}
		defer cleanup()
		if _, _, err := rep(&sw{}); err != nil { // a first run, untimed
			t.Fatalf("%s: %v", im.name, err)
		}
		reps[i] = rep
	}
	for k := 0; k < n; k++ {
		for i, rep := range reps {
			if rep == nil {
				continue
			}
			s := &sw{}
			if _, _, err := rep(s); err != nil {
				t.Fatal(err)
			}
			times[i] = append(times[i], s.d)
		}
	}
	var base time.Duration
	for i, ts := range times {
		if len(ts) == 0 {
			continue
		}
		sort.Slice(ts, func(a, b int) bool { return ts[a] < ts[b] })
		med := ts[len(ts)/2]
		if i == 0 {
			base = med
		}
		fmt.Printf("%-14s min %10v  median %10v  ratio(median) %.3f\n", impls[i].name, ts[0], med, float64(base)/float64(med))
	}
}
