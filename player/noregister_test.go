package player_test

import (
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
)

// A player configured with NoRegister and no manager serves the calls a
// harness sends it, as the player each call addresses, over HTTP, and
// stays unregistered.
func TestNoRegisterServesWithoutAManager(t *testing.T) {
	a, _, stop := startAgent(t, player.Config{NoRegister: true, Strategy: always(leaguesdk.Odd)})
	var resp leaguesdk.ChooseParityResponse
	call(t, a, leaguesdk.MethodChooseParity, parityCall("R1M1", "P05", "P06", 10*time.Second), &resp)
	if resp.PlayerID != "P05" || resp.ParityChoice != leaguesdk.Odd {
		t.Fatalf("reply %+v: want odd for the addressed player P05", resp)
	}
	var ack leaguesdk.Ack
	call(t, a, leaguesdk.MethodNotifyMatchResult, gameOver("R1M1", "P05", 3, map[string]leaguesdk.Parity{"P05": leaguesdk.Odd, "P06": leaguesdk.Even}), &ack)
	if h := a.History(); h.Len() != 1 || h.Matches()[0].Result != player.Win {
		t.Fatalf("history %+v: want the win of R1M1", h.Matches())
	}
	if a.ID() != "" {
		t.Fatalf("ID() = %q: a player that serves without registering has no id", a.ID())
	}
	stop()
	if _, err := player.New(player.Config{Name: "x"}); err == nil {
		t.Fatal("a player that registers needs League")
	}
}
