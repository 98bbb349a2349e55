package manager_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
)

// resetter serves an agent's handler on an endpoint of its own and, once
// armed, holds the start_match calls that reach it until n are in flight,
// then resets every connection at once (as a load balancer or a NAT table
// that drops its state does).
type resetter struct {
	srv     *httptest.Server
	handler atomic.Pointer[http.Handler]
	mu      sync.Mutex
	armed   bool
	n, held int
	resetAt time.Time
	done    chan struct{} // closed once the connections were reset
}

func newResetter(t testing.TB, n int) *resetter {
	rs := &resetter{n: n, armed: true, done: make(chan struct{})}
	rs.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"`+leaguesdk.MethodStartMatch+`"`)) {
			rs.mu.Lock()
			hold := rs.armed
			if hold {
				rs.held++
				if rs.held == rs.n {
					// Every held call fails in the same moment.
					rs.armed, rs.resetAt = false, time.Now()
					go func() {
						rs.srv.CloseClientConnections()
						close(rs.done)
					}()
				}
			}
			rs.mu.Unlock()
			if hold {
				<-r.Context().Done()
				return
			}
		}
		(*rs.handler.Load()).ServeHTTP(w, r)
	}))
	t.Cleanup(rs.srv.Close)
	return rs
}

// TestConnectionsResetAtOnceCountOnce: a referee holding four matches
// whose connections are all reset at once failed once, not four times: it
// is SUSPENDED at most, never SHUTDOWN, and it is given matches again
// within a few seconds; the league completes on it.
func TestConnectionsResetAtOnceCountOnce(t *testing.T) {
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	cfg.MinPlayers = 8
	cfg.MaxFails = 3
	cfg.ProbeInterval = 100 * time.Millisecond
	m := startManager(t, cfg)
	rs := newResetter(t, 4)
	ref, _ := startReferee(t, m.MCP, "Referee Alpha", refereeOptions{capacity: 4, endpoint: rs.srv.URL + "/mcp"})
	h := ref.Handler()
	rs.handler.Store(&h)
	startPlayers(t, m.MCP, 8, nil)
	select {
	case <-rs.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the referee was never given four matches at once")
	}
	rs.mu.Lock()
	resetAt := rs.resetAt
	rs.mu.Unlock()
	waitFor(t, 5*time.Second, "REF01 given a match again after the reset", func() bool {
		for _, e := range m.Events.all() {
			if e.Kind == manager.EventMatchAssigned && e.RefereeID == "REF01" && e.Time.After(resetAt) {
				return true
			}
		}
		return false
	})
	m.waitDone(t, 60*time.Second)
	checkLeague(t, m, dir, cfg.LeagueID, 8)
	if reached(m.Events, "REF01", manager.StateShutdown, manager.TriggerMaxFails) {
		t.Errorf("REF01 was shut down by one reset: %+v", transitions(m.Events, "REF01"))
	}
	if !reached(m.Events, "REF01", manager.StateSuspended, manager.TriggerTimeout) {
		t.Errorf("REF01 was never suspended: %+v", transitions(m.Events, "REF01"))
	}
	for _, tr := range transitions(m.Events, "REF01") {
		if tr.To == manager.StateSuspended && tr.Fails > 1 {
			t.Errorf("one reset counted %d failures: %+v", tr.Fails, tr)
		}
	}
}

// TestLeagueWhoseEveryRefereeWasShutDownCompletes: both referees cannot be
// reached from the league's start and are SHUTDOWN; while they are, the
// waiting matches are an alarm (an event, Progress.Stalled, a line of the
// dashboard's state). Once they answer again they are probed, ACTIVE
// again, and the league completes on them.
func TestLeagueWhoseEveryRefereeWasShutDownCompletes(t *testing.T) {
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	cfg.MinPlayers = 4
	cfg.MaxFails = 2
	cfg.FailWindow = 20 * time.Millisecond
	cfg.ProbeInterval = 50 * time.Millisecond
	m := startManager(t, cfg)
	var gates [2]*gate
	for i, name := range []string{"Referee Alpha", "Referee Beta"} {
		var h atomic.Pointer[http.Handler]
		gates[i] = newGate(t, func() http.Handler { return *h.Load() })
		gates[i].mode.Store(gateDead)
		ref, _ := startReferee(t, m.MCP, name, refereeOptions{capacity: 2, endpoint: gates[i].srv.URL + "/mcp"})
		handler := ref.Handler()
		h.Store(&handler)
	}
	startPlayers(t, m.MCP, 4, nil)
	waitFor(t, 20*time.Second, "both referees shut down", func() bool {
		return m.AgentState("REF01") == manager.StateShutdown && m.AgentState("REF02") == manager.StateShutdown
	})
	waitFor(t, 5*time.Second, "the stall alarm", func() bool {
		return m.Progress().Stalled > 0 && len(m.Snapshot().Alarms) == 1 && m.Events.count(manager.EventStalled) == 1
	})
	alarm := m.Snapshot().Alarms[0]
	if want := fmt.Sprintf("%d matches waiting: no referee can take them", m.Progress().Stalled); !strings.HasPrefix(alarm, want) {
		t.Errorf("alarm %q, want it to begin %q", alarm, want)
	}
	// Still shut down and probed meanwhile; nothing is played.
	if n := len(m.Results()); n != 0 {
		t.Errorf("%d results while no referee could be reached", n)
	}
	for _, g := range gates {
		g.mode.Store(gateOpen)
	}
	m.waitDone(t, 60*time.Second)
	checkLeague(t, m, dir, cfg.LeagueID, 4)
	for _, id := range []string{"REF01", "REF02"} {
		if !reached(m.Events, id, manager.StateActive, manager.TriggerRecover) {
			t.Errorf("%s never came back: %+v", id, transitions(m.Events, id))
		}
	}
	if m.Events.count(manager.EventUnstalled) < 1 {
		t.Errorf("no unstalled event after the referees came back")
	}
	if a := m.Snapshot().Alarms; len(a) != 0 {
		t.Errorf("alarms after the league: %q", a)
	}
}

// TestShutDownPlayerThatAnswersAgainIsBack: a player that cannot be
// reached when the league starts is SHUTDOWN; once it answers again it is
// probed, ACTIVE again, and plays its last round's match.
func TestShutDownPlayerThatAnswersAgainIsBack(t *testing.T) {
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	cfg.MinPlayers = 4
	cfg.MaxFails = 2
	cfg.FailWindow = 20 * time.Millisecond
	cfg.ProbeInterval = 50 * time.Millisecond
	cfg.BroadcastTimeout = 500 * time.Millisecond
	var g *gate
	cfg.OnEvent = func(e manager.Event) {
		if e.Kind == manager.EventAgentState && e.AgentID == "P04" && e.Transition.To == manager.StateShutdown {
			g.mode.Store(gateOpen)
		}
	}
	m := startManager(t, cfg)
	startReferee(t, m.MCP, "Referee Alpha", refereeOptions{})
	startPlayers(t, m.MCP, 3, slow(300*time.Millisecond))
	var h atomic.Pointer[http.Handler]
	g = newGate(t, func() http.Handler { return *h.Load() })
	g.mode.Store(gateDead)
	a, stop := newPlayerAgentAt(t, m.MCP, "Comes back", g.srv.URL+"/mcp", slow(300*time.Millisecond))
	handler := a.Handler()
	h.Store(&handler)
	t.Cleanup(stop)
	m.waitDone(t, 60*time.Second)
	checkLeague(t, m, dir, cfg.LeagueID, 4)
	var shut, back bool
	for _, tr := range transitions(m.Events, "P04") {
		switch {
		case tr.To == manager.StateShutdown && tr.Trigger == manager.TriggerMaxFails:
			shut = true
		case shut && tr.From == manager.StateShutdown && tr.To == manager.StateActive:
			back = true
		}
	}
	if !shut || !back {
		t.Fatalf("P04: %+v, want SHUTDOWN (max_fails) then ACTIVE", transitions(m.Events, "P04"))
	}
	for _, r := range m.Results() {
		if r.RoundID == 3 && (r.PlayerA == "P04" || r.PlayerB == "P04") && r.Result.Status == leaguesdk.ResultTechnicalLoss {
			t.Errorf("P04's last match: %+v, want it played", r.Result)
		}
	}
}
