package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/manager/managermetrics"
	"github.com/agentleague/league/metrics"
	"github.com/agentleague/league/player"
	pstore "github.com/agentleague/league/player/store"
	"github.com/agentleague/league/player/strategies"
	"github.com/agentleague/league/referee"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// options are the command's flags.
type options struct {
	data      string
	ephemeral bool
	players   int
	referees  int
	exit      bool
	progress  string // "match", "round" or "auto"
	keep      int    // leagues whose files are kept under data (0: all)
	ports     ports

	// manager, when set, is the endpoint of a manager already running:
	// the command runs none and follows that one's league.
	manager string
	// managerWait is how long to wait for that manager to answer before
	// registering the agents with it.
	managerWait time.Duration
}

// ports are the fixed ports of the exercise: the manager's, the first
// referee's and the first player's; the others follow.
type ports struct{ manager, referee, player int }

func parseFlags(args []string, stderr io.Writer) (options, error) {
	o := options{ports: ports{manager: 8000, referee: 8001, player: 8101}, managerWait: time.Minute}
	fs := flag.NewFlagSet("fourplayer", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.data, "data", "./league-data", "data root: the league's config, data and logs are written under it")
	fs.BoolVar(&o.ephemeral, "ephemeral", false, "listen on free ports instead of 8000, 8001…, 8101…")
	fs.IntVar(&o.players, "players", 4, "number of players (at least 2; past what the fixed ports hold, use -ephemeral)")
	fs.IntVar(&o.referees, "referees", 2, "number of referees (at least 1; at most 100 on the fixed ports)")
	fs.StringVar(&o.progress, "progress", "auto", "match: a line per match; round: one line per round (round r of R, matches done, matches/s, time left); auto: per match up to 10 players of a manager of its own, else per round")
	fs.IntVar(&o.keep, "keep", 0, "keep the files of only the last N leagues under -data, this one included, removing older leagues' at start (0: keep every league)")
	fs.BoolVar(&o.exit, "exit", false, "exit once the league has completed, instead of serving the dashboard until Ctrl-C")
	fs.StringVar(&o.manager, "manager", "", "run no manager: register the referees and players with the manager at this endpoint (http://host:port/mcp), started with -min-players set to -players, and follow its league (per round unless -progress match)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: fourplayer [flags]\n\nRuns a whole Even/Odd league (manager, referees, players) in one process over loopback HTTP.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if o.players < 2 {
		return o, fmt.Errorf("-players must be at least 2, not %d", o.players)
	}
	if o.referees < 1 {
		return o, fmt.Errorf("-referees must be at least 1, not %d", o.referees)
	}
	if o.keep < 0 {
		return o, fmt.Errorf("-keep must be 0 (every league) or more, not %d", o.keep)
	}
	if o.manager != "" {
		if err := checkManagerURL(o.manager); err != nil {
			return o, err
		}
	}
	// The fixed ports: referees from 8001 up to the players' 8101, players
	// from 8101 up to the last port.
	if !o.ephemeral && o.referees > o.ports.player-o.ports.referee {
		return o, fmt.Errorf("%d referees do not fit on ports %d–%d; add -ephemeral to use free ports",
			o.referees, o.ports.referee, o.ports.player-1)
	}
	if !o.ephemeral && o.players > 65535-o.ports.player+1 {
		return o, fmt.Errorf("%d players do not fit on ports %d–65535; add -ephemeral to use free ports", o.players, o.ports.player)
	}
	switch o.progress {
	case "auto":
		o.progress = "match"
		if o.players > 10 || o.manager != "" {
			o.progress = "round"
		}
	case "match", "round":
	default:
		return o, fmt.Errorf("-progress must be match, round or auto, not %q", o.progress)
	}
	return o, nil
}

// refereeCapacity returns how many matches each referee runs at once: its
// share of a round, so that a round's matches all run together, and never
// fewer than the referee's default. A round of a big league then waits for
// its slowest match once, not once per wave of matches.
func refereeCapacity(players, referees int) int {
	return max(referee.DefaultMaxConcurrentMatches, (players/2+referees-1)/max(referees, 1))
}

// refereeClient returns the HTTP client the referees of a league share:
// each referee meets every player again and again, and a connection to a
// player is dialled once for all of them. Their reports to the manager
// come nearly together, one a match, as a round's matches end: it keeps as
// many idle connections to one host as the referees run matches at once,
// or every round's reports would dial the manager anew and leave as many
// closed connections behind. There is no cap over all hosts.
func refereeClient(players, referees int) *http.Client {
	perHost := max(64, referees*refereeCapacity(players, referees))
	return &http.Client{Transport: &http.Transport{MaxIdleConns: 0, MaxIdleConnsPerHost: perHost, IdleConnTimeout: 90 * time.Second}}
}

