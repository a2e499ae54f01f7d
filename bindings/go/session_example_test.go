package sqlbatch_test

import (
	"fmt"
	"log"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// A session records the changes to one connection's tables; its changeset replays them on
// another database.
func ExampleConn_CreateSession() {
	const schema = "CREATE TABLE item(id INTEGER PRIMARY KEY, name, qty); INSERT INTO item VALUES (1, 'bolt', 10)"
	src, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer src.Close()
	dst, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer dst.Close()
	if _, err := src.ExecScript(schema); err != nil {
		log.Fatal(err)
	}
	if _, err := dst.ExecScript(schema); err != nil {
		log.Fatal(err)
	}

	s, err := src.CreateSession(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Delete()
	if err := s.Attach(""); err != nil { // every table
		log.Fatal(err)
	}
	if _, err := src.ExecScript("UPDATE item SET qty = 7 WHERE id = 1; INSERT INTO item VALUES (2, 'nut', 50)"); err != nil {
		log.Fatal(err)
	}
	changeset, err := s.Changeset()
	if err != nil {
		log.Fatal(err)
	}

	if err := dst.ApplyChangeset(changeset, nil); err != nil {
		fmt.Println(err)
	}
	rows, err := dst.Query("SELECT id, name, qty FROM item ORDER BY id")
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		fmt.Println(rows.Int64(0), rows.Text(1), rows.Int64(2))
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// 1 bolt 7
	// 2 nut 50
}

// The conflict function settles each conflict: here a taken key is replaced (CONFLICT), and
// the database's row wins over a change that expected other values (DATA). Columns an UPDATE
// does not set are Undefined (its New has the primary key Undefined).
func ExampleConn_ApplyChangeset() {
	const schema = "CREATE TABLE kv(k TEXT PRIMARY KEY, v); INSERT INTO kv VALUES ('a', 1)"
	src, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer src.Close()
	dst, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer dst.Close()
	if _, err := src.ExecScript(schema); err != nil {
		log.Fatal(err)
	}
	if _, err := dst.ExecScript(schema); err != nil {
		log.Fatal(err)
	}
	s, err := src.CreateSession(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Delete()
	if err := s.Attach("kv"); err != nil {
		log.Fatal(err)
	}
	if _, err := src.ExecScript("UPDATE kv SET v = 2 WHERE k = 'a'; INSERT INTO kv VALUES ('b', 'new')"); err != nil {
		log.Fatal(err)
	}
	changeset, err := s.Changeset()
	if err != nil {
		log.Fatal(err)
	}

	if _, err := dst.ExecScript("UPDATE kv SET v = 100 WHERE k = 'a'; INSERT INTO kv VALUES ('b', 'old')"); err != nil {
		log.Fatal(err)
	}
	err = dst.ApplyChangeset(changeset, &sqlbatch.ApplyOptions{
		Conflict: func(c sqlbatch.Conflict) sqlbatch.ConflictAction {
			fmt.Println(c.Kind, c.Table, c.Old, c.New, c.Conflicting)
			if c.Kind == sqlbatch.ConflictConflict {
				return sqlbatch.ChangesetReplace
			}
			return sqlbatch.ChangesetOmit
		},
	})
	fmt.Println(err)
	rows, err := dst.Query("SELECT k, v FROM kv ORDER BY k")
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		fmt.Println(rows.Text(0), rows.Value(1))
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// SQLITE_CHANGESET_CONFLICT kv [] [b new] [b old]
	// SQLITE_CHANGESET_DATA kv [a 1] [undefined 2] [a 100]
	// <nil>
	// a 100
	// b new
}

// The inverse of a changeset undoes it.
func ExampleInvertChangeset() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecScript("CREATE TABLE t(id INTEGER PRIMARY KEY, x); INSERT INTO t VALUES (1, 'keep')"); err != nil {
		log.Fatal(err)
	}
	s, err := c.CreateSession(nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := s.Attach("t"); err != nil {
		log.Fatal(err)
	}
	if _, err := c.ExecScript("DELETE FROM t; INSERT INTO t VALUES (2, 'oops')"); err != nil {
		log.Fatal(err)
	}
	changeset, err := s.Changeset()
	if err != nil {
		log.Fatal(err)
	}
	if err := s.Delete(); err != nil {
		log.Fatal(err)
	}

	undo, err := sqlbatch.InvertChangeset(changeset)
	if err != nil {
		log.Fatal(err)
	}
	if err := c.ApplyChangeset(undo, nil); err != nil {
		log.Fatal(err)
	}
	rows, err := c.Query("SELECT id, x FROM t")
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		fmt.Println(rows.Int64(0), rows.Text(1))
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// 1 keep
}

// ReadChangeset hands over each change of a changeset: its table, operation, primary key
// columns and rows (Undefined for the columns an UPDATE does not carry). A range loop over
// ChangesetChanges reads the same changes; ReadInvertedChangeset reads those of the undo.
func ExampleReadChangeset() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecScript("CREATE TABLE kv(k TEXT PRIMARY KEY, v, note); INSERT INTO kv VALUES ('a', 1, 'first')"); err != nil {
		log.Fatal(err)
	}
	s, err := c.CreateSession(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Delete()
	if err := s.Attach("kv"); err != nil {
		log.Fatal(err)
	}
	if _, err := c.ExecScript("UPDATE kv SET v = 2 WHERE k = 'a'"); err != nil {
		log.Fatal(err)
	}
	changeset, err := s.Changeset()
	if err != nil {
		log.Fatal(err)
	}

	err = sqlbatch.ReadChangeset(changeset, func(ch sqlbatch.ChangesetChange) error {
		fmt.Println(ch.Op == sqlbatch.OpUpdate, ch.Table, ch.PrimaryKey, ch.Old, ch.New)
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	for ch, err := range sqlbatch.InvertedChangesetChanges(changeset) {
		if err != nil {
			fmt.Println(err)
			break
		}
		fmt.Println("undo:", ch.Old, ch.New)
	}
	// Output:
	// true kv [true false false] [a 1 undefined] [undefined 2 undefined]
	// undo: [a 2 undefined] [undefined 1 undefined]
}
