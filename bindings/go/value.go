package sqlbatch

import (
	"fmt"
	"math"
	"strings"
	"time"
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
