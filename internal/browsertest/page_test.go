package browsertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agentleague/league/internal/dashboard"
)

// The tests of this file serve the dashboard beside a stand-in for the
// manager's api/state whose answers they choose, to show the page states
// a real league passes through too quickly or too rarely to catch.

// fakeState serves a league state that the test changes as it goes, the way
// the manager's api/state changes while a league runs.
type fakeState struct {
	mu    sync.Mutex
	state map[string]any
}

func (f *fakeState) set(s map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.state = s
}

func (f *fakeState) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(f.state)
}

func players(n int) []any {
	var ps []any
	for i := 1; i <= n; i++ {
		ps = append(ps, map[string]any{"player_id": fmt.Sprintf("P%02d", i), "display_name": fmt.Sprintf("Player %d", i), "endpoint": fmt.Sprintf("http://127.0.0.1:%d/mcp", 8100+i)})
	}
	return ps
}

var referees = []any{
	map[string]any{"referee_id": "REF01", "display_name": "Ref One", "endpoint": "http://127.0.0.1:8001/mcp", "max_concurrent_matches": 2, "active_matches": 0},
}

func match(id string, round int, a, b, status string, result any) map[string]any {
	return map[string]any{"match_id": id, "round_id": round, "game_type": "even_odd", "player_A_id": a, "player_B_id": b,
		"status": status, "referee_id": "REF01", "referee_endpoint": "http://127.0.0.1:8001/mcp", "result": result}
}

// TestPageFollowsTheLeagueInABrowser loads the page once, mounted under a
// prefix, and changes the state behind it: the same page, never reloaded,
// must show the players as they register, the matches as they run, and the
// champion at the end. Display names are shown as text, never as markup.
func TestPageFollowsTheLeagueInABrowser(t *testing.T) {
	state := &fakeState{}
	hostile := `<img id="injected" src="x" onerror="document.title='pwned'">`
	state.set(map[string]any{
		"league_id": "league_test", "game_type": "even_odd", "status": "REGISTERING", "current_round": 0, "total_rounds": 0,
		"referees": referees,
		"players":  []any{map[string]any{"player_id": "P01", "display_name": hostile, "endpoint": "http://127.0.0.1:8101/mcp"}},
		"matches":  []any{}, "standings": []any{}, "champion": nil, "updated_at": "2026-01-01T00:00:00Z",
	})
	mux := http.NewServeMux()
	mux.Handle("GET /league/api/state", state)
	mux.Handle("GET /league/", http.StripPrefix("/league", dashboard.Handler()))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	page := openPage(t, srv.URL+"/league/")
	must := page.expect
	must(`document.querySelector('#players tr[data-player-id="P01"]')`)
	must(`document.querySelector('#referees tr[data-referee-id="REF01"]')`)
	must(`document.body.dataset.status === "REGISTERING"`)
	injected := eval[struct {
		Element bool   `json:"element"`
		Title   string `json:"title"`
		Text    string `json:"text"`
	}](page, `({element: !!document.getElementById("injected"), title: document.title,
		text: document.querySelector('#players tr[data-player-id="P01"]').innerText})`)
	if injected.Element || injected.Title == "pwned" || !strings.Contains(injected.Text, "<img") {
		t.Errorf("a display name was rendered as markup: %+v", injected)
	}

	state.set(map[string]any{
		"league_id": "league_test", "game_type": "even_odd", "status": "RUNNING", "current_round": 1, "total_rounds": 3,
		"referees": referees, "players": players(4),
		"matches": []any{
			match("R1M1", 1, "P01", "P02", "RUNNING", nil),
			match("R1M2", 1, "P03", "P04", "FINISHED", map[string]any{"winner": "P03", "score": map[string]int{"P03": 3, "P04": 0}, "status": "WIN",
				"details": map[string]any{"drawn_number": 4, "choices": map[string]string{"P03": "even", "P04": "odd"}}}),
			match("R2M1", 2, "P01", "P03", "PENDING", nil),
		},
		"standings": []any{}, "champion": nil, "updated_at": "2026-01-01T00:00:01Z",
	})
	must(`document.querySelectorAll("#players tbody tr").length === 4`)
	must(`document.querySelectorAll("#standings tbody tr[data-player-id]").length === 4`)
	must(`document.querySelector('#schedule [data-match-id="R1M1"]').dataset.status === "RUNNING"`)
	must(`document.querySelector('#schedule [data-match-id="R1M2"]').innerText.includes("P03 wins")`)
	must(`document.querySelector('#schedule [data-match-id="R1M2"]').innerText.includes("even")`)
	must(`document.querySelector('#schedule [data-match-id="R2M1"]').dataset.status === "PENDING"`)
	must(`document.getElementById("champion").hidden`)

	state.set(map[string]any{
		"league_id": "league_test", "game_type": "even_odd", "status": "COMPLETED", "current_round": 3, "total_rounds": 3,
		"referees": referees, "players": players(4), "matches": []any{},
		"standings": []any{
			map[string]any{"rank": 1, "player_id": "P03", "display_name": "Player 3", "played": 3, "wins": 3, "draws": 0, "losses": 0, "points": 9},
			map[string]any{"rank": 2, "player_id": "P01", "display_name": "Player 1", "played": 3, "wins": 1, "draws": 1, "losses": 1, "points": 4},
			map[string]any{"rank": 3, "player_id": "P02", "display_name": "Player 2", "played": 3, "wins": 1, "draws": 0, "losses": 2, "points": 3},
			map[string]any{"rank": 4, "player_id": "P04", "display_name": "Player 4", "played": 3, "wins": 0, "draws": 1, "losses": 2, "points": 1},
		},
		"champion":   map[string]any{"player_id": "P03", "display_name": "Player 3", "points": 9},
		"updated_at": "2026-01-01T00:00:02Z",
	})
	must(`document.getElementById("champion").dataset.playerId === "P03" && !document.getElementById("champion").hidden`)
	must(`document.getElementById("champion").innerText.includes("Player 3")`)
	must(`document.querySelector("#standings tbody tr").dataset.playerId === "P03"`)
	must(`document.body.dataset.status === "COMPLETED"`)

	page.checkProblems()
}

