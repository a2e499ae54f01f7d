package driver_test

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	"github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

type preUpdateEvent struct {
	databaseName, tableName string
	count, depth            int
	op                      int
	oldRowID, newRowID      int64
	oldRow, newRow          []any
}

var preUpdateDriverN atomic.Int32

// mattn's TestPreUpdateHook, with the types changed: a ConnectHook registers the hook, Old
// and New replace the elements of the slices they are given, a dest shorter than the row is
// filled as far as it goes, and INSERT has no old row, DELETE no new one.
func TestDriverPreUpdateHookMattnShape(t *testing.T) {
	var events []preUpdateEvent
	name := "sqlbatch_preupdate_" + string(rune('a'+preUpdateDriverN.Add(1)))
	sql.Register(name, &driver.SQLiteDriver{
		ConnectHook: func(conn *driver.SQLiteConn) error {
			conn.RegisterPreUpdateHook(func(data driver.SQLitePreUpdateData) {
				eval := -1
				oldRow := []any{eval}
				if data.Op != driver.SQLITE_INSERT {
					if err := data.Old(oldRow...); err != nil {
						t.Errorf("Old: %v", err)
					}
				} else if err := data.Old(oldRow...); err == nil {
					t.Error("Old of an INSERT: no error")
				}
				eval2 := -1
				newRow := []any{eval2}
				if data.Op != driver.SQLITE_DELETE {
					if err := data.New(newRow...); err != nil {
						t.Errorf("New: %v", err)
					}
				} else if err := data.New(newRow...); err == nil {
					t.Error("New of a DELETE: no error")
				}
				var tooSmallRow []any
				if data.Op != driver.SQLITE_INSERT {
					if err := data.Old(tooSmallRow...); err != nil || len(tooSmallRow) != 0 {
						t.Errorf("Old into nothing: %v, %v", tooSmallRow, err)
					}
				}
				if data.Conn == nil {
					t.Error("no Conn")
				}
				events = append(events, preUpdateEvent{
					databaseName: data.DatabaseName, tableName: data.TableName,
					count: data.Count(), depth: data.Depth(), op: data.Op,
					oldRowID: data.OldRowID, newRowID: data.NewRowID,
					oldRow: oldRow, newRow: newRow,
				})
			})
			return nil
		},
	})
	db, err := sql.Open(name, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		"CREATE TABLE foo (id INTEGER PRIMARY KEY, s TEXT)",
		"INSERT INTO foo VALUES (9, 'nine')",
		"UPDATE foo SET id = 10, s = 'ten' WHERE id = 9",
		"DELETE FROM foo WHERE id = 10",
	} {
		exec(t, db, q)
	}
	want := []preUpdateEvent{
		{"main", "foo", 2, 0, driver.SQLITE_INSERT, 0, 9, []any{-1}, []any{int64(9)}},
		{"main", "foo", 2, 0, driver.SQLITE_UPDATE, 9, 10, []any{int64(9)}, []any{int64(10)}},
		{"main", "foo", 2, 0, driver.SQLITE_DELETE, 10, 0, []any{int64(10)}, []any{-1}},
	}
	if !reflect.DeepEqual(events, want) {
		t.Errorf("events\n%v\nwant\n%v", events, want)
	}
}

