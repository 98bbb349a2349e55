// Command arena measures strategies against each other: it plays a
// round-robin between them, repeated, with the real game rules and the
// real player behaviour, and prints each one's points per match with a
// 95 % confidence interval, a head-to-head table and a rating.
//
//	go run ./examples/arena -rounds 1000 random history always_even always_odd
//	go run ./examples/arena -rounds 200 -player mine=http://127.0.0.1:8101/mcp random history
//	go run ./examples/arena -candidate history -baseline random always_even always_odd random history
//
// The arguments name ready strategies (random, always_even, always_odd,
// history; see package strategies; and llm, llm_chat, see package
// strategies/llm). Flags:
//
//	-rounds N     how many times the round-robin is played (100)
//	-seed N       the seed of every random draw; the same seed gives the same report (1)
//	-player URL   a running player to include, in any language (repeatable);
//	              name=URL names it in the report (default: its URL)
//	-league       play whole leagues (manager, referees, players) over an in-memory network
//	-move-timeout D  the deadline of each choice (30s)
//	-parallel N   matches played at once, up to a round's (half the entries); default the number of CPUs
//	-json | -csv  print the report as JSON or CSV instead of tables (one of them)
//	-strict       exit with an error when an entry fell back on more than a tenth of its moves
//	-quiet        no progress line on stderr (on a terminal, one line rewritten in place;
//	              in a file or a pipe, a plain line every ten seconds and at the end)
//	-cassette FILE  record the model strategies' answers, keyed by what they were asked, and play them back on a rerun
//	-stable       leave times out of the report, so that a rerun prints the same bytes
//
// With -candidate A -baseline B, the arguments (and -player URLs) are a
// pool of opponents: A and B each play the pool on the same random
// numbers, and a sequential test of their per-match differences in
// expected points says whether A is better, in one line and a summary
// (or JSON with -json). Without a pool, the comparison is refused. Flags:
//
//	-alpha P, -beta P   the chances of a false "better" and of missing a gain of δ (0.05 each)
//	-delta D            the smallest gain worth finding, in points a match (0.01: differing 2 % more often)
//	-max-matches N      the matches each side plays at most before "inconclusive" (100000)
//	-baseline-seed N    the seed of the baseline's own random source (default -seed)
//
// With -replay <data root> -seat P03 strategy, the strategy takes the
// seat of a finished league (its referees' transcripts in
// data/matches/<league>/), against the opponents' recorded choices and
// the recorded numbers: "with history you would have had 61 points, rank
// 3 of 50 (the seat had 54, rank 9)". -league-id names the league when
// the data root holds several.
//
// -pool FILE adds the opponents of a pinned pool (JSON: ready strategies
// with their parameters and seeds, players by URL, seats of recorded
// leagues for a comparison; see [arena.Pool]); the report and the
// verdict carry the pool's SHA-256 and the seed (the pool's unless -seed
// is given), so that a rerun is exact.
//
// An entry whose player answered with its fallback (the strategy failed,
// or answered late) on more than a tenth of its moves is flagged in the
// report and warned about on stderr: its results are mostly its
// fallback's. The llm_chat strategy reads LEAGUE_CHAT_MODEL (required),
// OPENAI_BASE_URL (default: the Ollama of OLLAMA_HOST, else a local one) and
// OPENAI_API_KEY; llm reads LEAGUE_LLM_MODEL and GEMINI_API_KEY. -h lists
// them all.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/agentleague/league/arena"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/player/strategies/llm"
)

// version is the release this program was built as, linked in by the
// release build (.ci/build-release: -ldflags "-X main.version=v0.2.0");
// -version prints it.
var version = "devel"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "arena:", err)
		os.Exit(1)
	}
}

// urls collects the repeated -player flag.
type urls []string

func (u *urls) String() string     { return strings.Join(*u, ",") }
func (u *urls) Set(v string) error { *u = append(*u, v); return nil }

