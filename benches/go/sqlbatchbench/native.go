package sqlbatchbench

// The native C baseline (native.c: benches/native/native_loop.c) runs on the SQLite object
// that is inside libsqlbatch.a, from build/native/libsqlite3.a (benches/native/sqlite-archive.sh
// puts it there; make -C benches/impls/c runs it), so both sides run the same SQLite build in
// the same process.

/*
#cgo CFLAGS: -O2 -I${SRCDIR}/../../../include
#cgo LDFLAGS: ${SRCDIR}/../../../build/lib/libsqlbatch.a ${SRCDIR}/../../../build/native/libsqlite3.a -lm -ldl -lpthread
#include <stdlib.h>
#include "native.h"
#include "sqlbatch.h"
*/
import "C"

import (
	"fmt"
	"os"
	"unsafe"

	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
)

type nativeDB struct{ db *C.sqlite3 }

func nativeOpen(path string) (*nativeDB, error) {
	cs := C.CString(path)
	defer C.free(unsafe.Pointer(cs))
	var msg *C.char
	db := C.nb_open(cs, &msg)
	if db == nil {
		return nil, fmt.Errorf("open %s: %s", path, C.GoString(msg))
	}
	return &nativeDB{db}, nil
}

func (n *nativeDB) close() { C.nb_close(n.db) }

func (n *nativeDB) exec(sql string) error {
	cs := C.CString(sql)
	defer C.free(unsafe.Pointer(cs))
	var msg *C.char
	if rc := C.nb_exec(n.db, cs, &msg); rc != 0 {
		return fmt.Errorf("exec: %s (%d)", C.GoString(msg), int(rc))
	}
	return nil
}

func (n *nativeDB) scalar2(sql string) (int64, int64, error) {
	cs := C.CString(sql)
	defer C.free(unsafe.Pointer(cs))
	var a, b C.int64_t
	if rc := C.nb_scalar2(n.db, cs, &a, &b); rc != 0 {
		return 0, 0, fmt.Errorf("%s: SQLite error %d", sql, int(rc))
	}
	return int64(a), int64(b), nil
}

// CSqlbatch is the same C loop over the sqlbatch C ABI (the fetch workloads and
// bulk_insert): what the batched ABI costs before any Go is involved.
func CSqlbatch(w, input string) (workload.Rep, func(), error) {
	if w == workload.BulkInsert {
		return cSqlbatchBulk(input)
	}
	if w != workload.FetchNarrow && w != workload.FetchNarrow1M && w != workload.FetchWide {
		return nil, nil, workload.ErrUnsupported
	}
	if _, err := os.Stat(input); err != nil {
		return nil, nil, err
	}
	cs := C.CString(input)
	c := C.nb_sb_open(cs)
	C.free(unsafe.Pointer(cs))
	if c == nil {
		return nil, nil, fmt.Errorf("open %s failed", input)
	}
	var wide C.int
	if w == workload.FetchWide {
		wide = 1
	}
	rep := func(t workload.Timer) (int64, int64, error) {
		var count, sum C.int64_t
		t.Start()
		rc := C.nb_sb_fetch(c, wide, &count, &sum)
		t.Stop()
		if rc != 0 {
			return 0, 0, fmt.Errorf("fetch: error %d", int(rc))
		}
		return int64(count), int64(sum), nil
	}
	return rep, func() { C.sqlbatch_conn_close(c) }, nil
}

// cSqlbatchBulk is bulk_insert as c-sqlbatch does it (benches/impls/c/bench.c): the values
// of all rows built in C memory before the clock starts, one sqlbatch_stmt_execute_many.
func cSqlbatchBulk(input string) (workload.Rep, func(), error) {
	n, err := workload.BulkCount(input)
	if err != nil {
		return nil, nil, err
	}
	rows := C.nb_make_rows(C.size_t(n))
	if rows == nil {
		return nil, nil, fmt.Errorf("out of memory")
	}
	values := C.nb_sb_make_values(rows)
	if values == nil {
		C.nb_free_rows(rows)
		return nil, nil, fmt.Errorf("out of memory")
	}
	memory, table, check := C.CString(":memory:"), C.CString(workload.BulkTable), C.CString(workload.BulkCheck)
	rep := func(t workload.Timer) (int64, int64, error) {
		c := C.nb_sb_open(memory)
		if c == nil {
			return 0, 0, fmt.Errorf("open :memory: failed")
		}
		defer C.sqlbatch_conn_close(c)
		if rc := C.nb_sb_exec(c, table); rc != 0 {
			return 0, 0, fmt.Errorf("create table: error %d", int(rc))
		}
		t.Start()
		rc := C.nb_sb_bulk_insert(c, rows, values)
		t.Stop()
		if rc != 0 {
			return 0, 0, fmt.Errorf("bulk insert: error %d", int(rc))
		}
		var count, sum C.int64_t
		if rc := C.nb_sb_scalar2(c, check, &count, &sum); rc != 0 {
			return 0, 0, fmt.Errorf("check: error %d", int(rc))
		}
		return int64(count), int64(sum), nil
	}
	return rep, func() {
		C.free(unsafe.Pointer(values))
		C.nb_free_rows(rows)
		C.free(unsafe.Pointer(memory))
		C.free(unsafe.Pointer(table))
		C.free(unsafe.Pointer(check))
	}, nil
}

