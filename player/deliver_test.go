package player_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
)

// contraryLearner chooses odd and counts what it learns.
type contraryLearner struct{ learned []player.MatchRecord }

func (l *contraryLearner) ChooseParity(_ context.Context, c player.ParityCall) (leaguesdk.Parity, error) {
	if c.History.Against(c.OpponentID).OpponentMostly() == leaguesdk.Odd {
		return leaguesdk.Even, nil
	}
	return leaguesdk.Odd, nil
}
func (l *contraryLearner) Learn(_ context.Context, m player.MatchRecord) {
	l.learned = append(l.learned, m)
}

func TestDeliverPlaysAMatchInProcessWithThePlayersHistoryAndLearner(t *testing.T) {
	l := &contraryLearner{}
	a, err := player.New(player.Config{Name: "In Process", League: "http://127.0.0.1/mcp", Strategy: l, NoAgentLog: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx := context.Background()
	env := func(t leaguesdk.MessageType) leaguesdk.Envelope {
		return leaguesdk.NewEnvelope(t, "referee:ref", "", "conv-1", time.Now())
	}
	for i, match := range []string{"R1M1", "R2M1", "R3M1"} {
		if _, err := inProcess(a).Deliver(ctx, &leaguesdk.GameInvitation{Envelope: env(leaguesdk.MsgGameInvitation), MatchID: match,
			RoleInMatch: leaguesdk.PlayerA, OpponentID: "P02", PlayerID: "P01", GameType: leaguesdk.GameEvenOdd}); err != nil {
			t.Fatal(err)
		}
		reply, err := inProcess(a).Deliver(ctx, &leaguesdk.ChooseParityCall{Envelope: env(leaguesdk.MsgChooseParityCall), MatchID: match,
			PlayerID: "P01", Deadline: leaguesdk.FormatTime(time.Now().Add(time.Minute))})
		if err != nil {
			t.Fatal(err)
		}
		want := leaguesdk.Odd
		if i > 0 { // the opponent chose odd before
			want = leaguesdk.Even
		}
		if got := reply.(*leaguesdk.ChooseParityResponse).ParityChoice; got != want {
			t.Errorf("match %s: chose %s, want %s", match, got, want)
		}
		over := &leaguesdk.GameOver{Envelope: env(leaguesdk.MsgGameOver), MatchID: match, GameResult: leaguesdk.GameResult{
			Status: leaguesdk.ResultDraw, DrawnNumber: 3, Choices: map[string]leaguesdk.Parity{"P01": want, "P02": leaguesdk.Odd}}}
		for range 2 { // a repeated GAME_OVER is recorded once
			if _, err := inProcess(a).Deliver(ctx, over); err != nil {
				t.Fatal(err)
			}
		}
	}
	h := a.History()
	if h.Len() != 3 || len(l.learned) != 3 || h.Against("P02").Len() != 3 || h.Against("P03").Len() != 0 {
		t.Errorf("history of %d matches (%d against P02), %d learned; want 3, 3 and 3", h.Len(), h.Against("P02").Len(), len(l.learned))
	}
	if even, odd := h.Against("P02").OpponentChoices(); even != 0 || odd != 3 {
		t.Errorf("opponent choices %d even, %d odd; want 3 odd", even, odd)
	}
}

func TestDeliverRefusesAMessageAPlayerIsNotSent(t *testing.T) {
	a, err := player.New(player.Config{Name: "In Process", League: "http://127.0.0.1/mcp", NoAgentLog: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var e *leaguesdk.Error
	_, err = inProcess(a).Deliver(context.Background(), &leaguesdk.StartMatch{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgStartMatch,
		leaguesdk.LeagueManagerSender, "", "c", time.Now()), LeagueID: "l", RoundID: 1, MatchID: "R1M1", GameType: "even_odd",
		PlayerAID: "P01", PlayerBID: "P02", PlayerAEndpoint: "http://a/mcp", PlayerBEndpoint: "http://b/mcp"})
	if !errors.As(err, &e) {
		t.Errorf("START_MATCH: got %v, want a *leaguesdk.Error", err)
	}
	if _, err := inProcess(a).Deliver(context.Background(), &leaguesdk.ChooseParityCall{MatchID: "R1M1"}); !errors.As(err, &e) {
		t.Errorf("a call without its envelope: got %v, want a *leaguesdk.Error", err)
	}
}

func TestASnapshotOfTheHistoryKeepsItsRecordsAgainstAnOpponent(t *testing.T) {
	a, err := player.New(player.Config{Name: "In Process", League: "http://127.0.0.1/mcp", NoAgentLog: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	over := func(match string) {
		t.Helper()
		if _, err := inProcess(a).Deliver(context.Background(), &leaguesdk.GameOver{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgGameOver,
			"referee:ref", "", "c", time.Now()), MatchID: match, GameResult: leaguesdk.GameResult{Status: leaguesdk.ResultDraw,
			Choices: map[string]leaguesdk.Parity{"P01": leaguesdk.Even, "P02": leaguesdk.Even}}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := inProcess(a).Deliver(context.Background(), &leaguesdk.GameInvitation{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgGameInvitation,
		"referee:ref", "", "c", time.Now()), MatchID: "R1M1", OpponentID: "P02", PlayerID: "P01"}); err != nil {
		t.Fatal(err)
	}
	over("R1M1")
	before := a.History()
	if _, err := inProcess(a).Deliver(context.Background(), &leaguesdk.GameInvitation{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgGameInvitation,
		"referee:ref", "", "c", time.Now()), MatchID: "R2M1", OpponentID: "P02", PlayerID: "P01"}); err != nil {
		t.Fatal(err)
	}
	over("R2M1")
	if n, m := before.Against("P02").Len(), a.History().Against("P02").Len(); n != 1 || m != 2 {
		t.Errorf("against P02: %d records in the earlier snapshot, %d now; want 1 and 2", n, m)
	}
	if even, _ := before.OpponentChoices(); even != 1 {
		t.Errorf("the earlier snapshot counts %d even choices, want 1", even)
	}
}

// deliverer is the in-process hook of an Agent's handler, which package
// arena uses.
type deliverer interface {
	Deliver(ctx context.Context, msg leaguesdk.Message) (leaguesdk.Message, error)
}

// inProcess returns the in-process hook of a's handler.
func inProcess(a *player.Agent) deliverer { return a.Handler().(deliverer) }