// The demo's deadlines. The players answer at once, so these only matter
// when something goes wrong; they are short so that a failure shows in
// seconds rather than minutes. The standalone programs keep the protocol's
// defaults.
const (
	joinTimeout   = 2 * time.Second
	moveTimeout   = 5 * time.Second
	retryDelay    = 200 * time.Millisecond
	reportTimeout = 30 * time.Second
)

// run runs the league and returns the process's exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "fourplayer:", err)
		return 2
	}
	if err := runLeague(ctx, o, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "fourplayer:", err)
		return 1
	}
	return 0
}

// listeners opens every listener before any agent starts, so that a port
// in use is reported at once and nothing is left half started.
type listeners struct {
	manager  net.Listener
	referees []net.Listener
	players  []net.Listener
}

func openListeners(o options) (*listeners, error) {
	ls := &listeners{}
	open := func(port int) (net.Listener, error) {
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		if o.ephemeral {
			addr = "127.0.0.1:0"
		}
		ln, err := net.Listen("tcp", addr)
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("port %d is already in use (is another league running?); "+
				"run with -ephemeral to use free ports instead: go run ./examples/fourplayer -ephemeral", port)
		}
		return ln, err
	}
	// openRun appends n listeners, on ports base, base+1, …, to dst.
	openRun := func(dst *[]net.Listener, base, n int) error {
		for i := range n {
			ln, err := open(base + i)
			if err != nil {
				return err
			}
			*dst = append(*dst, ln)
		}
		return nil
	}
	var err error
	if o.manager == "" { // else the manager runs elsewhere
		var managers []net.Listener
		err = openRun(&managers, o.ports.manager, 1)
		if err == nil {
			ls.manager = managers[0]
		}
	}
	if err == nil {
		err = openRun(&ls.referees, o.ports.referee, o.referees)
	}
	if err == nil {
		err = openRun(&ls.players, o.ports.player, o.players)
	}
	if err != nil {
		ls.close()
		return nil, err
	}
	return ls, nil
}

func (ls *listeners) close() {
	for _, ln := range append(append([]net.Listener{ls.manager}, ls.referees...), ls.players...) {
		if ln != nil {
			ln.Close()
		}
	}
}

func endpoint(ln net.Listener) string { return "http://" + ln.Addr().String() + "/mcp" }

// agents collects the Run errors of the agents started so far.
type agents struct {
	wg   sync.WaitGroup
	errc chan error
}

func (a *agents) start(ctx context.Context, what string, runFn func(context.Context) error) {
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		if err := runFn(ctx); err != nil && ctx.Err() == nil {
			a.errc <- fmt.Errorf("%s: %w", what, err)
		}
	}()
}

// league is one run of the command: the listeners, the shared stores and
// client, and the agents started so far.
type league struct {
	o        options
	ls       *listeners
	out      *progress
	warnings *slog.Logger
	mgr      *manager.Manager // nil with -manager
	remote   *remoteManager   // set with -manager
	url      string           // the manager's endpoint

	store     *pstore.Store
	refStore  *referee.Store
	refClient *http.Client

	// The agents stop when runLeague returns (ctx ended: Ctrl-C; the
	// league over with -exit; a failure), the referees first: while they
	// drain, the matches they have in flight end and are reported to a
	// manager, and played by players, that still serve. Stopped all at
	// once, those matches could be neither finished nor reported, and each
	// referee would wait out its ShutdownGrace for them.
	others, refsCtx context.Context
	ag, refs        *agents
}

func runLeague(ctx context.Context, o options, stdout, stderr io.Writer) (err error) {
	ls, err := openListeners(o)
	if err != nil {
		return err
	}
	// The agents close the listeners they serve; this closes the others
	// when something fails before every agent has started.
	defer ls.close()
	if err := os.MkdirAll(o.data, 0o755); err != nil {
		return fmt.Errorf("data root: %w", err)
	}

	l := &league{o: o, ls: ls, out: &progress{w: stdout, names: map[string]string{}, perRound: o.progress == "round",
		matches: o.players * (o.players - 1) / 2, rounds: rounds(o.players)},
		// Warnings and errors of the agents go to stderr as text; each agent
		// writes everything it logs to its own JSON log file under the data
		// root, logs/agents/<agent_id>.log.jsonl.
		warnings: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn, ReplaceAttr: leaguesdk.RedactAttr}))}
	if o.manager == "" {
		if l.mgr, err = newManager(o, ls.manager, l.out, l.warnings); err != nil {
			return err
		}
	}
	closeStores, err := l.openStores()
	if err != nil {
		return err
	}
	defer func() {
		if cerr := closeStores(); err == nil {
			err = cerr
		}
	}()

	others, stopOthers := context.WithCancel(context.WithoutCancel(ctx))
	refsCtx, stopRefs := context.WithCancel(others)
	errc := make(chan error, 1+o.referees+o.players)
	l.others, l.refsCtx, l.ag, l.refs = others, refsCtx, &agents{errc: errc}, &agents{errc: errc}
	defer func() {
		stopRefs()
		l.refs.wg.Wait()
		stopOthers()
		l.ag.wg.Wait() // every agent has stopped when runLeague returns
	}()

	began := time.Now()
	err = l.startManager(ctx)
	if l.remote != nil {
		defer l.remote.close()
	}
	if err != nil {
		return err
	}
	if err := l.startReferees(ctx); err != nil {
		return err
	}
	if err := l.startPlayers(ctx); err != nil {
		return err
	}
	return l.finish(ctx, began)
}

