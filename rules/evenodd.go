package rules

import (
	"errors"
	"fmt"
	"io"

	"github.com/agentleague/league/leaguesdk"
)

// EvenOdd is the rules of the even/odd game: both players choose "even" or
// "odd" at the same time, without seeing each other's choice; once both
// choices are in, a number from 1 to 10 is drawn uniformly from the game's
// random source. A player wins when its choice matches the number's parity
// and the other's does not; equal choices are a draw.
type EvenOdd struct{}

// Info implements [Rules].
func (EvenOdd) Info() GameInfo {
	return GameInfo{
		DisplayName:  "Even/Odd",
		MoveTypes:    []string{MoveChooseParity},
		ValidChoices: map[string][]string{MoveChooseParity: {string(leaguesdk.Even), string(leaguesdk.Odd)}},
		MinPlayers:   2,
		MaxPlayers:   2,
		RulesModule:  "referee.EvenOdd",
	}
}

// NewGame implements [Rules].
func (EvenOdd) NewGame(players [2]string, rand io.Reader) (Game, error) {
	if players[0] == "" || players[1] == "" || players[0] == players[1] {
		return nil, fmt.Errorf("even/odd needs two distinct players, got %q and %q", players[0], players[1])
	}
	if rand == nil {
		return nil, errors.New("even/odd needs a random source")
	}
	return &evenOddGame{players: players, rand: rand, choices: map[string]leaguesdk.Parity{}}, nil
}

type evenOddGame struct {
	players [2]string
	rand    io.Reader
	choices map[string]leaguesdk.Parity
	number  int
}

func (g *evenOddGame) Pending() []MoveRequest {
	if g.number != 0 {
		return nil
	}
	var out []MoveRequest
	for _, p := range g.players {
		if _, ok := g.choices[p]; !ok {
			out = append(out, MoveRequest{PlayerID: p, MoveType: MoveChooseParity,
				ValidOptions: []string{string(leaguesdk.Even), string(leaguesdk.Odd)}})
		}
	}
	return out
}

func (g *evenOddGame) Apply(playerID, choice string) error {
	if playerID != g.players[0] && playerID != g.players[1] {
		return OutOfTurn(playerID)
	}
	if _, done := g.choices[playerID]; done || g.number != 0 {
		return OutOfTurn(playerID)
	}
	p, err := leaguesdk.ParseParity(choice)
	if err != nil {
		return err
	}
	g.choices[playerID] = p
	if len(g.choices) < 2 {
		return nil
	}
	n, err := DrawNumber(g.rand, 10)
	if err != nil {
		delete(g.choices, playerID)
		return fmt.Errorf("drawing the number: %w", err)
	}
	g.number = n
	return nil
}

func (g *evenOddGame) Over() bool { return g.number != 0 }

func (g *evenOddGame) Outcome() Outcome {
	return evenOddOutcome(g.players, g.choices[g.players[0]], g.choices[g.players[1]], g.number)
}

// Numbers implements [DrawRules]: the number is drawn from 1 to 10.
func (EvenOdd) Numbers() int { return 10 }

// OutcomeFor implements [DrawRules]: the outcome of the game whose
// players chose choices when number is drawn.
func (EvenOdd) OutcomeFor(players [2]string, choices map[string]string, number int) (Outcome, error) {
	var c [2]leaguesdk.Parity
	for i, id := range players {
		p, err := leaguesdk.ParseParity(choices[id])
		if err != nil {
			return Outcome{}, err
		}
		c[i] = p
	}
	if number < 1 || number > 10 {
		return Outcome{}, fmt.Errorf("even/odd draws from 1 to 10, not %d", number)
	}
	return evenOddOutcome(players, c[0], c[1], number), nil
}

// evenOddOutcome is the outcome of an even/odd game: players chose ca
// and cb, and number was drawn.
func evenOddOutcome(players [2]string, ca, cb leaguesdk.Parity, number int) Outcome {
	a, b := players[0], players[1]
	np := leaguesdk.ParityOf(number)
	o := Outcome{Status: leaguesdk.ResultDraw, DrawnNumber: number, NumberParity: np,
		Choices: map[string]string{a: string(ca), b: string(cb)}}
	switch {
	case ca == cb:
		o.Reason = fmt.Sprintf("both chose %s, number was %d (%s)", ca, number, np)
	case ca == np:
		o.Status, o.Winner = leaguesdk.ResultWin, a
		o.Reason = fmt.Sprintf("%s chose %s, number was %d (%s)", a, ca, number, np)
	default:
		o.Status, o.Winner = leaguesdk.ResultWin, b
		o.Reason = fmt.Sprintf("%s chose %s, number was %d (%s)", b, cb, number, np)
	}
	return o
}

// DrawNumber returns an integer in [1, max] drawn uniformly from rand, with
// no modulo bias: bytes that would favour small numbers are rejected and
// drawn again. max must be between 1 and 256.
func DrawNumber(rand io.Reader, max int) (int, error) {
	if max < 1 || max > 256 {
		return 0, fmt.Errorf("DrawNumber: max %d out of range 1..256", max)
	}
	limit := 256 - 256%max // bytes in [limit, 256) are rejected
	var b [1]byte
	for range 1000 {
		if _, err := io.ReadFull(rand, b[:]); err != nil {
			return 0, err
		}
		if int(b[0]) < limit {
			return int(b[0])%max + 1, nil
		}
	}
	return 0, errors.New("DrawNumber: random source keeps returning rejected values")
}
