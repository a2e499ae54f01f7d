//go:build sqlbatch_vec

package vectest

// sqlite-vec linked statically: the archive scripts/build-sqlite-vec.sh writes, which calls
// SQLite only through the API routines its entry point is given (-lm for its sqrt).

/*
#cgo LDFLAGS: ${SRCDIR}/../../../../build/ext/libsqlite_vec.a -lm

int sqlite3_vec_init(void *db, char **err, const void *api);

// An entry point that fails without a message (not static: Go takes its address).
int vectest_failing_init(void *db, char **err, const void *api) {
	(void)db;
	(void)err;
	(void)api;
	return 1; // SQLITE_ERROR
}
*/
import "C"

import "unsafe"

// Init is the entry point of the statically linked sqlite-vec.
func Init() unsafe.Pointer { return unsafe.Pointer(C.sqlite3_vec_init) }

// FailingInit is an entry point that returns SQLITE_ERROR with no message.
func FailingInit() unsafe.Pointer { return unsafe.Pointer(C.vectest_failing_init) }
