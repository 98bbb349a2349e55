package arena

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/rules"
)

// Defaults of [CompareConfig].
const (
	// DefaultAlpha is the chance of calling a candidate better when it is
	// not (its gain is 0), DefaultBeta that of missing a gain of Delta.
	DefaultAlpha = 0.05
	DefaultBeta  = 0.05
	// DefaultDelta is the smallest gain worth finding, in points a match:
	// 0.01 is differing from the opponents 2 % more often in even/odd.
	DefaultDelta = 0.01
	// DefaultMaxMatches bounds a comparison: the matches each side plays
	// before the verdict is "inconclusive".
	DefaultMaxMatches = 100_000
	// DefaultMinMatches is how many matches each side plays before the
	// test may stop, so that the variance it estimates has settled.
	DefaultMinMatches = 200
)

// The results of a [Verdict].
const (
	// Better: the candidate gains at least Delta a match more likely than
	// nothing, at the test's α and β.
	Better = "better"
	// NotBetter: the candidate gains nothing (or loses) more likely than
	// Delta.
	NotBetter = "not better"
	// Inconclusive: the limit of matches came first.
	Inconclusive = "inconclusive"
)

// The measures a [Verdict] compares.
const (
	// MeasureExpected compares the expected points of the matches (see
	// [Standing.ExpectedPerMatch]): the rules draw one number.
	MeasureExpected = "expected_points"
	// MeasurePoints compares the realised points: the rules do not say
	// what a match was worth before its draw.
	MeasurePoints = "points"
)

// CompareConfig configures a [Compare]. The zero value of every field but
// Candidate, Baseline and Pool means the documented default.
type CompareConfig struct {
	// Candidate and Baseline are the two strategies compared (the new and
	// the old version, say). Their names default as in [Config].
	Candidate, Baseline Entry
	// Pool are the opponents both play, at least one. Each side plays its
	// own copy of each Go opponent, built from the same seed, so that both
	// meet the same opponents; give a stateful opponent as NewStrategy,
	// not Strategy (a Strategy value is shared by both copies). A URL
	// opponent is one player both sides play: it sees both series.
	Pool []Entry
	// Recorded are seats of finished leagues, also a pool: each side
	// takes the seat in turn, against the recorded choices and numbers
	// (see [Replay]), before any round of Pool; the verdict may come
	// from them alone, or be inconclusive when they run out without
	// Pool.
	Recorded []RecordedSeat
	// PoolRef names the pinned pool the opponents come from, for the
	// verdict (see [Pool]). Optional.
	PoolRef *PoolRef
	// Alpha, Beta and Delta are the test's: the chance of a false
	// "better", the chance of missing a gain of Delta points a match, and
	// that smallest gain worth finding. Defaults [DefaultAlpha],
	// [DefaultBeta], [DefaultDelta].
	Alpha, Beta, Delta float64
	// MaxMatches and MinMatches bound the matches each side plays.
	// Defaults [DefaultMaxMatches] and [DefaultMinMatches]; both are
	// rounded up to whole rounds of the pool.
	MaxMatches, MinMatches int
	// Seed seeds the drawn numbers and the opponents' random sources, the
	// same for both sides, and the candidate's. Default [DefaultSeed].
	Seed uint64
	// BaselineSeed seeds the baseline's random source (and its player's
	// fallback). Default Seed: both sides draw the same random numbers,
	// which pairs their matches more closely. A different seed measures
	// two runs of one strategy as if they were different strategies.
	BaselineSeed uint64
	// GameType, Rules, MoveTimeout, JoinTimeout, GameOverTimeout,
	// HTTPClient and Logger are as in [Config].
	GameType        string
	Rules           rules.Rules
	MoveTimeout     time.Duration
	JoinTimeout     time.Duration
	GameOverTimeout time.Duration
	HTTPClient      *http.Client
	Logger          *slog.Logger
	// Progress, when set, is called after each round of the pool.
	Progress func(CompareProgress)
}

