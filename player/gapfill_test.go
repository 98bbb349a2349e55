package player_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentleague/league/internal/atomicfile"
	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/player"
	pstore "github.com/agentleague/league/player/store"
	"github.com/agentleague/league/referee"
)

// dropGameOvers serves next, but cuts the connection of the first drop
// GAME_OVER requests it sees, as a network fault would: the referee's
// GAME_OVER never reaches the player.
// While down is set, it cuts every request.
type dropGameOvers struct {
	next    http.Handler
	drop    atomic.Int32
	dropped atomic.Int32
	down    atomic.Bool
	flip    atomic.Int32 // the first flip GAME_OVERs are rewritten by flipDraw
	// late, the first late GAME_OVERs are held for lateBy before they are
	// passed on: the referee, whose GAME_OVER deadline is then a quarter
	// of lateBy, gives up waiting and reports, and the round's standings
	// reach the player before those GAME_OVERs do.
	late   atomic.Int32
	lateBy time.Duration
	// fillWait, when set, is the players' FillWait (else 1 s).
	fillWait time.Duration
	// capacity, when set, is the referee's MaxConcurrentMatches.
	capacity int
	// shared has the players keep their histories in one store (as a
	// process of many players does), rather than one each.
	shared bool
	// hold, when set, holds the player's LEAGUE_QUERY calls (countQueries)
	// until it is closed.
	hold chan struct{}
	// run, when set, has the player Run on a listener of its own behind
	// the front, under stop's context; Run's error goes to ran.
	run  bool
	stop context.CancelFunc
	ran  chan error
}

// flipDraw rewrites a GAME_OVER whose result is a draw into a win of the
// player whose id sorts first: the GAME_OVER of another referee that ran
// the same match too, with another outcome.
func flipDraw(body []byte) []byte {
	var req map[string]any
	if json.Unmarshal(body, &req) != nil {
		return body
	}
	params, _ := req["params"].(map[string]any)
	res, _ := params["game_result"].(map[string]any)
	choices, _ := res["choices"].(map[string]any)
	if res == nil || res["status"] != "DRAW" || len(choices) == 0 {
		return body
	}
	ids := slices.Sorted(maps.Keys(choices))
	res["status"], res["winner_player_id"] = "WIN", ids[0]
	out, err := json.Marshal(req)
	if err != nil {
		return body
	}
	return out
}

func (d *dropGameOvers) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if bytes.Contains(body, []byte(`"GAME_OVER"`)) && d.flip.Add(-1) >= 0 {
		body = flipDraw(body)
	}
	if bytes.Contains(body, []byte(`"GAME_OVER"`)) && d.late.Add(-1) >= 0 {
		time.Sleep(d.lateBy)
	}
	if d.down.Load() || bytes.Contains(body, []byte(`"GAME_OVER"`)) && d.drop.Add(-1) >= 0 {
		d.dropped.Add(1)
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			_ = conn.Close()
		}
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	d.next.ServeHTTP(w, r)
}

// countQueries counts the LEAGUE_QUERY calls a player sends, and the
// bytes of their answers; with hold set, it holds each until hold is
// closed.
type countQueries struct {
	n        atomic.Int32
	answered atomic.Int64
	hold     chan struct{}
}

// countedBody counts the bytes read from an answer.
type countedBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b countedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

func (c *countQueries) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		query := bytes.Contains(body, []byte(`"LEAGUE_QUERY"`))
		if query {
			c.n.Add(1)
			if c.hold != nil {
				select {
				case <-c.hold:
				case <-r.Context().Done():
					return nil, r.Context().Err()
				}
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		resp, err := http.DefaultTransport.RoundTrip(r)
		if query && err == nil {
			resp.Body = countedBody{ReadCloser: resp.Body, n: &c.answered}
		}
		return resp, err
	}
	return http.DefaultTransport.RoundTrip(r)
}

