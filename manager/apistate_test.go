package manager_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
)

// getState reads GET /api/state with query q.
func getState(t *testing.T, base, q string) (manager.Snapshot, int) {
	t.Helper()
	resp, err := http.Get(base + "/api/state" + q)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var s manager.Snapshot
	if resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
			t.Fatal(err)
		}
	}
	return s, resp.StatusCode
}

// TestAPIStatePagesABigLeague: a league of 26 players has 325 matches,
// more than DashboardAllMatches, so /api/state carries the current round's
// matches with the totals; ?round=N and ?round=all ask for the rest. A
// small league's state keeps every match, as before.
func TestAPIStatePagesABigLeague(t *testing.T) {
	cfg := fastConfig(t, t.TempDir())
	cfg.AdminToken = "admin-secret"
	m := startManager(t, cfg)
	registerReferee(t, m.MCP, "Ref", newPeer(t).URL, 1, nil)
	const players = 26
	for i := range players {
		registerPlayer(t, m.MCP, fmt.Sprintf("P%d", i), fmt.Sprintf("http://127.0.0.1:9/p%d", i), nil)
	}
	small, _ := getState(t, m.URL, "")
	if small.MatchesRound != 0 || small.Totals.Scheduled != 0 {
		t.Fatalf("before the start: matches_round %d, totals %+v", small.MatchesRound, small.Totals)
	}
	if r := call(t, m.MCP, leaguesdk.MethodStartLeague, &leaguesdk.StartLeague{
		Envelope: env(leaguesdk.MsgStartLeague, "admin", "admin-secret"), LeagueID: cfg.LeagueID}); r.Error != nil {
		t.Fatalf("start_league: %s", r.Raw)
	}
	const matches, perRound = players * (players - 1) / 2, players / 2
	waitFor(t, 5*time.Second, "the schedule", func() bool { return m.Progress().Matches == matches })

	s, _ := getState(t, m.URL, "")
	if s.MatchesRound != 1 || len(s.Matches) != perRound || s.Totals.Scheduled != matches {
		t.Fatalf("default state: matches_round %d with %d matches, totals %+v; want round 1 with %d of %d",
			s.MatchesRound, len(s.Matches), s.Totals, perRound, matches)
	}
	for _, e := range s.Matches {
		if int(e.RoundID) != 1 {
			t.Fatalf("match %s of round %d in round 1's page", e.MatchID, e.RoundID)
		}
	}
	if len(s.Standings) != players || len(s.Players) != players {
		t.Errorf("the page has %d standings rows and %d players, want %d of each", len(s.Standings), len(s.Players), players)
	}
	r7, _ := getState(t, m.URL, "?round=7")
	if r7.MatchesRound != 7 || len(r7.Matches) != perRound || int(r7.Matches[0].RoundID) != 7 {
		t.Errorf("?round=7: matches_round %d with %d matches", r7.MatchesRound, len(r7.Matches))
	}
	all, _ := getState(t, m.URL, "?round=all")
	if all.MatchesRound != 0 || len(all.Matches) != matches {
		t.Errorf("?round=all: matches_round %d with %d matches, want every one of %d", all.MatchesRound, len(all.Matches), matches)
	}
	for _, bad := range []string{"?round=0", "?round=x"} {
		if _, code := getState(t, m.URL, bad); code != http.StatusBadRequest {
			t.Errorf("%s answered %d, want 400", bad, code)
		}
	}
}

// TestTheStateAtTheEndSaysWhoStillServes: once the league is over every
// agent is SHUTDOWN, and /api/state says which of them the manager last
// saw answering (serving) and which failures shut down (not serving): four
// players and the referee serve, a player whose endpoint never answered
// does not. A manager started again on the same data says the same.
func TestTheStateAtTheEndSaysWhoStillServes(t *testing.T) {
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	cfg.MinPlayers = 5
	cfg.ProbeInterval = 50 * time.Millisecond
	cfg.BroadcastTimeout = 500 * time.Millisecond
	ln := listen(t)
	cfg.Listener = ln
	m := startManager(t, cfg)
	startReferee(t, m.MCP, "Referee Alpha", refereeOptions{})
	startPlayers(t, m.MCP, 4, nil)
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	registerPlayer(t, m.MCP, "Ghost", dead.URL+"/mcp", nil) // P05: the league starts
	m.waitDone(t, 60*time.Second)

	check := func(s manager.Snapshot, when string) {
		t.Helper()
		if s.Status != manager.StatusCompleted || len(s.Players) != 5 || len(s.Referees) != 1 {
			t.Fatalf("%s: status %s, %d players, %d referees", when, s.Status, len(s.Players), len(s.Referees))
		}
		for _, p := range s.Players {
			if want := p.PlayerID != "P05"; p.State != manager.StateShutdown || p.Serving != want {
				t.Errorf("%s: %s is %s, serving %v; want SHUTDOWN, serving %v", when, p.PlayerID, p.State, p.Serving, want)
			}
		}
		if r := s.Referees[0]; r.State != manager.StateShutdown || !r.Serving {
			t.Errorf("%s: %s is %s, serving %v; want SHUTDOWN, serving", when, r.RefereeID, r.State, r.Serving)
		}
	}
	s, code := getState(t, m.URL, "")
	if code != http.StatusOK {
		t.Fatalf("/api/state answered %d", code)
	}
	check(s, "at the end")
	m.Stop()

	cfg2 := cfg
	cfg2.OnEvent = nil
	cfg2.ShowCompleted = true // the completed league, not the next of the series
	cfg2.Listener = relisten(t, ln.Addr().String())
	m2 := startManager(t, cfg2)
	s, _ = getState(t, m2.URL, "")
	check(s, "after a restart")
}
