// Command go-mattn-sqlcipher-bench is the runner command of the go-mattn-sqlcipher
// implementation (github.com/mutecomm/go-sqlcipher/v4, the SQLCipher fork of
// mattn/go-sqlite3); see benches/README.md for the protocol.
package main

import (
	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
	"github.com/sqlbatch/sqlbatch/benches/go/sqlcipherbench"
)

func main() { workload.Main("go-mattn-sqlcipher-bench", sqlcipherbench.Impls) }
