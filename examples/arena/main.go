// Command arena measures strategies against each other: it plays a
// round-robin between them, repeated, with the real game rules and the
// real player behaviour, and prints each one's points per match with a
// 95 % confidence interval, a head-to-head table and a rating.
//
//	go run ./examples/arena -rounds 1000 random history always_even always_odd
//	go run ./examples/arena -rounds 200 -player mine=http://127.0.0.1:8101/mcp random history
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
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/agentleague/league/arena"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/player/strategies/llm"
)

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
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: arena [flags] strategy... ("+strings.Join(llm.Names(), ", ")+")")
		fs.PrintDefaults()
		fmt.Fprint(stderr, "\n"+llm.EnvUsage)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *asJSON && *asCSV {
		return errors.New("-json and -csv cannot be used together: choose one output format")
	}
	cfg := arena.Config{Rounds: *rounds, Seed: *seed, League: *league, MoveTimeout: *moveTimeout, Parallel: *parallel}
	for _, name := range fs.Args() {
		cfg.Entries = append(cfg.Entries, arena.Entry{Name: name,
			NewStrategy: func(r io.Reader) (player.Strategy, error) { return llm.ByName(name, r) }})
	}
	for _, u := range players {
		cfg.Entries = append(cfg.Entries, remoteEntry(u))
	}
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
