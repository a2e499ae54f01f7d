package linkbeside

import (
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/mattn/go-sqlite3"
	"github.com/sqlbatch/sqlbatch/bindings/go"
)

// The same failures through both drivers: Error() is the same text (SQLite's message, as
// mattn's), and the codes are the same numbers under the same field names.
func TestErrorsReadAsMattns(t *testing.T) {
	dir := t.TempDir()
	ours := open(t, "sqlbatch", filepath.Join(dir, "ours.db")+"?_fk=1")
	theirs := open(t, "sqlite3", filepath.Join(dir, "theirs.db")+"?_fk=1")
	schema := `CREATE TABLE p(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, n INT CHECK (n >= 0));
		CREATE TABLE c(pid INTEGER REFERENCES p(id));
		CREATE TABLE log(x);
		CREATE TRIGGER no_log BEFORE INSERT ON log WHEN new.x = 'bad' BEGIN SELECT RAISE(ABORT, 'bad log line'); END;
		INSERT INTO p VALUES (1, 'a', 1)`
	for _, db := range []*sql.DB{ours, theirs} {
		if _, err := db.Exec(schema); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name string
		run  func(db *sql.DB) error
	}{
		{"unique", func(db *sql.DB) error { _, err := db.Exec("INSERT INTO p VALUES (?, ?, ?)", 2, "a", 1); return err }},
		{"primary key", func(db *sql.DB) error { _, err := db.Exec("INSERT INTO p VALUES (1, 'b', 1)"); return err }},
		{"not null", func(db *sql.DB) error { _, err := db.Exec("INSERT INTO p(id, n) VALUES (?, ?)", 3, 1); return err }},
		{"check", func(db *sql.DB) error { _, err := db.Exec("UPDATE p SET n = ? WHERE id = 1", -1); return err }},
		{"foreign key", func(db *sql.DB) error { _, err := db.Exec("INSERT INTO c VALUES (99)"); return err }},
		{"datatype mismatch", func(db *sql.DB) error { _, err := db.Exec("INSERT INTO p VALUES ('x', 'y', 1)"); return err }},
		{"raise", func(db *sql.DB) error { _, err := db.Exec("INSERT INTO log VALUES (?)", "bad"); return err }},
		{"syntax in Exec", func(db *sql.DB) error { _, err := db.Exec("INSERT INTO p VALUS (1)"); return err }},
		{"syntax in Query", func(db *sql.DB) error { _, err := db.Query("SELEC 1"); return err }},
		{"no such table", func(db *sql.DB) error { _, err := db.Query("SELECT * FROM nope WHERE x = ?", 1); return err }},
		{"no such column", func(db *sql.DB) error { _, err := db.Exec("UPDATE p SET nope = 1"); return err }},
		{"second statement of a script", func(db *sql.DB) error {
			_, err := db.Exec("INSERT INTO log VALUES (1); INSERT INTO p VALUES (1, 'z', 0)")
			return err
		}},
		{"in a transaction", func(db *sql.DB) error {
			tx, err := db.Begin()
			if err != nil {
				return err
			}
			defer tx.Rollback()
			_, err = tx.Exec("INSERT INTO p VALUES (5, 'a', 0)")
			return err
		}},
	}
	for _, tc := range cases {
		errOurs, errTheirs := tc.run(ours), tc.run(theirs)
		if errOurs == nil || errTheirs == nil {
			t.Errorf("%s: errors %v (sqlbatch), %v (mattn); want both", tc.name, errOurs, errTheirs)
			continue
		}
		if errOurs.Error() != errTheirs.Error() {
			t.Errorf("%s: sqlbatch says %q, mattn %q", tc.name, errOurs.Error(), errTheirs.Error())
		}
		var e *sqlbatch.Error
		var m sqlite3.Error
		if !errors.As(errOurs, &e) || !errors.As(errTheirs, &m) {
			t.Errorf("%s: %T, %T", tc.name, errOurs, errTheirs)
			continue
		}
		if int(e.Code) != int(m.Code) || int(e.ExtendedCode) != int(m.ExtendedCode) {
			t.Errorf("%s: codes %d/%d (sqlbatch), %d/%d (mattn)", tc.name, e.Code, e.ExtendedCode, m.Code, m.ExtendedCode)
		}
		if e.RowIndex != -1 {
			t.Errorf("%s: RowIndex %d on a statement that ran once", tc.name, e.RowIndex)
		}
	}
}
