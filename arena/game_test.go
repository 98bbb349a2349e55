package arena_test

import (
	"context"
	"io"
	"testing"

	"github.com/agentleague/league/arena"
	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/referee"
)

// pennies is matching pennies: both show heads or tails; PLAYER_A wins
// when they match, PLAYER_B when they differ.
type pennies struct{}

func (pennies) Info() referee.GameInfo {
	return referee.GameInfo{DisplayName: "Matching pennies", MoveTypes: []string{"show"}, MinPlayers: 2, MaxPlayers: 2}
}

func (pennies) NewGame(players [2]string, _ io.Reader) (referee.Game, error) {
	return &penniesGame{players: players, shown: map[string]string{}}, nil
}

type penniesGame struct {
	players [2]string
	shown   map[string]string
}

func (g *penniesGame) Pending() []referee.MoveRequest {
	var out []referee.MoveRequest
	for _, p := range g.players {
		if _, ok := g.shown[p]; !ok {
			out = append(out, referee.MoveRequest{PlayerID: p, MoveType: "show", ValidOptions: []string{"heads", "tails"}})
		}
	}
	return out
}

func (g *penniesGame) Apply(playerID, choice string) error {
	if choice != "heads" && choice != "tails" {
		return referee.InvalidChoice("%q is not heads or tails", choice)
	}
	g.shown[playerID] = choice
	return nil
}

func (g *penniesGame) Over() bool { return len(g.shown) == 2 }

func (g *penniesGame) Outcome() referee.Outcome {
	a, b := g.players[0], g.players[1]
	winner := b
	if g.shown[a] == g.shown[b] {
		winner = a
	}
	return referee.Outcome{Status: leaguesdk.ResultWin, Winner: winner, Choices: map[string]string{a: g.shown[a], b: g.shown[b]}}
}

// heads always shows heads.
type heads struct{ player.Strategy }

func (heads) Move(context.Context, player.MoveCall) (string, error) { return "heads", nil }

func TestTheArenaPlaysAnyGameThroughItsMoveCalls(t *testing.T) {
	r := run(t, arena.Config{GameType: "matching_pennies", Rules: pennies{}, Rounds: 40,
		Entries: []arena.Entry{{Name: "heads", Strategy: heads{player.Random(nil)}}, {Name: "heads too", Strategy: heads{player.Random(nil)}},
			{Name: "no mover", Strategy: player.Random(nil)}}})
	h, _ := r.HeadToHead("heads", "heads too")
	// Both show heads: PLAYER_A wins every match, and the roles alternate.
	if h.Played != 40 || h.PointsPerMatch.Mean != 1.5 {
		t.Errorf("heads against heads too: %+v, want 40 matches at 1.5 points (each wins as PLAYER_A)", h)
	}
	for _, s := range r.Standings {
		if s.TechnicalLosses != 0 || s.Draws != 0 || s.Gain != nil {
			t.Errorf("%s: %+v, want no technical loss, no draw and no gain over even/odd's random play", s.Name, s)
		}
		// The rules draw no number: realised points only.
		if s.ExpectedPerMatch != nil || s.DifferRate == nil {
			t.Errorf("%s: expected points %+v, differ rate %+v; want none and one", s.Name, s.ExpectedPerMatch, s.DifferRate)
		}
	}
	if r.RatingMethod != arena.RatingMethodPoints {
		t.Errorf("rating method %q, want %q", r.RatingMethod, arena.RatingMethodPoints)
	}
}
