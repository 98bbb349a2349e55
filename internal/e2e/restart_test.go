package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentleague/league/player"
)

// A player stopped and started again registers as itself: it keeps its
// token with its history (a file only its owner may read), presents it
// when it registers again from the same endpoint, and the manager gives it
// back its id instead of refusing a second registration.
func TestRestartedPlayerRegistersAsItself(t *testing.T) {
	l := newLeague(t, 3) // the league waits for a third player
	var current atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		current.Load().(http.Handler).ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	data := t.TempDir()
	start := func() *player.Agent {
		t.Helper()
		a, err := player.New(player.Config{Name: "Phoenix", League: l.url(), Endpoint: srv.URL + "/mcp", DataRoot: data})
		if err != nil {
			t.Fatal(err)
		}
		current.Store(a.Handler())
		if err := a.Register(t.Context()); err != nil {
			t.Fatalf("register: %v", err)
		}
		return a
	}
	first := start()
	other := l.addPlayer("Bystander", nil)
	l.await(other.Registered(), "the bystander to register")

	path := filepath.Join(data, "data", "players", first.ID(), "history.json")
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("%s has mode %v, want 0600: it holds the player's token", path, perm)
	}

	again := start() // the same player, started again
	if again.ID() != first.ID() {
		t.Fatalf("the restarted player registered as %s, want %s", again.ID(), first.ID())
	}
	if n := len(l.mgr.Snapshot().Players); n != 2 {
		t.Errorf("the manager has %d players, want 2", n)
	}
	// The third player starts the league; the restarted player plays its
	// two matches as itself.
	l.addReferee("Referee Alpha", 3*time.Second)
	l.addPlayer("Latecomer", nil)
	l.await(l.mgr.Done(), "the league to complete")
	if s := again.History().Stats(); s.TotalMatches != 2 {
		t.Errorf("the restarted player played %d matches, want 2", s.TotalMatches)
	}
}