// learned records what a strategy's Learn is told.
type learned struct {
	mu      sync.Mutex
	records []player.MatchRecord
}

func (l *learned) ChooseParity(context.Context, player.ParityCall) (leaguesdk.Parity, error) {
	return leaguesdk.Even, nil
}

func (l *learned) Learn(_ context.Context, m player.MatchRecord) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, m)
}

func (l *learned) filled() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, m := range l.records {
		if m.Filled {
			n++
		}
	}
	return n
}

// gapLeague is a real league on loopback: a manager, a referee and
// players, the first of which is served behind a dropGameOvers.
type gapLeague struct {
	mgr     *manager.Manager
	data    string
	players []*player.Agent
	drops   *dropGameOvers
	queries []*countQueries
	learn   []*learned
	fills   []*fillCounter
}

// fillCounter is a player's Observer that keeps the fills it is told of.
type fillCounter struct {
	mu    sync.Mutex
	fills []leaguesdk.FillEvent
}

func (f *fillCounter) ObserveCall(leaguesdk.CallEvent) {}

func (f *fillCounter) ObserveFill(e leaguesdk.FillEvent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fills = append(f.fills, e)
}

func (f *fillCounter) events() []leaguesdk.FillEvent {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.fills)
}

// runGapLeague runs a league of players players whose first player's
// first drop GAME_OVERs are cut; adjust, when set, changes the manager's
// Config, during, when set, runs while the league does, and front sets up
// the first player's dropGameOvers.
func runGapLeague(t *testing.T, players, drop int, adjust func(*manager.Config), during func(*gapLeague), front ...func(*dropGameOvers)) *gapLeague {
	t.Helper()
	g := startGapLeague(t, players, drop, adjust, during, front...)
	select {
	case <-g.mgr.Done():
	case <-time.After(60 * time.Second):
		t.Fatal("the league did not complete")
	}
	return g
}

// startGapLeague starts what runGapLeague runs, and returns while the
// league plays; the agents stop when the test ends.
func startGapLeague(t *testing.T, players, drop int, adjust func(*manager.Config), during func(*gapLeague), front ...func(*dropGameOvers)) *gapLeague {
	t.Helper()
	g := &gapLeague{data: t.TempDir()} // removed after the agents stop
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	run := func(what string, f func(context.Context) error) {
		wg.Go(func() {
			if err := f(ctx); err != nil && ctx.Err() == nil {
				t.Errorf("%s: %v", what, err)
			}
		})
	}
	ln := listen(t)
	mgrURL := "http://" + ln.Addr().String() + "/mcp"
	mcfg := manager.Config{LeagueID: "league_gap", Listener: ln, DataRoot: g.data,
		MinPlayers: players, RegistrationWindow: -1, RetryDelay: 100 * time.Millisecond, BroadcastTimeout: 2 * time.Second}
	g.drops = &dropGameOvers{}
	g.drops.drop.Store(int32(drop))
	for _, f := range front {
		f(g.drops)
	}
	if adjust != nil {
		adjust(&mcfg)
	}
	mgr, err := manager.New(mcfg)
	if err != nil {
		t.Fatal(err)
	}
	g.mgr = mgr
	run("manager", mgr.Run)
	ref, err := referee.New(referee.Config{Name: "Referee", League: mgrURL, Listener: listen(t), DataRoot: g.data,
		JoinTimeout: 2 * time.Second, MoveTimeout: 3 * time.Second, RetryDelay: 100 * time.Millisecond,
		GameOverTimeout: g.drops.lateBy / 4, MaxConcurrentMatches: g.drops.capacity})
	if err != nil {
		t.Fatal(err)
	}
	run("referee", ref.Run)
	<-ref.Registered()
	var shared *pstore.Store
	if g.drops.shared {
		if shared, err = pstore.Open(g.data); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = shared.Close() })
	}
	for i := range players {
		q, l, f := &countQueries{}, &learned{}, &fillCounter{}
		cfg := player.Config{Name: fmt.Sprintf("Gap %d", i+1), League: mgrURL, DataRoot: g.data, Strategy: l,
			HTTPClient: &http.Client{Transport: q}, RegisterRetry: 100 * time.Millisecond,
			FillWait: cmp.Or(g.drops.fillWait, time.Second), Observer: f, Store: shared}
		var p *player.Agent
		if i == 0 {
			q.hold = g.drops.hold
			srv := httptest.NewServer(g.drops)
			t.Cleanup(srv.Close)
			cfg.Endpoint = srv.URL + "/mcp"
			var own net.Listener
			if g.drops.run {
				own = listen(t)
				cfg.Listener, cfg.ShutdownGrace = own, 10*time.Second
			}
			if p, err = player.New(cfg); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			if own == nil {
				g.drops.next = p.Handler()
				run("player 0", p.Register)
			} else {
				g.drops.next = httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: own.Addr().String()})
				var pctx context.Context
				pctx, g.drops.stop = context.WithCancel(ctx)
				g.drops.ran = make(chan error, 1)
				wg.Go(func() { g.drops.ran <- p.Run(pctx) })
			}
		} else {
			cfg.Listener = listen(t)
			if p, err = player.New(cfg); err != nil {
				t.Fatal(err)
			}
			run(cfg.Name, p.Run)
		}
		g.players, g.queries, g.learn, g.fills = append(g.players, p), append(g.queries, q), append(g.learn, l), append(g.fills, f)
	}
	if during != nil {
		wg.Go(func() { during(g) })
	}
	return g
}

