//go:build race

package driver_test

// soakRace says whether the soak test runs under the race detector, whose own memory grows
// with the run: RSS is then logged, not checked.
const soakRace = true
