package manager_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
)

// playLeague runs a league of players players and a referee with cfg on
// its data root, to its end, and stops its manager; it returns the
// manager.
func playLeague(t *testing.T, cfg manager.Config, players int) *running {
	t.Helper()
	cfg.MinPlayers = players
	m := startManager(t, cfg)
	startReferee(t, m.MCP, "Referee Alpha", refereeOptions{})
	startPlayers(t, m.MCP, players, nil)
	m.waitDone(t, 20*time.Second)
	m.Stop()
	return m
}

// A league that completed gives way to the next: started again on its data
// root, the manager starts a league of the next id of the series (and
// again after that one), unless ShowCompleted keeps the completed one on
// show, which refuses every registration, a rejoining agent's included,
// saying the league is over. Keep removes the files of older leagues.
func TestACompletedLeagueGivesWayToTheNext(t *testing.T) {
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	if id := playLeague(t, cfg, 2).LeagueID(); id != "league_test" {
		t.Fatalf("first league %q, want league_test", id)
	}
	if id := playLeague(t, cfg, 2).LeagueID(); id != "league_test-2" {
		t.Fatalf("second league %q, want league_test-2", id)
	}

	shown := cfg
	shown.ShowCompleted = true
	m := startManager(t, shown)
	if m.LeagueID() != "league_test-2" || m.Status() != manager.StatusCompleted {
		t.Fatalf("ShowCompleted shows %s (%s), want league_test-2 COMPLETED", m.LeagueID(), m.Status())
	}
	resp := registerPlayer(t, m.MCP, "Late Player", "http://127.0.0.1:1/mcp", nil)
	if resp.Status != leaguesdk.StatusRejected || !strings.Contains(string(resp.Reason), "is over") {
		t.Errorf("registration with a completed league answered %s %v, want REJECTED: the league is over", resp.Status, resp.Reason)
	}
	// The player is told the manager's flag, not a Go field.
	if reason := string(resp.Reason); !strings.Contains(reason, "-show-completed") || strings.Contains(reason, "ShowCompleted") {
		t.Errorf("the rejection of a late player says %q, want the flag -show-completed", reason)
	}
	rs := registerReferee(t, m.MCP, "Late Referee", "http://127.0.0.1:2/mcp", 1, nil)
	if rs.Status != leaguesdk.StatusRejected {
		t.Errorf("referee registration with a completed league answered %s", rs.Status)
	}
	m.Stop()

	kept := cfg
	kept.Keep = 2
	third := playLeague(t, kept, 2)
	if third.LeagueID() != "league_test-3" {
		t.Fatalf("third league %q, want league_test-3", third.LeagueID())
	}
	leagues, err := manager.Leagues(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range leagues {
		ids = append(ids, l.ID+" "+string(l.Status))
	}
	if strings.Join(ids, ", ") != "league_test-2 COMPLETED, league_test-3 COMPLETED" {
		t.Errorf("leagues kept: %v, want the last two", ids)
	}
	for _, path := range manager.LeagueFiles(dir, "league_test") {
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s of the oldest league is still there (%v)", path, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "leagues", "league_test-2", "state.json")); err != nil {
		t.Errorf("the second league's state is gone: %v", err)
	}
	// The operator may name the series in start_league.
	next := cfg
	next.AdminToken = "admin-secret"
	m4 := startManager(t, next)
	if m4.LeagueID() != "league_test-4" {
		t.Fatalf("fourth league %q, want league_test-4", m4.LeagueID())
	}
	for _, id := range []string{"league_test", "league_test-4"} {
		r := call(t, m4.MCP, leaguesdk.MethodStartLeague, &leaguesdk.StartLeague{
			Envelope: env(leaguesdk.MsgStartLeague, "operator:admin", "admin-secret"), LeagueID: id})
		if r.code() == leaguesdk.CodeLeagueNotFound {
			t.Errorf("start_league naming %s: league not found", id)
		}
	}
	m4.Stop()
	if u := manager.LeagueUsage(dir, "league_test-3"); u.Files == 0 || u.Bytes == 0 || !strings.Contains(u.String(), " in ") {
		t.Errorf("usage of the third league: %+v (%s)", u, u)
	}
}
