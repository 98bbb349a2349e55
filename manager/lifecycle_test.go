package manager_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/player"
)

// gate serves a player's handler on its own endpoint and can make the
// player die (connections cut) or hang (requests never answered).
type gate struct {
	srv  *httptest.Server
	mode atomic.Int32 // gateOpen, gateDead, gateHung
	stop chan struct{}
}

const (
	gateOpen int32 = iota
	gateDead
	gateHung
)

func newGate(t testing.TB, h func() http.Handler) *gate {
	g := &gate{stop: make(chan struct{})}
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch g.mode.Load() {
		case gateDead:
			panic(http.ErrAbortHandler)
		case gateHung:
			select {
			case <-r.Context().Done():
			case <-g.stop:
			}
			return
		}
		h().ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		close(g.stop)
		g.srv.Close()
	})
	return g
}

// transitions returns the agent_state events of id, in order.
func transitions(l *eventLog, id string) []manager.Transition {
	var out []manager.Transition
	for _, e := range l.all() {
		if e.Kind == manager.EventAgentState && e.AgentID == id && e.Transition != nil {
			out = append(out, *e.Transition)
		}
	}
	return out
}

func reached(l *eventLog, id string, to manager.AgentState, tr manager.Trigger) bool {
	for _, x := range transitions(l, id) {
		if x.To == to && (tr == "" || x.Trigger == tr) {
			return true
		}
	}
	return false
}

// playFailingLeague plays six players, one referee; after round 1 P05
// dies and P06 hangs. It returns how long the league took from its start.
func playFailingLeague(t *testing.T, maxFails int) (time.Duration, *running) {
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	cfg.MinPlayers = 6
	cfg.MaxFails = maxFails
	cfg.ProbeInterval = 100 * time.Millisecond
	cfg.BroadcastTimeout = time.Second
	var gates [2]*gate
	var started atomic.Int64
	cfg.OnEvent = func(e manager.Event) {
		switch {
		case e.Kind == manager.EventLeagueStarted:
			started.Store(time.Now().UnixNano())
		case e.Kind == manager.EventRoundCompleted && e.RoundID == 1:
			gates[0].mode.Store(gateDead)
			gates[1].mode.Store(gateHung)
		}
	}
	m := startManager(t, cfg)
	startReferee(t, m.MCP, "Referee Alpha", refereeOptions{})
	startPlayers(t, m.MCP, 4, nil)
	for i, name := range []string{"Dies", "Hangs"} {
		var h atomic.Pointer[http.Handler]
		gates[i] = newGate(t, func() http.Handler { return *h.Load() })
		a, stop := newPlayerAgentAt(t, m.MCP, name, gates[i].srv.URL+"/mcp", nil)
		handler := a.Handler()
		h.Store(&handler)
		t.Cleanup(stop)
		select {
		case <-a.Registered():
		case <-time.After(10 * time.Second):
			t.Fatalf("%s did not register", name)
		}
	}
	m.waitDone(t, 120*time.Second)
	took := time.Since(time.Unix(0, started.Load()))
	checkLeague(t, m, dir, cfg.LeagueID, 6)
	seen := map[string]bool{}
	for _, r := range m.Results() {
		if seen[r.MatchID] {
			t.Errorf("%s has two results", r.MatchID)
		}
		seen[r.MatchID] = true
	}
	if len(seen) != 15 {
		t.Errorf("%d matches with a result, want 15", len(seen))
	}
	return took, m
}

// TestLifecycleDeadAndHungPlayers: a player that dies after round 1 and
// one that hangs go SUSPENDED, then SHUTDOWN; every match still has one
// result, and the rest of the league does not wait their deadlines out.
func TestLifecycleDeadAndHungPlayers(t *testing.T) {
	took, m := playFailingLeague(t, 0)
	for _, id := range []string{"P05", "P06"} {
		tr := transitions(m.Events, id)
		if !reached(m.Events, id, manager.StateSuspended, manager.TriggerTimeout) ||
			!reached(m.Events, id, manager.StateShutdown, manager.TriggerMaxFails) {
			t.Errorf("%s: transitions %+v, want SUSPENDED (timeout) then SHUTDOWN (max_fails)", id, tr)
		}
	}
	for _, r := range m.Results() {
		if r.RoundID < 2 {
			continue
		}
		for _, id := range []string{"P05", "P06"} {
			if (r.PlayerA == id || r.PlayerB == id) && (r.Result.Status != leaguesdk.ResultTechnicalLoss || string(r.Result.Winner) == id) {
				t.Errorf("%s: %+v, want a technical loss of %s", r.MatchID, r.Result, id)
			}
		}
	}
	for _, p := range m.Snapshot().Players {
		if p.State != manager.StateShutdown {
			t.Errorf("%s is %s after the league's end", p.PlayerID, p.State)
		}
	}
	// The same failures with agents never shut down, as before the
	// lifecycle: every match of the two waits out join deadlines and
	// retries. Logged, not asserted: timings depend on the machine.
	before, _ := playFailingLeague(t, -1)
	t.Logf("league with a player dead and one hung after round 1: %s with the lifecycle, %s without (MaxFails -1)", took, before)
}

