package capi

/*
#include <stdint.h>
#include "sqlbatch.h"

// Online backup. backup_step takes the source's and the destination's locks (and so may call
// the busy handler, once a Go hook is set: hooks.go), backup_finish ends the destination's
// transaction, and backup_to_file and restore_from_file step a whole backup: they are
// neither nocallback nor noescape, and the Go memory they read (schema names, paths) escapes
// to the heap, where a callback growing the stack cannot move it. backup_init, remaining and
// pagecount take no lock and run no SQL.

#cgo noescape sqlbatch_backup_init
#cgo noescape sqlbatch_backup_remaining
#cgo noescape sqlbatch_backup_pagecount

#cgo nocallback sqlbatch_backup_init
#cgo nocallback sqlbatch_backup_remaining
#cgo nocallback sqlbatch_backup_pagecount
*/
import "C"

// Backup is a sqlbatch_backup handle. The zero Backup is a NULL handle.
type Backup struct{ p *C.sqlbatch_backup }

// IsNil reports whether b is a NULL handle.
func (b Backup) IsNil() bool { return b.p == nil }

// BackupInit is sqlbatch_backup_init (dest is c).
func (c Conn) BackupInit(destSchema string, src Conn, srcSchema string) (Backup, int32) {
	var p *C.sqlbatch_backup
	ds, dl := optstr(destSchema)
	ss, sl := optstr(srcSchema)
	rc := C.sqlbatch_backup_init(c.p, ds, dl, src.p, ss, sl, &p)
	return Backup{p}, int32(rc)
}

// Step is sqlbatch_backup_step.
func (b Backup) Step(pages int32) int32 {
	return int32(C.sqlbatch_backup_step(b.p, C.int32_t(pages)))
}

// Remaining is sqlbatch_backup_remaining.
func (b Backup) Remaining() (int64, int32) {
	var n C.int64_t
	rc := C.sqlbatch_backup_remaining(b.p, &n)
	return int64(n), int32(rc)
}

// PageCount is sqlbatch_backup_pagecount.
func (b Backup) PageCount() (int64, int32) {
	var n C.int64_t
	rc := C.sqlbatch_backup_pagecount(b.p, &n)
	return int64(n), int32(rc)
}

// Finish is sqlbatch_backup_finish. It must be called once per handle.
func (b Backup) Finish() int32 { return int32(C.sqlbatch_backup_finish(b.p)) }

// BackupToFile is sqlbatch_conn_backup_to_file.
func (c Conn) BackupToFile(schema, path string) int32 {
	s, sl := optstr(schema)
	p, pl := reqstr(path)
	return int32(C.sqlbatch_conn_backup_to_file(c.p, s, sl, p, pl))
}

// RestoreFromFile is sqlbatch_conn_restore_from_file.
func (c Conn) RestoreFromFile(schema, path string) int32 {
	s, sl := optstr(schema)
	p, pl := reqstr(path)
	return int32(C.sqlbatch_conn_restore_from_file(c.p, s, sl, p, pl))
}
