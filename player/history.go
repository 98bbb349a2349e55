package player

import (
	"iter"
	"slices"
	"unique"

	"github.com/agentleague/league/player/internal/histindex"
	"github.com/agentleague/league/player/internal/playerstore"
)

// Result is the outcome of a match from this player's point of view.
type Result string

// The outcomes a player records.
const (
	Win  Result = "WIN"
	Loss Result = "LOSS"
	Draw Result = "DRAW"
	// TechnicalLoss is a loss by failing to answer in time, declining,
	// or any other fault the referee charged to this player (also when both
	// players failed).
	TechnicalLoss Result = "TECHNICAL_LOSS"
)

// Points returns the league points of the result: 3 for a win, 1 for a
// draw, 0 otherwise.
func (r Result) Points() int {
	switch r {
	case Win:
		return 3
	case Draw:
		return 1
	}
	return 0
}

// MatchRecord is one finished match in a player's history, as stored in
// data/players/<league_id>/<player_id>/history.json.
type MatchRecord struct {
	MatchID    string `json:"match_id"`
	LeagueID   string `json:"league_id,omitempty"`
	RoundID    int    `json:"round_id,omitempty"`
	GameType   string `json:"game_type,omitempty"`
	OpponentID string `json:"opponent_id"`
	Role       Role   `json:"role_in_match,omitempty"`
	Result     Result `json:"result"`
	// MyChoice and OpponentChoice are the choices the referee reported
	// (MyChoice falls back to what this player answered); empty when a
	// player made none.
	MyChoice       Parity `json:"my_choice,omitempty"`
	OpponentChoice Parity `json:"opponent_choice,omitempty"`
	// DrawnNumber and NumberParity are zero when no number was drawn.
	DrawnNumber  int    `json:"drawn_number,omitempty"`
	NumberParity Parity `json:"number_parity,omitempty"`
	Reason       string `json:"reason,omitempty"`
	// FinishedAt is when this player learned the result (UTC, RFC 3339).
	FinishedAt string `json:"finished_at,omitempty"`
	// Attempt is the GAME_OVER's attempt number (docs/protocol.md);
	// zero when it carried none, which counts as 1.
	Attempt int `json:"attempt,omitempty"`
	// Filled marks a result the player took from the manager's schedule
	// rather than from a GAME_OVER: one it missed (it was down or cut off
	// then), or one the league kept otherwise than the player had (a match
	// played twice; the record then carries the next attempt number). Such
	// a record has no choices.
	Filled bool `json:"filled,omitempty"`
}

// Stats sums up a history. Losses include technical losses, which are also
// counted on their own.
type Stats struct {
	TotalMatches    int `json:"total_matches"`
	Wins            int `json:"wins"`
	Losses          int `json:"losses"`
	Draws           int `json:"draws"`
	TechnicalLosses int `json:"technical_losses"`
	Points          int `json:"points"`
}

// History is a read-only snapshot of a player's finished matches, oldest
// first. The zero value is an empty history. Values are cheap to copy and
// safe to share between goroutines.
type History struct {
	matches []MatchRecord
	// at, in a History narrowed by Against, lists where its records are
	// in matches; narrowed tells an empty list from none.
	at       []int32
	narrowed bool
	// counts, when counted, are the opponents' even and odd choices in
	// the records.
	counts  [2]int32
	counted bool
	// index, in a snapshot of an Agent's history, finds the records of
	// each opponent without reading the others.
	index *histindex.Index
}

// NewHistory returns a history of the given records, for instance to test
// a strategy without an [Agent].
func NewHistory(records ...MatchRecord) History {
	return History{matches: slices.Clone(records)}
}

// Matches returns a copy of the records, oldest first.
func (h History) Matches() []MatchRecord {
	if !h.narrowed {
		return slices.Clone(h.matches)
	}
	out := make([]MatchRecord, 0, len(h.at))
	for m := range h.records() {
		out = append(out, *m)
	}
	return out
}

// Len returns the number of records.
func (h History) Len() int {
	if h.narrowed {
		return len(h.at)
	}
	return len(h.matches)
}

// Stats sums up the records.
func (h History) Stats() Stats {
	var s Stats
	for m := range h.records() {
		s.add(m)
	}
	return s
}

