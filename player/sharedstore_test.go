package player_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
	pstore "github.com/agentleague/league/player/store"
)

// lineup returns the display names and ids of n players, "Player 1"/P01…
func lineup(n int) (names []string, ids map[string]string) {
	ids = map[string]string{}
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("Player %d", i)
		names = append(names, name)
		ids[name] = fmt.Sprintf("P%02d", i)
	}
	return names, ids
}

// startLineup starts a test manager that registers the n players of
// lineup(n) under their ids.
func startLineup(t *testing.T, n int) (m *testManager, names []string, ids map[string]string) {
	names, ids = lineup(n)
	return startManager(t, &testManager{ids: ids}), names, ids
}

// won is the GAME_OVER of match, won by player me with even.
func won(match, me string) *leaguesdk.GameOver {
	return gameOver(match, me, 2, map[string]leaguesdk.Parity{me: leaguesdk.Even, "X99": leaguesdk.Odd})
}

// sendGameOver sends a GAME_OVER to endpoint and reports whether it was
// acknowledged.
func sendGameOver(c *leaguesdk.Client, endpoint string, over *leaguesdk.GameOver) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var ack leaguesdk.Ack
	if err := c.Call(ctx, endpoint, leaguesdk.MethodNotifyMatchResult, over, &ack); err != nil {
		return err
	}
	if ack.Status != leaguesdk.AckOK {
		return fmt.Errorf("ack status %q", ack.Status)
	}
	return nil
}

func newClient(t *testing.T) *leaguesdk.Client {
	c := leaguesdk.NewClient(leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{MaxRetries: leaguesdk.NoRetries}})
	t.Cleanup(c.Close)
	return c
}

// journalLines returns the records of a journal file as player id/match id.
func journalLines(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The records end at the zeros reserved after them.
	raw, _, _ = bytes.Cut(raw, []byte{0})
	var out []string
	for line := range strings.Lines(string(raw)) {
		var r struct {
			PlayerID string `json:"player_id"`
			MatchID  string `json:"match_id"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("journal line %q: %v", line, err)
		}
		out = append(out, r.PlayerID+"/"+r.MatchID)
	}
	return out
}

// The shared-store crash test runs this test binary as a child in which
// several players share one Store; the parent sends them GAME_OVERs
// together, kills the child with SIGKILL while they arrive, and finds
// every acknowledged result in the histories that new players on the same
// data root start with.
const (
	sharedCrashLeagueEnv = "PLAYER_SHARED_CRASH_LEAGUE"
	sharedCrashDataEnv   = "PLAYER_SHARED_CRASH_DATA"
	sharedCrashPlayers   = 4
)

func TestPlayersSharingStoreCrashChild(t *testing.T) {
	league, data := os.Getenv(sharedCrashLeagueEnv), os.Getenv(sharedCrashDataEnv)
	if league == "" {
		t.Skip("runs only as the child of TestKilledPlayersSharingAStoreKeepEveryAcknowledgedResult")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	store, err := pstore.Open(data)
	if err != nil {
		fmt.Println("store:", err)
		os.Exit(2)
	}
	defer store.Close()
	names, _ := lineup(sharedCrashPlayers)
	var wg sync.WaitGroup
	for _, name := range names {
		a, err := player.New(player.Config{Name: name, League: league, Store: store, Addr: "127.0.0.1:0",
			Strategy: always(leaguesdk.Even)})
		if err != nil {
			fmt.Println("new:", err)
			os.Exit(2)
		}
		wg.Go(func() {
			select {
			case <-a.Registered():
				fmt.Println("endpoint", a.ID(), a.Endpoint())
			case <-ctx.Done():
			}
		})
		wg.Go(func() { _ = a.Run(ctx) })
	}
	wg.Wait()
}

func TestKilledPlayersSharingAStoreKeepEveryAcknowledgedResult(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	m, names, ids := startLineup(t, sharedCrashPlayers)
	data := t.TempDir()
	lines, cmd := startChild(t, "TestPlayersSharingStoreCrashChild", sharedCrashLeagueEnv+"="+m.URL, sharedCrashDataEnv+"="+data)
	endpoints := make(chan [2]string, sharedCrashPlayers)
	go func() {
		for line := range lines {
			if rest, ok := strings.CutPrefix(line, "endpoint "); ok {
				id, ep, _ := strings.Cut(rest, " ")
				endpoints <- [2]string{id, ep}
			}
		}
	}()
	eps := map[string]string{}
	for len(eps) < sharedCrashPlayers {
		select {
		case e := <-endpoints:
			eps[e[0]] = e[1]
		case <-time.After(20 * time.Second):
			t.Fatalf("%d of %d child players registered", len(eps), sharedCrashPlayers)
		}
	}

	// Each player gets results one after another, the players at the same
	// time; the child dies while results are still arriving, most of them
	// only in the shared journal.
	c := newClient(t)
	const killAfter = 100
	var (
		mu    sync.Mutex
		acked = map[string][]string{} // player id → acknowledged match ids
		total int
		kill  = make(chan struct{})
		once  sync.Once
		wg    sync.WaitGroup
	)
	for id, ep := range eps {
		wg.Go(func() {
			for r := 1; r <= 1000; r++ {
				match := fmt.Sprintf("R%dM1", r)
				if sendGameOver(c, ep, won(match, id)) != nil {
					return // the child is dead
				}
				mu.Lock()
				acked[id] = append(acked[id], match)
				total++
				if total >= killAfter {
					once.Do(func() { close(kill) })
				}
				mu.Unlock()
			}
		})
	}
	<-kill
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	wg.Wait()

	for _, name := range names {
		id := ids[name]
		b := runAgent(t, player.Config{Name: name, League: m.URL, DataRoot: data})
		if b.ID() != id {
			t.Fatalf("%s registered as %s, want %s", name, b.ID(), id)
		}
		got := map[string]int{}
		for _, r := range b.History().Matches() {
			got[r.MatchID]++
		}
		for _, match := range acked[id] {
			if got[match] != 1 {
				t.Errorf("%s: acknowledged %s is in the history %d times after SIGKILL, want once", id, match, got[match])
			}
		}
		if len(got) < len(acked[id]) || len(got) > len(acked[id])+1 {
			// At most the one result in flight when the child died was
			// recorded without its acknowledgement reaching the sender.
			t.Errorf("%s: %d results in the history, %d acknowledged", id, len(got), len(acked[id]))
		}
	}
	// The crashed store's journal was merged and removed.
	left, _ := filepath.Glob(filepath.Join(data, "data", "players", ".journal", "*.jsonl"))
	for _, name := range left {
		if lines := journalLines(t, name); len(lines) > 0 {
			t.Errorf("journal %s still holds %d records", name, len(lines))
		}
	}
}
