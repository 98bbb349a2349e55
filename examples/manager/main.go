// Command manager runs the league manager of an Even/Odd League.
//
//	go run ./examples/manager -port 8000 -min-players 4
//
// Flags:
//
//	-port                 port to listen on (8000; 0 picks a free port)
//	-host                 host to listen on (127.0.0.1); use 0.0.0.0 with -endpoint to serve other machines
//	-endpoint             the manager's endpoint as agents reach it (default http://<host>:<port>/mcp; https:// with -tls-cert)
//	-league-id            the league's id (league_2025_even_odd); once it has completed on the data root,
//	                      the next league of the series (<id>-2, <id>-3…) starts instead
//	-show-completed       show the latest league of -league-id's series even when it has completed,
//	                      rather than starting the next one (registrations are then refused: it is over)
//	-data                 data root (./league-data)
//	-keep N               keep the files of only the last N leagues under -data, this one included,
//	                      removing older leagues' at start (0: keep every league)
//	-trace                record every message, whole, in the agent log file (default: ids and outcomes)
//	-min-players          start once that many players and a referee are registered (4; 0 or negative disables)
//	-max-players          refuse players beyond this number (0: unlimited)
//	-registration-window  start after this long with at least two players and a referee (60s; negative disables)
//	-admin-token          token that authorises start_league (none: start_league is refused)
//	-report-timeout       how long a referee may take to report a match before it goes to another referee (3m)
//	-start-match-timeout  deadline of each start_match call (10s)
//	-broadcast-timeout    deadline of each broadcast call to one agent (5s)
//	-retry-delay          first pause before a match no referee takes is offered again (1s)
//	-tiebreakers          standings order (points,wins,draws,player_id; head_to_head is available)
//	-insecure             do not authenticate agents' messages (third-party agents without tokens; trusted networks only)
//	-v                    log every call on stderr as well
//	-start-league URL     run no manager: ask the manager at URL to start its league now, with -admin-token
//	                      (and -league-id when given), print the answer and exit
//	-start-league-timeout how long -start-league keeps trying to reach the manager (1m)
//	-tls-cert FILE        PEM certificate: serve HTTPS only (with -tls-key), advertise https://; also the client certificate under mutual TLS
//	-tls-key FILE         PEM private key of -tls-cert
//	-ca FILE              PEM CA certificates trusted for https:// endpoints, beside the system roots
//	-client-ca FILE       PEM CA certificates: require client certificates signed by them (mutual TLS; needs -tls-cert)
//
// The client mode starts a league from a script or a Kubernetes Job:
//
//	manager -start-league http://10.0.0.5:8000/mcp -admin-token "$TOKEN"
//
// It exits 0 once the manager answers STARTED or ALREADY_STARTED, and 1
// when it refuses (a wrong token, fewer than two players or no referee yet).
//
// It prints on stderr where it listens, every registration, round and
// result, and the final table. The dashboard is at http://<host>:<port>/.
// JSON logs go to <data>/logs/agents/league_manager.log.jsonl and
// <data>/logs/league/<league-id>/league.log.jsonl.
//
// It says where the league's files go when it starts, and how much they
// took when the league completes and when it stops.
//
// SIGINT or SIGTERM stops the manager cleanly. Everything needed to resume
// is on disk all the time: started again with the same -data and
// -league-id — even after a crash — it resumes the league where it was;
// once that league has completed, the next one starts.
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
	"net/http/pprof"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/manager/managermetrics"
	"github.com/agentleague/league/metrics"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stderr)
	stop()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "manager:", err)
		os.Exit(1)
	}
}

