package manager

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

func testApplicant(kind, endpoint string) *applicant {
	return &applicant{kind: kind, rec: agentRecord{DisplayName: "x", Endpoint: endpoint, GameTypes: []string{leaguesdk.GameEvenOdd},
		ProtocolVersion: leaguesdk.ProtocolVersion, MaxConcurrentMatches: 1}}
}

// TestRegistryAddsRejoinsAndTakesBack: ids count per kind; an endpoint
// registers once, except for its agent coming back with its token; a
// registration taken back leaves the registry as it was.
func TestRegistryAddsRejoinsAndTakesBack(t *testing.T) {
	r := newRegistry()
	tokens := map[string]string{}
	tokenOf := func(id string) (string, bool) { tok, ok := tokens[id]; return tok, ok }
	p := testApplicant("player", "http://p1")
	if reg, err := r.rejoin(p, "", tokenOf); err != nil || reg.id != "" {
		t.Fatalf("rejoin of a new endpoint: %+v, %v", reg, err)
	}
	reg := r.add(p, "tok-p", t0)
	tokens[reg.id] = reg.token
	ref := r.add(testApplicant("referee", "http://r1"), "tok-r", t0)
	if reg.id != "P01" || ref.id != "REF01" || r.playerByID["P01"].AuthToken != "tok-p" || r.refByID["REF01"].MaxConcurrentMatches != 1 {
		t.Fatalf("added %+v and %+v: %+v", reg, ref, r)
	}
	if again, err := r.rejoin(p, "tok-p", tokenOf); err != nil || !again.rejoined || again.id != "P01" {
		t.Errorf("rejoin with the token: %+v, %v", again, err)
	}
	for _, presented := range []string{"", "someone-else"} {
		if _, err := r.rejoin(p, presented, tokenOf); err == nil || !strings.Contains(err.Error(), "already registered") {
			t.Errorf("rejoin with token %q: %v, want a rejection", presented, err)
		}
	}
	q := testApplicant("player", "http://p2")
	if got := r.add(q, "tok-q", t0); got.id != "P02" {
		t.Fatalf("second player %s", got.id)
	}
	r.undoAdd(q)
	if len(r.players) != 1 || r.playerByID["P02"] != nil || r.endpoints["http://p2"] != "" || r.nextPlayer != 2 {
		t.Errorf("after undoAdd: %d players, endpoints %v, next %d", len(r.players), r.endpoints, r.nextPlayer)
	}
	if got := r.add(q, "tok-q", t0); got.id != "P02" {
		t.Errorf("the id taken back is given again: %s", got.id)
	}
}

func newTestManager(t *testing.T, cfg Config) *Manager {
	t.Helper()
	cfg.LeagueID, cfg.DataRoot, cfg.NoAgentLog = "league_unit", t.TempDir(), true
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.client.Close(); m.closeFiles() })
	return m
}

// TestAdmitRefusesAndUndoesAFailedSave: the league's rules refuse, and a
// registration whose state cannot be saved is answered with neither id nor
// reason and leaves no trace: the same agent is admitted once saving works.
func TestAdmitRefusesAndUndoesAFailedSave(t *testing.T) {
	m := newTestManager(t, Config{MaxPlayers: 2, MinPlayers: -1, RegistrationWindow: -1})
	other := testApplicant("player", "http://p0")
	other.rec.GameTypes = []string{"chess"}
	if reg := m.admit(other, ""); !strings.Contains(reg.reason, "supports only chess") {
		t.Errorf("a player of another game: %+v", reg)
	}
	// state.json cannot be replaced while a non-empty directory holds its name.
	state := m.store.statePath()
	if err := os.RemoveAll(state); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(state, "blocker"), 0o755); err != nil {
		t.Fatal(err)
	}
	a := testApplicant("player", "http://p1")
	if reg := m.admit(a, ""); reg.id != "" || reg.reason != "" {
		t.Fatalf("admit with a failing save: %+v, want neither id nor reason", reg)
	}
	if len(m.players) != 0 || len(m.endpoints) != 0 || m.nextPlayer != 1 {
		t.Fatalf("a failed save left %d players, endpoints %v, next %d", len(m.players), m.endpoints, m.nextPlayer)
	}
	if err := os.RemoveAll(state); err != nil {
		t.Fatal(err)
	}
	if reg := m.admit(a, ""); reg.id != "P01" || reg.token == "" {
		t.Fatalf("admit after the save works again: %+v", reg)
	}
	m.admit(testApplicant("player", "http://p2"), "")
	if reg := m.admit(testApplicant("player", "http://p3"), ""); !strings.Contains(reg.reason, "the league is full") {
		t.Errorf("a third player of two: %+v", reg)
	}
}

