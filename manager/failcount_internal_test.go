package manager

import (
	"testing"
	"time"
)

// TestFailuresOfOneEventCountOnce: the calls in flight to an agent that
// fail together count once; a failure counts again only when its call was
// sent after the last counted failure and comes the fail window after it,
// so that SHUTDOWN takes maxFails failures apart in time.
func TestFailuresOfOneEventCountOnce(t *testing.T) {
	lc := &lifecycle{maxFails: 3, window: time.Second, agents: map[string]*agentLife{}}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	lc.life("REF01").state = StateActive
	state := func() (AgentState, int) { a := lc.agents["REF01"]; return a.state, a.fails }

	// Four start_match calls sent before the reset fail within 2 ms.
	for i := range 4 {
		lc.Failed("REF01", TriggerTimeout, "reset", t0.Add(-time.Duration(i)*time.Millisecond), t0.Add(time.Duration(i)*time.Millisecond/2))
	}
	if st, n := state(); st != StateSuspended || n != 1 {
		t.Fatalf("after one reset: %s with %d failures, want SUSPENDED with 1", st, n)
	}
	// A probe sent after the failure but within the window: the same event.
	lc.Failed("REF01", TriggerTimeout, "probe", t0.Add(100*time.Millisecond), t0.Add(200*time.Millisecond))
	// A call sent before the counted failure that fails much later (a
	// timeout): the same event still.
	lc.Failed("REF01", TriggerTimeout, "timeout", t0.Add(-time.Second), t0.Add(5*time.Second))
	if st, n := state(); st != StateSuspended || n != 1 {
		t.Fatalf("after failures of the same event: %s with %d failures, want SUSPENDED with 1", st, n)
	}
	// Two probes sent after the one before failed, a window apart: SHUTDOWN.
	lc.Failed("REF01", TriggerTimeout, "probe", t0.Add(2*time.Second), t0.Add(2*time.Second))
	if st, n := state(); st != StateSuspended || n != 2 {
		t.Fatalf("after a second failure: %s with %d failures, want SUSPENDED with 2", st, n)
	}
	lc.Failed("REF01", TriggerTimeout, "probe", t0.Add(4*time.Second), t0.Add(4*time.Second))
	if st, _ := state(); st != StateShutdown {
		t.Fatalf("after a third failure: %s, want SHUTDOWN", st)
	}
	// Shut down by failures while the league runs, it comes back when it
	// answers; shut down at the league's end, it does not.
	if ts := lc.Revived("REF01", "answered", t0.Add(6*time.Second)); len(ts) != 1 || ts[0].To != StateActive || ts[0].Trigger != TriggerRecover {
		t.Fatalf("revived: %+v", ts)
	}
	lc.Ended([]string{"REF01"}, t0.Add(7*time.Second))
	if ts := lc.Revived("REF01", "answered", t0.Add(8*time.Second)); len(ts) != 0 {
		t.Fatalf("revived after the league's end: %+v", ts)
	}
}
