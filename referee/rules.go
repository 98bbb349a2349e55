package referee

import (
	"io"

	"github.com/agentleague/league/rules"
)

// The game layer of a referee lives in package rules; these names keep the
// referee's spelling of it.

// Rules is the game layer of a referee: an alias of [rules.Rules]. Add a
// game by implementing it and putting it in [Config.Games].
type Rules = rules.Rules

// Game is one game in progress: an alias of [rules.Game].
type Game = rules.Game

// MoveRequest is one move a game waits for: an alias of [rules.MoveRequest].
type MoveRequest = rules.MoveRequest

// Outcome is how a game ended, as the rules see it: an alias of
// [rules.Outcome].
type Outcome = rules.Outcome

// GameInfo describes a game type in the games registry: an alias of
// [rules.GameInfo].
type GameInfo = rules.GameInfo

// EvenOdd is the rules of the even/odd game: an alias of [rules.EvenOdd].
type EvenOdd = rules.EvenOdd

// Games is a registry of game types: an alias of [rules.Games].
type Games = rules.Games

// MoveChooseParity is the move type of the even/odd game
// ([rules.MoveChooseParity]).
const MoveChooseParity = rules.MoveChooseParity

// DefaultGames returns the registry a referee uses when [Config.Games] is
// empty: the even/odd game only ([rules.DefaultGames]).
func DefaultGames() Games { return rules.DefaultGames() }

// InvalidChoice returns the [*leaguesdk.Error] (E002) a game's Apply answers
// for a choice that is not one of the valid options ([rules.InvalidChoice]).
func InvalidChoice(format string, args ...any) error { return rules.InvalidChoice(format, args...) }

// OutOfTurn returns the [*leaguesdk.Error] (E007) a game's Apply answers for
// a player who is not to move ([rules.OutOfTurn]).
func OutOfTurn(playerID string) error { return rules.OutOfTurn(playerID) }

// DrawNumber returns an integer in [1, max] drawn uniformly from rand, with
// no modulo bias ([rules.DrawNumber]).
func DrawNumber(rand io.Reader, max int) (int, error) { return rules.DrawNumber(rand, max) }

// DrawRules is implemented by rules whose only chance is one drawn number:
// an alias of [rules.DrawRules].
type DrawRules = rules.DrawRules
