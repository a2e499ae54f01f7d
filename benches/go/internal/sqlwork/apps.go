package sqlwork

import (
	"context"
	"database/sql"

	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
)

// appRead opens the database of point_query, few_rows or large_values (one connection,
// PRAGMA synchronous=NORMAL) and returns the workload's repetition.
func (d Driver) appRead(w, input string) (workload.Rep, func(), error) {
	db, err := d.openFile(input)
	if err != nil {
		return nil, nil, err
	}
	if _, err := db.Exec(workload.Synchronous); err != nil {
		db.Close()
		return nil, nil, err
	}
	if w == workload.LargeValues {
		return func(t workload.Timer) (int64, int64, error) { return largeValues(t, db) }, func() { db.Close() }, nil
	}
	q := workload.PointQ
	if w == workload.FewRows {
		q = workload.FewRowsQ
	}
	var st *sql.Stmt
	if !d.Cached {
		if st, err = db.Prepare(q); err != nil {
			db.Close()
			return nil, nil, err
		}
	}
	cleanup := func() {
		if st != nil {
			st.Close()
		}
		db.Close()
	}
	if w == workload.PointQuery {
		return func(t workload.Timer) (int64, int64, error) { return pointQuery(t, db, st) }, cleanup, nil
	}
	return func(t workload.Timer) (int64, int64, error) { return fewRows(t, db, st) }, cleanup, nil
}

// item is a row of app.db's items.
type item struct {
	id, qty int64
	name    string
	price   float64
	tag     sql.NullString
}

func (it *item) dest() []any { return []any{&it.id, &it.name, &it.qty, &it.price, &it.tag} }

func (it *item) sum() int64 {
	return it.id + workload.TextLen(it.name) + it.qty + workload.Real(it.price) + workload.NullText(it.tag.String, it.tag.Valid)
}

// pointQuery reads one row by key 100,000 times: through the driver's cache (st nil) or the
// prepared st.
func pointQuery(t workload.Timer, db *sql.DB, st *sql.Stmt) (count, sum int64, err error) {
	ctx := context.Background()
	var it item
	dest := it.dest()
	t.Start()
	for i := range workload.PointQueries {
		key := workload.PointKey(i)
		if st == nil {
			err = db.QueryRowContext(ctx, workload.PointQ, key).Scan(dest...)
		} else {
			err = st.QueryRow(key).Scan(dest...)
		}
		if err != nil {
			t.Stop()
			return 0, 0, err
		}
		sum += it.sum()
	}
	t.Stop()
	return workload.PointQueries, sum, nil
}

// fewRows reads 10 rows per query, 20,000 times.
func fewRows(t workload.Timer, db *sql.DB, st *sql.Stmt) (count, sum int64, err error) {
	ctx := context.Background()
	var it item
	dest := it.dest()
	t.Start()
	for i := range workload.FewRowsQueries {
		start := workload.FewRowsStart(i)
		var rows *sql.Rows
		if st == nil {
			rows, err = db.QueryContext(ctx, workload.FewRowsQ, start)
		} else {
			rows, err = st.Query(start)
		}
		if err != nil {
			t.Stop()
			return 0, 0, err
		}
		for rows.Next() {
			if err = rows.Scan(dest...); err != nil {
				break
			}
			sum += it.sum()
		}
		if err == nil {
			err = rows.Err()
		}
		rows.Close()
		if err != nil {
			t.Stop()
			return 0, 0, err
		}
	}
	t.Stop()
	return workload.FewRowsQueries, sum, nil
}

// largeValues reads every row of big.db into an int64, a string and a []byte.
func largeValues(t workload.Timer, db *sql.DB) (count, sum int64, err error) {
	var (
		id int64
		s  string
		b  []byte
	)
	t.Start()
	rows, err := db.Query(workload.LargeValuesQ)
	if err != nil {
		t.Stop()
		return 0, 0, err
	}
	for rows.Next() {
		if err = rows.Scan(&id, &s, &b); err != nil {
			break
		}
		sum += id + workload.TextLen(s) + workload.LargeBlob(b)
		count++
	}
	if err == nil {
		err = rows.Err()
	}
	rows.Close()
	t.Stop()
	return count, sum, err
}

// appWrite is prepare_churn and small_tx: each repetition starts from a fresh file
// (workload.ChurnPath, WAL, synchronous=NORMAL, the churn table), untimed.
func (d Driver) appWrite(w, input string) (workload.Rep, func(), error) {
	n, err := workload.Count(w, input)
	if err != nil {
		return nil, nil, err
	}
	rep := func(t workload.Timer) (count, sum int64, err error) {
		workload.RemoveChurn()
		db, err := sql.Open(d.Name, d.DSN(workload.ChurnPath()))
		if err != nil {
			return 0, 0, err
		}
		defer db.Close()
		db.SetMaxOpenConns(1)
		db.SetMaxIdleConns(1)
		for _, q := range []string{workload.JournalWAL, workload.Synchronous, workload.ChurnTable} {
			if _, err := db.Exec(q); err != nil {
				return 0, 0, err
			}
		}
		if w == workload.PrepareChurn {
			err = prepareChurn(t, db, n)
		} else {
			err = smallTx(t, db, n)
		}
		if err != nil {
			return 0, 0, err
		}
		err = db.QueryRow(workload.ChurnCheck).Scan(&count, &sum)
		return count, sum, err
	}
	return rep, workload.RemoveChurn, nil
}

// prepareChurn prepares, runs and closes the INSERT once per row, in one transaction.
func prepareChurn(t workload.Timer, db *sql.DB, n int) error {
	t.Start()
	defer t.Stop()
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	for i := range n {
		a, b, c := workload.ChurnRow(i)
		st, err := tx.Prepare(workload.ChurnInsertQ)
		if err != nil {
			tx.Rollback()
			return err
		}
		_, err = st.Exec(a, b, c)
		st.Close()
		if err != nil {
			tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}

// smallTx runs one transaction of one INSERT per row, with a statement prepared (untimed)
// once.
func smallTx(t workload.Timer, db *sql.DB, n int) error {
	st, err := db.Prepare(workload.ChurnInsertQ)
	if err != nil {
		return err
	}
	defer st.Close()
	t.Start()
	defer t.Stop()
	for i := range n {
		a, b, c := workload.ChurnRow(i)
		tx, err := db.Begin()
		if err != nil {
			return err
		}
		if _, err := tx.Stmt(st).Exec(a, b, c); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}
