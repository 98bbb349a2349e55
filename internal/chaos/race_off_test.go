//go:build !race

package chaos_test

// raceEnabled: the test runs without the race detector.
const raceEnabled = false
