package manager_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/referee"
)

// startSpan is when a start_match arrived at a peer referee and when the
// peer answered it.
type startSpan struct {
	matchID string
	in, out time.Time
}

// holdStarts makes the peer referee p answer every start_match after hold,
// and returns a function listing when each arrived and was answered.
func holdStarts(p *peer, hold time.Duration) func() []startSpan {
	var mu sync.Mutex
	var spans []startSpan
	p.mu.Lock()
	p.onStart = func(s *leaguesdk.StartMatch) error {
		in := time.Now()
		time.Sleep(hold)
		mu.Lock()
		spans = append(spans, startSpan{s.MatchID, in, time.Now()})
		mu.Unlock()
		return nil
	}
	p.mu.Unlock()
	return func() []startSpan {
		mu.Lock()
		defer mu.Unlock()
		return append([]startSpan(nil), spans...)
	}
}

// eventTime returns the time of the first event of kind k in round r.
func eventTime(t *testing.T, m *running, k manager.EventKind, r int) time.Time {
	t.Helper()
	for _, e := range m.Events.all() {
		if e.Kind == k && e.RoundID == r {
			return e.Time
		}
	}
	t.Fatalf("no %s event in round %d", k, r)
	return time.Time{}
}

// assignments returns the referee of every match_assigned event, by match.
func assignments(m *running) map[string]string {
	out := map[string]string{}
	for _, e := range m.Events.all() {
		if e.Kind == manager.EventMatchAssigned {
			out[e.MatchID] = e.RefereeID
		}
	}
	return out
}

// TestRoundStartsMatchesInParallel: three referees of capacities 1, 2 and
// 3 each take 200 ms to answer start_match. The three matches of round 1
// go one to each referee, and the calls are made at once: every call
// arrives before any is answered, and the round is dispatched in less
// than the 600 ms that calls made one after the other would take.
func TestRoundStartsMatchesInParallel(t *testing.T) {
	const hold = 200 * time.Millisecond
	cfg := fastConfig(t, t.TempDir())
	cfg.MinPlayers = 6
	m := startManager(t, cfg)
	var spans [3]func() []startSpan
	for i, capacity := range []int{1, 2, 3} {
		p := newPeer(t)
		spans[i] = holdStarts(p, hold)
		registerReferee(t, m.MCP, fmt.Sprintf("Ref %d", i+1), p.URL, capacity, nil)
	}
	for i := range 6 {
		registerPlayer(t, m.MCP, fmt.Sprintf("Agent %d", i+1), newPeer(t).URL, nil)
	}
	waitFor(t, 5*time.Second, "the three assignments of round 1", func() bool {
		return m.Events.count(manager.EventMatchAssigned) == 3
	})

	var all []startSpan
	for i, f := range spans {
		got := f()
		if len(got) != 1 {
			t.Fatalf("REF%02d got %d start_match calls, want 1: %+v", i+1, len(got), got)
		}
		all = append(all, got[0])
	}
	lastIn, firstOut := all[0].in, all[0].out
	for _, s := range all[1:] {
		if s.in.After(lastIn) {
			lastIn = s.in
		}
		if s.out.Before(firstOut) {
			firstOut = s.out
		}
	}
	if !lastIn.Before(firstOut) {
		t.Errorf("start_match calls did not overlap: the last arrived %s after the first was answered", lastIn.Sub(firstOut))
	}
	started := eventTime(t, m, manager.EventRoundStarted, 1)
	var lastAssigned time.Time
	for _, e := range m.Events.all() {
		if e.Kind == manager.EventMatchAssigned && e.Time.After(lastAssigned) {
			lastAssigned = e.Time
		}
	}
	if took := lastAssigned.Sub(started); took >= 450*time.Millisecond {
		t.Errorf("round 1 took %s to dispatch three matches held %s each, want less than 450ms", took, hold)
	} else {
		t.Logf("round 1 dispatched in %s", took)
	}
}

