// Command gochild is the Go writer of the crash-durability test (tests/durability/run.py):
// child.c's transactions, written through the database/sql driver (db.Exec of each statement
// in a transaction from db.Begin, then Commit), with child.c's protocol on stdout:
//
//	gochild DB go wal|delete full|normal
//
// prints "ready LAST TOTAL JOURNAL SYNC" once the database is open, then "ack N" after each
// Commit that returned nil, until it is killed. Any error exits with status 2.
package main

import (
	"database/sql"
	"encoding/binary"
	"fmt"
	"os"

	_ "github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

const keep = 8 // transaction N deletes rows k >= 2 of transaction N - keep

// mix is splitmix64's finalizer; txRows, rowSeed, valueLen and value are child.c's.
func mix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	return x ^ (x >> 31)
}

func txRows(n int64) int {
	h := mix(uint64(n))
	if (h>>8)%16 == 0 {
		return 200
	}
	return 1 + int(h%24)
}

func rowSeed(n int64, k int) uint64 { return mix(uint64(n)<<16 | uint64(k)) }

func valueLen(seed uint64) int {
	if (seed>>40)%32 == 0 {
		return 3000 + int((seed>>20)%6001)
	}
	return int((seed >> 20) % 97)
}

func value(seed uint64) []byte {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	v := make([]byte, valueLen(seed))
	for i := range v {
		v[i] = b[i%8]
	}
	return v
}

func fail(what string, err error) {
	fmt.Fprintf(os.Stderr, "gochild: %s: %v\n", what, err)
	os.Exit(2)
}

func say(line string) {
	if _, err := os.Stdout.WriteString(line); err != nil { // one write(2) per line
		fail("write to the parent", err)
	}
}

func main() {
	if len(os.Args) != 5 || os.Args[2] != "go" {
		fmt.Fprintln(os.Stderr, "usage: gochild DB go wal|delete full|normal")
		os.Exit(2)
	}
	path, journal, sync := os.Args[1], os.Args[3], os.Args[4]
	if (journal != "wal" && journal != "delete") || (sync != "full" && sync != "normal") {
		fail("arguments", fmt.Errorf("%q %q", journal, sync))
	}
	// The driver sets the journal mode before synchronous (in WAL mode this build's default
	// synchronous is NORMAL); both are read back below.
	db, err := sql.Open("sqlbatch", path+"?_journal_mode="+journal+"&_synchronous="+sync+
		"&_pragma=cache_size(-256)&_pragma=wal_autocheckpoint(64)")
	if err != nil {
		fail("open", err)
	}
	db.SetMaxOpenConns(1)
	_, err = db.Exec(`BEGIN;
		CREATE TABLE IF NOT EXISTS t(tx INTEGER NOT NULL, k INTEGER NOT NULL, h INTEGER NOT NULL,
			v BLOB NOT NULL, PRIMARY KEY (tx, k));
		CREATE INDEX IF NOT EXISTS t_h ON t(h);
		CREATE TABLE IF NOT EXISTS meta(id INTEGER PRIMARY KEY, last INTEGER NOT NULL, total INTEGER NOT NULL);
		INSERT OR IGNORE INTO meta VALUES (1, 0, 0);
		COMMIT`)
	if err != nil {
		fail("schema", err)
	}
	var mode string
	var level, last, total int64
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		fail("journal_mode", err)
	}
	if err := db.QueryRow("PRAGMA synchronous").Scan(&level); err != nil {
		fail("synchronous", err)
	}
	if err := db.QueryRow("SELECT last, total FROM meta WHERE id = 1").Scan(&last, &total); err != nil {
		fail("meta", err)
	}
	levels := map[int64]string{1: "normal", 2: "full"}
	if levels[level] == "" {
		levels[level] = "other"
	}
	say(fmt.Sprintf("ready %d %d %s %s\n", last, total, mode, levels[level]))

	for n := last + 1; ; n++ {
		tx, err := db.Begin()
		if err != nil {
			fail("begin", err)
		}
		rows := txRows(n)
		for k := range rows {
			seed := rowSeed(n, k)
			if _, err := tx.Exec("INSERT INTO t(tx, k, h, v) VALUES (?, ?, ?, ?)", n, k, int64(seed), value(seed)); err != nil {
				fail("insert", err)
			}
		}
		if _, err := tx.Exec("DELETE FROM t WHERE tx = ? AND k >= 2", n-keep); err != nil {
			fail("delete", err)
		}
		if _, err := tx.Exec("UPDATE meta SET last = ?, total = total + ? WHERE id = 1", n, rows); err != nil {
			fail("update", err)
		}
		if err := tx.Commit(); err != nil {
			fail("commit", err)
		}
		say(fmt.Sprintf("ack %d\n", n))
	}
}
