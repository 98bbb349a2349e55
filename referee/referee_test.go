package referee_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentleague/league/internal/atomicfile"
	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/referee"
)

func TestNewValidatesConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  referee.Config
	}{
		{"no name", referee.Config{League: "http://127.0.0.1:8000/mcp"}},
		{"no league", referee.Config{Name: "R"}},
		{"league not a URL", referee.Config{Name: "R", League: "localhost:8000"}},
		{"bad endpoint", referee.Config{Name: "R", League: "http://127.0.0.1:8000/mcp", Endpoint: "nope"}},
		{"nil rules", referee.Config{Name: "R", League: "http://127.0.0.1:8000/mcp", Games: referee.Games{"x": nil}}},
	} {
		if _, err := referee.New(tc.cfg); err == nil {
			t.Errorf("%s: New accepted %+v", tc.name, tc.cfg)
		}
	}
	if _, err := referee.New(referee.Config{Name: "R", League: "http://127.0.0.1:8000/mcp"}); err != nil {
		t.Fatal(err)
	}
}

func TestStartMatchIsAcceptedOnlyFromTheManager(t *testing.T) {
	mgr := newTestManager(t)
	a := newTestPlayer(t, behaviour{})
	b := newTestPlayer(t, behaviour{})

	// Before registration: a clear refusal.
	ref, err := referee.New(referee.Config{Name: "Idle", League: mgr.URL, Endpoint: "http://127.0.0.1:1/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	idle := &env{mgr: mgr, ref: ref, URL: serve(t, ref), client: leaguesdk.NewClient(leaguesdk.ClientConfig{})}
	defer idle.client.Close()
	_, err = idle.start(t, idle.match(a, b, "P01", "P02"))
	if leaguesdk.CodeOf(err) != leaguesdk.CodeRefereeNotRegistered {
		t.Fatalf("before registration: %v, want E013", err)
	}

	e := startReferee(t, mgr, nil)
	req := e.match(a, b, "P01", "P02")
	req.AuthToken = ""
	if _, err := e.start(t, req); leaguesdk.CodeOf(err) != leaguesdk.CodeAuthTokenMissing {
		t.Fatalf("no token: %v, want E011", err)
	}
	req.AuthToken = leaguesdk.NewToken()
	if _, err := e.start(t, req); leaguesdk.CodeOf(err) != leaguesdk.CodeAuthTokenInvalid {
		t.Fatalf("another token: %v, want E012", err)
	}
	if inv, _, _, _, _ := a.counts(); inv != 0 {
		t.Fatalf("a refused match invited players (%d invitations)", inv)
	}
	req.AuthToken = mgr.token
	req.GameType = "chess"
	resp, err := e.start(t, req)
	if err != nil || resp.Status != leaguesdk.StatusRejected || resp.Reason == "" {
		t.Fatalf("unsupported game: %+v, %v", resp, err)
	}
}

// serve serves the referee's Handler on loopback until the test ends.
func serve(t *testing.T, ref *referee.Referee) string {
	t.Helper()
	return serveHandler(t, ref.Handler())
}

func serveHandler(t *testing.T, h http.Handler) string {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

func TestCapacityIsEnforced(t *testing.T) {
	mgr := newTestManager(t)
	e := startReferee(t, mgr, func(c *referee.Config) { c.MaxConcurrentMatches = 2 })
	slow := newTestPlayer(t, behaviour{JoinDelay: 150 * time.Millisecond})
	fast := newTestPlayer(t, behaviour{})

	first, second := e.match(slow, fast, "P01", "P02"), e.match(slow, fast, "P03", "P04")
	for _, req := range []*leaguesdk.StartMatch{first, second} {
		if resp, err := e.start(t, req); err != nil || resp.Status != leaguesdk.StatusAccepted {
			t.Fatalf("start_match: %+v, %v", resp, err)
		}
	}
	if n := e.ref.ActiveMatches(); n != 2 {
		t.Fatalf("ActiveMatches %d, want 2", n)
	}
	third := e.match(slow, fast, "P05", "P06")
	_, err := e.start(t, third)
	var pe *leaguesdk.Error
	if !errors.As(err, &pe) || pe.Code != leaguesdk.CodeRateLimited || !pe.Retryable() || !contains(pe.Message, "capacity") {
		t.Fatalf("past capacity: %v, want a retryable E010 naming the capacity", err)
	}
	// A repeated assignment of a running match is not a new match.
	if resp, err := e.start(t, first); err != nil || resp.Status != leaguesdk.StatusAccepted {
		t.Fatalf("repeated start_match: %+v, %v", resp, err)
	}
	mgr.waitReports(t, 2, 5*time.Second)
	waitFor(t, 2*time.Second, func() bool { return e.ref.ActiveMatches() == 0 })
	e.play(t, third)
	if inv, _, _, _, _ := slow.counts(); inv != 3 {
		t.Fatalf("%d invitations, want 3 (one per accepted match)", inv)
	}
}

func TestRepeatedStartMatchIsIdempotent(t *testing.T) {
	mgr := newTestManager(t)
	e := startReferee(t, mgr, func(c *referee.Config) { c.Rand = draws(5) })
	a := newTestPlayer(t, behaviour{Choice: leaguesdk.Odd})
	b := newTestPlayer(t, behaviour{Choice: leaguesdk.Even})
	req := e.match(a, b, "P01", "P02")
	req.Attempt = 3
	first := e.play(t, req)
	waitFor(t, 2*time.Second, func() bool {
		st, ok := e.ref.MatchState(req.MatchID)
		return ok && st.Reported
	})
	// GAME_OVER carries the assignment's attempt number.
	if overs := a.GameOvers(); len(overs) != 1 || overs[0].Attempt != 3 {
		t.Fatalf("GAME_OVER %+v, want one of attempt 3", overs)
	}
	// The same assignment again: accepted, not played again, reported again
	// with the same result.
	second := e.play(t, req)
	if inv, par, _, _, _ := a.counts(); inv != 1 || par != 1 {
		t.Fatalf("match played twice: %d invitations, %d parity calls", inv, par)
	}
	f, s := first.Result, second.Result
	if f.Winner != s.Winner || f.Status != s.Status || f.Details.DrawnNumber != s.Details.DrawnNumber ||
		fmt.Sprint(f.Score) != fmt.Sprint(s.Score) || first.ConversationID != second.ConversationID {
		t.Fatalf("reports differ: %+v / %+v", first, second)
	}

	// A new referee on the same data root knows the match from its
	// transcript and reports it again without playing it.
	e2 := startReferee(t, mgr, func(c *referee.Config) { c.DataRoot = e.dataRoot })
	if st, ok := e2.ref.MatchState(req.MatchID); !ok || st.State != referee.StateFinished || st.Result == nil {
		t.Fatalf("restarted referee's state of the finished match: %+v, %v", st, ok)
	}
	if _, ok := e2.ref.MatchState("R9M9"); ok {
		t.Fatal("restarted referee knows a match it never had")
	}
	third := e2.play(t, req)
	if third.Result.Winner != f.Winner || third.Result.Details.DrawnNumber != 5 {
		t.Fatalf("restored report %+v", third.Result)
	}
	if inv, _, _, _, _ := a.counts(); inv != 1 {
		t.Fatalf("match played again after restart: %d invitations", inv)
	}
}

func TestGetMatchStateHidesChoicesUntilFinished(t *testing.T) {
	mgr := newTestManager(t)
	e := startReferee(t, mgr, nil)
	a := newTestPlayer(t, behaviour{})
	b := newTestPlayer(t, behaviour{MoveDelay: 200 * time.Millisecond})
	req := e.match(a, b, "P01", "P02")
	if _, err := e.start(t, req); err != nil {
		t.Fatal(err)
	}
	query := func() referee.MatchState {
		q := &leaguesdk.StateQuery{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgStateQuery, "player:P02", "", "", time.Now()),
			MatchID: req.MatchID}
		resp, err := leaguesdk.CallWith[leaguesdk.StateResponse](context.Background(), e.client, e.URL, q, leaguesdk.CallOptions{Retry: leaguesdk.Once()})
		if err != nil {
			t.Fatal(err)
		}
		var st referee.MatchState
		if err := json.Unmarshal(resp.State, &st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	waitFor(t, 2*time.Second, func() bool { return query().State == referee.StateCollectingChoices })
	if st := query(); st.State != referee.StateCollectingChoices || st.Result != nil {
		t.Fatalf("mid-match state %+v", st)
	}
	mgr.waitReports(t, 1, 5*time.Second)
	if st := query(); st.State != referee.StateFinished || st.Result == nil || len(st.Result.Choices) != 2 {
		t.Fatalf("final state %+v", st)
	}
	q := &leaguesdk.StateQuery{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgStateQuery, "player:P02", "", "", time.Now()), MatchID: "R9M9"}
	_, err := leaguesdk.CallWith[json.RawMessage](context.Background(), e.client, e.URL, q, leaguesdk.CallOptions{Retry: leaguesdk.Once()})
	if leaguesdk.CodeOf(err) != leaguesdk.CodeMatchNotFound {
		t.Fatalf("unknown match: %v", err)
	}
}

func TestRegistrationRetriedWhileManagerIsDown(t *testing.T) {
	mgr := newTestManager(t)
	mgr.failRegister.Store(3)
	e := startReferee(t, mgr, nil)
	if e.ref.ID() != "REF01" || e.ref.LeagueID() != testLeague {
		t.Fatalf("ID %q league %q", e.ref.ID(), e.ref.LeagueID())
	}
	if n := mgr.failRegister.Load(); n >= 0 {
		t.Fatalf("registered before the manager was up (%d refusals left)", n+1)
	}
	mgr.mu.Lock()
	meta := mgr.meta
	mgr.mu.Unlock()
	if meta.Version != leaguesdk.Version || meta.ProtocolVersion != leaguesdk.ProtocolVersion {
		t.Fatalf("referee metadata %+v, want the module's version %s and protocol version %s", meta, leaguesdk.Version, leaguesdk.ProtocolVersion)
	}
	// The games registry was written under the data root.
	var reg referee.RegistryFile
	if err := atomicfile.ReadJSON(referee.RegistryPath(e.dataRoot), &reg); err != nil {
		t.Fatal(err)
	}
	eo, ok := reg.GameRegistry[leaguesdk.GameEvenOdd]
	if !ok || reg.SchemaVersion != "1.0.0" || reg.LastUpdated == "" || eo.MinPlayers != 2 || len(eo.ValidChoices["choose_parity"]) != 2 {
		t.Fatalf("registry %+v", reg)
	}
}

func TestRegistrationRejectedEndsRun(t *testing.T) {
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodRegisterReferee, Public: true},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.RefereeRegisterRequest) (*leaguesdk.RefereeRegisterResponse, error) {
			return &leaguesdk.RefereeRegisterResponse{
				Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgRefereeRegisterResponse, leaguesdk.LeagueManagerSender, "", in.ConversationID, time.Now()),
				Status:   leaguesdk.StatusRejected, Reason: "registration closed"}, nil
		})
	mgrURL := serveHandler(t, srv)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ref, err := referee.New(referee.Config{Name: "Late", League: mgrURL, Listener: ln, DataRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := ref.Run(ctx); err == nil || !contains(err.Error(), "registration closed") {
		t.Fatalf("Run: %v, want the rejection", err)
	}
}

func TestShutdownAbortsMatchesWithoutReporting(t *testing.T) {
	mgr := newTestManager(t)
	e := startReferee(t, mgr, func(c *referee.Config) {
		c.ShutdownGrace = 100 * time.Millisecond
		c.MoveTimeout = 5 * time.Second
	})
	a := newTestPlayer(t, behaviour{SilentMove: true})
	b := newTestPlayer(t, behaviour{})
	req := e.match(a, b, "P01", "P02")
	if _, err := e.start(t, req); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 2*time.Second, func() bool {
		_, par, _, _, _ := a.counts()
		return par > 0
	})
	start := time.Now()
	if err := e.stop(t); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("shutdown took %s", took)
	}
	if n := len(mgr.Reports()); n != 0 {
		t.Fatalf("aborted match reported %d times", n)
	}
	tr, err := referee.ReadTranscript(e.dataRoot, testLeague, req.MatchID)
	if err != nil {
		t.Fatal(err)
	}
	if tr.State != referee.StateAborted || tr.Result != nil || tr.Reported {
		t.Fatalf("transcript state %s result %+v", tr.State, tr.Result)
	}
}

