package agentkit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// Listen opens a TCP listener on addr and explains a port in use.
func Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w (is another agent using this port?)", addr, err)
	}
	return ln, nil
}

// EndpointFor returns the /mcp endpoint URL of a listener's address, with
// an unspecified host (0.0.0.0, ::) replaced by 127.0.0.1: the contact
// endpoint an agent listening on every interface advertises by default.
//
// The scheme is https when secure is set (the agent serves TLS), http
// otherwise.
func EndpointFor(addr net.Addr, secure bool) string {
	scheme := "http"
	if secure {
		scheme = "https"
	}
	if tcp, ok := addr.(*net.TCPAddr); ok && (tcp.IP == nil || tcp.IP.IsUnspecified()) {
		return fmt.Sprintf("%s://127.0.0.1:%d/mcp", scheme, tcp.Port)
	}
	return scheme + "://" + addr.String() + "/mcp"
}

// RetryUntilUp calls attempt until it succeeds, fails with an error that is
// not retryable (see [leaguesdk.Code.Retryable]), or ctx ends. It waits every
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

// Register registers an agent with its manager: it calls attempt (one
// registration request, with its own deadline) as [RetryUntilUp] does,
// every apart, while the manager cannot be reached. A refusal ends it
// with a [*leaguesdk.RejectedError] naming agent: one attempt returned, or a
// protocol error with a code that is not retryable.
func Register(ctx context.Context, log *slog.Logger, every time.Duration, agent string, attempt func(ctx context.Context) error) error {
	err := RetryUntilUp(ctx, log, every, "registration", attempt)
	if err == nil || errors.As(err, new(*leaguesdk.RejectedError)) {
		return err
	}
	var pe *leaguesdk.Error
	if errors.As(err, &pe) && pe.Code != "" && !pe.Code.Retryable() && ctx.Err() == nil {
		err = &leaguesdk.RejectedError{Agent: agent, Reason: pe.Message, Code: pe.Code, Err: err}
		log.Error("registration refused", slog.String("error", err.Error()))
	}
	return err
}

// SafeFileName turns an id another agent gave (a player id, a match id)
// into one path element that stays inside its directory: every character
// but ASCII letters, digits, '-', '_' and '.' becomes '_', and a name of
// dots only (or an empty one) is prefixed with '_'.
func SafeFileName(id string) string {
	s := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, id)
	if strings.Trim(s, ".") == "" {
		return "_" + s
	}
	return s
}

// WithRoutes returns h serving beside routes ([http.ServeMux] patterns, such
// as "GET /metrics"), or h itself when there are none. A pattern the mux
// refuses (malformed, or one that conflicts with another) is an error.
func WithRoutes(h http.Handler, routes map[string]http.Handler) (_ http.Handler, err error) {
	if len(routes) == 0 {
		return h, nil
	}
	mux := http.NewServeMux()
	mux.Handle("/", h)
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("routes: %v", p)
		}
	}()
	for pattern, rh := range routes {
		if rh == nil {
			return nil, fmt.Errorf("routes: no handler for %q", pattern)
		}
		mux.Handle(pattern, rh)
	}
	return mux, nil
}

// MaxLeagueOverPause bounds the pause between two registrations of an agent
// that the manager refused because its league is over (see
// [RegisterForLeague]).
const MaxLeagueOverPause = time.Minute

// RegisterForLeague runs register (a registration, retried while the
// manager cannot be reached) until it succeeds or the manager refuses.
// A refusal because the league has completed ([leaguesdk.RejectedError.LeagueOver])
// does not end it: the agent has nothing to play now, not nothing to do.
// It logs the refusal once, calls over with it once (nil: nothing), and
// registers again at pauses doubling from every up to [MaxLeagueOverPause],
// for the next league on that manager, until register succeeds or is
// refused for another reason, or ctx ends (then it returns nil: the agent
// was stopped, not refused).
func RegisterForLeague(ctx context.Context, log *slog.Logger, every time.Duration, register func(ctx context.Context) error,
	over func(ctx context.Context, rej *leaguesdk.RejectedError)) error {
	pause := every
	told := false
	for {
		err := register(ctx)
		var rej *leaguesdk.RejectedError
		if !errors.As(err, &rej) || !rej.LeagueOver() {
			return err
		}
		if !told {
			told = true
			log.Warn("the league is over; serving still, and registering again for the next league",
				slog.String("reason", rej.Reason), slog.Duration("first_pause", pause))
			if over != nil {
				over(ctx, rej)
			}
		} else {
			log.Debug("registration refused again: the league is over", slog.Duration("pause", pause))
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		pause = min(2*pause, max(MaxLeagueOverPause, every))
	}
}
