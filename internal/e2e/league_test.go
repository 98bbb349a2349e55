package e2e

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/referee"
)

// league is a manager with its referees and players, each served by its
// own Run on a 127.0.0.1:0 listener, stopped when the test ends.
type league struct {
	t    *testing.T
	ctx  context.Context
	data string
	mgr  *manager.Manager
	ln   net.Listener // the manager's
	wg   sync.WaitGroup
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// newLeague starts a manager that begins the league once minPlayers
// players have registered.
func newLeague(t *testing.T, minPlayers int) *league {
	t.Helper()
	return newLeagueWith(t, minPlayers, nil)
}

// newLeagueWith is newLeague with the manager's Config changed by adjust
// (when not nil) before the manager is made.
func newLeagueWith(t *testing.T, minPlayers int, adjust func(*manager.Config)) *league {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	l := &league{t: t, ctx: ctx, data: t.TempDir(), ln: listen(t)}
	cfg := manager.Config{
		LeagueID:           "league_e2e",
		Listener:           l.ln,
		DataRoot:           l.data,
		MinPlayers:         minPlayers,
		RegistrationWindow: -1,
		ReportTimeout:      20 * time.Second,
		RetryDelay:         100 * time.Millisecond,
		BroadcastTimeout:   2 * time.Second,
	}
	if adjust != nil {
		adjust(&cfg)
	}
	mgr, err := manager.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l.mgr = mgr
	t.Cleanup(func() {
		cancel()
		l.wg.Wait()
	})
	l.run("manager", mgr.Run)
	return l
}

// run runs an agent until the test ends; it must then stop cleanly.
func (l *league) run(what string, run func(context.Context) error) {
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		if err := run(l.ctx); err != nil {
			l.t.Errorf("%s stopped with an error: %v", what, err)
		}
	}()
}

// url is the manager's endpoint.
func (l *league) url() string { return "http://" + l.ln.Addr().String() + "/mcp" }

// addReferees starts n referees and waits until each has registered.
func (l *league) addReferees(n int) {
	l.t.Helper()
	for i := range n {
		name := fmt.Sprintf("Referee %d", i+1)
		ref, err := referee.New(referee.Config{
			Name:        name,
			League:      l.url(),
			Listener:    listen(l.t),
			DataRoot:    l.data,
			JoinTimeout: 2 * time.Second,
			MoveTimeout: 3 * time.Second,
			RetryDelay:  100 * time.Millisecond,
		})
		if err != nil {
			l.t.Fatal(err)
		}
		l.run(name, ref.Run)
		l.await(ref.Registered(), name+" to register")
	}
}

// addPlayer starts a player of this module with the given strategy.
func (l *league) addPlayer(name string, s player.Strategy) *player.Agent {
	l.t.Helper()
	p, err := player.New(player.Config{
		Name:     name,
		League:   l.url(),
		Listener: listen(l.t),
		DataRoot: l.data,
		Strategy: s,
	})
	if err != nil {
		l.t.Fatal(err)
	}
	l.run(name, p.Run)
	return p
}

// await waits for ch, failing the test after 30 s.
func (l *league) await(ch <-chan struct{}, what string) {
	l.t.Helper()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		l.t.Fatalf("timed out waiting for %s", what)
	}
}
