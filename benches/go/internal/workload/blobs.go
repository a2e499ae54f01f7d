package workload

import (
	"fmt"
	"os"
	"path/filepath"
)

// The blob and backup workloads of issue 11 (benches/README.md, "Blobs and backup"):
// blob_read reads blob.db's one 64 MiB BLOB in BlobRange-byte ranges through an incremental
// blob handle, blob_many reads its 100,000 small BLOBs by rowid, backup copies backup.db
// (256 MiB) into a new file with the online backup API.
const (
	// BlobReadTable, BlobManyTable and BlobColumn name blob.db's tables and their column.
	BlobReadTable = "big_blob"
	BlobManyTable = "small_blobs"
	BlobColumn    = "b"
	// BlobReadRowID is the row of blob_read's value.
	BlobReadRowID = 1
	// BlobRange is the length of blob_read's reads: 64 KiB, a multiple of 64, so that the
	// BLOB rule summed over the ranges is the rule over the whole value.
	BlobRange = 64 << 10
	// BlobManyN is the number of values blob_many reads.
	BlobManyN = 100000
	// BackupSynchronous runs on the backup's destination before the copy: no fsync of
	// 256 MiB at its commit (benches/README.md says why).
	BackupSynchronous = "PRAGMA synchronous=OFF"
	// BackupCheck is the count and checksum of backup, read on the copy (untimed): its size
	// in bytes, and count(*) + sum(n) + sum(length(b)).
	BackupCheck = "SELECT (SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()), " +
		"count(*) + sum(n) + sum(length(b)) FROM bk"
)

// IsBlob reports whether w is one of the blob and backup workloads.
func IsBlob(w string) bool { return w == BlobRead || w == BlobMany || w == Backup }

// BlobManyKey is the rowid of blob_many's value i (a permutation of 1 .. 100,000).
func BlobManyKey(i int) int64 { return int64(i*7919%100000 + 1) }

// BlobSum is the rule of every blob workload, large_values' BLOB rule (LargeBlob): the
// length plus the unsigned bytes at offsets 0, 64, 128, ...
func BlobSum(b []byte) int64 { return LargeBlob(b) }

// BackupPath is backup's copy: <tmp>/sqlbatch-bench-backup-<pid>.db, <tmp> being $TMPDIR or
// /tmp. Every repetition removes it before and after (RemoveBackup).
func BackupPath() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("sqlbatch-bench-backup-%d.db", os.Getpid()))
}

// RemoveBackup deletes the file of BackupPath and its -journal, -wal and -shm files.
func RemoveBackup() {
	p := BackupPath()
	for _, f := range []string{p, p + "-journal", p + "-wal", p + "-shm"} {
		os.Remove(f)
	}
}
