package player

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player/internal/decide"
)

// Parity is a player's choice in the even/odd game, [Even] or [Odd]: the
// type a [Strategy] returns. It is [leaguesdk.Parity], named here so that a
// strategy needs no other package than this one.
type Parity = leaguesdk.Parity

// The two parities a [Strategy] chooses from; equal to [leaguesdk.Even] and
// [leaguesdk.Odd].
const (
	Even = leaguesdk.Even
	Odd  = leaguesdk.Odd
)

// Role is a player's side in a match, [PlayerA] or [PlayerB]: the type of
// [ParityCall.Role]. It is [leaguesdk.Role], named here so that a strategy
// needs no other package than this one.
type Role = leaguesdk.Role

// The two roles of a match; equal to [leaguesdk.PlayerA] and
// [leaguesdk.PlayerB].
const (
	PlayerA = leaguesdk.PlayerA
	PlayerB = leaguesdk.PlayerB
)

// PlayerRecord is a player's record in the league so far, as a referee
// sends it with a call: the type of [ParityCall.Standings]. It is
// [leaguesdk.PlayerRecord], named here for the same reason.
type PlayerRecord = leaguesdk.PlayerRecord

// StandingRow is one row of the league table a [StandingsObserver] is
// given. It is [leaguesdk.StandingRow], named here for the same reason.
type StandingRow = leaguesdk.StandingRow

// Strategy decides a player's parity in the even/odd game. It is the one
// thing a player author writes.
//
// ChooseParity is called once per CHOOSE_PARITY_CALL. Its context ends a
// safety margin before the referee's deadline; a strategy that needs time
// (a model, a network call) should stop when it ends. Whatever the strategy
// does — returns an error, panics, returns something other than [Even] or
// [Odd], or answers late — the [Agent] still answers in time, with its fallback
// strategy, and logs why. A strategy that ignores its context is left
// running in the background; the answer does not wait for it. The Agent may
// call [Strategy.ChooseParity] for two matches at once, so a Strategy that keeps state
// must be safe for concurrent use.
type Strategy interface {
	ChooseParity(ctx context.Context, call ParityCall) (Parity, error)
}

// StrategyFunc adapts an ordinary function to the [Strategy] interface.
type StrategyFunc func(ctx context.Context, call ParityCall) (Parity, error)

// ChooseParity calls f(ctx, call).
func (f StrategyFunc) ChooseParity(ctx context.Context, call ParityCall) (Parity, error) {
	return f(ctx, call)
}

// ParityCall is what a strategy knows when it chooses: the match, the
// opponent, the player's record, the deadline and the player's own history.
// Fields the referee did not send (and that no earlier invitation or round
// announcement gave) are zero.
type ParityCall struct {
	// PlayerID is this player's id ("P01").
	PlayerID string
	// LeagueID, RoundID and MatchID name the match ("R1M1").
	LeagueID string
	RoundID  int
	MatchID  string
	// GameType is the game being played ("even_odd").
	GameType string
	// OpponentID is the other player's id.
	OpponentID string
	// Role is this player's role in the match (PLAYER_A or PLAYER_B), as
	// the invitation or the round announcement gave it.
	Role Role
	// Standings is this player's record so far, as the referee sent it.
	Standings PlayerRecord
	// Deadline is when the referee stops waiting for the answer: the
	// call's deadline, or the [Agent]'s ChoiceTimeout after the call arrived
	// when the call names none. The strategy's context ends earlier.
	Deadline time.Time
	// History is every match this player has finished, oldest first.
	// [History.Against](OpponentID) narrows it to this opponent.
	History History
}

// Learner is implemented by strategies that learn from results. The [Agent]
// calls Learn once for each match it records (a repeated GAME_OVER is not
// passed on twice), after the record is in [History]. Learn should return
// quickly; its context ends after the Agent's LearnTimeout, and a panic in
// it is recovered and logged.
type Learner interface {
	Learn(ctx context.Context, m MatchRecord)
}

// StandingsObserver is implemented by strategies that want the league
// table. The [Agent] calls ObserveStandings with every
// LEAGUE_STANDINGS_UPDATE (after each round) and with the final standings
// of LEAGUE_COMPLETED, under the same rules as [Learner.Learn]. The table
// is decoded only for an observer (an Agent whose strategy is not one
// decodes its own row and nothing else); rows that do not decode are left
// out of it.
type StandingsObserver interface {
	ObserveStandings(ctx context.Context, roundID int, table []StandingRow)
}

// Mover is implemented by strategies that play games other than even/odd,
// which referees drive through the generic GAME_MOVE_CALL. Move must return
// one of call.ValidOptions when the call lists any. An [Agent] whose strategy
// is not a Mover answers a GAME_MOVE_CALL of the even/odd game through
// [Strategy.ChooseParity] and any other game with a random valid option; a failing
// Mover is replaced the same way, in time.
type Mover interface {
	Move(ctx context.Context, call MoveCall) (string, error)
}

// MoveCall is what a [Mover] knows when it moves: the [ParityCall] fields that
// apply to any game, and the move the referee asks for.
type MoveCall struct {
	ParityCall
	// MoveType names the move asked for ("choose_parity").
	MoveType string
	// ValidOptions lists the acceptable answers; empty when the game does
	// not enumerate them.
	ValidOptions []string
	// Context is the game-specific context of the call, as sent.
	Context json.RawMessage
}

// Random returns the strategy that picks [Even] or [Odd] with equal chance,
// reading randomness from r (crypto/rand when r is nil). It is the [Agent]'s
// default strategy and default fallback. The returned strategy is safe for
// concurrent use even when r is not.
func Random(r io.Reader) Strategy {
	src := decide.LockedReader(r)
	return StrategyFunc(func(context.Context, ParityCall) (Parity, error) {
		return decide.RandomParity(src)
	})
}
