package sqlbatch_test

import (
	"errors"
	"fmt"
	"io"
	"log"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// Stream a large value in and out without holding it in one statement.
func ExampleConn_OpenBlob() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	// The size is fixed when the row is written: zeroblob reserves it.
	if _, err := c.ExecScript("CREATE TABLE file(id INTEGER PRIMARY KEY, data BLOB); INSERT INTO file VALUES (1, zeroblob(?))", 11); err != nil {
		log.Fatal(err)
	}

	w, err := c.OpenBlob("main", "file", "data", 1, true)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := io.WriteString(w, "hello, "); err != nil {
		log.Fatal(err)
	}
	if _, err := io.WriteString(w, "blob"); err != nil {
		log.Fatal(err)
	}
	_, err = io.WriteString(w, "!") // past the end: writes cannot grow the value
	fmt.Println(errors.Is(err, sqlbatch.ErrOutOfRange))
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	r, err := c.OpenBlob("", "file", "data", 1, false)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	all, err := io.ReadAll(r)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q (%d bytes)\n", all, r.Size())
	part := make([]byte, 4)
	n, err := r.ReadAt(part, 9) // io.ReaderAt: a short read at the end says io.EOF
	fmt.Printf("%q %v\n", part[:n], err)
	// Output:
	// true
	// "hello, blob" (11 bytes)
	// "ob" EOF
}

// Many small values by rowid in one call into C.
func ExampleBlobHandle_ReadMany() {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecScript(`CREATE TABLE thumb(id INTEGER PRIMARY KEY, data BLOB);
		INSERT INTO thumb VALUES (1, 'one'), (2, 'two'), (3, 'three')`); err != nil {
		log.Fatal(err)
	}
	b, err := c.OpenBlob("", "thumb", "data", 1, false)
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	ranges := []sqlbatch.BlobRange{
		{RowID: 3, Len: sqlbatch.BlobToEnd},
		{RowID: 1, Len: sqlbatch.BlobToEnd},
		{RowID: 2, Offset: 1, Len: 2},
	}
	buf := make([]byte, 64)
	if _, err := b.ReadMany(ranges, buf); err != nil {
		log.Fatal(err)
	}
	for _, r := range ranges {
		fmt.Printf("%d: %s\n", r.RowID, buf[r.At:r.At+r.Len])
	}
	// Output:
	// 3: three
	// 1: one
	// 2: wo
}
