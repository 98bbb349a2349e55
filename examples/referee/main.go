// Command referee runs one Even/Odd League referee.
//
//	go run ./examples/referee -name "Referee Alpha" -port 8001
//
// Flags:
//
//	-port            port to listen on (8001)
//	-host            host to listen on (127.0.0.1); use 0.0.0.0 with -endpoint to serve other machines
//	-league          the league manager's endpoint (http://127.0.0.1:8000/mcp)
//	-name            display name (default "Referee <port>")
//	-max-concurrent  matches run at once (2)
//	-join-timeout    deadline of each GAME_JOIN_ACK (5s)
//	-move-timeout    deadline of each choice (30s)
//	-retries         retries of a failed player call, each announced by a GAME_ERROR (3; 0 for none)
//	-retry-delay     pause before each retry (2s)
//	-grace           how long in-flight matches may finish on shutdown (30s)
//	-endpoint        contact endpoint advertised to the manager (default http://<host>:<port>/mcp; https:// with -tls-cert)
//	-data            data root (./league-data)
//	-trace           record every message, whole, in the agent log file (default: ids and outcomes)
//	-tls-cert FILE   PEM certificate: serve HTTPS only (with -tls-key), advertise https://; also the client certificate under mutual TLS
//	-tls-key FILE    PEM private key of -tls-cert
//	-ca FILE         PEM CA certificates trusted for https:// endpoints, beside the system roots
//	-client-ca FILE  PEM CA certificates: require client certificates signed by them (mutual TLS; needs -tls-cert)
//
// Human-readable log lines go to stderr. The referee writes its JSON lines
// to <data>/logs/agents/<referee_id>.log.jsonl itself ([referee.Config]
// NoAgentLog turns that off): the file opens once the manager has assigned
// the referee id, and the lines logged before are written to it then.
// Each match is recorded in <data>/data/matches/<league_id>/<match_id>.json.
// The registration is kept in <data>/data/referees/<referee_id>/registration.json:
// started again with the same -data, -name, -league and -endpoint, the
// referee registers as itself.
//
// SIGINT or SIGTERM stops the referee cleanly: it takes no new match, lets
// the matches in progress finish (up to -grace) and reports them; a match
// still running after that is marked ABORTED in its transcript and not
// reported, so the manager gives it to another referee.
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
	"strconv"
	"syscall"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/metrics"
	"github.com/agentleague/league/referee"
)

// version is the release this program was built as, linked in by the
// release build (.ci/build-release: -ldflags "-X main.version=v0.2.0");
// -version prints it.
var version = "devel"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stderr)
	stop()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "referee:", err)
		os.Exit(1)
	}
}

// run runs the referee until ctx ends.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("referee", flag.ContinueOnError)
	fs.SetOutput(stderr)
	port := fs.Int("port", 8001, "port to listen on")
	host := fs.String("host", "127.0.0.1", "host to listen on")
	league := fs.String("league", "http://127.0.0.1:8000/mcp", "the league manager's endpoint")
	name := fs.String("name", "", `display name (default "Referee <port>")`)
	maxConcurrent := fs.Int("max-concurrent", referee.DefaultMaxConcurrentMatches, "matches run at once")
	joinTimeout := fs.Duration("join-timeout", leaguesdk.DefaultJoinTimeout, "deadline of each GAME_JOIN_ACK")
	moveTimeout := fs.Duration("move-timeout", leaguesdk.DefaultChoiceTimeout, "deadline of each choice")
	retries := fs.Int("retries", referee.DefaultRetries, "retries of a failed player call (0 for none)")
	retryDelay := fs.Duration("retry-delay", referee.DefaultRetryDelay, "pause before each retry")
	grace := fs.Duration("grace", referee.DefaultShutdownGrace, "how long in-flight matches may finish on shutdown")
	registerRetry := fs.Duration("register-retry", referee.DefaultRegisterRetry, "pause between registration attempts while the manager is down (doubling up to a minute while its league is over)")
	endpoint := fs.String("endpoint", "", "contact endpoint advertised to the manager (default http://<host>:<port>/mcp; https:// with -tls-cert)")
	var tlsFiles leaguesdk.TLSFiles
	tlsFiles.RegisterFlags(fs)
	dataRoot := fs.String("data", referee.DefaultDataRoot, "data root")
	trace := fs.Bool("trace", false, "record every message sent and received, whole, in the agent log file (debug level)")
	rateLimit := fs.Float64("rate-limit", referee.DefaultRateLimit, "requests per second each caller (the manager, or a player's address) may send, bursts of twice as many (0 disables)")
	showVersion := fs.Bool("version", false, "print the release this program was built as, and exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *showVersion {
		fmt.Fprintln(stderr, "referee", version)
		return nil
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %v", fs.Args())
	}
	serverTLS, clientTLS, err := tlsFiles.Configs()
	if err != nil {
		return err
	}
	if *name == "" {
		*name = "Referee " + strconv.Itoa(*port)
	}
	if *retries == 0 {
		*retries = leaguesdk.NoRetries
	}

	// Human-readable lines go to stderr; the referee writes its JSON agent
	// log under the data root itself.
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo, ReplaceAttr: leaguesdk.RedactAttr})).
		With(slog.String("agent", leaguesdk.NameSender("referee", *name)))

	mtr := metrics.New()
	limit := *rateLimit
	if limit <= 0 {
		limit = -1 // 0 on the command line disables the limit
	}
	agentLogLevel := slog.LevelInfo // ids and outcomes
	if *trace {
		agentLogLevel = slog.LevelDebug // and every message, whole
	}
	ref, err := referee.New(referee.Config{
		Name:                 *name,
		League:               *league,
		Addr:                 net.JoinHostPort(*host, strconv.Itoa(*port)),
		Endpoint:             *endpoint,
		TLS:                  serverTLS,
		ClientTLS:            clientTLS,
		MaxConcurrentMatches: *maxConcurrent,
		JoinTimeout:          *joinTimeout,
		MoveTimeout:          *moveTimeout,
		Retries:              *retries,
		RetryDelay:           *retryDelay,
		ShutdownGrace:        *grace,
		RegisterRetry:        *registerRetry,
		DataRoot:             *dataRoot,
		AgentLogLevel:        agentLogLevel,
		Logger:               log,
		RateLimit:            limit,
		Observer:             mtr,
		Routes:               map[string]http.Handler{"GET /metrics": mtr.Handler()},
	})
	if err != nil {
		return err
	}
	mtr.WatchReferee(ref)
	go func() {
		select {
		case <-ref.Registered():
			log.Info("referee ready", slog.String("referee_id", ref.ID()), slog.String("endpoint", ref.Endpoint()),
				slog.Int("max_concurrent_matches", *maxConcurrent))
		case <-ctx.Done():
		}
	}()

	log.Info("starting", slog.String("league", *league), slog.String("name", *name))
	err = ref.Run(ctx)
	log.Info("stopped")
	return err
}