func TestShutdownLetsInFlightMatchesFinish(t *testing.T) {
	mgr := newTestManager(t)
	e := startReferee(t, mgr, nil)
	a := newTestPlayer(t, behaviour{MoveDelay: 150 * time.Millisecond})
	b := newTestPlayer(t, behaviour{})
	req := e.match(a, b, "P01", "P02")
	if _, err := e.start(t, req); err != nil {
		t.Fatal(err)
	}
	if err := e.stop(t); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if reps := mgr.Reports(); len(reps) != 1 || reps[0].MatchID != req.MatchID {
		t.Fatalf("reports %+v", reps)
	}
}

func TestConcurrentMatches(t *testing.T) {
	const matches = 200
	mgr := newTestManager(t)
	e := startReferee(t, mgr, func(c *referee.Config) {
		c.MaxConcurrentMatches = matches
		c.JoinTimeout, c.MoveTimeout = 5*time.Second, 5*time.Second
		c.GameOverTimeout, c.ReportTimeout = 5*time.Second, 5*time.Second
	})
	// 20 player peers, each serving many player ids.
	var peers []*testPlayer
	for i := range 20 {
		choice := leaguesdk.Even
		if i%2 == 1 {
			choice = leaguesdk.Odd
		}
		peers = append(peers, newTestPlayer(t, behaviour{Choice: choice}))
	}
	reqs := make([]*leaguesdk.StartMatch, matches)
	for i := range reqs {
		reqs[i] = e.match(peers[(2*i)%20], peers[(2*i+1)%20], fmt.Sprintf("P%03d", 2*i+1), fmt.Sprintf("P%03d", 2*i+2))
	}
	var wg sync.WaitGroup
	errs := make(chan error, matches)
	var slowest atomic.Int64
	start := time.Now()
	for _, req := range reqs {
		wg.Go(func() {
			t0 := time.Now()
			if resp, err := e.start(t, req); err != nil || resp.Status != leaguesdk.StatusAccepted {
				errs <- fmt.Errorf("%s: %+v, %v", req.MatchID, resp, err)
			}
			if d := int64(time.Since(t0)); d > slowest.Load() {
				slowest.Store(d)
			}
		})
	}
	wg.Wait()
	t.Logf("%d start_match calls answered in %s (slowest %s)", matches, time.Since(start), time.Duration(slowest.Load()))
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	reps := mgr.waitReports(t, matches, 40*time.Second)
	// Each match has one result. (A report whose answer was slow may be
	// sent again; it then carries the same result.)
	results := map[string]string{}
	for _, r := range reps {
		if r.Result.Status != leaguesdk.ResultWin || r.Result.Score[string(r.Result.Winner)] != 3 {
			t.Fatalf("%s: %+v", r.MatchID, r.Result)
		}
		got := fmt.Sprint(r.Result)
		if prev, ok := results[r.MatchID]; ok && prev != got {
			t.Fatalf("%s reported with two results: %s / %s", r.MatchID, prev, got)
		}
		results[r.MatchID] = got
	}
	for _, req := range reqs {
		if _, ok := results[req.MatchID]; !ok {
			t.Fatalf("%s not reported", req.MatchID)
		}
	}
	if len(reps) != matches {
		t.Logf("%d reports for %d matches (slow answers were retried)", len(reps), matches)
	}
	waitFor(t, 2*time.Second, func() bool { return e.ref.ActiveMatches() == 0 })
}

