package player

import (
	"context"

	"github.com/agentleague/league/player/internal/decide"
)

// guard is what the player's choices are made under (internal/decide).
func (a *Agent) guard() decide.Guard {
	return decide.Guard{Log: a.log, Now: a.cfg.Now, Margin: a.cfg.SafetyMargin, Counts: &a.counts}
}

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
	// Cause says why the latest of the Fallbacks was not the Strategy's
	// choice ("strategy failed: …", "strategy answered too late", …), as
	// the Agent logs it; empty without fallbacks.
	Cause string `json:"cause,omitempty"`
}

// Decisions returns how many choices the Agent made since it was created,
// and how many of them its Strategy did not give.
func (a *Agent) Decisions() Decisions {
	return Decisions{Made: a.counts.Made.Load(), Fallbacks: a.counts.Fallbacks.Load(), Cause: a.counts.Cause()}
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
