//go:build !race

package leaguesdk_test

// raceDetector is whether the tests run with the race detector, under
// which sync.Pool drops what it is given at random.
const raceDetector = false
