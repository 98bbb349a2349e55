package main

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// TestRunWithoutRegistering runs the program with -no-register beside a
// manager that would accept it: the player serves calls addressed to any
// player id, as a harness (an arena's -player, a conformance kit) drives
// it, never registers, and stops cleanly.
func TestRunWithoutRegistering(t *testing.T) {
	manager, regs := standInManager(t, "P07")
	stderr := &syncWriter{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-port", "0", "-league", manager.URL + "/mcp", "-name", "Agent Alpha",
			"-data", t.TempDir(), "-no-register"}, stderr)
	}()
	serving := regexp.MustCompile(`msg="player serving" .*endpoint=(\S+)`)
	var endpoint string
	for deadline := time.Now().Add(10 * time.Second); endpoint == ""; time.Sleep(10 * time.Millisecond) {
		if m := serving.FindStringSubmatch(stderr.String()); m != nil {
			endpoint = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("the player does not serve; stderr:\n%s", stderr)
		}
	}
	c := leaguesdk.NewClient(leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{MaxRetries: leaguesdk.NoRetries}})
	defer c.Close()
	env := leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityCall, "referee:REF01", leaguesdk.NewToken(), "conv-R1M1", time.Now())
	reply, err := leaguesdk.Call[leaguesdk.ChooseParityResponse](ctx, c, endpoint, &leaguesdk.ChooseParityCall{Envelope: env,
		MatchID: "R1M1", PlayerID: "P09", GameType: leaguesdk.GameEvenOdd, Context: leaguesdk.ParityContext{OpponentID: "P02", RoundID: 1},
		Deadline: leaguesdk.FormatTime(time.Now().Add(10 * time.Second))})
	if err != nil {
		t.Fatal(err)
	}
	if reply.PlayerID != "P09" || !reply.ParityChoice.Valid() {
		t.Fatalf("reply %+v: want a valid choice of the addressed player P09", reply)
	}
	stopRun(t, cancel, done)
	select {
	case req := <-regs:
		t.Fatalf("a player run with -no-register registered: %+v", req.PlayerMeta)
	default:
	}
}
