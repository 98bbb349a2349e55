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
	referee      unique.Handle[string]
	status       unique.Handle[leaguesdk.ResultStatus]
	reason       unique.Handle[string]
	choices      [2]unique.Handle[leaguesdk.Parity] // of "" when none
	at           int64                              // RecordedAt, Unix nanoseconds
	scores       [2]int32
	drawn        int32
	winner       int8 // 0 none, 1 player A, 2 player B
	hasScore     [2]bool
	unresponsive [2]bool
	oa, ob       outcome
}

// compactRecord returns rec in the form kept in memory.
func compactRecord(rec *MatchRecord) *recorded {
	res := &rec.Result
	r := &recorded{referee: unique.Make(rec.RefereeID), status: unique.Make(resultStatus(res)), reason: unique.Make(res.Details.Reason),
		at: rec.RecordedAt.UnixNano(), drawn: int32(res.Details.DrawnNumber)}
	r.oa, r.ob = rec.outcomes()
	ids := [2]string{rec.PlayerA, rec.PlayerB}
	for i, id := range ids {
		if string(res.Winner) == id && id != "" {
			r.winner = int8(i + 1)
		}
		if v, ok := res.Score[id]; ok {
			r.scores[i], r.hasScore[i] = int32(v), true
		}
		r.choices[i] = unique.Make(res.Details.Choices[id])
	}
	for _, id := range res.Details.Unresponsive {
		for i := range ids {
			if id == ids[i] {
				r.unresponsive[i] = true
			}
		}
	}
	return r
}

// full returns the record of mt's result.
func (r *recorded) full(mt *match) MatchRecord {
	ids := [2]string{mt.PlayerA, mt.PlayerB}
	rec := MatchRecord{MatchID: mt.MatchID, RoundID: mt.RoundID, PlayerA: mt.PlayerA, PlayerB: mt.PlayerB,
		RefereeID: r.referee.Value(), RecordedAt: time.Unix(0, r.at).UTC()}
	res := &rec.Result
	res.Status, res.Details.Reason, res.Details.DrawnNumber = r.status.Value(), r.reason.Value(), int(r.drawn)
	if r.winner > 0 {
		res.Winner = leaguesdk.OptionalString(ids[r.winner-1])
	}
	res.Score = make(map[string]int, 2)
	for i, id := range ids {
		if r.hasScore[i] {
			res.Score[id] = int(r.scores[i])
		}
		if c := r.choices[i].Value(); c != "" {
			if res.Details.Choices == nil {
				res.Details.Choices = make(map[string]leaguesdk.Parity, 2)
			}
			res.Details.Choices[id] = c
		}
		if r.unresponsive[i] {
			res.Details.Unresponsive = append(res.Details.Unresponsive, id)
		}
	}
	return rec
}

// scoredMatches is the results of finished matches as scored.
func scoredMatches(ms []*match) scored {
	return func(yield func(players [2]string, o [2]outcome) bool) {
		for _, mt := range ms {
			if !yield([2]string{mt.PlayerA, mt.PlayerB}, [2]outcome{mt.record.oa, mt.record.ob}) {
				return
			}
		}
	}
}
