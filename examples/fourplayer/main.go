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
	"sort"
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

// version is the release this program was built as, linked in by the
// release build (.ci/build-release: -ldflags "-X main.version=v0.2.0");
// -version prints it.
var version = "devel"

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
	// version: print the release and exit.
	version bool
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
	fs.BoolVar(&o.version, "version", false, "print the release this program was built as, and exit")
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
	if o.version {
		fmt.Fprintln(stdout, "fourplayer", version)
		return 0
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

	out := &progress{w: stdout, names: map[string]string{}, perRound: o.progress == "round",
		matches: o.players * (o.players - 1) / 2, rounds: rounds(o.players)}
	// Warnings and errors of the agents go to stderr as text; each agent
	// writes everything it logs to its own JSON log file under the data
	// root, logs/agents/<agent_id>.log.jsonl.
	warnings := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn, ReplaceAttr: leaguesdk.RedactAttr}))

	var mgr *manager.Manager // nil with -manager
	if o.manager == "" {
		if mgr, err = newManager(o, ls.manager, out, warnings); err != nil {
			return err
		}
	}

	// One history store for every player: the results of the players
	// whose matches end together share one fsync. It closes after the
	// players have stopped.
	store, err := pstore.Open(o.data)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := store.Close(); err == nil {
			err = cerr
		}
	}()
	// Likewise one transcript store for every referee: the matches that
	// end together, on any referee, share one fsync.
	refStore, err := referee.OpenStore(o.data)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := refStore.Close(); err == nil {
			err = cerr
		}
	}()
	// And one HTTP client (see refereeClient).
	refClient := refereeClient(o.players, o.referees)
	defer refClient.CloseIdleConnections()

	// The agents stop when runLeague returns (ctx ended: Ctrl-C; the
	// league over with -exit; a failure), the referees first: while they
	// drain, the matches they have in flight end and are reported to a
	// manager, and played by players, that still serve. Stopped all at
	// once, those matches could be neither finished nor reported, and each
	// referee would wait out its ShutdownGrace for them.
	others, stopOthers := context.WithCancel(context.WithoutCancel(ctx))
	refsCtx, stopRefs := context.WithCancel(others)
	errc := make(chan error, 1+o.referees+o.players)
	ag, refs := &agents{errc: errc}, &agents{errc: errc}
	defer func() {
		stopRefs()
		refs.wg.Wait()
		stopOthers()
		ag.wg.Wait() // every agent has stopped when runLeague returns
	}()

	began := time.Now()
	var leagueURL string
	var remote *remoteManager
	if mgr != nil {
		leagueURL = endpoint(ls.manager)
		out.printf("Even/Odd league: 1 manager, %d referees, %d players — data and logs under %s\n", o.referees, o.players, o.data)
		out.printf("manager   listening on %s   dashboard: http://%s/\n", leagueURL, ls.manager.Addr())
		ag.start(others, "manager", mgr.Run)
	} else {
		leagueURL, remote = o.manager, newRemoteManager(o.manager)
		defer remote.close()
		out.printf("Even/Odd league: the manager at %s, %d referees, %d players — data and logs of the referees and players under %s\n",
			leagueURL, o.referees, o.players, o.data)
		if err := remote.waitUp(ctx, o.managerWait, out); err != nil {
			return err
		}
	}

	for i, ln := range ls.referees {
		ref, err := referee.New(referee.Config{
			Name:                 refereeName(i),
			League:               leagueURL,
			Listener:             ln,
			DataRoot:             o.data,
			Store:                refStore,
			HTTPClient:           refClient,
			JoinTimeout:          joinTimeout,
			MoveTimeout:          moveTimeout,
			RetryDelay:           retryDelay,
			MaxConcurrentMatches: refereeCapacity(o.players, o.referees),
			Logger:               warnings.With("agent", refereeName(i)),
		})
		if err != nil {
			return err
		}
		refs.start(refsCtx, refereeName(i), ref.Run)
		// One at a time, so that REF01 is the first referee, REF02 the second…
		if err := wait(ctx, ref.Registered(), ag.errc, refereeName(i)+" to register"); err != nil {
			return err
		}
		if remote != nil { // what the manager's own event shows in one process
			out.event(manager.Event{Kind: manager.EventRefereeRegistered, AgentID: ref.ID(), DisplayName: refereeName(i), Endpoint: endpoint(ln)})
		}
	}

	for i, e := range lineup(o.players) {
		strategy, err := strategies.ByName(e.strategy, nil)
		if err != nil {
			return err
		}
		p, err := player.New(player.Config{
			Name:     e.name,
			League:   leagueURL,
			Listener: ls.players[i],
			DataRoot: o.data,
			Store:    store,
			Strategy: strategy,
			Logger:   warnings.With("agent", e.name),
		})
		if err != nil {
			return err
		}
		out.setStrategy(e.name, e.strategy)
		ag.start(others, e.name, p.Run)
		// One at a time, so that P01 is the first of the line-up, P02 the second…
		if err := wait(ctx, p.Registered(), ag.errc, e.name+" to register"); err != nil {
			return err
		}
		if remote != nil {
			out.event(manager.Event{Kind: manager.EventPlayerRegistered, AgentID: p.ID(), DisplayName: e.name, Endpoint: endpoint(ls.players[i])})
		}
	}

	if remote != nil {
		final, err := remote.follow(ctx, out, ag.errc)
		if err != nil {
			return err
		}
		out.final(final.Standings, final.Champion)
	} else {
		if err := wait(ctx, mgr.Done(), ag.errc, "the league to complete"); err != nil {
			return err
		}
		out.final(mgr.Standings(), mgr.Champion())
	}
	abs, err := filepath.Abs(o.data)
	if err != nil {
		abs = o.data
	}
	out.printf("\nThe league took %.1f s. Data: %s  Logs: %s\n",
		time.Since(began).Seconds(), filepath.Join(abs, "data"), filepath.Join(abs, "logs"))
	if mgr != nil {
		out.dataUsage(o, mgr.LeagueID())
	}
	if o.exit {
		return nil
	}
	if remote != nil {
		out.printf("\nThe referees and players keep serving until Ctrl-C (-exit stops at the end instead); the manager at %s is left running.\n", leagueURL)
	} else {
		// The dashboard URL printed at the start stays good: every agent keeps
		// serving (the manager answers queries and /api/state) until Ctrl-C.
		out.printf("\nThe dashboard stays up at http://%s/ — press Ctrl-C to stop (-exit stops at the end instead).\n", ls.manager.Addr())
	}
	select {
	case <-ctx.Done():
		return nil
	case err := <-ag.errc:
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

// progress prints the league as the manager's events arrive. The manager
// calls OnEvent from several goroutines.
type progress struct {
	mu         sync.Mutex
	w          io.Writer
	names      map[string]string // agent id → display name
	strategies map[string]string // display name → strategy

	// perRound prints one line per round instead of a line per match and
	// per registration, for leagues beyond a screenful.
	perRound        bool
	matches, rounds int // of the whole league
	done            int // matches with a result
	players         int // registered
	started         time.Time
}

func (p *progress) printf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, format, args...)
}

