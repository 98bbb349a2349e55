package main

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/referee"
)

// TestStartedAfterTheLeagueCompletedServesOn: the program started against
// a manager whose league has completed is refused ("the league is over")
// at every attempt, and serves on — /health answers after several refused
// attempts, and run returns only when stopped, with nil — and it registers
// in the next league once the manager, started again, opens one.
func TestStartedAfterTheLeagueCompletedServesOn(t *testing.T) {
	var mu sync.Mutex
	var refused []manager.Event
	league := completedLeague(t, func(e manager.Event) {
		if e.Kind == manager.EventRegistrationRejected && e.DisplayName == "Latecomer" {
			mu.Lock()
			refused = append(refused, e)
			mu.Unlock()
		}
	})
	stderr := &syncWriter{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-port", "0", "-league", league.mcp, "-name", "Latecomer", "-data", t.TempDir(),
			"-register-retry", "20ms"}, stderr)
	}()
	defer func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run = %v after a stop, want nil", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("run did not stop")
		}
	}()
	var endpoint string
	deadline := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		n := len(refused)
		if n > 0 {
			endpoint = refused[0].Endpoint
		}
		mu.Unlock()
		if n >= 3 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("run returned %v after %d refusals; stderr:\n%s", err, n, stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d registration attempts refused, want 3; stderr:\n%s", n, stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + u.Host + "/health")
	if err != nil {
		t.Fatalf("GET /health after the refusals: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /health: %s", resp.Status)
	}
	select {
	case err := <-done:
		t.Fatalf("run returned %v while serving", err)
	default:
	}
	if n := countLines(stderr.String(), "the league is over"); n != 1 {
		t.Errorf("the refusal is said %d times on stderr, want once:\n%s", n, stderr)
	}

	// The manager started again on its data root opens the next league of
	// the series: the referee, serving on, registers in it.
	league.stop()
	var ln net.Listener
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if ln, err = net.Listen("tcp", league.addr); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatalf("the manager's address again: %v", err)
	}
	registered := make(chan manager.Event, 1)
	next := league.startManager(t, ln, func(e manager.Event) {
		if e.Kind == manager.EventRefereeRegistered && e.DisplayName == "Latecomer" {
			select {
			case registered <- e:
			default:
			}
		}
	})
	select {
	case e := <-registered:
		if next.LeagueID() == "league_over" {
			t.Errorf("the manager started again runs %s, want the next league of the series", next.LeagueID())
		}
		t.Logf("registered in %s: %s", next.LeagueID(), e.Message)
	case err := <-done:
		t.Fatalf("run returned %v before the next league", err)
	case <-time.After(10 * time.Second):
		t.Fatalf("the referee did not register in the next league; stderr:\n%s", stderr)
	}
}

// completedLeague plays a league of two players and a referee to its end
// on a manager that keeps running (onEvent sees its events) and returns
// where it runs.
func completedLeague(t *testing.T, onEvent func(manager.Event)) *finished {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &finished{addr: ln.Addr().String(), dataRoot: t.TempDir()}
	f.mcp = "http://" + f.addr + "/mcp"
	mcp := f.mcp
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	m := f.startManager(t, ln, onEvent)
	listen := func() net.Listener {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	ref, err := referee.New(referee.Config{Name: "Referee Alpha", League: mcp, Listener: listen(), DataRoot: t.TempDir(),
		JoinTimeout: 2 * time.Second, MoveTimeout: 2 * time.Second, RegisterRetry: 50 * time.Millisecond, NoAgentLog: true})
	if err != nil {
		t.Fatal(err)
	}
	wg.Go(func() { _ = ref.Run(ctx) })
	<-ref.Registered()
	for _, name := range []string{"Alpha", "Beta"} {
		a, err := player.New(player.Config{Name: name, League: mcp, Listener: listen(), DataRoot: t.TempDir(),
			RegisterRetry: 50 * time.Millisecond, NoAgentLog: true})
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { _ = a.Run(ctx) })
	}
	select {
	case <-m.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the league did not complete")
	}
	if st := m.Status(); st != manager.StatusCompleted {
		t.Fatalf("league %s", st)
	}
	return f
}

// finished is a manager whose league has completed: its address, /mcp
// endpoint and data root.
type finished struct {
	addr, mcp, dataRoot string
	stop                func() // stops the manager
}

// startManager runs a manager of league_over's series on f's data root,
// served on ln, until f.stop or the test's end.
func (f *finished) startManager(t *testing.T, ln net.Listener, onEvent func(manager.Event)) *manager.Manager {
	t.Helper()
	m, err := manager.New(manager.Config{LeagueID: "league_over", DataRoot: f.dataRoot, Listener: ln, MinPlayers: 2,
		RegistrationWindow: -1, StartMatchTimeout: 2 * time.Second, BroadcastTimeout: 2 * time.Second,
		RetryDelay: 50 * time.Millisecond, MaxRetryDelay: 500 * time.Millisecond, ShutdownGrace: time.Second,
		OnEvent: onEvent})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := m.Run(ctx); err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	var once sync.Once
	f.stop = func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
	t.Cleanup(f.stop)
	return m
}

// countLines returns the number of lines of s that hold sub.
func countLines(s, sub string) int {
	n := 0
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, sub) {
			n++
		}
	}
	return n
}
