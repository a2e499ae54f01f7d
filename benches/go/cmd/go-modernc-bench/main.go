// Command go-modernc-bench is the runner command of the go-modernc implementation; see
// benches/README.md for the protocol.
package main

import (
	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
	"github.com/sqlbatch/sqlbatch/benches/go/modernbench"
)

func main() { workload.Main("go-modernc-bench", modernbench.Impls) }