// Native is the native C implementation of every workload.
func Native(w, input string) (workload.Rep, func(), error) {
	switch w {
	case workload.FetchNarrow, workload.FetchNarrow1M, workload.FetchWide, workload.FetchWork:
		if _, err := os.Stat(input); err != nil {
			return nil, nil, err
		}
		db, err := nativeOpen(input)
		if err != nil {
			return nil, nil, err
		}
		wide, work := w == workload.FetchWide, w == workload.FetchWork
		rep := func(t workload.Timer) (int64, int64, error) {
			var count, sum C.int64_t
			var rc C.int
			t.Start()
			switch {
			case work:
				rc = C.nb_fetch_work(db.db, &count, &sum)
			case wide:
				rc = C.nb_fetch_wide(db.db, &count, &sum)
			default:
				rc = C.nb_fetch_narrow(db.db, &count, &sum)
			}
			t.Stop()
			if rc != 0 {
				return 0, 0, fmt.Errorf("fetch: SQLite error %d", int(rc))
			}
			return int64(count), int64(sum), nil
		}
		return rep, db.close, nil
	case workload.ExecScript, workload.ExecScript10k:
		script, err := os.ReadFile(input)
		if err != nil {
			return nil, nil, err
		}
		cs := C.CString(string(script))
		rep := func(t workload.Timer) (int64, int64, error) {
			db, err := nativeOpen(":memory:")
			if err != nil {
				return 0, 0, err
			}
			defer db.close()
			if err := db.exec(workload.ScriptTable); err != nil {
				return 0, 0, err
			}
			var msg *C.char
			t.Start()
			rc := C.nb_exec(db.db, cs, &msg)
			t.Stop()
			if rc != 0 {
				return 0, 0, fmt.Errorf("script: %s", C.GoString(msg))
			}
			return db.scalar2(workload.ScriptCheck)
		}
		return rep, func() { C.free(unsafe.Pointer(cs)) }, nil
	case workload.BulkInsert:
		n, err := workload.BulkCount(input)
		if err != nil {
			return nil, nil, err
		}
		rows := C.nb_make_rows(C.size_t(n))
		if rows == nil {
			return nil, nil, fmt.Errorf("out of memory")
		}
		rep := func(t workload.Timer) (int64, int64, error) {
			db, err := nativeOpen(":memory:")
			if err != nil {
				return 0, 0, err
			}
			defer db.close()
			if err := db.exec(workload.BulkTable); err != nil {
				return 0, 0, err
			}
			t.Start()
			rc := C.nb_bulk_insert(db.db, rows)
			t.Stop()
			if rc != 0 {
				return 0, 0, fmt.Errorf("bulk insert: SQLite error %d", int(rc))
			}
			return db.scalar2(workload.BulkCheck)
		}
		return rep, func() { C.nb_free_rows(rows) }, nil
	case workload.UDFScalar, workload.UDFAggregate:
		if _, err := os.Stat(input); err != nil {
			return nil, nil, err
		}
		db, err := nativeOpen(input)
		if err != nil {
			return nil, nil, err
		}
		if rc := C.nb_udf_register(db.db); rc != 0 {
			db.close()
			return nil, nil, fmt.Errorf("register f and sumsq: SQLite error %d", int(rc))
		}
		aggregate := w == workload.UDFAggregate
		rep := func(t workload.Timer) (int64, int64, error) {
			var count, sum C.int64_t
			var rc C.int
			t.Start()
			if aggregate {
				rc = C.nb_udf_aggregate(db.db, &count, &sum)
			} else {
				rc = C.nb_udf_scalar(db.db, &count, &sum)
			}
			t.Stop()
			if rc != 0 {
				return 0, 0, fmt.Errorf("%s: SQLite error %d", w, int(rc))
			}
			return int64(count), int64(sum), nil
		}
		return rep, db.close, nil
	}
	return nil, nil, workload.ErrUnsupported
}
