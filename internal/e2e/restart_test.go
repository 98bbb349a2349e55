package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentleague/league/player"
	pstore "github.com/agentleague/league/player/store"
)

// A player stopped and started again registers as itself: it keeps its
// token with its history (a file only its owner may read), presents it
// when it registers again from the same endpoint, and the manager gives it
// back its id instead of refusing a second registration.
//
// It does so with a data root of its own, and with a Store shared with
// other players on a data root that holds an earlier league's histories,
// one of them under the id the player is given now: the store has read
// that file's earlier registration before the player saved its own over it.
func TestRestartedPlayerRegistersAsItself(t *testing.T) {
	t.Run("own data root", func(t *testing.T) {
		data := t.TempDir()
		restartAsItself(t, data, func(c player.Config) player.Config { c.DataRoot = data; return c })
	})
	t.Run("store shared over an earlier league", func(t *testing.T) {
		data := t.TempDir()
		for i, name := range []string{"Phoenix", "Bystander", "Latecomer"} {
			earlier := fmt.Sprintf(`{"schema_version":"1.0","player_id":"P0%d","display_name":%q,"stats":{},"matches":[],`+
				`"registration":{"league":"http://127.0.0.1:1/mcp","contact_endpoint":"http://127.0.0.1:%d/mcp","auth_token":"tok_earlier_%d"}}`,
				i+1, name, 2+i, i)
			dir := filepath.Join(data, "data", "players", fmt.Sprintf("P0%d", i+1))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "history.json"), []byte(earlier), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		store, err := pstore.Open(data)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = store.Close() })
		restartAsItself(t, data, func(c player.Config) player.Config { c.Store = store; return c })
	})
}

// restartAsItself registers a player called Phoenix with the Config
// configure makes, starts it again, and checks that it came back as
// itself and plays its matches; data is its data root.
func restartAsItself(t *testing.T, data string, configure func(player.Config) player.Config) {
	l := newLeague(t, 3) // the league waits for a third player
	var current atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		current.Load().(http.Handler).ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	start := func() *player.Agent {
		t.Helper()
		a, err := player.New(configure(player.Config{Name: "Phoenix", League: l.url(), Endpoint: srv.URL + "/mcp"}))
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

	path := filepath.Join(data, "data", "players", first.LeagueID(), first.ID(), "history.json")
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
