package manager_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
)

// autoReport makes a peer referee report every match it is given, won by
// player A, after delay.
func autoReport(t *testing.T, p *peer, mcp, refID, token string, delay time.Duration) {
	scriptedReport(t, p, mcp, refID, token, delay, func(s *leaguesdk.StartMatch) string { return s.PlayerAID })
}

// scriptedReport makes a peer referee report every match it is given,
// after delay, won by the player winner names ("" for a draw).
func scriptedReport(t *testing.T, p *peer, mcp, refID, token string, delay time.Duration, winner func(*leaguesdk.StartMatch) string) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			case s := <-p.starts:
				time.Sleep(delay)
				if ctx.Err() == nil {
					report(t, mcp, refID, token, s, winner(s))
				}
			}
		}
	}()
}

func TestCapacityAndReassignment(t *testing.T) {
	cfg := fastConfig(t, t.TempDir())
	cfg.MinPlayers = 4
	cfg.ReportTimeout = 300 * time.Millisecond
	m := startManager(t, cfg)
	refs := [2]*peer{newPeer(t), newPeer(t)}
	var tokens [2]string
	for i, p := range refs {
		tokens[i] = registerReferee(t, m.MCP, fmt.Sprintf("Ref %d", i+1), p.URL, 1, nil).AuthToken
	}
	for i := range 4 {
		registerPlayer(t, m.MCP, fmt.Sprintf("Agent %d", i+1), newPeer(t).URL, nil)
	}
	ids := [2]string{"REF01", "REF02"}

	// Round 1: each referee, having room for one match, gets one.
	first := [2]*leaguesdk.StartMatch{refs[0].nextStart(t, 5*time.Second), refs[1].nextStart(t, 5*time.Second)}
	if first[0].MatchID == first[1].MatchID {
		t.Fatalf("both referees got %s", first[0].MatchID)
	}
	// REF01 reports; REF02 never does, so its match goes to REF01 once
	// ReportTimeout has passed.
	if st := ackStatus(t, report(t, m.MCP, ids[0], tokens[0], first[0], first[0].PlayerAID)); st != leaguesdk.AckRecorded {
		t.Fatalf("ack %s", st)
	}
	again := refs[0].nextStart(t, 5*time.Second)
	if again.MatchID != first[1].MatchID || again.AuthToken != tokens[0] {
		t.Fatalf("REF01 got %s, want the reassigned %s", again.MatchID, first[1].MatchID)
	}
	if m.Events.count(manager.EventMatchReassigned) != 1 {
		t.Fatalf("no match_reassigned event:\n%s", m.Events.tail(20))
	}
	// The first referee's report arrives late, still before the second
	// referee's: the game was played, so it counts; the second is a duplicate.
	if st := ackStatus(t, report(t, m.MCP, ids[1], tokens[1], first[1], first[1].PlayerBID)); st != leaguesdk.AckRecorded {
		t.Fatalf("late report of the first referee: ack %s, want RECORDED", st)
	}
	if st := ackStatus(t, report(t, m.MCP, ids[0], tokens[0], again, again.PlayerAID)); st != leaguesdk.AckDuplicate {
		t.Fatalf("report of the second referee: ack %s, want DUPLICATE", st)
	}

	// Rounds 2 and 3: both matches of the round go out at once, one to
	// each referee, since a referee holding a match never gets another.
	// Once the manager has recorded both assignments (a peer queues a
	// start_match before it answers it), every start_match of the round
	// is in the peers' queues.
	for r := 2; r <= 3; r++ {
		waitFor(t, 5*time.Second, fmt.Sprintf("the two assignments of round %d", r), func() bool {
			n := 0
			for _, e := range m.Events.all() {
				if e.Kind == manager.EventMatchAssigned && e.RoundID == r {
					n++
				}
			}
			return n == 2
		})
		var got [2]*leaguesdk.StartMatch
		for i, p := range refs {
			var starts []*leaguesdk.StartMatch
			for len(p.starts) > 0 {
				s := <-p.starts
				// On a loaded machine the steps of round 1 above may take
				// longer than ReportTimeout, short to keep the test fast: the
				// manager then rightly offers the reassigned match again
				// before the late report records it.
				if s.MatchID == first[1].MatchID {
					continue
				}
				starts = append(starts, s)
			}
			if len(starts) != 1 {
				t.Fatalf("round %d: %s got %d start_match calls, want 1:\n%s", r, ids[i], len(starts), m.Events.tail(20))
			}
			got[i] = starts[0]
		}
		for i, s := range got {
			if st := ackStatus(t, report(t, m.MCP, ids[i], tokens[i], s, s.PlayerAID)); st != leaguesdk.AckRecorded {
				t.Fatalf("ack %s", st)
			}
		}
	}
	m.waitDone(t, 5*time.Second)
	results := m.Results()
	if len(results) != 6 {
		t.Fatalf("%d results, want 6", len(results))
	}
	for _, r := range results {
		if r.MatchID == first[1].MatchID && (r.RefereeID != "REF02" || r.Result.Winner != leaguesdk.OptionalString(first[1].PlayerBID)) {
			t.Errorf("the reassigned match recorded %+v, want REF02's report", r)
		}
	}
}

