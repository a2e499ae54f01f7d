package driver_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	"github.com/sqlbatch/sqlbatch/bindings/go/driver"
	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// The soak test: many goroutines on one *sql.DB for a fixed time, then checks that nothing
// leaked and nothing was lost. It runs only when SQLBATCH_SOAK is a duration
// (`make -C bindings/go soak`: 20 s under the race detector, then 25 s without it;
// `soak-long`: 10 minutes).
//
// The workload, on a WAL file with a busy timeout, a pool smaller than the goroutines and
// connections that expire (so that connections, their statement caches and their callback
// handles come and go under load): point reads (through 80 SQL texts, more than a
// connection's statement cache holds, so that it evicts), reads through a *sql.Stmt shared
// by every goroutine and through statements prepared and closed at once, scans left early,
// an SQL function written in Go, read-only transactions, a query that only an interrupt
// ends, and writes: transactions that write first or read first, single INSERTs in
// autocommit, and bulk writes (ExecMany through sql.Conn.Raw) between BEGIN and COMMIT.
// Every write is a set of rows of log (each holding the write's row count) whose trigger adds
// 1 to a row of kv; readers check that the writes they see are whole, and a worker that its
// own writes are there if they succeeded and not if they failed. Operations run under
// contexts that are cancelled at random points (a timeout of 0-3 ms, one already cancelled,
// or none).
//
// A checkpointer runs wal_checkpoint(TRUNCATE) every second (see checkpointer).
//
// Afterwards: automatic checkpoints are still on (wal_autocheckpoint is SQLite's default on
// the pool's connections, whose ConnectHook sets a commit hook) and no checkpoint failed; the
// pool holds no connection in use and at most its idle size; the callback
// handles alive are those of the open connections, and none once the pool is closed; the
// goroutines are back to their number before the pool; RSS did not grow in the second half
// (the largest sample of the last quarter is within 10% + 16 MiB of the largest of the
// third; not checked under the race detector, whose own memory grows with the run); every
// write whose call returned success is in the database and no write whose call failed is
// (row by row, and kv's counts); and every error is one SQLite's rules allow:
//   - the context's error, after the context was done (interrupted SQL, or database/sql
//     giving up: ErrTxDone of a transaction it rolled back, "sql: statement is closed" of
//     that transaction's statement);
//   - SQLITE_BUSY at the first write of a transaction that read first: upgrading a read
//     transaction does not wait (SQLite returns at once rather than risk a deadlock), and
//     SQLITE_BUSY_SNAPSHOT when another connection wrote since the read;
//   - SQLITE_BUSY anywhere else only after waiting the whole busy timeout.
// The counts of operations and errors are logged (go test -v).

const (
	soakWorkers = 64
	soakMaxOpen = 12
	soakMaxIdle = 4
	soakKV      = 2000 // rows of kv
	soakBusy    = 5 * time.Second
	soakTexts   = 80 // distinct texts of the point read
)

var soakRegister sync.Once

// A write of worker w is its number seq (from 1) and a count of rows: log rows (w, seq, i,
// soakID(w, seq, i)) for i from 0. A worker keeps one uint16 per write, its row count with
// soakOK set if the call that made it returned success, so that what the test remembers of
// its writes grows by 2 bytes a write and stays out of the RSS it measures.
const soakOK = 1 << 15

// soakID is the kv row that the ith log row of write seq of worker w adds 1 to.
func soakID(w, seq, i int) int64 {
	x := uint64(w)<<48 ^ uint64(seq)<<16 ^ uint64(i) + 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return 1 + int64((x^x>>31)%soakKV)
}

type soakWorker struct {
	id        int
	rng       *rand.Rand
	db        *sql.DB
	read, ins *sql.Stmt // shared by every worker
	writes    []uint16  // write seq is writes[seq-1]: its row count, | soakOK if it succeeded
	ops       map[string]int
	allowed   map[string]int // errors a rule allows, by rule
	bad       []string       // errors no rule allows, and wrong answers
}

func (w *soakWorker) badf(format string, args ...any) {
	if len(w.bad) < 20 {
		w.bad = append(w.bad, fmt.Sprintf("worker %d: ", w.id)+fmt.Sprintf(format, args...))
	}
}

