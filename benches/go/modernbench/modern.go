// Package modernbench runs the benchmark workloads through database/sql with
// modernc.org/sqlite (SQLite translated to Go: no cgo).
package modernbench

import (
	"database/sql/driver"
	"fmt"
	"sync"

	"modernc.org/sqlite"

	"github.com/sqlbatch/sqlbatch/benches/go/internal/sqlwork"
	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
)

// Driver is modernc.org/sqlite with its default options; bulk_insert is a prepared
// statement loop. It has no incremental blob I/O (blob_read and blob_many are n/a); backup
// is its connection's NewBackup, which opens the destination itself. Its functions are registered for every connection the driver opens
// afterwards (modernc has no per-connection registration), so the udf workloads register
// f and sumsq once, before they open their database; so are its virtual table modules
// (vtab.go), for vtab_scan and tvf_join. in_list has one placeholder per id.
var Driver = sqlwork.Driver{
	Name:           "sqlite",
	DSN:            func(path string) string { return path },
	EmptyBlobIsNil: true, // modernc.org/sqlite returns nil for an empty BLOB
	UDF:            "sqlite",
	UDFSetup:       registerUDF,
	BackupToFile:   backupToFile,
	VTabSetup:      vtabSetup,
	VTab:           modernVTab,
}

// Impls are the implementations of this package, by the names the runner knows them by.
var Impls = map[string]workload.Impl{"go-modernc": Driver.Impl()}

var (
	udfOnce sync.Once
	udfErr  error
)

// registerUDF registers f (RegisterDeterministicScalarFunction) and sumsq (RegisterFunction
// with MakeAggregate), once per process.
func registerUDF() error {
	udfOnce.Do(func() {
		udfErr = sqlite.RegisterDeterministicScalarFunction("f", 1, f)
		if udfErr == nil {
			udfErr = sqlite.RegisterFunction("sumsq", &sqlite.FunctionImpl{
				NArgs:         1,
				MakeAggregate: func(sqlite.FunctionContext) (sqlite.AggregateFunction, error) { return &sumSq{}, nil },
			})
		}
	})
	return udfErr
}

func f(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	workload.UDFCalls++
	x, ok := args[0].(int64)
	if !ok {
		return nil, fmt.Errorf("f: argument is %T, not an integer", args[0])
	}
	return x*2 + 1, nil
}

// sumSq is a group of sumsq: the wrapping int64 sum of x*x.
type sumSq struct{ acc int64 }

func (g *sumSq) Step(_ *sqlite.FunctionContext, args []driver.Value) error {
	workload.UDFRows++
	x, ok := args[0].(int64)
	if !ok {
		return fmt.Errorf("sumsq: argument is %T, not an integer", args[0])
	}
	g.acc += x * x
	return nil
}

func (g *sumSq) WindowInverse(*sqlite.FunctionContext, []driver.Value) error {
	return fmt.Errorf("sumsq is not a window function")
}

func (g *sumSq) WindowValue(*sqlite.FunctionContext) (driver.Value, error) { return g.acc, nil }

func (g *sumSq) Final(*sqlite.FunctionContext) {}

// backupToFile copies src's main database into a new file at path with modernc's online
// backup: NewBackup (the destination opened from a DSN, with _pragma=synchronous(OFF) as
// every implementation's destination has it), Step(-1), Finish (which closes the
// destination).
func backupToFile(src any, path string) error {
	c, ok := src.(interface {
		NewBackup(dstURI string) (*sqlite.Backup, error)
	})
	if !ok {
		return fmt.Errorf("sql.Conn.Raw gave %T", src)
	}
	b, err := c.NewBackup(path + "?_pragma=synchronous(OFF)")
	if err != nil {
		return err
	}
	more, err := b.Step(-1)
	if ferr := b.Finish(); err == nil {
		err = ferr
	}
	if err == nil && more {
		err = fmt.Errorf("backup: pages left after a step of every page")
	}
	return err
}