// run runs the manager until ctx ends.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	fs.SetOutput(stderr)
	port := fs.Int("port", 8000, "port to listen on (0 picks a free port)")
	host := fs.String("host", "127.0.0.1", "host to listen on")
	endpoint := fs.String("endpoint", "", "the manager's endpoint as agents reach it (default http://<host>:<port>/mcp; https:// with -tls-cert)")
	leagueID := fs.String("league-id", manager.DefaultLeagueID, "the league's id")
	dataRoot := fs.String("data", manager.DefaultDataRoot, "data root")
	showCompleted := fs.Bool("show-completed", false, "show the latest league of -league-id's series even when it has completed, rather than starting the next one")
	keep := fs.Int("keep", 0, "keep the files of only the last N leagues under -data, this one included (0: every league)")
	trace := fs.Bool("trace", false, "record every message sent and received, whole, in the agent log file (debug level)")
	minPlayers := fs.Int("min-players", manager.DefaultMinPlayers, "start once that many players and a referee are registered (negative disables)")
	maxPlayers := fs.Int("max-players", 0, "refuse players beyond this number (0: unlimited)")
	window := fs.Duration("registration-window", manager.DefaultRegistrationWindow, "start after this long with at least two players and a referee (negative disables)")
	adminToken := fs.String("admin-token", "", "token that authorises start_league (none: start_league is refused)")
	reportTimeout := fs.Duration("report-timeout", manager.DefaultReportTimeout, "how long a referee may take to report a match before it goes to another referee")
	startTimeout := fs.Duration("start-match-timeout", manager.DefaultStartMatchTimeout, "deadline of each start_match call")
	broadcastTimeout := fs.Duration("broadcast-timeout", manager.DefaultBroadcastTimeout, "deadline of each broadcast call to one agent")
	retryDelay := fs.Duration("retry-delay", manager.DefaultRetryDelay, "first pause before a match no referee takes is offered again")
	tiebreakers := fs.String("tiebreakers", "points,wins,draws,player_id", "standings order, comma-separated (head_to_head is available)")
	insecure := fs.Bool("insecure", false, "do not authenticate agents' messages (trusted networks only)")
	verbose := fs.Bool("v", false, "log every call on stderr as well")
	profile := fs.Bool("pprof", false, "serve the Go runtime's profiles at GET /debug/pprof/ (heap, profile, goroutine…)")
	startURL := fs.String("start-league", "", "run no manager: ask the manager at this endpoint to start its league now (needs -admin-token)")
	startLeagueTimeout := fs.Duration("start-league-timeout", time.Minute, "how long -start-league keeps trying to reach the manager")
	maxFails := fs.Int("max-fails", manager.DefaultMaxFails, "consecutive failures after which a suspended agent is shut down (negative: never)")
	probeInterval := fs.Duration("probe-interval", manager.DefaultProbeInterval, "how often a suspended agent's /health is probed (negative: never)")
	rateLimit := fs.Float64("rate-limit", manager.DefaultRateLimit, "requests per second each agent (or address, before registration) may send, bursts of twice as many (0 disables)")
	scheduleRate := fs.Float64("schedule-rate", manager.DefaultScheduleRate, "whole-league schedules (GET_SCHEDULE without a player) each agent may ask for per second (negative: no rate)")
	scheduleBytes := fs.Float64("schedule-bytes-per-second", manager.DefaultScheduleBytesPerSecond, "bytes per second of whole-league schedules answered, all agents together (negative: no bound)")
	var tlsFiles leaguesdk.TLSFiles
	tlsFiles.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %v", fs.Args())
	}
	serverTLS, clientTLS, err := tlsFiles.Configs()
	if err != nil {
		return err
	}
	if *startURL != "" {
		id := "" // the league id is sent only when given: the manager's own is right otherwise
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "league-id" {
				id = *leagueID
			}
		})
		return startLeague(ctx, *startURL, *adminToken, id, *startLeagueTimeout, clientTLS, stderr)
	}
	if *minPlayers == 0 {
		*minPlayers = -1 // "0" on the command line reads as "no count trigger"
	}
	var tbs []manager.Tiebreaker
	for _, s := range strings.Split(*tiebreakers, ",") {
		if s = strings.TrimSpace(s); s != "" {
			tbs = append(tbs, manager.Tiebreaker(s))
		}
	}

	addr := net.JoinHostPort(*host, strconv.Itoa(*port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (is another agent using this port?)", addr, err)
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelDebug
	}
	out := &printer{w: stderr, data: *dataRoot}
	mtr := metrics.New()
	agentLogLevel := slog.LevelInfo // ids and outcomes
	if *trace {
		agentLogLevel = slog.LevelDebug // and every message, whole
	}
	m, err := manager.New(manager.Config{
		LeagueID:               *leagueID,
		ShowCompleted:          *showCompleted,
		Keep:                   *keep,
		Listener:               ln,
		Endpoint:               *endpoint,
		TLS:                    serverTLS,
		ClientTLS:              clientTLS,
		DataRoot:               *dataRoot,
		AgentLogLevel:          agentLogLevel,
		MinPlayers:             *minPlayers,
		MaxPlayers:             *maxPlayers,
		RegistrationWindow:     *window,
		AdminToken:             *adminToken,
		ReportTimeout:          *reportTimeout,
		StartMatchTimeout:      *startTimeout,
		BroadcastTimeout:       *broadcastTimeout,
		RetryDelay:             *retryDelay,
		Tiebreakers:            tbs,
		Insecure:               *insecure,
		Logger:                 slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level, ReplaceAttr: leaguesdk.RedactAttr})),
		OnEvent:                out.event,
		RateLimit:              rateLimitConfig(*rateLimit),
		ScheduleRate:           *scheduleRate,
		ScheduleBytesPerSecond: *scheduleBytes,
		MaxFails:               *maxFails,
		ProbeInterval:          *probeInterval,
		Observer:               mtr,
		Routes:                 routes(mtr.Handler(), *profile),
	})
	if err != nil {
		ln.Close()
		return err
	}
	// Run fills in the endpoint from the listener; say it once it is known.
	mcp := *endpoint
	if mcp == "" {
		h := *host
		if ip := net.ParseIP(h); ip != nil && ip.IsUnspecified() {
			h = "127.0.0.1"
		}
		scheme := "http://"
		if serverTLS != nil {
			scheme = "https://"
		}
		mcp = scheme + net.JoinHostPort(h, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)) + "/mcp"
	}
	out.leagueID = m.LeagueID()
	out.printf("league manager listening on %s (league %s, status %s)\n", mcp, m.LeagueID(), m.Status())
	if m.LeagueID() != *leagueID {
		out.printf("league %s has completed on this data root: this is the next league, %s (-show-completed shows the completed one)\n", *leagueID, m.LeagueID())
	}
	if m.Status() == manager.StatusCompleted {
		out.printf("league %s is over: it is shown, and takes no registrations\n", m.LeagueID())
	}
	out.printf("data under %s: %s\n", *dataRoot, strings.Join(manager.LeagueFiles(".", m.LeagueID()), ", "))
	out.printf("dashboard: %s/\n", strings.TrimSuffix(mcp, "/mcp"))
	if *insecure {
		out.printf("WARNING: -insecure: agents' messages are not authenticated\n")
	}
	managermetrics.Watch(mtr, m)
	err = m.Run(ctx)
	out.printf("league manager stopped (status %s); league %s's files take %s under %s\n",
		m.Status(), m.LeagueID(), manager.LeagueUsage(*dataRoot, m.LeagueID()), *dataRoot)
	return err
}