// TestLeastLoadedRefereeFirst pins the manager's choice of referee: among
// those with room, the least loaded for its capacity (active/capacity);
// among equals, the referee the round's plan named, then the one with the
// most free places, then the first registered. Since the plan uses the same
// measure, every match goes to the referee ROUND_ANNOUNCEMENT named. Three
// referees of capacities 10, 2 and 1 that answer at once (and never report)
// share the six matches of round 1 of a twelve-player league:
//
//	R1M1  all idle                            → REF01 (planned, first)
//	R1M2  REF01 1/10, REF02 0/2, REF03 0/1    → REF02 (planned among the idle)
//	R1M3  REF01 1/10, REF02 1/2, REF03 0/1    → REF03
//	R1M4  REF01 1/10, REF02 1/2, REF03 full   → REF01
//	R1M5  REF01 2/10, REF02 1/2               → REF01 (fewer for its capacity, though
//	                                             REF02 has fewer active matches)
//	R1M6  REF01 3/10, REF02 1/2               → REF01
func TestLeastLoadedRefereeFirst(t *testing.T) {
	cfg := fastConfig(t, t.TempDir())
	cfg.MinPlayers = 12
	m := startManager(t, cfg)
	endpoints := map[string]string{}
	for i, capacity := range []int{10, 2, 1} {
		url := newPeer(t).URL
		registerReferee(t, m.MCP, fmt.Sprintf("Ref %d", i+1), url, capacity, nil)
		endpoints[fmt.Sprintf("REF%02d", i+1)] = url
	}
	var players []*peer
	for i := range 12 {
		p := newPeer(t)
		players = append(players, p)
		registerPlayer(t, m.MCP, fmt.Sprintf("Agent %d", i+1), p.URL, nil)
	}
	waitFor(t, 5*time.Second, "the six assignments of round 1", func() bool {
		return m.Events.count(manager.EventMatchAssigned) == 6
	})
	want := map[string]string{"R1M1": "REF01", "R1M2": "REF02", "R1M3": "REF03", "R1M4": "REF01", "R1M5": "REF01", "R1M6": "REF01"}
	got := assignments(m)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("assignments %v, want %v", got, want)
	}
	active := map[string]int{}
	for _, r := range m.Snapshot().Referees {
		active[r.RefereeID] = r.ActiveMatches
	}
	if fmt.Sprint(active) != fmt.Sprint(map[string]int{"REF01": 4, "REF02": 1, "REF03": 1}) {
		t.Errorf("active matches %v, want REF01 4, REF02 1, REF03 1", active)
	}
	// The announcement every player got names the referee each match went to.
	for i, p := range players {
		var ann leaguesdk.RoundAnnouncement
		waitFor(t, 5*time.Second, "the round announcement", func() bool {
			p.mu.Lock()
			defer p.mu.Unlock()
			msgs := p.got[leaguesdk.MsgRoundAnnouncement]
			return len(msgs) > 0 && json.Unmarshal(msgs[0], &ann) == nil
		})
		for _, sm := range ann.Matches {
			if sm.RefereeEndpoint != endpoints[got[sm.MatchID]] {
				t.Errorf("player %d: %s announced with %s, but went to %s (%s)", i+1, sm.MatchID,
					sm.RefereeEndpoint, got[sm.MatchID], endpoints[got[sm.MatchID]])
			}
		}
	}
}

