// Command arena measures strategies against each other: it plays a
// round-robin between them, repeated, with the real game rules and the
// real player behaviour, and prints each one's points per match with a
// 95 % confidence interval, a head-to-head table and a rating.
//
//	go run ./examples/arena -rounds 1000 random history always_even always_odd
//	go run ./examples/arena -rounds 200 -player http://127.0.0.1:8101/mcp random history
//
// The arguments name ready strategies (random, always_even, always_odd,
// history, llm, llm_chat; see package strategies). Flags:
//
//	-rounds N     how many times the round-robin is played (100)
//	-seed N       the seed of every random draw; the same seed gives the same report (1)
//	-player URL   a running player to include, in any language (repeatable)
//	-league       play whole leagues (manager, referees, players) over an in-memory network
//	-move-timeout D  the deadline of each choice (30s)
//	-parallel N   matches played at once, up to a round's (half the entries); default the number of CPUs
//	-json | -csv  print the report as JSON or CSV instead of tables
//	-quiet        no progress line on stderr
//
// The llm strategy reads LEAGUE_LLM_ENDPOINT, LEAGUE_LLM_MODEL and
// LEAGUE_LLM_API_KEY; llm_chat (an OpenAI-style chat completions server,
// such as Ollama) reads LEAGUE_CHAT_BASE_URL, LEAGUE_CHAT_MODEL and,
// optionally, LEAGUE_CHAT_API_KEY.
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

	"github.com/agentleague/league/player/arena"
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

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("arena", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rounds := fs.Int("rounds", arena.DefaultRounds, "how many times the round-robin is played")
	seed := fs.Uint64("seed", arena.DefaultSeed, "the seed of every random draw")
	var players urls
	fs.Var(&players, "player", "the /mcp endpoint of a running player to include (repeatable)")
	league := fs.Bool("league", false, "play whole leagues (manager, referees, players) over an in-memory network")
	moveTimeout := fs.Duration("move-timeout", 30*time.Second, "the deadline of each choice")
	parallel := fs.Int("parallel", 0, "matches played at once, up to a round's (half the entries); default the number of CPUs")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	asCSV := fs.Bool("csv", false, "print the report as CSV")
	quiet := fs.Bool("quiet", false, "no progress line on stderr")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: arena [flags] strategy... (random, always_even, always_odd, history, llm, llm_chat)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg := arena.Config{Rounds: *rounds, Seed: *seed, League: *league, MoveTimeout: *moveTimeout, Parallel: *parallel}
	for _, name := range fs.Args() {
		cfg.Entries = append(cfg.Entries, arena.Ready(name))
	}
	for _, u := range players {
		cfg.Entries = append(cfg.Entries, arena.Remote(u))
	}
	var progress *progressLine
	if !*quiet {
		progress = &progressLine{w: stderr}
		cfg.Progress = progress.show
	}
	report, err := arena.Run(ctx, cfg)
	progress.clear()
	if err != nil {
		return err
	}
	switch {
	case *asJSON:
		return report.WriteJSON(stdout)
	case *asCSV:
		return report.WriteCSV(stdout)
	}
	return report.WriteTable(stdout)
}

// progressLine shows how far the run is on one line, at most ten times a
// second.
type progressLine struct {
	w    io.Writer
	mu   sync.Mutex
	last time.Time
	on   bool
}

func (p *progressLine) show(pr arena.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.last) < 100*time.Millisecond && pr.Played < pr.Total {
		return
	}
	p.last, p.on = time.Now(), true
	rate := float64(pr.Played) / max(pr.Elapsed.Seconds(), 1e-9)
	fmt.Fprintf(p.w, "\r%d/%d matches  %.0f matches/s  ", pr.Played, pr.Total, rate)
}

func (p *progressLine) clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.on {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