func TestUnreachableAndRefusingReferees(t *testing.T) {
	cfg := fastConfig(t, t.TempDir())
	cfg.MinPlayers = 4
	m := startManager(t, cfg)

	dead := httptest.NewServer(nil)
	deadURL := dead.URL + "/mcp"
	dead.Close()
	registerReferee(t, m.MCP, "Dead", deadURL, 4, nil)
	refusing := newPeer(t)
	refusing.onStart = func(*leaguesdk.StartMatch) error {
		return leaguesdk.NewError(leaguesdk.CodeRateLimited, "referee at capacity")
	}
	registerReferee(t, m.MCP, "Refusing", refusing.URL, 4, nil)
	good := newPeer(t)
	goodToken := registerReferee(t, m.MCP, "Good", good.URL, 1, nil).AuthToken
	autoReport(t, good, m.MCP, "REF03", goodToken, 0)
	for i := range 4 {
		registerPlayer(t, m.MCP, fmt.Sprintf("Agent %d", i+1), newPeer(t).URL, nil)
	}
	m.waitDone(t, 20*time.Second)
	for _, r := range m.Results() {
		if r.RefereeID != "REF03" {
			t.Errorf("%s recorded from %s", r.MatchID, r.RefereeID)
		}
	}
	if len(m.Results()) != 6 {
		t.Fatalf("%d results, want 6", len(m.Results()))
	}
	var unreachable, refused bool
	for _, e := range m.Events.all() {
		if e.Kind == manager.EventWarning && e.RefereeID == "REF01" && strings.Contains(e.Message, "E009") {
			unreachable = true
		}
		if e.Kind == manager.EventWarning && e.RefereeID == "REF02" && strings.Contains(e.Message, "E010") {
			refused = true
		}
	}
	if !unreachable || !refused {
		t.Errorf("warnings: unreachable %v, refused %v:\n%s", unreachable, refused, m.Events.tail(20))
	}
}

func TestNoRefereeTakesTheMatch(t *testing.T) {
	cfg := fastConfig(t, t.TempDir())
	cfg.MinPlayers = 2
	m := startManager(t, cfg)
	refusing := newPeer(t)
	refusing.onStart = func(*leaguesdk.StartMatch) error {
		return leaguesdk.NewError(leaguesdk.CodeRateLimited, "busy")
	}
	registerReferee(t, m.MCP, "Refusing", refusing.URL, 1, nil)
	registerPlayer(t, m.MCP, "A", newPeer(t).URL, nil)
	registerPlayer(t, m.MCP, "B", newPeer(t).URL, nil)
	waitFor(t, 5*time.Second, "warnings that the match waits", func() bool {
		n := 0
		for _, e := range m.Events.all() {
			if e.Kind == manager.EventWarning && strings.Contains(e.Message, "no referee can take") {
				n++
			}
		}
		return n >= 3
	})
	// A referee joining the running league takes the match.
	good := newPeer(t)
	tok := registerReferee(t, m.MCP, "Good", good.URL, 1, nil).AuthToken
	autoReport(t, good, m.MCP, "REF02", tok, 0)
	m.waitDone(t, 10*time.Second)
	if r := m.Results(); len(r) != 1 || r[0].RefereeID != "REF02" {
		t.Fatalf("results %+v", r)
	}
}

// A referee given many matches at once keeps its connections from one
// round to the next: the second round's start_match calls, as many at
// once as the first's and more than 64 (the SDK client's default of idle
// connections to one host), dial no new connection to it.
func TestStartMatchCallsKeepTheirConnections(t *testing.T) {
	const players, capacity = 200, 100 // a round of 100 matches, all on one referee at once
	cfg := fastConfig(t, t.TempDir())
	cfg.MinPlayers = players
	m := startManager(t, cfg)
	ref := newPeer(t)
	// Each round's start_match calls are answered only once all of them
	// have come, so that they are all open at once; the connections ever
	// opened to the referee are counted then.
	var mu sync.Mutex
	arrived, release := 0, make(chan struct{})
	var dialled []int64 // by the end of each round's start_match calls
	ref.onStart = func(*leaguesdk.StartMatch) error {
		mu.Lock()
		wait := release
		if arrived++; arrived%capacity == 0 {
			dialled = append(dialled, ref.dialled.Load())
			close(release)
			release = make(chan struct{})
		}
		mu.Unlock()
		select {
		case <-wait:
		case <-time.After(5 * time.Second):
		}
		return nil
	}
	token := registerReferee(t, m.MCP, "Ref 1", ref.URL, capacity, nil).AuthToken
	autoReport(t, ref, m.MCP, "REF01", token, 0)
	for i := range players {
		registerPlayer(t, m.MCP, fmt.Sprintf("Agent %d", i+1), newPeer(t).URL, nil)
	}
	waitFor(t, 20*time.Second, "the start_match calls of two rounds", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(dialled) >= 2
	})
	mu.Lock()
	defer mu.Unlock()
	if dialled[0] != capacity {
		t.Fatalf("round 1 opened %d connections to the referee, want %d (its start_match calls at once)", dialled[0], capacity)
	}
	if again := dialled[1] - dialled[0]; again != 0 {
		t.Errorf("round 2 opened %d more connections to the referee, want none", again)
	}
}
