package referee_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/referee"
)

// startPlayer runs a player of the player package that always chooses p.
func startPlayer(t *testing.T, mgr *testManager, name string, p leaguesdk.Parity) *player.Agent {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a, err := player.New(player.Config{Name: name, League: mgr.URL, Listener: ln, DataRoot: t.TempDir(),
		RegisterRetry: 20 * time.Millisecond,
		Strategy: player.StrategyFunc(func(ctx context.Context, c player.ParityCall) (leaguesdk.Parity, error) {
			return p, nil
		})})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	select {
	case <-a.Registered():
	case err := <-done:
		t.Fatalf("player ended: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("player did not register")
	}
	return a
}

// TestMatchWithPlayerAgents plays a match between two players of the
// player package.
func TestMatchWithPlayerAgents(t *testing.T) {
	mgr := newTestManager(t)
	e := startReferee(t, mgr, func(c *referee.Config) {
		c.Rand = draws(6)
		c.JoinTimeout, c.MoveTimeout, c.GameOverTimeout = 2*time.Second, 3*time.Second, 2*time.Second
	})
	alpha := startPlayer(t, mgr, "Agent Alpha", leaguesdk.Odd)
	beta := startPlayer(t, mgr, "Agent Beta", leaguesdk.Even)
	req := e.match(&testPlayer{}, &testPlayer{}, alpha.ID(), beta.ID())
	req.PlayerAEndpoint, req.PlayerBEndpoint = alpha.Endpoint(), beta.Endpoint()
	res := e.play(t, req).Result
	if res.Status != leaguesdk.ResultWin || string(res.Winner) != beta.ID() || res.Details.Choices[alpha.ID()] != leaguesdk.Odd {
		t.Fatalf("result %+v", res)
	}
	waitFor(t, 2*time.Second, func() bool { return beta.History().Len() == 1 && alpha.History().Len() == 1 })
	rec := beta.History().Matches()[0]
	if rec.MatchID != req.MatchID || rec.Result != player.Win || rec.DrawnNumber != 6 || rec.OpponentID != alpha.ID() {
		t.Fatalf("beta's history %+v", rec)
	}
}