// rateLimitConfig turns -rate-limit into Config.RateLimit: 0 on the
// command line disables the limit, which the Config spells negative.
func rateLimitConfig(flagValue float64) float64 {
	if flagValue <= 0 {
		return -1
	}
	return flagValue
}

// printer writes the league's events for a person.
type printer struct {
	mu       sync.Mutex
	w        io.Writer
	data     string // the data root
	leagueID string // the league's id, once the manager is made
}

func (p *printer) printf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, format, args...)
}

func (p *printer) event(e manager.Event) {
	stamp := e.Time.UTC().Format(time.TimeOnly)
	switch e.Kind {
	case manager.EventMatchAssigned:
		return // one line per result is enough
	case manager.EventLeagueCompleted:
		p.printf("%s %s\n%s", stamp, e.Message, formatTable(e.Standings))
		p.printf("league %s's files take %s under %s (-keep N keeps only the last N leagues)\n",
			p.leagueID, manager.LeagueUsage(p.data, p.leagueID), p.data)
		return
	case manager.EventRoundCompleted:
		p.printf("%s %s\n", stamp, e.Message)
		return
	}
	p.printf("%s %s\n", stamp, e.Message)
}

// formatTable renders a standings table.
func formatTable(rows []leaguesdk.StandingRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  %-4s %-8s %-20s %6s %4s %4s %4s %6s\n", "rank", "player", "name", "played", "W", "D", "L", "points")
	for _, r := range rows {
		fmt.Fprintf(&b, "  %-4d %-8s %-20.20s %6d %4d %4d %4d %6d\n", r.Rank, r.PlayerID, r.DisplayName, r.Played, r.Wins, r.Draws, r.Losses, r.Points)
	}
	return b.String()
}

// routes are the manager's extra HTTP routes: GET /metrics, and with
// -pprof the runtime's profiles under GET /debug/pprof/.
func routes(metrics http.Handler, profile bool) map[string]http.Handler {
	r := map[string]http.Handler{"GET /metrics": metrics}
	if profile {
		r["GET /debug/pprof/"] = http.HandlerFunc(pprof.Index)
		r["GET /debug/pprof/profile"] = http.HandlerFunc(pprof.Profile)
		r["GET /debug/pprof/symbol"] = http.HandlerFunc(pprof.Symbol)
		r["GET /debug/pprof/trace"] = http.HandlerFunc(pprof.Trace)
	}
	return r
}
