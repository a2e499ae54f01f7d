// Package sqlwork implements the workloads through database/sql, identically for every
// driver (sqlbatch, mattn/go-sqlite3, modernc.org/sqlite), so that the drivers are the only
// difference. Only bulk_insert varies (drivers without a bulk call use a prepared
// statement in a loop, as their users do), and how the udf workloads' f and sumsq are
// registered (each driver's own function API).
package sqlwork

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"

	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
)

// Driver describes a database/sql driver to the workloads.
type Driver struct {
	// Name is the driver's registered name.
	Name string
	// DSN turns a file path (or ":memory:") into a DSN that opens it read-write.
	DSN func(path string) string
	// Bulk, if set, inserts the rows through the driver's own bulk call on conn, inside a
	// transaction it opens with BEGIN; otherwise a prepared statement loop is used.
	Bulk func(ctx context.Context, conn *sql.Conn, rows *workload.BulkRows) error
	// EmptyBlobIsNil says that the driver returns nil for an empty BLOB, as for NULL
	// (modernc.org/sqlite does); fetch_wide then also reads "b IS NULL" to tell them apart,
	// so that its checksum is right. The extra column makes its work slightly larger.
	EmptyBlobIsNil bool
	// UDF is the name of a driver registered with f and sumsq (the udf workloads) on every
	// connection, by a ConnectHook as its users write one; "" if the driver has none (the
	// udf workloads are then unsupported).
	UDF string
	// UDFSetup, if set, runs once before the udf workloads open their database: for a driver
	// whose functions are registered for the whole process (modernc.org/sqlite).
	UDFSetup func() error
	// Cached says that the driver keeps the statements of its Query and Exec calls prepared
	// (sqlbatch's statement cache): point_query and few_rows then call db.QueryRowContext and
	// db.QueryContext with the SQL text, as its users do; without, they use a *sql.Stmt from
	// db.Prepare (the best case of a driver without a cache).
	Cached bool
	// Blob, if set, runs the timed part of blob_read or blob_many (w) on the driver's
	// connection dc, reached through sql.Conn.Raw, with the driver's incremental blob API;
	// nil: the driver has none, and the two workloads are unsupported.
	Blob func(dc any, w string) (count, sum int64, err error)
	// Backup, if set, copies the main database of the driver connection src into that of
	// dest (the connections of two sql.Conn, reached through nested Raw callbacks, as the
	// drivers document) with the driver's online backup API: init, one step of every page,
	// finish. Nil: backup is unsupported, unless BackupToFile is set.
	Backup func(dest, src any) error
	// BackupToFile, for a driver whose backup opens the destination itself
	// (modernc.org/sqlite's NewBackup), copies the main database of the driver connection
	// src into a new file at path, with workload.BackupSynchronous's setting on it.
	BackupToFile func(src any, path string) error
	// VTab, if set, makes the virtual table of vtab_scan (rows its rows) or the table-valued
	// function of tvf_join (rows nil) on conn, through sql.Conn.Raw and the driver's module
	// API, and returns the name the query reads; nil: the two workloads are unsupported.
	VTab func(ctx context.Context, conn *sql.Conn, w string, rows *workload.VRows) (name string, err error)
	// VTabSetup, if set, runs before the database of vtab_scan or tvf_join is opened: for a
	// driver whose modules are registered for the connections it opens afterwards
	// (modernc.org/sqlite).
	VTabSetup func(w string, rows *workload.VRows) error
	// ListArg, if set, is in_list's argument: the whole list as one value, read by the SQL
	// ListSQL (sqlbatch.Array and "sqlbatch_rows(?)"); nil: one placeholder per id.
	ListArg func(ids []int64) any
	ListSQL string
}

