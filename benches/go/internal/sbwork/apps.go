package sbwork

import (
	"os"

	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// appRead opens the database of point_query, few_rows or large_values with the low-level
// package (PRAGMA synchronous=NORMAL) and returns the workload's repetition; point_query and
// few_rows prepare their statement once, here.
func appRead(w, input string) (workload.Rep, func(), error) {
	if _, err := os.Stat(input); err != nil {
		return nil, nil, err
	}
	c, err := sqlbatch.Open(input)
	if err != nil {
		return nil, nil, err
	}
	if _, err := c.ExecScript(workload.Synchronous); err != nil {
		c.Close()
		return nil, nil, err
	}
	if w == workload.LargeValues {
		return func(t workload.Timer) (int64, int64, error) { return largeValues(t, c) }, func() { c.Close() }, nil
	}
	q := workload.PointQ
	if w == workload.FewRows {
		q = workload.FewRowsQ
	}
	s, err := c.Prepare(q)
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	cleanup := func() { s.Close(); c.Close() }
	if w == workload.PointQuery {
		return func(t workload.Timer) (int64, int64, error) { return pointQuery(t, s) }, cleanup, nil
	}
	return func(t workload.Timer) (int64, int64, error) { return fewRows(t, s) }, cleanup, nil
}

// itemSum is the checksum of the current row of items: id, name, qty, price, tag (nullable).
func itemSum(rows *sqlbatch.Rows) int64 {
	id, name, qty, price := rows.Int64(0), rows.Text(1), rows.Int64(2), rows.Float64(3)
	tag, valid := "", !rows.IsNull(4)
	if valid {
		tag = rows.Text(4)
	}
	return id + workload.TextLen(name) + qty + workload.Real(price) + workload.NullText(tag, valid)
}

func pointQuery(t workload.Timer, s *sqlbatch.Stmt) (count, sum int64, err error) {
	t.Start()
	defer t.Stop()
	for i := range workload.PointQueries {
		rows, err := s.Query(workload.PointKey(i))
		if err != nil {
			return 0, 0, err
		}
		if rows.Next() {
			sum += itemSum(rows)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return 0, 0, err
		}
	}
	return workload.PointQueries, sum, nil
}

func fewRows(t workload.Timer, s *sqlbatch.Stmt) (count, sum int64, err error) {
	t.Start()
	defer t.Stop()
	for i := range workload.FewRowsQueries {
		rows, err := s.Query(workload.FewRowsStart(i))
		if err != nil {
			return 0, 0, err
		}
		for rows.Next() {
			sum += itemSum(rows)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return 0, 0, err
		}
	}
	return workload.FewRowsQueries, sum, nil
}

func largeValues(t workload.Timer, c *sqlbatch.Conn) (count, sum int64, err error) {
	t.Start()
	defer t.Stop()
	s, err := c.Prepare(workload.LargeValuesQ)
	if err != nil {
		return 0, 0, err
	}
	defer s.Close()
	rows, err := s.Query()
	if err != nil {
		return 0, 0, err
	}
	for rows.Next() {
		sum += rows.Int64(0) + workload.TextLen(rows.Text(1)) + workload.LargeBlob(rows.Blob(2))
		count++
	}
	return count, sum, rows.Err()
}

// appWrite is prepare_churn and small_tx: each repetition starts from a fresh file
// (workload.ChurnPath, WAL, synchronous=NORMAL, the churn table), untimed.
func appWrite(w, input string) (workload.Rep, func(), error) {
	n, err := workload.Count(w, input)
	if err != nil {
		return nil, nil, err
	}
	rep := func(t workload.Timer) (count, sum int64, err error) {
		workload.RemoveChurn()
		c, err := sqlbatch.Open(workload.ChurnPath())
		if err != nil {
			return 0, 0, err
		}
		defer c.Close()
		for _, q := range []string{workload.JournalWAL, workload.Synchronous, workload.ChurnTable} {
			if _, err := c.ExecScript(q); err != nil {
				return 0, 0, err
			}
		}
		if w == workload.PrepareChurn {
			err = prepareChurn(t, c, n)
		} else {
			err = smallTx(t, c, n)
		}
		if err != nil {
			return 0, 0, err
		}
		return check(c, workload.ChurnCheck)
	}
	return rep, workload.RemoveChurn, nil
}

// prepareChurn prepares, runs and finalizes the INSERT once per row, in one transaction.
func prepareChurn(t workload.Timer, c *sqlbatch.Conn, n int) error {
	t.Start()
	defer t.Stop()
	if _, err := c.ExecScript("BEGIN"); err != nil {
		return err
	}
	for i := range n {
		a, b, str := workload.ChurnRow(i)
		s, err := c.Prepare(workload.ChurnInsertQ)
		if err != nil {
			return err
		}
		_, err = s.Exec(a, b, str)
		s.Close()
		if err != nil {
			return err
		}
	}
	_, err := c.ExecScript("COMMIT")
	return err
}

// smallTx runs one transaction of one INSERT per row, with the INSERT prepared (untimed)
// once.
func smallTx(t workload.Timer, c *sqlbatch.Conn, n int) error {
	s, err := c.Prepare(workload.ChurnInsertQ)
	if err != nil {
		return err
	}
	defer s.Close()
	t.Start()
	defer t.Stop()
	for i := range n {
		a, b, str := workload.ChurnRow(i)
		if _, err := c.ExecScript("BEGIN"); err != nil {
			return err
		}
		if _, err := s.Exec(a, b, str); err != nil {
			return err
		}
		if _, err := c.ExecScript("COMMIT"); err != nil {
			return err
		}
	}
	return nil
}
