package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/referee"
)

// TestStartedAfterTheLeagueCompletedServesAndCompletesItsHistory: the
// program plays round 1 of a league of four, is stopped, and is started
// again on the same port and data root once the league has completed. The
// manager refuses it (the league is over); it serves on — /health answers,
// run returns only when stopped — takes up its saved registration, and its
// history then holds every match of the league it was scheduled in.
func TestStartedAfterTheLeagueCompletedServesAndCompletesItsHistory(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	refusals := 0
	// RetryDelay is long: LEAGUE_COMPLETED is not sent again to the
	// player within the test; what it learns it learns by itself.
	m, err := manager.New(manager.Config{LeagueID: "league_over", DataRoot: t.TempDir(), Listener: ln, MinPlayers: 4,
		RegistrationWindow: -1, StartMatchTimeout: 2 * time.Second, BroadcastTimeout: time.Second,
		RetryDelay: time.Minute, MaxRetryDelay: time.Minute, ShutdownGrace: time.Second,
		OnEvent: func(e manager.Event) {
			if e.Kind == manager.EventRegistrationRejected && e.DisplayName == "Comes Back" {
				mu.Lock()
				refusals++
				mu.Unlock()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	mcp := "http://" + ln.Addr().String() + "/mcp"
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	wg.Go(func() {
		if err := m.Run(ctx); err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	listen := func() net.Listener {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	ref, err := referee.New(referee.Config{Name: "Referee Alpha", League: mcp, Listener: listen(), DataRoot: t.TempDir(),
		JoinTimeout: 300 * time.Millisecond, MoveTimeout: 5 * time.Second, Retries: leaguesdk.NoRetries,
		RegisterRetry: 50 * time.Millisecond, NoAgentLog: true})
	if err != nil {
		t.Fatal(err)
	}
	wg.Go(func() { _ = ref.Run(ctx) })
	<-ref.Registered()

	// The program's port, free now, kept for both of its lives.
	pl := listen()
	port := strconv.Itoa(pl.Addr().(*net.TCPAddr).Port)
	pl.Close()
	data := t.TempDir()
	args := []string{"-port", port, "-league", mcp, "-name", "Comes Back", "-data", data, "-register-retry", "50ms"}
	first := &syncWriter{}
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(runCtx, args, first) }()

	// The others play round 1 at once, and the rest once the program is
	// being stopped.
	stopped := make(chan struct{})
	hold := player.StrategyFunc(func(ctx context.Context, c player.ParityCall) (leaguesdk.Parity, error) {
		if !strings.HasPrefix(c.MatchID, "R1M") {
			select {
			case <-stopped:
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}
		return leaguesdk.Even, nil
	})
	for _, name := range []string{"Alpha", "Beta", "Gamma"} {
		a, err := player.New(player.Config{Name: name, League: mcp, Listener: listen(), DataRoot: t.TempDir(), Strategy: hold,
			RegisterRetry: 50 * time.Millisecond, NoAgentLog: true})
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { _ = a.Run(ctx) })
	}
	historyFile := func() string {
		files, _ := filepath.Glob(filepath.Join(data, "data", "players", "league_over", "*", "history.json"))
		if len(files) != 1 {
			return ""
		}
		return files[0]
	}
	played := regexp.MustCompile(`(won|drew|lost) R1M`)
	waitFor(t, 20*time.Second, "the program's round 1", func() bool { return played.MatchString(first.String()) })
	// Stopped gracefully, the program finishes the match it is in (round
	// 2's, which its opponent plays on now) and misses the rest.
	stop()
	close(stopped)
	stopRun(t, stop, done)
	select {
	case <-m.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the league did not complete")
	}
	file := historyFile()
	id := filepath.Base(filepath.Dir(file))
	var want []string
	for _, e := range m.Snapshot().Matches {
		if e.PlayerAID == id || e.PlayerBID == id {
			want = append(want, e.MatchID)
		}
	}
	slices.Sort(want)
	if got := historyMatches(file); len(got) >= len(want) {
		t.Fatalf("the program's history holds %v before its restart, want fewer than %v: the test did not stop it in time; stderr:\n%s", got, want, first)
	}

	second := &syncWriter{}
	runCtx, stop = context.WithCancel(context.Background())
	done = make(chan error, 1)
	go func() { done <- run(runCtx, args, second) }()
	waitFor(t, 20*time.Second, "the history filled from the manager", func() bool {
		select {
		case err := <-done:
			t.Fatalf("run returned %v; stderr:\n%s", err, second)
		default:
		}
		return strings.Contains(second.String(), "history filled from the manager")
	})
	mu.Lock()
	n := refusals
	mu.Unlock()
	if n < 1 {
		t.Errorf("the restarted program was refused %d times, want at least once", n)
	}
	resp, err := http.Get("http://127.0.0.1:" + port + "/health")
	if err != nil {
		t.Fatalf("GET /health: %v", err)
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
	stopRun(t, stop, done) // history.json is written whole when the player stops
	if got := historyMatches(file); !slices.Equal(got, want) {
		t.Errorf("the history holds %v, want every match of the league the program was in: %v; stderr:\n%s", got, want, second)
	}
	if c := strings.Count(second.String(), "the league is over"); c != 1 {
		t.Errorf("the refusal is said %d times on stderr, want once:\n%s", c, second)
	}
}

// historyMatches returns the sorted match ids of the history file at path.
func historyMatches(path string) []string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var f struct {
		Matches []struct {
			MatchID string `json:"match_id"`
		} `json:"matches"`
	}
	if json.Unmarshal(raw, &f) != nil {
		return nil
	}
	var ids []string
	for _, m := range f.Matches {
		ids = append(ids, m.MatchID)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// waitFor polls cond every 10 ms until it holds, up to within.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
