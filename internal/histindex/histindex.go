// Package histindex indexes a player's history by opponent, so that a
// strategy that asks for its opponent's record before every choice reads
// that opponent's records only, not a history as long as the player's
// whole career.
package histindex

import (
	"sort"
	"sync"

	"github.com/agentleague/league/leaguesdk"
)

// Index lists where each opponent's records are in a player's history, so
// that its Against reads one opponent's records, not the whole
// history: a strategy that asks for its opponent's record before every
// choice would otherwise read a history as long as the player's whole
// career each time. The index only grows, as the history does; a snapshot
// reads the positions below its own length.
type Index struct {
	mu sync.Mutex
	at map[string]*opponentRecords
	// choices holds, for each record, the opponents' even and odd choices
	// up to it, for the counts of a whole history.
	choices [][2]int32
}

// opponentRecords is where one opponent's records are, and the running
// count of its choices in them.
type opponentRecords struct {
	at      []int32
	choices [][2]int32
}

// Add indexes the record at position i (the next one): a match against
// opponent, who chose choice ("even", "odd", or "" for none).
func (x *Index) Add(opponent, choice string, i int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.at == nil {
		x.at = map[string]*opponentRecords{}
	}
	o := x.at[opponent]
	if o == nil {
		o = &opponentRecords{}
		x.at[opponent] = o
	}
	o.at = append(o.at, int32(i))
	o.choices = appendCount(o.choices, choice)
	x.choices = appendCount(x.choices, choice)
}

// appendCount appends to running counts of choices the count after c.
func appendCount(counts [][2]int32, c string) [][2]int32 {
	var n [2]int32
	if len(counts) > 0 {
		n = counts[len(counts)-1]
	}
	switch c {
	case string(leaguesdk.Even):
		n[0]++
	case string(leaguesdk.Odd):
		n[1]++
	}
	return append(counts, n)
}

// Choices counts the opponents' choices in the first n records.
func (x *Index) Choices(n int) (even, odd int) {
	if n == 0 {
		return 0, 0
	}
	x.mu.Lock()
	c := x.choices[n-1]
	x.mu.Unlock()
	return int(c[0]), int(c[1])
}

// Against returns where the records against opponent are among the first
// n, and the count of the opponent's even and odd choices in them. The
// positions are shared: they are only ever appended past.
func (x *Index) Against(opponent string, n int) (at []int32, counts [2]int32) {
	x.mu.Lock()
	o := x.at[opponent]
	var choices [][2]int32
	if o != nil {
		at, choices = o.at, o.choices
	}
	x.mu.Unlock()
	k := sort.Search(len(at), func(i int) bool { return int(at[i]) >= n })
	if k > 0 {
		counts = choices[k-1]
	}
	return at[:k:k], counts
}
