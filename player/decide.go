package player

import (
	"context"

	"github.com/agentleague/league/internal/decide"
)

// guard is what the player's choices are made under (internal/decide).
func (a *Agent) guard() decide.Guard {
	return decide.Guard{Log: a.log, Now: a.cfg.Now, Margin: a.cfg.SafetyMargin}
}

// decide returns a valid choice in time, whatever the primary strategy
// does. The primary gets until the safety margin before the deadline; the
// fallback until half the margin; then the last resort answers.
func (a *Agent) decide(ctx context.Context, d decide.Decision) string {
	return a.guard().Decide(ctx, d)
}

// notify runs a learning callback of the strategy within LearnTimeout,
// logging (never propagating) its failure.
func (a *Agent) notify(ctx context.Context, what string, f func(ctx context.Context)) {
	a.guard().Notify(ctx, a.cfg.LearnTimeout, what, f)
}