// TestLifecycleRecoverShutdownResume: a player that does not answer is
// SUSPENDED and recovers to ACTIVE when a probe reaches it; one that never
// answers is SHUTDOWN after MaxFails failures, comes back to ACTIVE by
// registering again with its own token, and a manager started again on the
// same data keeps every state.
func TestLifecycleRecoverShutdownResume(t *testing.T) {
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	cfg.MinPlayers = 5
	cfg.MaxFails = 3
	cfg.ProbeInterval = 50 * time.Millisecond
	cfg.FailWindow = 20 * time.Millisecond // P05 shut down by its probes within the league
	cfg.BroadcastTimeout = 500 * time.Millisecond
	ln := listen(t)
	cfg.Listener = ln
	var mu sync.Mutex
	var recovered bool
	var g *gate
	cfg.OnEvent = func(e manager.Event) {
		// P04 answers again as soon as it was suspended.
		if e.Kind == manager.EventAgentState && e.AgentID == "P04" && e.Transition.To == manager.StateSuspended {
			mu.Lock()
			if !recovered {
				recovered = true
				g.mode.Store(gateOpen)
			}
			mu.Unlock()
		}
	}
	m := startManager(t, cfg)
	startReferee(t, m.MCP, "Referee Alpha", refereeOptions{})
	startPlayers(t, m.MCP, 3, slow(300*time.Millisecond))
	var h atomic.Pointer[http.Handler]
	g = newGate(t, func() http.Handler { return *h.Load() })
	g.mode.Store(gateDead)
	a, stop := newPlayerAgentAt(t, m.MCP, "Comes back", g.srv.URL+"/mcp", nil)
	handler := a.Handler()
	h.Store(&handler)
	t.Cleanup(stop)
	<-a.Registered()
	if s := m.AgentState("P04"); s != manager.StateRegistered {
		t.Errorf("P04 is %s before the start, want REGISTERED", s)
	}
	deadSrv := httptest.NewServer(http.NotFoundHandler())
	ghost := registerPlayer(t, m.MCP, "Ghost", deadSrv.URL+"/mcp", nil) // P05: the league starts
	deadSrv.Close()

	waitFor(t, 30*time.Second, "P04 recovered", func() bool { return reached(m.Events, "P04", manager.StateActive, manager.TriggerRecover) })
	waitFor(t, 30*time.Second, "P05 shut down", func() bool { return m.AgentState("P05") == manager.StateShutdown })
	if !reached(m.Events, "P05", manager.StateSuspended, "") {
		t.Errorf("P05 shut down without being suspended: %+v", transitions(m.Events, "P05"))
	}
	// Query answers carry the states as extra fields.
	query := func(qt leaguesdk.QueryType, v any) {
		t.Helper()
		var resp leaguesdk.LeagueQueryResponse
		call(t, m.MCP, leaguesdk.MethodLeagueQuery, &leaguesdk.LeagueQuery{Envelope: env(leaguesdk.MsgLeagueQuery, "player:P05", ghost.AuthToken),
			LeagueID: cfg.LeagueID, QueryType: qt}).decode(t, &resp)
		if err := resp.DecodeData(v); err != nil {
			t.Fatal(err)
		}
	}
	var stats leaguesdk.PlayerStatsData
	query(leaguesdk.QueryPlayerStats, &stats)
	if stats.PlayerID != "P05" || stats.State != string(manager.StateShutdown) {
		t.Errorf("GET_PLAYER_STATS: %+v", stats)
	}
	var table leaguesdk.StandingsData
	query(leaguesdk.QueryStandings, &table)
	var state leaguesdk.StateResponse
	call(t, m.MCP, leaguesdk.MethodGetStandings, &leaguesdk.StateQuery{Envelope: env(leaguesdk.MsgStateQuery, "player:P05", ghost.AuthToken)}).decode(t, &state)
	var got leaguesdk.StandingsData
	if err := json.Unmarshal(state.State, &got); err != nil {
		t.Fatal(err)
	}
	for _, rows := range [][]leaguesdk.StandingRow{table.Standings, got.Standings} {
		for _, row := range rows {
			if row.PlayerID == "P05" && row.State != string(manager.StateShutdown) || row.State == "" {
				t.Errorf("standings row %+v", row)
			}
		}
	}
	// Registering again with its own token brings it back.
	again := registerPlayer(t, m.MCP, "Ghost", deadSrv.URL+"/mcp", func(r *leaguesdk.LeagueRegisterRequest) { r.AuthToken = ghost.AuthToken })
	if again.PlayerID != "P05" || !reached(m.Events, "P05", manager.StateActive, manager.TriggerRegister) {
		t.Errorf("re-registration: %+v; transitions %+v", again, transitions(m.Events, "P05"))
	}
	waitFor(t, 30*time.Second, "P05 shut down again", func() bool { return m.AgentState("P05") == manager.StateShutdown })
	states := map[string]manager.AgentState{}
	for _, p := range m.Snapshot().Players {
		states[p.PlayerID] = p.State
	}
	m.Stop()
	if states["P05"] != manager.StateShutdown {
		t.Fatalf("states before the restart: %v", states)
	}

	cfg2 := cfg
	cfg2.OnEvent = nil
	cfg2.Listener = relisten(t, ln.Addr().String())
	m2, err := manager.New(cfg2)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	defer func() {
		if err := m2.Run(ctx); err != nil {
			t.Error(err)
		}
	}()
	for id, want := range states {
		if got := m2.AgentState(id); got != want && !(want == manager.StateActive && got == manager.StateSuspended) {
			t.Errorf("after the restart %s is %s, was %s", id, got, want)
		}
	}
	if got := m2.AgentState("P05"); got != manager.StateShutdown {
		t.Errorf("after the restart P05 is %s, want SHUTDOWN", got)
	}
}

