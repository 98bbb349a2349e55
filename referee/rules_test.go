package referee_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/referee"
)

func TestGamesMarshalToRegistryShape(t *testing.T) {
	b, err := json.Marshal(referee.Games{"even_odd": referee.EvenOdd{}, "tic_tac_toe": ticTacToe{}})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		GameRegistry map[string]struct {
			DisplayName  string              `json:"display_name"`
			MoveTypes    []string            `json:"move_types"`
			ValidChoices map[string][]string `json:"valid_choices"`
			MinPlayers   int                 `json:"min_players"`
			MaxPlayers   int                 `json:"max_players"`
		} `json:"game_registry"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	eo := got.GameRegistry["even_odd"]
	if eo.DisplayName != "Even/Odd" || !slices.Equal(eo.MoveTypes, []string{"choose_parity"}) ||
		!slices.Equal(eo.ValidChoices["choose_parity"], []string{"even", "odd"}) || eo.MinPlayers != 2 || eo.MaxPlayers != 2 {
		t.Fatalf("even_odd entry %+v", eo)
	}
	if ttt := got.GameRegistry["tic_tac_toe"]; !slices.Equal(ttt.ValidChoices["place_mark"], []string{"0-8"}) {
		t.Fatalf("tic_tac_toe entry %+v", ttt)
	}
}

// ---- an alternating game, to show Rules is not even/odd-specific ----

// ticTacToe is the rules of tic-tac-toe: players alternate, PLAYER_A (X)
// first, placing a mark on a free cell 0–8.
type ticTacToe struct{}

func (ticTacToe) Info() referee.GameInfo {
	return referee.GameInfo{DisplayName: "Tic-Tac-Toe", MoveTypes: []string{"place_mark"},
		ValidChoices: map[string][]string{"place_mark": {"0-8"}}, MinPlayers: 2, MaxPlayers: 2}
}

func (ticTacToe) NewGame(players [2]string, _ io.Reader) (referee.Game, error) {
	return &tttGame{players: players}, nil
}

type tttGame struct {
	players [2]string
	board   [9]int // 0 empty, 1 X (players[0]), 2 O (players[1])
	turn    int
	moves   int
	winner  int
	last    map[string]string
}

var lines = [8][3]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}}

func (g *tttGame) free() []string {
	var out []string
	for i, c := range g.board {
		if c == 0 {
			out = append(out, strconv.Itoa(i))
		}
	}
	return out
}

func (g *tttGame) Pending() []referee.MoveRequest {
	if g.Over() {
		return nil
	}
	board, _ := json.Marshal(map[string]any{"board": g.board, "mark": g.turn + 1})
	return []referee.MoveRequest{{PlayerID: g.players[g.turn], MoveType: "place_mark", ValidOptions: g.free(), Context: board}}
}

func (g *tttGame) Apply(playerID, choice string) error {
	if g.Over() || playerID != g.players[g.turn] {
		return referee.OutOfTurn(playerID)
	}
	cell, err := strconv.Atoi(choice)
	if err != nil || cell < 0 || cell > 8 || g.board[cell] != 0 {
		return referee.InvalidChoice("cell %q is not free (free: %v)", choice, g.free())
	}
	g.board[cell] = g.turn + 1
	g.moves++
	if g.last == nil {
		g.last = map[string]string{}
	}
	g.last[playerID] = choice
	for _, l := range lines {
		if m := g.board[l[0]]; m != 0 && m == g.board[l[1]] && m == g.board[l[2]] {
			g.winner = m
		}
	}
	g.turn = 1 - g.turn
	return nil
}

func (g *tttGame) Over() bool { return g.winner != 0 || g.moves == 9 }

func (g *tttGame) Outcome() referee.Outcome {
	o := referee.Outcome{Status: leaguesdk.ResultDraw, Choices: g.last, Reason: fmt.Sprintf("board %v", g.board)}
	if g.winner != 0 {
		o.Status, o.Winner = leaguesdk.ResultWin, g.players[g.winner-1]
	}
	return o
}

func TestAlternatingGameRules(t *testing.T) {
	g, _ := ticTacToe{}.NewGame([2]string{"X", "O"}, nil)
	if code := leaguesdk.CodeOf(g.Apply("O", "0")); code != leaguesdk.CodeOutOfTurn {
		t.Fatalf("out of turn: %q", code)
	}
	if err := g.Apply("X", "4"); err != nil {
		t.Fatal(err)
	}
	var pe *leaguesdk.Error
	if err := g.Apply("O", "4"); !errors.As(err, &pe) || pe.Code != leaguesdk.CodeInvalidChoice {
		t.Fatalf("taken cell: %v", err)
	}
}

// TestAlternatingGameOverHTTP runs tic-tac-toe end to end: GAME_MOVE_CALL
// with valid_options to one player at a time, a player answering an
// occupied cell once (E002, GAME_ERROR, retry), and the result reported.
func TestAlternatingGameOverHTTP(t *testing.T) {
	mgr := newTestManager(t)
	e := startReferee(t, mgr, func(c *referee.Config) {
		c.Games = referee.Games{leaguesdk.GameEvenOdd: referee.EvenOdd{}, "tic_tac_toe": ticTacToe{}}
	})
	first := func(valid []string) string { return valid[0] }
	var wrongOnce atomic.Bool
	x := newTestPlayer(t, behaviour{Mover: first})
	o := newTestPlayer(t, behaviour{Mover: func(valid []string) string {
		if wrongOnce.CompareAndSwap(false, true) {
			return "0" // taken by X already
		}
		return valid[0]
	}})
	req := e.match(x, o, "P01", "P02")
	req.GameType = "tic_tac_toe"
	rep := e.play(t, req)
	// X takes 0, 2, 4, 6 (O takes 1, 3, 5): X wins on the 2-4-6 diagonal.
	if rep.Result.Status != leaguesdk.ResultWin || rep.Result.Winner != "P01" || rep.Result.Score["P01"] != 3 {
		t.Fatalf("result %+v", rep.Result)
	}
	_, xPar, xMoves, _, xOvers := x.counts()
	_, _, oMoves, oErrs, _ := o.counts()
	if xPar != 0 || xMoves != 4 || oMoves != 4 || xOvers != 1 {
		t.Fatalf("X: %d parity calls, %d moves; O: %d moves", xPar, xMoves, oMoves)
	}
	if oErrs != 1 || o.GameErrors()[0].ErrorCode != leaguesdk.CodeInvalidChoice {
		t.Fatalf("O GAME_ERRORs %+v", o.GameErrors())
	}
	call := x.moveCalls[1]
	if call.MoveRequest.MoveType != "place_mark" || call.GameType != "tic_tac_toe" || call.Deadline == "" ||
		!slices.Equal(call.MoveRequest.ValidOptions, []string{"2", "3", "4", "5", "6", "7", "8"}) || len(call.MoveRequest.Context) == 0 {
		t.Fatalf("second GAME_MOVE_CALL to X: %+v", call)
	}
}