// Impl returns the workload.Impl of the driver.
func (d Driver) Impl() workload.Impl {
	return func(w, input string) (workload.Rep, func(), error) {
		switch w {
		case workload.FetchNarrow, workload.FetchNarrow1M:
			db, err := d.openFile(input)
			if err != nil {
				return nil, nil, err
			}
			return func(t workload.Timer) (int64, int64, error) { return fetchNarrow(t, db) }, func() { db.Close() }, nil
		case workload.FetchWide:
			db, err := d.openFile(input)
			if err != nil {
				return nil, nil, err
			}
			return func(t workload.Timer) (int64, int64, error) { return d.fetchWide(t, db) }, func() { db.Close() }, nil
		case workload.FetchWork:
			db, err := d.openFile(input)
			if err != nil {
				return nil, nil, err
			}
			return func(t workload.Timer) (int64, int64, error) { return d.fetchWork(t, db) }, func() { db.Close() }, nil
		case workload.ExecScript, workload.ExecScript10k:
			script, err := os.ReadFile(input)
			if err != nil {
				return nil, nil, err
			}
			s := string(script)
			return func(t workload.Timer) (int64, int64, error) { return d.execScript(t, s) }, func() {}, nil
		case workload.BulkInsert:
			n, err := workload.BulkCount(input)
			if err != nil {
				return nil, nil, err
			}
			rows := workload.MakeBulkRows(n)
			return func(t workload.Timer) (int64, int64, error) { return d.bulkInsert(t, rows) }, func() {}, nil
		case workload.UDFScalar, workload.UDFAggregate:
			if d.UDF == "" {
				return nil, nil, workload.ErrUnsupported
			}
			if d.UDFSetup != nil {
				if err := d.UDFSetup(); err != nil {
					return nil, nil, err
				}
			}
			udf := d
			udf.Name = d.UDF
			db, err := udf.openFile(input)
			if err != nil {
				return nil, nil, err
			}
			query := func(q string) (v int64, err error) {
				err = db.QueryRow(q).Scan(&v)
				return v, err
			}
			return workload.UDFRep(w, query), func() { db.Close() }, nil
		case workload.UpdateHook:
			return d.updateHook(input)
		case workload.PointQuery, workload.FewRows, workload.LargeValues:
			return d.appRead(w, input)
		case workload.PrepareChurn, workload.SmallTx:
			return d.appWrite(w, input)
		case workload.BlobRead, workload.BlobMany:
			return d.blob(w, input)
		case workload.Backup:
			return d.backup(input)
		case workload.VtabScan, workload.TVFJoin:
			return d.vtab(w, input)
		case workload.InList:
			return d.inList(input)
		}
		return nil, nil, workload.ErrUnsupported
	}
}

// openFile opens a pool of one connection on a workload database.
func (d Driver) openFile(path string) (*sql.DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	db, err := sql.Open(d.Name, d.DSN(path))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// openMemory opens a fresh in-memory database (one connection, so one database).
func (d Driver) openMemory(schema string) (*sql.DB, error) {
	db, err := sql.Open(d.Name, d.DSN(":memory:"))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// openBulkFile opens bulk_insert's fresh file with workload.BulkFile (the DSN adds the key of
// an encrypted row), with workload.BulkSynchronous and the table.
func (d Driver) openBulkFile() (*sql.DB, error) {
	workload.RemoveBulkFiles()
	db, err := sql.Open(d.Name, d.DSN(workload.BulkPath()))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	for _, q := range []string{workload.BulkSynchronous, workload.BulkTable} {
		if _, err := db.Exec(q); err != nil {
			db.Close()
			return nil, err
		}
	}
	return db, nil
}

func fetchNarrow(t workload.Timer, db *sql.DB) (count, sum int64, err error) {
	t.Start()
	rows, err := db.Query(workload.NarrowQuery)
	if err != nil {
		t.Stop()
		return 0, 0, err
	}
	var id int64
	for rows.Next() {
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			t.Stop()
			return 0, 0, err
		}
		sum += id
		count++
	}
	err = rows.Err()
	rows.Close()
	t.Stop()
	return count, sum, err
}

// fetchWide scans every value into an `any`, the way generic database/sql code reads rows
// whose types vary (database/sql hands over int64, float64 and string values as they come
// and copies []byte ones), and adds it to the checksum by its dynamic type.
func (d Driver) fetchWide(t workload.Timer, db *sql.DB) (count, sum int64, err error) {
	var (
		vals  [11]any
		dest  = []any{&vals[0], &vals[1], &vals[2], &vals[3], &vals[4], &vals[5], &vals[6], &vals[7], &vals[8], &vals[9], &vals[10]}
		u     uint64
		query = workload.WideQuery
	)
	if d.EmptyBlobIsNil {
		// Read "b IS NULL" too, to tell an empty BLOB from NULL (see EmptyBlobIsNil).
		query = strings.Replace(query, " FROM", ", b IS NULL FROM", 1)
	} else {
		dest = dest[:10]
	}
	t.Start()
	rows, err := db.Query(query)
	if err != nil {
		t.Stop()
		return 0, 0, err
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			rows.Close()
			t.Stop()
			return 0, 0, err
		}
		if d.EmptyBlobIsNil && vals[9] == nil && vals[10] == int64(0) {
			vals[9] = []byte{}
		}
		for _, v := range vals[:10] {
			switch v := v.(type) {
			case int64:
				u += uint64(v)
			case float64:
				u += uint64(workload.Real(v))
			case string:
				u += uint64(workload.TextLen(v))
			case []byte:
				u += uint64(len(v))
			case nil:
				u++
			default:
				rows.Close()
				t.Stop()
				return 0, 0, fmt.Errorf("unexpected %T in fetch_wide", v)
			}
		}
		count++
	}
	err = rows.Err()
	rows.Close()
	t.Stop()
	return count, int64(u), err
}