// remoteEntry is the entry of a -player value: a URL, named by itself, or
// name=URL.
func remoteEntry(v string) arena.Entry {
	if name, u, ok := strings.Cut(v, "="); ok && !strings.Contains(name, "://") {
		return arena.Entry{Name: strings.TrimSpace(name), URL: strings.TrimSpace(u)}
	}
	return arena.Remote(v)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("arena", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rounds := fs.Int("rounds", arena.DefaultRounds, "how many times the round-robin is played")
	seed := fs.Uint64("seed", arena.DefaultSeed, "the seed of every random draw")
	var players urls
	fs.Var(&players, "player", "the /mcp endpoint of a running player to include, named by its URL or as name=URL (repeatable)")
	league := fs.Bool("league", false, "play whole leagues (manager, referees, players) over an in-memory network")
	moveTimeout := fs.Duration("move-timeout", 30*time.Second, "the deadline of each choice")
	parallel := fs.Int("parallel", 0, "matches played at once, up to a round's (half the entries); default the number of CPUs")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	asCSV := fs.Bool("csv", false, "print the report as CSV")
	strict := fs.Bool("strict", false, "exit with an error when an entry fell back on more than a tenth of its moves")
	quiet := fs.Bool("quiet", false, "no progress line on stderr")
	candidate := fs.String("candidate", "", "compare this strategy (a name or a player's URL) with -baseline against the pool the arguments name")
	baseline := fs.String("baseline", "", "the strategy -candidate is compared with")
	alpha := fs.Float64("alpha", arena.DefaultAlpha, "with -candidate: the chance of calling the candidate better when it is not")
	beta := fs.Float64("beta", arena.DefaultBeta, "with -candidate: the chance of missing a gain of -delta")
	delta := fs.Float64("delta", arena.DefaultDelta, "with -candidate: the smallest gain worth finding, in points a match")
	maxMatches := fs.Int("max-matches", arena.DefaultMaxMatches, "with -candidate: the matches each side plays at most before the verdict is inconclusive")
	replay := fs.String("replay", "", "the data root of a finished league: put the strategy the argument names in -seat's place, against the recorded choices and numbers")
	seat := fs.String("seat", "", "with -replay: the player id whose seat the strategy takes")
	leagueID := fs.String("league-id", "", "with -replay: the league, when the data root holds several")
	cassettePath := fs.String("cassette", "", "record the model strategies' answers in this file, keyed by what they were asked, and play them back on a rerun")
	stable := fs.Bool("stable", false, "leave out of the report what changes from run to run (times, answer times), so that a rerun prints the same bytes")
	poolFile := fs.String("pool", "", "a pinned pool of opponents (JSON): its entries join the arguments', its hash and seed go into the report")
	baselineSeed := fs.Uint64("baseline-seed", 0, "with -candidate: the seed of the baseline's own random source (default -seed: both draw the same numbers)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: arena [flags] strategy... ("+strings.Join(llm.Names(), ", ")+")")
		fs.PrintDefaults()
		fmt.Fprint(stderr, "\n"+llm.EnvUsage)
	}
	showVersion := fs.Bool("version", false, "print the release this program was built as, and exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *showVersion {
		fmt.Fprintln(stdout, "arena", version)
		return nil
	}
	if *asJSON && *asCSV {
		return errors.New("-json and -csv cannot be used together: choose one output format")
	}
	var models *http.Client
	if *cassettePath != "" {
		c, err := llm.OpenCassette(*cassettePath, nil)
		if err != nil {
			return err
		}
		defer func() {
			_ = c.Close()
			if !*quiet {
				fmt.Fprintf(stderr, "arena: cassette %s: %d answers played back, %d asked of the model\n", *cassettePath, c.Played(), c.Asked())
			}
		}()
		models = c.Client()
	}
	named := func(name string) arena.Entry {
		return arena.Entry{Name: name, NewStrategy: func(r io.Reader) (player.Strategy, error) {
			s, err := llm.ByName(name, r)
			if err != nil || models == nil {
				return s, err
			}
			return llm.WithClient(s, models), nil
		}}
	}
	entryOf := func(s string) arena.Entry {
		if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") {
			return arena.Remote(s)
		}
		return named(s)
	}
	if *replay != "" {
		if fs.NArg() != 1 || *seat == "" {
			return errors.New("-replay needs -seat and one strategy: arena -replay <data root> -seat P03 history")
		}
		rep, err := arena.Replay(ctx, arena.ReplayConfig{DataRoot: *replay, LeagueID: *leagueID, Seat: *seat, Entry: named(fs.Arg(0)),
			Seed: *seed, MoveTimeout: *moveTimeout})
		if err != nil {
			return err
		}
		if *asJSON {
			return rep.WriteJSON(stdout)
		}
		changed := 0
		for _, m := range rep.Matches {
			if m.Points != m.RecordedPoints {
				changed++
			}
		}
		_, err = fmt.Fprintf(stdout, "%s\n\n  league %s, seat %s: %d matches replayed against the recorded choices and numbers, %d with another result\n"+
			"  expected points a match: %.3f %s with %s, %.3f %s as recorded\n",
			rep, rep.LeagueID, rep.Seat, len(rep.Matches), changed, rep.ExpectedPerMatch.Mean, intervalOf(rep.ExpectedPerMatch), rep.Strategy,
			rep.RecordedExpected.Mean, intervalOf(rep.RecordedExpected))
		return err
	}
	var pool []arena.Entry
	var recorded []arena.RecordedSeat
	var poolRef *arena.PoolRef
	if *poolFile != "" {
		p, err := arena.ReadPool(*poolFile)
		if err != nil {
			return err
		}
		if pool, err = p.Entries(llm.ByName); err != nil {
			return err
		}
		poolRef, recorded = p.Ref(), p.Recorded()
		seedSet := false
		fs.Visit(func(f *flag.Flag) { seedSet = seedSet || f.Name == "seed" })
		if p.Seed != 0 && !seedSet {
			*seed = p.Seed
		}
	}
	if (*candidate == "") != (*baseline == "") {
		return errors.New("-candidate and -baseline go together: a candidate is compared with a baseline")
	}
	if *candidate != "" {
		if *asCSV || *league {
			return errors.New("-csv and -league do not apply to a comparison (-candidate)")
		}
		var opponents []arena.Entry
		for _, name := range fs.Args() {
			opponents = append(opponents, named(name))
		}
		for _, u := range players {
			opponents = append(opponents, arena.Remote(u))
		}
		cc := arena.CompareConfig{Candidate: entryOf(*candidate), Baseline: entryOf(*baseline), Pool: append(opponents, pool...), Recorded: recorded, PoolRef: poolRef,
			Alpha: *alpha, Beta: *beta, Delta: *delta, MaxMatches: *maxMatches, Seed: *seed, BaselineSeed: *baselineSeed,
			MoveTimeout: *moveTimeout}
		var progress *progressLine
		if !*quiet {
			progress = &progressLine{w: stderr, terminal: isTerminal(stderr)}
			cc.Progress = progress.compared
		}
		v, err := arena.Compare(ctx, cc)
		progress.clear()
		if err != nil {
			return err
		}
		if *stable {
			v.Stable()
		}
		if *asJSON {
			return v.WriteJSON(stdout)
		}
		return v.WriteText(stdout)
	}
	if len(recorded) > 0 {
		return errors.New("the pool's recorded leagues are opponents for a comparison (-candidate, -baseline) or a replay (-replay), not for a round-robin")
	}
	cfg := arena.Config{Rounds: *rounds, Seed: *seed, League: *league, MoveTimeout: *moveTimeout, Parallel: *parallel, PoolRef: poolRef}
	for _, name := range fs.Args() {
		cfg.Entries = append(cfg.Entries, named(name))
	}
	for _, u := range players {
		cfg.Entries = append(cfg.Entries, remoteEntry(u))
	}
	cfg.Entries = append(cfg.Entries, pool...)
	var progress *progressLine
	if !*quiet {
		progress = &progressLine{w: stderr, terminal: isTerminal(stderr)}
		cfg.Progress = progress.show
	}
	report, err := arena.Run(ctx, cfg)
	progress.clear()
	if err != nil {
		return err
	}
	if *stable {
		report.Stable()
	}
	switch {
	case *asJSON:
		err = report.WriteJSON(stdout)
	case *asCSV:
		err = report.WriteCSV(stdout)
	default:
		err = report.WriteTable(stdout)
	}
	if err != nil {
		return err
	}
	for _, w := range report.Warnings {
		fmt.Fprintln(stderr, "arena: warning:", w)
	}
	if *strict && len(report.Warnings) > 0 {
		return fmt.Errorf("-strict: %d of the entries fell back on more than %.0f %% of their moves", len(report.Warnings), 100*arena.FallbackLimit)
	}
	return nil
}

