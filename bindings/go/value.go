package sqlbatch

import (
	"fmt"
	"math"
	"strconv"
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

// floatToInt64 truncates toward zero and clamps, as SQLite does.
func floatToInt64(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f <= math.MinInt64:
		return math.MinInt64
	case f >= math.MaxInt64:
		return math.MaxInt64
	}
	return int64(f)
}

// numberPrefix returns the longest prefix of b (after leading spaces) that reads as a number,
// and whether that number is an integer (no '.' and no exponent).
func numberPrefix(b []byte) (string, bool) {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	start := i
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	intDigits := digits()
	isInt := true
	if i < len(b) && b[i] == '.' {
		save := i
		i++
		if digits() == 0 && intDigits == 0 {
			i = save
		} else {
			isInt = false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') && (intDigits > 0 || !isInt) {
		save := i
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			i = save
		} else {
			isInt = false
		}
	}
	return string(b[start:i]), isInt
}

// textToInt64 converts TEXT to INTEGER roughly as SQLite does: the leading number, 0 if none.
func textToInt64(b []byte) int64 {
	s, isInt := numberPrefix(b)
	if isInt {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil {
			return v
		} else if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			if strings.HasPrefix(s, "-") {
				return math.MinInt64
			}
			return math.MaxInt64
		}
		return 0
	}
	f, _ := strconv.ParseFloat(s, 64)
	return floatToInt64(f)
}

// textToFloat64 converts TEXT to REAL roughly as SQLite does: the leading number, 0 if none.
func textToFloat64(b []byte) float64 {
	s, _ := numberPrefix(b)
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && f == 0 {
		return 0
	}
	return f
}

// formatFloat formats a REAL the way SQLite prints one: shortest round-trip digits, with
// ".0" added to integral values.
func formatFloat(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if strings.ContainsAny(s, ".eIN") {
		return s
	}
	return s + ".0"
}
