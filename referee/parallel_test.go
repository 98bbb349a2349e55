package referee_test

import (
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/referee"
)

// TestInvitationsAndChoicesGoOutInParallel: both players take 300 ms to
// answer the invitation and 300 ms to choose, within deadlines of 400 ms.
// A referee that asked them one after the other would need at least
// 4 × 300 ms before the result; one that asks both at once needs about
// 2 × 300 ms. Both players' calls must be in progress at the same time,
// and the match must end normally, without a retry or a technical loss.
func TestInvitationsAndChoicesGoOutInParallel(t *testing.T) {
	const delay = 300 * time.Millisecond
	mgr := newTestManager(t)
	e := startReferee(t, mgr, func(c *referee.Config) {
		c.Rand = draws(6)
		c.JoinTimeout, c.MoveTimeout = 400*time.Millisecond, 400*time.Millisecond
		c.Retries = leaguesdk.NoRetries // a late answer is a technical loss at once
	})
	a := newTestPlayer(t, behaviour{Choice: leaguesdk.Even, JoinDelay: delay, MoveDelay: delay})
	b := newTestPlayer(t, behaviour{Choice: leaguesdk.Odd, JoinDelay: delay, MoveDelay: delay})

	start := time.Now()
	res := e.play(t, e.match(a, b, "P01", "P02")).Result
	elapsed := time.Since(start)
	if res.Status != leaguesdk.ResultWin || res.Winner != "P01" || res.Score["P01"] != 3 || res.Details.DrawnNumber != 6 {
		t.Fatalf("result %+v, want WIN for P01 (even, 6 drawn)", res)
	}
	for _, p := range []*testPlayer{a, b} {
		if inv, par, _, errs, overs := p.counts(); inv != 1 || par != 1 || errs != 0 || overs != 1 {
			t.Fatalf("invitations %d, parity calls %d, GAME_ERRORs %d, GAME_OVERs %d; want 1, 1, 0, 1", inv, par, errs, overs)
		}
	}
	// Sequential calls cannot take less than 4 × delay.
	if limit := 4 * delay; elapsed >= limit {
		t.Fatalf("the match took %s, want less than %s", elapsed, limit)
	}
	joinA, moveA := a.spans()
	joinB, moveB := b.spans()
	if len(joinA) != 1 || len(joinB) != 1 || len(moveA) != 1 || len(moveB) != 1 {
		t.Fatalf("spans: %d/%d invitations, %d/%d parity calls", len(joinA), len(joinB), len(moveA), len(moveB))
	}
	if !joinA[0].overlaps(joinB[0]) {
		t.Errorf("invitations did not overlap: P01 %s–%s, P02 %s–%s", clock(joinA[0].in), clock(joinA[0].out),
			clock(joinB[0].in), clock(joinB[0].out))
	}
	if !moveA[0].overlaps(moveB[0]) {
		t.Errorf("parity calls did not overlap: P01 %s–%s, P02 %s–%s", clock(moveA[0].in), clock(moveA[0].out),
			clock(moveB[0].in), clock(moveB[0].out))
	}
	t.Logf("match with two %s players took %s", delay, elapsed)
}

func clock(t time.Time) string { return t.Format("15:04:05.000") }