// TestRealRefereesOfCapacityOne: two of this module's referees, each with
// room for one match, and six of its players: each round has three
// matches, so one waits for a referee to be free. Neither referee ever
// runs two matches at once (polled from the referees and from the
// manager's snapshot), the manager never offers a match to a full
// referee, and every match is recorded once.
func TestRealRefereesOfCapacityOne(t *testing.T) {
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	cfg.MinPlayers = 6
	m := startManager(t, cfg)
	var refs [2]*referee.Referee
	refs[0], _ = startReferee(t, m.MCP, "Referee Alpha", refereeOptions{capacity: 1})
	refs[1], _ = startReferee(t, m.MCP, "Referee Beta", refereeOptions{capacity: 1})

	var most [2]atomic.Int32 // the most active matches seen on each referee
	var mostSeenByManager atomic.Int32
	stop, polled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(polled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
			for i, r := range refs {
				if n := int32(r.ActiveMatches()); n > most[i].Load() {
					most[i].Store(n)
				}
			}
			for _, r := range m.Snapshot().Referees {
				if n := int32(r.ActiveMatches); n > mostSeenByManager.Load() {
					mostSeenByManager.Store(n)
				}
			}
		}
	}()
	startPlayers(t, m.MCP, 6, slow(20*time.Millisecond))
	m.waitDone(t, 20*time.Second)
	close(stop)
	<-polled

	checkLeague(t, m, dir, cfg.LeagueID, 6)
	for i := range refs {
		if n := most[i].Load(); n != 1 {
			t.Errorf("REF%02d ran up to %d matches at once, want 1", i+1, n)
		}
	}
	if n := mostSeenByManager.Load(); n != 1 {
		t.Errorf("the manager counted up to %d active matches on a referee, want 1", n)
	}
	perRef := map[string]int{}
	for _, r := range m.Results() {
		perRef[r.RefereeID]++
	}
	if perRef["REF01"] == 0 || perRef["REF02"] == 0 || perRef["REF01"]+perRef["REF02"] != 15 {
		t.Errorf("matches per referee %v, want both used, 15 in all", perRef)
	}
	for _, e := range m.Events.all() {
		if e.Kind == manager.EventWarning || e.Kind == manager.EventMatchReassigned {
			t.Errorf("%s: %s", e.Kind, e.Message)
		}
	}
}

// TestMatchReassignedFromStoppedRealReferee: one of this module's referees
// is stopped while it holds the only match (a player is still choosing);
// it aborts the match without reporting. After ReportTimeout the manager
// gives the match to the other real referee, which plays it with the same
// real players, and the league completes with the match recorded once.
func TestMatchReassignedFromStoppedRealReferee(t *testing.T) {
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	cfg.MinPlayers = 2
	cfg.ReportTimeout = time.Second
	cfg.BroadcastTimeout = 500 * time.Millisecond // LEAGUE_COMPLETED to the stopped referee fails
	m := startManager(t, cfg)
	doomed, stopDoomed := startReferee(t, m.MCP, "Referee Doomed", refereeOptions{capacity: 1, grace: time.Millisecond})
	survivor, _ := startReferee(t, m.MCP, "Referee Survivor", refereeOptions{capacity: 1})

	// The first choice waits until the test lets it go; later ones are prompt.
	holding := make(chan string, 1)
	release := make(chan struct{})
	var calls atomic.Int32
	staller := player.StrategyFunc(func(ctx context.Context, c player.ParityCall) (leaguesdk.Parity, error) {
		if calls.Add(1) == 1 {
			holding <- c.MatchID
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
		return leaguesdk.Even, nil
	})
	startPlayer(t, m.MCP, "Staller", staller)
	startPlayer(t, m.MCP, "Prompt", always(leaguesdk.Odd))

	var matchID string
	select {
	case matchID = <-holding:
	case <-time.After(5 * time.Second):
		t.Fatalf("no choice asked:\n%s", m.Events.tail(20))
	}
	if doomed.ActiveMatches() != 1 || survivor.ActiveMatches() != 0 {
		t.Fatalf("active matches: REF01 %d, REF02 %d; want the match on REF01", doomed.ActiveMatches(), survivor.ActiveMatches())
	}
	stopDoomed()
	close(release)

	m.waitDone(t, 10*time.Second)
	checkLeague(t, m, dir, cfg.LeagueID, 2)
	results := m.Results()
	if len(results) != 1 || results[0].MatchID != matchID || results[0].RefereeID != "REF02" ||
		results[0].Result.Status != leaguesdk.ResultWin {
		t.Fatalf("results %+v, want %s won and recorded by REF02", results, matchID)
	}
	var reassigned []string
	for _, e := range m.Events.all() {
		if e.Kind == manager.EventMatchReassigned {
			reassigned = append(reassigned, e.MatchID+" from "+e.RefereeID)
		}
	}
	if want := matchID + " from REF01"; strings.Join(reassigned, ", ") != want {
		t.Errorf("reassignments %v, want %s", reassigned, want)
	}
	if calls.Load() != 2 {
		t.Errorf("the stalling player was asked %d times, want 2 (once per referee)", calls.Load())
	}
}
