package manager

import (
	"encoding/json"
	"testing"
	"time"
	"unsafe"

	"github.com/agentleague/league/leaguesdk"
)

// The compact form of a result gives back the record it was made from:
// results of this module's referees and the shapes other implementations
// send (no status, one score only, no details).
func TestCompactRecordRoundTrips(t *testing.T) {
	at := time.Date(2026, 11, 23, 1, 2, 3, 456789000, time.UTC)
	mt := &match{scheduledMatch: scheduledMatch{MatchID: "R2M1", RoundID: 2, PlayerA: "P01", PlayerB: "P02"}}
	for name, res := range map[string]leaguesdk.MatchResult{
		"win": {Winner: "P02", Status: leaguesdk.ResultWin, Score: map[string]int{"P01": 0, "P02": 3},
			Details: leaguesdk.MatchDetails{DrawnNumber: 7, Choices: map[string]leaguesdk.Parity{"P01": leaguesdk.Even, "P02": leaguesdk.Odd}}},
		"draw": {Status: leaguesdk.ResultDraw, Score: map[string]int{"P01": 1, "P02": 1},
			Details: leaguesdk.MatchDetails{DrawnNumber: 4, Choices: map[string]leaguesdk.Parity{"P01": leaguesdk.Even, "P02": leaguesdk.Even}}},
		"technical loss": {Winner: "P01", Status: leaguesdk.ResultTechnicalLoss, Score: map[string]int{"P01": 3, "P02": 0},
			Details: leaguesdk.MatchDetails{Reason: "P02 did not answer", Unresponsive: []string{"P02"},
				Choices: map[string]leaguesdk.Parity{"P01": leaguesdk.Odd}}},
		"both failed": {Status: leaguesdk.ResultTechnicalLoss, Score: map[string]int{"P01": 0, "P02": 0},
			Details: leaguesdk.MatchDetails{Unresponsive: []string{"P01", "P02"}}},
		"one score only": {Winner: "P01", Status: leaguesdk.ResultWin, Score: map[string]int{"P01": 3}},
	} {
		rec := MatchRecord{MatchID: mt.MatchID, RoundID: 2, PlayerA: "P01", PlayerB: "P02", RefereeID: "REF01", Result: res, RecordedAt: at}
		want, _ := json.Marshal(rec)
		got, _ := json.Marshal(compactRecord(&rec).full(mt))
		if string(got) != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
		oa, ob := rec.outcomes()
		if ca, cb := compactRecord(&rec).outcomes(); ca != oa || cb != ob {
			t.Errorf("%s: outcomes %v %v, want %v %v", name, ca, cb, oa, ob)
		}
	}
}

// A league holds n²/2 matches for its whole life (499 500 at 1000
// players), each with its recorded result: the two stay within the
// allocator's size classes of 128 and 64 bytes.
func TestMatchAndRecordSizes(t *testing.T) {
	if s := unsafe.Sizeof(match{}); s > 128 {
		t.Errorf("a match takes %d bytes, more than 128", s)
	}
	if s := unsafe.Sizeof(recorded{}); s > 64 {
		t.Errorf("a recorded result takes %d bytes, more than 64", s)
	}
}