// Players served on one host keep their connections from one wave of
// matches to the next: a referee running 10 matches at once calls 20
// players of one endpoint together, and the second wave dials no more
// connections than the first left open (with two idle connections to a
// host, as before, it dialled 18 anew).
func TestPlayersOnOneHostKeepTheirConnections(t *testing.T) {
	const capacity = 10
	mgr := newTestManager(t)
	e := startReferee(t, mgr, func(c *referee.Config) { c.MaxConcurrentMatches = capacity })
	host := newTestPlayer(t, behaviour{JoinDelay: 200 * time.Millisecond}) // the invitations of a wave overlap
	wave := func(n int) {
		t.Helper()
		before := len(mgr.Reports())
		for i := range capacity {
			a, b := fmt.Sprintf("P%02d", 2*i+1), fmt.Sprintf("P%02d", 2*i+2)
			if resp, err := e.start(t, e.match(host, host, a, b)); err != nil || resp.Status != leaguesdk.StatusAccepted {
				t.Fatalf("wave %d: start_match: %+v, %v", n, resp, err)
			}
		}
		mgr.waitReportCount(t, before+capacity, 10*time.Second)
		waitFor(t, 2*time.Second, func() bool { return e.ref.ActiveMatches() == 0 })
	}
	wave(1)
	first := host.connections()
	wave(2)
	again := host.connections() - first
	if first < 2 || first > 2*capacity {
		t.Fatalf("the first wave opened %d connections, want 2 to %d", first, 2*capacity)
	}
	if again > 2*capacity-first {
		t.Errorf("the second wave opened %d connections anew after the first opened %d, want at most %d", again, first, 2*capacity-first)
	}
}

