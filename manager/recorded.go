package manager

import (
	"time"
	"unique"

	"github.com/agentleague/league/leaguesdk"
)

// recorded is a match's recorded result as the manager keeps it in
// memory: what the standings, the queries and Results need, in a few words
// instead of the decoded report's maps, so that a league of half a million
// matches fits in about 40 MB. The record itself, exactly as
// reported, is in results.jsonl (LoadResults reads it). What the compact
// form leaves out: entries of the score, choices or unresponsive list that
// name someone other than the match's two players. Its strings are
// interned (unique.Handle, one word each): a league's referees, statuses
// and choices are a handful, its reasons a few thousand sentences ("P12
// chose odd, number was 3 (odd)"), repeated over n²/2 matches.
type recorded struct {
	referee unique.Handle[string]
	status  unique.Handle[leaguesdk.ResultStatus]
	reason  unique.Handle[string]
	choices [2]unique.Handle[leaguesdk.Parity] // of "" when none
	at      int64                              // RecordedAt, Unix nanoseconds
	scores  [2]int32
	drawn   int32
	flags   recordFlags
}

// recordFlags packs the rest of a recorded result in a byte: the winner
// (0 none, 1 player A, 2 player B) in its lowest two bits, then whether
// player A and player B have a score, then whether each was unresponsive.
// What the result means for each player is worked out from the winner and
// the status (outcomesOf) rather than kept.
type recordFlags uint8

const (
	winnerMask    recordFlags = 3
	hasScoreA     recordFlags = 1 << 2 // hasScoreA << 1: player B's
	unresponsiveA recordFlags = 1 << 4 // unresponsiveA << 1: player B's
)

func (f recordFlags) winner() int             { return int(f & winnerMask) }
func (f recordFlags) hasScore(i int) bool     { return f&(hasScoreA<<i) != 0 }
func (f recordFlags) unresponsive(i int) bool { return f&(unresponsiveA<<i) != 0 }

// compactRecord returns rec in the form kept in memory.
func compactRecord(rec *MatchRecord) *recorded {
	res := &rec.Result
	r := &recorded{referee: unique.Make(rec.RefereeID), status: unique.Make(resultStatus(res)), reason: unique.Make(res.Details.Reason),
		at: rec.RecordedAt.UnixNano(), drawn: int32(res.Details.DrawnNumber)}
	ids := [2]string{rec.PlayerA, rec.PlayerB}
	for i, id := range ids {
		if string(res.Winner) == id && id != "" {
			r.flags = r.flags&^winnerMask | recordFlags(i+1)
		}
		if v, ok := res.Score[id]; ok {
			r.scores[i] = int32(v)
			r.flags |= hasScoreA << i
		}
		r.choices[i] = unique.Make(res.Details.Choices[id])
	}
	for _, id := range res.Details.Unresponsive {
		for i := range ids {
			if id == ids[i] {
				r.flags |= unresponsiveA << i
			}
		}
	}
	return r
}

// outcomes returns what the result means for player A and player B.
func (r *recorded) outcomes() (a, b outcome) { return outcomesOf(r.status.Value(), r.flags.winner()) }

// full returns the record of mt's result.
func (r *recorded) full(mt *match) MatchRecord {
	ids := [2]string{mt.PlayerA, mt.PlayerB}
	rec := MatchRecord{MatchID: mt.MatchID, RoundID: mt.RoundID, PlayerA: mt.PlayerA, PlayerB: mt.PlayerB,
		RefereeID: r.referee.Value(), RecordedAt: time.Unix(0, r.at).UTC()}
	res := &rec.Result
	res.Status, res.Details.Reason, res.Details.DrawnNumber = r.status.Value(), r.reason.Value(), int(r.drawn)
	if w := r.flags.winner(); w > 0 {
		res.Winner = leaguesdk.OptionalString(ids[w-1])
	}
	res.Score = make(map[string]int, 2)
	for i, id := range ids {
		if r.flags.hasScore(i) {
			res.Score[id] = int(r.scores[i])
		}
		if c := r.choices[i].Value(); c != "" {
			if res.Details.Choices == nil {
				res.Details.Choices = make(map[string]leaguesdk.Parity, 2)
			}
			res.Details.Choices[id] = c
		}
		if r.flags.unresponsive(i) {
			res.Details.Unresponsive = append(res.Details.Unresponsive, id)
		}
	}
	return rec
}

// scoredMatches is the results of finished matches as scored.
func scoredMatches(ms []*match) scored {
	return func(yield func(players [2]string, o [2]outcome) bool) {
		for _, mt := range ms {
			oa, ob := mt.record.outcomes()
			if !yield([2]string{mt.PlayerA, mt.PlayerB}, [2]outcome{oa, ob}) {
				return
			}
		}
	}
}
