package e2e

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentleague/league/arena"
	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/referee"
)

// agent is the lifecycle the player, the referee and the manager share.
type agent interface {
	Run(context.Context) error
	Shutdown(context.Context) error
	Close() error
}

// agentSpec is what one test needs of an agent it makes.
type agentSpec struct {
	ln       net.Listener // Config.Listener
	league   string       // the manager's endpoint (player, referee)
	dataRoot string
	routes   map[string]http.Handler
	grace    time.Duration
}

// kinds makes each of the three agents from a spec.
var kinds = []struct {
	name string
	make func(t *testing.T, s agentSpec) agent
}{
	{"player", func(t *testing.T, s agentSpec) agent {
		a, err := player.New(player.Config{Name: "Lifecycle", League: s.league, Listener: s.ln, DataRoot: s.dataRoot,
			Routes: s.routes, ShutdownGrace: s.grace, RegisterRetry: 10 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}},
	{"referee", func(t *testing.T, s agentSpec) agent {
		r, err := referee.New(referee.Config{Name: "Lifecycle", League: s.league, Listener: s.ln, DataRoot: s.dataRoot,
			Routes: s.routes, ShutdownGrace: s.grace, RegisterRetry: 10 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}},
	{"manager", func(t *testing.T, s agentSpec) agent {
		m, err := manager.New(manager.Config{Listener: s.ln, DataRoot: s.dataRoot, Routes: s.routes,
			ShutdownGrace: s.grace, RegistrationWindow: -1})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}},
}

// downURL returns the endpoint of a manager that is down: nothing listens
// there any more.
func downURL(t *testing.T) string {
	ln := listen(t)
	url := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	return url
}

// runAgent runs a in the background; the returned channel gets Run's
// result. The test ends with a closed: Run cannot outlive it.
func runAgent(t *testing.T, a agent, ctx context.Context) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		done <- a.Run(ctx)
	}()
	t.Cleanup(func() {
		a.Close()
		<-returned
	})
	return done
}

// wait returns what ch gives, failing the test after 10 s.
func wait(t *testing.T, ch <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: still waiting after 10 s", what)
		return nil
	}
}

// waitServing waits until the agent on ln answers GET /health.
func waitServing(t *testing.T, ln net.Listener) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		resp, err := http.Get("http://" + ln.Addr().String() + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("not serving: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestRunTwiceAndRunAfterCloseAreErrors(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			ln := listen(t)
			a := k.make(t, agentSpec{ln: ln, league: downURL(t), dataRoot: t.TempDir()})
			ctx, cancel := context.WithCancel(context.Background())
			done := runAgent(t, a, ctx)
			waitServing(t, ln)
			err := a.Run(context.Background())
			if err == nil || err.Error() != k.name+": Run called twice" {
				t.Errorf("second Run = %v, want %q", err, k.name+": Run called twice")
			}
			cancel()
			if err := wait(t, done, "Run after its context ended"); err != nil {
				t.Errorf("Run = %v, want nil after a clean stop", err)
			}

			b := k.make(t, agentSpec{ln: listen(t), league: downURL(t), dataRoot: t.TempDir()})
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
			err = b.Run(context.Background())
			if err == nil || err.Error() != k.name+": Run called after Close" {
				t.Errorf("Run after Close = %v, want %q", err, k.name+": Run called after Close")
			}
		})
	}
}

// TestServeFailureEndsRunPromptly: an agent that cannot serve (its
// listener is closed) returns at once with the error, even while the
// manager it registers with is down and the caller's context never ends.
func TestServeFailureEndsRunPromptly(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			ln := listen(t)
			ln.Close()
			a := k.make(t, agentSpec{ln: ln, league: downURL(t), dataRoot: t.TempDir()})
			err := wait(t, runAgent(t, a, context.Background()), "Run with a closed listener")
			if err == nil || !strings.Contains(err.Error(), k.name+": serve:") {
				t.Fatalf("Run = %v, want the serve error", err)
			}
		})
	}
}

