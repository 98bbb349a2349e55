package referee_test

import (
	"slices"
	"testing"

	"github.com/agentleague/league/leaguesdk"
)

// TestShutdownPlayerGetsOneAttempt: a player start_match names shut down
// gets one invitation, no GAME_ERROR and no retry; the report names it
// unresponsive. The same silence without the mark costs every retry.
func TestShutdownPlayerGetsOneAttempt(t *testing.T) {
	mgr := newTestManager(t)
	e := startReferee(t, mgr, tight)
	for _, shut := range []bool{true, false} {
		a := newTestPlayer(t, behaviour{SilentJoin: true})
		b := newTestPlayer(t, behaviour{})
		req := e.match(a, b, "P01", "P02")
		if shut {
			req.ShutdownPlayers = []string{"P01"}
		}
		res := e.play(t, req).Result
		assertTechnicalLoss(t, res, "P01", "P02")
		if !slices.Equal(res.Details.Unresponsive, []string{"P01"}) {
			t.Errorf("shut down %v: unresponsive %v, want [P01]", shut, res.Details.Unresponsive)
		}
		inv, _, _, errs, _ := a.counts()
		switch {
		case shut && (inv != 1 || errs != 0):
			t.Errorf("shut-down player: %d invitations, %d GAME_ERRORs; want 1 and 0", inv, errs)
		case !shut && inv != 4:
			t.Errorf("silent player not shut down: %d invitations, want 4", inv)
		}
	}
	// A player that declines is not unresponsive.
	a, b := newTestPlayer(t, behaviour{Decline: true}), newTestPlayer(t, behaviour{})
	if res := e.play(t, e.match(a, b, "P01", "P02")).Result; len(res.Details.Unresponsive) != 0 || res.Status != leaguesdk.ResultTechnicalLoss {
		t.Errorf("decline: %+v", res)
	}
}
