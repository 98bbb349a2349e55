package manager_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/player"
)

func TestLeagueOfFourPlayers(t *testing.T) {
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	cfg.MinPlayers = 4
	m := startManager(t, cfg)
	startReferee(t, m.MCP, "Referee Alpha", refereeOptions{})
	for i, p := range []leaguesdk.Parity{leaguesdk.Even, leaguesdk.Odd, leaguesdk.Even, leaguesdk.Odd} {
		startPlayer(t, m.MCP, fmt.Sprintf("Agent %d", i+1), always(p))
	}
	m.waitDone(t, 30*time.Second)
	checkLeague(t, m, dir, cfg.LeagueID, 4)

	// The rounds of the protocol's four-player schedule.
	want := [][2]string{{"P01", "P02"}, {"P03", "P04"}, {"P03", "P01"}, {"P04", "P02"}, {"P01", "P04"}, {"P02", "P03"}}
	snap := m.Snapshot()
	if len(snap.Matches) != len(want) || snap.TotalRounds != 3 {
		t.Fatalf("%d matches in %d rounds, want 6 in 3", len(snap.Matches), snap.TotalRounds)
	}
	for i, e := range snap.Matches {
		if e.PlayerAID != want[i][0] || e.PlayerBID != want[i][1] || e.Status != leaguesdk.MatchFinished || e.Result == nil || e.RefereeID != "REF01" {
			t.Errorf("match %d: %+v, want %v finished by REF01", i, e, want[i])
		}
	}
	for _, k := range []manager.EventKind{manager.EventRoundStarted, manager.EventRoundCompleted} {
		if n := m.Events.count(k); n != 3 {
			t.Errorf("%d %s events, want 3", n, k)
		}
	}
	if n := m.Events.count(manager.EventMatchResult); n != 6 {
		t.Errorf("%d match results, want 6", n)
	}
	// The start says what a round needs of the referees.
	for _, e := range m.Events.all() {
		if e.Kind == manager.EventLeagueStarted && !strings.Contains(e.Message, "4 players, 3 rounds of up to 2 matches; 1 referee, taking 4 at once") {
			t.Errorf("the league's start says %q", e.Message)
		}
	}
}

// A round's EventRoundCompleted comes after the EventMatchResult of each
// of its matches, even when a result's event is slow to go out: the
// handler of the last report of a round is held inside OnEvent while the
// league loop, which already sees every result recorded, completes the
// round.
func TestRoundCompletesAfterTheResultEventsOfItsMatches(t *testing.T) {
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	cfg.MinPlayers = 4
	var mu sync.Mutex
	results := map[int]int{} // round → result events seen
	var order []string
	cfg.OnEvent = func(e manager.Event) {
		switch e.Kind {
		case manager.EventMatchResult:
			time.Sleep(30 * time.Millisecond) // a slow consumer widens the window
			mu.Lock()
			results[e.RoundID]++
			mu.Unlock()
		case manager.EventRoundCompleted:
			mu.Lock()
			order = append(order, fmt.Sprintf("round %d completed after %d results", e.RoundID, results[e.RoundID]))
			mu.Unlock()
		}
	}
	m := startManager(t, cfg)
	startReferee(t, m.MCP, "Referee Alpha", refereeOptions{})
	for i, p := range []leaguesdk.Parity{leaguesdk.Even, leaguesdk.Odd, leaguesdk.Even, leaguesdk.Odd} {
		startPlayer(t, m.MCP, fmt.Sprintf("Agent %d", i+1), always(p))
	}
	m.waitDone(t, 30*time.Second)
	mu.Lock()
	defer mu.Unlock()
	want := []string{"round 1 completed after 2 results", "round 2 completed after 2 results", "round 3 completed after 2 results"}
	if fmt.Sprint(order) != fmt.Sprint(want) {
		t.Errorf("events %q, want %q", order, want)
	}
}

func TestLeagueOfSevenPlayersWithByes(t *testing.T) {
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	cfg.MinPlayers = 7
	m := startManager(t, cfg)
	startReferee(t, m.MCP, "Referee Alpha", refereeOptions{capacity: 2})
	startReferee(t, m.MCP, "Referee Beta", refereeOptions{capacity: 2})
	startPlayers(t, m.MCP, 7, nil)
	m.waitDone(t, 60*time.Second)
	checkLeague(t, m, dir, cfg.LeagueID, 7)
	snap := m.Snapshot()
	if snap.TotalRounds != 7 {
		t.Fatalf("%d rounds, want 7", snap.TotalRounds)
	}
	byes := map[string]int{}
	for r := 1; r <= 7; r++ {
		playing := map[string]bool{}
		for _, e := range snap.Matches {
			if int(e.RoundID) == r {
				playing[e.PlayerAID], playing[e.PlayerBID] = true, true
			}
		}
		if len(playing) != 6 {
			t.Errorf("round %d: %d players play, want 6", r, len(playing))
		}
		for _, p := range snap.Players {
			if !playing[p.PlayerID] {
				byes[p.PlayerID]++
			}
		}
	}
	for _, p := range snap.Players {
		if byes[p.PlayerID] != 1 {
			t.Errorf("%s has %d byes, want 1", p.PlayerID, byes[p.PlayerID])
		}
	}
}