// openStores opens what the agents of the league share, and returns the
// function that closes it once they have stopped. One history store for
// every player: the results of the players whose matches end together
// share one fsync. Likewise one transcript store for every referee: the
// matches that end together, on any referee, share one fsync. And one
// HTTP client (see refereeClient).
func (l *league) openStores() (closeAll func() error, err error) {
	if l.store, err = pstore.Open(l.o.data); err != nil {
		return nil, err
	}
	if l.refStore, err = referee.OpenStore(l.o.data); err != nil {
		return nil, errors.Join(err, l.store.Close())
	}
	l.refClient = refereeClient(l.o.players, l.o.referees)
	return func() error {
		l.refClient.CloseIdleConnections()
		rerr := l.refStore.Close()
		serr := l.store.Close()
		if rerr != nil {
			return rerr
		}
		return serr
	}, nil
}

// startManager starts the league's manager, or waits for the one given
// with -manager to answer.
func (l *league) startManager(ctx context.Context) error {
	o, out := l.o, l.out
	if l.mgr != nil {
		l.url = endpoint(l.ls.manager)
		out.printf("Even/Odd league: 1 manager, %s, %s — data and logs under %s\n", plural(o.referees, "referee"), plural(o.players, "player"), o.data)
		out.printf("manager   listening on %s   dashboard: http://%s/\n", l.url, l.ls.manager.Addr())
		l.ag.start(l.others, "manager", l.mgr.Run)
		return nil
	}
	l.url, l.remote = o.manager, newRemoteManager(o.manager)
	out.printf("Even/Odd league: the manager at %s, %s, %s — data and logs of the referees and players under %s\n",
		l.url, plural(o.referees, "referee"), plural(o.players, "player"), o.data)
	return l.remote.waitUp(ctx, o.managerWait, out)
}

// startReferees starts the referees and waits for each to register.
func (l *league) startReferees(ctx context.Context) error {
	for i, ln := range l.ls.referees {
		ref, err := referee.New(referee.Config{
			Name:                 refereeName(i),
			League:               l.url,
			Listener:             ln,
			DataRoot:             l.o.data,
			Store:                l.refStore,
			HTTPClient:           l.refClient,
			JoinTimeout:          joinTimeout,
			MoveTimeout:          moveTimeout,
			RetryDelay:           retryDelay,
			MaxConcurrentMatches: refereeCapacity(l.o.players, l.o.referees),
			Logger:               l.warnings.With("agent", refereeName(i)),
		})
		if err != nil {
			return err
		}
		l.refs.start(l.refsCtx, refereeName(i), ref.Run)
		// One at a time, so that REF01 is the first referee, REF02 the second…
		if err := wait(ctx, ref.Registered(), l.ag.errc, refereeName(i)+" to register"); err != nil {
			return err
		}
		if l.remote != nil { // what the manager's own event shows in one process
			l.out.event(manager.Event{Kind: manager.EventRefereeRegistered, AgentID: ref.ID(), DisplayName: refereeName(i), Endpoint: endpoint(ln)})
		}
	}
	return nil
}

// startPlayers starts the line-up's players and waits for each to
// register.
func (l *league) startPlayers(ctx context.Context) error {
	for i, e := range lineup(l.o.players) {
		strategy, err := strategies.ByName(e.strategy, nil)
		if err != nil {
			return err
		}
		p, err := player.New(player.Config{
			Name:     e.name,
			League:   l.url,
			Listener: l.ls.players[i],
			DataRoot: l.o.data,
			Store:    l.store,
			Strategy: strategy,
			Logger:   l.warnings.With("agent", e.name),
		})
		if err != nil {
			return err
		}
		l.out.setStrategy(e.name, e.strategy)
		l.ag.start(l.others, e.name, p.Run)
		// One at a time, so that P01 is the first of the line-up, P02 the second…
		if err := wait(ctx, p.Registered(), l.ag.errc, e.name+" to register"); err != nil {
			return err
		}
		if l.remote != nil {
			l.out.event(manager.Event{Kind: manager.EventPlayerRegistered, AgentID: p.ID(), DisplayName: e.name, Endpoint: endpoint(l.ls.players[i])})
		}
	}
	return nil
}

