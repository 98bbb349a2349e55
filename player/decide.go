package player

import (
	"context"
	"time"

	"github.com/agentleague/league/internal/decide"
)

// decision is one choice to make before a deadline: a primary way, a
// fallback, and a last resort that cannot fail (internal/decide makes it).
type decision struct {
	what     string // "parity" or "move", for the log
	matchID  string
	deadline time.Time
	primary  func(context.Context) (string, error)
	fallback func(context.Context) (string, error)
	valid    func(string) bool
	last     func() string
}

// guard is what the player's choices are made under.
func (a *Agent) guard() decide.Guard {
	return decide.Guard{Log: a.log, Now: a.cfg.Now, Margin: a.cfg.SafetyMargin}
}

// decide returns a valid choice in time, whatever the primary strategy
// does. The primary gets until the safety margin before the deadline; the
// fallback until half the margin; then the last resort answers.
func (a *Agent) decide(ctx context.Context, d decision) string {
	return a.guard().Decide(ctx, decide.Decision{What: d.what, MatchID: d.matchID, Deadline: d.deadline,
		Primary: d.primary, Fallback: d.fallback, Valid: d.valid, Last: d.last})
}

// notify runs a learning callback of the strategy within LearnTimeout,
// logging (never propagating) its failure.
func (a *Agent) notify(ctx context.Context, what string, f func(ctx context.Context)) {
	a.guard().Notify(ctx, a.cfg.LearnTimeout, what, f)
}