// check counts err under the rule that allows it, or records it as bad. upgrade is set for
// the first write of a transaction that read first; began is when the failing call began.
func (w *soakWorker) check(ctx context.Context, op string, err error, upgrade bool, began time.Time) {
	if err == nil {
		return
	}
	var e *sqlbatch.Error
	isBusy := errors.As(err, &e) && e.Code == sqlbatch.ErrBusy
	switch {
	case ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		if errors.Is(err, sqlbatch.ErrInterrupt) {
			w.allowed["context (SQL interrupted)"]++
		} else {
			w.allowed["context (before or between calls)"]++
		}
	case ctx.Err() != nil && errors.Is(err, sql.ErrTxDone):
		w.allowed["transaction rolled back by database/sql after its context ended"]++
	case ctx.Err() != nil && err.Error() == "sql: statement is closed":
		// database/sql closes a transaction's statements when it rolls it back (Tx.StmtContext
		// then Exec, with the context ending between the two), with an error it does not export.
		w.allowed["statement of a transaction database/sql rolled back after its context ended"]++
	case isBusy && upgrade && e.ExtendedCode == sqlbatch.ErrBusySnapshot:
		w.allowed["SQLITE_BUSY_SNAPSHOT at the first write after a read"]++
	case isBusy && upgrade:
		w.allowed["SQLITE_BUSY at the first write after a read"]++
	case isBusy && time.Since(began) >= soakBusy:
		w.allowed["SQLITE_BUSY after the busy timeout"]++
	default:
		w.badf("%s: %v (context: %v, after %v)", op, err, ctx.Err(), time.Since(began).Round(time.Millisecond))
	}
}

// context is the context of one operation: none cancelled (70%), a timeout of 0-3 ms (25%),
// or already cancelled (5%).
func (w *soakWorker) context() (context.Context, context.CancelFunc) {
	switch r := w.rng.IntN(100); {
	case r < 70:
		return context.WithCancel(context.Background())
	case r < 95:
		return context.WithTimeout(context.Background(), time.Duration(w.rng.IntN(3000))*time.Microsecond)
	default:
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return ctx, cancel
	}
}

// newWrite numbers a write of rows rows.
func (w *soakWorker) newWrite(rows int) int {
	w.writes = append(w.writes, uint16(rows))
	return len(w.writes)
}

func (w *soakWorker) done(seq int, ok bool) {
	if ok {
		w.writes[seq-1] |= soakOK
	}
}

func (w *soakWorker) pointRead(ctx context.Context) {
	id := 1 + w.rng.Int64N(soakKV)
	q := fmt.Sprintf("SELECT val, pad FROM kv WHERE id = ? /* %d */", w.rng.IntN(soakTexts))
	var val int64
	var pad []byte
	began := time.Now()
	err := w.db.QueryRowContext(ctx, q, id).Scan(&val, &pad)
	w.check(ctx, "point read", err, false, began)
	if err == nil && len(pad) != int(id%50) {
		w.badf("point read of %d: pad of %d bytes", id, len(pad))
	}
}

func (w *soakWorker) sharedRead(ctx context.Context) {
	id := 1 + w.rng.Int64N(soakKV)
	var val int64
	var pad []byte
	began := time.Now()
	err := w.read.QueryRowContext(ctx, id).Scan(&val, &pad)
	w.check(ctx, "shared statement read", err, false, began)
	if err == nil && len(pad) != int(id%50) {
		w.badf("shared statement read of %d: pad of %d bytes", id, len(pad))
	}
}

// scan reads a range of kv, which holds every id from 1 to soakKV, and leaves early a third
// of the time.
func (w *soakWorker) scan(ctx context.Context) {
	from, limit := 1+w.rng.Int64N(soakKV), 1+w.rng.IntN(600)
	leave := -1
	if w.rng.IntN(3) == 0 {
		leave = w.rng.IntN(limit)
	}
	began := time.Now()
	rows, err := w.db.QueryContext(ctx, "SELECT id, val, pad FROM kv WHERE id >= ? ORDER BY id LIMIT ?", from, limit)
	if err != nil {
		w.check(ctx, "scan", err, false, began)
		return
	}
	defer rows.Close()
	want := from
	for i := 0; rows.Next(); i++ {
		if i == leave {
			return
		}
		var id, val int64
		var pad []byte
		if err := rows.Scan(&id, &val, &pad); err != nil {
			w.check(ctx, "scan: Scan", err, false, began)
			return
		}
		if id != want || len(pad) != int(id%50) {
			w.badf("scan from %d: row %d has id %d and a pad of %d bytes", from, i, id, len(pad))
			return
		}
		want++
	}
	w.check(ctx, "scan: Err", rows.Err(), false, began)
}