// RecordedSeat is a seat of a finished league (see [ReplayConfig]).
type RecordedSeat struct {
	// DataRoot, LeagueID and Seat are as in [ReplayConfig].
	DataRoot string `json:"data_root"`
	LeagueID string `json:"league_id,omitempty"`
	Seat     string `json:"seat"`
}

// CompareProgress is how far a [Compare] is.
type CompareProgress struct {
	// Matches counts the matches each side has played.
	Matches int
	// LLR is the test's log-likelihood ratio so far; it stops at Lower
	// (not better) or Upper (better).
	LLR, Lower, Upper float64
	// Elapsed is the time since Compare began.
	Elapsed time.Duration
}

// Side is what one side of a comparison earned against the pool.
type Side struct {
	// Name is the entry's name.
	Name string `json:"name"`
	// PointsPerMatch, ExpectedPerMatch and DifferRate are as in
	// [Standing].
	PointsPerMatch   Estimate  `json:"points_per_match"`
	ExpectedPerMatch *Estimate `json:"expected_points_per_match,omitempty"`
	DifferRate       *Estimate `json:"differ_rate,omitempty"`
	// TechnicalLosses, Moves, Fallbacks, Latency and Tokens are as in
	// [Standing].
	TechnicalLosses int      `json:"technical_losses"`
	Moves           int64    `json:"moves"`
	Fallbacks       int64    `json:"fallbacks"`
	Latency         *Latency `json:"latency,omitempty"`
	Tokens          *Tokens  `json:"tokens,omitempty"`
}

// Verdict is what a [Compare] concluded.
type Verdict struct {
	// Candidate and Baseline are what each side earned.
	Candidate Side `json:"candidate"`
	Baseline  Side `json:"baseline"`
	// Opponents are the pool's entries, by name.
	Opponents []string `json:"opponents"`
	// Result is [Better], [NotBetter] or [Inconclusive].
	Result string `json:"result"`
	// Measure is what was compared: [MeasureExpected] or [MeasurePoints].
	Measure string `json:"measure"`
	// Difference is the candidate's points a match less the baseline's,
	// in the Measure, with its 95 % interval. (The interval is the plain
	// one of the matches played; a test that stops early leans it
	// slightly towards the side it stopped on.)
	Difference Estimate `json:"difference"`
	// Matches counts the matches each side played.
	Matches int `json:"matches"`
	// Alpha, Beta and Delta are the test's.
	Alpha float64 `json:"alpha"`
	Beta  float64 `json:"beta"`
	Delta float64 `json:"delta"`
	// LLR is the test's final log-likelihood ratio, Lower and Upper its
	// bounds: ln(β / (1 − α)) and ln(1 / α). (Wald's approximation of
	// the upper one, ln((1 − β) / α), lets the chance of a false
	// "better" exceed α a little; ln(1 / α) keeps it within α by Wald's
	// inequality.)
	LLR   float64 `json:"llr"`
	Lower float64 `json:"llr_lower"`
	Upper float64 `json:"llr_upper"`
	// GameType, Seed and BaselineSeed are those of the comparison; Pool
	// its pinned pool, if any: with them it reruns exactly.
	GameType     string   `json:"game_type"`
	Seed         uint64   `json:"seed"`
	BaselineSeed uint64   `json:"baseline_seed"`
	Pool         *PoolRef `json:"pool,omitempty"`
	// Elapsed is how long Compare took.
	Elapsed time.Duration `json:"elapsed_ns"`
}

