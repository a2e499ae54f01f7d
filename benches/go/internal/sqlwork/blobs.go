package sqlwork

import (
	"context"
	"database/sql"

	"github.com/sqlbatch/sqlbatch/benches/go/internal/workload"
)

// blob is blob_read and blob_many: blob.db opened as one sql.Conn, kept across the
// repetitions; each repetition's timed part is one Raw callback running the driver's Blob.
func (d Driver) blob(w, input string) (workload.Rep, func(), error) {
	if d.Blob == nil || workload.Ahead {
		return nil, nil, workload.ErrUnsupported
	}
	db, err := d.openFile(input)
	if err != nil {
		return nil, nil, err
	}
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	rep := func(t workload.Timer) (count, sum int64, err error) {
		t.Start()
		err = conn.Raw(func(dc any) error {
			count, sum, err = d.Blob(dc, w)
			return err
		})
		t.Stop()
		return count, sum, err
	}
	return rep, func() { conn.Close(); db.Close() }, nil
}

// backup is the backup workload: backup.db opened as one sql.Conn, kept; each repetition
// copies it into workload.BackupPath (timed: backupTo), then reads the check query on the
// copy through a pool of its own and removes it (untimed).
func (d Driver) backup(input string) (workload.Rep, func(), error) {
	if (d.Backup == nil && d.BackupToFile == nil) || workload.Ahead {
		return nil, nil, workload.ErrUnsupported
	}
	db, err := d.openFile(input)
	if err != nil {
		return nil, nil, err
	}
	ctx := context.Background()
	src, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	rep := func(t workload.Timer) (count, sum int64, err error) {
		workload.RemoveBackup()
		defer workload.RemoveBackup()
		t.Start()
		err = d.backupTo(ctx, src, workload.BackupPath())
		t.Stop()
		if err != nil {
			return 0, 0, err
		}
		copyDB, err := d.openFile(workload.BackupPath())
		if err != nil {
			return 0, 0, err
		}
		defer copyDB.Close()
		err = copyDB.QueryRow(workload.BackupCheck).Scan(&count, &sum)
		return count, sum, err
	}
	return rep, func() { src.Close(); db.Close(); workload.RemoveBackup() }, nil
}

// backupTo copies src's main database into a new file at path: with BackupToFile, or with
// a pool of one connection to the file (synchronous=OFF on it), nested Raw callbacks and
// Backup, then the pool closed.
func (d Driver) backupTo(ctx context.Context, src *sql.Conn, path string) error {
	if d.BackupToFile != nil {
		return src.Raw(func(sc any) error { return d.BackupToFile(sc, path) })
	}
	destDB, err := sql.Open(d.Name, d.DSN(path))
	if err != nil {
		return err
	}
	defer destDB.Close()
	dest, err := destDB.Conn(ctx)
	if err != nil {
		return err
	}
	defer dest.Close()
	if _, err := dest.ExecContext(ctx, workload.BackupSynchronous); err != nil {
		return err
	}
	err = dest.Raw(func(dc any) error {
		return src.Raw(func(sc any) error { return d.Backup(dc, sc) })
	})
	if err != nil {
		return err
	}
	if err := dest.Close(); err != nil {
		return err
	}
	return destDB.Close()
}
