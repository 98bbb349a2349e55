package referee_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/referee"
)

// A referee started again on its data root, with its name and endpoint (a
// StatefulSet's pod rescheduled with its volume), registers as itself: it
// keeps its token under the data root, presents it, and the manager gives
// it back its id. Without the data root, the same endpoint is refused.
func TestRestartedRefereeRegistersAsItself(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := manager.New(manager.Config{Listener: ln, DataRoot: t.TempDir(), MinPlayers: -1, RegistrationWindow: -1, NoAgentLog: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	league := "http://" + ln.Addr().String() + "/mcp"

	// The referee's address stays while its process changes.
	var current atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		current.Load().(http.Handler).ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	register := func(data string) (*referee.Referee, error) {
		t.Helper()
		ref, err := referee.New(referee.Config{Name: "league-referee-0", League: league, Endpoint: srv.URL + "/mcp",
			DataRoot: data, NoAgentLog: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ref.Close() })
		current.Store(ref.Handler())
		rctx, rcancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer rcancel()
		return ref, ref.Register(rctx)
	}

	data := t.TempDir()
	first, err := register(data)
	if err != nil {
		t.Fatal(err)
	}
	matches, _ := filepath.Glob(filepath.Join(data, "data", "referees", "*", "registration.json"))
	if len(matches) != 1 {
		t.Fatalf("registration files %v, want one", matches)
	}
	if info, err := os.Stat(matches[0]); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("%s: %v %v, want mode 0600: it holds the token", matches[0], info, err)
	}
	_ = first.Close()

	again, err := register(data)
	if err != nil {
		t.Fatalf("the referee started again on its data root: %v", err)
	}
	if again.ID() != first.ID() || again.LeagueID() != first.LeagueID() {
		t.Errorf("registered again as %s of %s, want %s of %s", again.ID(), again.LeagueID(), first.ID(), first.LeagueID())
	}
	if n := len(mgr.Snapshot().Referees); n != 1 {
		t.Errorf("the manager has %d referees, want 1", n)
	}
	_ = again.Close()

	_, err = register(t.TempDir()) // the same endpoint, without the token
	if !errors.As(err, new(*leaguesdk.RejectedError)) {
		t.Errorf("a stranger at the referee's endpoint: %v, want a rejection", err)
	}
}
