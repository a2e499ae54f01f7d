package sqlbatch_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// blobs returns a connection with table b(id, data, n) holding value v at rowid 1.
func blobTable(t testing.TB, v []byte) *sqlbatch.Conn {
	t.Helper()
	c := memory(t)
	mustExec(t, c, "CREATE TABLE b(id INTEGER PRIMARY KEY, data BLOB, n INTEGER, txt TEXT); INSERT INTO b(id, data, n, txt) VALUES (1, ?, 7, 'hello')", v)
	return c
}

func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// column returns the bytes of data of row id, through SQL.
func column(t testing.TB, c *sqlbatch.Conn, id int64) []byte {
	t.Helper()
	rows, err := c.Query("SELECT data FROM b WHERE id = ?", id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatal("no row", rows.Err())
	}
	return bytes.Clone(rows.Blob(0))
}

func TestBlobReadWholeValue(t *testing.T) {
	v := randomBytes(300_000, 1)
	c := blobTable(t, v)
	b, err := c.OpenBlob("main", "b", "data", 1, false)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Size() != int64(len(v)) {
		t.Fatalf("Size %d, want %d", b.Size(), len(v))
	}
	// io's own checks of a Reader (and ReaderAt, Seeker) over the whole value.
	if err := iotest.TestReader(b, v); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(b)
	if err != nil || !bytes.Equal(got, v) {
		t.Fatalf("ReadAll: %d bytes, %v", len(got), err)
	}
	if n, err := b.Read(make([]byte, 10)); n != 0 || err != io.EOF {
		t.Fatalf("Read at the end: %d, %v", n, err)
	}
	if n, err := b.Read(nil); n != 0 || err != nil {
		t.Fatalf("empty Read at the end: %d, %v", n, err)
	}
	// One Read of the whole value is one call.
	if _, err := b.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	all := make([]byte, len(v)+10)
	if n, err := b.Read(all); n != len(v) || err != nil || !bytes.Equal(all[:n], v) {
		t.Fatalf("one Read: %d, %v", n, err)
	}
}

func TestBlobReadAtAndSeek(t *testing.T) {
	v := randomBytes(10_000, 2)
	c := blobTable(t, v)
	b, err := c.OpenBlob("", "b", "data", 1, false)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p := make([]byte, 100)
	if n, err := b.ReadAt(p, 5000); n != 100 || err != nil || !bytes.Equal(p, v[5000:5100]) {
		t.Fatalf("ReadAt middle: %d, %v", n, err)
	}
	if n, err := b.ReadAt(p, 9950); n != 50 || err != io.EOF || !bytes.Equal(p[:50], v[9950:]) {
		t.Fatalf("ReadAt across the end: %d, %v", n, err)
	}
	if n, err := b.ReadAt(p, 9900); n != 100 || err != nil {
		t.Fatalf("ReadAt up to the end exactly: %d, %v", n, err)
	}
	if n, err := b.ReadAt(p, 10_000); n != 0 || err != io.EOF {
		t.Fatalf("ReadAt at the end: %d, %v", n, err)
	}
	if n, err := b.ReadAt(p, 1<<40); n != 0 || err != io.EOF {
		t.Fatalf("ReadAt past the end: %d, %v", n, err)
	}
	if _, err := b.ReadAt(p, -1); !errors.Is(err, sqlbatch.ErrOutOfRange) {
		t.Fatalf("ReadAt negative: %v", err)
	}
	// ReadAt does not move the cursor.
	if n, err := b.Read(p[:10]); err != nil || n != 10 || !bytes.Equal(p[:10], v[:10]) {
		t.Fatal("cursor moved by ReadAt", err)
	}
	for _, tc := range []struct {
		off    int64
		whence int
		want   int64
	}{{0, io.SeekCurrent, 10}, {-10, io.SeekEnd, 9990}, {3, io.SeekStart, 3}, {7, io.SeekCurrent, 10}, {5, io.SeekEnd, 10_005}} {
		pos, err := b.Seek(tc.off, tc.whence)
		if err != nil || pos != tc.want {
			t.Fatalf("Seek(%d, %d): %d, %v; want %d", tc.off, tc.whence, pos, err, tc.want)
		}
	}
	if n, err := b.Read(p); n != 0 || err != io.EOF {
		t.Fatalf("Read past the end: %d, %v", n, err)
	}
	if _, err := b.Seek(-1, io.SeekStart); !errors.Is(err, sqlbatch.ErrOutOfRange) {
		t.Fatalf("Seek before the start: %v", err)
	}
	if _, err := b.Seek(0, 7); !errors.Is(err, sqlbatch.ErrInvalidArgument) {
		t.Fatalf("Seek with a bad whence: %v", err)
	}
	if _, err := b.Seek(-20, io.SeekEnd); err != nil {
		t.Fatal(err)
	}
	if n, err := b.Read(p); n != 20 || err != nil || !bytes.Equal(p[:20], v[9980:]) {
		t.Fatalf("Read of the last 20 bytes: %d, %v", n, err)
	}
	// Writing through a read-only handle fails.
	if _, err := b.WriteAt([]byte("x"), 0); !errors.Is(err, sqlbatch.ErrReadOnly) {
		t.Fatalf("WriteAt on a read-only handle: %v", err)
	}
}

