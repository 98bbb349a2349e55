package manager_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/referee"
)

// listen opens a listener on a free loopback port.
func listen(t testing.TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// fastConfig returns a manager configuration with short deadlines for tests.
func fastConfig(t testing.TB, dataRoot string) manager.Config {
	return manager.Config{
		LeagueID:           "league_test",
		DataRoot:           dataRoot,
		MinPlayers:         -1,
		RegistrationWindow: -1,
		ReportTimeout:      10 * time.Second,
		StartMatchTimeout:  2 * time.Second,
		BroadcastTimeout:   2 * time.Second,
		RetryDelay:         50 * time.Millisecond,
		MaxRetryDelay:      500 * time.Millisecond,
		ShutdownGrace:      time.Second,
	}
}

// running is a manager served by Run on a loopback listener.
type running struct {
	*manager.Manager
	URL    string // http://127.0.0.1:port
	MCP    string // URL + "/mcp"
	Events *eventLog
	stop   func()
	errc   chan error
}

// startManager runs a manager configured by cfg (a listener is added when
// cfg has none) until the test ends or Stop is called.
func startManager(t testing.TB, cfg manager.Config) *running {
	t.Helper()
	if cfg.Listener == nil {
		cfg.Listener = listen(t)
	}
	events := &eventLog{}
	user := cfg.OnEvent
	cfg.OnEvent = func(e manager.Event) {
		events.add(e)
		if user != nil {
			user(e)
		}
	}
	m, err := manager.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{Manager: m, URL: "http://" + cfg.Listener.Addr().String(), Events: events, errc: make(chan error, 1)}
	r.MCP = r.URL + "/mcp"
	go func() { r.errc <- m.Run(ctx) }()
	var once sync.Once
	r.stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-r.errc:
				if err != nil {
					t.Errorf("manager Run: %v", err)
				}
			case <-time.After(20 * time.Second):
				t.Errorf("manager did not stop")
			}
		})
	}
	t.Cleanup(r.stop)
	waitFor(t, 5*time.Second, "manager up", func() bool {
		resp, err := http.Get(r.URL + "/health")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return r
}

// Stop stops the manager and waits for Run to return.
func (r *running) Stop() { r.stop() }

// waitDone waits for the league to complete.
func (r *running) waitDone(t testing.TB, within time.Duration) {
	t.Helper()
	select {
	case <-r.Done():
	case <-time.After(within):
		s := r.Snapshot()
		t.Fatalf("league not completed within %s: status %s, round %d/%d; events:\n%s", within, s.Status,
			s.CurrentRound, s.TotalRounds, r.Events.tail(12))
	}
}

// eventLog collects a manager's events.
type eventLog struct {
	mu     sync.Mutex
	events []manager.Event
}

func (l *eventLog) add(e manager.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

func (l *eventLog) all() []manager.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]manager.Event(nil), l.events...)
}

func (l *eventLog) count(k manager.EventKind) int {
	n := 0
	for _, e := range l.all() {
		if e.Kind == k {
			n++
		}
	}
	return n
}

func (l *eventLog) tail(n int) string {
	all := l.all()
	if len(all) > 2*n {
		all = append(all[:n:n], all[len(all)-n:]...)
	}
	var b strings.Builder
	for _, e := range all {
		fmt.Fprintf(&b, "  %s: %s\n", e.Kind, e.Message)
	}
	return b.String()
}

