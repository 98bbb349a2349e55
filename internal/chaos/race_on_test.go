//go:build race

package chaos_test

// raceEnabled: the test runs under the race detector, and so do the agents
// it builds.
const raceEnabled = true
