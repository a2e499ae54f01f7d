package sqlbatch_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// Error() is SQLite's message alone, as mattn/go-sqlite3's; the position is in the fields
// and in Long (and %+v).
func TestErrorIsSQLitesMessage(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE u(x UNIQUE); INSERT INTO u VALUES (1)")
	s, err := c.Prepare("INSERT INTO u VALUES (?)")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	for _, tc := range []struct {
		name string
		run  func() error
		row  int
	}{
		{"Stmt.Exec", func() error { _, err := s.Exec(1); return err }, -1},
		{"Stmt.ExecParams", func() error {
			var p sqlbatch.Params
			p.Int64(1)
			_, err := s.ExecParams(&p)
			return err
		}, -1},
		{"Conn.ExecScript", func() error { _, err := c.ExecScript("INSERT INTO u VALUES (?)", 1); return err }, -2},
		{"Stmt.ExecMany", func() error {
			var p sqlbatch.Params
			p.Int64(7).Int64(8).Int64(1)
			_, err := s.ExecMany(&p)
			return err
		}, 2},
	} {
		err := tc.run()
		e := asError(t, err)
		if got := err.Error(); got != "UNIQUE constraint failed: u.x" {
			t.Errorf("%s: Error() = %q, want SQLite's message alone", tc.name, got)
		}
		// -2: a script of one statement, statement 0 and no row.
		if e.RowIndex != max(tc.row, -1) {
			t.Errorf("%s: RowIndex = %d, want %d", tc.name, e.RowIndex, tc.row)
		}
		long := "sqlbatch: UNIQUE constraint failed: u.x (SQLITE_CONSTRAINT_UNIQUE)"
		if tc.row == -2 {
			long = "sqlbatch: UNIQUE constraint failed: u.x (SQLITE_CONSTRAINT_UNIQUE, statement 0 at byte 0)"
		}
		if tc.row >= 0 {
			long = fmt.Sprintf("sqlbatch: UNIQUE constraint failed: u.x (SQLITE_CONSTRAINT_UNIQUE, row %d)", tc.row)
		}
		if e.Long() != long || fmt.Sprintf("%+v", err) != long {
			t.Errorf("%s: Long() = %q, %%+v = %q, want %q", tc.name, e.Long(), fmt.Sprintf("%+v", err), long)
		}
		if fmt.Sprintf("%v|%s|%q", err, err, err) != `UNIQUE constraint failed: u.x|UNIQUE constraint failed: u.x|"UNIQUE constraint failed: u.x"` {
			t.Errorf("%s: %%v|%%s|%%q = %s", tc.name, fmt.Sprintf("%v|%s|%q", err, err, err))
		}
		mustExec(t, c, "DELETE FROM u WHERE x <> 1")
	}
}

// Code that finds the error through a wrapper, and translators written for mattn's
// sqlite3.Error, keep working.
func TestErrorAsIsAndTranslators(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE u(x UNIQUE); INSERT INTO u VALUES (1)")
	_, err := c.ExecScript("INSERT INTO u VALUES (1)")
	wrapped := fmt.Errorf("saving user: %w", err)

	var e *sqlbatch.Error
	if !errors.As(wrapped, &e) || e.Code != sqlbatch.ErrConstraint || e.ExtendedCode != sqlbatch.ErrConstraintUnique {
		t.Fatalf("errors.As: %#v", e)
	}
	if !errors.Is(wrapped, sqlbatch.ErrConstraint) || !errors.Is(wrapped, sqlbatch.ErrConstraintUnique) || errors.Is(wrapped, sqlbatch.ErrConstraintPrimaryKey) {
		t.Error("errors.Is does not match the primary and extended codes only")
	}
	if int(e.ExtendedCode) != 2067 || int(e.Code) != 19 {
		t.Errorf("codes %d/%d, want SQLite's numbers 19/2067", e.Code, e.ExtendedCode)
	}
	if wrapped.Error() != "saving user: UNIQUE constraint failed: u.x" {
		t.Errorf("wrapped: %q", wrapped.Error())
	}

	// GORM's SQLite dialector (gorm.io/driver/sqlite, error_translator.go) marshals the error
	// to JSON and reads these three fields; 2067 becomes gorm.ErrDuplicatedKey.
	raw, jerr := json.Marshal(err)
	if jerr != nil {
		t.Fatal(jerr)
	}
	var msg struct {
		Code         int `json:"Code"`
		ExtendedCode int `json:"ExtendedCode"`
		SystemErrno  int `json:"SystemErrno"`
	}
	if jerr := json.Unmarshal(raw, &msg); jerr != nil {
		t.Fatalf("%s: %v", raw, jerr)
	}
	if msg.Code != 19 || msg.ExtendedCode != 2067 {
		t.Errorf("JSON %s gives Code %d, ExtendedCode %d; want 19, 2067", raw, msg.Code, msg.ExtendedCode)
	}
}

// A script's error keeps its statement in the fields and in Long, not in Error.
func TestScriptErrorLongForm(t *testing.T) {
	c := memory(t)
	script := "CREATE TABLE u(x UNIQUE);\nINSERT INTO u VALUES (1);\nINSERT INTO u VALUES (1);"
	_, err := c.ExecScript(script)
	e := asError(t, err)
	if e.Error() != "UNIQUE constraint failed: u.x" || e.StatementIndex != 2 || e.RowIndex != -1 {
		t.Errorf("Error() %q, StatementIndex %d, RowIndex %d", e.Error(), e.StatementIndex, e.RowIndex)
	}
	want := fmt.Sprintf("sqlbatch: UNIQUE constraint failed: u.x (SQLITE_CONSTRAINT_UNIQUE, statement 2 at byte %d)",
		strings.LastIndex(script, "INSERT"))
	if e.Long() != want {
		t.Errorf("Long() = %q, want %q", e.Long(), want)
	}
	// An error without a message of its own (from its code alone) says what the code means.
	if got := (&sqlbatch.Error{Code: sqlbatch.ErrBusy, ExtendedCode: sqlbatch.ErrBusy}).Error(); got != "database is locked" {
		t.Errorf("empty Msg: %q", got)
	}
}
