package player

import (
	"iter"
	"sort"
	"sync"
)

// opponentIndex lists where each opponent's records are in a history, so
// that History.Against reads one opponent's records, not the whole
// history: a strategy that asks for its opponent's record before every
// choice would otherwise read a history as long as the player's whole
// career each time. The index only grows, as the history does; a snapshot
// reads the positions below its own length.
type opponentIndex struct {
	mu sync.Mutex
	at map[string]*opponentRecords
	// choices holds, for each record, the opponents' even and odd choices
	// up to it, for History.OpponentChoices of a whole history.
	choices [][2]int32
}

// opponentRecords is where one opponent's records are, and the running
// count of its choices in them.
type opponentRecords struct {
	at      []int32
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
		x.at = map[string]*opponentRecords{}
	}
	o := x.at[m.OpponentID]
	if o == nil {
		o = &opponentRecords{}
		x.at[m.OpponentID] = o
	}
	o.at = append(o.at, int32(i))
	o.choices = appendCount(o.choices, m.OpponentChoice)
	x.choices = appendCount(x.choices, m.OpponentChoice)
}

// appendCount appends to running counts of choices the count after c.
func appendCount(counts [][2]int32, c Parity) [][2]int32 {
	var n [2]int32
	if len(counts) > 0 {
		n = counts[len(counts)-1]
	}
	switch c {
	case Even:
		n[0]++
	case Odd:
		n[1]++
	}
	return append(counts, n)
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

// against returns the history of the records against opponentID among
// the first n of matches, with the count of the opponent's choices in
// them. The positions are shared: they are only ever appended past.
func (x *opponentIndex) against(matches []MatchRecord, opponentID string, n int) History {
	h := History{matches: matches, narrowed: true, counted: true}
	x.mu.Lock()
	o := x.at[opponentID]
	var at []int32
	var choices [][2]int32
	if o != nil {
		at, choices = o.at, o.choices
	}
	x.mu.Unlock()
	k := sort.Search(len(at), func(i int) bool { return int(at[i]) >= n })
	h.at = at[:k:k]
	if k > 0 {
		h.counts = choices[k-1]
	}
	return h
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
