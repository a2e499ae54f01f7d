//go:build go1.27 && !race

package driver_test

// raceEnabled says whether the tests run under the race detector.
const raceEnabled = false
