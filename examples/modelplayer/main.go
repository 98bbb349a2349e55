// Command modelplayer runs one Even/Odd League player whose choices a
// language model makes: the strategies of package
// github.com/agentleague/league/player/strategies/llm, on OpenAI's and
// Google's Go SDKs, which examples/player does not link.
//
//	LEAGUE_CHAT_MODEL=llama3.2 go run ./examples/modelplayer -name "Agent Llama" -port 8105
//
// Flags:
//
//	-strategy  llm_chat (any chat completions server: Ollama, llama.cpp's server, vLLM,
//	           LM Studio, OpenAI) | llm (Google's generate-content API) (llm_chat);
//	           the plain strategies (random, history, ...) are accepted too
//	-name      display name (default "Player <port>")
//	-id        player id to ask for ("P01") (default: made from the name)
//	-league    the league manager's endpoint (http://127.0.0.1:8000/mcp)
//	-port      port to listen on, on 127.0.0.1 (8101)
//	-data      data root (./league-data)
//	-no-register  serve without registering (for an arena's -player or a conformance kit)
//
// The models are configured by environment variables: OPENAI_BASE_URL,
// OPENAI_API_KEY, OLLAMA_HOST and LEAGUE_CHAT_MODEL for llm_chat;
// LEAGUE_LLM_MODEL and GEMINI_API_KEY for llm. -h lists them all.
//
// The program is short on purpose: it is the README's twenty-line player
// with a few flags and a model for its strategy. It logs to stderr and
// keeps its history and agent log under the data root as examples/player
// does; when the model fails or is late, the player answers at random and
// says so, with the URL it called. Its first line names the model and its
// server, and its last line how many choices it made: when every one was
// the fallback's, the line says so. For TLS, another host, an advertised
// endpoint, message traces or metrics, examples/player shows the flags and
// the [player.Config] fields behind them: set those fields in a program of
// your own. SIGINT or SIGTERM stops the player cleanly.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/player/strategies/llm"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "modelplayer:", err)
		stop()
		os.Exit(1)
	}
}

// run runs the player until ctx ends.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("modelplayer", flag.ContinueOnError)
	fs.SetOutput(stderr)
	strategyName := fs.String("strategy", "llm_chat", strings.Join(llm.Names(), " | "))
	cfg := player.Config{Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{ReplaceAttr: leaguesdk.RedactAttr}))}
	fs.StringVar(&cfg.Name, "name", "", `display name (default "Player <port>")`)
	fs.StringVar(&cfg.ID, "id", "", `player id to ask for ("P01") (default: made from the name)`)
	fs.StringVar(&cfg.League, "league", "http://127.0.0.1:8000/mcp", "the league manager's endpoint")
	port := fs.Int("port", 8101, "port to listen on, on 127.0.0.1")
	fs.StringVar(&cfg.DataRoot, "data", "./league-data", "data root")
	fs.BoolVar(&cfg.NoRegister, "no-register", false, "serve without registering (for an arena's -player or a conformance kit)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: modelplayer [flags]  (TLS and the other settings: examples/player)")
		fs.PrintDefaults()
		fmt.Fprint(stderr, "\n"+llm.EnvUsage)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	var err error
	if cfg.Strategy, err = llm.ByName(*strategyName, nil); err != nil {
		return err
	}
	cfg.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(*port))
	if cfg.Name == "" {
		cfg.Name = "Player " + strconv.Itoa(*port)
	}
	a, err := player.New(cfg)
	if err != nil {
		return err
	}
	start := []any{slog.String("strategy", *strategyName)}
	switch m := cfg.Strategy.(type) {
	case *llm.Chat:
		start = append(start, slog.String("model", m.Model), slog.String("server", m.Endpoint()))
	case *llm.Gemini:
		start = append(start, slog.String("model", m.Model), slog.String("server", m.Endpoint()))
	}
	cfg.Logger.Info("starting", append(start, slog.String("league", cfg.League))...)
	err = a.Run(ctx)
	lastLine(cfg.Logger, a.Decisions())
	return err
}

// lastLine logs how many choices the player made and how many of them its
// fallback made instead of the model: all of them means the model never
// answered, and the line says so with the latest cause.
func lastLine(log *slog.Logger, d player.Decisions) {
	switch {
	case d.Made > 0 && d.Fallbacks == d.Made:
		log.Warn("stopped; every choice was the fallback's, none the model's", slog.Int64("choices", d.Made),
			slog.String("latest_cause", d.Cause))
	case d.Fallbacks > 0:
		log.Info("stopped", slog.Int64("choices", d.Made), slog.Int64("fallbacks", d.Fallbacks), slog.String("latest_cause", d.Cause))
	default:
		log.Info("stopped", slog.Int64("choices", d.Made))
	}
}
