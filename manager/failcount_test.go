package manager_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
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