// wholeWrites checks, in one snapshot, that the last 50 writes of a worker it picks are
// whole: each has all its rows or none (a row holds its write's row count, n).
func (w *soakWorker) wholeWrites(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, op string) {
	v := w.rng.IntN(soakWorkers)
	var partial int
	began := time.Now()
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT seq FROM log
		WHERE w = ?1 AND seq > (SELECT coalesce(max(seq), 0) FROM log WHERE w = ?1) - 50
		GROUP BY seq HAVING count(*) != max(n))`, v).Scan(&partial)
	w.check(ctx, op, err, false, began)
	if err == nil && partial != 0 {
		w.badf("%s: %d of the last 50 writes of worker %d seen in part", op, partial, v)
	}
}

func (w *soakWorker) function(ctx context.Context) {
	id := 1 + w.rng.Int64N(soakKV)
	var val, twice int64
	began := time.Now()
	err := w.db.QueryRowContext(ctx, "SELECT val, soak_twice(val) FROM kv WHERE id = ?", id).Scan(&val, &twice)
	w.check(ctx, "function", err, false, began)
	if err == nil && twice != 2*val {
		w.badf("soak_twice(%d) = %d", val, twice)
	}
}

// ownStatement prepares a statement and runs it once to three times, each time counting the
// rows of one of the worker's earlier writes (all of them if it succeeded, none if it failed),
// and closes it.
func (w *soakWorker) ownStatement(ctx context.Context) {
	if len(w.writes) == 0 {
		return
	}
	began := time.Now()
	st, err := w.db.PrepareContext(ctx, "SELECT count(*) FROM log WHERE w = ? AND seq = ?")
	if err != nil {
		w.check(ctx, "prepare", err, false, began)
		return
	}
	defer st.Close()
	for range 1 + w.rng.IntN(3) {
		seq := 1 + w.rng.IntN(len(w.writes))
		want := 0
		if wr := w.writes[seq-1]; wr&soakOK != 0 {
			want = int(wr &^ soakOK)
		}
		var n int
		began = time.Now()
		if err := st.QueryRowContext(ctx, w.id, seq).Scan(&n); err != nil {
			w.check(ctx, "prepared statement", err, false, began)
			return
		}
		if n != want {
			w.badf("write %d.%d: %d rows seen, want %d", w.id, seq, n, want)
		}
	}
}

func (w *soakWorker) readOnlyTx(ctx context.Context) {
	began := time.Now()
	tx, err := w.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		w.check(ctx, "read-only BEGIN", err, false, began)
		return
	}
	defer tx.Rollback()
	w.wholeWrites(ctx, tx, "read-only transaction")
	var val int64
	began = time.Now()
	if err := tx.QueryRowContext(ctx, "SELECT val FROM kv WHERE id = ?", 1+w.rng.Int64N(soakKV)).Scan(&val); err != nil {
		w.check(ctx, "read-only read", err, false, began)
		return
	}
	began = time.Now()
	w.check(ctx, "read-only COMMIT", tx.Commit(), false, began)
}

// slowQuery runs a query that takes about a second, under a timeout of 1-20 ms.
func (w *soakWorker) slowQuery() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(1+w.rng.IntN(20))*time.Millisecond)
	defer cancel()
	var n int64
	began := time.Now()
	err := w.db.QueryRowContext(ctx, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000000) SELECT count(*) FROM c").Scan(&n)
	w.check(ctx, "slow query", err, false, began)
}

// txWrite inserts 1-6 log rows in a transaction (deferred: it takes the write lock at its
// first write), through the shared statement or Exec; a third of them read kv first.
func (w *soakWorker) txWrite(ctx context.Context) {
	rows := 1 + w.rng.IntN(6)
	seq := w.newWrite(rows)
	readFirst := w.rng.IntN(3) == 0
	shared := w.rng.IntN(2) == 0
	began := time.Now()
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		w.check(ctx, "BEGIN", err, false, began)
		return
	}
	fail := func(op string, err error, upgrade bool) {
		w.check(ctx, op, err, upgrade, began)
		if err := tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
			w.badf("ROLLBACK: %v", err)
		}
	}
	if readFirst {
		var val int64
		began = time.Now()
		if err := tx.QueryRowContext(ctx, "SELECT val FROM kv WHERE id = ?", soakID(w.id, seq, 0)).Scan(&val); err != nil {
			fail("read before the write", err, false)
			return
		}
	}
	for i := range rows {
		began = time.Now()
		id := soakID(w.id, seq, i)
		if shared {
			_, err = tx.StmtContext(ctx, w.ins).ExecContext(ctx, w.id, seq, i, rows, id)
		} else {
			_, err = tx.ExecContext(ctx, "INSERT INTO log(w, seq, i, n, id) VALUES (?, ?, ?, ?, ?)", w.id, seq, i, rows, id)
		}
		if err != nil {
			fail("write in a transaction", err, readFirst && i == 0)
			return
		}
	}
	began = time.Now()
	err = tx.Commit()
	w.check(ctx, "COMMIT", err, false, began)
	w.done(seq, err == nil)
}

// autoWrite inserts 1-4 log rows with one INSERT in autocommit mode.
func (w *soakWorker) autoWrite(ctx context.Context) {
	rows := 1 + w.rng.IntN(4)
	seq := w.newWrite(rows)
	var q strings.Builder
	q.WriteString("INSERT INTO log(w, seq, i, n, id) VALUES ")
	var args []any
	for i := range rows {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString("(?, ?, ?, ?, ?)")
		args = append(args, w.id, seq, i, rows, soakID(w.id, seq, i))
	}
	began := time.Now()
	_, err := w.db.ExecContext(ctx, q.String(), args...)
	w.check(ctx, "autocommit INSERT", err, false, began)
	w.done(seq, err == nil)
}

// bulkWrite inserts 10-60 log rows with the driver's ExecMany between BEGIN and COMMIT on
// a connection of its own.
func (w *soakWorker) bulkWrite(ctx context.Context) {
	rows := 10 + w.rng.IntN(51)
	seq := w.newWrite(rows)
	began := time.Now()
	conn, err := w.db.Conn(ctx)
	if err != nil {
		w.check(ctx, "Conn", err, false, began)
		return
	}
	defer conn.Close()
	step := "BEGIN"
	_, err = conn.ExecContext(ctx, "BEGIN")
	if err == nil {
		step, began = "ExecMany", time.Now()
		err = conn.Raw(func(dc any) error {
			var p sqlbatch.Params
			for i := range rows {
				p.Int64(int64(w.id)).Int64(int64(seq)).Int64(int64(i)).Int64(int64(rows)).Int64(soakID(w.id, seq, i))
			}
			_, err := dc.(*driver.Conn).ExecMany(ctx, "INSERT INTO log(w, seq, i, n, id) VALUES (?, ?, ?, ?, ?)", &p)
			return err
		})
	}
	if err == nil {
		step, began = "COMMIT", time.Now()
		_, err = conn.ExecContext(ctx, "COMMIT")
	}
	if err != nil {
		w.check(ctx, "bulk write: "+step, err, false, began)
		if step != "BEGIN" {
			if _, rerr := conn.ExecContext(context.Background(), "ROLLBACK"); rerr != nil && !strings.Contains(rerr.Error(), "no transaction is active") {
				w.badf("bulk write: ROLLBACK: %v", rerr)
			}
		}
	}
	w.done(seq, err == nil)
}

func (w *soakWorker) run(until time.Time) {
	type op struct {
		name   string
		weight int
		run    func(context.Context)
	}
	ops := []op{
		{"point read", 20, w.pointRead},
		{"shared statement read", 10, w.sharedRead},
		{"scan", 12, w.scan},
		{"whole writes", 4, func(ctx context.Context) { w.wholeWrites(ctx, w.db, "whole writes") }},
		{"function", 6, w.function},
		{"own statement", 6, w.ownStatement},
		{"read-only transaction", 6, w.readOnlyTx},
		{"slow query", 2, func(context.Context) { w.slowQuery() }},
		{"write in a transaction", 20, w.txWrite},
		{"autocommit write", 8, w.autoWrite},
		{"bulk write", 6, w.bulkWrite},
	}
	total := 0
	for _, o := range ops {
		total += o.weight
	}
	for time.Now().Before(until) {
		r := w.rng.IntN(total)
		for _, o := range ops {
			if r < o.weight {
				ctx, cancel := w.context()
				o.run(ctx)
				cancel()
				w.ops[o.name]++
				break
			}
			r -= o.weight
		}
	}
}

// memSample is the resident set size and the bytes of live Go heap objects at one moment.
type memSample struct{ rss, heap int64 }

// memSampler samples memory every interval until stop is closed: RSS from /proc/self/statm,
// the Go heap from runtime/metrics (which does not stop the world).
func memSampler(interval time.Duration, stop <-chan struct{}) (<-chan []memSample, error) {
	page := int64(os.Getpagesize())
	heap := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() memSample {
		m := memSample{rss: -1}
		if b, err := os.ReadFile("/proc/self/statm"); err == nil {
			if f := strings.Fields(string(b)); len(f) >= 2 {
				if n, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					m.rss = n * page
				}
			}
		}
		metrics.Read(heap)
		m.heap = int64(heap[0].Value.Uint64())
		return m
	}
	if read().rss < 0 {
		return nil, errors.New("no /proc/self/statm")
	}
	out := make(chan []memSample, 1)
	go func() {
		var samples []memSample
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-stop:
				out <- samples
				return
			case <-t.C:
				samples = append(samples, read())
			}
		}
	}()
	return out, nil
}

// checkpoint counts what the checkpointer did.
type checkpoint struct {
	done, busy, failed int
	maxWAL             int64
}

// checkpointer runs PRAGMA wal_checkpoint(TRUNCATE) every second until until, as a service
// would: with readers that never all stop, automatic checkpoints copy the WAL into the
// database but can never start it over (SQLite's checkpoint starvation), and the WAL would
// grow by megabytes a second. A checkpoint finds another running (an automatic one) often,
// and is then refused at once: it tries again every 5 ms, for up to a second.
func checkpointer(db *sql.DB, path string, timeout time.Duration, until time.Time) <-chan checkpoint {
	out := make(chan checkpoint, 1)
	go func() {
		var c checkpoint
		for time.Now().Before(until) {
			time.Sleep(time.Second)
			if fi, err := os.Stat(path + "-wal"); err == nil {
				c.maxWAL = max(c.maxWAL, fi.Size())
			}
			busy := 1
			for try := 0; busy != 0 && try < 200; try++ {
				if try > 0 {
					time.Sleep(5 * time.Millisecond)
				}
				ctx, cancel := context.WithTimeout(context.Background(), timeout)
				var frames, copied int
				err := db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &frames, &copied)
				cancel()
				if err != nil {
					c.failed++
					break
				}
			}
			if busy == 0 {
				c.done++
			} else {
				c.busy++
			}
		}
		out <- c
	}()
	return out
}

func TestSoak(t *testing.T) {
	d := os.Getenv("SQLBATCH_SOAK")
	if d == "" {
		t.Skip("SQLBATCH_SOAK is not set (make -C bindings/go soak)")
	}
	duration, err := time.ParseDuration(d)
	if err != nil {
		t.Fatalf("SQLBATCH_SOAK=%q: %v", d, err)
	}
	var commits atomic.Int64
	soakRegister.Do(func() {
		sql.Register("sqlbatch-soak", &driver.Driver{ConnectHook: func(c *driver.Conn) error {
			c.RegisterCommitHook(func() int { commits.Add(1); return 0 })
			return c.RegisterFunc("soak_twice", func(x int64) int64 { return 2 * x }, true)
		}})
	})
	goroutines, handles := runtime.NumGoroutine(), capi.LiveHandles()

	path := filepath.Join(t.TempDir(), "soak.db")
	db, err := sql.Open("sqlbatch-soak", path+"?_journal_mode=WAL&_busy_timeout="+strconv.Itoa(int(soakBusy/time.Millisecond)))
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			db.Close()
		}
	}()
	db.SetMaxOpenConns(soakMaxOpen)
	db.SetMaxIdleConns(soakMaxIdle)
	db.SetConnMaxLifetime(2 * time.Second)
	db.SetConnMaxIdleTime(time.Second)
	var setup strings.Builder
	setup.WriteString(`
		CREATE TABLE kv(id INTEGER PRIMARY KEY, val INTEGER NOT NULL, pad BLOB NOT NULL);
		CREATE TABLE log(w INTEGER, seq INTEGER, i INTEGER, n INTEGER NOT NULL, id INTEGER NOT NULL,
			PRIMARY KEY (w, seq, i));
		CREATE TRIGGER log_counts AFTER INSERT ON log BEGIN UPDATE kv SET val = val + 1 WHERE id = NEW.id; END;
		BEGIN;`)
	for id := 1; id <= soakKV; id++ {
		fmt.Fprintf(&setup, "INSERT INTO kv VALUES (%d, 1, zeroblob(%d));", id, id%50)
	}
	setup.WriteString("COMMIT;")
	exec(t, db, setup.String())
	// The handles of one connection: the pool holds one now.
	if s := db.Stats(); s.OpenConnections != 1 {
		t.Fatalf("%d connections after the setup", s.OpenConnections)
	}
	perConn := capi.LiveHandles() - handles
	if perConn < 1 {
		t.Fatalf("a connection holds %d callback handles", perConn)
	}
	read, err := db.Prepare("SELECT val, pad FROM kv WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	ins, err := db.Prepare("INSERT INTO log(w, seq, i, n, id) VALUES (?, ?, ?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}

	stopMem := make(chan struct{})
	memOut, memErr := memSampler(250*time.Millisecond, stopMem)
	seed := uint64(time.Now().UnixNano())
	t.Logf("%d goroutines for %v on a pool of %d (idle %d), seed %d", soakWorkers, duration, soakMaxOpen, soakMaxIdle, seed)
	workers := make([]*soakWorker, soakWorkers)
	var wg sync.WaitGroup
	start := time.Now()
	until := start.Add(duration)
	ckOut := checkpointer(db, path, 3*time.Second, until)
	for i := range workers {
		w := &soakWorker{id: i, rng: rand.New(rand.NewPCG(seed, uint64(i))), db: db, read: read, ins: ins,
			ops: map[string]int{}, allowed: map[string]int{}}
		workers[i] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(until)
		}()
	}
	wg.Wait()
	took := time.Since(start)
	ck := <-ckOut
	var samples []memSample
	if memErr == nil {
		close(stopMem)
		samples = <-memOut
	}

	// Every error allowed, counted.
	ops, allowed := map[string]int{}, map[string]int{}
	ok, failed := 0, 0
	for _, w := range workers {
		for k, v := range w.ops {
			ops[k] += v
		}
		for k, v := range w.allowed {
			allowed[k] += v
		}
		for _, b := range w.bad {
			t.Error(b)
		}
		for _, wr := range w.writes {
			if wr&soakOK != 0 {
				ok++
			} else {
				failed++
			}
		}
	}
	nops := 0
	for _, k := range slices.Sorted(maps.Keys(ops)) {
		nops += ops[k]
		t.Logf("  %-24s %8d", k, ops[k])
	}
	t.Logf("%d operations in %v (%.0f/s); writes: %d succeeded, %d failed; %d commits seen by the hooks",
		nops, took.Round(time.Millisecond), float64(nops)/took.Seconds(), ok, failed, commits.Load())
	t.Logf("errors allowed by a rule:")
	for _, k := range slices.Sorted(maps.Keys(allowed)) {
		t.Logf("  %-66s %7d", k, allowed[k])
	}

	// The pool drains to its idle size; the callback handles alive are its connections'.
	if err := read.Close(); err != nil {
		t.Error(err)
	}
	if err := ins.Close(); err != nil {
		t.Error(err)
	}
	s := db.Stats()
	t.Logf("pool: %d open, %d in use, %d idle; waited %d times (%v); closed %d over the idle limit, %d idle too long, %d too old",
		s.OpenConnections, s.InUse, s.Idle, s.WaitCount, s.WaitDuration.Round(time.Millisecond), s.MaxIdleClosed, s.MaxIdleTimeClosed, s.MaxLifetimeClosed)
	if s.InUse != 0 || s.Idle != s.OpenConnections || s.Idle > soakMaxIdle {
		t.Errorf("the pool did not drain to its idle size %d: %d open, %d in use, %d idle", soakMaxIdle, s.OpenConnections, s.InUse, s.Idle)
	}
	if s.MaxLifetimeClosed+s.MaxIdleTimeClosed == 0 {
		t.Error("no connection expired: the run did not churn connections")
	}
	if got, want := capi.LiveHandles()-handles, perConn*int64(s.OpenConnections); got != want {
		t.Errorf("%d callback handles alive with %d connections open, want %d (%d each)", got, s.OpenConnections, want, perConn)
	}

	// Automatic checkpoints stay on: registering a hook must not turn them off.
	var autockpt int64
	if err := db.QueryRow("PRAGMA wal_autocheckpoint").Scan(&autockpt); err != nil {
		t.Fatal(err)
	}
	t.Logf("checkpoints (TRUNCATE, every second): %d done, %d still busy after a second, %d failed; largest WAL seen %d MiB; wal_autocheckpoint %d",
		ck.done, ck.busy, ck.failed, ck.maxWAL>>20, autockpt)
	if autockpt != 1000 {
		t.Errorf("PRAGMA wal_autocheckpoint is %d on a connection of the pool (whose ConnectHook set a commit hook), want SQLite's 1000", autockpt)
	}
	if ck.failed > 0 {
		t.Errorf("%d checkpoints failed", ck.failed)
	}

	// Every write that returned success is there, row by row; none that failed is: the rows
	// of log, in key order, against the rows of the successful writes, in the same order.
	counts := make([]int64, soakKV+1)
	type key struct{ w, seq, i int }
	less := func(a, b key) bool {
		return a.w < b.w || a.w == b.w && (a.seq < b.seq || a.seq == b.seq && a.i < b.i)
	}
	next := func(k key) (key, bool) { // the row after k of a successful write
		for k.i++; k.w < soakWorkers; k.w, k.seq, k.i = k.w+1, 1, 0 {
			for ; k.seq <= len(workers[k.w].writes); k.seq, k.i = k.seq+1, 0 {
				if wr := workers[k.w].writes[k.seq-1]; wr&soakOK != 0 && k.i < int(wr&^soakOK) {
					return k, true
				}
			}
		}
		return k, false
	}
	problems := map[string]int{}
	problem := func(kind string, format string, args ...any) {
		if problems[kind]++; problems[kind] <= 5 {
			t.Errorf(kind+": "+format, args...)
		}
	}
	want, more := next(key{0, 1, -1})
	rows, err := db.Query("SELECT w, seq, i, id FROM log ORDER BY w, seq, i")
	if err != nil {
		t.Fatal(err)
	}
	nrows := 0
	for rows.Next() {
		var got key
		var id int64
		if err := rows.Scan(&got.w, &got.seq, &got.i, &id); err != nil {
			t.Fatal(err)
		}
		nrows++
		for ; more && less(want, got); want, more = next(want) {
			problem("lost", "write %d.%d returned success, its row %d is not in the database", want.w, want.seq, want.i)
			counts[soakID(want.w, want.seq, want.i)]++
		}
		switch {
		case more && want == got:
			if wid := soakID(got.w, got.seq, got.i); id != wid {
				problem("wrong", "row %d of write %d.%d has id %d, want %d", got.i, got.w, got.seq, id, wid)
			}
			counts[soakID(want.w, want.seq, want.i)]++
			want, more = next(want)
		case got.w < 0 || got.w >= soakWorkers || got.seq < 1 || got.seq > len(workers[got.w].writes):
			problem("unknown", "row %d of write %d.%d, which was never made", got.i, got.w, got.seq)
		default:
			problem("failed but there", "write %d.%d returned an error, but its row %d is in the database", got.w, got.seq, got.i)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for ; more; want, more = next(want) {
		problem("lost", "write %d.%d returned success, its row %d is not in the database", want.w, want.seq, want.i)
		counts[soakID(want.w, want.seq, want.i)]++
	}
	for kind, n := range problems {
		t.Errorf("%d rows %s", n, kind)
	}
	if len(problems) == 0 {
		t.Logf("the database holds the %d rows of the %d writes that succeeded, and no other", nrows, ok)
	}
	kv, err := db.Query("SELECT id, val FROM kv ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	for kv.Next() {
		var id, val int64
		if err := kv.Scan(&id, &val); err != nil {
			t.Fatal(err)
		}
		if val != 1+counts[id] {
			problem("kv", "kv %d is %d, want %d", id, val, 1+counts[id])
		}
	}
	if err := kv.Err(); err != nil {
		t.Fatal(err)
	}
	if n := problems["kv"]; n > 0 {
		t.Errorf("%d rows of kv count the rows of log wrong", n)
	}
	if got := one[string](t, db, "PRAGMA integrity_check"); got != "ok" {
		t.Error(got)
	}

	// Closed, the pool leaves no handle and no goroutine behind.
	closed = true
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if n := capi.LiveHandles() - handles; n != 0 {
		t.Errorf("%d callback handles alive after Close", n)
	}
	now := runtime.NumGoroutine()
	for deadline := time.Now().Add(5 * time.Second); now > goroutines && time.Now().Before(deadline); now = runtime.NumGoroutine() {
		time.Sleep(10 * time.Millisecond)
	}
	if now > goroutines {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines after Close, %d before the pool:\n%s", now, goroutines, buf[:runtime.Stack(buf, true)])
	}

	// RSS is flat in the second half.
	if memErr != nil {
		t.Logf("RSS not checked: %v", memErr)
		return
	}
	if len(samples) < 8 {
		t.Fatalf("%d memory samples", len(samples))
	}
	q := len(samples) / 4
	peak := func(s []memSample, f func(memSample) int64) int64 {
		m := int64(0)
		for _, x := range s {
			m = max(m, f(x))
		}
		return m
	}
	rss := func(m memSample) int64 { return m.rss }
	heap := func(m memSample) int64 { return m.heap }
	third, fourth := peak(samples[2*q:3*q], rss), peak(samples[3*q:], rss)
	t.Logf("RSS: %d MiB after the first quarter, peaks %d MiB in the third quarter and %d MiB in the last (Go heap objects: %d, %d, %d MiB)",
		samples[q].rss>>20, third>>20, fourth>>20, samples[q].heap>>20, peak(samples[2*q:3*q], heap)>>20, peak(samples[3*q:], heap)>>20)
	if soakRace {
		t.Logf("RSS not checked under the race detector, whose own memory grows with the run")
		return
	}
	if limit := third + third/10 + 16<<20; fourth > limit {
		t.Errorf("RSS grew in the second half: peak %d MiB in the last quarter, over %d MiB (the third's %d MiB + 10%% + 16 MiB)",
			fourth>>20, limit>>20, third>>20)
	}
}

// TestSoakReadOnlyBeginInterrupted is what the soak test once met in 4.8 million operations,
// made to happen in seconds: a read-only BeginTx whose context ends while it runs. Each
// round begins a read-only transaction under a timeout of 0-39 µs on a pool of one
// connection, then writes through that connection, which must not be read-only.
func TestSoakReadOnlyBeginInterrupted(t *testing.T) {
	if os.Getenv("SQLBATCH_SOAK") == "" {
		t.Skip("SQLBATCH_SOAK is not set (make -C bindings/go soak)")
	}
	db := open(t, "_journal_mode=WAL")
	db.SetMaxOpenConns(1)
	exec(t, db, "CREATE TABLE t(x)")
	interrupted := 0
	rounds := 0
	for until := time.Now().Add(3 * time.Second); time.Now().Before(until); rounds++ {
		i := rounds
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i%40)*time.Microsecond)
		tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		cancel()
		switch {
		case err == nil:
			if err := tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
				t.Fatal(err)
			}
		case errors.Is(err, sqlbatch.ErrInterrupt):
			interrupted++
		}
		if _, werr := db.Exec("INSERT INTO t VALUES (?)", i); werr != nil {
			t.Fatalf("round %d: a write after a read-only BeginTx that returned %v: %v", i, err, werr)
		}
	}
	t.Logf("%d rounds, %d read-only BeginTx interrupted; every write after them succeeded", rounds, interrupted)
}
