package workload

import (
	"fmt"
	"strconv"
	"strings"
)

// The virtual table and table-valued parameter workloads (benches/README.md): vtab_scan sums
// a virtual table of 1,000,000 rows the program makes, tvf_join joins a table-valued
// function of 100,000 rows to app.db's items, in_list runs 20,000 queries with an IN list of
// 100 ids from the program.
const (
	VtabScan = "vtab_scan"
	TVFJoin  = "tvf_join"
	InList   = "in_list"

	DefaultVtabRows = 1000000
	TVFPairs        = 100000
	InListQueries   = 20000
	InListIDs       = 100
)

// VScanQuery is vtab_scan's query on the virtual table v.
func VScanQuery(v string) string { return "SELECT count(*), sum(a) + sum(length(c)) FROM " + v }

// VScanSchema is the schema of vtab_scan's table.
const VScanSchema = "CREATE TABLE x(a INTEGER, b REAL, c TEXT, d INTEGER)"

// TVFQuery is tvf_join's query on the table-valued function f.
func TVFQuery(f string) string {
	return "SELECT count(*), sum(i.qty * p.w) FROM " + f + "(100000) AS p JOIN items AS i ON i.id = p.k"
}

// PairsSchema is the schema of tvf_join's function: its argument is the hidden column n.
const PairsSchema = "CREATE TABLE x(k INTEGER, w INTEGER, n HIDDEN)"

// PairKey and PairWeight are row j of pairs(n): (k, w).
func PairKey(j int64) int64    { return j*7919%100000 + 1 }
func PairWeight(j int64) int64 { return j % 10 }

// InListQuery is in_list's query with the list written as list ("sqlbatch_rows(?)",
// "carray(?)", or Placeholders(100)).
func InListQuery(list string) string {
	return "SELECT count(*), coalesce(sum(qty), 0) FROM items WHERE id IN " + list
}

// InListID is id j of query q's list.
func InListID(q, j int) int64 { return int64((q*InListIDs+j)*7919%100000 + 1) }

// Placeholders is "(?, ?, ..., ?)" with n placeholders.
func Placeholders(n int) string {
	return "(" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")"
}

// VRows are vtab_scan's rows, made before any clock starts: row i is (a = i, b = i * 0.5,
// c = "v" followed by i % 1000 in decimal, d = NULL when i % 7 == 0, else i % 100). a, b and
// d are computed from i where a module reads them; C holds every row's c (1000 distinct
// strings).
type VRows struct {
	N int
	C []string
}

// MakeVRows makes n rows.
func MakeVRows(n int) *VRows {
	var texts [1000]string
	for i := range texts {
		texts[i] = "v" + strconv.Itoa(i)
	}
	r := &VRows{N: n, C: make([]string, n)}
	for i := range n {
		r.C[i] = texts[i%1000]
	}
	return r
}

// VRowCount parses vtab_scan's input, the row count.
func VRowCount(input string) (int, error) {
	if input == "" {
		return DefaultVtabRows, nil
	}
	n, err := strconv.Atoi(input)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("vtab_scan: input %q is not a row count", input)
	}
	return n, nil
}

// VRowD is row i's d, and whether it is not NULL.
func VRowD(i int) (int64, bool) { return int64(i % 100), i%7 != 0 }