// finish waits for the league to complete, prints its standings and where
// its files are, and then, unless -exit, keeps the agents serving until
// ctx ends.
func (l *league) finish(ctx context.Context, began time.Time) error {
	o, out := l.o, l.out
	if l.remote != nil {
		final, err := l.remote.follow(ctx, out, l.ag.errc)
		if err != nil {
			return err
		}
		out.final(final.Standings, final.Champion)
	} else {
		if err := wait(ctx, l.mgr.Done(), l.ag.errc, "the league to complete"); err != nil {
			return err
		}
		out.final(l.mgr.Standings(), l.mgr.Champion())
	}
	abs, err := filepath.Abs(o.data)
	if err != nil {
		abs = o.data
	}
	out.printf("\nThe league took %.1f s. Data: %s  Logs: %s\n",
		time.Since(began).Seconds(), filepath.Join(abs, "data"), filepath.Join(abs, "logs"))
	if l.mgr != nil {
		out.dataUsage(o, l.mgr.LeagueID())
	}
	if o.exit {
		return nil
	}
	if l.remote != nil {
		out.printf("\nThe referees and players keep serving until Ctrl-C (-exit stops at the end instead); the manager at %s is left running.\n", l.url)
	} else {
		// The dashboard URL printed at the start stays good: every agent keeps
		// serving (the manager answers queries and /api/state) until Ctrl-C.
		out.printf("\nThe dashboard stays up at http://%s/ — press Ctrl-C to stop (-exit stops at the end instead).\n", l.ls.manager.Addr())
	}
	select {
	case <-ctx.Done():
		return nil
	case err := <-l.ag.errc:
		return err
	}
}

// wait waits for done, failing when an agent stops with an error or ctx ends.
func wait(ctx context.Context, done <-chan struct{}, errc <-chan error, what string) error {
	select {
	case <-done:
		return nil
	case err := <-errc:
		return err
	case <-ctx.Done():
		return fmt.Errorf("stopped while waiting for %s: %w", what, context.Cause(ctx))
	}
}

func refereeName(i int) string {
	names := []string{"Referee Alpha", "Referee Beta", "Referee Gamma", "Referee Delta"}
	if i < len(names) {
		return names[i]
	}
	return fmt.Sprintf("Referee %d", i+1)
}

// entrant is one of the demo's players.
type entrant struct {
	name, strategy string // strategy: a name of strategies.ByName
}

// lineup returns n players cycling through four strategies.
func lineup(n int) []entrant {
	base := []entrant{
		{"Random Rita", "random"},
		{"Even Eddie", "always_even"},
		{"Odd Olive", "always_odd"},
		{"Hannah History", "history"},
	}
	out := make([]entrant, n)
	for i := range out {
		out[i] = base[i%len(base)]
		if i >= len(base) {
			out[i].name = fmt.Sprintf("%s %d", out[i].name, i/len(base)+1)
		}
	}
	return out
}

// rounds returns the number of rounds of a round-robin of n players.
func rounds(n int) int {
	if n%2 == 0 {
		return n - 1
	}
	return n
}

// newManager returns the league's manager, for a league of a new id: the
// data root keeps the earlier ones, and a manager given the id of a
// finished league would only resume it.
func newManager(o options, ln net.Listener, out *progress, warnings *slog.Logger) (*manager.Manager, error) {
	leagueID := "league_" + time.Now().UTC().Format("20060102_150405") + "_even_odd"
	mtr := metrics.New() // the manager's calls and writes, at GET /metrics
	mgr, err := manager.New(manager.Config{
		Observer:      mtr,
		Routes:        map[string]http.Handler{"GET /metrics": mtr.Handler()},
		LeagueID:      leagueID,
		Keep:          o.keep,
		Listener:      ln,
		DataRoot:      o.data,
		MinPlayers:    o.players,
		ReportTimeout: reportTimeout,
		RetryDelay:    retryDelay,
		Logger:        warnings.With("agent", leaguesdk.LeagueManagerSender),
		OnEvent:       out.event,
	})
	if err != nil {
		return nil, err
	}
	managermetrics.Watch(mtr, mgr)
	return mgr, nil
}