// Referees given one HTTP client keep one connection to each player
// between them: eight players, each in four matches, one after the other,
// of two referees in turn, accept one connection each.
func TestRefereesShareConnectionsToPlayers(t *testing.T) {
	mgr := newTestManager(t)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2}}
	defer client.CloseIdleConnections()
	var envs []*env
	for range 2 {
		envs = append(envs, startReferee(t, mgr, func(c *referee.Config) { c.MaxConcurrentMatches = 1; c.HTTPClient = client }))
	}
	const n = 8
	var peers []*testPlayer
	for range n {
		peers = append(peers, newTestPlayer(t, behaviour{}))
	}
	played := 0
	for _, shift := range []int{0, 1, 2, 3} {
		for i := 0; i < n; i += 2 {
			ia, ib := (i+shift)%n, (i+shift+1+2*shift)%n
			if ia == ib {
				continue
			}
			e := envs[played%2]
			if resp, err := e.start(t, e.match(peers[ia], peers[ib], fmt.Sprintf("P%02d", ia+1), fmt.Sprintf("P%02d", ib+1))); err != nil || resp.Status != leaguesdk.StatusAccepted {
				t.Fatalf("start_match: %+v, %v", resp, err)
			}
			played++
			mgr.waitReportCount(t, played, 10*time.Second)
			waitFor(t, 2*time.Second, func() bool { return e.ref.ActiveMatches() == 0 })
		}
	}
	for i, p := range peers {
		if c := p.connections(); c != 1 {
			t.Errorf("player %d accepted %d connections from two referees sharing a client, want 1", i+1, c)
		}
	}
}

// A match whose result the manager acknowledged leaves the referee's
// memory, so that memory does not grow with the matches played; its
// transcript answers for it from then on.
func TestReportedMatchLeavesMemory(t *testing.T) {
	mgr := newTestManager(t)
	e := startReferee(t, mgr, nil)
	a := newTestPlayer(t, behaviour{Choice: leaguesdk.Odd})
	b := newTestPlayer(t, behaviour{Choice: leaguesdk.Even})
	req := e.match(a, b, "P01", "P02")
	e.play(t, req)
	waitFor(t, 5*time.Second, func() bool { return referee.MatchesInMemory(e.ref) == 0 })
	if st, ok := e.ref.MatchState(req.MatchID); !ok || st.State != referee.StateFinished || st.Result == nil || !st.Reported {
		t.Fatalf("state of the match once it left memory: %+v, %v", st, ok)
	}
}
