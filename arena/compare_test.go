package arena_test

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agentleague/league/arena"
	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
)

// mixed returns the strategy that, with probability q, chooses the other
// parity than the opponent's habit, and otherwise at random. Each call
// draws the same two numbers from r whatever q, so that two of them built
// from one seed choose alike whenever neither reads the habit.
func mixed(q float64) func(io.Reader) (player.Strategy, error) {
	return func(r io.Reader) (player.Strategy, error) {
		var seed [32]byte
		if _, err := io.ReadFull(r, seed[:]); err != nil {
			return nil, err
		}
		g := rand.New(rand.NewChaCha8(seed))
		return player.StrategyFunc(func(_ context.Context, c player.ParityCall) (leaguesdk.Parity, error) {
			u, coin := g.Float64(), g.IntN(2)
			if u < q {
				return c.History.Against(c.OpponentID).OpponentMostly().Other(), nil
			}
			if coin == 0 {
				return leaguesdk.Even, nil
			}
			return leaguesdk.Odd, nil
		}), nil
	}
}

// gainPool is a pool against which reading the habit pays: two fixed
// opponents and a random one (against which nothing pays).
func gainPool() []arena.Entry {
	return []arena.Entry{arena.Ready("always_even"), arena.Ready("always_odd"), arena.Ready("random")}
}

func compare(t testing.TB, cc arena.CompareConfig) *arena.Verdict {
	t.Helper()
	v, err := arena.Compare(context.Background(), cc)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestAComparisonWithoutAPoolIsRefusedWithTheReason(t *testing.T) {
	_, err := arena.Compare(context.Background(), arena.CompareConfig{Candidate: arena.Ready("history"), Baseline: arena.Ready("random")})
	var ce *arena.ConfigError
	if !errors.As(err, &ce) || len(ce.Problems) != 1 || !strings.Contains(ce.Problems[0], "pool") ||
		!strings.Contains(ce.Problems[0], "head-to-head cannot say which is better") {
		t.Fatalf("got %v, want a ConfigError that asks for a pool and says why", err)
	}
}

// Differing 6 % of the time on purpose against a pool where two of three
// opponents can be read is differing 2 % more often than random play: a
// gain of 0.01 points a match, which the test finds well within 10 000
// matches; the other way round it is not better.
func TestAGainOfTwoPercentMoreDifferencesIsFoundBetter(t *testing.T) {
	v := compare(t, arena.CompareConfig{Candidate: arena.Entry{Name: "v2", NewStrategy: mixed(0.06)},
		Baseline: arena.Entry{Name: "v1", NewStrategy: mixed(0)}, Pool: gainPool(), Seed: 3})
	t.Log(v)
	if v.Result != arena.Better || v.Matches > 10000 || v.Measure != arena.MeasureExpected {
		t.Fatalf("verdict %s (%s, %d matches), want better within 10 000 matches on expected points", v, v.Result, v.Matches)
	}
	gain := v.Candidate.DifferRate.Mean - v.Baseline.DifferRate.Mean
	if gain < 0.01 || gain > 0.03 {
		t.Errorf("the candidate differs %.4f more often than the baseline, want about 0.02", gain)
	}
	if v.Difference.Low <= 0 || !v.Difference.Contains(0.01) {
		t.Errorf("difference %+v, want an interval above 0 that holds 0.01", v.Difference)
	}
	back := compare(t, arena.CompareConfig{Candidate: arena.Entry{Name: "v1", NewStrategy: mixed(0)},
		Baseline: arena.Entry{Name: "v2", NewStrategy: mixed(0.06)}, Pool: gainPool(), Seed: 3})
	if back.Result != arena.NotBetter {
		t.Errorf("the baseline as candidate: %s, want not better", back)
	}
	line := regexp.MustCompile(`^v2 vs v1 against 3 opponents: \+0\.0\d\d points a match ± 0\.0\d\d \(95 %\), [\d ]+ matches each: better \(α = β = 0\.05, δ = 0\.01\)$`)
	if !line.MatchString(v.String()) {
		t.Errorf("verdict line %q", v.String())
	}
}

// A candidate that is its baseline, on the same seed, plays the same
// matches: every difference is 0, and it is not better as soon as the
// test may stop.
func TestTheSameStrategyOnTheSameSeedIsNotBetter(t *testing.T) {
	v := compare(t, arena.CompareConfig{Candidate: arena.Ready("history"), Baseline: arena.Ready("history"),
		Pool: []arena.Entry{arena.Ready("random"), arena.Ready("history"), {Name: "biased", NewStrategy: biased(0.7)}}, MinMatches: 30})
	if v.Result != arena.NotBetter || v.Difference.Mean != 0 || v.Matches != 30 ||
		v.Candidate.ExpectedPerMatch.Mean != v.Baseline.ExpectedPerMatch.Mean || v.Candidate.PointsPerMatch != v.Baseline.PointsPerMatch {
		t.Errorf("verdict %s: %+v", v, v)
	}
}

// nullSettings are the null comparisons TestNullComparisonsRarelySayBetter
// makes: 200 at δ = 0.1 from 60 matches on, short; with
// ARENA_NULL_COMPARISONS=n, n at the defaults (δ = 0.01, from 200
// matches on), or at ARENA_NULL_DELTA (docs/testing-a-strategy.md gives
// the command).
func nullSettings(t *testing.T) (n int, delta float64, minMatches int) {
	v := os.Getenv("ARENA_NULL_COMPARISONS")
	if v == "" {
		return 200, 0.1, 60
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("ARENA_NULL_COMPARISONS=%q", v)
	}
	delta = arena.DefaultDelta
	if v := os.Getenv("ARENA_NULL_DELTA"); v != "" {
		if delta, err = strconv.ParseFloat(v, 64); err != nil || delta <= 0 {
			t.Fatalf("ARENA_NULL_DELTA=%q", v)
		}
	}
	return n, delta, 0
}

// The candidate is its baseline on another seed: nothing to find. The
// test may call it better at most α of the time; the short test's bound
// is loose (twice α, its 200 comparisons give about 3 points of
// standard error), the long one's (1 000 comparisons or more) is 5.5 %.
func TestNullComparisonsRarelySayBetter(t *testing.T) {
	n, delta, minMatches := nullSettings(t)
	pool := []arena.Entry{arena.Ready("always_even"), arena.Ready("history"), arena.Ready("random")}
	better, matches := 0, 0
	for i := range n {
		v := compare(t, arena.CompareConfig{Candidate: arena.Ready("random"), Baseline: arena.Ready("random"), Pool: pool,
			Delta: delta, MinMatches: minMatches, Seed: uint64(i + 1), BaselineSeed: uint64(i+1) + 1<<32})
		if v.Result == arena.Better {
			better++
		}
		matches += v.Matches
		if n >= 1000 && (i+1)%50 == 0 {
			t.Logf("%d comparisons: %d better", i+1, better)
		}
	}
	rate := float64(better) / float64(n)
	t.Logf("%d null comparisons at δ = %g: %d better (%.1f %%), %d matches each on average", n, delta, better, 100*rate, matches/n)
	bound := 2 * arena.DefaultAlpha
	if n >= 1000 {
		bound = 0.055
	}
	if rate > bound {
		t.Errorf("%d of %d null comparisons said better (%.1f %%), more than %.1f %%", better, n, 100*rate, 100*bound)
	}
}