// TestPageOfABigLeagueShowsOneRoundAtATime serves the state of a league
// whose schedule comes one round at a time (matches_round): the page
// shows that round, the totals and a choice of rounds, and asks for the
// round the reader picks.
func TestPageOfABigLeagueShowsOneRoundAtATime(t *testing.T) {
	var mu sync.Mutex
	asked := map[string]bool{}
	stateOf := func(round int) map[string]any {
		return map[string]any{
			"league_id": "league_big", "game_type": "even_odd", "status": "RUNNING", "current_round": 2, "total_rounds": 25,
			"referees": referees, "players": players(4), "standings": []any{}, "champion": nil,
			"updated_at": "2026-01-01T00:00:00Z", "matches_round": round,
			"totals":  map[string]any{"scheduled": 325, "finished": 14, "running": 13, "per_second": 2.5, "seconds_left": 124.4},
			"matches": []any{match(fmt.Sprintf("R%dM1", round), round, "P01", "P02", "PENDING", nil)},
		}
	}
	page := openDashboard(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query().Get("round")
		mu.Lock()
		asked[q] = true
		mu.Unlock()
		round := 2
		if q != "" {
			round, _ = strconv.Atoi(q)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(stateOf(round))
	}))
	page.expect(`!document.getElementById("schedule-paging").hidden`)
	page.expect(`document.querySelector('#schedule [data-match-id="R2M1"]') !== null`)
	page.expect(`document.getElementById("totals").innerText.includes("14 of 325 matches finished")`)
	// At the top, in view whatever the size of the league: done of total,
	// rate and time left, above the standings.
	page.expect(`document.getElementById("progress").innerText === "14 of 325 matches done · 13 running · 2.5 matches/s · about 2 min left"`)
	page.expect(`(() => { const p = document.getElementById("progress").getBoundingClientRect();
		return p.bottom <= window.innerHeight && p.top < document.getElementById("standings").getBoundingClientRect().top; })()`)
	page.expect(`document.querySelectorAll("#round-select option").length === 25`)
	eval[bool](page, `(() => { const s = document.getElementById("round-select"); s.value = "7";
		s.dispatchEvent(new Event("change")); return true; })()`)
	page.expect(`document.querySelector('#schedule [data-match-id="R7M1"]') !== null`)
	mu.Lock()
	defer mu.Unlock()
	if !asked["7"] {
		t.Errorf("the page did not ask for round 7: %v", asked)
	}
	page.checkProblems()
}

// TestPageSaysWhenTheManagerIsUnreachable checks the page keeps running and
// tells the reader when api/state fails.
func TestPageSaysWhenTheManagerIsUnreachable(t *testing.T) {
	page := openDashboard(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "down for a moment", http.StatusServiceUnavailable)
	}))
	page.expect(`!document.getElementById("connection").hidden &&
		document.getElementById("connection").innerText.includes("HTTP 503")`)
	// Having had no answer, it says nothing of the league.
	page.expect(`!document.getElementById("loading").hidden && document.getElementById("standings-empty").hidden &&
		document.getElementById("schedule-empty").hidden`)
}