// fetchWork is fetch_work through database/sql: each column scanned into the destination
// a Go program declares for it when it wants the bytes, not strings (sql.NullInt64,
// sql.NullFloat64, sql.RawBytes for the TEXT and BLOB columns: no string made, and nil for
// NULL), every cell folded into workload.FNV with the type code its column's destination
// says (the columns of wide hold only their declared type or NULL; the checksum, the same
// as the native loop's, which reads each cell's type, confirms it).
func (d Driver) fetchWork(t workload.Timer, db *sql.DB) (count, sum int64, err error) {
	var (
		ints  [4]sql.NullInt64
		reals [2]sql.NullFloat64
		raw   [4]sql.RawBytes // t1, t2, t3, b
		null  bool
		dest  = []any{&ints[0], &ints[1], &ints[2], &ints[3], &reals[0], &reals[1], &raw[0], &raw[1], &raw[2], &raw[3], &null}
		query = workload.WorkQuery
		h     = workload.NewFNV()
	)
	if d.EmptyBlobIsNil {
		query = strings.Replace(query, " FROM", ", b IS NULL FROM", 1)
	} else {
		dest = dest[:10]
	}
	t.Start()
	rows, err := db.Query(query)
	if err != nil {
		t.Stop()
		return 0, 0, err
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			rows.Close()
			t.Stop()
			return 0, 0, err
		}
		blobNull := raw[3] == nil
		if d.EmptyBlobIsNil {
			blobNull = null
		}
		for _, v := range ints {
			if v.Valid {
				h = h.Int64(v.Int64)
			} else {
				h = h.Null()
			}
		}
		for _, v := range reals {
			if v.Valid {
				h = h.Float64(v.Float64)
			} else {
				h = h.Null()
			}
		}
		for _, v := range raw[:3] {
			if v != nil {
				h = h.Text(v)
			} else {
				h = h.Null()
			}
		}
		if !blobNull {
			h = h.Blob(raw[3])
		} else {
			h = h.Null()
		}
		count++
	}
	err = rows.Err()
	rows.Close()
	t.Stop()
	return count, h.Sum64(), err
}

// FetchWideTyped is fetch_wide with each column scanned into the typed destination a Go
// program declares for it (sql.NullInt64, sql.NullFloat64, sql.NullString, []byte), which
// makes database/sql convert every value through reflection. It is a Go-only benchmark
// (not a runner workload), reported beside fetch_wide.
func (d Driver) FetchWideTyped() workload.Impl {
	return func(w, input string) (workload.Rep, func(), error) {
		db, err := d.openFile(input)
		if err != nil {
			return nil, nil, err
		}
		return func(t workload.Timer) (int64, int64, error) { return d.fetchWideTyped(t, db) }, func() { db.Close() }, nil
	}
}

func (d Driver) fetchWideTyped(t workload.Timer, db *sql.DB) (count, sum int64, err error) {
	var (
		ints  [4]sql.NullInt64
		reals [2]sql.NullFloat64
		texts [3]sql.NullString
		blob  []byte
		null  bool
		dest  = []any{&ints[0], &ints[1], &ints[2], &ints[3], &reals[0], &reals[1], &texts[0], &texts[1], &texts[2], &blob, &null}
		u     uint64
		query = workload.WideQuery
	)
	if d.EmptyBlobIsNil {
		query = strings.Replace(query, " FROM", ", b IS NULL FROM", 1)
	} else {
		dest = dest[:10]
	}
	t.Start()
	rows, err := db.Query(query)
	if err != nil {
		t.Stop()
		return 0, 0, err
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			rows.Close()
			t.Stop()
			return 0, 0, err
		}
		if d.EmptyBlobIsNil && blob == nil && !null {
			blob = []byte{}
		}
		for _, v := range ints {
			if v.Valid {
				u += uint64(v.Int64)
			} else {
				u++
			}
		}
		for _, v := range reals {
			if v.Valid {
				u += uint64(workload.Real(v.Float64))
			} else {
				u++
			}
		}
		for _, v := range texts {
			if v.Valid {
				u += uint64(workload.TextLen(v.String))
			} else {
				u++
			}
		}
		if blob != nil {
			u += uint64(len(blob))
		} else {
			u++
		}
		count++
	}
	err = rows.Err()
	rows.Close()
	t.Stop()
	return count, int64(u), err
}

