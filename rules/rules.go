package rules

import (
	"encoding/json"
	"io"

	"github.com/agentleague/league/leaguesdk"
)

// Rules is the game layer of a referee: everything that is specific to one
// game type. The referee owns the wire (invitations, deadlines, retries,
// technical losses, reports); the rules only say who must move, what is
// legal and how the game ends. Add a game by implementing Rules and putting
// it in a [Games] registry (the referee's Config.Games, the arena's
// Config.Rules).
type Rules interface {
	// Info describes the game for the games registry and for players.
	Info() GameInfo
	// NewGame starts a game between two players, identified by their
	// player ids (PLAYER_A first). rand is the random source the game must
	// use for anything random (crypto/rand.Reader unless a test injects
	// another one).
	NewGame(players [2]string, rand io.Reader) (Game, error)
}

// Game is one game in progress. The referee calls its methods from one
// goroutine at a time.
type Game interface {
	// Pending returns the moves the game waits for now: both players at
	// once for a game of simultaneous choices, one player for an
	// alternating game, none when the game is over.
	Pending() []MoveRequest
	// Apply records playerID's choice. An illegal choice returns an
	// [*leaguesdk.Error]: E004 for an invalid parity, E002 for any other
	// invalid choice, E007 for a player who is not to move. A rejected
	// choice leaves the game unchanged, so the player can be asked again.
	Apply(playerID, choice string) error
	// Over reports whether the game has ended.
	Over() bool
	// Outcome returns how the game ended; it is meaningful once Over
	// reports true. Technical losses are decided by the referee, not by
	// the rules: Outcome's Status is WIN or DRAW.
	Outcome() Outcome
}

// MoveRequest is one move a game waits for: who must move, what kind of
// move, and the legal options. The referee turns it into a
// CHOOSE_PARITY_CALL (move type "choose_parity") or a GAME_MOVE_CALL.
type MoveRequest struct {
	PlayerID     string
	MoveType     string
	ValidOptions []string
	// Context is game state the player may need (a board, say), passed as
	// move_request.context of GAME_MOVE_CALL. Optional.
	Context json.RawMessage
}

// MoveChooseParity is the move type of the even/odd game; move requests of
// this type go out as CHOOSE_PARITY_CALL, every other as GAME_MOVE_CALL.
const MoveChooseParity = "choose_parity"

// Outcome is how a game ended, as the rules see it.
type Outcome struct {
	// Status is [leaguesdk.ResultWin] or [leaguesdk.ResultDraw].
	Status leaguesdk.ResultStatus
	// Winner is the winner's player id; empty for a draw.
	Winner string
	// DrawnNumber and NumberParity are set by games that draw a number.
	DrawnNumber  int
	NumberParity leaguesdk.Parity
	// Choices holds each player's (last) choice, keyed by player id.
	Choices map[string]string
	// Reason explains the outcome in one sentence.
	Reason string
}

// GameInfo describes a game type in the games registry
// (config/games/games_registry.json).
type GameInfo struct {
	DisplayName  string              `json:"display_name"`
	MoveTypes    []string            `json:"move_types"`
	ValidChoices map[string][]string `json:"valid_choices"`
	MinPlayers   int                 `json:"min_players"`
	MaxPlayers   int                 `json:"max_players"`
	// RulesModule names the implementation, for readers of the registry.
	RulesModule string `json:"rules_module,omitempty"`
	// MaxRoundTimeSec bounds a round of this game, in seconds (0: unset).
	MaxRoundTimeSec int `json:"max_round_time_sec,omitempty"`
}

// invalid returns the *leaguesdk.Error a game answers for an illegal choice.
func invalid(code leaguesdk.Code, format string, args ...any) error {
	e := leaguesdk.NewError(code, format, args...)
	e.Field = "choice"
	return e
}

// InvalidChoice returns the [*leaguesdk.Error] (E002) a game's Apply answers
// for a choice that is not one of the valid options.
func InvalidChoice(format string, args ...any) error {
	return invalid(leaguesdk.CodeInvalidChoice, format, args...)
}

// OutOfTurn returns the [*leaguesdk.Error] (E007) a game's Apply answers for a
// player who is not to move.
func OutOfTurn(playerID string) error {
	return invalid(leaguesdk.CodeOutOfTurn, "player %s is not to move now", playerID)
}

// DrawRules is implemented by [Rules] whose only chance is one number the
// referee draws uniformly from 1 to Numbers once every choice is in, as
// [EvenOdd]'s: given the choices, the outcome of every possible number
// says what the players can expect before the draw. The arena uses it to
// score a match by the points its choices were worth on average over the
// draws (its expected points) besides the points the number gave, which
// take the referee's chance out of a strategy's measure.
type DrawRules interface {
	Rules
	// Numbers returns n: the game draws its number from 1 to n.
	Numbers() int
	// OutcomeFor returns how a game between players (PLAYER_A first)
	// ends when they made these choices (player id → choice) and the
	// number drawn is number. It depends on the players only through
	// their roles, and returns the error Apply would for an illegal
	// choice.
	OutcomeFor(players [2]string, choices map[string]string, number int) (Outcome, error)
}