// results returns the manager's results of player id, by match.
func (g *gapLeague) results(id string) map[string]manager.MatchRecord {
	out := map[string]manager.MatchRecord{}
	for _, r := range g.mgr.Results() {
		if r.PlayerA == id || r.PlayerB == id {
			out[r.MatchID] = r
		}
	}
	return out
}

// eventually waits up to 10 s for ok.
func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestHistoryGapFilledFromTheManager(t *testing.T) {
	const players = 4
	g := runGapLeague(t, players, 2, nil, nil)
	if g.drops.dropped.Load() != 2 {
		t.Fatalf("%d GAME_OVERs dropped, want 2", g.drops.dropped.Load())
	}
	p := g.players[0]
	want := g.results(p.ID())
	if len(want) != players-1 {
		t.Fatalf("the manager has %d results of %s, want %d", len(want), p.ID(), players-1)
	}
	eventually(t, "the history to be complete", func() bool { return p.History().Len() == len(want) })
	filled := 0
	for _, m := range p.History().Matches() {
		r, ok := want[m.MatchID]
		if !ok {
			t.Fatalf("history holds %s, which the manager has no result of", m.MatchID)
		}
		opp := r.PlayerB
		if r.PlayerB == p.ID() {
			opp = r.PlayerA
		}
		if m.OpponentID != opp {
			t.Errorf("%s: opponent %s, want %s", m.MatchID, m.OpponentID, opp)
		}
		if got, want := m.Result == player.Win, string(r.Result.Winner) == p.ID(); got != want {
			t.Errorf("%s: result %s, the manager's winner %q", m.MatchID, m.Result, r.Result.Winner)
		}
		if m.Filled {
			filled++
			if m.MyChoice != "" || m.OpponentChoice != "" {
				t.Errorf("%s: a filled record holds choices %q %q it never saw", m.MatchID, m.MyChoice, m.OpponentChoice)
			}
		}
	}
	if filled != 2 {
		t.Errorf("%d records filled, want 2", filled)
	}
	eventually(t, "the Learner to be told", func() bool { return g.learn[0].filled() == 2 })
	for i, q := range g.queries[1:] {
		if n := q.n.Load(); n != 0 {
			t.Errorf("player %d, whose history is complete, sent %d league queries", i+1, n)
		}
		if ev := g.fills[i+1].events(); len(ev) != 0 {
			t.Errorf("player %d, whose history is complete, filled %+v", i+1, ev)
		}
	}
	// Each fill is told with its cause; together they recorded the two.
	recorded := 0
	for _, ev := range g.fills[0].events() {
		if ev.Cause != leaguesdk.FillBehind || ev.Missing < 1 || ev.Outcome != "ok" || ev.Entries != players-1 {
			t.Errorf("fill %+v: want cause %s, a match missing, the player's %d matches", ev, leaguesdk.FillBehind, players-1)
		}
		recorded += ev.Matches
	}
	if recorded != 2 {
		t.Errorf("the fills recorded %d matches, want 2", recorded)
	}

	// Durable as a GAME_OVER's record: history.json holds them once the
	// player has closed.
	id := p.ID()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	g.checkSaved(t, id, want, 2)
}

