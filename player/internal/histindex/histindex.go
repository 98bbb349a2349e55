// Package histindex indexes a player's history by opponent, so that a
// strategy that asks for its opponent's record before every choice reads
// that opponent's records only, not a history as long as the player's
// whole career.
package histindex

import (
	"slices"
	"sync"

	"github.com/agentleague/league/leaguesdk"
)

// Index lists where each opponent's records are in a player's history, so
// that its Against reads one opponent's records, not the whole
// history: a strategy that asks for its opponent's record before every
// choice would otherwise read a history as long as the player's whole
// career each time. The index only grows, as the history does; a snapshot
// reads the positions below its own length. It holds a few words a
// record and one map entry an opponent: in a league every opponent is
// met about once, and a list per opponent would cost more than the
// records it points to.
type Index struct {
	mu sync.Mutex
	// last is the position of each opponent's latest record.
	last map[string]int32
	// prev holds, for each record, the position of the record before it
	// against the same opponent, or -1.
	prev []int32
	// against holds, for each record, its opponent's even and odd choices
	// in the records against that opponent up to it.
	against [][2]int32
	// choices holds, for each record, the opponents' even and odd choices
	// up to it, for the counts of a whole history.
	choices [][2]int32
}

// Add indexes the record at position i (the next one): a match against
// opponent, who chose choice ("even", "odd", or "" for none).
func (x *Index) Add(opponent, choice string, i int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.last == nil {
		x.last = map[string]int32{}
	}
	for len(x.prev) < i { // positions not indexed: none are skipped in practice
		x.prev = append(x.prev, -1)
		x.against = appendCount(x.against, "")
		x.choices = appendCount(x.choices, "")
	}
	before, met := x.last[opponent]
	var counts [2]int32
	if met {
		counts = x.against[before]
	} else {
		before = -1
	}
	x.prev = append(x.prev, before)
	x.against = append(x.against, count(counts, choice))
	x.choices = appendCount(x.choices, choice)
	x.last[opponent] = int32(i)
}

// appendCount appends to counts the last counts (zero when none) with
// choice counted.
func appendCount(counts [][2]int32, c string) [][2]int32 {
	var n [2]int32
	if len(counts) > 0 {
		n = counts[len(counts)-1]
	}
	return append(counts, count(n, c))
}

// count returns n with choice c counted.
func count(n [2]int32, c string) [2]int32 {
	switch c {
	case string(leaguesdk.Even):
		n[0]++
	case string(leaguesdk.Odd):
		n[1]++
	}
	return n
}

// Choices returns the opponents' even and odd choices in the first n
// records.
func (x *Index) Choices(n int) (even, odd int) {
	if n == 0 {
		return 0, 0
	}
	x.mu.Lock()
	c := x.choices[n-1]
	x.mu.Unlock()
	return int(c[0]), int(c[1])
}

// Against returns the positions, in order, of the records against
// opponent among the first n, and the opponent's even and odd choices in
// them.
func (x *Index) Against(opponent string, n int) (at []int32, counts [2]int32) {
	x.mu.Lock()
	defer x.mu.Unlock()
	p, met := x.last[opponent]
	if !met {
		return nil, counts
	}
	for p >= int32(n) { // records after the snapshot's
		if p = x.prev[p]; p < 0 {
			return nil, counts
		}
	}
	counts = x.against[p]
	for ; p >= 0; p = x.prev[p] {
		at = append(at, p)
	}
	slices.Reverse(at)
	return at, counts
}
