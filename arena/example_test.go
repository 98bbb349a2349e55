package arena_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentleague/league/arena"
	"github.com/agentleague/league/player"
)

// A strategy of your own against ready ones. Every random draw derives
// from the seed, so the report is the same on every run. The contrary
// strategy avoids the draws always_even offers, and so earns more than
// random play; always_even earns as much from the same matches: in
// even/odd, avoiding a draw profits both players. The expected points
// (the choices' worth over every number the referee could draw) say so
// with a narrower interval than the realised ones.
func Example() {
	contrary := player.StrategyFunc(func(ctx context.Context, c player.ParityCall) (player.Parity, error) {
		if c.History.Against(c.OpponentID).OpponentMostly() == player.Even {
			return player.Odd, nil
		}
		return player.Even, nil
	})
	report, err := arena.Run(context.Background(), arena.Config{
		Entries: []arena.Entry{{Name: "contrary", Strategy: contrary}, arena.Ready("random"), arena.Ready("always_even")},
		Rounds:  2000,
		Seed:    42,
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range report.Standings {
		e := s.ExpectedPerMatch
		fmt.Printf("%-12s %d matches  realised %.2f [%.2f, %.2f]  expected %.3f [%.3f, %.3f]  differs %.0f %%\n",
			s.Name, s.Played, s.PointsPerMatch.Mean, s.PointsPerMatch.Low, s.PointsPerMatch.High, e.Mean, e.Low, e.High, 100*s.DifferRate.Mean)
	}
	h, _ := report.HeadToHead("contrary", "always_even")
	fmt.Printf("contrary against always_even: %.3f expected points per match\n", h.ExpectedPerMatch.Mean)
	// Output:
	// always_even  4000 matches  realised 1.38 [1.34, 1.42]  expected 1.381 [1.375, 1.388]  differs 76 %
	// contrary     4000 matches  realised 1.38 [1.34, 1.42]  expected 1.378 [1.372, 1.385]  differs 76 %
	// random       4000 matches  realised 1.26 [1.23, 1.30]  expected 1.260 [1.252, 1.267]  differs 52 %
	// contrary against always_even: 1.500 expected points per match

}

// Is history better than random play against a field of three? Both play
// the same opponents on the same random numbers, and the test stops as
// soon as it knows.
func ExampleCompare() {
	v, err := arena.Compare(context.Background(), arena.CompareConfig{
		Candidate: arena.Ready("history"),
		Baseline:  arena.Ready("random"),
		Pool:      []arena.Entry{arena.Ready("always_even"), arena.Ready("always_odd"), arena.Ready("random")},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(v)
	fmt.Println(v.Result == arena.Better)
	// Output:
	// history vs random against 3 opponents: +0.167 points a match ± 0.046 (95 %), 201 matches each: better (α = β = 0.05, δ = 0.01)
	// true
}

// Put a strategy in a seat of a finished league: here a league of four
// played first, whose P01 always chose even. The same strategy in its
// seat, against the recorded choices and numbers, earns what the seat
// earned; another one earns what the numbers give its own choices.
func ExampleReplay() {
	root, err := os.MkdirTemp("", "league-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(root)
	ctx := context.Background()
	if _, err := arena.Run(ctx, arena.Config{League: true, Rounds: 1, DataRoot: root, MoveTimeout: 5 * time.Second,
		Entries: []arena.Entry{arena.Ready("always_even"), arena.Ready("always_odd"), arena.Ready("random"), arena.Ready("history")}}); err != nil {
		log.Fatal(err)
	}
	league := filepath.Join(root, "league_1") // League mode's first league
	same, err := arena.Replay(ctx, arena.ReplayConfig{DataRoot: league, Seat: "P01", Entry: arena.Ready("always_even")})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(same.Points == same.RecordedPoints, same.Rank == same.RecordedRank, len(same.Matches))
	other, err := arena.Replay(ctx, arena.ReplayConfig{DataRoot: league, Seat: "P01", Entry: arena.Ready("always_odd")})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.HasPrefix(other.String(), "with always_odd you would have had"))
	// Output:
	// true true 3
	// true
}