// checkSaved checks that player id's history.json holds the manager's
// results want, filled of them filled from the manager.
func (g *gapLeague) checkSaved(t *testing.T, id string, want map[string]manager.MatchRecord, filled int) {
	t.Helper()
	var f struct {
		Matches []player.MatchRecord `json:"matches"`
	}
	if err := atomicfile.ReadJSON(filepath.Join(g.data, "data", "players", "league_gap", id, "history.json"), &f); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range f.Matches {
		if _, ok := want[m.MatchID]; !ok {
			t.Errorf("history.json holds %s, which the manager has no result of", m.MatchID)
		}
		if m.Filled {
			n++
		}
	}
	if len(f.Matches) != len(want) || n != filled {
		t.Fatalf("history.json holds %d matches, %d filled; want %d, %d filled", len(f.Matches), n, len(want), filled)
	}
}

// TestShutDownPlayerAliveAtTheEndHasItsWholeHistory: a player the manager
// shut down (unreachable for MaxFails calls) that is reachable again
// before the league ends is told the league completed, and fills every
// result it missed from the manager.
func TestShutDownPlayerAliveAtTheEndHasItsWholeHistory(t *testing.T) {
	const players = 6
	var wasShutDown atomic.Bool
	// Its GAME_OVERs are lost too: what it knows of its matches comes from
	// the manager.
	g := runGapLeague(t, players, 1000, func(cfg *manager.Config) {
		cfg.MaxFails, cfg.ProbeInterval = 1, 50*time.Millisecond
	}, func(g *gapLeague) {
		g.drops.down.Store(true) // unreachable from the start…
		p := g.players[0]
		<-p.Registered()
		deadline := time.Now().Add(20 * time.Second)
		for g.mgr.AgentState(p.ID()) != manager.StateShutdown && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		wasShutDown.Store(g.mgr.AgentState(p.ID()) == manager.StateShutdown && g.mgr.Status() == manager.StatusRunning)
		g.drops.down.Store(false) // …until the manager has shut it down
	})
	if !wasShutDown.Load() {
		t.Fatal("the manager did not shut the unreachable player down while the league ran")
	}
	p := g.players[0]
	want := g.results(p.ID())
	if len(want) != players-1 {
		t.Fatalf("the manager has %d results of %s, want %d", len(want), p.ID(), players-1)
	}
	eventually(t, "the history to be complete", func() bool { return p.History().Len() == len(want) })
	for _, m := range p.History().Matches() {
		if _, ok := want[m.MatchID]; !ok {
			t.Fatalf("history holds %s, which the manager has no result of", m.MatchID)
		}
	}
}