func (p *progress) setStrategy(name, describe string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.strategies == nil {
		p.strategies = map[string]string{}
	}
	p.strategies[name] = describe
}

// who names a player: "P01 Random Rita".
func (p *progress) who(id string) string {
	if n := p.names[id]; n != "" {
		return id + " " + n
	}
	return id
}

func (p *progress) event(ev manager.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w := p.w
	// Shown either way: referees, players (one line each, or counted),
	// warnings and the league's start.
	switch ev.Kind {
	case manager.EventRefereeRegistered:
		p.names[ev.AgentID] = ev.DisplayName
		fmt.Fprintf(w, "referee   %-5s %-16s registered at %s\n", ev.AgentID, ev.DisplayName, ev.Endpoint)
		return
	case manager.EventPlayerRegistered:
		p.names[ev.AgentID] = ev.DisplayName
		p.players++
		if !p.perRound {
			fmt.Fprintf(w, "player    %-5s %-16s registered at %s  (%s)\n", ev.AgentID, ev.DisplayName, ev.Endpoint, p.strategies[ev.DisplayName])
		}
		return
	case manager.EventRegistrationRejected, manager.EventWarning, manager.EventMatchReassigned:
		fmt.Fprintf(w, "          ! %s\n", ev.Message)
		return
	case manager.EventLeagueStarted:
		p.started = time.Now()
		if p.perRound {
			fmt.Fprintf(w, "%d players registered\n", p.players)
		}
		fmt.Fprintf(w, "\n%s\n", ev.Message)
		return
	case manager.EventMatchResult:
		p.done++
	}
	if p.perRound {
		if ev.Kind == manager.EventRoundCompleted {
			fmt.Fprintln(w, p.roundLine(ev.RoundID, time.Since(p.started)))
		}
		return
	}
	switch ev.Kind {
	case manager.EventRoundStarted:
		fmt.Fprintf(w, "\nRound %d\n", ev.RoundID)
	case manager.EventMatchAssigned:
		fmt.Fprintf(w, "  %-6s %s vs %s → %s\n", ev.MatchID, p.who(ev.PlayerA), p.who(ev.PlayerB), ev.RefereeID)
	case manager.EventMatchResult:
		fmt.Fprintf(w, "  %-6s %s\n", ev.MatchID, p.describe(ev))
	case manager.EventRoundCompleted:
		fmt.Fprintf(w, "Round %d completed\n", ev.RoundID)
	}
}

