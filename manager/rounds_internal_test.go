package manager

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"
	"unsafe"

	"github.com/agentleague/league/leaguesdk"
)

// rounds.json is streamed a round at a time; the document is the one
// json.MarshalIndent writes for the whole file.
func TestRoundsFileStreamedAsMarshalIndentWritesIt(t *testing.T) {
	started, completed := "2026-01-01T12:00:00Z", "2026-01-01T12:00:05Z"
	rounds := []roundRecord{
		{RoundID: 1, Status: roundCompleted, StartedAt: &started, CompletedAt: &completed, MatchCount: 2,
			Matches: []roundMatch{{MatchID: "R1M1", PlayerA: "P01", PlayerB: "P02", RefereeID: "REF01", Status: leaguesdk.MatchFinished,
				Result: leaguesdk.ResultWin, Winner: "P02"}, {MatchID: "R1M2", PlayerA: "P03", PlayerB: "P04", Status: leaguesdk.MatchRunning}},
			Summary: &leaguesdk.RoundSummary{TotalMatches: 2, Wins: 1}},
		{RoundID: 2, Status: roundPending, MatchCount: 2},
		{RoundID: 3, Status: roundPending, MatchCount: 2},
	}
	for n := range len(rounds) + 1 {
		head := roundsFile{SchemaVersion: SchemaVersion, LastUpdated: completed, LeagueID: "league_x", TotalRounds: n, Rounds: []roundRecord{}}
		var got bytes.Buffer
		if err := writeRoundsFile(&got, head, n, func(i int) roundRecord { return rounds[i] }); err != nil {
			t.Fatal(err)
		}
		head.Rounds = append(head.Rounds, rounds[:n]...)
		want, err := json.MarshalIndent(head, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if want = append(want, '\n'); !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("%d rounds streamed as\n%s\nwant\n%s", n, got.Bytes(), want)
		}
	}
}

// state.json is streamed a round at a time too; the document is the one
// json.Marshal writes for the whole state, with or without rounds, and it
// reads back as that state.
func TestStateFileStreamedAsMarshalWritesIt(t *testing.T) {
	opened := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	started := opened.Add(time.Minute)
	rounds := [][]scheduledMatch{
		{{MatchID: "R1M1", RoundID: 1, PlayerA: "P01", PlayerB: "P02", RefereeID: "REF01"}, {MatchID: "R1M2", RoundID: 1, PlayerA: "P03", PlayerB: "P04"}},
		{{MatchID: "R2M1", RoundID: 2, PlayerA: "P01", PlayerB: "P03"}},
		{{MatchID: "R3M1", RoundID: 3, PlayerA: "P01", PlayerB: "P04"}},
	}
	for n := range len(rounds) + 1 {
		st := leagueState{stateHead: stateHead{SchemaVersion: SchemaVersion, LastUpdated: "2026-01-01T12:00:05Z", LeagueID: "league_x",
			GameType: "even_odd", Status: StatusRunning, OpenedAt: opened, StartedAt: &started, NextPlayer: 5, NextReferee: 2,
			Referees: []agentRecord{{ID: "REF01", DisplayName: "Ref \"one\" <&> \u2028", Endpoint: "http://127.0.0.1:1/mcp", AuthToken: "tok_a", RegisteredAt: opened}},
			Players:  []agentRecord{{ID: "P01", DisplayName: "rounds", Endpoint: "http://127.0.0.1:2/mcp", AuthToken: "tok_b", RegisteredAt: opened}}},
			stateTail: stateTail{RoundsCompleted: n / 2, RoundTimes: []roundTimes{{StartedAt: &started}},
				Champion: &leaguesdk.Champion{PlayerID: "P01", Points: 9}}}
		if n == 0 {
			st.RoundTimes, st.Champion, st.StartedAt = nil, nil, nil
		}
		var got bytes.Buffer
		if err := writeStateFile(&got, &st, n, func(i int) []scheduledMatch { return rounds[i] }); err != nil {
			t.Fatal(err)
		}
		st.Rounds = append([][]scheduledMatch{}, rounds[:n]...)
		want, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		if want = append(want, '\n'); !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("%d rounds streamed as\n%s\nwant\n%s", n, got.Bytes(), want)
		}
		var back leagueState
		if err := json.Unmarshal(got.Bytes(), &back); err != nil || !reflect.DeepEqual(back, st) {
			t.Fatalf("%d rounds: the state read back as\n%+v (%v)\nwant\n%+v", n, back, err, st)
		}
	}
}

