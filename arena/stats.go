package arena

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
)

// RandomPlay is what choosing at random earns per even/odd match, whatever
// the opponent does: a draw (1 point) half the time, and half of the
// decisive matches (3 points) the other half, 1.25 on average.
const RandomPlay = 1.25

// Estimate is a mean with its 95 % confidence interval, from Student's t,
// kept within the values' range.
type Estimate struct {
	// Mean is the sample's mean.
	Mean float64 `json:"mean"`
	// Low and High bound the interval.
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// MarshalJSON writes the estimate with its numbers rounded to
// [JSONDecimals] decimals.
func (e Estimate) MarshalJSON() ([]byte, error) {
	type plain Estimate
	return json.Marshal(plain{Mean: roundJSON(e.Mean), Low: roundJSON(e.Low), High: roundJSON(e.High)})
}

// JSONDecimals is how many decimals the numbers of a [Report]'s JSON keep:
// the intervals are wider than a thousandth after any run.
const JSONDecimals = 4

// roundJSON rounds v to JSONDecimals decimals.
func roundJSON(v float64) float64 {
	const scale = 1e4 // 10^JSONDecimals
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	return math.Round(v*scale) / scale
}

// Contains reports whether v lies within the interval.
func (e Estimate) Contains(v float64) bool { return e.Low <= v && v <= e.High }

// Standing is one entry's line of a [Report].
type Standing struct {
	// Name is the entry's name, URL its URL when it was played over HTTP.
	Name string `json:"name"`
	URL  string `json:"url,omitempty"`
	// Played, Wins and Draws count its matches.
	Played int `json:"played"`
	Wins   int `json:"wins"`
	Draws  int `json:"draws"`
	// Losses include the technical losses, also counted on their own.
	Losses          int `json:"losses"`
	TechnicalLosses int `json:"technical_losses"`
	// Points are the league points it earned: 3 a win, 1 a draw.
	Points int `json:"points"`
	// PointsPerMatch is the mean of the entry's realised points per
	// match: the points the drawn numbers gave its choices.
	PointsPerMatch Estimate `json:"points_per_match"`
	// ExpectedPerMatch is the mean of its expected points per match: what
	// its choices and its opponents' were worth on average over every
	// number the referee could have drawn (a technical loss's points
	// count as they are). It carries all that the strategy controls
	// without the referee's chance, and so has a narrower interval for
	// the same matches. Set for rules whose only chance is the drawn
	// number ([rules.DrawRules], as even/odd's); nil otherwise.
	ExpectedPerMatch *Estimate `json:"expected_points_per_match,omitempty"`
	// DifferRate is the share of its matches with both choices made in
	// which its choice differed from its opponent's. In even/odd it is
	// all a strategy controls: alike choices draw (1 point each), different
	// ones let the number pick the winner (1.5 each on average). Nil when
	// no match had both choices.
	DifferRate *Estimate `json:"differ_rate,omitempty"`
	// Gain is ExpectedPerMatch (PointsPerMatch when nil) less
	// [RandomPlay], in the even/odd game only: what the strategy earns
	// beyond choosing at random.
	Gain *Estimate `json:"gain,omitempty"`
	// Rating is the entry's rating on the Elo scale (see
	// [RatingMethodExpected] and [RatingMethodPoints]); the Standings are
	// ranked by it.
	Rating float64 `json:"rating"`
	// Moves counts the choices the entry's player made; Fallbacks those
	// its strategy did not give (it failed, panicked, or answered late or
	// invalidly) and the player's fallback answered instead (see
	// [player.Decisions]). Both are zero for a URL entry, whose player the
	// arena cannot see into.
	Moves     int64 `json:"moves"`
	Fallbacks int64 `json:"fallbacks"`
	// Latency is how long its player took to answer a move call, from the
	// call to the answer, against the deadline; nil in League mode.
	Latency *Latency `json:"latency,omitempty"`
	// Tokens are those its model's answers reported, for a strategy that
	// counts them (a method Usage() (prompt, answer int64), as the model
	// strategies of package strategies/llm have); nil otherwise.
	Tokens *Tokens `json:"tokens,omitempty"`
	// FallbackCause says why the latest of the Fallbacks was not the
	// strategy's choice, as the player logs it: the strategy's error (a
	// model's answers "404 Not Found", with the URL it called), its
	// lateness or its invalid answer. Empty without fallbacks.
	FallbackCause string `json:"fallback_cause,omitempty"`
	// Flagged is set when the entry fell back on more than [FallbackLimit]
	// of its moves: its results are largely its fallback's, not its
	// strategy's. The Report's Warnings say so.
	Flagged bool `json:"flagged"`
	// Against holds the entry's head-to-head record against every other
	// entry, in the order of the [Report]'s Standings.
	Against []HeadToHead `json:"against"`
}

// Latency sums up the time an entry's player took to answer its move
// calls.
type Latency struct {
	// P50, P99 and Max are the median, the 99th percentile and the
	// longest; Deadline is the move calls' deadline ([Config.MoveTimeout]).
	P50      time.Duration `json:"p50_ns"`
	P99      time.Duration `json:"p99_ns"`
	Max      time.Duration `json:"max_ns"`
	Deadline time.Duration `json:"deadline_ns"`
}

// Tokens counts the tokens of a model strategy's answers, as its SDK
// reported them.
type Tokens struct {
	Prompt int64 `json:"prompt"`
	Answer int64 `json:"answer"`
}

// MarshalJSON writes the standing with its rating rounded to
// [JSONDecimals] decimals, as its estimates are.
func (s Standing) MarshalJSON() ([]byte, error) {
	type plain Standing
	p := plain(s)
	p.Rating = roundJSON(p.Rating)
	return json.Marshal(p)
}

// HeadToHead is one entry's record against one opponent.
type HeadToHead struct {
	// Opponent is the other entry's name; Played counts their matches.
	Opponent string `json:"opponent"`
	Played   int    `json:"played"`
	// PointsPerMatch is what the entry earned per match against the
	// opponent, ExpectedPerMatch what it could expect (see
	// [Standing.ExpectedPerMatch]; nil when the rules do not say).
	PointsPerMatch   Estimate  `json:"points_per_match"`
	ExpectedPerMatch *Estimate `json:"expected_points_per_match,omitempty"`
	// Margin is the entry's points less the opponent's, per match.
	Margin Estimate `json:"margin"`
}

// Report is what a [Run] measured.
type Report struct {
	// GameType, Rounds and Seed are those of the [Config].
	GameType string `json:"game_type"`
	Rounds   int    `json:"rounds"`
	Seed     uint64 `json:"seed"`
	// Matches counts the matches played; Elapsed is how long [Run] took.
	Matches int           `json:"matches"`
	Elapsed time.Duration `json:"elapsed_ns"`
	// League is set when the matches were played in whole leagues.
	League bool `json:"league,omitempty"`
	// Pool names the pinned pool the entries came from, when they did
	// (see [Pool]): with the Seed, what reruns the report exactly.
	Pool *PoolRef `json:"pool,omitempty"`
	// RatingMethod says how [Standing.Rating] is computed.
	RatingMethod string `json:"rating_method"`
	// Standings lists the entries by rating, which follows the points per
	// match, best first.
	Standings []Standing `json:"standings"`
	// Warnings say what makes the report measure something else than the
	// strategies: one line per Flagged entry.
	Warnings []string `json:"warnings,omitempty"`
}

// PoolRef identifies a pinned [Pool] in a report.
type PoolRef struct {
	// Name is the pool's name (its file's, when read from one).
	Name string `json:"name"`
	// SHA256 is the hex SHA-256 of the pool's canonical content (see
	// [Pool.Hash]).
	SHA256 string `json:"sha256"`
}

// FallbackLimit is the share of its moves on which an entry may fall
// back before the [Report] flags it.
const FallbackLimit = 0.1

// FallbackShare returns the share of the entry's moves its fallback
// answered: Fallbacks / Moves, 0 without moves.
func (s Standing) FallbackShare() float64 {
	if s.Moves == 0 {
		return 0
	}
	return float64(s.Fallbacks) / float64(s.Moves)
}

// RatingMethodPoints is the [Report]'s rating method for rules without
// expected points: the entry's league
// points as a share of the 3 a match can earn, (points + ½) / (3 × played
// + 1), on the Elo scale (400 × log10 of the share's odds), shifted so that
// the entries average 1500. It follows the points per match, so the rating
// and the ranking agree: every entry meets every other equally often, in
// both roles, so no entry's schedule needs weighing. (A pairwise model such
// as Bradley–Terry cannot rate even/odd: avoiding a draw profits both
// players, and the strategy that avoids draws wins no more of its head to
// heads than random play does, only more points.)
const RatingMethodPoints = "points_elo"

// RatingMethodExpected is the rating method of rules with expected
// points ([Standing.ExpectedPerMatch]): [RatingMethodPoints] on the
// expected points instead of the realised ones, so that the ranking
// follows what the strategies chose rather than the numbers drawn.
const RatingMethodExpected = "expected_points_elo"

// Standing returns the line of the entry named name.
func (r *Report) Standing(name string) (Standing, bool) {
	i := slices.IndexFunc(r.Standings, func(s Standing) bool { return s.Name == name })
	if i < 0 {
		return Standing{}, false
	}
	return r.Standings[i], true
}

// HeadToHead returns the record of entry name against opponent.
func (r *Report) HeadToHead(name, opponent string) (HeadToHead, bool) {
	s, ok := r.Standing(name)
	if !ok {
		return HeadToHead{}, false
	}
	i := slices.IndexFunc(s.Against, func(h HeadToHead) bool { return h.Opponent == opponent })
	if i < 0 {
		return HeadToHead{}, false
	}
	return s.Against[i], true
}

// moments accumulates a sample's count, sum and sum of squares.
type moments struct {
	n        int
	sum, sq  float64
	low, top float64 // the range the values can take
}

func (m *moments) add(v float64) {
	m.n++
	m.sum += v
	m.sq += v * v
}

// estimate returns the mean with its 95 % interval (Student's t), kept
// within the values' range; with fewer than two values the interval is
// the whole range.
func (m moments) estimate() Estimate {
	if m.n == 0 {
		return Estimate{Low: m.low, High: m.top}
	}
	mean := m.sum / float64(m.n)
	if m.n < 2 {
		return Estimate{Mean: mean, Low: m.low, High: m.top}
	}
	variance := max(0, (m.sq-m.sum*mean)/float64(m.n-1))
	half := t975(m.n-1) * math.Sqrt(variance/float64(m.n))
	return Estimate{Mean: mean, Low: max(m.low, mean-half), High: min(m.top, mean+half)}
}

// t975 returns the 97.5 % quantile of Student's t with df degrees of
// freedom: the factor of a two-sided 95 % interval.
func t975(df int) float64 {
	table := [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}
	if df >= 1 && df <= len(table) {
		return table[df-1]
	}
	// Beyond 30 degrees of freedom, the first terms of the Cornish–Fisher
	// expansion around the normal quantile are within 0.001.
	const z = 1.959964
	d := float64(df)
	return z + (z*z*z+z)/(4*d) + (5*z*z*z*z*z+16*z*z*z+3*z)/(96*d*d)
}

// tally is one entry's record.
type tally struct {
	played, wins, draws, losses, technical, points int
	ppm, exp, differ                               moments
}

// pair is the record of entry i against entry j.
type pair struct {
	ppm, exp, margin moments
}

// recorder gathers the outcomes of a run.
type recorder struct {
	n         int
	matches   int
	tallies   []tally
	pairs     [][]pair
	decisions []player.Decisions // by entry; zero for URL entries
	latency   []*Latency         // by entry; nil when not measured
	tokens    []*Tokens          // by entry; nil when not counted
}

func newRecorder(n int) *recorder {
	r := &recorder{n: n, tallies: make([]tally, n), pairs: make([][]pair, n), decisions: make([]player.Decisions, n),
		latency: make([]*Latency, n), tokens: make([]*Tokens, n)}
	for i := range n {
		r.tallies[i].ppm = moments{low: 0, top: 3}
		r.tallies[i].exp = moments{low: 0, top: 3}
		r.tallies[i].differ = moments{low: 0, top: 1}
		r.pairs[i] = make([]pair, n)
		for j := range n {
			r.pairs[i][j] = pair{ppm: moments{low: 0, top: 3}, exp: moments{low: 0, top: 3}, margin: moments{low: -3, top: 3}}
		}
	}
	return r
}

// add records one match.
func (r *recorder) add(p played) {
	r.matches++
	for k := range 2 {
		i, j := p.players[k], p.players[1-k]
		t := &r.tallies[i]
		t.played++
		t.points += p.points[k]
		t.ppm.add(float64(p.points[k]))
		if p.hasExpected {
			t.exp.add(p.expected[k])
			r.pairs[i][j].exp.add(p.expected[k])
		}
		if p.differ >= 0 {
			t.differ.add(float64(p.differ))
		}
		switch p.result[k] {
		case player.Win:
			t.wins++
		case player.Draw:
			t.draws++
		case player.TechnicalLoss:
			t.technical++
			t.losses++
		default:
			t.losses++
		}
		pr := &r.pairs[i][j]
		pr.ppm.add(float64(p.points[k]))
		pr.margin.add(float64(p.points[k] - p.points[1-k]))
	}
}

// decided adds the decisions of a player of entry i.
func (r *recorder) decided(i int, d player.Decisions) {
	r.decisions[i].Made += d.Made
	r.decisions[i].Fallbacks += d.Fallbacks
	if d.Cause != "" {
		r.decisions[i].Cause = d.Cause
	}
}

// measured adds what seat s of entry i measured: its player's decisions,
// the latency of its move calls, its strategy's tokens.
func (r *recorder) measured(i int, s *seat, deadline time.Duration) {
	if s.agent != nil {
		r.decided(i, s.agent.Decisions())
	}
	if u, ok := s.strategy.(usage); ok {
		p, a := u.Usage()
		r.tokens[i] = &Tokens{Prompt: p, Answer: a}
	}
	s.mu.Lock()
	ds := slices.Clone(s.latency)
	s.mu.Unlock()
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	at := func(q float64) time.Duration { return ds[min(len(ds)-1, int(math.Ceil(q*float64(len(ds))))-1)] }
	r.latency[i] = &Latency{P50: at(0.5), P99: at(0.99), Max: ds[len(ds)-1], Deadline: deadline}
}

// records returns each entry's record so far, as a referee sends it.
func (r *recorder) records() []leaguesdk.PlayerRecord {
	out := make([]leaguesdk.PlayerRecord, r.n)
	for i, t := range r.tallies {
		out[i] = leaguesdk.PlayerRecord{Wins: t.wins, Losses: t.losses, Draws: t.draws}
	}
	return out
}

// table returns the standings table of the seats, as a manager ranks it:
// points, wins, draws, then player id.
func (r *recorder) table(seats []*seat) []leaguesdk.StandingRow {
	rows := make([]leaguesdk.StandingRow, len(seats))
	for i, s := range seats {
		t := r.tallies[i]
		rows[i] = leaguesdk.StandingRow{PlayerID: s.id, DisplayName: s.name, Played: t.played, Wins: t.wins,
			Draws: t.draws, Losses: t.losses, Points: t.points}
	}
	slices.SortStableFunc(rows, func(a, b leaguesdk.StandingRow) int {
		return cmp.Or(b.Points-a.Points, b.Wins-a.Wins, b.Draws-a.Draws, cmp.Compare(a.PlayerID, b.PlayerID))
	})
	for i := range rows {
		rows[i].Rank = i + 1
	}
	return rows
}

// expected reports whether every entry's matches have expected points.
func (r *recorder) expected() bool {
	for _, t := range r.tallies {
		if t.exp.n != t.played {
			return false
		}
	}
	return true
}

// ratings returns the entries' ratings (see [RatingMethodPoints]), on the
// expected points when exp.
func (r *recorder) ratings(exp bool) []float64 {
	out := make([]float64, r.n)
	var mean float64
	for i, t := range r.tallies {
		points := float64(t.points)
		if exp {
			points = t.exp.sum
		}
		share := (points + 0.5) / (3*float64(t.played) + 1)
		out[i] = 400 * math.Log10(share/(1-share))
		mean += out[i] / float64(r.n)
	}
	for i := range out {
		out[i] += 1500 - mean
	}
	return out
}

// report builds the Report of the run.
func (r *recorder) report(cfg Config, names []string, elapsed time.Duration) *Report {
	rep := &Report{GameType: cfg.GameType, Rounds: cfg.Rounds, Seed: cfg.Seed, Matches: r.matches, Elapsed: elapsed,
		League: cfg.League, RatingMethod: RatingMethodPoints, Pool: cfg.PoolRef}
	exp := r.expected()
	if exp {
		rep.RatingMethod = RatingMethodExpected
	}
	ratings := r.ratings(exp)
	order := make([]int, r.n)
	for i := range order {
		order[i] = i
	}
	mean := func(i int) float64 {
		if exp {
			return r.tallies[i].exp.estimate().Mean
		}
		return r.tallies[i].ppm.estimate().Mean
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Or(cmp.Compare(ratings[b], ratings[a]), cmp.Compare(mean(b), mean(a))) })
	for _, i := range order {
		t, d := r.tallies[i], r.decisions[i]
		s := Standing{Name: names[i], URL: cfg.Entries[i].URL, Played: t.played, Wins: t.wins, Draws: t.draws, Losses: t.losses,
			TechnicalLosses: t.technical, Points: t.points, PointsPerMatch: t.ppm.estimate(), Rating: ratings[i],
			Moves: d.Made, Fallbacks: d.Fallbacks, FallbackCause: d.Cause, Latency: r.latency[i], Tokens: r.tokens[i]}
		if s.FallbackShare() > FallbackLimit {
			s.Flagged = true
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s fell back on %d of its %d moves (%.0f %%, more than %.0f %%): its results are mostly its fallback's, not its strategy's; latest fallback: %s",
				s.Name, s.Fallbacks, s.Moves, 100*s.FallbackShare(), 100*FallbackLimit, s.FallbackCause))
		}
		if t.exp.n > 0 {
			s.ExpectedPerMatch = ptr(t.exp.estimate())
		}
		if t.differ.n > 0 {
			s.DifferRate = ptr(t.differ.estimate())
		}
		if cfg.GameType == leaguesdk.GameEvenOdd {
			g := s.PointsPerMatch
			if s.ExpectedPerMatch != nil {
				g = *s.ExpectedPerMatch
			}
			s.Gain = &Estimate{Mean: g.Mean - RandomPlay, Low: g.Low - RandomPlay, High: g.High - RandomPlay}
		}
		for _, j := range order {
			if j == i {
				continue
			}
			p := r.pairs[i][j]
			h := HeadToHead{Opponent: names[j], Played: p.ppm.n, PointsPerMatch: p.ppm.estimate(), Margin: p.margin.estimate()}
			if p.exp.n > 0 {
				h.ExpectedPerMatch = ptr(p.exp.estimate())
			}
			s.Against = append(s.Against, h)
		}
		rep.Standings = append(rep.Standings, s)
	}
	return rep
}

func ptr[T any](v T) *T { return &v }
