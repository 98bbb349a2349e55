package manager

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// testScheduler returns a scheduler of round 1 over n pending matches and
// the referees refs (id → capacity, in that order), every referee usable.
func testScheduler(n int, refs ...*referee) *scheduler {
	s := &scheduler{round: 1, referees: func() []*referee { return refs }, usable: func(*referee) bool { return true },
		reportTimeout: 10 * time.Second, retryDelay: time.Second, maxRetryDelay: 4 * time.Second}
	for i := range n {
		id := "R1M" + string(rune('1'+i))
		s.matches = append(s.matches, &match{scheduledMatch: scheduledMatch{MatchID: id, RoundID: 1, PlayerA: "P01", PlayerB: "P02"},
			status: leaguesdk.MatchPending, run: &matchRun{excluded: map[string]bool{}}})
	}
	return s
}

func testReferee(id string, capacity int) *referee {
	return &referee{agentRecord: agentRecord{ID: id, Endpoint: "http://" + id, MaxConcurrentMatches: capacity}}
}

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// TestSchedulerAssignsWithinCapacity: assign gives out no more matches
// than the referees have places, least loaded first; the rest wait for an
// event (no wake-up time), and a settled job runs until its deadline.
func TestSchedulerAssignsWithinCapacity(t *testing.T) {
	a, b := testReferee("REF01", 1), testReferee("REF02", 2)
	s := testScheduler(4, a, b)
	jobs, stranded := s.assign(t0)
	if len(jobs) != 3 || len(stranded) != 0 {
		t.Fatalf("assign: %d jobs, stranded %v; want 3 jobs, none stranded", len(jobs), stranded)
	}
	if a.active != 1 || b.active != 2 {
		t.Errorf("loads %d/%d, want 1/2", a.active, b.active)
	}
	got := []string{jobs[0].ref.id, jobs[1].ref.id, jobs[2].ref.id}
	if strings.Join(got, " ") != "REF02 REF01 REF02" { // among idle referees, the most free places first
		t.Errorf("referees %v, want REF02 REF01 REF02", got)
	}
	for _, j := range jobs {
		if j.mt.status != matchStarting || j.attempt != 1 || j.resume || !j.mt.assigned(j.ref.id) {
			t.Errorf("%s: status %s attempt %d resume %v", j.mt.MatchID, j.mt.status, j.attempt, j.resume)
		}
	}
	if s.matches[3].status != leaguesdk.MatchPending || !s.nextWake(t0).IsZero() || s.remaining() != 4 {
		t.Errorf("the fourth match: %s, next wake %v, remaining %d", s.matches[3].status, s.nextWake(t0), s.remaining())
	}
	if ev := s.settled(jobs[0], nil, t0); ev.Kind != EventMatchAssigned || jobs[0].mt.status != leaguesdk.MatchRunning {
		t.Fatalf("settled: %+v, status %s", ev, jobs[0].mt.status)
	}
	if next := s.nextWake(t0); !next.Equal(t0.Add(10 * time.Second)) {
		t.Errorf("next wake %v, want the report deadline", next)
	}
	// A job settled twice, or after the match moved on, changes nothing.
	if ev := s.settled(jobs[0], errors.New("late"), t0); ev.Kind != "" || jobs[0].mt.status != leaguesdk.MatchRunning {
		t.Errorf("a stale job changed the match: %+v, %s", ev, jobs[0].mt.status)
	}
}

// TestSchedulerReclaimsOnExpiry: a running match whose referee has not
// reported by its deadline is pending again, never offered to that
// referee again, and goes to another one as a new attempt.
func TestSchedulerReclaimsOnExpiry(t *testing.T) {
	a, b := testReferee("REF01", 1), testReferee("REF02", 1)
	s := testScheduler(1, a, b)
	jobs, _ := s.assign(t0)
	s.settled(jobs[0], nil, t0)
	mt := s.matches[0]
	deadline := t0.Add(s.reportTimeout)
	if evs := s.reclaimExpired(deadline.Add(-time.Nanosecond)); len(evs) != 0 || mt.status != leaguesdk.MatchRunning {
		t.Fatalf("reclaimed before the deadline: %v", evs)
	}
	evs := s.reclaimExpired(deadline)
	if len(evs) != 1 || evs[0].Kind != EventMatchReassigned || evs[0].RefereeID != "REF01" {
		t.Fatalf("reclaimExpired at the deadline: %+v", evs)
	}
	if mt.status != leaguesdk.MatchPending || mt.holder() != "" || a.active != 0 || !mt.excludes("REF01") {
		t.Errorf("after reclaim: status %s referee %q REF01 load %d excluded %v", mt.status, mt.holder(), a.active, mt.run.excluded)
	}
	jobs, _ = s.assign(deadline)
	if len(jobs) != 1 || jobs[0].ref.id != "REF02" || jobs[0].attempt != 2 {
		t.Fatalf("reassigned: %+v, want REF02 as attempt 2", jobs)
	}
	if !mt.assigned("REF01") || !mt.assigned("REF02") {
		t.Errorf("assignees %v: both referees' reports are to be accepted", mt.assignees)
	}
}

