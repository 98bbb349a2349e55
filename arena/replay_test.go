package arena_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/arena"
	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
)

// byHistoryLength chooses even after an even number of matches, odd
// after an odd one: deterministic, and it reads the history.
var byHistoryLength = player.StrategyFunc(func(_ context.Context, c player.ParityCall) (leaguesdk.Parity, error) {
	if c.History.Len()%2 == 0 {
		return leaguesdk.Even, nil
	}
	return leaguesdk.Odd, nil
})

// deterministic are the seats of the recorded league whose choices follow
// from what they saw, by entry index (P01 is entry 0).
var deterministic = map[int]arena.Entry{
	0: arena.Ready("always_even"), 1: arena.Ready("always_odd"), 2: {Name: "contrary", Strategy: contrary},
	3: {Name: "follower", Strategy: follower}, 4: {Name: "by history length", Strategy: byHistoryLength},
}

// recordLeague plays one 20-player league in League mode and returns its
// data root and report.
func recordLeague(t *testing.T) (string, *arena.Report) {
	t.Helper()
	entries := make([]arena.Entry, 20)
	for i := range entries {
		if e, ok := deterministic[i]; ok {
			entries[i] = e
			continue
		}
		switch i % 3 {
		case 0:
			entries[i] = arena.Entry{Name: fmt.Sprintf("random %d", i), NewStrategy: func(r io.Reader) (player.Strategy, error) { return player.Random(r), nil }}
		case 1:
			entries[i] = arena.Entry{Name: fmt.Sprintf("biased %d", i), NewStrategy: biased(0.8)}
		default:
			entries[i] = arena.Entry{Name: fmt.Sprintf("history %d", i), NewStrategy: arena.Ready("history").NewStrategy}
		}
	}
	root := t.TempDir()
	r := run(t, arena.Config{Rounds: 1, League: true, MoveTimeout: 5 * time.Second, DataRoot: root, Entries: entries})
	if r.Matches != 190 {
		t.Fatalf("a league of 20 played %d matches, want 190", r.Matches)
	}
	return filepath.Join(root, "league_1"), r
}

func seatID(i int) string { return fmt.Sprintf("P%02d", i+1) }