func (d Driver) execScript(t workload.Timer, script string) (count, sum int64, err error) {
	db, err := d.openMemory(workload.ScriptTable)
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	t.Start()
	_, err = db.Exec(script)
	t.Stop()
	if err != nil {
		return 0, 0, err
	}
	err = db.QueryRow(workload.ScriptCheck).Scan(&count, &sum)
	return count, sum, err
}

func (d Driver) bulkInsert(t workload.Timer, rows *workload.BulkRows) (count, sum int64, err error) {
	var db *sql.DB
	if workload.BulkFile {
		db, err = d.openBulkFile()
	} else {
		db, err = d.openMemory(workload.BulkTable)
	}
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, 0, err
	}
	t.Start()
	if d.Bulk != nil {
		err = d.Bulk(ctx, conn, rows)
	} else {
		err = PreparedLoop(ctx, conn, rows)
	}
	t.Stop()
	if err != nil {
		conn.Close()
		return 0, 0, err
	}
	err = conn.QueryRowContext(ctx, workload.BulkCheck).Scan(&count, &sum)
	conn.Close()
	return count, sum, err
}

// PreparedLoop inserts the rows the way database/sql code does without a bulk call: one
// transaction, one prepared statement, one Exec per row.
func PreparedLoop(ctx context.Context, conn *sql.Conn, rows *workload.BulkRows) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	stmt, err := tx.PrepareContext(ctx, workload.BulkInsertQ)
	if err != nil {
		tx.Rollback()
		return err
	}
	for i := range rows.A {
		if _, err := stmt.ExecContext(ctx, rows.A[i], rows.B[i], rows.C[i]); err != nil {
			stmt.Close()
			tx.Rollback()
			return fmt.Errorf("row %d: %w", i, err)
		}
	}
	stmt.Close()
	return tx.Commit()
}

// The udf workloads' functions in the shapes of mattn/go-sqlite3's RegisterFunc and
// RegisterAggregator, which sqlbatch's driver copies: what a program ported from mattn has.

// F is f: x*2+1, counting its calls in workload.UDFCalls.
func F(x int64) int64 {
	workload.UDFCalls++
	return x*2 + 1
}

// SumSq is sumsq's aggregator: the wrapping int64 sum of x*x, counting its rows in
// workload.UDFRows.
type SumSq struct{ acc int64 }

// NewSumSq is the aggregator constructor RegisterAggregator takes.
func NewSumSq() *SumSq { return &SumSq{} }

// Step adds one row.
func (s *SumSq) Step(x int64) {
	workload.UDFRows++
	s.acc += x * x
}

// Done returns the sum.
func (s *SumSq) Done() int64 { return s.acc }

// Registrar is the function registration that mattn's *sqlite3.SQLiteConn and sqlbatch's
// *driver.Conn have in common.
type Registrar interface {
	RegisterFunc(name string, impl any, pure bool) error
	RegisterAggregator(name string, impl any, pure bool) error
}

// RegisterUDF registers f and sumsq on c; a driver's ConnectHook calls it.
func RegisterUDF(c Registrar) error {
	if err := c.RegisterFunc("f", F, true); err != nil {
		return err
	}
	return c.RegisterAggregator("sumsq", NewSumSq, true)
}

// updateHook sets the counting update hook through sql.Conn.Raw, with the method both
// mattn/go-sqlite3's and sqlbatch's driver connections have (a driver without it does not
// support the workload), and runs update_hook on that connection.
func (d Driver) updateHook(input string) (workload.Rep, func(), error) {
	db, err := d.openFile(input)
	if err != nil {
		return nil, nil, err
	}
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	cleanup := func() { conn.Close(); db.Close() }
	err = conn.Raw(func(dc any) error {
		h, ok := dc.(interface {
			RegisterUpdateHook(func(int, string, string, int64))
		})
		if !ok {
			return workload.ErrUnsupported
		}
		h.RegisterUpdateHook(workload.CountUpdate)
		return nil
	})
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	exec := func(q string) error {
		_, err := conn.ExecContext(ctx, q)
		return err
	}
	return workload.UpdateHookRep(exec), cleanup, nil
}
