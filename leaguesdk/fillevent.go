package leaguesdk

import "time"

// FillObserver is implemented by an [Observer] that also wants to be told
// when a player fills its history from the manager: it asks for results
// it has not recorded (a GAME_OVER it missed, a result the league kept
// otherwise). A player of a league without faults fills nothing.
type FillObserver interface {
	// ObserveFill is told about each fill: one question to the manager
	// and what came of it.
	ObserveFill(FillEvent)
}

// Causes of a fill ([FillEvent.Cause]).
const (
	// FillBehind: the player's standings row counted more matches played
	// than its history held, after it had waited for the results of the
	// matches it was playing.
	FillBehind = "behind"
	// FillDiffers: the row counted as many matches but other wins, draws
	// or losses (a match the league kept with another result).
	FillDiffers = "differs"
	// FillRestart: the player, started again, registered as itself and
	// the manager counted more matches of it than its history held.
	FillRestart = "restart"
)

// FillEvent is one fill of a player's history from the manager.
type FillEvent struct {
	// Cause is why the player asked: [FillBehind], [FillDiffers] or
	// [FillRestart].
	Cause string
	// Missing is how many matches the player's history lacked when it
	// asked (0 for FillDiffers).
	Missing int
	// Matches is the number of results recorded from the answer.
	Matches int
	// Entries is the number of schedule entries the answer held: the
	// player's own matches from a manager that filters them, the whole
	// league's from one that does not.
	Entries int
	// Outcome is "ok", or the catalog code ("E001") or "error" when the
	// manager was not reached or refused.
	Outcome string
	// Took is how long the question took, retries included.
	Took time.Duration
}
