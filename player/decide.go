package player

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// Decisions counts the choices an [Agent] made and how many of them were
// not its Strategy's.
type Decisions struct {
	// Made counts the choices the Agent answered (parities and moves).
	Made int64 `json:"made"`
	// Fallbacks counts the choices of Made that its Strategy did not give:
	// it failed, panicked, answered an invalid choice or too late, or the
	// deadline had passed on arrival, and the Fallback (or, when that
	// failed too, a random choice) answered instead.
	Fallbacks int64 `json:"fallbacks"`
}

// decisionCounts is what Agent.Decisions reads.
type decisionCounts struct{ made, fallbacks atomic.Int64 }

// Decisions returns how many choices the Agent made since it was created,
// and how many of them its Strategy did not give.
func (a *Agent) Decisions() Decisions {
	return Decisions{Made: a.counts.made.Load(), Fallbacks: a.counts.fallbacks.Load()}
}

// panicError is how a recovered panic of a strategy is reported.
type panicError struct {
	value any
	stack []byte
}

func (p *panicError) Error() string { return fmt.Sprintf("panicked: %v", p.value) }

// errNoAnswer says a strategy was still thinking when its context ended.
var errNoAnswer = errors.New("gave no answer before its context ended")

// guarded runs f in its own goroutine, so that a strategy that blocks
// forever and ignores ctx cannot hold up the reply, and turns a panic into
// an error, so that it cannot crash the agent. It returns when f returns or
// ctx ends, whichever comes first.
func guarded[T any](ctx context.Context, f func(context.Context) (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: &panicError{value: p, stack: debug.Stack()}}
			}
		}()
		v, err := f(ctx)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		select {
		case r := <-done:
			return r.v, r.err
		default:
		}
		var zero T
		return zero, errNoAnswer
	}
}

// decision is one choice to make before a deadline: a primary way, a
// fallback, and a last resort that cannot fail.
type decision struct {
	what     string // "parity" or "move", for the log
	matchID  string
	deadline time.Time
	primary  func(context.Context) (string, error)
	fallback func(context.Context) (string, error)
	valid    func(string) bool
	last     func() string
}

// decide returns a valid choice in time, whatever the primary strategy
// does. The primary gets until the safety margin before the deadline; the
// fallback until half the margin; then the last resort answers.
func (a *Agent) decide(ctx context.Context, d decision) string {
	remaining := d.deadline.Sub(a.cfg.Now())
	log := a.log.With(slog.String("match_id", d.matchID))
	a.counts.made.Add(1)
	if remaining <= 0 {
		a.counts.fallbacks.Add(1)
		choice := d.last()
		log.Warn("deadline already passed on arrival; answering at once", slog.String("what", d.what),
			slog.String("choice", choice), slog.Time("deadline", d.deadline))
		return choice
	}
	// Timers run on the real clock; Config.Now only places the deadline.
	start := time.Now()
	margin := min(a.cfg.SafetyMargin, remaining/4)
	choice, why := a.attempt(ctx, start.Add(remaining-margin), d.primary, d.valid)
	if why == "" {
		return choice
	}
	a.counts.fallbacks.Add(1)
	fallback, fwhy := a.attempt(ctx, start.Add(remaining-margin/2), d.fallback, d.valid)
	if fwhy == "" {
		log.Warn("strategy failed; answered with the fallback", slog.String("what", d.what),
			slog.String("reason", "strategy "+why), slog.String("choice", fallback))
		return fallback
	}
	last := d.last()
	log.Error("strategy and fallback failed; answered at random", slog.String("what", d.what),
		slog.String("reason", "strategy "+why+"; fallback "+fwhy), slog.String("choice", last))
	return last
}

// attempt runs f until at most end and returns its choice, or why it
// cannot be used.
func (a *Agent) attempt(ctx context.Context, end time.Time, f func(context.Context) (string, error), valid func(string) bool) (string, string) {
	ctx, cancel := context.WithDeadline(ctx, end)
	defer cancel()
	choice, err := guarded(ctx, f)
	var p *panicError
	switch {
	case errors.As(err, &p):
		a.log.Debug("strategy panic", slog.Any("panic", p.value), slog.String("stack", string(p.stack)))
		return "", err.Error()
	case err != nil:
		return "", "failed: " + err.Error()
	case !valid(choice):
		return "", fmt.Sprintf("returned the invalid choice %q", choice)
	}
	return choice, ""
}

// notify runs a learning callback of the strategy within LearnTimeout,
// logging (never propagating) its failure.
func (a *Agent) notify(ctx context.Context, what string, f func(ctx context.Context)) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.cfg.LearnTimeout)
	defer cancel()
	_, err := guarded(ctx, func(ctx context.Context) (struct{}, error) {
		f(ctx)
		return struct{}{}, nil
	})
	if err != nil {
		a.log.Warn("strategy "+what+" "+err.Error(), slog.String("callback", what))
	}
}