// Old and New after the callback (the data holds copies), every type as mattn gives it (TEXT
// as []byte), pointers scanned into, triggers' depth, through sql.Conn.Raw.
func TestDriverPreUpdateValues(t *testing.T) {
	db := open(t, "")
	exec(t, db, `CREATE TABLE t(id INTEGER PRIMARY KEY, i, f, s, b, n, d);
		CREATE TABLE log(x); CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO log VALUES (new.i); END`)
	c := conn(t, db)
	defer c.Close()
	var got []driver.SQLitePreUpdateData
	c.Raw(func(dc any) error {
		dc.(*driver.SQLiteConn).RegisterPreUpdateHook(func(d driver.SQLitePreUpdateData) { got = append(got, d) })
		return nil
	})
	ctx := context.Background()
	if _, err := c.ExecContext(ctx, "INSERT INTO t VALUES (1, 42, 2.5, 'txt', x'0102', NULL, '2024-05-06 07:08:09')"); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].TableName != "log" || got[1].Depth() != 1 || got[0].Depth() != 0 || got[0].Count() != 7 {
		t.Fatalf("events %+v", got)
	}
	row := make([]any, 7)
	if err := got[0].New(row...); err != nil {
		t.Fatal(err)
	}
	if want := []any{int64(1), int64(42), 2.5, []byte("txt"), []byte{1, 2}, nil, []byte("2024-05-06 07:08:09")}; !reflect.DeepEqual(row, want) {
		t.Errorf("values %#v, want %#v", row, want)
	}
	var (
		id       int
		i8       int8
		f        float32
		s        string
		b        []byte
		n        *string
		ns       sql.NullString
		d        time.Time
		asString string
		anyV     any
		u        uint16
		ok       bool
	)
	if err := got[0].New(&id, &i8, &f, &s, &b, &n, &d); err != nil {
		t.Fatal(err)
	}
	if id != 1 || i8 != 42 || f != 2.5 || s != "txt" || string(b) != "\x01\x02" || n != nil || !d.Equal(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)) {
		t.Errorf("scanned %v %v %v %q %v %v %v", id, i8, f, s, b, n, d)
	}
	if err := got[0].New(&u, &asString, nil, &anyV, nil, &ns); err != nil {
		t.Fatal(err)
	}
	if err := got[0].New(&ok); err != nil {
		t.Fatal(err)
	}
	if u != 1 || asString != "42" || ns.Valid || string(anyV.([]byte)) != "txt" || !ok {
		t.Errorf("scanned %v %q %v %#v %v", u, asString, ns, anyV, ok)
	}
	var tooSmall int8
	if err := got[0].New(nil, nil, &tooSmall); err == nil {
		t.Error("2.5 into an int8: no error")
	}
	// NULL into a non-pointer kind, and text into a number, fail.
	if err := got[0].New(nil, nil, nil, nil, nil, &s); err == nil || !strings.Contains(err.Error(), "NULL") {
		t.Errorf("NULL into a string: %v", err)
	}
	if err := got[0].New(nil, nil, nil, &id); err == nil {
		t.Error("'txt' into an int: no error")
	}
	if err := got[0].Old(&id); err == nil {
		t.Error("Old of an INSERT: no error")
	}
	c.Raw(func(dc any) error {
		dc.(*driver.SQLiteConn).RegisterPreUpdateHook(nil)
		return nil
	})
	c.ExecContext(ctx, "DELETE FROM t")
	if len(got) != 2 {
		t.Errorf("the hook ran after its removal")
	}
}

// A panicking preupdate hook fails the statement with a *sqlbatch.HookPanicError; a session
// on the connection keeps RegisterPreUpdateHook from doing anything.
func TestDriverPreUpdateHookPanicAndSessions(t *testing.T) {
	db := open(t, "")
	exec(t, db, "CREATE TABLE t(x PRIMARY KEY)")
	c := conn(t, db)
	defer c.Close()
	ctx := context.Background()
	c.Raw(func(dc any) error {
		dc.(*driver.SQLiteConn).RegisterPreUpdateHook(func(driver.SQLitePreUpdateData) { panic("boom") })
		return nil
	})
	_, err := c.ExecContext(ctx, "INSERT INTO t VALUES (1)")
	var p *sqlbatch.HookPanicError
	if !errors.As(err, &p) || p.Hook != "preupdate hook" {
		t.Fatalf("panic: %v", err)
	}
	var s *sqlbatch.Session
	calls := 0
	err = c.Raw(func(dc any) error {
		sc := dc.(*driver.SQLiteConn)
		sc.RegisterPreUpdateHook(nil)
		var err error
		if s, err = sc.Raw().CreateSession(nil); err != nil {
			return err
		}
		sc.RegisterPreUpdateHook(func(driver.SQLitePreUpdateData) { calls++ }) // refused: a session lives
		if err := sc.Raw().PreUpdateHook(func(sqlbatch.PreUpdate) {}); !errors.Is(err, sqlbatch.ErrMisuse) {
			t.Errorf("low-level PreUpdateHook with a session: %v", err)
		}
		return s.Attach("")
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, "INSERT INTO t VALUES (2)"); err != nil {
		t.Fatal(err)
	}
	if calls != 0 {
		t.Errorf("a preupdate hook ran %d times beside a session", calls)
	}
	c.Raw(func(any) error {
		if s.IsEmpty() {
			t.Error("the session recorded nothing")
		}
		return s.Delete()
	})
}
