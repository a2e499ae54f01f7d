package sqlbatch

import (
	"unsafe"

	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// EnableLoadExtension turns loading extensions from shared libraries with LoadExtension on
// or off for c. It is off when a connection opens. SQL's load_extension() function stays
// off either way: SQL text cannot load code, only a Go call can.
func (c *Conn) EnableLoadExtension(on bool) error {
	if rc := c.h.EnableLoadExtension(on); rc != capi.OK {
		return c.err(rc, "")
	}
	return nil
}

// LoadExtension loads the SQLite extension in the shared library at path into c and runs
// its entry point entry (sqlite3_load_extension). An empty entry is SQLite's default:
// sqlite3_extension_init, else a name derived from the file name (sqlite3_vec_init for
// vec0.so or libvec0.so). If path cannot be opened as given, SQLite also tries it with the
// platform's suffix (".so", ".dylib", ".dll") appended.
//
// Loading must first be enabled with EnableLoadExtension; until then, and when the file,
// the entry point or the extension's initialization fails, the *Error has ErrError and
// SQLite's message (e.g. "not authorized"). The library stays loaded until c closes. An
// extension runs with the privileges of the program: load only code you trust.
func (c *Conn) LoadExtension(path, entry string) error {
	if path == "" {
		// SQLite would dlopen("") (the program itself) and report a confusing message.
		return errorf(ErrInvalidArgument, "LoadExtension: empty path")
	}
	if rc := c.h.LoadExtension(path, entry); rc != capi.OK {
		return c.err(rc, "")
	}
	return nil
}

// InitExtension initializes a statically linked extension on c: init is the address of its
// C entry point, a function
//
//	int sqlite3_NAME_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi)
//
// which SQLite's loadable extensions define, taken in a cgo file of yours:
//
//	// #cgo LDFLAGS: /path/to/libsqlite_vec.a -lm
//	// int sqlite3_vec_init(void *db, char **err, const void *api);
//	import "C"
//
//	err := conn.InitExtension(unsafe.Pointer(C.sqlite3_vec_init))
//
// The extension must be compiled in the loadable style, without SQLITE_CORE, so that it calls
// SQLite through pApi (SQLITE_EXTENSION_INIT1 and SQLITE_EXTENSION_INIT2): libsqlbatch.a keeps
// its SQLite's symbols to itself, and an extension that calls sqlite3_* by name would link
// against some other SQLite, or not at all. Loading need not be enabled: the code is already
// in the program. A nil init gives ErrNullParameter; an entry point that fails gives the code
// and message it returned.
func (c *Conn) InitExtension(init unsafe.Pointer) error {
	if rc := c.h.InitExtension(init); rc != capi.OK {
		return c.err(rc, "")
	}
	return nil
}

// AutoExtension makes every connection opened after this call, by this package or the
// database/sql driver, anywhere in the program, initialize the statically linked extension
// whose C entry point is init, as InitExtension would (sqlite3_auto_extension). Registering
// the same entry point again is a no-op; CancelAutoExtension undoes it. Connections already
// open are not affected. If init fails on a new connection, opening it fails with init's
// error.
//
// init must be C code that does not call into Go (not a Go function exported with
// //export): the package opens connections in a cgo call that does not allow callbacks.
func AutoExtension(init unsafe.Pointer) error {
	if rc := capi.AutoExtension(init); rc != capi.OK {
		return codeError(rc, "")
	}
	return nil
}

// CancelAutoExtension stops initializing init on new connections (connections already open
// keep the extension). It reports whether init was registered; a nil init gives
// ErrNullParameter.
func CancelAutoExtension(init unsafe.Pointer) (registered bool, err error) {
	switch rc := capi.CancelAutoExtension(init); rc {
	case capi.OK:
		return true, nil
	case capi.Done:
		return false, nil
	default:
		return false, codeError(rc, "")
	}
}