func waitFor(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// refereeOptions tune a test referee.
type refereeOptions struct {
	capacity int
	grace    time.Duration
	dataRoot string // default: a temporary directory
	endpoint string // the contact endpoint it registers; default its own listener's
}

// startReferee runs one of this module's referees against the manager at
// mcp until the test ends; the returned function stops it.
func startReferee(t testing.TB, mcp, name string, o refereeOptions) (*referee.Referee, func()) {
	t.Helper()
	if o.capacity == 0 {
		o.capacity = 4
	}
	if o.grace == 0 {
		o.grace = time.Second
	}
	if o.dataRoot == "" {
		o.dataRoot = t.TempDir()
	}
	ref, err := referee.New(referee.Config{
		Name: name, League: mcp, Listener: listen(t), Endpoint: o.endpoint, MaxConcurrentMatches: o.capacity,
		JoinTimeout: 2 * time.Second, MoveTimeout: 2 * time.Second, Retries: 1, RetryDelay: 50 * time.Millisecond,
		GameOverTimeout: time.Second, ReportTimeout: 2 * time.Second, RegisterRetry: 50 * time.Millisecond,
		ShutdownGrace: o.grace, DataRoot: o.dataRoot,
	})
	if err != nil {
		t.Fatal(err)
	}
	stop := runAgent(t, ref.Run)
	select {
	case <-ref.Registered():
	case <-time.After(10 * time.Second):
		t.Fatalf("referee %s did not register", name)
	}
	return ref, stop
}

// newPlayerAgent runs one of this module's players against the manager at
// mcp until the test ends, without waiting for its registration.
func newPlayerAgent(t testing.TB, mcp, name string, strategy player.Strategy) (*player.Agent, func()) {
	t.Helper()
	return newPlayerAgentAt(t, mcp, name, "", strategy)
}

// startPlayer runs one of this module's players against the manager at mcp
// until the test ends and waits for its registration.
func startPlayer(t testing.TB, mcp, name string, strategy player.Strategy) (*player.Agent, func()) {
	t.Helper()
	a, stop := newPlayerAgent(t, mcp, name, strategy)
	select {
	case <-a.Registered():
	case <-time.After(10 * time.Second):
		t.Fatalf("player %s did not register", name)
	}
	return a, stop
}

// startPlayers registers n players in order (P01…). When the test ends
// they are stopped all at once.
func startPlayers(t testing.TB, mcp string, n int, strategy player.Strategy) []*player.Agent {
	t.Helper()
	out := make([]*player.Agent, n)
	stops := make([]func(), n)
	for i := range n {
		out[i], stops[i] = startPlayer(t, mcp, fmt.Sprintf("Player %d", i+1), strategy)
	}
	t.Cleanup(func() {
		var wg sync.WaitGroup
		for _, stop := range stops {
			wg.Add(1)
			go func() {
				defer wg.Done()
				stop()
			}()
		}
		wg.Wait()
	})
	return out
}

// runAgent runs run until the test ends or the returned function is called.
func runAgent(t testing.TB, run func(context.Context) error) func() {
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- run(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			select {
			case <-errc:
			case <-time.After(20 * time.Second):
				t.Errorf("agent did not stop")
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// always returns a strategy that always chooses p.
func always(p leaguesdk.Parity) player.Strategy {
	return player.StrategyFunc(func(context.Context, player.ParityCall) (leaguesdk.Parity, error) { return p, nil })
}

// rpcReply is a raw JSON-RPC response.
type rpcReply struct {
	HTTPStatus int
	Header     http.Header         `json:"-"` // the reply's HTTP headers
	ID         json.RawMessage     `json:"id"`
	Result     json.RawMessage     `json:"result"`
	Error      *leaguesdk.RPCError `json:"error"`
	Raw        []byte              `json:"-"` // the body as received
}

// code returns the catalog code of the reply's protocol error, or "".
func (r *rpcReply) code() leaguesdk.Code {
	if r.Error == nil || len(r.Error.Data) == 0 {
		return ""
	}
	var d struct {
		ErrorCode leaguesdk.Code `json:"error_code"`
	}
	_ = json.Unmarshal(r.Error.Data, &d)
	return d.ErrorCode
}

// post sends body to url and decodes the JSON-RPC reply.
func post(t testing.TB, url string, body []byte) *rpcReply {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := &rpcReply{HTTPStatus: resp.StatusCode, Header: resp.Header, Raw: raw}
	if err := json.Unmarshal(raw, r); err != nil {
		t.Fatalf("reply %q is not JSON-RPC: %v", raw, err)
	}
	return r
}

// call sends method with params to the manager at url.
func call(t testing.TB, url, method string, params any) *rpcReply {
	t.Helper()
	p, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": json.RawMessage(p)})
	return post(t, url, body)
}

// decode decodes the reply's result into v.
func (r *rpcReply) decode(t testing.TB, v any) {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("call failed: %d %s %s", r.Error.Code, r.Error.Message, r.Error.Data)
	}
	if err := json.Unmarshal(r.Result, v); err != nil {
		t.Fatal(err)
	}
}

func env(t leaguesdk.MessageType, sender, token string) leaguesdk.Envelope {
	return leaguesdk.NewEnvelope(t, sender, token, "", time.Now())
}

// playerRegistration is the registration request of a player called name
// at endpoint.
func playerRegistration(name, endpoint string) *leaguesdk.LeagueRegisterRequest {
	return &leaguesdk.LeagueRegisterRequest{
		Envelope: env(leaguesdk.MsgLeagueRegisterRequest, leaguesdk.NameSender("player", name), ""),
		PlayerMeta: leaguesdk.PlayerMeta{DisplayName: name, Version: "1.0.0", GameTypes: []string{leaguesdk.GameEvenOdd},
			ContactEndpoint: endpoint, ProtocolVersion: leaguesdk.ProtocolVersion},
	}
}

// registerPlayer registers a player by hand and returns the answer.
func registerPlayer(t testing.TB, mcp, name, endpoint string, mutate func(*leaguesdk.LeagueRegisterRequest)) leaguesdk.LeagueRegisterResponse {
	t.Helper()
	req := playerRegistration(name, endpoint)
	if mutate != nil {
		mutate(req)
	}
	var resp leaguesdk.LeagueRegisterResponse
	call(t, mcp, leaguesdk.MethodRegisterPlayer, req).decode(t, &resp)
	return resp
}

// registerReferee registers a referee by hand and returns the answer.
func registerReferee(t testing.TB, mcp, name, endpoint string, capacity int, mutate func(*leaguesdk.RefereeRegisterRequest)) leaguesdk.RefereeRegisterResponse {
	t.Helper()
	req := &leaguesdk.RefereeRegisterRequest{
		Envelope: env(leaguesdk.MsgRefereeRegisterRequest, leaguesdk.NameSender("referee", name), ""),
		RefereeMeta: leaguesdk.RefereeMeta{DisplayName: name, Version: "1.0.0", GameTypes: []string{leaguesdk.GameEvenOdd},
			ContactEndpoint: endpoint, MaxConcurrentMatches: capacity, ProtocolVersion: leaguesdk.ProtocolVersion},
	}
	if mutate != nil {
		mutate(req)
	}
	var resp leaguesdk.RefereeRegisterResponse
	call(t, mcp, leaguesdk.MethodRegisterReferee, req).decode(t, &resp)
	return resp
}

// checkLeague checks a completed league: every match of the schedule has
// exactly one recorded result, on disk as in memory, and the standings are
// what ComputeStandings makes of the records on disk.
func checkLeague(t testing.TB, r *running, dataRoot, leagueID string, players int) {
	t.Helper()
	records, err := manager.LoadResults(dataRoot, leagueID)
	if err != nil {
		t.Fatal(err)
	}
	want := players * (players - 1) / 2
	if len(records) != want {
		t.Fatalf("%d results on disk, want %d", len(records), want)
	}
	seen := map[string]bool{}
	pairs := map[[2]string]bool{}
	for _, rec := range records {
		if seen[rec.MatchID] {
			t.Fatalf("match %s recorded twice", rec.MatchID)
		}
		seen[rec.MatchID] = true
		a, b := rec.PlayerA, rec.PlayerB
		if a > b {
			a, b = b, a
		}
		if pairs[[2]string{a, b}] {
			t.Fatalf("%s and %s met twice", a, b)
		}
		pairs[[2]string{a, b}] = true
	}
	snap := r.Snapshot()
	entrants := make([]manager.Entrant, len(snap.Players))
	for i, p := range snap.Players {
		entrants[i] = manager.Entrant{PlayerID: p.PlayerID, DisplayName: p.DisplayName}
	}
	wantRows := manager.ComputeStandings(entrants, records, nil)
	got := r.Standings()
	if fmt.Sprint(got) != fmt.Sprint(wantRows) {
		t.Fatalf("standings\n%v\nwant (recomputed from the records on disk)\n%v", got, wantRows)
	}
	for _, row := range got {
		if row.Played != players-1 {
			t.Errorf("%s played %d matches, want %d", row.PlayerID, row.Played, players-1)
		}
	}
	if snap.Status != manager.StatusCompleted || snap.Champion == nil || snap.Champion.PlayerID != got[0].PlayerID {
		t.Errorf("status %s champion %+v, want COMPLETED and %s", snap.Status, snap.Champion, got[0].PlayerID)
	}
}

// newPlayerAgentAt is newPlayerAgent with endpoint as the contact
// endpoint the player registers (a gate in front of its handler); "" for
// its listener's.
func newPlayerAgentAt(t testing.TB, mcp, name, endpoint string, strategy player.Strategy) (*player.Agent, func()) {
	t.Helper()
	a, err := player.New(player.Config{
		Name: name, League: mcp, Listener: listen(t), Endpoint: endpoint, DataRoot: t.TempDir(), Strategy: strategy,
		SafetyMargin: 100 * time.Millisecond, RegisterRetry: 50 * time.Millisecond, ShutdownGrace: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	return a, runAgent(t, a.Run)
}
