// Command go-sqlbatch-bench is the runner command of the go-sqlbatch (low-level package)
// and go-sqlbatch-sql (database/sql driver) implementations, plus go-native-c (the native
// C loop in the same process); see benches/README.md for the protocol.
package main

import (
	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
	"github.com/sqlbatch/sqlbatch/benches/go/sqlbatchbench"
)

func main() { workload.Main("go-sqlbatch-bench", sqlbatchbench.Impls) }
