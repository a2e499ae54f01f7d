package sqlbatch

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/sqlbatch/sqlbatch/bindings/go/internal/capi"
)

// TimeFormats are the text layouts ParseTime accepts, tried in order: those of
// mattn/go-sqlite3's SQLiteTimestampFormats, which are also what SQLite's date and time
// functions read and write.
var TimeFormats = []string{
	"2006-01-02 15:04:05.999999999-07:00",
	"2006-01-02T15:04:05.999999999-07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04:05",
	"2006-01-02 15:04",
	"2006-01-02T15:04",
	"2006-01-02",
}

// ParseTime parses text in one of TimeFormats; a trailing "Z" means UTC, and a time without a
// zone is read as UTC.
func ParseTime(s string) (time.Time, error) {
	s = strings.TrimSuffix(strings.TrimSpace(s), "Z")
	for _, f := range TimeFormats {
		if t, err := time.ParseInLocation(f, s, time.UTC); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("sqlbatch: cannot parse %q as a time", s)
}

// UnixTime converts an INTEGER time as mattn/go-sqlite3 does: Unix seconds, or Unix
// milliseconds when its magnitude is above 1e12 (13 digits or more), in UTC.
func UnixTime(v int64) time.Time {
	if v > 1e12 || v < -1e12 {
		return time.UnixMilli(v).UTC()
	}
	return time.Unix(v, 0).UTC()
}

// julianDayTime converts a Julian day number (what SQLite's julianday() returns) to a time.
func julianDayTime(jd float64) time.Time {
	ms := math.Round((jd - 2440587.5) * 86400000)
	return time.UnixMilli(int64(ms)).UTC()
}

// UndefinedValue is the type of Undefined.
type UndefinedValue struct{}

// String returns "undefined".
func (UndefinedValue) String() string { return "undefined" }

// Undefined is the value, in the rows of a Conflict, of a column the change does not carry:
// for an UPDATE, the columns it leaves as they are (in New), and those of them that are not
// in the primary key (in Old). It is not NULL (which is nil). A preupdate hook's rows hold
// it only for a value SQLite could not produce (out of memory).
var Undefined = UndefinedValue{}

// cellValue decodes one cell of a row the library handed to a callback, whose TEXT and BLOB
// bytes are at data (C memory): int64, float64, string or []byte (copies, so the value may be
// kept), nil for NULL, Undefined for SQLBATCH_UNDEFINED. An empty BLOB is an empty, non-nil
// []byte, as Args.Value gives it.
func cellValue(c *capi.Value, data *byte) any {
	switch c.Kind {
	case capi.KindInteger:
		return int64(c.Bits)
	case capi.KindFloat:
		return math.Float64frombits(c.Bits)
	case capi.KindText:
		return string(capi.Bytes(data, c))
	case capi.KindBlob:
		if c.Len == 0 {
			return []byte{}
		}
		return cloneBytes(capi.Bytes(data, c)) // its capacity its length
	case capi.KindNull:
		return nil
	}
	return Undefined
}

// decodeRows decodes the rows of one callback into one new []any (a single allocation for
// them all), returning a slice per row, nil for a row that is not there.
func decodeRows(data *byte, rows ...*[]capi.Value) [][]any {
	n := 0
	for _, r := range rows {
		n += len(*r)
	}
	out := make([][]any, len(rows))
	if n == 0 {
		return out
	}
	vals := make([]any, n)
	for i, r := range rows {
		if *r == nil {
			continue
		}
		row := vals[:len(*r):len(*r)]
		vals = vals[len(*r):]
		for j := range *r {
			row[j] = cellValue(&(*r)[j], data)
		}
		out[i] = row
	}
	return out
}

// cloneBytes returns a copy of b in new Go memory, its capacity its length. append does not
// zero the part of the new array it copies into, as make would.
func cloneBytes(b []byte) []byte {
	c := append([]byte(nil), b...)
	return c[:len(c):len(c)]
}
