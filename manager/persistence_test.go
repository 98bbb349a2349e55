package manager_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentleague/league/internal/atomicfile"
	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/player"
)

// relisten listens again on the address of a stopped manager, so that the
// agents, which know its endpoint, reach the restarted one.
func relisten(t *testing.T, addr string) net.Listener {
	t.Helper()
	var ln net.Listener
	var err error
	for range 100 {
		if ln, err = net.Listen("tcp", addr); err == nil {
			return ln
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("listen again on %s: %v", addr, err)
	return nil
}

// TestResumeAfterStop stops a running league at many points — during
// registration, at the start, after each result — and starts a new manager
// on the same data root and address. The agents keep running: they keep
// their ids and tokens, no recorded result is lost or recorded twice, and
// finished matches are not handed out again.
func TestResumeAfterStop(t *testing.T) {
	t.Parallel()
	points := []int{-1, 0, 1, 2, 3, 4, 5}
	if testing.Short() {
		points = []int{-1, 0, 3}
	}
	for _, stopAt := range points {
		name := fmt.Sprintf("after %d results", stopAt)
		if stopAt < 0 {
			name = "during registration"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := fastConfig(t, dir)
			cfg.MinPlayers = 4
			ln := listen(t)
			cfg.Listener = ln
			stop := make(chan struct{}, 1)
			var results atomic.Int32
			cfg.OnEvent = func(e manager.Event) {
				n := int(results.Load())
				if e.Kind == manager.EventMatchResult {
					n = int(results.Add(1))
				}
				if (e.Kind == manager.EventLeagueStarted && stopAt == 0) || (e.Kind == manager.EventMatchResult && n == stopAt) {
					select {
					case stop <- struct{}{}:
					default:
					}
				}
			}
			m1 := startManager(t, cfg)
			startReferee(t, m1.MCP, "Referee Alpha", refereeOptions{capacity: 2})
			startReferee(t, m1.MCP, "Referee Beta", refereeOptions{capacity: 2})
			var agents []*player.Agent
			for i := range 4 {
				a, _ := newPlayerAgent(t, m1.MCP, fmt.Sprintf("Agent %d", i+1), nil)
				agents = append(agents, a)
				if stopAt < 0 && i >= 2 {
					continue // the manager is down: it registers with the next one
				}
				select {
				case <-a.Registered():
				case <-time.After(10 * time.Second):
					t.Fatalf("player %d did not register", i+1)
				}
				if stopAt < 0 && i == 1 {
					m1.Stop()
				}
			}
			if stopAt >= 0 {
				select {
				case <-stop:
				case <-time.After(20 * time.Second):
					t.Fatal("the stop point was never reached")
				}
				m1.Stop()
			}
			recordedBefore := map[string]bool{}
			for _, r := range m1.Results() {
				recordedBefore[r.MatchID] = true
			}

			cfg2 := fastConfig(t, dir)
			cfg2.MinPlayers = 4
			cfg2.Listener = relisten(t, ln.Addr().String())
			m2 := startManager(t, cfg2)
			m2.waitDone(t, 30*time.Second)
			checkLeague(t, m2, dir, cfg.LeagueID, 4)
			if got := m1.Events.count(manager.EventMatchResult) + m2.Events.count(manager.EventMatchResult); got != 6 {
				t.Errorf("%d results recorded over both runs, want 6", got)
			}
			for _, e := range m2.Events.all() {
				if e.Kind == manager.EventMatchAssigned && recordedBefore[e.MatchID] {
					t.Errorf("%s was handed out again after its result was recorded", e.MatchID)
				}
			}
			ids := map[string]bool{}
			for _, a := range agents {
				ids[a.ID()] = true
			}
			for _, p := range m2.Snapshot().Players {
				if !ids[p.PlayerID] {
					t.Errorf("player %s of the manager is not one of the agents' ids %v", p.PlayerID, ids)
				}
			}
			if len(ids) != 4 || len(m2.Snapshot().Players) != 4 {
				t.Errorf("agent ids %v, manager players %d", ids, len(m2.Snapshot().Players))
			}
		})
	}
}

// TestDataLayer checks the files of a completed league.
func TestDataLayer(t *testing.T) {
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	m := playLeague(t, cfg, 3)

	league := filepath.Join(dir, "data", "leagues", cfg.LeagueID)
	var standings struct {
		SchemaVersion   string                  `json:"schema_version"`
		LastUpdated     string                  `json:"last_updated"`
		LeagueID        string                  `json:"league_id"`
		Version         int                     `json:"version"`
		RoundsCompleted int                     `json:"rounds_completed"`
		Standings       []leaguesdk.StandingRow `json:"standings"`
	}
	if err := atomicfile.ReadJSON(filepath.Join(league, "standings.json"), &standings); err != nil {
		t.Fatal(err)
	}
	if standings.SchemaVersion != "1.0.0" || standings.LeagueID != cfg.LeagueID || standings.RoundsCompleted != 3 ||
		standings.Version < 1 || len(standings.Standings) != 3 || fmt.Sprint(standings.Standings) != fmt.Sprint(m.Standings()) {
		t.Errorf("standings.json: %+v", standings)
	}
	if _, err := leaguesdk.ParseTime(standings.LastUpdated); err != nil {
		t.Errorf("last_updated: %v", err)
	}
	var rounds struct {
		TotalRounds int `json:"total_rounds"`
		Rounds      []struct {
			RoundID     int     `json:"round_id"`
			Status      string  `json:"status"`
			CompletedAt *string `json:"completed_at"`
			Matches     []struct {
				MatchID string `json:"match_id"`
				Status  string `json:"status"`
				Result  string `json:"result"`
			} `json:"matches"`
		} `json:"rounds"`
	}
	if err := atomicfile.ReadJSON(filepath.Join(league, "rounds.json"), &rounds); err != nil {
		t.Fatal(err)
	}
	if rounds.TotalRounds != 3 || len(rounds.Rounds) != 3 {
		t.Fatalf("rounds.json: %+v", rounds)
	}
	for _, r := range rounds.Rounds {
		if r.Status != "COMPLETED" || r.CompletedAt == nil || len(r.Matches) != 1 || r.Matches[0].Status != string(leaguesdk.MatchFinished) ||
			r.Matches[0].Result == "" {
			t.Errorf("round %d in rounds.json: %+v", r.RoundID, r)
		}
	}
	var lc map[string]any
	if err := atomicfile.ReadJSON(filepath.Join(dir, "config", "leagues", cfg.LeagueID+".json"), &lc); err != nil {
		t.Fatal(err)
	}
	if lc["status"] != string(manager.StatusCompleted) || lc["game_type"] != "even_odd" {
		t.Errorf("league config: %v", lc)
	}
	for _, f := range []string{"config/system.json", "logs/agents/league_manager.log.jsonl",
		"logs/league/" + cfg.LeagueID + "/league.log.jsonl"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || len(b) == 0 {
			t.Errorf("%s: %v (%d bytes)", f, err, len(b))
		}
		if containsToken(b) {
			t.Errorf("%s holds an auth token", f)
		}
	}
}

func containsToken(b []byte) bool {
	for i := 0; i+36 <= len(b); i++ {
		if string(b[i:i+4]) != "tok_" {
			continue
		}
		hex := 0
		for _, c := range b[i+4 : i+36] {
			if (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') {
				hex++
			}
		}
		if hex == 32 {
			return true
		}
	}
	return false
}

// writeCounter counts an agent's durable writes by file.
type writeCounter struct {
	mu     sync.Mutex
	writes map[string]int
}

func (c *writeCounter) ObserveCall(leaguesdk.CallEvent) {}

func (c *writeCounter) ObserveWrite(e manager.WriteEvent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes[e.File]++
}

func (c *writeCounter) count(file string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writes[file]
}

// playCountedLeague plays a league of six players (5 rounds of 3 matches)
// with one referee that takes a round's three matches at once, counting the
// manager's durable writes, and stops the manager. It returns the data root,
// the configuration (to start the manager again) and the stopped manager.
func playCountedLeague(t *testing.T) (string, manager.Config, *running, *writeCounter) {
	t.Helper()
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	cfg.MinPlayers = 6
	writes := &writeCounter{writes: map[string]int{}}
	cfg.Observer = writes
	m := startManager(t, cfg)
	startReferee(t, m.MCP, "Referee Alpha", refereeOptions{capacity: 3})
	startPlayers(t, m.MCP, 6, nil)
	m.waitDone(t, 30*time.Second)
	m.Stop()
	return dir, cfg, m, writes
}

// The matches one pass of the scheduler hands out have their assignments
// written together: a round whose matches all fit on the referees costs one
// group commit of assignments.jsonl, not one per match.
func TestAssignmentsOfARoundShareOneGroupCommit(t *testing.T) {
	dir, cfg, _, writes := playCountedLeague(t)

	b, err := os.ReadFile(filepath.Join(dir, "data", "leagues", cfg.LeagueID, "assignments.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n != 15 {
		t.Errorf("assignments.jsonl holds %d lines, want 15 (5 rounds of 3 matches)", n)
	}
	if n := writes.count("assignments"); n != 5 {
		t.Errorf("assignments.jsonl synced %d times, want 5 (one per round)", n)
	}
}

// A round costs the manager one line of rounds.jsonl when it starts and
// one when it completes, not a rewrite of state.json (which holds the whole
// schedule); the standings and rounds files, views of the league, are
// rebuilt when the league is resumed, whatever a crash left of them.
func TestRoundsAreJournaledAndViewsRebuilt(t *testing.T) {
	dir, cfg, m, writes := playCountedLeague(t)

	league := filepath.Join(dir, "data", "leagues", cfg.LeagueID)
	// 7 registrations, the start, the completion: 5 rounds add nothing.
	if n := writes.count("state"); n > 9 {
		t.Errorf("state.json written %d times in a league of 5 rounds, want at most 9 (registrations, start, end)", n)
	}
	// The agents' states: one write per registration, one when the league
	// starts (every agent ACTIVE), one when it completes (every agent
	// SHUTDOWN), and none per round.
	if n := writes.count("lifecycle"); n != 9 {
		t.Errorf("lifecycle.jsonl written %d times, want 9 (7 registrations, the start, the end)", n)
	}
	b, err := os.ReadFile(filepath.Join(league, "rounds.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n != 10 {
		t.Errorf("rounds.jsonl holds %d lines, want 10 (5 rounds started and completed)", n)
	}
	want := fmt.Sprint(m.Standings())

	for _, f := range []string{"standings.json", "rounds.json"} {
		if err := os.WriteFile(filepath.Join(league, f), []byte(`{"torn`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg.Observer = nil
	cfg.ShowCompleted = true // the completed league, not the next
	m2 := startManager(t, cfg)
	m2.waitDone(t, 10*time.Second)
	var standings struct {
		RoundsCompleted int                     `json:"rounds_completed"`
		Standings       []leaguesdk.StandingRow `json:"standings"`
	}
	if err := atomicfile.ReadJSON(filepath.Join(league, "standings.json"), &standings); err != nil {
		t.Fatal(err)
	}
	if standings.RoundsCompleted != 5 || fmt.Sprint(standings.Standings) != want {
		t.Errorf("standings.json rebuilt as %+v, want 5 rounds and %s", standings, want)
	}
	var rounds struct {
		Rounds []struct {
			Status string `json:"status"`
		} `json:"rounds"`
	}
	if err := atomicfile.ReadJSON(filepath.Join(league, "rounds.json"), &rounds); err != nil {
		t.Fatal(err)
	}
	if len(rounds.Rounds) != 5 || rounds.Rounds[4].Status != "COMPLETED" {
		t.Errorf("rounds.json rebuilt as %+v", rounds)
	}
	if s := m2.Snapshot(); s.Status != manager.StatusCompleted || len(m2.Results()) != 15 {
		t.Errorf("resumed league: %s with %d results", s.Status, len(m2.Results()))
	}
}

// The results the manager keeps in memory, in a compact form, are the
// records on disk: Results and LoadResults agree field for field.
func TestResultsInMemoryAreTheRecordsOnDisk(t *testing.T) {
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	cfg.MinPlayers = 4
	m := startManager(t, cfg)
	startReferee(t, m.MCP, "Referee Alpha", refereeOptions{})
	startPlayers(t, m.MCP, 4, nil)
	m.waitDone(t, 20*time.Second)
	onDisk, err := manager.LoadResults(dir, cfg.LeagueID)
	if err != nil {
		t.Fatal(err)
	}
	inMemory := m.Results()
	if len(onDisk) != 6 || len(inMemory) != 6 {
		t.Fatalf("%d records on disk, %d in memory, want 6", len(onDisk), len(inMemory))
	}
	byID := map[string]string{}
	for _, r := range onDisk {
		b, _ := json.Marshal(r)
		byID[r.MatchID] = string(b)
	}
	for _, r := range inMemory {
		b, _ := json.Marshal(r)
		if byID[r.MatchID] != string(b) {
			t.Errorf("%s\nin memory %s\non disk   %s", r.MatchID, b, byID[r.MatchID])
		}
	}
}