// TestHistoryCorrectedToTheLeaguesResult: a player that kept another
// result of a match than the league (two referees ran it, the league kept
// the first report, the player the other's GAME_OVER) notices it in its
// standings row and takes the league's result.
func TestHistoryCorrectedToTheLeaguesResult(t *testing.T) {
	const players = 4 // every player chooses even: every match is a draw
	g := runGapLeague(t, players, 0, nil, nil, func(d *dropGameOvers) { d.flip.Store(1) })
	p := g.players[0]
	want := g.results(p.ID())
	eventually(t, "the history to hold the league's results", func() bool {
		h := p.History()
		return h.Len() == len(want) && h.Stats().Draws == len(want)
	})
	corrected := 0
	for _, m := range p.History().Matches() {
		if m.Filled {
			corrected++
			if m.Attempt != 2 {
				t.Errorf("%s: corrected record of attempt %d, want 2", m.MatchID, m.Attempt)
			}
		}
	}
	if corrected != 1 {
		t.Fatalf("%d records corrected, want 1", corrected)
	}
}

// switchHandler serves the handler last set, and cuts registrations while
// blocked is set.
type switchHandler struct {
	mu      sync.Mutex
	next    http.Handler
	blocked bool
	tries   atomic.Int32 // registrations cut
}

func (s *switchHandler) set(h http.Handler, blocked bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next, s.blocked = h, blocked
}

func (s *switchHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	next, blocked := s.next, s.blocked
	s.mu.Unlock()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if blocked && bytes.Contains(body, []byte(`"LEAGUE_REGISTER_REQUEST"`)) {
		s.tries.Add(1)
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			_ = conn.Close()
		}
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	next.ServeHTTP(w, r)
}

// TestRestartedPlayerAcknowledgesNoResultBeforeItsHistoryIsOpen: a player
// started again on its data root plays under its old id while it
// registers again, before its history is open. A GAME_OVER then must not
// be acknowledged (it would live in memory only, and die with the
// process); the gap fill takes the result from the manager later.
func TestRestartedPlayerAcknowledgesNoResultBeforeItsHistoryIsOpen(t *testing.T) {
	data := t.TempDir()
	ln := listen(t)
	mgr, err := manager.New(manager.Config{LeagueID: "league_gap", Listener: ln, DataRoot: data, MinPlayers: 10, RegistrationWindow: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	wg.Go(func() { _ = mgr.Run(ctx) })
	gate := &switchHandler{}
	gate.set(httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: ln.Addr().String()}), false)
	mgrSrv := httptest.NewServer(gate)
	defer mgrSrv.Close()
	front := &switchHandler{}
	playerSrv := httptest.NewServer(front)
	defer playerSrv.Close()
	cfg := player.Config{Name: "Returning", League: mgrSrv.URL + "/mcp", DataRoot: data, Endpoint: playerSrv.URL + "/mcp",
		RegisterRetry: 20 * time.Millisecond}

	first, err := player.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	front.set(first.Handler(), false)
	if err := first.Register(ctx); err != nil {
		t.Fatal(err)
	}
	id := first.ID()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	// Started again; its registration does not get through for now.
	gate.set(httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: ln.Addr().String()}), true)
	again, err := player.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	front.set(again.Handler(), false)
	registered := make(chan error, 1)
	wg.Go(func() { registered <- again.Register(ctx) })
	eventually(t, "a registration attempt", func() bool { return gate.tries.Load() > 0 })

	c := leaguesdk.NewClient(leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{MaxRetries: leaguesdk.NoRetries}})
	defer c.Close()
	var ack leaguesdk.GameJoinAck
	if err := c.Call(ctx, cfg.Endpoint, leaguesdk.MethodHandleGameInvitation, invitation("R1M1", id, "P02", leaguesdk.PlayerA), &ack); err != nil {
		t.Fatal(err)
	}
	var over leaguesdk.Ack
	err = c.Call(ctx, cfg.Endpoint, leaguesdk.MethodNotifyMatchResult,
		gameOver("R1M1", id, 4, map[string]leaguesdk.Parity{id: leaguesdk.Even, "P02": leaguesdk.Odd}), &over)
	if err == nil {
		t.Fatalf("GAME_OVER acknowledged (%+v) by a player whose history is not open: the result lives in memory only", over)
	}

	// Once registered, the player records results again.
	gate.set(httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: ln.Addr().String()}), false)
	if err := <-registered; err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, cfg.Endpoint, leaguesdk.MethodNotifyMatchResult,
		gameOver("R1M1", id, 4, map[string]leaguesdk.Parity{id: leaguesdk.Even, "P02": leaguesdk.Odd}), &over); err != nil {
		t.Fatalf("GAME_OVER after registration: %v", err)
	}
	if again.History().Len() != 1 {
		t.Fatalf("history holds %d records after registration, want 1", again.History().Len())
	}
}

