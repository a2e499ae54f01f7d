package sqlbatch

import (
	"strconv"

	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// ErrorCode is a status code of a failed call: one of SQLite's result codes, primary
// (ErrBusy) or extended (ErrConstraintUnique, whose low byte is the primary ErrConstraint),
// or one of sqlbatch's own codes (1000 and up, ErrParamCount...).
//
// An ErrorCode is itself an error, so it can be the target of errors.Is:
//
//	if errors.Is(err, sqlbatch.ErrConstraint) { ... }       // any constraint violation
//	if errors.Is(err, sqlbatch.ErrConstraintUnique) { ... } // only UNIQUE
type ErrorCode int32

// SQLite's primary result codes (https://sqlite.org/rescode.html).
const (
	ErrError      ErrorCode = 1  // SQLITE_ERROR: generic error, e.g. a syntax error
	ErrInternal   ErrorCode = 2  // SQLITE_INTERNAL
	ErrPerm       ErrorCode = 3  // SQLITE_PERM
	ErrAbort      ErrorCode = 4  // SQLITE_ABORT
	ErrBusy       ErrorCode = 5  // SQLITE_BUSY: the database file is locked
	ErrLocked     ErrorCode = 6  // SQLITE_LOCKED: a table is locked
	ErrNoMem      ErrorCode = 7  // SQLITE_NOMEM
	ErrReadOnly   ErrorCode = 8  // SQLITE_READONLY
	ErrInterrupt  ErrorCode = 9  // SQLITE_INTERRUPT: stopped by Conn.Interrupt
	ErrIOErr      ErrorCode = 10 // SQLITE_IOERR
	ErrCorrupt    ErrorCode = 11 // SQLITE_CORRUPT
	ErrNotFound   ErrorCode = 12 // SQLITE_NOTFOUND
	ErrFull       ErrorCode = 13 // SQLITE_FULL
	ErrCantOpen   ErrorCode = 14 // SQLITE_CANTOPEN
	ErrProtocol   ErrorCode = 15 // SQLITE_PROTOCOL
	ErrEmpty      ErrorCode = 16 // SQLITE_EMPTY
	ErrSchema     ErrorCode = 17 // SQLITE_SCHEMA
	ErrTooBig     ErrorCode = 18 // SQLITE_TOOBIG
	ErrConstraint ErrorCode = 19 // SQLITE_CONSTRAINT
	ErrMismatch   ErrorCode = 20 // SQLITE_MISMATCH
	ErrMisuse     ErrorCode = 21 // SQLITE_MISUSE
	ErrNoLFS      ErrorCode = 22 // SQLITE_NOLFS
	ErrAuth       ErrorCode = 23 // SQLITE_AUTH
	ErrFormat     ErrorCode = 24 // SQLITE_FORMAT
	ErrRange      ErrorCode = 25 // SQLITE_RANGE: bind index out of range
	ErrNotADB     ErrorCode = 26 // SQLITE_NOTADB
	ErrNotice     ErrorCode = 27 // SQLITE_NOTICE
	ErrWarning    ErrorCode = 28 // SQLITE_WARNING
)

// Extended result codes that programs commonly test for.
const (
	ErrBusyRecovery         = ErrBusy | 1<<8
	ErrBusySnapshot         = ErrBusy | 2<<8
	ErrBusyTimeout          = ErrBusy | 3<<8
	ErrLockedSharedCache    = ErrLocked | 1<<8
	ErrReadOnlyRecovery     = ErrReadOnly | 1<<8
	ErrReadOnlyCantLock     = ErrReadOnly | 2<<8
	ErrReadOnlyRollback     = ErrReadOnly | 3<<8
	ErrReadOnlyDBMoved      = ErrReadOnly | 4<<8
	ErrCantOpenIsDir        = ErrCantOpen | 2<<8
	ErrCantOpenFullPath     = ErrCantOpen | 3<<8
	ErrConstraintCheck      = ErrConstraint | 1<<8
	ErrConstraintCommitHook = ErrConstraint | 2<<8 // a commit hook vetoed the commit
	ErrConstraintForeignKey = ErrConstraint | 3<<8
	ErrConstraintFunction   = ErrConstraint | 4<<8
	ErrConstraintNotNull    = ErrConstraint | 5<<8
	ErrConstraintPrimaryKey = ErrConstraint | 6<<8
	ErrConstraintTrigger    = ErrConstraint | 7<<8
	ErrConstraintUnique     = ErrConstraint | 8<<8
	ErrConstraintRowID      = ErrConstraint | 10<<8
	ErrConstraintDataType   = ErrConstraint | 12<<8
)

// sqlbatch's own codes (SQLBATCH_E_* in sqlbatch.h).
const (
	ErrNullParameter   ErrorCode = capi.ENullParameter  // a required pointer was NULL (a bug in this package)
	ErrPanic           ErrorCode = capi.EPanic          // a Rust panic was caught (a bug in sqlbatch)
	ErrInvalidUTF8     ErrorCode = capi.EInvalidUTF8    // SQL text or a parameter name is not UTF-8
	ErrOutOfRange      ErrorCode = capi.ERange          // a size or index is out of range
	ErrParamCount      ErrorCode = capi.EParamCount     // too many or too few parameter values
	ErrStaleBatch      ErrorCode = capi.EStaleBatch     // a batch was read after its statement moved on
	ErrClosed          ErrorCode = capi.EClosed         // the connection is closed
	ErrInvalidArgument ErrorCode = capi.EInvalidArg     // an argument has a value the call does not accept
	ErrBufferTooSmall  ErrorCode = capi.EBufferTooSmall // a caller buffer cannot hold a row
	// ErrMultipleStatements: Conn.Prepare (or PrepareTail with PrepareSingle) was given SQL
	// holding more than one statement; the *Error's Offset is where the second one starts.
	ErrMultipleStatements ErrorCode = capi.EMultipleStmts
	// ErrSkipped: a bulk write queued behind one that failed did not run (write-behind in
	// ExecManyFunc, which drops these and reports the failure before them).
	ErrSkipped ErrorCode = capi.ESkipped
	// ErrUnsupported: this build of the library lacks what the call needs (the key calls in
	// a build without encryption: see CipherVersion).
	ErrUnsupported ErrorCode = capi.EUnsupported
)

// IsLibrary reports whether c is one of sqlbatch's own codes (1000 to 1023, a range no
// SQLite code falls in: their low byte is at most 28), not one of SQLite's.
func (c ErrorCode) IsLibrary() bool { return c >= 1000 && c < 1024 }

// Primary returns the primary code of c: its low byte for SQLite codes, c itself for
// sqlbatch's own codes.
func (c ErrorCode) Primary() ErrorCode {
	if c.IsLibrary() || c < 0 {
		return c
	}
	return c & 0xff
}

// String returns the C name of the code as sqlbatch_code_name gives it, e.g.
// "SQLITE_CONSTRAINT_UNIQUE" or "SQLITE_IOERR_ACCESS": every code of the bundled SQLite and
// of sqlbatch has one, with or without a Go constant. A code unknown to the library is named
// after its primary code and number ("SQLITE_IOERR(65290)") if that is known, else
// "ErrorCode(n)". It does not allocate for a known code.
func (c ErrorCode) String() string {
	if n, ok := capi.CodeName(int32(c)); ok {
		return n
	}
	if p := c.Primary(); p != c {
		if n, ok := capi.CodeName(int32(p)); ok {
			return n + "(" + strconv.Itoa(int(c)) + ")"
		}
	}
	return "ErrorCode(" + strconv.Itoa(int(c)) + ")"
}

// Error makes ErrorCode an error, so that codes can be errors.Is targets. It returns the
// code's name and sqlbatch's English description of it (sqlbatch_code_str), e.g.
// "SQLITE_BUSY: database is locked". (fmt prints an ErrorCode with Error; use String for
// the name alone.)
func (c ErrorCode) Error() string { return c.String() + ": " + capi.CodeStr(int32(c)) }