// TestSchedulerResumes: a match given out before a restart is first a
// question to its referee, without a new attempt; a referee that no longer
// has it loses it, and one that cannot be reached is passed over by every
// match for a growing while.
func TestSchedulerResumes(t *testing.T) {
	a, b := testReferee("REF01", 2), testReferee("REF02", 2)
	s := testScheduler(2, a, b)
	for _, mt := range s.matches {
		mt.status, mt.live().referee, mt.live().attempt = matchResuming, "REF01", 3
		mt.assign("REF01")
		a.active++
	}
	jobs, _ := s.assign(t0)
	if len(jobs) != 2 || !jobs[0].resume || jobs[0].ref.id != "REF01" || jobs[0].attempt != 3 || a.active != 2 {
		t.Fatalf("resume jobs: %+v, REF01 load %d", jobs, a.active)
	}
	ev := s.settled(jobs[0], nil, t0)
	if ev.Kind != EventMatchAssigned || !strings.Contains(ev.Message, "still with referee REF01") {
		t.Errorf("kept: %+v", ev)
	}
	down := &leaguesdk.Error{Code: leaguesdk.CodeConnectionError, Message: "refused"}
	ev = s.settled(jobs[1], down, t0)
	mt := s.matches[1]
	if ev.Kind != EventWarning || !strings.Contains(ev.Message, "no longer has") || mt.status != leaguesdk.MatchPending || a.active != 1 {
		t.Fatalf("lost: %+v, status %s, load %d", ev, mt.status, a.active)
	}
	if !a.downUntil.Equal(t0.Add(s.retryDelay)) || !s.nextWake(t0).Equal(a.downUntil) {
		t.Errorf("REF01 down until %v, next wake %v; want %v", a.downUntil, s.nextWake(t0), t0.Add(s.retryDelay))
	}
	jobs, _ = s.assign(t0)
	if len(jobs) != 1 || jobs[0].ref.id != "REF02" || jobs[0].attempt != 4 || jobs[0].resume {
		t.Fatalf("given out again: %+v, want REF02 as attempt 4", jobs)
	}
	s.settled(jobs[0], down, t0)
	if !b.downUntil.Equal(t0.Add(s.retryDelay)) {
		t.Errorf("REF02 down until %v", b.downUntil)
	}
}

// TestSchedulerBacksOffWithoutReferees: a match no referee can take waits
// a pause that doubles up to the maximum, and may then go to any referee,
// even one that failed it before.
func TestSchedulerBacksOffWithoutReferees(t *testing.T) {
	a := testReferee("REF01", 1)
	s := testScheduler(1, a)
	mt := s.matches[0]
	mt.exclude("REF01")
	now := t0
	for _, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second} {
		jobs, stranded := s.assign(now)
		if len(jobs) != 0 || len(stranded) != 1 || !mt.run.notBefore.Equal(now.Add(want)) || !s.nextWake(now).Equal(mt.run.notBefore) {
			t.Fatalf("at %v: jobs %d stranded %v, not before %v, want a pause of %s", now.Sub(t0), len(jobs), stranded, mt.run.notBefore.Sub(now), want)
		}
		if jobs, stranded = s.assign(mt.run.notBefore.Add(-time.Nanosecond)); len(jobs)+len(stranded) != 0 {
			t.Fatalf("offered during the pause")
		}
		mt.exclude("REF01") // failed once more
		now = mt.run.notBefore
	}
	delete(mt.run.excluded, "REF01")
	if jobs, _ := s.assign(now); len(jobs) != 1 {
		t.Fatalf("not given out once a referee can take it")
	}
}

