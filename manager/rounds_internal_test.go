package manager

import (
	"bytes"
	"encoding/json"
	"testing"

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