// TestScheduleOpensTheCurrentRoundAndKeepsTheReadersChoice serves a
// schedule too long to show whole (28 matches of 8 players in 7 rounds):
// only the current round is open, and a round the reader opens or closes
// stays so while the page redraws.
func TestScheduleOpensTheCurrentRoundAndKeepsTheReadersChoice(t *testing.T) {
	var matches []any
	for r := 1; r <= 7; r++ {
		for i := 1; i <= 4; i++ {
			status := "PENDING"
			switch {
			case r < 3:
				status = "FINISHED"
			case r == 3:
				status = "RUNNING"
			}
			matches = append(matches, match(fmt.Sprintf("R%dM%d", r, i), r, fmt.Sprintf("P%02d", i), fmt.Sprintf("P%02d", i+4), status, nil))
		}
	}
	state := &fakeState{}
	state.set(map[string]any{
		"league_id": "league_test", "game_type": "even_odd", "status": "RUNNING", "current_round": 3, "total_rounds": 7,
		"referees": referees, "players": players(8), "matches": matches, "standings": []any{}, "champion": nil,
		"updated_at": "2026-01-01T00:00:00Z", "totals": map[string]any{"scheduled": 28, "finished": 8, "running": 4},
	})
	page := openDashboard(t, state)
	const openRounds = `[...document.querySelectorAll("#schedule details.round")].filter((d) => d.open).map((d) => d.dataset.roundId).join(",")`
	page.expect(`document.querySelectorAll("#schedule details.round").length === 7`)
	page.expect(openRounds + ` === "3"`)
	page.expect(`document.getElementById("schedule-count").innerText === "(28 matches)"`)

	// Open round 1, close round 3; mark a round to see the page redraw.
	eval[bool](page, `(() => {
		document.querySelector('#schedule details[data-round-id="1"] > summary').click();
		document.querySelector('#schedule details[data-round-id="3"] > summary').click();
		document.querySelector('#schedule details[data-round-id="5"]').dataset.mark = "before";
		return true;
	})()`)
	page.expect(`!document.querySelector("#schedule [data-mark]")`)
	page.expect(openRounds + ` === "1"`)
	page.checkProblems()
}

// TestFirstScreenHoldsTheStandingsOfABigLeague serves the state of a league
// of 1000 players: the standings panel still ends on the first screen, its
// table scrolling in its own box, and the players' table starts there too.
func TestFirstScreenHoldsTheStandingsOfABigLeague(t *testing.T) {
	const n = 1000
	var standings []any
	for i, p := range players(n) {
		standings = append(standings, map[string]any{"rank": i + 1, "player_id": p.(map[string]any)["player_id"],
			"played": 3, "wins": 1, "draws": 1, "losses": 1, "points": 4})
	}
	state := &fakeState{}
	state.set(map[string]any{
		"league_id": "league_big", "game_type": "even_odd", "status": "RUNNING", "current_round": 4, "total_rounds": n - 1,
		"referees": referees, "players": players(n), "standings": standings, "champion": nil,
		"updated_at": "2026-01-01T00:00:00Z", "matches_round": 4,
		"totals":  map[string]any{"scheduled": n * (n - 1) / 2, "finished": 1500, "running": 12},
		"matches": []any{match("R4M1", 4, "P01", "P02", "RUNNING", nil)},
	})
	page := openDashboard(t, state)
	page.expect(fmt.Sprintf(`document.querySelectorAll("#standings tbody tr").length === %d`, n))
	page.expect(fmt.Sprintf(`document.querySelectorAll("#players tbody tr").length === %d`, n))
	layout := eval[struct {
		ViewportHeight  float64 `json:"viewportHeight"`
		StandingsBottom float64 `json:"standingsBottom"`
		PlayersTop      float64 `json:"playersTop"`
		Scrolls         bool    `json:"scrolls"`
	}](page, `(() => {
		const box = document.querySelector("#standings-panel .scroll");
		return {
			viewportHeight: window.innerHeight,
			standingsBottom: document.getElementById("standings-panel").getBoundingClientRect().bottom,
			playersTop: document.querySelector("#players tbody tr").getBoundingClientRect().top,
			scrolls: box.scrollHeight > box.clientHeight,
		};
	})()`)
	if layout.StandingsBottom > layout.ViewportHeight || layout.PlayersTop > layout.ViewportHeight || !layout.Scrolls {
		t.Errorf("with %d players: %+v; want the standings panel to end and the players' table to start on the first screen, the standings scrolling in their box", n, layout)
	}
	page.checkProblems()
}

// openDashboard serves the dashboard with state as its GET /api/state and
// opens its page.
func openDashboard(t *testing.T, state http.Handler) *page {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("GET /api/state", state)
	mux.Handle("GET /", dashboard.Handler())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return openPage(t, srv.URL+"/")
}