func TestBlobWrite(t *testing.T) {
	v := randomBytes(70_000, 3)
	c := blobTable(t, make([]byte, len(v)))
	b, err := c.OpenBlob("main", "b", "data", 1, true)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// Write in pieces through io.Copy (Write moves the cursor), then check through SQL.
	if n, err := io.Copy(b, iotest.OneByteReader(bytes.NewReader(v[:100]))); n != 100 || err != nil {
		t.Fatal(n, err)
	}
	if n, err := io.Copy(b, bytes.NewReader(v[100:])); n != int64(len(v)-100) || err != nil {
		t.Fatal(n, err)
	}
	if got := column(t, c, 1); !bytes.Equal(got, v) {
		t.Fatal("the value after Write differs")
	}
	// WriteAt the whole value at once, and a range.
	w := randomBytes(len(v), 4)
	if n, err := b.WriteAt(w, 0); n != len(w) || err != nil {
		t.Fatal(n, err)
	}
	if n, err := b.WriteAt([]byte("tail"), int64(len(w)-4)); n != 4 || err != nil {
		t.Fatal(n, err)
	}
	copy(w[len(w)-4:], "tail")
	if got := column(t, c, 1); !bytes.Equal(got, w) {
		t.Fatal("the value after WriteAt differs")
	}
	// Writes cannot grow the value: nothing is written and the error says so.
	if n, err := b.WriteAt([]byte("toolong"), int64(len(w)-4)); n != 0 || !errors.Is(err, sqlbatch.ErrOutOfRange) {
		t.Fatalf("WriteAt across the end: %d, %v", n, err)
	}
	if _, err := b.WriteAt([]byte("x"), -1); !errors.Is(err, sqlbatch.ErrOutOfRange) {
		t.Fatalf("WriteAt negative: %v", err)
	}
	if _, err := b.Seek(0, io.SeekEnd); err != nil {
		t.Fatal(err)
	}
	if n, err := b.Write([]byte("x")); n != 0 || !errors.Is(err, sqlbatch.ErrOutOfRange) {
		t.Fatalf("Write at the end: %d, %v", n, err)
	}
	if n, err := b.Write(nil); n != 0 || err != nil {
		t.Fatalf("empty Write at the end: %d, %v", n, err)
	}
	if got := column(t, c, 1); !bytes.Equal(got, w) {
		t.Fatal("a refused write changed the value")
	}
}

