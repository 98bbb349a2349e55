package arena_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentleague/league/arena"
	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/player/strategies"
)

var strategiesAlways = strategies.Always

func run(t *testing.T, cfg arena.Config) *arena.Report {
	t.Helper()
	r, err := arena.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func standing(t *testing.T, r *arena.Report, name string) arena.Standing {
	t.Helper()
	s, ok := r.Standing(name)
	if !ok {
		t.Fatalf("no standing of %q", name)
	}
	return s
}

func TestAStrategyThatExploitsABiasedOpponentGainsWithAnIntervalAboveZero(t *testing.T) {
	// Against an opponent that chooses even 90 % of the time, choosing odd
	// earns 0.9 × 1.5 + 0.1 × 1 = 1.45 points per match, 0.2 more than
	// random play; against random play nothing earns more than 1.25.
	r := run(t, arena.Config{Rounds: 3000, Entries: []arena.Entry{
		arena.Ready("history"), arena.Ready("random"), {Name: "biased", NewStrategy: biased(0.9)},
	}})
	if r.Matches != 9000 {
		t.Fatalf("played %d matches, want 9000", r.Matches)
	}
	model := standing(t, r, "history")
	if model.Gain == nil || model.Gain.Low <= 0 {
		t.Errorf("history's gain over random play %+v: want an interval above zero", model.Gain)
	}
	h, _ := r.HeadToHead("history", "biased")
	if h.PointsPerMatch.Low <= arena.RandomPlay {
		t.Errorf("history against biased: %+v points per match, want an interval above %.2f", h.PointsPerMatch, arena.RandomPlay)
	}
	// Random play earns the same against anyone, a biased opponent too.
	if h, _ := r.HeadToHead("random", "biased"); !h.PointsPerMatch.Contains(arena.RandomPlay) {
		t.Errorf("random against biased: %+v points per match, want an interval holding %.2f", h.PointsPerMatch, arena.RandomPlay)
	}
	if standing(t, r, "history").PointsPerMatch.Low <= standing(t, r, "random").PointsPerMatch.Mean {
		t.Errorf("history %+v is not ahead of random %+v", model.PointsPerMatch, standing(t, r, "random").PointsPerMatch)
	}
}

func TestTwoIdenticalStrategiesAreLevelWithinTheirIntervals(t *testing.T) {
	r := run(t, arena.Config{Rounds: 1000, Entries: []arena.Entry{arena.Ready("history"), arena.Ready("history"), arena.Ready("random")}})
	a, b := standing(t, r, "history"), standing(t, r, "history #2")
	if !a.PointsPerMatch.Contains(b.PointsPerMatch.Mean) || !b.PointsPerMatch.Contains(a.PointsPerMatch.Mean) {
		t.Errorf("identical strategies apart: %+v and %+v", a.PointsPerMatch, b.PointsPerMatch)
	}
	if h, _ := r.HeadToHead("history", "history #2"); !h.Margin.Contains(0) || h.Played != 1000 {
		t.Errorf("head to head of identical strategies: %+v, want 1000 matches with a margin interval holding 0", h)
	}
}

func TestTheSameSeedGivesTheSameReport(t *testing.T) {
	cfg := func(seed uint64) arena.Config {
		return arena.Config{Rounds: 200, Seed: seed, Entries: []arena.Entry{arena.Ready("history"), arena.Ready("random"),
			arena.Ready("always_even"), {Name: "biased", NewStrategy: biased(0.7)}}}
	}
	strip := func(r *arena.Report) string {
		r.Stable()
		var b strings.Builder
		if err := r.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	first, again, other := strip(run(t, cfg(7))), strip(run(t, cfg(7))), strip(run(t, cfg(8)))
	if first != again {
		t.Errorf("two runs with seed 7 differ:\n%s\n%s", first, again)
	}
	if first == other {
		t.Error("seeds 7 and 8 gave the same report")
	}
}

// observer records what a player's strategy is told.
type observer struct {
	learned, observed atomic.Int64
}

func (o *observer) ChooseParity(context.Context, player.ParityCall) (leaguesdk.Parity, error) {
	return leaguesdk.Odd, nil
}
func (o *observer) Learn(context.Context, player.MatchRecord) { o.learned.Add(1) }
func (o *observer) ObserveStandings(_ context.Context, _ int, table []leaguesdk.StandingRow) {
	if len(table) == 3 {
		o.observed.Add(1)
	}
}

func TestTheArenaPlaysThePlayersBehaviourLearnerObserverAndFallback(t *testing.T) {
	o := &observer{}
	var calls atomic.Int64
	failing := player.StrategyFunc(func(context.Context, player.ParityCall) (leaguesdk.Parity, error) {
		if calls.Add(1)%2 == 0 {
			panic("a bug")
		}
		return "", errors.New("no idea")
	})
	r := run(t, arena.Config{Rounds: 10, Entries: []arena.Entry{{Name: "observer", Strategy: o}, {Name: "failing", Strategy: failing},
		arena.Ready("always_even")}})
	if got := o.learned.Load(); got != 20 {
		t.Errorf("Learn called %d times, want 20 (one per match)", got)
	}
	// Three entries: three rounds of one match each per round-robin.
	if got := o.observed.Load(); got != 30 {
		t.Errorf("ObserveStandings called %d times with the whole table, want 30 (one per round)", got)
	}
	if s := standing(t, r, "failing"); s.TechnicalLosses != 0 || s.Played != 20 || calls.Load() != 20 {
		t.Errorf("a failing strategy: %+v after %d calls; want 20 matches answered by the fallback, no technical loss", s, calls.Load())
	}
	// The fallbacks are counted and flagged; the others have none.
	if s := standing(t, r, "failing"); s.Moves != 20 || s.Fallbacks != 20 || !s.Flagged {
		t.Errorf("failing: %d moves, %d fallbacks, flagged %v; want 20, 20, true", s.Moves, s.Fallbacks, s.Flagged)
	}
	for _, name := range []string{"observer", "always_even"} {
		if s := standing(t, r, name); s.Moves != 20 || s.Fallbacks != 0 || s.Flagged {
			t.Errorf("%s: %d moves, %d fallbacks, flagged %v; want 20, 0, false", name, s.Moves, s.Fallbacks, s.Flagged)
		}
	}
	if len(r.Warnings) != 1 || !strings.HasPrefix(r.Warnings[0], "failing fell back on 20 of its 20 moves") {
		t.Errorf("warnings %q", r.Warnings)
	}
}

// A strategy late on a tenth of its moves or less is not flagged; one
// late on more is. Late answers count as fallbacks, like failures.
func TestLateAnswersAreFallbacksAndAreFlaggedBeyondATenth(t *testing.T) {
	lateEvery := func(n int64) player.Strategy {
		var calls atomic.Int64
		return player.StrategyFunc(func(ctx context.Context, _ player.ParityCall) (leaguesdk.Parity, error) {
			if calls.Add(1)%n == 0 {
				<-ctx.Done() // thinks past the deadline
				time.Sleep(50 * time.Millisecond)
			}
			return leaguesdk.Odd, nil
		})
	}
	r := run(t, arena.Config{Rounds: 20, MoveTimeout: 400 * time.Millisecond,
		Entries: []arena.Entry{{Name: "late 1 in 10", Strategy: lateEvery(10)}, {Name: "late 1 in 5", Strategy: lateEvery(5)}}})
	if s := standing(t, r, "late 1 in 10"); s.Moves != 20 || s.Fallbacks != 2 || s.Flagged {
		t.Errorf("late 1 in 10: %d moves, %d fallbacks, flagged %v; want 20, 2, false", s.Moves, s.Fallbacks, s.Flagged)
	}
	if s := standing(t, r, "late 1 in 5"); s.Moves != 20 || s.Fallbacks != 4 || !s.Flagged {
		t.Errorf("late 1 in 5: %d moves, %d fallbacks, flagged %v; want 20, 4, true", s.Moves, s.Fallbacks, s.Flagged)
	}
}

// The ranking and the rating agree, and both follow the expected points per match:
// the rating is never higher below than above.
func TestTheRatingFollowsTheRanking(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		r := run(t, arena.Config{Rounds: 30, Seed: seed, Entries: []arena.Entry{arena.Ready("random"), arena.Ready("history"),
			arena.Ready("always_even"), arena.Ready("always_odd")}})
		for k := 1; k < len(r.Standings); k++ {
			above, below := r.Standings[k-1], r.Standings[k]
			if below.Rating > above.Rating || below.ExpectedPerMatch.Mean > above.ExpectedPerMatch.Mean {
				t.Errorf("seed %d: %s (rating %.0f, %.3f expected points per match) ranks below %s (rating %.0f, %.3f)", seed,
					below.Name, below.Rating, below.ExpectedPerMatch.Mean, above.Name, above.Rating, above.ExpectedPerMatch.Mean)
			}
		}
		if r.RatingMethod != arena.RatingMethodExpected {
			t.Errorf("rating method %q", r.RatingMethod)
		}
	}
}

func TestAPlayerAtAURLIsPlayedOverHTTP(t *testing.T) {
	remote, err := player.New(player.Config{Name: "Remote Rita", League: "http://127.0.0.1/mcp", Strategy: player.StrategyFunc(
		func(context.Context, player.ParityCall) (leaguesdk.Parity, error) { return leaguesdk.Even, nil }), NoAgentLog: true})
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	srv := httptest.NewServer(remote.Handler())
	defer srv.Close()
	url := srv.URL + "/mcp"
	r := run(t, arena.Config{Rounds: 20, Entries: []arena.Entry{arena.Ready("always_odd"), arena.Remote(url)}})
	s := standing(t, r, url)
	if s.Played != 20 || s.TechnicalLosses != 0 {
		t.Errorf("the remote player: %+v, want 20 matches without a technical loss", s)
	}
	h := remote.History()
	if h.Len() != 20 || h.Stats().Points != s.Points {
		t.Errorf("the remote player recorded %d matches and %d points, the arena %d and %d", h.Len(), h.Stats().Points, s.Played, s.Points)
	}
	if even, odd := h.OpponentChoices(); even != 0 || odd != 20 {
		t.Errorf("the remote player saw %d even and %d odd choices, want 20 odd", even, odd)
	}
}

func TestAPlayerThatFailsSuffersTechnicalLosses(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"down"}`, http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	r := run(t, arena.Config{Rounds: 4, JoinTimeout: time.Second, Entries: []arena.Entry{arena.Ready("random"), arena.Remote(srv.URL + "/mcp")}})
	s := standing(t, r, srv.URL+"/mcp")
	if s.TechnicalLosses != 4 || s.Points != 0 {
		t.Errorf("a player that is down: %+v, want 4 technical losses and no point", s)
	}
	if s := standing(t, r, "random"); s.Points != 12 {
		t.Errorf("its opponent: %+v, want 12 points (3 per technical loss of the other)", s)
	}
}

func TestLeagueModePlaysWholeLeagues(t *testing.T) {
	if testing.Short() {
		t.Skip("plays whole leagues")
	}
	r := run(t, arena.Config{Rounds: 2, League: true, MoveTimeout: 5 * time.Second, DataRoot: t.TempDir(),
		Entries: []arena.Entry{arena.Ready("history"), arena.Ready("random"), arena.Ready("always_even"), arena.Ready("always_odd")}})
	if r.Matches != 12 || !r.League {
		t.Fatalf("two leagues of four players: %d matches, want 12", r.Matches)
	}
	for _, s := range r.Standings {
		if s.Played != 6 || s.TechnicalLosses != 0 || s.ExpectedPerMatch == nil || s.DifferRate == nil {
			t.Errorf("%s: %+v, want 6 matches, no technical loss, expected points and a differ rate", s.Name, s)
		}
	}
}

func TestABadConfigIsRefusedWithAConfigError(t *testing.T) {
	_, err := arena.Run(context.Background(), arena.Config{Entries: []arena.Entry{arena.Ready("random"), {Name: "nothing"}}, Rounds: -1})
	var ce *arena.ConfigError
	if !errors.As(err, &ce) || len(ce.Problems) != 2 {
		t.Fatalf("got %v, want a ConfigError with two problems", err)
	}
}

// Both players of an even/odd match expect the same points: 1.5 each when
// they differ, 1 each when they choose alike. The expected points carry
// that exactly; the realised ones add the drawn number's noise.
func TestExpectedPointsTakeTheDrawOut(t *testing.T) {
	r := run(t, arena.Config{Rounds: 400, Entries: []arena.Entry{arena.Ready("always_even"), arena.Ready("always_odd"),
		{Name: "even too", Strategy: strategiesAlways(leaguesdk.Even)}, arena.Ready("random")}})
	for _, s := range r.Standings {
		if s.ExpectedPerMatch == nil || s.DifferRate == nil {
			t.Fatalf("%s: no expected points or differ rate: %+v", s.Name, s)
		}
		for _, h := range s.Against {
			back, _ := r.HeadToHead(h.Opponent, s.Name)
			if h.ExpectedPerMatch == nil || back.ExpectedPerMatch == nil || h.ExpectedPerMatch.Mean != back.ExpectedPerMatch.Mean {
				t.Errorf("%s and %s expect different points from the same matches: %+v, %+v", s.Name, h.Opponent, h.ExpectedPerMatch, back.ExpectedPerMatch)
			}
		}
	}
	for _, c := range []struct {
		a, b string
		want float64
	}{{"always_even", "always_odd", 1.5}, {"always_even", "even too", 1}, {"always_odd", "even too", 1.5}} {
		h, _ := r.HeadToHead(c.a, c.b)
		if e := h.ExpectedPerMatch; e == nil || e.Mean != c.want || e.Low != c.want || e.High != c.want {
			t.Errorf("%s against %s: expected %+v, want exactly %.1f", c.a, c.b, e, c.want)
		}
		if c.want == 1.5 && h.PointsPerMatch.Low == h.PointsPerMatch.High {
			t.Errorf("%s against %s: realised points without noise: %+v", c.a, c.b, h.PointsPerMatch)
		}
	}
	if s := standing(t, r, "always_odd"); s.DifferRate.Mean < 0.8 || s.DifferRate.Mean > 0.85 {
		// Against always_even and even too always, against random half the time: 5/6.
		t.Errorf("always_odd differs in %.3f of its matches, want about 5/6", s.DifferRate.Mean)
	}
	rnd := standing(t, r, "random")
	width := func(e arena.Estimate) float64 { return e.High - e.Low }
	if !rnd.ExpectedPerMatch.Contains(arena.RandomPlay) || width(*rnd.ExpectedPerMatch) > width(rnd.PointsPerMatch)/2 {
		t.Errorf("random: expected %+v, realised %+v; want an expected interval holding %.2f and less than half as wide",
			rnd.ExpectedPerMatch, rnd.PointsPerMatch, arena.RandomPlay)
	}
	if r.RatingMethod != arena.RatingMethodExpected {
		t.Errorf("rating method %q", r.RatingMethod)
	}
}

// The report says how long each player took to answer, against the
// deadline: a strategy that thinks 20 ms answers in no less.
func TestTheReportGivesTheAnswerTimesAgainstTheDeadline(t *testing.T) {
	slow := player.StrategyFunc(func(context.Context, player.ParityCall) (leaguesdk.Parity, error) {
		time.Sleep(20 * time.Millisecond)
		return leaguesdk.Odd, nil
	})
	r := run(t, arena.Config{Rounds: 10, MoveTimeout: 2 * time.Second, Entries: []arena.Entry{{Name: "slow", Strategy: slow}, arena.Ready("always_even")}})
	s, fast := standing(t, r, "slow"), standing(t, r, "always_even")
	if l := s.Latency; l == nil || l.P50 < 20*time.Millisecond || l.P99 < l.P50 || l.Max < l.P99 || l.Deadline != 2*time.Second {
		t.Errorf("slow's answer times %+v, want a median of 20 ms or more against 2 s", s.Latency)
	}
	if l := fast.Latency; l == nil || l.P50 >= s.Latency.P50 {
		t.Errorf("always_even's answer times %+v, want faster than slow's %+v", fast.Latency, s.Latency)
	}
	var b strings.Builder
	if err := r.WriteTable(&b); err != nil || !strings.Contains(b.String(), "answer p50/p99/max") || !strings.Contains(b.String(), "ms of 2s") {
		t.Errorf("the table does not show the answer times:\n%s", b.String())
	}
	r.Stable()
	b.Reset()
	if err := r.WriteTable(&b); err != nil || strings.Contains(b.String(), "answer p50") || strings.Contains(b.String(), "matches/s") {
		t.Errorf("a stable table shows times:\n%s", b.String())
	}
}

// The JSON's numbers keep four decimals, the CSV has the gain over random
// play with its interval, and both agree with the report.
func TestTheJSONIsRoundedAndTheCSVHasTheGain(t *testing.T) {
	r := run(t, arena.Config{Rounds: 30, Entries: []arena.Entry{arena.Ready("random"), arena.Ready("history"), arena.Ready("always_even")}})
	var js strings.Builder
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	// Every number of the JSON has at most four decimals.
	number := regexp.MustCompile(`:\s*-?\d+\.(\d+)`)
	numbers := number.FindAllStringSubmatch(js.String(), -1)
	if len(numbers) == 0 {
		t.Fatalf("no decimal number in the JSON:\n%s", js.String())
	}
	for _, m := range numbers {
		if len(m[1]) > arena.JSONDecimals {
			t.Errorf("the JSON writes %s with more than %d decimals", strings.TrimSpace(m[0][1:]), arena.JSONDecimals)
		}
	}
	var decoded arena.Report
	if err := json.Unmarshal([]byte(js.String()), &decoded); err != nil {
		t.Fatal(err)
	}
	for i, s := range r.Standings {
		d := decoded.Standings[i]
		if math.Abs(d.PointsPerMatch.Mean-s.PointsPerMatch.Mean) > 0.00005 || math.Abs(d.Rating-s.Rating) > 0.00005 ||
			d.Gain == nil || math.Abs(d.Gain.Low-s.Gain.Low) > 0.00005 {
			t.Errorf("%s: the JSON's %+v is not the report's %+v rounded", s.Name, d, s)
		}
	}

	var cs strings.Builder
	if err := r.WriteCSV(&cs); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(cs.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, h := range []string{"gain", "gain_low", "gain_high"} {
		if _, ok := col[h]; !ok {
			t.Fatalf("the CSV has no %s column: %q", h, rows[0])
		}
	}
	for _, row := range rows[1:] {
		s := standing(t, r, row[col["entry"]])
		for h, want := range map[string]float64{"gain": s.Gain.Mean, "gain_low": s.Gain.Low, "gain_high": s.Gain.High} {
			got, err := strconv.ParseFloat(row[col[h]], 64)
			if err != nil || math.Abs(got-want) > 0.00005 {
				t.Errorf("%s: the CSV's %s is %q, want %.4f", s.Name, h, row[col[h]], want)
			}
		}
	}
}
