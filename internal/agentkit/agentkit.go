package agentkit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// Serve serves h on ln until ctx ends, then shuts down gracefully, giving
// in-flight requests up to grace to finish. It returns nil after a clean
// shutdown.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, grace time.Duration) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Listen opens a TCP listener on addr and explains a port in use.
func Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w (is another agent using this port?)", addr, err)
	}
	return ln, nil
}

// EndpointFor returns the /mcp endpoint URL of a listener's address.
func EndpointFor(addr net.Addr) string {
	return "http://" + addr.String() + "/mcp"
}

// RetryUntilUp calls attempt until it succeeds, fails with an error that is
// not retryable (see leaguesdk.Code.Retryable), or ctx ends. It waits every
// between attempts and logs each failure. It is how agents register with a
// manager that is not up yet.
func RetryUntilUp(ctx context.Context, log *slog.Logger, every time.Duration, what string, attempt func(ctx context.Context) error) error {
	if every <= 0 {
		every = time.Second
	}
	for n := 1; ; n++ {
		err := attempt(ctx)
		if err == nil {
			return nil
		}
		if !leaguesdk.CodeOf(err).Retryable() || errors.Is(err, context.Canceled) {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		log.LogAttrs(ctx, slog.LevelWarn, what+" failed; retrying", slog.Int("attempt", n),
			slog.Duration("in", every), slog.String("error", err.Error()))
		t := time.NewTimer(every)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%s: %w (last error: %v)", what, ctx.Err(), err)
		case <-t.C:
		}
	}
}

// OpenAgentLog opens (appending) the JSON-lines log of an agent in the data
// layer, dataRoot/logs/agents/<agentID>.log.jsonl.
func OpenAgentLog(dataRoot, agentID string) (*os.File, error) {
	dir := filepath.Join(dataRoot, "logs", "agents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return os.OpenFile(filepath.Join(dir, agentID+".log.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
}

// NewLogger returns a logger that writes JSON lines to file (when not nil)
// and, when human is not nil, short text lines to human at level humanLevel
// or above. Tokens are redacted in both.
func NewLogger(file io.Writer, human io.Writer, agentID string, humanLevel slog.Leveler) *slog.Logger {
	var hs []slog.Handler
	if file != nil {
		hs = append(hs, leaguesdk.NewLogger(file, agentID, slog.LevelDebug).Handler())
	}
	if human != nil {
		hs = append(hs, slog.NewTextHandler(human, &slog.HandlerOptions{Level: humanLevel, ReplaceAttr: leaguesdk.RedactAttr}).
			WithAttrs([]slog.Attr{slog.String("agent", agentID)}))
	}
	if len(hs) == 0 {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(leaguesdk.FanOut(hs...))
}
