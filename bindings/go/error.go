package sqlbatch

import (
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
	// RowIndex is, for a bulk write (Stmt.ExecMany), the index from 0 of the parameter row
	// that failed; -1 otherwise.
	RowIndex int
	// Query is the SQL text the failing call was given ("" if none).
	Query string
}

// Error formats the error as "sqlbatch: <message> (<CODE>[, statement N at byte M][, near byte K])".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("sqlbatch: ")
	b.WriteString(e.Msg)
	b.WriteString(" (")
	b.WriteString(e.ExtendedCode.String())
	if e.StatementIndex >= 0 {
		b.WriteString(", statement ")
		b.WriteString(strconv.Itoa(e.StatementIndex))
		b.WriteString(" at byte ")
		b.WriteString(strconv.Itoa(e.StatementOffset))
	}
	if e.Offset >= 0 {
		b.WriteString(", near byte ")
		b.WriteString(strconv.Itoa(e.Offset))
	}
	b.WriteString(")")
	return b.String()
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
	return &Error{
		Code:            c.Primary(),
		ExtendedCode:    c,
		Msg:             info.Msg,
		Offset:          int(info.TokenOffset),
		StatementIndex:  int(info.StatementIndex),
		StatementOffset: int(info.StatementOffset),
		RowIndex:        int(info.RowIndex),
		Query:           query,
	}
}
