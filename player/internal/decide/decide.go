// Package decide makes a player's choices in time whatever its strategy
// does: a strategy that errs, panics, answers something invalid or late,
// or blocks forever is replaced by its fallback, and the fallback by a
// last resort, before the referee's deadline.
package decide

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync/atomic"
	"time"
)

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

// Decision is one choice to make before a deadline: a primary way, a
// fallback, and a last resort that cannot fail.
type Decision struct {
	What     string // "parity" or "move", for the log
	MatchID  string
	Deadline time.Time
	Primary  func(context.Context) (string, error)
	Fallback func(context.Context) (string, error)
	Valid    func(string) bool
	Last     func() string
}

// Guard is what a choice is made under: the log, the clock that places
// deadlines, and the safety margin kept before them.
type Guard struct {
	Log    *slog.Logger
	Now    func() time.Time
	Margin time.Duration
	// Counts, when set, counts the choices made and the fallbacks among
	// them.
	Counts *Counts
}

// Counts counts choices: all that were answered, and those the primary
// way did not give (it failed, panicked, answered an invalid choice or too
// late, or the deadline had passed on arrival).
type Counts struct {
	Made, Fallbacks atomic.Int64
	cause           atomic.Pointer[string] // why the latest fallback answered
}

// add counts a choice; why, when not empty, says why the primary way did
// not give it.
func (c *Counts) add(why string) {
	if c == nil {
		return
	}
	c.Made.Add(1)
	if why != "" {
		c.Fallbacks.Add(1)
		c.cause.Store(&why)
	}
}

// Cause returns why the latest choice the primary way did not give was
// not its, or "" when it gave them all.
func (c *Counts) Cause() string {
	if p := c.cause.Load(); p != nil {
		return *p
	}
	return ""
}

// Decide returns a valid choice in time, whatever the primary strategy
// does. The primary gets until the safety margin before the deadline; the
// fallback until half the margin; then the last resort answers.
func (g Guard) Decide(ctx context.Context, d Decision) string {
	remaining := d.Deadline.Sub(g.Now())
	log := g.Log.With(slog.String("match_id", d.MatchID))
	if remaining <= 0 {
		g.Counts.add("the deadline had passed on arrival")
		choice := d.Last()
		log.Warn("deadline already passed on arrival; answering at once", slog.String("what", d.What),
			slog.String("choice", choice), slog.Time("deadline", d.Deadline))
		return choice
	}
	// Timers run on the real clock; Config.Now only places the deadline.
	start := time.Now()
	margin := min(g.Margin, remaining/4)
	choice, why := g.attempt(ctx, start.Add(remaining-margin), d.Primary, d.Valid)
	if why != "" {
		why = "strategy " + why
	}
	g.Counts.add(why)
	if why == "" {
		return choice
	}
	fallback, fwhy := g.attempt(ctx, start.Add(remaining-margin/2), d.Fallback, d.Valid)
	if fwhy == "" {
		log.Warn("strategy failed; answered with the fallback", slog.String("what", d.What),
			slog.String("reason", why), slog.String("choice", fallback))
		return fallback
	}
	last := d.Last()
	log.Error("strategy and fallback failed; answered at random", slog.String("what", d.What),
		slog.String("reason", why+"; fallback "+fwhy), slog.String("choice", last))
	return last
}

// attempt runs f until at most end and returns its choice, or why it
// cannot be used.
func (g Guard) attempt(ctx context.Context, end time.Time, f func(context.Context) (string, error), valid func(string) bool) (string, string) {
	ctx, cancel := context.WithDeadline(ctx, end)
	defer cancel()
	choice, err := guarded(ctx, f)
	var p *panicError
	switch {
	case errors.As(err, &p):
		g.Log.Debug("strategy panic", slog.Any("panic", p.value), slog.String("stack", string(p.stack)))
		return "", err.Error()
	case err != nil:
		return "", "failed: " + err.Error()
	case !valid(choice):
		return "", fmt.Sprintf("returned the invalid choice %q", choice)
	}
	return choice, ""
}

// Notify runs a learning callback of the strategy within timeout,
// logging (never propagating) its failure.
func (g Guard) Notify(ctx context.Context, timeout time.Duration, what string, f func(ctx context.Context)) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	_, err := guarded(ctx, func(ctx context.Context) (struct{}, error) {
		f(ctx)
		return struct{}{}, nil
	})
	if err != nil {
		g.Log.Warn("strategy "+what+" "+err.Error(), slog.String("callback", what))
	}
}