func TestLeagueOfThirtyTwoPlayers(t *testing.T) {
	if testing.Short() {
		t.Skip("a 496-match league")
	}
	t.Parallel()
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	cfg.MinPlayers = 32
	m := startManager(t, cfg)
	for i := range 4 {
		startReferee(t, m.MCP, fmt.Sprintf("Referee %d", i+1), refereeOptions{capacity: 4})
	}
	startPlayers(t, m.MCP, 32, nil)
	m.waitDone(t, 120*time.Second)
	checkLeague(t, m, dir, cfg.LeagueID, 32)
	perRef := map[string]int{}
	for _, r := range m.Results() {
		perRef[r.RefereeID]++
	}
	for _, id := range []string{"REF01", "REF02", "REF03", "REF04"} {
		if perRef[id] < 496/4/4 {
			t.Errorf("referee %s ran %d of 496 matches: the load is not spread (%v)", id, perRef[id], perRef)
		}
	}
}

// slow returns a strategy that takes d to choose.
func slow(d time.Duration) player.Strategy {
	return player.StrategyFunc(func(ctx context.Context, _ player.ParityCall) (leaguesdk.Parity, error) {
		select {
		case <-time.After(d):
		case <-ctx.Done():
		}
		return leaguesdk.Even, nil
	})
}

func TestRefereeKilledMidLeague(t *testing.T) {
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	cfg.MinPlayers = 6
	cfg.ReportTimeout = time.Second
	killAfter := make(chan struct{})
	var once sync.Once
	var results atomic.Int32
	cfg.OnEvent = func(e manager.Event) {
		if e.Kind == manager.EventMatchResult && results.Add(1) == 4 {
			once.Do(func() { close(killAfter) })
		}
	}
	m := startManager(t, cfg)
	_, kill := startReferee(t, m.MCP, "Referee Doomed", refereeOptions{capacity: 2, grace: time.Millisecond})
	startReferee(t, m.MCP, "Referee Survivor", refereeOptions{capacity: 2})
	startPlayers(t, m.MCP, 6, slow(20*time.Millisecond))
	select {
	case <-killAfter:
	case <-time.After(30 * time.Second):
		t.Fatal("no results")
	}
	kill()
	m.waitDone(t, 60*time.Second)
	checkLeague(t, m, dir, cfg.LeagueID, 6)
	late := 0
	for _, r := range m.Results() {
		if r.RefereeID == "REF02" {
			late++
		}
	}
	if late < 15-4-2 {
		t.Errorf("the surviving referee recorded %d matches", late)
	}
}

// TestDeadPlayer: a player that goes away after registering loses its
// matches by technical loss, misses the broadcasts, and holds nobody up.
func TestDeadPlayer(t *testing.T) {
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	cfg.MinPlayers = 4
	m := startManager(t, cfg)
	startReferee(t, m.MCP, "Referee Alpha", refereeOptions{})
	startPlayers(t, m.MCP, 2, nil)
	deadSrv := httptest.NewServer(http.NotFoundHandler())
	registerPlayer(t, m.MCP, "Ghost", deadSrv.URL+"/mcp", nil) // P03
	deadSrv.Close()
	startPlayer(t, m.MCP, "Late", nil) // P04: the league starts
	m.waitDone(t, 30*time.Second)
	checkLeague(t, m, dir, cfg.LeagueID, 4)
	for _, r := range m.Results() {
		if r.PlayerA != "P03" && r.PlayerB != "P03" {
			continue
		}
		if r.Result.Status != leaguesdk.ResultTechnicalLoss || r.Result.Winner == "P03" || r.Result.Winner == "" {
			t.Errorf("%s: %+v, want a technical loss of P03", r.MatchID, r.Result)
		}
	}
	for _, row := range m.Standings() {
		if row.PlayerID == "P03" && (row.Points != 0 || row.Losses != 3 || row.Rank != 4) {
			t.Errorf("P03: %+v", row)
		}
	}
	warned := false
	for _, e := range m.Events.all() {
		warned = warned || (e.Kind == manager.EventWarning && strings.Contains(e.Message, "P03"))
	}
	if !warned {
		t.Errorf("no warning that broadcasts did not reach P03:\n%s", m.Events.tail(20))
	}
}
