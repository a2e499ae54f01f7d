package sbwork

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
	sqldriver "github.com/sqlbatch/sqlbatch/bindings/go/driver"
)

// The blob and backup workloads of issue 11 (benches/README.md, "Blobs and backup"), with
// the low-level package's BlobHandle and Backup; the database/sql driver reaches the same
// handle through sql.Conn.Raw (sqlBlob, sqlBackup). Neither has a fetch-ahead form
// (workload.Ahead: n/a).

// BlobManyChunk is how many ranges blob_many passes to one ReadMany, and BlobManyBuf the
// buffer they are read into: 1,024 values of at most 1,024 bytes fit.
const (
	BlobManyChunk = 1024
	BlobManyBuf   = 1 << 20
)

// blobs opens blob.db with the low-level package and returns blob_read's or blob_many's
// repetition.
func blobs(w, input string) (workload.Rep, func(), error) {
	if workload.Ahead {
		return nil, nil, workload.ErrUnsupported
	}
	if _, err := os.Stat(input); err != nil {
		return nil, nil, err
	}
	c, err := sqlbatch.Open(input)
	if err != nil {
		return nil, nil, err
	}
	rep := func(t workload.Timer) (int64, int64, error) {
		t.Start()
		defer t.Stop()
		return readBlobs(w, c.OpenBlob)
	}
	return rep, func() { c.Close() }, nil
}

// readBlobs is the timed part of blob_read and blob_many over a function that opens a
// handle (Conn.OpenBlob of the low-level package or of the driver's connection).
func readBlobs(w string, open func(schema, table, column string, rowid int64, write bool) (*sqlbatch.BlobHandle, error)) (count, sum int64, err error) {
	if w == workload.BlobRead {
		h, err := open("", workload.BlobReadTable, workload.BlobColumn, workload.BlobReadRowID, false)
		if err != nil {
			return 0, 0, err
		}
		defer h.Close()
		return readRanges(h)
	}
	h, err := open("", workload.BlobManyTable, workload.BlobColumn, workload.BlobManyKey(0), false)
	if err != nil {
		return 0, 0, err
	}
	defer h.Close()
	return readMany(h)
}

// readRanges reads the handle's value in workload.BlobRange-byte ranges with ReadAt
// (io.ReaderAt) into one buffer.
func readRanges(h *sqlbatch.BlobHandle) (count, sum int64, err error) {
	buf := make([]byte, workload.BlobRange)
	for off := int64(0); off < h.Size(); off += workload.BlobRange {
		n, err := h.ReadAt(buf, off)
		if err != nil && (err != io.EOF || n == 0) {
			return 0, 0, err
		}
		sum += workload.BlobSum(buf[:n])
		count += int64(n)
	}
	return count, sum, nil
}

// readMany reads blob_many's values with ReadMany, BlobManyChunk ranges (rowid, 0,
// BlobToEnd) a call into one buffer; a chunk that does not fit goes on from the range that
// did not (ErrBufferTooSmall).
func readMany(h *sqlbatch.BlobHandle) (count, sum int64, err error) {
	ranges := make([]sqlbatch.BlobRange, BlobManyChunk)
	buf := make([]byte, BlobManyBuf)
	for first := 0; first < workload.BlobManyN; first += BlobManyChunk {
		rs := ranges[:min(BlobManyChunk, workload.BlobManyN-first)]
		for i := range rs {
			rs[i] = sqlbatch.BlobRange{RowID: workload.BlobManyKey(first + i), Len: sqlbatch.BlobToEnd}
		}
		for len(rs) > 0 {
			done, err := h.ReadMany(rs, buf)
			for _, r := range rs[:done] {
				sum += workload.BlobSum(buf[r.At : r.At+r.Len])
			}
			rs = rs[done:]
			if err != nil && (!errors.Is(err, sqlbatch.ErrBufferTooSmall) || done == 0) {
				return 0, 0, err
			}
		}
	}
	return workload.BlobManyN, sum, nil
}

// backup opens backup.db with the low-level package and returns backup's repetition: the
// copy timed (backupTo), then checked on a connection of its own and removed, untimed.
func backup(input string) (workload.Rep, func(), error) {
	if workload.Ahead {
		return nil, nil, workload.ErrUnsupported
	}
	if _, err := os.Stat(input); err != nil {
		return nil, nil, err
	}
	src, err := sqlbatch.Open(input)
	if err != nil {
		return nil, nil, err
	}
	rep := func(t workload.Timer) (count, sum int64, err error) {
		workload.RemoveBackup()
		defer workload.RemoveBackup()
		t.Start()
		err = backupTo(src, workload.BackupPath())
		t.Stop()
		if err != nil {
			return 0, 0, err
		}
		c, err := sqlbatch.Open(workload.BackupPath())
		if err != nil {
			return 0, 0, err
		}
		defer c.Close()
		return check(c, workload.BackupCheck)
	}
	return rep, func() { src.Close(); workload.RemoveBackup() }, nil
}

// backupTo copies src's main database into a new file at path: a connection to it,
// synchronous=OFF, Conn.Backup, one Step of every page, Finish, Close.
func backupTo(src *sqlbatch.Conn, path string) error {
	dest, err := sqlbatch.Open(path)
	if err != nil {
		return err
	}
	if _, err := dest.ExecScript(workload.BackupSynchronous); err != nil {
		dest.Close()
		return err
	}
	b, err := dest.Backup("", src, "")
	if err != nil {
		dest.Close()
		return err
	}
	done, err := b.Step(-1)
	if ferr := b.Finish(); err == nil {
		err = ferr
	}
	if err == nil && !done {
		err = fmt.Errorf("backup: pages left after a step of every page")
	}
	if cerr := dest.Close(); err == nil {
		err = cerr
	}
	return err
}

// sqlBlob is the database/sql driver's blob_read and blob_many: the driver's connection,
// reached through sql.Conn.Raw, opens the handle (driver.Blob, the low-level BlobHandle).
func sqlBlob(dc any, w string) (count, sum int64, err error) {
	c, ok := dc.(*sqldriver.SQLiteConn)
	if !ok {
		return 0, 0, fmt.Errorf("sql.Conn.Raw gave %T", dc)
	}
	return readBlobs(w, c.OpenBlob)
}

// sqlBackup is the database/sql driver's backup, between the driver connections of two
// sql.Conn (mattn/go-sqlite3's shape: the destination's Backup, Step(-1), Finish).
func sqlBackup(dest, src any) error {
	d, ok1 := dest.(*sqldriver.SQLiteConn)
	s, ok2 := src.(*sqldriver.SQLiteConn)
	if !ok1 || !ok2 {
		return fmt.Errorf("sql.Conn.Raw gave %T and %T", dest, src)
	}
	b, err := d.Backup("main", s, "main")
	if err != nil {
		return err
	}
	done, err := b.Step(-1)
	if ferr := b.Finish(); err == nil {
		err = ferr
	}
	if err == nil && !done {
		err = fmt.Errorf("backup: pages left after a step of every page")
	}
	return err
}