func TestBlobRowChangedThenReopen(t *testing.T) {
	c := blobTable(t, []byte("first value"))
	mustExec(t, c, "INSERT INTO b(id, data) VALUES (2, 'second, longer value')")
	b, err := c.OpenBlob("main", "b", "data", 1, true)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	mustExec(t, c, "UPDATE b SET data = 'changed!' WHERE id = 1")
	p := make([]byte, 5)
	if _, err := b.WriteAt(p, 0); !errors.Is(err, sqlbatch.ErrAbort) {
		t.Fatalf("WriteAt after the row changed: %v", err)
	}
	if err := b.Reopen(1); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "UPDATE b SET data = 'changed!' WHERE id = 1")
	if _, err := b.ReadAt(p, 0); !errors.Is(err, sqlbatch.ErrAbort) {
		t.Fatalf("ReadAt after the row changed: %v", err)
	}
	// Once SQLite has aborted the handle its value has 0 bytes: a write then reports the
	// range (the C library checks it first) or the abort.
	if _, err := b.WriteAt(p, 0); !errors.Is(err, sqlbatch.ErrAbort) && !errors.Is(err, sqlbatch.ErrOutOfRange) {
		t.Fatalf("WriteAt after the abort: %v", err)
	}
	if err := b.Reopen(1); err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(b); err != nil || string(got) != "changed!" || b.Size() != 8 {
		t.Fatalf("after Reopen: %q (size %d) (error %v)", got, b.Size(), err)
	}
	if err := b.Reopen(2); err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(b); err != nil || string(got) != "second, longer value" {
		t.Fatalf("Reopen(2): %q (error %v)", got, err)
	}
	// A row that does not exist, then one whose value is not TEXT or BLOB: the handle is
	// dead until a Reopen succeeds.
	if err := b.Reopen(99); !errors.Is(err, sqlbatch.ErrError) {
		t.Fatalf("Reopen(99): %v", err)
	}
	if _, err := b.Read(p); !errors.Is(err, sqlbatch.ErrAbort) && err != io.EOF {
		t.Fatalf("Read after a failed Reopen: %v", err)
	}
	if _, err := b.WriteAt(p, 0); !errors.Is(err, sqlbatch.ErrAbort) && !errors.Is(err, sqlbatch.ErrOutOfRange) {
		t.Fatalf("WriteAt after a failed Reopen: %v", err)
	}
	mustExec(t, c, "INSERT INTO b(id, data) VALUES (3, 12345)")
	if err := b.Reopen(3); !errors.Is(err, sqlbatch.ErrError) {
		t.Fatalf("Reopen on an integer: %v", err)
	}
	if err := b.Reopen(1); err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(b); err != nil || string(got) != "changed!" {
		t.Fatalf("after reviving: %q (error %v)", got, err)
	}
	// Deleting the row kills it too.
	mustExec(t, c, "DELETE FROM b WHERE id = 1")
	if _, err := b.ReadAt(p, 0); !errors.Is(err, sqlbatch.ErrAbort) {
		t.Fatalf("ReadAt after the row was deleted: %v", err)
	}
}

