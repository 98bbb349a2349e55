package player_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
)

// TestPlayerStates: IDLE, INVITED once it joined, PLAYING while it
// chooses, AWAITING_RESULT once it answered, IDLE after GAME_OVER — in
// Agent.State and in get_player_state.
func TestPlayerStates(t *testing.T) {
	m := startManager(t, &testManager{})
	choosing, release := make(chan struct{}), make(chan struct{})
	a := runAgent(t, player.Config{League: m.URL, Strategy: player.StrategyFunc(
		func(context.Context, player.ParityCall) (leaguesdk.Parity, error) {
			close(choosing)
			<-release
			return leaguesdk.Even, nil
		})})
	check := func(want player.State) {
		t.Helper()
		if got, seen := a.State(), playerState(t, a).State; got != want || seen != want {
			t.Fatalf("State() %s, get_player_state %s; want %s", got, seen, want)
		}
	}
	check(player.StateIdle)
	call(t, a, leaguesdk.MethodHandleGameInvitation, invitation("R1M1", "P01", "P02", leaguesdk.PlayerA), new(leaguesdk.GameJoinAck))
	check(player.StateInvited)
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		c := leaguesdk.NewClient(leaguesdk.ClientConfig{})
		defer c.Close()
		_ = c.Call(context.Background(), a.Endpoint(), leaguesdk.MethodChooseParity, parityCall("R1M1", "P01", "P02", 5*time.Second), nil)
	}()
	<-choosing
	check(player.StatePlaying)
	close(release)
	<-answered
	check(player.StateAwaitingResult)
	call(t, a, leaguesdk.MethodNotifyMatchResult, gameOver("R1M1", "P01", 4, map[string]leaguesdk.Parity{"P01": "even", "P02": "odd"}), new(leaguesdk.Ack))
	check(player.StateIdle)
}