// A match is found where its id places it; a schedule whose ids do not say
// where their matches are (made by another version, say) is found all the
// same.
func TestMatchesFoundByTheirIDs(t *testing.T) {
	for _, tc := range []struct {
		id  string
		pos [2]int
		ok  bool
	}{
		{"R1M1", [2]int{0, 0}, true}, {"R12M345", [2]int{11, 344}, true}, {"R999M500", [2]int{998, 499}, true},
		{"R0M1", [2]int{}, false}, {"R01M1", [2]int{}, false}, {"R1M", [2]int{}, false}, {"R1M1x", [2]int{}, false},
		{"M1R1", [2]int{}, false}, {"R", [2]int{}, false}, {"R1234567890M1", [2]int{}, false}, {"R1M-1", [2]int{}, false},
	} {
		if pos, ok := positionOf(tc.id); ok != tc.ok || (ok && pos != tc.pos) {
			t.Errorf("positionOf(%q) = %v, %v; want %v, %v", tc.id, pos, ok, tc.pos, tc.ok)
		}
	}

	m := &Manager{matchByID: map[string]*match{}}
	m.setSchedule([][]scheduledMatch{
		{{MatchID: "R1M1", RoundID: 1}, {MatchID: "R1M2", RoundID: 1}},
		{{MatchID: "R2M2", RoundID: 2}, {MatchID: "R2M1", RoundID: 2}, {MatchID: "final", RoundID: 2}},
	})
	for _, id := range []string{"R1M1", "R1M2", "R2M1", "R2M2", "final"} {
		if mt := m.matchLocked(id); mt == nil || mt.MatchID != id {
			t.Errorf("matchLocked(%q) = %v", id, mt)
		}
	}
	for _, id := range []string{"R1M3", "R3M1", "R2M3", "x"} {
		if mt := m.matchLocked(id); mt != nil {
			t.Errorf("matchLocked(%q) = %v, want none", id, mt.MatchID)
		}
	}
	if len(m.matchByID) != 3 || m.matchCount() != 5 {
		t.Errorf("%d matches kept by id (want the 3 out of place), %d in all (want 5)", len(m.matchByID), m.matchCount())
	}
}

// A league keeps n²/2 matches and as many results for its whole life
// (499 500 of each at 1000 players): what each takes is a budget. A match
// holds its schedule entry, status and referees; what its attempts need
// lives apart while it is played (matchRun). A result's strings are
// interned.
func TestMatchesAndResultsStayCompact(t *testing.T) {
	if s := unsafe.Sizeof(match{}); s > 136 {
		t.Errorf("a match takes %d bytes, over its budget of 136", s)
	}
	if s := unsafe.Sizeof(recorded{}); s > 80 {
		t.Errorf("a recorded result takes %d bytes, over its budget of 80", s)
	}
	rec := MatchRecord{MatchID: "R1M1", RoundID: 1, PlayerA: "P01", PlayerB: "P02", RefereeID: "REF01",
		Result: leaguesdk.MatchResult{Winner: "P02", Score: map[string]int{"P01": 0, "P02": 3}, Status: leaguesdk.ResultWin,
			Details: leaguesdk.MatchDetails{DrawnNumber: 7, Choices: map[string]leaguesdk.Parity{"P01": leaguesdk.Even, "P02": leaguesdk.Odd},
				Reason: "P02 chose odd, number was 7 (odd)"}},
		RecordedAt: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	mt := &match{scheduledMatch: scheduledMatch{MatchID: "R1M1", RoundID: 1, PlayerA: "P01", PlayerB: "P02"}}
	if got := compactRecord(&rec).full(mt); !reflect.DeepEqual(got, rec) {
		t.Errorf("the compact record reads back as\n%+v\nwant\n%+v", got, rec)
	}
}