// roundLine is the progress line of a league shown per round: "round 3 of
// 999: 1500/499500 matches, 812 matches/s, about 10m12s left".
func (p *progress) roundLine(round int, elapsed time.Duration) string {
	line := fmt.Sprintf("round %d of %d: %d/%d matches", round, p.rounds, p.done, p.matches)
	if p.done == 0 || elapsed <= 0 {
		return line
	}
	rate := float64(p.done) / elapsed.Seconds()
	left := time.Duration(float64(p.matches-p.done) / rate * float64(time.Second)).Round(time.Second)
	return line + fmt.Sprintf(", %.0f matches/s, about %s left", rate, left)
}

// describe tells a match's result: "P01 Random Rita even, P02 Even Eddie
// even; number 7 → draw".
func (p *progress) describe(ev manager.Event) string {
	r := ev.Result
	if r == nil {
		return ev.Message
	}
	var choices []string
	for _, id := range []string{ev.PlayerA, ev.PlayerB} {
		c := string(r.Details.Choices[id])
		if c == "" {
			c = "no choice"
		}
		choices = append(choices, p.who(id)+" "+c)
	}
	s := strings.Join(choices, ", ")
	if r.Details.DrawnNumber != 0 {
		s += fmt.Sprintf("; number %d", r.Details.DrawnNumber)
	}
	switch {
	case r.Status == leaguesdk.ResultTechnicalLoss:
		s += fmt.Sprintf(" → technical loss, %s wins (%s)", orNobody(string(r.Winner)), r.Details.Reason)
	case r.Winner != "":
		s += " → " + p.who(string(r.Winner)) + " wins"
	default:
		s += " → draw"
	}
	return s
}

func orNobody(id string) string {
	if id == "" {
		return "nobody"
	}
	return id
}

// final prints the standings table and the champion.
func (p *progress) final(rows []leaguesdk.StandingRow, champ *leaguesdk.Champion) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w := p.w
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Rank < rows[j].Rank })
	fmt.Fprintf(w, "\nFinal standings\n")
	fmt.Fprintf(w, "  %-4s %-22s %6s %4s %4s %4s %6s\n", "rank", "player", "played", "W", "D", "L", "points")
	for _, r := range rows {
		name := r.DisplayName
		if name == "" {
			name = p.names[r.PlayerID]
		}
		fmt.Fprintf(w, "  %-4d %-22s %6d %4d %4d %4d %6d\n", r.Rank, r.PlayerID+" "+name, r.Played, r.Wins, r.Draws, r.Losses, r.Points)
	}
	if champ == nil {
		fmt.Fprintf(w, "\nNo champion.\n")
		return
	}
	name := champ.DisplayName
	if name == "" {
		name = p.names[champ.PlayerID]
	}
	fmt.Fprintf(w, "\nChampion: %s %s with %d points\n", champ.PlayerID, name, champ.Points)
}

// dataUsage says how much the league's files took, and, when the data
// root holds more leagues than one, how much they all take and how to keep
// fewer: each run adds a league, and a big one is hundreds of megabytes.
func (p *progress) dataUsage(o options, leagueID string) {
	p.printf("League %s's files take %s under %s (its id names them in config/, data/ and logs/).\n",
		leagueID, manager.LeagueUsage(o.data, leagueID), o.data)
	leagues, err := manager.Leagues(o.data)
	if err != nil || len(leagues) < 2 {
		return
	}
	var all manager.Usage
	for _, l := range leagues {
		u := manager.LeagueUsage(o.data, l.ID)
		all.Files += u.Files
		all.Bytes += u.Bytes
	}
	hint := "-keep N keeps only the last N leagues"
	if o.keep > 0 {
		hint = fmt.Sprintf("-keep %d keeps the last %d", o.keep, o.keep)
	}
	p.printf("%s holds %d leagues, %s; %s.\n", o.data, len(leagues), all, hint)
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