// add counts m in s.
func (s *Stats) add(m *MatchRecord) {
	s.TotalMatches++
	switch m.Result {
	case Win:
		s.Wins++
	case Draw:
		s.Draws++
	case Loss:
		s.Losses++
	case TechnicalLoss:
		s.Losses++
		s.TechnicalLosses++
	}
	s.Points += m.Result.Points()
}

// statsUpTo sums up the records of rounds up to round, and those of no
// known round (RoundID 0).
func (h History) statsUpTo(round int) Stats {
	var s Stats
	for m := range h.records() {
		if m.RoundID <= round {
			s.add(m)
		}
	}
	return s
}

// Against returns the matches played against opponentID.
func (h History) Against(opponentID string) History {
	if !h.narrowed && h.index != nil {
		at, counts := h.index.Against(opponentID, len(h.matches))
		return History{matches: h.matches, narrowed: true, at: at, counts: counts, counted: true}
	}
	out := History{matches: h.matches, narrowed: true}
	for i := range h.Len() {
		k := i
		if h.narrowed {
			k = int(h.at[i])
		}
		if h.matches[k].OpponentID == opponentID {
			out.at = append(out.at, int32(k))
		}
	}
	return out
}

// OpponentChoices counts the parities the opponents of these matches chose.
// Matches where the opponent made no choice are not counted.
func (h History) OpponentChoices() (even, odd int) {
	switch {
	case h.counted:
		return int(h.counts[0]), int(h.counts[1])
	case !h.narrowed && h.index != nil:
		return h.index.Choices(len(h.matches))
	}
	for m := range h.records() {
		switch m.OpponentChoice {
		case Even:
			even++
		case Odd:
			odd++
		}
	}
	return even, odd
}

// OpponentMostly returns the parity the opponents of these matches chose
// more often, or "" when there is no choice on record or it is a tie.
func (h History) OpponentMostly() Parity {
	even, odd := h.OpponentChoices()
	switch {
	case even > odd:
		return Even
	case odd > even:
		return Odd
	}
	return ""
}

// intern replaces the strings of m that many records hold alike (league,
// opponent, outcome, choices, reason) by one shared copy of each: a player keeps
// its whole history in memory, and in a league of n players the n(n-1)
// records would otherwise hold their own copies, which the garbage
// collector visits one by one.
func (m *MatchRecord) intern() {
	for _, p := range []*string{&m.LeagueID, &m.GameType, &m.OpponentID, (*string)(&m.Role),
		(*string)(&m.Result), (*string)(&m.MyChoice), (*string)(&m.OpponentChoice), (*string)(&m.NumberParity), &m.Reason} {
		if *p != "" {
			*p = unique.Make(*p).Value()
		}
	}
}

// recordKind tells package playerstore what it needs of a MatchRecord.
func recordKind() playerstore.Kind[MatchRecord] {
	return playerstore.Kind[MatchRecord]{
		Key:     func(m *MatchRecord) (string, string) { return m.LeagueID, m.MatchID },
		Attempt: func(m *MatchRecord) int { return m.Attempt },
		Stats:   func(ms []MatchRecord) any { return History{matches: ms}.Stats() },
	}
}

// memory is the Agent's history: its records, kept (and, once the player
// is registered, saved) by package playerstore, and the index of their
// opponents that History.Against reads, kept in step by the store's hooks.
type memory struct {
	records *playerstore.History[MatchRecord]
	index   *histindex.Index // under the records' lock (hooks, View)
}

func newMemory() *memory {
	h := &memory{index: &histindex.Index{}}
	h.records = playerstore.NewHistory(recordKind(), playerstore.Hooks[MatchRecord]{
		Prepare: (*MatchRecord).intern,
		Added:   func(m *MatchRecord, i int) { h.index.Add(m.OpponentID, string(m.OpponentChoice), i) },
		Replaced: func(all []MatchRecord) {
			h.index = &histindex.Index{}
			for i := range all {
				h.index.Add(all[i].OpponentID, string(all[i].OpponentChoice), i)
			}
		},
	})
	return h
}

// snapshot returns the history as it is now.
func (h *memory) snapshot() History {
	var out History
	h.records.View(func(ms []MatchRecord) { out = History{matches: ms, index: h.index} })
	return out
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
