// Command player runs one Even/Odd League player.
//
//	go run ./examples/player -name "Agent Alpha" -port 8101 -strategy history
//
// Flags:
//
//	-port      port to listen on (8101)
//	-host      host to listen on (127.0.0.1); use 0.0.0.0 with -endpoint to play from another machine
//	-league    the league manager's endpoint (http://127.0.0.1:8000/mcp)
//	-name      display name (default "Player <port>")
//	-id        player id to ask for ("P01"), sent as player:<id> before registration;
//	           for managers that key players by sender (default: made from the name)
//	-strategy  random | always_even | always_odd | history (random)
//	-endpoint  contact endpoint advertised to the manager (default http://<host>:<port>/mcp; https:// with -tls-cert)
//	-data      data root (./league-data)
//	-no-register  serve without registering with a manager: for a harness that calls the player
//	           itself (an arena's -player, a conformance kit); -league is then unused
//	-trace     record each call's ids and every message, whole, in the agent log file (default: short lines of what the player does)
//	-tls-cert FILE   PEM certificate: serve HTTPS only (with -tls-key), advertise https://; also the client certificate under mutual TLS
//	-tls-key FILE    PEM private key of -tls-cert
//	-ca FILE         PEM CA certificates trusted for https:// endpoints, beside the system roots
//	-client-ca FILE  PEM CA certificates: require client certificates signed by them (mutual TLS; needs -tls-cert)
//
// The strategies that ask a language model, llm_chat and llm, are in
// package github.com/agentleague/league/player/strategies/llm, on the model
// SDKs, which this program does not link: examples/modelplayer plays them.
//
// Human-readable log lines go to stderr. The player writes its JSON lines
// to <data>/logs/agents/<player_id>.log.jsonl itself ([player.Config]
// NoAgentLog turns that off): the file is opened once the manager has
// assigned the player id, and the lines logged before that are written to
// it then; their agent_id is the sender used before registration
// ("player:<id>" with -id, else the one the display name gives,
// "player:agent_alpha"). The player's history in each league is kept in
// <data>/data/players/<league_id>/<player_id>/history.json (the
// "registered" line names it), current once the league has completed and
// when the player stops. SIGINT or
// SIGTERM stops the player cleanly.
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
	"strings"
	"syscall"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/metrics"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/player/strategies"
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
		fmt.Fprintln(os.Stderr, "player:", err)
		os.Exit(1)
	}
}

// run runs the player until ctx ends.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("player", flag.ContinueOnError)
	fs.SetOutput(stderr)
	port := fs.Int("port", 8101, "port to listen on")
	host := fs.String("host", "127.0.0.1", "host to listen on")
	league := fs.String("league", "http://127.0.0.1:8000/mcp", "the league manager's endpoint")
	name := fs.String("name", "", `display name (default "Player <port>")`)
	id := fs.String("id", "", `player id to ask for ("P01"), sent as player:<id> before registration (default: made from the name)`)
	strategyName := fs.String("strategy", "random", strings.Join(strategies.Names(), " | "))
	endpoint := fs.String("endpoint", "", "contact endpoint advertised to the manager (default http://<host>:<port>/mcp; https:// with -tls-cert)")
	var tlsFiles leaguesdk.TLSFiles
	tlsFiles.RegisterFlags(fs)
	dataRoot := fs.String("data", "./league-data", "data root")
	noRegister := fs.Bool("no-register", false, "serve without registering with a manager (for an arena's -player or a conformance kit)")
	registerRetry := fs.Duration("register-retry", player.DefaultRegisterRetry, "pause between registration attempts while the manager is down (doubling up to a minute while its league is over)")
	trace := fs.Bool("trace", false, "record every message sent and received, whole, in the agent log file (debug level)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: player [flags]")
		fs.PrintDefaults()
	}
	showVersion := fs.Bool("version", false, "print the release this program was built as, and exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *showVersion {
		fmt.Fprintln(stderr, "player", version)
		return nil
	}
	if *name == "" {
		*name = "Player " + strconv.Itoa(*port)
	}
	strategy, err := strategies.ByName(*strategyName, nil)
	if err != nil {
		if n := strings.ToLower(strings.TrimSpace(*strategyName)); n == "llm" || n == "llm_chat" {
			return fmt.Errorf("the %s strategy asks a language model and this program links no model SDK: "+
				"run examples/modelplayer -strategy %s instead (its -h lists the model's variables)", n, n)
		}
		return err
	}
	serverTLS, clientTLS, err := tlsFiles.Configs()
	if err != nil {
		return err
	}

	// Human-readable lines go to stderr; the player writes its JSON agent
	// log under the data root itself.
	agent := leaguesdk.NameSender("player", *name)
	if *id != "" {
		agent = leaguesdk.PlayerSender(*id)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo, ReplaceAttr: leaguesdk.RedactAttr})).
		With(slog.String("agent", agent))

	mtr := metrics.New()
	agentLogLevel := slog.LevelInfo // short lines of what the player does
	if *trace {
		agentLogLevel = slog.LevelDebug // and every message, whole
	}
	a, err := player.New(player.Config{
		Name:          *name,
		ID:            *id,
		League:        *league,
		Addr:          net.JoinHostPort(*host, strconv.Itoa(*port)),
		Endpoint:      *endpoint,
		TLS:           serverTLS,
		ClientTLS:     clientTLS,
		DataRoot:      *dataRoot,
		RegisterRetry: *registerRetry,
		AgentLogLevel: agentLogLevel,
		NoRegister:    *noRegister,
		Strategy:      strategy,
		Logger:        log,
		Observer:      mtr,
		Routes:        map[string]http.Handler{"GET /metrics": mtr.Handler()},
	})
	if err != nil {
		return err
	}

	log.Info("starting", slog.String("strategy", *strategyName), slog.String("league", *league))
	err = a.Run(ctx)
	var rejected *leaguesdk.RejectedError
	if errors.As(err, &rejected) {
		return fmt.Errorf("the league refused %q: %s", *name, rejected.Reason)
	}
	return err
}