// String is the verdict in one line:
//
//	v2 vs v1 against 6 opponents: +0.031 points a match ± 0.008 (95 %), 6 800 matches each: better (α = β = 0.05, δ = 0.01)
func (v *Verdict) String() string {
	var b strings.Builder
	opponents := "opponents"
	if len(v.Opponents) == 1 {
		opponents = "opponent"
	}
	fmt.Fprintf(&b, "%s vs %s against %d %s: %+.3f points a match ± %.3f (95 %%)", v.Candidate.Name, v.Baseline.Name,
		len(v.Opponents), opponents, v.Difference.Mean, (v.Difference.High-v.Difference.Low)/2)
	if v.Measure == MeasurePoints {
		b.WriteString(" in realised points")
	}
	result := v.Result
	if result == Inconclusive {
		result = "inconclusive at the limit"
	}
	fmt.Fprintf(&b, ", %s matches each: %s (", grouped(v.Matches), result)
	if v.Alpha == v.Beta {
		fmt.Fprintf(&b, "α = β = %s", short(v.Alpha))
	} else {
		fmt.Fprintf(&b, "α = %s, β = %s", short(v.Alpha), short(v.Beta))
	}
	fmt.Fprintf(&b, ", δ = %s)", short(v.Delta))
	return b.String()
}

// Stable leaves out of the verdict what changes from one run to the next
// however reproducible the run (how long it took, the answer times), so
// that two runs with the same seeds print the same bytes.
func (v *Verdict) Stable() {
	v.Elapsed, v.Candidate.Latency, v.Baseline.Latency = 0, nil, nil
}

