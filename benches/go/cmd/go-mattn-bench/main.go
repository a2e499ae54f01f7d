// Command go-mattn-bench is the runner command of the go-mattn implementation; see
// benches/README.md for the protocol.
package main

import (
	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
	"github.com/sqlbatch/sqlbatch/benches/go/mattnbench"
)

func main() { workload.Main("go-mattn-bench", mattnbench.Impls) }
