package manager

import "github.com/agentleague/league/rules"

// Pairing is one scheduled match of a round-robin: an alias of
// [rules.Pairing].
type Pairing = rules.Pairing

// RoundRobin returns the rounds of a single round-robin over players, in
// order: every pair meets exactly once and nobody plays twice in a round
// ([rules.RoundRobin]).
func RoundRobin(players []string) [][]Pairing { return rules.RoundRobin(players) }