// WriteJSON writes the verdict as indented JSON.
func (v *Verdict) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteText writes the verdict's line, then what each side earned and
// the test's state, for a terminal.
func (v *Verdict) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString(v.String() + "\n\n")
	for _, s := range []Side{v.Candidate, v.Baseline} {
		fmt.Fprintf(&b, "  %s: realised %.3f %s points a match", s.Name, s.PointsPerMatch.Mean, interval(s.PointsPerMatch))
		if e := s.ExpectedPerMatch; e != nil {
			fmt.Fprintf(&b, ", expected %.4f %s", e.Mean, intervalPrec(*e, 4))
		}
		if d := s.DifferRate; d != nil {
			fmt.Fprintf(&b, ", differs in %.2f %% of its matches", 100*d.Mean)
		}
		if s.Fallbacks > 0 || s.TechnicalLosses > 0 {
			fmt.Fprintf(&b, ", %d fallbacks, %d technical losses", s.Fallbacks, s.TechnicalLosses)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\n  pool: %s\n", strings.Join(v.Opponents, ", "))
	if v.Pool != nil {
		fmt.Fprintf(&b, "  pinned pool %s, sha256 %s\n", v.Pool.Name, v.Pool.SHA256)
	}
	fmt.Fprintf(&b, "  seed %d, baseline seed %d · LLR %.2f within [%.2f, %.2f]", v.Seed, v.BaselineSeed, v.LLR, v.Lower, v.Upper)
	if v.Elapsed > 0 {
		fmt.Fprintf(&b, " · %s", v.Elapsed.Round(time.Millisecond))
	}
	b.WriteString("\n")
	for _, s := range []Side{v.Candidate, v.Baseline} {
		if l := s.Latency; l != nil {
			fmt.Fprintf(&b, "  %s answered in %s/%s/%s ms (p50/p99/max) of %s\n", s.Name, ms(l.P50), ms(l.P99), ms(l.Max), l.Deadline)
		}
		if k := s.Tokens; k != nil {
			fmt.Fprintf(&b, "  %s's model: %d/%d tokens in/out\n", s.Name, k.Prompt, k.Answer)
		}
	}
	b.WriteString("\nBoth sides played the same opponents, built from the same seeds, on the same drawn numbers, in the same order; " +
		"the test is a sequential probability ratio test on the per-match differences")
	if v.Measure == MeasureExpected {
		b.WriteString(" of expected points (the choices' worth over every number the referee could draw, which takes its chance out)")
	}
	b.WriteString(": better when a gain of δ a match is more likely than none, not better when none is, with the chances α and β of being wrong.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// short formats a test parameter: 0.05, 0.01, 0.001.
func short(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// grouped formats n, not negative, with a space between groups of three
// digits: 6 800.
func grouped(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + " " + s[i:]
	}
	return s
}

func intervalPrec(e Estimate, prec int) string {
	return fmt.Sprintf("[%.*f, %.*f]", prec, e.Low, prec, e.High)
}

// withDefaults checks the configuration and fills in the defaults.
func (cc CompareConfig) withDefaults() (CompareConfig, Config, error) {
	var problems []string
	if len(cc.Pool) == 0 && len(cc.Recorded) == 0 {
		problems = append(problems, "a comparison needs a pool of opponents that both the candidate and the baseline play: "+
			"against each other they expect the same points in every match, so a head-to-head cannot say which is better")
	}
	for name, v := range map[string]float64{"Alpha": cc.Alpha, "Beta": cc.Beta} {
		if v < 0 || v >= 0.5 {
			problems = append(problems, name+" must be between 0 and 0.5")
		}
	}
	if cc.Delta < 0 || math.IsNaN(cc.Delta) || math.IsInf(cc.Delta, 0) {
		problems = append(problems, "Delta cannot be negative")
	}
	if cc.MaxMatches < 0 || cc.MinMatches < 0 {
		problems = append(problems, "MaxMatches and MinMatches cannot be negative")
	}
	// The pool and the two sides must make a valid Config.
	for i, r := range cc.Recorded {
		if r.DataRoot == "" || r.Seat == "" {
			problems = append(problems, fmt.Sprintf("recorded seat %d needs a data root and a seat", i+1))
		}
	}
	cfg := Config{Entries: append([]Entry{cc.Candidate, cc.Baseline}, cc.Pool...), Rounds: 1, Seed: cc.Seed,
		GameType: cc.GameType, Rules: cc.Rules, MoveTimeout: cc.MoveTimeout, JoinTimeout: cc.JoinTimeout,
		GameOverTimeout: cc.GameOverTimeout, Parallel: 1, HTTPClient: cc.HTTPClient, Logger: cc.Logger}
	cfg, err := cfg.withDefaults()
	var ce *ConfigError
	if errors.As(err, &ce) {
		for _, p := range ce.Problems {
			if !strings.HasPrefix(p, "at least two entries") {
				problems = append(problems, p)
			}
		}
	}
	if len(problems) > 0 {
		return cc, cfg, &ConfigError{Problems: problems}
	}
	if cc.Alpha == 0 {
		cc.Alpha = DefaultAlpha
	}
	if cc.Beta == 0 {
		cc.Beta = DefaultBeta
	}
	if cc.Delta == 0 {
		cc.Delta = DefaultDelta
	}
	if cc.MaxMatches == 0 {
		cc.MaxMatches = DefaultMaxMatches
	}
	if cc.MinMatches == 0 {
		cc.MinMatches = DefaultMinMatches
	}
	cc.MinMatches = min(cc.MinMatches, cc.MaxMatches)
	cc.Seed = cfg.Seed
	if cc.BaselineSeed == 0 {
		cc.BaselineSeed = cc.Seed
	}
	return cc, cfg, nil
}

// side is one side of a comparison: its subject in seat 0, its copies of
// the pool's opponents in the others.
type side struct {
	cfg     Config
	seats   []*seat
	close   func()
	records []leaguesdk.PlayerRecord
	rec     *recorder
	expect  *expecter
}

// newSide makes a side whose subject is cfg.Entries[0] and opponents the
// rest; the subject's random sources derive from subjectSeed, the
// opponents' from cfg.Seed.
func newSide(cfg Config, names []string, subjectSeed uint64) (*side, error) {
	seats, closeAll, err := newSeatsSeeded(cfg, names, func(i int) uint64 {
		if i == 0 {
			return subjectSeed
		}
		return cfg.Seed
	})
	if err != nil {
		return nil, err
	}
	// The recorder's last place stands for the recorded leagues' opponents.
	return &side{cfg: cfg, seats: seats, close: closeAll, records: make([]leaguesdk.PlayerRecord, len(seats)),
		rec: newRecorder(len(seats) + 1), expect: newExpecter(cfg.Rules)}, nil
}

// playRound plays the subject against every opponent once, in order, and
// returns the matches' outcomes.
func (s *side) playRound(ctx context.Context, round int) ([]played, error) {
	out := make([]played, len(s.seats)-1)
	for j := 1; j < len(s.seats); j++ {
		a, b := 0, j
		if round%2 == 1 {
			a, b = b, a
		}
		m := &matchPlay{cfg: s.cfg, seats: [2]*seat{s.seats[a], s.seats[b]}, index: [2]int{a, b}, roundID: round + 1,
			matchID: "R" + strconv.Itoa(round+1) + "M" + strconv.Itoa(j), standings: [2]leaguesdk.PlayerRecord{s.records[a], s.records[b]},
			rand: source(s.cfg.Seed, 1<<62, uint64(round), uint64(j)), expect: s.expect}
		p, err := m.play(ctx)
		if err != nil {
			return nil, err
		}
		s.rec.add(p)
		for k, i := range p.players {
			switch p.result[k].Points() {
			case 3:
				s.records[i].Wins++
			case 1:
				s.records[i].Draws++
			default:
				s.records[i].Losses++
			}
		}
		out[j-1] = p
	}
	return out, nil
}

// addReplay counts the subject's replayed matches of a recorded league.
func (s *side) addReplay(r *ReplayReport) {
	other := len(s.seats)
	for _, m := range r.Matches {
		p := played{players: [2]int{0, other}, points: [2]int{m.Points}, expected: [2]float64{m.Expected}, hasExpected: s.expect != nil, differ: -1}
		switch m.Points {
		case 3:
			p.result[0] = player.Win
		case 1:
			p.result[0] = player.Draw
		default:
			p.result[0] = player.Loss
		}
		if m.Choice != "" && m.OpponentChoice != "" {
			p.differ = 0
			if m.Choice != m.OpponentChoice {
				p.differ = 1
			}
		}
		s.rec.add(p)
	}
}

// subject returns what the side's subject earned.
func (s *side) subject(name string) Side {
	t := s.rec.tallies[0]
	out := Side{Name: name, PointsPerMatch: t.ppm.estimate(), TechnicalLosses: t.technical}
	if t.exp.n > 0 {
		out.ExpectedPerMatch = ptr(t.exp.estimate())
	}
	if t.differ.n > 0 {
		out.DifferRate = ptr(t.differ.estimate())
	}
	m := newRecorder(1)
	m.measured(0, s.seats[0], s.cfg.MoveTimeout)
	out.Moves, out.Fallbacks, out.Latency, out.Tokens = m.decisions[0].Made, m.decisions[0].Fallbacks, m.latency[0], m.tokens[0]
	return out
}

// score is what entry 0 of the match earned in measure.
func (p played) score(measure string) float64 {
	k := 0
	if p.players[1] == 0 {
		k = 1
	}
	if measure == MeasureExpected && p.hasExpected {
		return p.expected[k]
	}
	return float64(p.points[k])
}

// sprt is a sequential probability ratio test of H0: the mean difference
// is 0 against H1: it is delta, on the normal approximation with the
// variance estimated from the differences so far (a generalised SPRT, as
// chess engine testing runs it).
type sprt struct {
	delta, lower, upper float64
	d                   moments
}

func newSPRT(alpha, beta, delta float64) *sprt {
	return &sprt{delta: delta, lower: math.Log(beta / (1 - alpha)), upper: math.Log(1 / alpha),
		d: moments{low: -3, top: 3}}
}

// llr returns the log-likelihood ratio of H1 against H0: n δ (2 x̄ − δ) /
// (2 σ²), with σ² the differences' variance (kept above a floor, so that
// differences that are all equal decide at once).
func (t *sprt) llr() float64 {
	if t.d.n == 0 {
		return 0
	}
	n := float64(t.d.n)
	mean := t.d.sum / n
	variance := max(t.d.sq/n-mean*mean, 1e-9)
	return n * t.delta * (2*mean - t.delta) / (2 * variance)
}

// Compare plays the candidate and the baseline against the same pool, on
// common random numbers (the same opponents built from the same seeds,
// the same drawn numbers, the same order of matches, the same roles), and
// tests the per-match differences of their points sequentially until the
// candidate is better, not better, or the limit of matches comes. It
// compares expected points when the rules give them ([rules.DrawRules]),
// else realised points. It stops when ctx ends, returning ctx's error,
// and returns a *[ConfigError] for a [CompareConfig] that cannot run,
// such as one without a pool.
func Compare(ctx context.Context, cc CompareConfig) (*Verdict, error) {
	cc, cfg, err := cc.withDefaults()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	names := cfg.names()
	pool := names[2:]
	sides := [2]*side{}
	for k := range 2 {
		c := cfg
		c.Entries = append([]Entry{cfg.Entries[k]}, cfg.Entries[2:]...)
		seed := cc.Seed
		if k == 1 {
			seed = cc.BaselineSeed
		}
		if sides[k], err = newSide(c, append([]string{names[k]}, pool...), seed); err != nil {
			return nil, err // the other side, if any, closes as deferred
		}
		defer sides[k].close()
	}
	measure := MeasurePoints
	if sides[0].expect != nil {
		measure = MeasureExpected
	}
	test := newSPRT(cc.Alpha, cc.Beta, cc.Delta)
	result := Inconclusive
	// decide applies the test; last says no match follows, when the
	// minimum does not hold.
	decide := func(last bool) bool {
		llr := test.llr()
		if cc.Progress != nil {
			cc.Progress(CompareProgress{Matches: test.d.n, LLR: llr, Lower: test.lower, Upper: test.upper, Elapsed: time.Since(start)})
		}
		switch {
		case test.d.n < cc.MinMatches && !last:
		case llr >= test.upper:
			result = Better
		case llr <= test.lower:
			result = NotBetter
		}
		return result != Inconclusive
	}
	decided := false
	for ri, r := range cc.Recorded {
		if decided || test.d.n >= cc.MaxMatches {
			break
		}
		var reps [2]*ReplayReport
		for k := range 2 {
			seed := cc.Seed
			if k == 1 {
				seed = cc.BaselineSeed
			}
			e := cfg.Entries[k]
			e.Name = names[k]
			if reps[k], err = Replay(ctx, ReplayConfig{DataRoot: r.DataRoot, LeagueID: r.LeagueID, Seat: r.Seat, Entry: e, Seed: seed,
				Rules: cfg.Rules, MoveTimeout: cfg.MoveTimeout, Logger: cfg.Logger}); err != nil {
				return nil, err
			}
			sides[k].addReplay(reps[k])
		}
		pool = append(pool, "league "+reps[0].LeagueID+" seat "+r.Seat)
		for j := range reps[0].Matches {
			a, b := reps[0].Matches[j], reps[1].Matches[j]
			if measure == MeasureExpected {
				test.d.add(a.Expected - b.Expected)
			} else {
				test.d.add(float64(a.Points - b.Points))
			}
		}
		decided = decide(ri == len(cc.Recorded)-1 && len(cc.Pool) == 0)
	}
	for round := 0; !decided && len(cc.Pool) > 0 && test.d.n < cc.MaxMatches; round++ {
		var res [2][]played
		var errs [2]error
		var wg sync.WaitGroup
		wg.Go(func() { res[1], errs[1] = sides[1].playRound(ctx, round) })
		res[0], errs[0] = sides[0].playRound(ctx, round)
		wg.Wait()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
		for j := range res[0] {
			test.d.add(res[0][j].score(measure) - res[1][j].score(measure))
		}
		decided = decide(false)
	}
	return &Verdict{Candidate: sides[0].subject(names[0]), Baseline: sides[1].subject(names[1]), Opponents: pool,
		Result: result, Measure: measure, Difference: test.d.estimate(), Matches: test.d.n,
		Alpha: cc.Alpha, Beta: cc.Beta, Delta: cc.Delta, LLR: test.llr(), Lower: test.lower, Upper: test.upper,
		GameType: cfg.GameType, Seed: cc.Seed, BaselineSeed: cc.BaselineSeed, Pool: cc.PoolRef, Elapsed: time.Since(start)}, nil
}