// TestLifecycleShutdownRefereeGetsNoMatches: a referee that cannot be
// reached is SUSPENDED, then SHUTDOWN, and from then on no match is offered
// to it; the other referee plays the league.
//
// The order does not depend on how fast matches are played: six players
// make three matches a round and each referee takes one at a time, and the
// players choose only once REF01 is shut down, so that REF02 stays full
// and REF01, once its pause after the first failure is over, is offered
// the round's third match.
func TestLifecycleShutdownRefereeGetsNoMatches(t *testing.T) {
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	cfg.MinPlayers = 6
	cfg.MaxFails = 2
	cfg.ProbeInterval = -1 // failures of start_match alone
	cfg.RetryDelay = 10 * time.Millisecond
	var shut atomic.Bool
	var offers, offersAfter atomic.Int64
	gate := make(chan struct{})
	var gateOnce sync.Once
	cfg.OnEvent = func(e manager.Event) {
		switch {
		case e.Kind == manager.EventAgentState && e.AgentID == "REF01" && e.Transition.To == manager.StateShutdown:
			shut.Store(true)
			gateOnce.Do(func() { close(gate) })
		case e.RefereeID == "REF01" && (e.Kind == manager.EventMatchAssigned || e.Kind == manager.EventWarning):
			// Every start_match to REF01 ends in one of these.
			offers.Add(1)
			if shut.Load() {
				offersAfter.Add(1)
			}
		}
	}
	m := startManager(t, cfg)
	// REF01 takes one match at a time and cuts every connection.
	broken := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic(http.ErrAbortHandler)
	}))
	t.Cleanup(broken.Close)
	registerReferee(t, m.MCP, "Broken", broken.URL+"/mcp", 1, nil)
	startReferee(t, m.MCP, "Referee Beta", refereeOptions{capacity: 1})
	startPlayers(t, m.MCP, 6, player.StrategyFunc(func(ctx context.Context, _ player.ParityCall) (leaguesdk.Parity, error) {
		select {
		case <-gate:
			return leaguesdk.Even, nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}))
	m.waitDone(t, 60*time.Second)
	checkLeague(t, m, dir, cfg.LeagueID, 6)
	if !reached(m.Events, "REF01", manager.StateSuspended, manager.TriggerTimeout) || !reached(m.Events, "REF01", manager.StateShutdown, manager.TriggerMaxFails) {
		t.Fatalf("REF01: %+v", transitions(m.Events, "REF01"))
	}
	if n, after := offers.Load(), offersAfter.Load(); n < 2 || after != 0 {
		t.Errorf("REF01 was offered %d matches, %d of them after it was shut down", n, after)
	}
	for _, r := range m.Results() {
		if r.RefereeID != "REF02" {
			t.Errorf("%s recorded by %s", r.MatchID, r.RefereeID)
		}
	}
}