// TestRegistrationsShareASave: registrations that arrive while the state
// is being saved are decided in one batch, in their order of arrival,
// with one save of state.json that holds them all; when the batch's save
// fails, every registration of it is taken back.
func TestRegistrationsShareASave(t *testing.T) {
	m := newTestManager(t, Config{MaxPlayers: 3, MinPlayers: -1, RegistrationWindow: -1})
	var saves atomic.Int32
	m.store.observe = func(e WriteEvent) {
		if e.File == "state" {
			saves.Add(1)
		}
	}
	// batch admits the applicants while the state is being saved (persistMu
	// held): the first waits for the save, the others queue behind it in
	// the order given. It returns their registrations once all are decided.
	batch := func(as ...*applicant) []registration {
		regs := make([]registration, len(as))
		done := make(chan struct{})
		m.persistMu.Lock()
		for i, a := range as {
			go func() {
				regs[i] = m.admit(a, "")
				done <- struct{}{}
			}()
			deadline := time.Now().Add(10 * time.Second)
			for {
				m.admissions.mu.Lock()
				queued := len(m.admissions.waiting)
				m.admissions.mu.Unlock()
				if queued == i+1 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("registration %d not queued; %d are", i+1, queued)
				}
				runtime.Gosched()
			}
		}
		m.persistMu.Unlock()
		for range as {
			<-done
		}
		return regs
	}

	regs := batch(testApplicant("player", "http://p1"), testApplicant("player", "http://p2"),
		testApplicant("player", "http://p1"), testApplicant("referee", "http://r1"),
		testApplicant("player", "http://p3"), testApplicant("player", "http://p4"))
	want := []struct{ id, reason, sender string }{{"P01", "", "player:"}, {"P02", "", "player:"},
		{"", "P01 is already registered", ""}, {"REF01", "", "referee:"}, {"P03", "", "player:"}, {"", "the league is full", ""}}
	for i, w := range want {
		if r := regs[i]; r.id != w.id || !strings.Contains(r.reason, w.reason) || (w.id != "" && !tokenShapeOK(r.token)) {
			t.Errorf("registration %d: %+v, want id %q, reason with %q", i+1, r, w.id, w.reason)
		}
	}
	if n := saves.Load(); n != 1 {
		t.Errorf("six registrations at once saved the state %d times, want once", n)
	}
	st, err := m.store.loadState()
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Players) != 3 || st.Players[2].ID != "P03" || st.Players[2].AuthToken != regs[4].token ||
		len(st.Referees) != 1 || st.Referees[0].ID != "REF01" || st.NextPlayer != 4 {
		t.Errorf("state.json after the batch: players %+v, referees %+v, next player %d", st.Players, st.Referees, st.NextPlayer)
	}
	for i, r := range regs {
		if r.id != "" {
			if id, err := m.tokens.Verify(want[i].sender+r.id, r.token); err != nil || id != r.id {
				t.Errorf("the token of %s: %q, %v", r.id, id, err)
			}
		}
	}

	// state.json cannot be replaced while a non-empty directory holds its name.
	state := m.store.statePath()
	if err := os.RemoveAll(state); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(state, "blocker"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, r := range batch(testApplicant("referee", "http://r2"), testApplicant("referee", "http://r3")) {
		if r.id != "" || r.reason != "" {
			t.Errorf("referee %d of a batch whose save failed: %+v, want neither id nor reason", i+2, r)
		}
	}
	if len(m.referees) != 1 || m.nextReferee != 2 || len(m.endpoints) != 4 {
		t.Errorf("a failed batch left referees %d, next %d, endpoints %v", len(m.referees), m.nextReferee, m.endpoints)
	}
	if err := os.RemoveAll(state); err != nil {
		t.Fatal(err)
	}
	if r := m.admit(testApplicant("referee", "http://r3"), ""); r.id != "REF02" {
		t.Errorf("a referee once saving works again: %+v, want REF02", r)
	}
}

func tokenShapeOK(tok string) bool { return strings.HasPrefix(tok, "tok_") && len(tok) == 36 }