func TestReplayingARecordedLeagueReproducesItsDeterministicSeats(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a whole league")
	}
	root, league := recordLeague(t)
	for i, e := range deterministic {
		rep, err := arena.Replay(context.Background(), arena.ReplayConfig{DataRoot: root, Seat: seatID(i), Entry: e})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Matches) != 19 || rep.Players != 20 {
			t.Fatalf("%s: %d matches of %d players replayed, want 19 of 20", e.Name, len(rep.Matches), rep.Players)
		}
		for _, m := range rep.Matches {
			if m.Kept || m.Choice != m.RecordedChoice || m.Points != m.RecordedPoints {
				t.Errorf("%s, %s against %s: replayed %s for %d points, recorded %s for %d (kept %v)", e.Name, m.MatchID, m.Opponent,
					m.Choice, m.Points, m.RecordedChoice, m.RecordedPoints, m.Kept)
			}
		}
		if s, _ := league.Standing(e.Name); rep.Points != rep.RecordedPoints || rep.Rank != rep.RecordedRank || rep.RecordedPoints != s.Points {
			t.Errorf("%s: %s; the league gave it %d points", e.Name, rep, s.Points)
		}
		if rep.ExpectedPerMatch != rep.RecordedExpected {
			t.Errorf("%s: expected points %+v replayed, %+v recorded", e.Name, rep.ExpectedPerMatch, rep.RecordedExpected)
		}
	}

	// Another strategy in always_even's seat plays the same opponents'
	// choices and numbers: its points are those the numbers give its
	// choices, and the ranks follow.
	rep, err := arena.Replay(context.Background(), arena.ReplayConfig{DataRoot: root, Seat: "P01", Entry: arena.Ready("always_odd")})
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, m := range rep.Matches {
		want := 1
		if m.OpponentChoice != "odd" {
			want = 0
			if m.Number%2 == 1 {
				want = 3
			}
		}
		if m.Choice != "odd" || m.Points != want {
			t.Errorf("always_odd in P01's seat, %s: %s for %d points against %s on %d, want odd for %d", m.MatchID, m.Choice, m.Points,
				m.OpponentChoice, m.Number, want)
		}
		sum += m.Points
	}
	line := fmt.Sprintf("with always_odd you would have had %d points, rank %d of 20 (the seat had %d, rank %d)", sum, rep.Rank, rep.RecordedPoints, rep.RecordedRank)
	if rep.Points != sum || rep.String() != line {
		t.Errorf("replay %q, want %q", rep, line)
	}

	// A recorded league is a pool for a comparison: both sides take the
	// seat, and the differences are those of their replays.
	cand, err := arena.Replay(context.Background(), arena.ReplayConfig{DataRoot: root, Seat: "P05", Entry: arena.Entry{Name: "contrary", Strategy: contrary}})
	if err != nil {
		t.Fatal(err)
	}
	base, err := arena.Replay(context.Background(), arena.ReplayConfig{DataRoot: root, Seat: "P05", Entry: arena.Ready("always_even")})
	if err != nil {
		t.Fatal(err)
	}
	v := compare(t, arena.CompareConfig{Candidate: arena.Entry{Name: "contrary", Strategy: contrary}, Baseline: arena.Ready("always_even"),
		Recorded: []arena.RecordedSeat{{DataRoot: root, Seat: "P05"}}})
	if v.Matches != 19 || len(v.Opponents) != 1 || !strings.Contains(v.Opponents[0], "seat P05") ||
		*v.Candidate.ExpectedPerMatch != cand.ExpectedPerMatch || *v.Baseline.ExpectedPerMatch != base.ExpectedPerMatch ||
		math.Abs(v.Difference.Mean-(cand.ExpectedPerMatch.Mean-base.ExpectedPerMatch.Mean)) > 1e-12 {
		t.Errorf("verdict %s: %+v; replays: %+v and %+v", v, v, cand.ExpectedPerMatch, base.ExpectedPerMatch)
	}

	// A pool naming the league hashes its recorded matches too.
	dir := t.TempDir()
	poolPath := filepath.Join(dir, "pool.json")
	rel, _ := filepath.Rel(dir, root)
	if err := os.WriteFile(poolPath, []byte(`{"opponents": [{"league": {"data_root": "`+filepath.ToSlash(rel)+`", "seat": "P05"}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	pool, err := arena.ReadPool(poolPath)
	if err != nil {
		t.Fatal(err)
	}
	if r := pool.Recorded(); len(r) != 1 || r[0].DataRoot != root {
		t.Fatalf("the pool's recorded seats %+v, want the league at %s", r, root)
	}
	before := pool.Hash()
	files, _ := filepath.Glob(filepath.Join(root, "data", "matches", "*", "*.json"))
	b, _ := os.ReadFile(files[0])
	var transcript map[string]any
	if err := json.Unmarshal(b, &transcript); err != nil {
		t.Fatal(err)
	}
	result := transcript["result"].(map[string]any)
	result["drawn_number"] = result["drawn_number"].(float64) + 1
	if b, err = json.Marshal(transcript); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(files[0], b, 0o600); err != nil {
		t.Fatal(err)
	}
	if pool.Hash() == before {
		t.Errorf("a recorded number changed and the pool's hash did not (%s)", files[0])
	}

	var ce *arena.ConfigError
	if _, err := arena.Replay(context.Background(), arena.ReplayConfig{DataRoot: root, Seat: "P99", Entry: arena.Ready("random")}); !errors.As(err, &ce) ||
		!strings.Contains(err.Error(), "P99 played no match") {
		t.Errorf("an unknown seat: %v", err)
	}
}
