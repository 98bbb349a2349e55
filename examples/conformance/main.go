// Command conformance checks a player endpoint, written in any language,
// against the league.v2 protocol profile, and says what deviates and why.
//
//	go run ./examples/conformance -player http://127.0.0.1:8101/mcp
//
// It prints one line per check — pass, warn, fail or skip, the check, what
// was sent and what came back, the profile rule — with the details under
// each warning and failure, then a summary. With -json it prints the report
// as one JSON object instead. It exits 1 when a check fails, 2 on bad
// usage, 0 otherwise (warnings do not fail a player).
//
// Flags:
//
//	-player URL           the player's JSON-RPC endpoint (required)
//	-json                 print the report as JSON
//	-timeout D            the join-ack deadline and the reply deadline of every call but the choice (default 5s)
//	-choice-deadline D    the deadline of choose_parity (default 30s)
//	-player-id ID         the player id to address (default P01)
//	-player-token TOKEN   the token the player was given at registration, to check it sends it
//	-skip IDS             comma-separated check ids (or id prefixes such as "notify") not to run
//	-ca FILE              PEM CA certificates trusted for an https:// player, beside the system roots
//	-tls-cert FILE        PEM client certificate for a player that requires one (mutual TLS; with -tls-key)
//	-tls-key FILE         PEM private key of -tls-cert
//
// The kit plays a referee and a league manager but does not register the
// player: run it against a player that is up, registered or not.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player/playertest"
)

// version is the release this program was built as, linked in by the
// release build (.ci/build-release: -ldflags "-X main.version=v0.2.0");
// -version prints it.
var version = "devel"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// run is the whole program: it parses args, runs the suite and writes the
// report to stdout; it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	endpoint := fs.String("player", "", "the player's JSON-RPC endpoint, such as http://127.0.0.1:8101/mcp (required)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	timeout := fs.Duration("timeout", 5*time.Second, "the join-ack deadline and the reply deadline of every call but the choice")
	choiceDeadline := fs.Duration("choice-deadline", 30*time.Second, "the deadline of choose_parity")
	playerID := fs.String("player-id", "P01", "the player id to address")
	playerToken := fs.String("player-token", "", "the token the player was given at registration, to check it sends it")
	skip := fs.String("skip", "", `comma-separated check ids or id prefixes not to run (such as "robust.malformed,notify")`)
	var tlsFiles leaguesdk.TLSFiles
	fs.StringVar(&tlsFiles.CAFile, "ca", "", "PEM CA certificates trusted for an https:// player, beside the system roots")
	fs.StringVar(&tlsFiles.CertFile, "tls-cert", "", "PEM client certificate for a player that requires one (mutual TLS; with -tls-key)")
	fs.StringVar(&tlsFiles.KeyFile, "tls-key", "", "PEM private key of -tls-cert")
	showVersion := fs.Bool("version", false, "print the release this program was built as, and exit")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if *showVersion {
		fmt.Fprintln(stdout, "conformance", version)
		return exitOK
	}
	if *endpoint == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: conformance -player http://host:port/mcp [-json] [-timeout 5s] [-choice-deadline 30s] [-player-id P01] [-player-token tok_…] [-skip ids]")
		return exitUsage
	}
	_, clientTLS, err := tlsFiles.Configs()
	if err != nil {
		fmt.Fprintln(stderr, "conformance:", err)
		return exitUsage
	}
	httpClient := &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, TLSClientConfig: clientTLS}}
	defer httpClient.CloseIdleConnections()
	opts := playertest.Options{
		HTTPClient:     httpClient,
		Timeout:        *timeout,
		ChoiceDeadline: *choiceDeadline,
		PlayerID:       *playerID,
		PlayerToken:    *playerToken,
	}
	for _, id := range strings.Split(*skip, ",") {
		if id = strings.TrimSpace(id); id != "" {
			opts.Skip = append(opts.Skip, id)
		}
	}
	rep, err := playertest.Check(ctx, *endpoint, opts)
	if rep == nil {
		fmt.Fprintln(stderr, "conformance:", err)
		return exitUsage
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintln(stderr, "conformance:", err)
			return exitFail
		}
	} else {
		for _, c := range rep.Checks {
			fmt.Fprintln(stdout, c)
			if c.Status == playertest.Fail || c.Status == playertest.Warn {
				fmt.Fprintln(stdout, c.Details())
			}
		}
		fmt.Fprintf(stdout, "%s: %d passed, %d warned, %d failed, %d skipped in %s\n",
			rep.Endpoint, rep.Passed, rep.Warned, rep.Failed, rep.Skipped, rep.Elapsed.Round(time.Millisecond))
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(stderr, "conformance: interrupted")
		} else {
			fmt.Fprintln(stderr, "conformance:", err)
		}
		return exitFail
	}
	if !rep.OK() {
		return exitFail
	}
	return exitOK
}
