package arena_test

import (
	"context"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/agentleague/league/arena"
	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/player/strategies"
)

// biased returns the strategy that chooses even with probability pEven,
// drawing from r.
func biased(pEven float64) func(io.Reader) (player.Strategy, error) {
	return func(r io.Reader) (player.Strategy, error) {
		var seed [32]byte
		if _, err := io.ReadFull(r, seed[:]); err != nil {
			return nil, err
		}
		g := rand.New(rand.NewChaCha8(seed))
		return player.StrategyFunc(func(context.Context, player.ParityCall) (leaguesdk.Parity, error) {
			if g.Float64() < pEven {
				return leaguesdk.Even, nil
			}
			return leaguesdk.Odd, nil
		}), nil
	}
}

// contrary is the README's strategy: the other parity than the opponent's
// habit.
var contrary = player.StrategyFunc(func(ctx context.Context, c player.ParityCall) (leaguesdk.Parity, error) {
	if c.History.Against(c.OpponentID).OpponentMostly() == leaguesdk.Even {
		return leaguesdk.Odd, nil
	}
	return leaguesdk.Even, nil
})

// follower plays what the opponent played most often against it.
var follower = player.StrategyFunc(func(ctx context.Context, c player.ParityCall) (leaguesdk.Parity, error) {
	if c.History.Against(c.OpponentID).OpponentMostly() == leaguesdk.Odd {
		return leaguesdk.Odd, nil
	}
	return leaguesdk.Even, nil
})

// tenStrategies are ten entries of different kinds: fixed, random,
// biased, and three that read the history.
func tenStrategies() []arena.Entry {
	return []arena.Entry{
		arena.Ready("random"), arena.Ready("always_even"), arena.Ready("always_odd"), arena.Ready("history"),
		{Name: "history_prior_10", NewStrategy: func(r io.Reader) (player.Strategy, error) { return strategies.NewOpponentModel(10, r), nil }},
		{Name: "biased_70", NewStrategy: biased(0.7)}, {Name: "biased_30", NewStrategy: biased(0.3)},
		{Name: "biased_55", NewStrategy: biased(0.55)},
		{Name: "contrary", Strategy: contrary}, {Name: "follower", Strategy: follower},
	}
}

// BenchmarkArena reports the arena's rate with ten strategies, every pair
// meeting 1000 times (45 000 matches), in process.
func BenchmarkArena(b *testing.B) {
	for b.Loop() {
		start := time.Now()
		r, err := arena.Run(context.Background(), arena.Config{Entries: tenStrategies(), Rounds: 1000})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(r.Matches)/time.Since(start).Seconds(), "matches/s")
		b.ReportMetric(time.Since(start).Seconds(), "s/45000-matches")
	}
}

// BenchmarkCompare compares a candidate that differs from its opponents
// 2 % more often than its baseline (a gain of 0.01 points a match, the
// default δ) against a pool of three, one comparison per iteration on
// seeds 1, 2, …, and reports the matches each side played, the share of
// comparisons that found it better, and the time per comparison
// (ns/op). "common seeds" gives both sides the same random source, as
// Compare does by default; "separate seeds" gives the baseline another.
func BenchmarkCompare(b *testing.B) {
	for _, c := range []struct {
		name     string
		separate bool
	}{{"common seeds", false}, {"separate seeds", true}} {
		b.Run(c.name, func(b *testing.B) {
			seed, matches, better, most := uint64(0), 0, 0, 0
			for b.Loop() {
				seed++
				cc := arena.CompareConfig{Candidate: arena.Entry{Name: "v2", NewStrategy: mixed(0.06)},
					Baseline: arena.Entry{Name: "v1", NewStrategy: mixed(0)}, Pool: gainPool(), Seed: seed}
				if c.separate {
					cc.BaselineSeed = seed + 1<<32
				}
				v, err := arena.Compare(context.Background(), cc)
				if err != nil {
					b.Fatal(err)
				}
				matches += v.Matches
				most = max(most, v.Matches)
				if v.Result == arena.Better {
					better++
				}
			}
			n := float64(seed)
			b.ReportMetric(float64(matches)/n, "matches-each/op")
			b.ReportMetric(float64(most), "max-matches-each")
			b.ReportMetric(float64(better)/n, "better/op")
		})
	}
}