func TestBlobOpenErrors(t *testing.T) {
	c := blobTable(t, []byte("x"))
	mustExec(t, c, "CREATE INDEX b_txt ON b(txt)")
	for _, tc := range []struct {
		schema, table, column string
		rowid                 int64
		write                 bool
		want                  sqlbatch.ErrorCode
	}{
		{"", "nosuch", "data", 1, false, sqlbatch.ErrError},
		{"", "b", "nosuch", 1, false, sqlbatch.ErrError},
		{"", "b", "data", 42, false, sqlbatch.ErrError},
		{"", "b", "n", 1, false, sqlbatch.ErrError},  // an INTEGER
		{"", "b", "txt", 1, true, sqlbatch.ErrError}, // indexed, for writing
		{"nosuch", "b", "data", 1, false, sqlbatch.ErrError},
		{"", "", "data", 1, false, sqlbatch.ErrError},
		{"", "b", "", 1, false, sqlbatch.ErrError},
		{"", "b\x00", "data", 1, false, sqlbatch.ErrInvalidArgument},
		{"", "b", "data\xff", 1, false, sqlbatch.ErrInvalidUTF8},
	} {
		b, err := c.OpenBlob(tc.schema, tc.table, tc.column, tc.rowid, tc.write)
		if err == nil {
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
			t.Errorf("OpenBlob(%q, %q, %q, %d, %v) succeeded", tc.schema, tc.table, tc.column, tc.rowid, tc.write)
			continue
		}
		if !errors.Is(err, tc.want) {
			t.Errorf("OpenBlob(%q, %q, %q, %d, %v): %v, want %v", tc.schema, tc.table, tc.column, tc.rowid, tc.write, err, tc.want)
		}
	}
	// TEXT can be read; an indexed column can be read.
	b, err := c.OpenBlob("", "b", "txt", 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(b); err != nil || string(got) != "hello" {
		t.Fatalf("TEXT value: %q (error %v)", got, err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestBlobReadMany(t *testing.T) {
	c := memory(t)
	mustExec(t, c, "CREATE TABLE b(id INTEGER PRIMARY KEY, data BLOB)")
	var p sqlbatch.Params
	want := make(map[int64][]byte)
	for i := int64(1); i <= 1000; i++ {
		v := randomBytes(int(i%97)+1, uint64(i))
		want[i] = v
		p.Int64(i).Blob(v)
	}
	if _, err := c.ExecMany("INSERT INTO b VALUES (?, ?)", &p); err != nil {
		t.Fatal(err)
	}
	b, err := c.OpenBlob("", "b", "data", 1, false)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// Every value, in a shuffled order, whole; then ranges inside values.
	ranges := make([]sqlbatch.BlobRange, 0, 1000)
	for _, i := range rand.New(rand.NewPCG(5, 5)).Perm(1000) {
		ranges = append(ranges, sqlbatch.BlobRange{RowID: int64(i + 1), Len: sqlbatch.BlobToEnd})
	}
	buf := make([]byte, 100*1000)
	done, err := b.ReadMany(ranges, buf)
	if err != nil || done != len(ranges) {
		t.Fatalf("ReadMany: %d, %v", done, err)
	}
	for _, r := range ranges {
		if got := buf[r.At : r.At+r.Len]; !bytes.Equal(got, want[r.RowID]) {
			t.Fatalf("row %d: %d bytes at %d differ", r.RowID, r.Len, r.At)
		}
	}
	// The handle stays on the last row read, its cursor at 0.
	last := ranges[len(ranges)-1].RowID
	if got, err := io.ReadAll(b); err != nil || !bytes.Equal(got, want[last]) {
		t.Fatal("the handle is not on the last row read", err)
	}
	sub := []sqlbatch.BlobRange{{RowID: 500, Offset: 3, Len: 10}, {RowID: 7, Offset: 0, Len: 1}, {RowID: 500, Offset: 13, Len: sqlbatch.BlobToEnd}}
	done, err = b.ReadMany(sub, buf)
	if err != nil || done != 3 {
		t.Fatal(done, err)
	}
	if !bytes.Equal(buf[sub[0].At:sub[0].At+10], want[500][3:13]) || buf[sub[1].At] != want[7][0] ||
		!bytes.Equal(buf[sub[2].At:sub[2].At+sub[2].Len], want[500][13:]) {
		t.Fatal("sub-ranges differ")
	}

	// A buffer too small: the ranges before are complete, the one that did not fit says
	// what it needs, and the read goes on from it.
	ranges = ranges[:0]
	for i := int64(1); i <= 100; i++ {
		ranges = append(ranges, sqlbatch.BlobRange{RowID: i, Len: sqlbatch.BlobToEnd})
	}
	small := make([]byte, 500)
	var got [][]byte
	rest := ranges
	for len(rest) > 0 {
		done, err := b.ReadMany(rest, small)
		for _, r := range rest[:done] {
			got = append(got, bytes.Clone(small[r.At:r.At+r.Len]))
		}
		if err == nil {
			break
		}
		if !errors.Is(err, sqlbatch.ErrBufferTooSmall) || done == 0 {
			t.Fatalf("ReadMany into a small buffer: %d, %v", done, err)
		}
		if need := rest[done].Len; need != int64(len(want[rest[done].RowID])) {
			t.Fatalf("needed %d bytes for row %d, want %d", need, rest[done].RowID, len(want[rest[done].RowID]))
		}
		rest = rest[done:]
		rest[0].Len = sqlbatch.BlobToEnd
	}
	if len(got) != 100 {
		t.Fatalf("%d values read", len(got))
	}
	for i, v := range got {
		if !bytes.Equal(v, want[int64(i+1)]) {
			t.Fatalf("row %d differs", i+1)
		}
	}

	// Errors name the range that failed.
	bad := []sqlbatch.BlobRange{{RowID: 1, Len: 1}, {RowID: 2, Len: 1}, {RowID: 5000, Len: 1}, {RowID: 3, Len: 1}}
	if done, err := b.ReadMany(bad, buf); done != 2 || !errors.Is(err, sqlbatch.ErrError) {
		t.Fatalf("ReadMany with a missing row: %d, %v", done, err)
	}
	bad = []sqlbatch.BlobRange{{RowID: 1, Len: 1}, {RowID: 2, Offset: 1000, Len: 1}}
	if done, err := b.ReadMany(bad, buf); done != 1 || !errors.Is(err, sqlbatch.ErrOutOfRange) {
		t.Fatalf("ReadMany with a range outside the value: %d, %v", done, err)
	}
	if done, err := b.ReadMany(nil, nil); done != 0 || err != nil {
		t.Fatalf("ReadMany of nothing: %d, %v", done, err)
	}
	// After a failure the handle still works.
	if err := b.Reopen(9); err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(b); err != nil || !bytes.Equal(got, want[9]) {
		t.Fatal("row 9 after the failures", err)
	}
}

func TestBlobAfterConnClose(t *testing.T) {
	c, err := sqlbatch.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "CREATE TABLE b(id INTEGER PRIMARY KEY, data BLOB); INSERT INTO b VALUES (1, x'0102030405')")
	r, err := c.OpenBlob("", "b", "data", 1, false)
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.OpenBlob("", "b", "data", 1, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	p := make([]byte, 2)
	if _, err := r.ReadAt(p, 0); !errors.Is(err, sqlbatch.ErrClosed) {
		t.Fatalf("ReadAt after Close: %v", err)
	}
	if _, err := r.Read(p); !errors.Is(err, sqlbatch.ErrClosed) {
		t.Fatalf("Read after Close: %v", err)
	}
	if _, err := w.WriteAt(p, 0); !errors.Is(err, sqlbatch.ErrClosed) {
		t.Fatalf("WriteAt after Close: %v", err)
	}
	if err := w.Reopen(1); !errors.Is(err, sqlbatch.ErrClosed) {
		t.Fatalf("Reopen after Close: %v", err)
	}
	if _, err := w.ReadMany([]sqlbatch.BlobRange{{RowID: 1, Len: 1}}, p); !errors.Is(err, sqlbatch.ErrClosed) {
		t.Fatalf("ReadMany after Close: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// A closed handle says so.
	if _, err := r.Read(p); !errors.Is(err, sqlbatch.ErrClosed) {
		t.Fatalf("Read on a closed handle: %v", err)
	}
	if _, err := (&sqlbatch.BlobHandle{}).Read(p); !errors.Is(err, sqlbatch.ErrClosed) {
		t.Fatalf("Read on a zero handle: %v", err)
	}
}

func TestBlobAndBackupDestination(t *testing.T) {
	src := memory(t)
	dest := blobTable(t, []byte("abc"))
	fillPages(t, src, 100)
	// An open blob handle holds a read transaction: SQLite refuses the backup.
	h, err := dest.OpenBlob("", "b", "data", 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dest.Backup("main", src, "main"); !errors.Is(err, sqlbatch.ErrError) {
		t.Fatalf("backup into a connection with an open blob: %v", err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	// During a backup, the destination opens no blob.
	bk, err := dest.Backup("main", src, "main")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dest.OpenBlob("", "b", "data", 1, false); !errors.Is(err, sqlbatch.ErrBusy) {
		t.Fatalf("OpenBlob in a backup's destination: %v", err)
	}
	if err := bk.Finish(); err != nil {
		t.Fatal(err)
	}
}
