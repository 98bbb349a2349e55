package arena_test

import (
	"context"
	"fmt"
	"log"

	"github.com/agentleague/league/arena"
	"github.com/agentleague/league/player"
)

// A strategy of your own against ready ones. Every random draw derives
// from the seed, so the report is the same on every run. The contrary
// strategy avoids the draws always_even offers, and so earns more than
// random play; always_even earns as much from the same matches: in
// even/odd, avoiding a draw profits both players.
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
		fmt.Printf("%-12s %d matches  %.2f points per match, 95%% interval [%.2f, %.2f]\n",
			s.Name, s.Played, s.PointsPerMatch.Mean, s.PointsPerMatch.Low, s.PointsPerMatch.High)
	}
	h, _ := report.HeadToHead("contrary", "always_even")
	fmt.Printf("contrary against always_even: %.2f points per match\n", h.PointsPerMatch.Mean)
	// Output:
	// contrary     4000 matches  1.38 points per match, 95% interval [1.34, 1.42]
	// always_even  4000 matches  1.38 points per match, 95% interval [1.34, 1.42]
	// random       4000 matches  1.26 points per match, 95% interval [1.23, 1.30]
	// contrary against always_even: 1.49 points per match
}