// manualClock is a clock whose timers fire when the test says so.
type manualClock struct {
	now    time.Time
	timers chan time.Duration // the duration of every timer made
	fire   chan time.Time
}

func (c *manualClock) Now() time.Time { return c.now }

func (c *manualClock) After(d time.Duration) (<-chan time.Time, func() bool) {
	c.timers <- d
	return c.fire, func() bool { return true }
}

// TestWaitUntilReadsTheManagersClock: the wait for the next wake-up is a
// timer of the manager's clock, set to the time left on that clock.
func TestWaitUntilReadsTheManagersClock(t *testing.T) {
	m := newTestManager(t, Config{MinPlayers: -1, RegistrationWindow: -1})
	c := &manualClock{now: t0, timers: make(chan time.Duration, 1), fire: make(chan time.Time)}
	m.clk = c
	done := make(chan error, 1)
	go func() { done <- m.waitUntil(context.Background(), t0.Add(7*time.Second)) }()
	if d := <-c.timers; d != 7*time.Second {
		t.Fatalf("timer of %s, want 7s", d)
	}
	select {
	case err := <-done:
		t.Fatalf("returned before the timer fired: %v", err)
	default:
	}
	c.fire <- t0.Add(7 * time.Second)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A pass asks about each referee once, whatever the number of matches
// waiting: the manager makes a pass at every report.
func TestSchedulerPassLooksAtEachRefereeOnce(t *testing.T) {
	a, b := testReferee("REF01", 2), testReferee("REF02", 2)
	s := testScheduler(40, a, b)
	asked := 0
	s.usable = func(*referee) bool { asked++; return true }
	jobs, _ := s.assign(t0)
	if len(jobs) != 4 {
		t.Fatalf("assign gave out %d matches, want the referees' 4 places", len(jobs))
	}
	if asked != 2 {
		t.Fatalf("a pass over 40 matches asked about the referees %d times, want 2", asked)
	}
	asked = 0
	if jobs, _ := s.assign(t0); len(jobs) != 0 || asked != 2 {
		t.Fatalf("a pass with every referee full: %d jobs, %d questions; want 0 and 2", len(jobs), asked)
	}
}

// TestPlanPrefersTheRefereeOfTheRoundBefore: among the referees equally
// loaded, a match is planned on one that had either of its players in the
// round before (its connection to that player is likely still open); a
// lower load still comes first.
func TestPlanPrefersTheRefereeOfTheRoundBefore(t *testing.T) {
	m, err := New(Config{DataRoot: t.TempDir(), MinPlayers: -1, RegistrationWindow: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	for _, id := range []string{"REF01", "REF02", "REF03"} {
		ref := testReferee(id, 2)
		ref.GameTypes = []string{m.cfg.GameType}
		m.referees = append(m.referees, ref)
	}
	pair := func(id string, round int, a, b string) scheduledMatch {
		return scheduledMatch{MatchID: id, RoundID: round, PlayerA: a, PlayerB: b}
	}
	m.setSchedule([][]scheduledMatch{
		{pair("R1M1", 1, "P01", "P02"), pair("R1M2", 1, "P03", "P04"), pair("R1M3", 1, "P05", "P06")},
		{pair("R2M1", 2, "P03", "P05"), pair("R2M2", 2, "P01", "P06"), pair("R2M3", 2, "P02", "P04")},
	})
	plan := func(r int) string {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.planRoundLocked(r)
		var got []string
		for _, mt := range m.rounds[r-1] {
			got = append(got, mt.MatchID+":"+mt.RefereeID)
		}
		return strings.Join(got, " ")
	}
	if got, want := plan(1), "R1M1:REF01 R1M2:REF02 R1M3:REF03"; got != want {
		t.Fatalf("round 1 planned %s, want %s", got, want)
	}
	// R2M1: all idle; P03 had REF02 (the first such in order). R2M2: P01
	// had REF01, idle. R2M3: the referees of P02 and P04 have a match
	// each, REF03 none.
	if got, want := plan(2), "R2M1:REF02 R2M2:REF01 R2M3:REF03"; got != want {
		t.Errorf("round 2 planned %s, want %s", got, want)
	}
}