// register sends a registration to m's handler in-process and fails the
// test unless it is accepted.
func register(t *testing.T, m *Manager, kind, name string) {
	t.Helper()
	endpoint := "http://127.0.0.1:9/" + name
	meta := leaguesdk.PlayerMeta{DisplayName: name, Version: "1.0.0", GameTypes: []string{leaguesdk.GameEvenOdd},
		ContactEndpoint: endpoint, ProtocolVersion: leaguesdk.ProtocolVersion}
	var method string
	var params any
	if kind == "referee" {
		method = leaguesdk.MethodRegisterReferee
		params = &leaguesdk.RefereeRegisterRequest{
			Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgRefereeRegisterRequest, leaguesdk.NameSender(kind, name), "", "", time.Now()),
			RefereeMeta: leaguesdk.RefereeMeta{DisplayName: name, Version: "1.0.0", GameTypes: meta.GameTypes,
				ContactEndpoint: endpoint, MaxConcurrentMatches: 1, ProtocolVersion: meta.ProtocolVersion}}
	} else {
		method = leaguesdk.MethodRegisterPlayer
		params = &leaguesdk.LeagueRegisterRequest{
			Envelope:   leaguesdk.NewEnvelope(leaguesdk.MsgLeagueRegisterRequest, leaguesdk.NameSender(kind, name), "", "", time.Now()),
			PlayerMeta: meta}
	}
	p, _ := json.Marshal(params)
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": json.RawMessage(p)})
	req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, req)
	if !strings.Contains(rec.Body.String(), `"status":"ACCEPTED"`) {
		t.Fatalf("registering %s %s: %d %s", kind, name, rec.Code, rec.Body)
	}
}

// TestStartTriggersOnTheClock checks when the league starts, on the fake
// clock of a synctest bubble: the manager's wait for the start runs there,
// and registrations reach its handler in-process.
func TestStartTriggersOnTheClock(t *testing.T) {
	const window = 300 * time.Millisecond
	// waiting runs the wait for the start of m and returns a function
	// that tells whether it has returned, once every goroutine of the
	// bubble is blocked.
	waiting := func(t *testing.T, m *Manager) func() bool {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- m.waitForStart(ctx) }()
		t.Cleanup(func() { cancel(); <-done })
		return func() bool {
			synctest.Wait()
			select {
			case err := <-done:
				done <- err
				return true
			default:
				return false
			}
		}
	}
	t.Run("min players waits for a referee", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			m := newTestManager(t, Config{MinPlayers: 2, RegistrationWindow: -1})
			started := waiting(t, m)
			register(t, m, "player", "A")
			register(t, m, "player", "B")
			time.Sleep(time.Hour)
			if started() || m.Status() != StatusRegistering {
				t.Fatalf("started without a referee: %s", m.Status())
			}
			register(t, m, "referee", "Ref")
			if !started() || m.Status() != StatusRunning {
				t.Fatalf("not started with two players and a referee: %s", m.Status())
			}
		})
	})
	t.Run("the window ends with two players", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			opened := time.Now()
			m := newTestManager(t, Config{MinPlayers: -1, RegistrationWindow: window})
			started := waiting(t, m)
			register(t, m, "referee", "Ref")
			register(t, m, "player", "A")
			register(t, m, "player", "B")
			time.Sleep(window - time.Nanosecond)
			if started() {
				t.Fatal("started before the window ended")
			}
			time.Sleep(time.Nanosecond)
			if !started() || m.Status() != StatusRunning || !m.startedAt.Equal(opened.Add(window)) {
				t.Fatalf("status %s started at %v, want RUNNING at the window's end %v", m.Status(), m.startedAt, opened.Add(window))
			}
		})
	})
	t.Run("the window ends with one player", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			m := newTestManager(t, Config{MinPlayers: -1, RegistrationWindow: window})
			started := waiting(t, m)
			register(t, m, "referee", "Ref")
			register(t, m, "player", "A")
			time.Sleep(window + time.Hour)
			if started() || m.Status() != StatusRegistering {
				t.Fatalf("status %s with one player after the window, want REGISTERING", m.Status())
			}
			bAt := time.Now()
			register(t, m, "player", "B")
			if !started() || !m.startedAt.Equal(bAt) {
				t.Fatalf("started at %v, want when the second player registered, %v", m.startedAt, bAt)
			}
		})
	})
}

func TestRefereesNeeded(t *testing.T) {
	for _, tt := range []struct {
		perRound, capacity, refs int
		want                     string
	}{
		{0, 2, 1, ""},
		{2, 2, 1, " of up to 2 matches; 1 referee, taking 2 at once"},
		{1, 4, 2, " of up to 1 match; 2 referees, taking 4 at once"},
		{10, 4, 2, " of up to 10 matches; 2 referees, taking 4 at once, so the other matches of a round wait their turn (5 referees of the default 2 matches each run a round at once)"},
	} {
		if got := refereesNeeded(tt.perRound, tt.capacity, tt.refs); got != tt.want {
			t.Errorf("refereesNeeded(%d, %d, %d) = %q, want %q", tt.perRound, tt.capacity, tt.refs, got, tt.want)
		}
	}
}
