package player

import (
	"iter"
	"sort"
	"sync"

	"github.com/agentleague/league/leaguesdk"
)

// opponentIndex lists where each opponent's records are in a history, so
// that History.Against reads one opponent's records, not the whole
// history: a strategy that asks for its opponent's record before every
// choice would otherwise read a history as long as the player's whole
// career each time. The index only grows, as the history does; a snapshot
// reads the positions below its own length.
type opponentIndex struct {
	mu sync.Mutex
	at map[string][]int32
	// choices[i] counts the opponents' even and odd choices in the first
	// i+1 records, for History.OpponentChoices of a whole history.
	choices [][2]int32
}

// newOpponentIndex returns the index of matches.
func newOpponentIndex(matches []MatchRecord) *opponentIndex {
	x := &opponentIndex{}
	for i, m := range matches {
		x.add(&m, i)
	}
	return x
}

// add indexes m, the record at position i (the next one).
func (x *opponentIndex) add(m *MatchRecord, i int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.at == nil {
		x.at = map[string][]int32{}
	}
	x.at[m.OpponentID] = append(x.at[m.OpponentID], int32(i))
	var c [2]int32
	if len(x.choices) > 0 {
		c = x.choices[len(x.choices)-1]
	}
	switch m.OpponentChoice {
	case leaguesdk.Even:
		c[0]++
	case leaguesdk.Odd:
		c[1]++
	}
	x.choices = append(x.choices, c)
}

// opponentChoices counts the opponents' choices in the first n records.
func (x *opponentIndex) opponentChoices(n int) (even, odd int) {
	if n == 0 {
		return 0, 0
	}
	x.mu.Lock()
	c := x.choices[n-1]
	x.mu.Unlock()
	return int(c[0]), int(c[1])
}

// positions returns where the records against opponentID are among the
// first n. The slice is shared: positions are only ever appended past it.
func (x *opponentIndex) positions(opponentID string, n int) []int32 {
	x.mu.Lock()
	at := x.at[opponentID]
	x.mu.Unlock()
	k := sort.Search(len(at), func(i int) bool { return int(at[i]) >= n })
	return at[:k:k]
}

// records yields the history's records, oldest first.
func (h History) records() iter.Seq[*MatchRecord] {
	return func(yield func(*MatchRecord) bool) {
		if !h.narrowed {
			for i := range h.matches {
				if !yield(&h.matches[i]) {
					return
				}
			}
			return
		}
		for _, i := range h.at {
			if !yield(&h.matches[i]) {
				return
			}
		}
	}
}
