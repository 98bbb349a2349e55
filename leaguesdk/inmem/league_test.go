package inmem_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk/inmem"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/player"
	pstore "github.com/agentleague/league/player/store"
	"github.com/agentleague/league/player/strategies"
	"github.com/agentleague/league/referee"
)

// league is a whole league of one process on an in-memory network.
type league struct {
	mgr     *manager.Manager
	players []*player.Agent
	results map[string]int // match_result events by match id
	mu      sync.Mutex
	stop    func()
}

// startLeague starts a manager, referees and players (one per strategy
// name) on n, each registered in turn, and returns once the league has
// started; stop stops them all.
func startLeague(ctx context.Context, n *inmem.Network, dataRoot string, referees int, strategyNames []string) (*league, error) {
	l := &league{results: map[string]int{}}
	mgr, err := manager.New(manager.Config{Listener: n.Listener("manager"), HTTPClient: n.Client(), DataRoot: dataRoot,
		MinPlayers: len(strategyNames), NoAgentLog: true, OnEvent: func(e manager.Event) {
			if e.Kind == manager.EventMatchResult {
				l.mu.Lock()
				l.results[e.MatchID]++
				l.mu.Unlock()
			}
		}})
	if err != nil {
		return nil, err
	}
	l.mgr = mgr
	n.Handle("manager", mgr.Handler())
	// One store for the players' histories and one for the referees'
	// transcripts: the results that come together share fsyncs.
	playerStore, err := pstore.Open(dataRoot)
	if err != nil {
		return nil, err
	}
	refereeStore, err := referee.OpenStore(dataRoot)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	l.stop = func() {
		cancel()
		wg.Wait()
		n.Close()
		_ = refereeStore.Close()
		_ = playerStore.Close()
	}
	run := func(f func(context.Context) error) { wg.Go(func() { _ = f(ctx) }) }
	run(mgr.Run)
	for i := range referees {
		host := fmt.Sprintf("referee%d", i+1)
		r, err := referee.New(referee.Config{Name: "Referee " + host, League: inmem.Endpoint("manager"),
			Listener: n.Listener(host), HTTPClient: n.Client(), Store: refereeStore, NoAgentLog: true,
			MaxConcurrentMatches: max(referee.DefaultMaxConcurrentMatches, len(strategyNames)/2)})
		if err != nil {
			l.stop()
			return nil, err
		}
		n.Handle(host, r.Handler())
		run(r.Run)
		<-r.Registered()
	}
	for i, name := range strategyNames {
		s, err := strategies.ByName(name, nil)
		if err != nil {
			l.stop()
			return nil, err
		}
		host := fmt.Sprintf("player%d", i+1)
		p, err := player.New(player.Config{Name: name, League: inmem.Endpoint("manager"), Strategy: s,
			Listener: n.Listener(host), HTTPClient: n.Client(), Store: playerStore, NoAgentLog: true})
		if err != nil {
			l.stop()
			return nil, err
		}
		n.Handle(host, p.Handler())
		run(p.Run)
		<-p.Registered() // one at a time: P01 is the first
		l.players = append(l.players, p)
	}
	return l, nil
}

// sockets returns the sockets the process has open (Linux).
func sockets(t *testing.T) []string {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot list the process's files: %v", err)
	}
	var out []string
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(target, "socket:") {
			out = append(out, target)
		}
	}
	slices.Sort(out)
	return out
}

func TestAWholeLeagueRunsInMemoryWithoutASocket(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the check of open sockets reads /proc/self/fd")
	}
	before := sockets(t)
	var n inmem.Network
	l, err := startLeague(t.Context(), &n, t.TempDir(), 2, []string{"random", "history", "always_even", "always_odd"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.stop()
	select {
	case <-l.mgr.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the league did not complete")
	}
	if during := sockets(t); !slices.Equal(during, before) {
		t.Errorf("the league opened sockets: %v before, %v during", before, during)
	}

	results := l.mgr.Results()
	if len(results) != 6 {
		t.Fatalf("%d results recorded, want the 6 matches of four players", len(results))
	}
	l.mu.Lock()
	for _, r := range results {
		if l.results[r.MatchID] != 1 {
			t.Errorf("match %s recorded %d times", r.MatchID, l.results[r.MatchID])
		}
	}
	if len(l.results) != 6 {
		t.Errorf("results of %d matches announced, want 6", len(l.results))
	}
	l.mu.Unlock()

	var entrants []manager.Entrant
	for _, p := range l.players {
		entrants = append(entrants, manager.Entrant{PlayerID: p.ID(), DisplayName: p.ID()})
		if h := p.History(); h.Len() != 3 {
			t.Errorf("player %s recorded %d matches, want 3", p.ID(), h.Len())
		}
	}
	want := manager.ComputeStandings(entrants, results, nil)
	got := l.mgr.Standings()
	if len(got) != len(want) {
		t.Fatalf("standings %v, recomputed %v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.PlayerID != w.PlayerID || g.Rank != w.Rank || g.Played != w.Played || g.Wins != w.Wins || g.Draws != w.Draws ||
			g.Losses != w.Losses || g.Points != w.Points {
			t.Errorf("standings row %d is %+v, recomputed from the results %+v", i+1, g, w)
		}
	}
}

func TestARequestToAnUnknownHostFailsAsARefusedConnection(t *testing.T) {
	var n inmem.Network
	_, err := n.Client().Get("http://nobody/health")
	var ue *inmem.UnreachableError
	if !errors.As(err, &ue) || ue.Host != "nobody" {
		t.Fatalf("got %v, want an UnreachableError for host nobody", err)
	}
}

// BenchmarkLeague reports the rate of a whole league of 50 players (1225
// matches): a manager, two referees and the players, speaking the
// protocol's JSON over the in-memory network, with the league's files in
// a temporary folder. The time counted runs from the last registration,
// which starts the league, to its completion; cpu-µs/match is the CPU
// time the process spent meanwhile (user and system), per match.
func BenchmarkLeague(b *testing.B) {
	names := []string{"random", "always_even", "always_odd", "history"}
	var lineup []string
	for i := range 50 {
		lineup = append(lineup, names[i%len(names)])
	}
	for b.Loop() {
		var n inmem.Network
		l, err := startLeague(b.Context(), &n, b.TempDir(), 2, lineup)
		if err != nil {
			b.Fatal(err)
		}
		start, cpu := time.Now(), cpuTime()
		<-l.mgr.Done()
		elapsed, cpu := time.Since(start), cpuTime()-cpu
		l.stop()
		matches := float64(len(l.mgr.Results()))
		b.ReportMetric(matches/elapsed.Seconds(), "matches/s")
		if cpu > 0 {
			// What the league costs whatever else runs on the machine.
			b.ReportMetric(float64(cpu.Microseconds())/matches, "cpu-µs/match")
		}
	}
}
