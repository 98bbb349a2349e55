package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/referee"
)

// syncWriter collects what run prints, safe for concurrent use.
type syncWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// TestLeague runs the program on a free port with a referee and two players
// and checks what it prints, then stops it as SIGINT would.
func TestLeague(t *testing.T) {
	out := &syncWriter{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, []string{"-port", "0", "-data", dir, "-league-id", "league_example", "-min-players", "2",
			"-registration-window", "-1s", "-report-timeout", "10s", "-retry-delay", "50ms"}, out)
	}()
	re := regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+/mcp)`)
	waitFor(t, "the listening line", func() bool { return re.MatchString(out.String()) })
	league := re.FindStringSubmatch(out.String())[1]

	var wg sync.WaitGroup
	agents, stopAgents := context.WithCancel(context.Background())
	defer func() { stopAgents(); wg.Wait() }()
	start := func(run func(context.Context) error) {
		wg.Add(1)
		go func() { defer wg.Done(); _ = run(agents) }()
	}
	ref, err := referee.New(referee.Config{Name: "Referee Alpha", League: league, Listener: listen(t), DataRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	start(ref.Run)
	<-ref.Registered()
	for _, name := range []string{"Alpha", "Beta"} {
		a, err := player.New(player.Config{Name: name, League: league, Listener: listen(t), DataRoot: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		start(a.Run)
	}
	waitFor(t, "the final table", func() bool { return strings.Contains(out.String(), "rank") })

	resp, err := http.Get(strings.TrimSuffix(league, "/mcp") + "/api/state")
	if err != nil {
		t.Fatal(err)
	}
	var state struct {
		Status   string              `json:"status"`
		Champion *leaguesdk.Champion `json:"champion"`
	}
	err = json.NewDecoder(resp.Body).Decode(&state)
	resp.Body.Close()
	if err != nil || state.Status != "COMPLETED" || state.Champion == nil {
		t.Errorf("state: %+v, %v", state, err)
	}
	cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("run did not return")
	}
	printed := out.String()
	for _, want := range []string{"registered as REF01", "registered as P01", "registered as P02", "league league_example started",
		"round 1 started", "R1M1:", "round 1 completed", "league league_example completed", "P01", "league manager stopped (status COMPLETED)"} {
		if !strings.Contains(printed, want) {
			t.Errorf("output lacks %q:\n%s", want, printed)
		}
	}
	if strings.Contains(printed, "tok_") {
		t.Errorf("output shows a token:\n%s", printed)
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-port", "0", "-tiebreakers", "luck"},
		{"-port", "0", "extra"},
		{"-no-such-flag"},
	} {
		out := &syncWriter{}
		if err := run(context.Background(), append(args, "-data", t.TempDir()), out); err == nil {
			t.Errorf("run %v: no error", args)
		}
	}
}

// TestStartLeague starts a manager that waits for the operator, then uses
// the program's client mode (-start-league) as a script or a Kubernetes Job
// would: refused before enough players, refused with a wrong token, then
// STARTED, then ALREADY_STARTED.
func TestStartLeague(t *testing.T) {
	out := &syncWriter{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, []string{"-port", "0", "-data", t.TempDir(), "-league-id", "league_ops", "-min-players", "-1",
			"-registration-window", "-1s", "-admin-token", "s3cret", "-report-timeout", "10s", "-retry-delay", "50ms"}, out)
	}()
	defer func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	re := regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+/mcp)`)
	waitFor(t, "the listening line", func() bool { return re.MatchString(out.String()) })
	league := re.FindStringSubmatch(out.String())[1]

	start := func(extra ...string) (string, error) {
		client := &syncWriter{}
		err := run(context.Background(), append([]string{"-start-league", league, "-start-league-timeout", "5s"}, extra...), client)
		return client.String(), err
	}
	if _, err := start(); err == nil || !strings.Contains(err.Error(), "-admin-token") {
		t.Errorf("without a token: %v, want an error naming -admin-token", err)
	}
	if _, err := start("-admin-token", "s3cret"); err == nil || !strings.Contains(err.Error(), string(leaguesdk.CodePlayerNotRegistered)) {
		t.Errorf("with no player registered: %v, want %s", err, leaguesdk.CodePlayerNotRegistered)
	}

	var wg sync.WaitGroup
	agents, stopAgents := context.WithCancel(context.Background())
	defer func() { stopAgents(); wg.Wait() }()
	ref, err := referee.New(referee.Config{Name: "Referee Alpha", League: league, Listener: listen(t), DataRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	wg.Add(1)
	go func() { defer wg.Done(); _ = ref.Run(agents) }()
	for _, name := range []string{"Alpha", "Beta"} {
		a, err := player.New(player.Config{Name: name, League: league, Listener: listen(t), DataRoot: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() { defer wg.Done(); _ = a.Run(agents) }()
	}
	waitFor(t, "the registrations", func() bool {
		s := out.String()
		return strings.Contains(s, "registered as REF01") && strings.Contains(s, "registered as P02")
	})
	if strings.Contains(out.String(), "started") {
		t.Fatalf("the league started before start_league:\n%s", out.String())
	}

	if _, err := start("-admin-token", "wrong"); err == nil || !strings.Contains(err.Error(), string(leaguesdk.CodeAuthTokenInvalid)) {
		t.Errorf("with a wrong token: %v, want %s", err, leaguesdk.CodeAuthTokenInvalid)
	}
	if _, err := start("-admin-token", "s3cret", "-league-id", "another_league"); err == nil || !strings.Contains(err.Error(), string(leaguesdk.CodeLeagueNotFound)) {
		t.Errorf("for another league: %v, want %s", err, leaguesdk.CodeLeagueNotFound)
	}
	printed, err := start("-admin-token", "s3cret", "-league-id", "league_ops")
	if err != nil || !strings.Contains(printed, "league league_ops: STARTED with 2 players and 1 referee, 1 round") {
		t.Fatalf("start: %q, %v", printed, err)
	}
	waitFor(t, "the league to start", func() bool { return strings.Contains(out.String(), "league league_ops started") })
	if printed, err = start("-admin-token", "s3cret"); err != nil || !strings.Contains(printed, "ALREADY_STARTED") {
		t.Errorf("second start: %q, %v", printed, err)
	}

	// A manager not reachable yet (a pod starting) is tried again: a
	// front that drops the first two connections, then passes calls on.
	target, _ := url.Parse(league)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var dropped atomic.Int32
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if dropped.Add(1) <= 2 {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()
	client := &syncWriter{}
	err = run(context.Background(), []string{"-start-league", front.URL + "/mcp", "-admin-token", "s3cret", "-start-league-timeout", "10s"}, client)
	if err != nil || !strings.Contains(client.String(), "ALREADY_STARTED") || dropped.Load() != 3 {
		t.Errorf("start through a front dropping two calls: %q, %v, %d calls", client.String(), err, dropped.Load())
	}
	waitFor(t, "the final table", func() bool { return strings.Contains(out.String(), "rank") })
}