// slowRoute is an HTTP route that holds each request until release is
// closed or the request ends, telling started when one arrives.
type slowRoute struct {
	started chan struct{}
	release chan struct{}
}

func newSlowRoute() *slowRoute {
	return &slowRoute{started: make(chan struct{}, 1), release: make(chan struct{})}
}

func (s *slowRoute) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.started <- struct{}{}
	select {
	case <-s.release:
		io.WriteString(w, "done")
	case <-r.Context().Done():
	}
}

// get fetches url in the background; the channel gets the body or the error.
func get(url string) <-chan error {
	ch := make(chan error, 1)
	go func() {
		resp, err := http.Get(url)
		if err != nil {
			ch <- err
			return
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err == nil && string(body) != "done" {
			err = errors.New("body " + string(body))
		}
		ch <- err
	}()
	return ch
}

func TestShutdownLetsInFlightRequestsFinishWithinItsContext(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			// Within the deadline: the request in flight is answered in
			// full, Run and Shutdown return nil.
			slow := newSlowRoute()
			ln := listen(t)
			a := k.make(t, agentSpec{ln: ln, league: downURL(t), dataRoot: t.TempDir(),
				routes: map[string]http.Handler{"GET /slow": slow}, grace: time.Minute})
			done := runAgent(t, a, context.Background())
			waitServing(t, ln)
			reply := get("http://" + ln.Addr().String() + "/slow")
			<-slow.started
			shut := make(chan error, 1)
			go func() { shut <- a.Shutdown(context.Background()) }()
			// Once the agent refuses new connections it is shutting down;
			// the request in flight is still held.
			for {
				resp, err := http.Get("http://" + ln.Addr().String() + "/health")
				if err != nil {
					break
				}
				resp.Body.Close()
				time.Sleep(5 * time.Millisecond)
			}
			close(slow.release)
			if err := wait(t, reply, "the request in flight"); err != nil {
				t.Errorf("the request in flight was cut by Shutdown: %v", err)
			}
			if err := wait(t, shut, "Shutdown"); err != nil {
				t.Errorf("Shutdown = %v, want nil", err)
			}
			if err := wait(t, done, "Run"); err != nil {
				t.Errorf("Run = %v, want nil", err)
			}

			// Past the deadline: Shutdown returns its context's error and
			// Run returns nil, without waiting for the request.
			slow = newSlowRoute()
			ln = listen(t)
			a = k.make(t, agentSpec{ln: ln, league: downURL(t), dataRoot: t.TempDir(),
				routes: map[string]http.Handler{"GET /slow": slow}, grace: time.Minute})
			done = runAgent(t, a, context.Background())
			waitServing(t, ln)
			reply = get("http://" + ln.Addr().String() + "/slow")
			<-slow.started
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			if err := a.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Shutdown = %v, want its context's deadline", err)
			}
			if err := wait(t, done, "Run after the grace"); err != nil {
				t.Errorf("Run = %v, want nil", err)
			}
			if err := wait(t, reply, "the request cut off"); err == nil {
				t.Error("the held request was answered in full, though it was never released")
			}
		})
	}
}

// filesUnder counts the files this process holds open under dir.
func filesUnder(t *testing.T, dir string) int {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("open files are counted through /proc/self/fd")
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(target, dir+string(filepath.Separator)) {
			n++
		}
	}
	return n
}