// TestShutdownLetsTheFillOfTheHistoryFinish: a player stopped gracefully
// while it takes the results it missed from the manager (after the league
// completed, as a person stops it) records them before it stops: started
// again after the end, it would be refused and never get them.
func TestShutdownLetsTheFillOfTheHistoryFinish(t *testing.T) {
	for _, how := range []string{"Shutdown", "Run's context"} {
		t.Run(how, func(t *testing.T) {
			const players = 4
			hold := make(chan struct{})
			released := sync.OnceFunc(func() { close(hold) })
			t.Cleanup(released)
			g := runGapLeague(t, players, 2, nil, nil, func(d *dropGameOvers) {
				d.hold, d.run = hold, how != "Shutdown"
			})
			if g.drops.dropped.Load() != 2 {
				t.Fatalf("%d GAME_OVERs dropped, want 2", g.drops.dropped.Load())
			}
			p := g.players[0]
			id := p.ID()
			want := g.results(id)
			// The player noticed its gap (its standings row, or the final
			// standings) and asks the manager, who does not answer yet.
			eventually(t, "the player to ask the manager", func() bool { return g.queries[0].n.Load() > 0 })
			if n := p.History().Len(); n != players-1-2 {
				t.Fatalf("history holds %d matches before the fill, want %d", n, players-1-2)
			}
			stopped := make(chan error, 1)
			if how == "Shutdown" {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				go func() { stopped <- p.Shutdown(ctx) }()
			} else {
				g.drops.stop() // as a signal does: Run stops with ShutdownGrace
				stopped = g.drops.ran
			}
			select {
			case err := <-stopped:
				t.Fatalf("the player stopped (%v) while the fill of its history waited on the manager", err)
			case <-time.After(200 * time.Millisecond):
			}
			released()
			if err := <-stopped; err != nil {
				t.Fatalf("stop: %v", err)
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			g.checkSaved(t, id, want, 2)
		})
	}
}

// TestPlayerUnreachableAtTheEndIsToldLater: a player the manager cannot
// reach when the league completes (cut off since its first round) is sent
// LEAGUE_COMPLETED again once it is reachable, and fills its history.
func TestPlayerUnreachableAtTheEndIsToldLater(t *testing.T) {
	const players = 4
	g := runGapLeague(t, players, 0, func(cfg *manager.Config) {
		cfg.MaxFails, cfg.ProbeInterval, cfg.MaxRetryDelay = 1, 50*time.Millisecond, 200*time.Millisecond
	}, nil, func(d *dropGameOvers) { d.down.Store(true) }) // cut off from the start to the end
	p := g.players[0]
	<-p.Registered()
	want := g.results(p.ID())
	if len(want) != players-1 {
		t.Fatalf("the manager has %d results of %s, want %d", len(want), p.ID(), players-1)
	}
	if n := p.History().Len(); n != 0 {
		t.Fatalf("history holds %d matches while the player was cut off, want 0", n)
	}
	g.drops.down.Store(false) // reachable again, after the league's end
	eventually(t, "the history to be complete", func() bool { return p.History().Len() == len(want) })
	for _, m := range p.History().Matches() {
		if _, ok := want[m.MatchID]; !ok {
			t.Fatalf("history holds %s, which the manager has no result of", m.MatchID)
		}
		if !m.Filled {
			t.Errorf("%s: not marked filled", m.MatchID)
		}
	}
}
