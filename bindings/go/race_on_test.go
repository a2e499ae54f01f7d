//go:build race

package sqlbatch_test

// raceEnabled says whether the tests run under the race detector (which multiplies run time
// and memory, so the long streaming tests skip themselves there).
const raceEnabled = true
