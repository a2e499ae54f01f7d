// Package abtest compares implementations in one process, interleaving their repetitions:
// the least noisy comparison on a shared machine, for development. It links the sqlbatch
// binding against the shared library (-tags sqlbatch_dynamic), which exports only
// sqlbatch_* symbols, so that mattn/go-sqlite3 (which compiles its own SQLite) can live in
// the same binary; the runner commands (cmd/) use the static library, as the README's table.
//
//	cargo build --release --lib   # at the top of the repository
//	SQLBATCH_AB=fetch_narrow SQLBATCH_AB_IMPLS=sqlbatch-sql,mattn,floor \
//	  GOTOOLCHAIN=go1.27.3 go test -tags sqlbatch_dynamic -run TestAB -count=1 ./abtest
//
// Implementations: sqlbatch (low-level package), sqlbatch-sql (database/sql driver),
// sqlbatch-sql+ahead (the driver with _fetch_ahead=1), mattn, modernc, and floor: a
// database/sql driver serving the rows from memory, decoded and boxed once (through
// driver.RowsColumnScanner when built with Go 1.27), so that it measures what database/sql
// and the workload's own loop cost with a driver that costs nothing. It serves the fetch
// workloads, point_query and few_rows (results kept per SQL text and integer argument, read
// in the untimed first repetition), large_values, and prepare_churn and small_tx, where its
// Prepare, Begin, Exec and Commit do nothing (their checksums are then not compared). The
// Makefile's ab target builds with Go 1.27.3 (AB_TOOLCHAIN).
package abtest