func intervalOf(e arena.Estimate) string { return fmt.Sprintf("[%.3f, %.3f]", e.Low, e.High) }

// progressLine shows how far the run is: on a terminal, on one line
// rewritten at most ten times a second; elsewhere (a file, a pipe, a CI
// log), without control characters, a line at most every ten seconds and
// one at the end.
type progressLine struct {
	w        io.Writer
	terminal bool
	mu       sync.Mutex
	last     time.Time
	on       bool
}

// progressEvery is how often a progress line is written to a file or a
// pipe.
const progressEvery = 10 * time.Second

func (p *progressLine) show(pr arena.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	every := 100 * time.Millisecond
	if !p.terminal {
		every = progressEvery
	}
	if time.Since(p.last) < every && pr.Played < pr.Total {
		return
	}
	p.last, p.on = time.Now(), true
	rate := float64(pr.Played) / max(pr.Elapsed.Seconds(), 1e-9)
	if !p.terminal {
		fmt.Fprintf(p.w, "arena: %d/%d matches, %.0f matches/s\n", pr.Played, pr.Total, rate)
		return
	}
	fmt.Fprintf(p.w, "\r%d/%d matches  %.0f matches/s  ", pr.Played, pr.Total, rate)
}

func (p *progressLine) compared(pr arena.CompareProgress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	every := 100 * time.Millisecond
	if !p.terminal {
		every = progressEvery
	}
	if time.Since(p.last) < every {
		return
	}
	p.last, p.on = time.Now(), true
	if !p.terminal {
		fmt.Fprintf(p.w, "arena: %d matches each, LLR %.2f within [%.2f, %.2f]\n", pr.Matches, pr.LLR, pr.Lower, pr.Upper)
		return
	}
	fmt.Fprintf(p.w, "\r%d matches each  LLR %.2f within [%.2f, %.2f]  ", pr.Matches, pr.LLR, pr.Lower, pr.Upper)
}

func (p *progressLine) clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.on && p.terminal {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// isTerminal reports whether w is a terminal (a character device), where
// a line may be rewritten in place.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
