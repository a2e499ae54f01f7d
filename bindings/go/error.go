package sqlbatch

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// Error is the error of a failed call: SQLite's (or sqlbatch's) code and message, and where
// in the SQL, the script or the bulk write it happened. Every error that comes from the
// database is an *Error; get at it with errors.As:
//
//	var e *sqlbatch.Error
//	if errors.As(err, &e) && e.ExtendedCode == sqlbatch.ErrConstraintUnique { ... }
//
// Offsets are byte offsets into Query, -1 where they do not apply.
//
// Code and ExtendedCode carry SQLite's numbers under mattn/go-sqlite3's field names, so that
// error translators written for mattn's sqlite3.Error keep working: one that compares
// ExtendedCode with 2067 (SQLITE_CONSTRAINT_UNIQUE), or, like GORM's SQLite dialector, one
// that reads {"Code", "ExtendedCode"} from the error's JSON encoding. Error returns the
// message alone, as mattn's does.
type Error struct {
	// Code is the primary code (ErrConstraint for a UNIQUE violation), or sqlbatch's own code.
	Code ErrorCode
	// ExtendedCode is the extended code (ErrConstraintUnique), equal to Code where SQLite
	// has no extended code and for sqlbatch's codes.
	ExtendedCode ErrorCode
	// Msg is the message, e.g. "UNIQUE constraint failed: t.a".
	Msg string
	// Offset is the byte offset in Query of the token the error is about (e.g. the word near
	// a syntax error), counted from the start of the whole script; -1 if none.
	Offset int
	// StatementIndex is, for a script (Conn.ExecScript), the index from 0 of the statement that
	// failed; -1 otherwise.
	StatementIndex int
	// StatementOffset is, for a script, the byte offset in Query where the failing statement
	// starts; -1 otherwise.
	StatementOffset int
	// RowIndex is, for a bulk write (Stmt.ExecMany, Conn.ExecMany), the index from 0 of the
	// parameter row that failed; -1 otherwise (also for Stmt.Exec and Stmt.ExecParams, which
	// run one row).
	RowIndex int
	// Query is the SQL text the failing call was given ("" if none).
	Query string
}

// Error returns the message alone, as mattn/go-sqlite3's Error does: SQLite's
// (sqlite3_errmsg, e.g. "UNIQUE constraint failed: t.a"), or sqlbatch's for its own codes, so
// that code and tests that compare or match messages see the same text with either driver.
// The code and the position stay in the fields; Long, or formatting with %+v, gives them
// too.
func (e *Error) Error() string {
	if e.Msg == "" {
		return capi.CodeStr(int32(e.ExtendedCode))
	}
	return e.Msg
}

// Long formats the error with its code and position:
// "sqlbatch: <message> (<CODE>[, statement N at byte M][, row R][, near byte K])", e.g.
// "sqlbatch: UNIQUE constraint failed: t.a (SQLITE_CONSTRAINT_UNIQUE, statement 2 at byte 48)".
func (e *Error) Long() string {
	var b strings.Builder
	b.WriteString("sqlbatch: ")
	b.WriteString(e.Error())
	b.WriteString(" (")
	b.WriteString(e.ExtendedCode.String())
	if e.StatementIndex >= 0 {
		b.WriteString(", statement ")
		b.WriteString(strconv.Itoa(e.StatementIndex))
		b.WriteString(" at byte ")
		b.WriteString(strconv.Itoa(e.StatementOffset))
	}
	if e.RowIndex >= 0 {
		b.WriteString(", row ")
		b.WriteString(strconv.Itoa(e.RowIndex))
	}
	if e.Offset >= 0 {
		b.WriteString(", near byte ")
		b.WriteString(strconv.Itoa(e.Offset))
	}
	b.WriteString(")")
	return b.String()
}

// Format makes %+v print Long; %v and %s print Error, %q it quoted.
func (e *Error) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('+'):
		io.WriteString(f, e.Long())
	case verb == 'v' || verb == 's':
		io.WriteString(f, e.Error())
	case verb == 'q':
		fmt.Fprintf(f, "%q", e.Error())
	default:
		fmt.Fprintf(f, "%%!%c(*sqlbatch.Error=%s)", verb, e.Error())
	}
}

// Is reports whether target is the ErrorCode of e, primary or extended, so that
// errors.Is(err, sqlbatch.ErrBusy) matches ErrBusyTimeout too.
func (e *Error) Is(target error) bool {
	c, ok := target.(ErrorCode)
	return ok && (c == e.ExtendedCode || c == e.Code)
}

// SQL returns the SQL from the token the error is about to the end of Query, like SQLite's
// sqlite3_error_offset; "" if the error is not tied to a token.
func (e *Error) SQL() string {
	if e.Offset < 0 || e.Offset > len(e.Query) {
		return ""
	}
	return e.Query[e.Offset:]
}

// Statement returns the text of the failing statement of a script, from its start to the
// end of Query; "" if the error did not come from a script.
func (e *Error) Statement() string {
	if e.StatementOffset < 0 || e.StatementOffset > len(e.Query) {
		return ""
	}
	return e.Query[e.StatementOffset:]
}

// Temporary reports whether retrying may succeed: the database was busy or locked.
func (e *Error) Temporary() bool { return e.Code == ErrBusy || e.Code == ErrLocked }

// codeError makes an *Error from a status code alone.
func codeError(rc int32, query string) *Error {
	c := ErrorCode(rc)
	return &Error{
		Code: c.Primary(), ExtendedCode: c, Msg: capi.CodeStr(rc),
		Offset: -1, StatementIndex: -1, StatementOffset: -1, RowIndex: -1, Query: query,
	}
}

// errorf makes an *Error for a failure detected on the Go side.
func errorf(c ErrorCode, msg string) *Error {
	return &Error{
		Code: c.Primary(), ExtendedCode: c, Msg: msg,
		Offset: -1, StatementIndex: -1, StatementOffset: -1, RowIndex: -1,
	}
}

// lastError reads the details of the failure rc of the last call on h.
func lastError(h capi.Conn, rc int32, query string) *Error {
	if h.IsNil() {
		return codeError(rc, query)
	}
	info, lrc := h.LastError()
	if lrc != capi.OK || info.Code != rc {
		return codeError(rc, query)
	}
	c := ErrorCode(info.Code)
	msg := info.Msg // SQLite's message alone, as mattn's; the row is in RowIndex
	return &Error{
		Code:            c.Primary(),
		ExtendedCode:    c,
		Msg:             msg,
		Offset:          int(info.TokenOffset),
		StatementIndex:  int(info.StatementIndex),
		StatementOffset: int(info.StatementOffset),
		RowIndex:        int(info.RowIndex),
		Query:           query,
	}
}
