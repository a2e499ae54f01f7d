package driver_test

import (
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// Many goroutines through database/sql on one WAL database: writers commit transactions of
// txRows rows (one bulk statement per transaction, or one multi-statement Exec), readers count
// rows and must never see part of a transaction nor go back in time. With a busy timeout no
// error may occur; without one, the only error allowed is SQLITE_BUSY (retried). At the end
// no row is lost or doubled.
const (
	goWriters = 8
	goReaders = 4
	txPerW    = 25
	txRows    = 20
)

func isBusy(err error) bool {
	var e *sqlbatch.Error
	return errors.As(err, &e) && e.Code == sqlbatch.ErrBusy
}

func runConcurrent(t *testing.T, options string, allowBusy bool) int64 {
	db := open(t, options)
	db.SetMaxOpenConns(goWriters + goReaders)
	exec(t, db, "CREATE TABLE t(w INTEGER, seq INTEGER, note TEXT, PRIMARY KEY (w, seq))")
	var busy atomic.Int64
	retry := func(f func() error) error {
		for {
			err := f()
			if err == nil || !allowBusy || !isBusy(err) {
				return err
			}
			busy.Add(1)
			runtime.Gosched()
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, goWriters+goReaders)
	done := make(chan struct{})
	for w := range goWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for tx := range txPerW {
				err := retry(func() error {
					t, err := db.Begin()
					if err != nil {
						return err
					}
					first := tx * txRows
					if tx%2 == 0 {
						args := make([]any, 0, 2*txRows)
						query := ""
						for i := range txRows {
							query += "INSERT INTO t(w, seq) VALUES (?, ?);"
							args = append(args, w, first+i)
						}
						_, err = t.Exec(query, args...)
					} else {
						var st *sql.Stmt
						st, err = t.Prepare("INSERT INTO t(w, seq, note) VALUES (?, ?, ?)")
						for i := 0; err == nil && i < txRows; i++ {
							_, err = st.Exec(w, first+i, fmt.Sprint("note ", i))
						}
						if st != nil {
							if err := st.Close(); err != nil {
								return err
							}
						}
					}
					if err != nil {
						if err := t.Rollback(); err != nil {
							return err
						}
						return err
					}
					return t.Commit()
				})
				if err != nil {
					errs <- fmt.Errorf("writer %d tx %d: %w", w, tx, err)
					return
				}
			}
		}()
	}
	var readers sync.WaitGroup
	for r := range goReaders {
		readers.Add(1)
		go func() {
			defer readers.Done()
			last := int64(0)
			for {
				select {
				case <-done:
					return
				default:
				}
				var n int64
				err := retry(func() error { return db.QueryRow("SELECT count(*) FROM t").Scan(&n) })
				if err != nil {
					errs <- fmt.Errorf("reader %d: %w", r, err)
					return
				}
				if n%txRows != 0 || n < last {
					errs <- fmt.Errorf("reader %d saw %d rows after %d", r, n, last)
					return
				}
				last = n
			}
		}()
	}
	wg.Wait()
	close(done)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	want := int64(goWriters * txPerW * txRows)
	if got := one[int64](t, db, "SELECT count(*) FROM t"); got != want {
		t.Fatalf("%d rows, want %d", got, want)
	}
	if got := one[int64](t, db, "SELECT count(DISTINCT w * 100000 + seq) FROM t"); got != want {
		t.Fatalf("%d distinct rows, want %d", got, want)
	}
	if got := one[string](t, db, "PRAGMA integrity_check"); got != "ok" {
		t.Fatal(got)
	}
	t.Logf("%d rows from %d writer goroutines beside %d readers; %d busy results retried", want, goWriters, goReaders, busy.Load())
	return busy.Load()
}

func TestGoroutinesOnOneWALDatabaseWithABusyTimeout(t *testing.T) {
	if n := runConcurrent(t, "_journal_mode=WAL&_busy_timeout=60000&_txlock=immediate", false); n != 0 {
		t.Fatalf("%d busy results with a busy timeout", n)
	}
}

func TestGoroutinesOnOneWALDatabaseWithoutABusyTimeout(t *testing.T) {
	runConcurrent(t, "_journal_mode=WAL&_busy_timeout=0&_txlock=immediate", true)
}