func TestCloseWithoutRunReleasesFiles(t *testing.T) {
	data := t.TempDir()
	m, err := manager.New(manager.Config{DataRoot: data})
	if err != nil {
		t.Fatal(err)
	}
	if filesUnder(t, data) == 0 {
		t.Fatal("manager.New opened no file under its data root: the check below proves nothing")
	}
	h := httptest.NewServer(m.Handler())
	defer h.Close()
	league := h.URL + "/mcp"

	// A player and a referee served by someone else's server, registered
	// by hand: registration opens their agent logs.
	pData, rData := t.TempDir(), t.TempDir()
	var p *player.Agent
	ps := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { p.Handler().ServeHTTP(w, r) }))
	defer ps.Close()
	if p, err = player.New(player.Config{Name: "Embedded", League: league, Endpoint: ps.URL + "/mcp", DataRoot: pData}); err != nil {
		t.Fatal(err)
	}
	var r *referee.Referee
	rs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { r.Handler().ServeHTTP(w, req) }))
	defer rs.Close()
	if r, err = referee.New(referee.Config{Name: "Embedded", League: league, Endpoint: rs.URL + "/mcp", DataRoot: rData}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Register(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		a    agent
		dir  string
	}{{"player", p, pData}, {"referee", r, rData}, {"manager", m, data}} {
		if filesUnder(t, c.dir) == 0 {
			t.Fatalf("%s: no file open before Close: the check proves nothing", c.name)
		}
		if err := c.a.Close(); err != nil {
			t.Errorf("%s: Close = %v", c.name, err)
		}
		if n := filesUnder(t, c.dir); n != 0 {
			t.Errorf("%s: %d files still open under its data root after Close", c.name, n)
		}
		if err := c.a.Close(); err != nil {
			t.Errorf("%s: second Close = %v", c.name, err)
		}
	}
	// The data root can be opened again by a new manager.
	m2, err := manager.New(manager.Config{DataRoot: data})
	if err != nil {
		t.Fatalf("reopening the data root: %v", err)
	}
	if err := m2.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestRejectionIsOneErrorType: the manager refuses a player and a referee
// that do not play its game; Run and Register of both end with the same
// *leaguesdk.RejectedError, and neither retries.
func TestRejectionIsOneErrorType(t *testing.T) {
	l := newLeague(t, 2)
	chess := []string{"chess"}
	check := func(t *testing.T, who string, err error) {
		t.Helper()
		var rej *leaguesdk.RejectedError
		if !errors.As(err, &rej) {
			t.Fatalf("%s: %v is not a *leaguesdk.RejectedError", who, err)
		}
		if rej.Agent != strings.Fields(who)[0] || !strings.Contains(rej.Reason, "chess") || !strings.Contains(err.Error(), "rejected") {
			t.Errorf("%s: rejection %+v (%v) does not say who and why", who, rej, err)
		}
	}
	p, err := player.New(player.Config{Name: "Chess Player", League: l.url(), Listener: listen(t), DataRoot: t.TempDir(), GameTypes: chess})
	if err != nil {
		t.Fatal(err)
	}
	check(t, "player Run", wait(t, runAgent(t, p, context.Background()), "player Run"))
	r, err := referee.New(referee.Config{Name: "Chess Referee", League: l.url(), Listener: listen(t), DataRoot: t.TempDir(),
		Games: referee.Games{"chess": referee.EvenOdd{}}})
	if err != nil {
		t.Fatal(err)
	}
	check(t, "referee Run", wait(t, runAgent(t, r, context.Background()), "referee Run"))

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p2, err := player.New(player.Config{Name: "Chess Player 2", League: l.url(), Endpoint: "http://127.0.0.1:1/mcp", DataRoot: t.TempDir(), GameTypes: chess})
	if err != nil {
		t.Fatal(err)
	}
	defer p2.Close()
	check(t, "player Register", p2.Register(ctx))
	r2, err := referee.New(referee.Config{Name: "Chess Referee 2", League: l.url(), Endpoint: "http://127.0.0.1:2/mcp", DataRoot: t.TempDir(),
		Games: referee.Games{"chess": referee.EvenOdd{}}})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	check(t, "referee Register", r2.Register(ctx))
}

// TestRegisterRetriesUntilTheManagerAnswers: Register of the player and of
// the referee, called by a program that serves Handler itself, means the
// same: retry while the manager cannot be reached, return once it answers.
func TestRegisterRetriesUntilTheManagerAnswers(t *testing.T) {
	m, err := manager.New(manager.Config{DataRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var down atomic.Bool
	var dropped atomic.Int32
	down.Store(true)
	up := m.Handler()
	ms := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			// Down: the connection is dropped unanswered; after a few
			// attempts the manager comes up.
			if dropped.Add(1) >= 6 {
				down.Store(false)
			}
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		up.ServeHTTP(w, r)
	}))
	defer ms.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	p, err := player.New(player.Config{Name: "Patient", League: ms.URL + "/mcp", Endpoint: "http://127.0.0.1:1/mcp",
		DataRoot: t.TempDir(), RegisterRetry: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	r, err := referee.New(referee.Config{Name: "Patient", League: ms.URL + "/mcp", Endpoint: "http://127.0.0.1:2/mcp",
		DataRoot: t.TempDir(), RegisterRetry: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	regs := make(chan error, 2)
	go func() { regs <- p.Register(ctx) }()
	go func() { regs <- r.Register(ctx) }()
	for range 2 {
		if err := wait(t, regs, "Register"); err != nil {
			t.Fatalf("Register = %v, want success once the manager is up", err)
		}
	}
	if dropped.Load() < 6 {
		t.Fatalf("only %d attempts were dropped: the manager was never down", dropped.Load())
	}
	if p.ID() == "" || r.ID() == "" {
		t.Fatalf("ids %q and %q after registration", p.ID(), r.ID())
	}
}

// TestConfigErrorsAreOneType: the four Configs are refused with one error
// type, *leaguesdk.ConfigError, whose problems each name the field as
// "Config.<Field>".
func TestConfigErrorsAreOneType(t *testing.T) {
	_, perr := player.New(player.Config{League: "nope", ShutdownGrace: -time.Second})
	_, rerr := referee.New(referee.Config{League: "nope", ShutdownGrace: -time.Second})
	_, merr := manager.New(manager.Config{DataRoot: t.TempDir(), Endpoint: "nope", ShutdownGrace: -time.Second})
	_, aerr := arena.Run(context.Background(), arena.Config{Entries: []arena.Entry{{URL: "nope"}}, MoveTimeout: -time.Second})
	for name, err := range map[string]error{"player": perr, "referee": rerr, "manager": merr, "arena": aerr} {
		var ce *leaguesdk.ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%s: %v is no *leaguesdk.ConfigError", name, err)
			continue
		}
		if ce.Agent != name || len(ce.Problems) < 2 {
			t.Errorf("%s: ConfigError{Agent: %q, Problems: %q}, want the agent's name and every problem", name, ce.Agent, ce.Problems)
		}
		for _, p := range ce.Problems {
			if !strings.HasPrefix(p, "Config.") {
				t.Errorf("%s: problem %q does not start with the field it is about", name, p)
			}
		}
	}
}

// TestConfigErrorsAllAtOnce: every invalid field of a Config is named in
// New's error, by all three agents; a negative duration is an error.
func TestConfigErrorsAllAtOnce(t *testing.T) {
	_, perr := player.New(player.Config{League: "nope", ShutdownGrace: -time.Second})
	_, rerr := referee.New(referee.Config{League: "nope", ShutdownGrace: -time.Second})
	_, merr := manager.New(manager.Config{DataRoot: t.TempDir(), Endpoint: "nope", ShutdownGrace: -time.Second})
	for name, err := range map[string]error{"player": perr, "referee": rerr, "manager": merr} {
		if err == nil {
			t.Errorf("%s: New accepted an invalid config", name)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, name+": invalid config: ") || !strings.Contains(msg, `"nope"`) || !strings.Contains(msg, "ShutdownGrace") {
			t.Errorf("%s: %q does not name every invalid field", name, msg)
		}
	}
}
