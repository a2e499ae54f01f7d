// Command go-interleave runs runner commands (see benches/README.md) in interleaved
// rounds and prints the medians with their ratios to c-native and go-mattn.
//
// benches/run measures one implementation after the other; on a shared machine whose speed
// drifts by a factor of two within minutes, that can make a ratio of two medians taken
// minutes apart mean little. This command cycles through the implementations instead
// (round 1: every implementation a few repetitions, round 2: again, ...), so that each
// implementation sees the same mix of fast and slow spells, and takes the median over all
// rounds. The order of the implementations rotates from round to round.
//
//	go run ./cmd/go-interleave -rounds 7 -workloads fetch_narrow,fetch_wide
//
// Run it from benches/go after `make build` (and `make -C benches/impls/c build` for c-native).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

type impl struct{ name, bin string }

var allImpls = []impl{
	{"c-native", "c-bench"},
	{"c-sqlbatch", "c-bench"},
	{"go-sqlbatch", "go-sqlbatch-bench"},
	{"go-sqlbatch-sql", "go-sqlbatch-bench"},
	{"go-mattn", "go-mattn-bench"},
	{"go-modernc", "go-modernc-bench"},
}

// Repetitions per invocation, per workload (each invocation also warms up once).
var repsOf = map[string]int{
	"fetch_narrow": 10, "fetch_narrow_1m": 2, "fetch_wide": 2,
	"exec_script": 5, "exec_script_10k": 2, "bulk_insert": 1,
	"udf_scalar": 5, "udf_aggregate": 5,
	"vtab_scan": 5, "tvf_join": 5, "in_list": 1,
}

func main() {
	root := flag.String("root", "../..", "top of the repository")
	rounds := flag.Int("rounds", 5, "interleaved rounds")
	wls := flag.String("workloads", "fetch_narrow,fetch_narrow_1m,fetch_wide,exec_script,exec_script_10k,bulk_insert", "workloads")
	impls := flag.String("impls", "", "implementations (default: all six)")
	flag.Parse()
	bin := filepath.Join(*root, "build", "bench")
	wdir := filepath.Join(*root, "build", "workloads")
	chosen := allImpls
	if *impls != "" {
		chosen = nil
		for _, n := range strings.Split(*impls, ",") {
			for _, im := range allImpls {
				if im.name == n {
					chosen = append(chosen, im)
				}
			}
		}
	}
	type key struct{ w, impl string }
	times := map[key][]float64{}
	counts := map[key]int64{}
	sums := map[string]map[string]bool{}
	workloads := strings.Split(*wls, ",")
	for r := 1; r <= *rounds; r++ {
		fmt.Fprintf(os.Stderr, "round %d/%d\n", r, *rounds)
		for _, w := range workloads {
			input := filepath.Join(wdir, w+".db")
			switch {
			case strings.HasPrefix(w, "exec_script"):
				input = filepath.Join(wdir, w+".sql")
			case w == "bulk_insert":
				input = "1000000"
			case strings.HasPrefix(w, "udf_"):
				input = filepath.Join(wdir, "udf.db")
			case w == "vtab_scan":
				input = "1000000"
			case w == "tvf_join" || w == "in_list":
				input = filepath.Join(wdir, "app.db")
			}
			// Rotate the order every round, so that no implementation always runs first
			// (right after the previous workload, often a memory-hungry bulk insert).
			for j := range chosen {
				im := chosen[(j+r)%len(chosen)]
				warm := "1"
				if w == "bulk_insert" || w == "exec_script_10k" {
					warm = "0"
				}
				cmd := exec.Command(filepath.Join(bin, im.bin), "--impl", im.name, "--workload", w,
					"--input", input, "--reps", strconv.Itoa(repsOf[w]), "--warmup", warm)
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				if err := cmd.Run(); err != nil {
					if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 3 {
						continue
					}
					fmt.Fprintf(os.Stderr, "%s %s: %v: %s\n", im.name, w, err, errb.String())
					continue
				}
				sc := bufio.NewScanner(&out)
				for sc.Scan() {
					f := strings.Fields(sc.Text())
					if len(f) < 3 { // "<ns> <count> <checksum> [<cpu ns>]"
						continue
					}
					ns, _ := strconv.ParseFloat(f[0], 64)
					n, _ := strconv.ParseInt(f[1], 10, 64)
					k := key{w, im.name}
					times[k] = append(times[k], ns)
					counts[k] = n
					if sums[w] == nil {
						sums[w] = map[string]bool{}
					}
					sums[w][f[2]] = true
				}
			}
		}
	}
	median := func(xs []float64) float64 {
		s := append([]float64(nil), xs...)
		sort.Float64s(s)
		if len(s) == 0 {
			return 0
		}
		return s[len(s)/2]
	}
	fmt.Printf("%d interleaved rounds; per cell: median rate, ratio to c-native, ratio to go-mattn (n = measured repetitions)\n\n", *rounds)
	fmt.Printf("%-16s", "impl")
	for _, w := range workloads {
		fmt.Printf(" %-34s", w)
	}
	fmt.Println()
	for _, im := range chosen {
		fmt.Printf("%-16s", im.name)
		for _, w := range workloads {
			k := key{w, im.name}
			if len(times[k]) == 0 {
				fmt.Printf(" %-34s", "n/a")
				continue
			}
			rate := float64(counts[k]) / (median(times[k]) / 1e9)
			cell := human(rate)
			if b := times[key{w, "c-native"}]; len(b) > 0 {
				cell += fmt.Sprintf(" %.2fx-C", median(b)/median(times[k]))
			}
			if b := times[key{w, "go-mattn"}]; len(b) > 0 {
				cell += fmt.Sprintf(" %.2fx-mattn", median(b)/median(times[k]))
			}
			cell += fmt.Sprintf(" n=%d", len(times[k]))
			fmt.Printf(" %-34s", cell)
		}
		fmt.Println()
	}
	for _, w := range workloads {
		if len(sums[w]) > 1 {
			fmt.Printf("\nWARNING: %s checksums differ between implementations: %v\n", w, sums[w])
		}
	}
}

func human(r float64) string {
	switch {
	case r >= 1e6:
		return fmt.Sprintf("%.2fM/s", r/1e6)
	case r >= 1e3:
		return fmt.Sprintf("%.0fk/s", r/1e3)
	}
	return fmt.Sprintf("%.0f/s", r)
}
