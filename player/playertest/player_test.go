package playertest_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/player/playertest"
)

// unreachable returns the endpoint of a port nothing listens on: a league
// manager that is down, which a player keeps trying to register with while
// it serves.
func unreachable(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/mcp"
}

// This module's player passes every check, served through its Handler.
func TestThisModulesPlayerHandler(t *testing.T) {
	a, err := player.New(player.Config{Name: "Conformance Check", League: unreachable(t), DataRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	rep := playertest.Run(t, serve(t, a.Handler()).URL+"/mcp", opts)
	if rep.Passed != len(playertest.CheckIDs()) {
		dump(t, rep)
		t.Errorf("passed %d of %d checks: %v", rep.Passed, len(playertest.CheckIDs()), deviations(rep))
	}
	// It answers a caller in the lower-case dialect in both shapes, for
	// every reply of the match.
	const both = "result, bare message at the top level"
	if r, _ := rep.Find("reply.shapes"); r.Detail != "shapes: game_invitation → "+both+"; choose_parity → "+both {
		t.Errorf("reply.shapes = %q", r.Detail)
	}
}

// This module's player passes every check when it runs as it does in a
// league: Run on its own listener, its manager not reachable yet.
func TestThisModulesPlayerRun(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a, err := player.New(player.Config{
		Name: "Conformance Run", League: unreachable(t), Listener: ln, DataRoot: t.TempDir(),
		RegisterRetry: 50 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("Run did not return after its context ended")
		}
	})
	rep := playertest.Run(t, "http://"+ln.Addr().String()+"/mcp", playertest.Options{
		Timeout: time.Second, ChoiceDeadline: 3 * time.Second, PlayerID: "P03",
	})
	if rep.Passed != len(playertest.CheckIDs()) {
		dump(t, rep)
		t.Errorf("passed %d of %d checks: %v", rep.Passed, len(playertest.CheckIDs()), deviations(rep))
	}
}

// A registered player of this module passes every check with its token
// known to the kit: it answers the kit's referee with its own token about
// the match the kit announced as its manager, and answers an anonymous
// get_player_state without any token.
func TestThisModulesRegisteredPlayer(t *testing.T) {
	const token = "tok_0123456789abcdef0123456789abcdef"
	mgr := leaguesdk.NewServer(leaguesdk.ServerConfig{Sender: func() string { return leaguesdk.LeagueManagerSender }})
	leaguesdk.Handle(mgr, leaguesdk.Tool{Name: leaguesdk.MethodRegisterPlayer},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.LeagueRegisterRequest) (*leaguesdk.LeagueRegisterResponse, error) {
			return &leaguesdk.LeagueRegisterResponse{
				Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgLeagueRegisterResponse, leaguesdk.LeagueManagerSender, token, in.ConversationID, time.Now()),
				Status:   leaguesdk.StatusAccepted, PlayerID: "P01", LeagueID: "league_playertest"}, nil
		})
	mux := http.NewServeMux()
	ts := serve(t, mux)
	a, err := player.New(player.Config{Name: "Registered", League: serve(t, mgr).URL + "/mcp", Endpoint: ts.URL + "/mcp", DataRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("/", a.Handler())
	if err := a.Register(t.Context()); err != nil {
		t.Fatal(err)
	}
	o := opts
	o.PlayerID, o.PlayerToken = "P01", token
	rep := playertest.Run(t, ts.URL+"/mcp", o)
	if rep.Passed != len(playertest.CheckIDs()) {
		dump(t, rep)
		t.Errorf("passed %d of %d checks: %v", rep.Passed, len(playertest.CheckIDs()), deviations(rep))
	}
}

// A player whose state tool answers its token to anyone fails the check.
func TestStateToolLeakingTheTokenFails(t *testing.T) {
	p := newTestPlayer()
	p.leakState = true
	o := opts
	o.PlayerToken = p.token
	rep := check(t, serve(t, p.handler()).URL+"/mcp", o)
	if got := deviations(rep); len(got) != 1 || got["secret.state_no_token"] != playertest.Fail {
		t.Fatalf("deviations %v, want only secret.state_no_token failing", got)
	}
}
