package browsertest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
)

// standingsShown is a row of the viewer's standings table as the page
// shows it.
type standingsShown struct {
	PlayerID string `json:"player_id"`
	Points   string `json:"points"`
}

const readStandings = `[...document.querySelectorAll("#view-standings tbody tr")].map((tr) =>
	({ player_id: tr.dataset.playerId, points: tr.querySelector("td.points").innerText }))`

// TestViewerPagesOfAFinishedLeague plays a league of six players whose
// referee shares the manager's data root, then opens the viewer's pages
// in Chromium: a match's page shows its two choices and its number as
// the manager recorded them; a player's chart has one point per round
// played; the round slider at k shows the standings after round k,
// compared with the standings computed from the manager's records; the
// standings link to the players. The same pages are then read from the
// data root alone (manager.Viewer), and from the league's offline file
// with the network off, which shows the champion.
func TestViewerPagesOfAFinishedLeague(t *testing.T) {
	const players, rounds = 6, 5
	needBrowser(t)
	l := startLeague(t, players)
	l.addReferee("Viewer Referee")
	for i := range players {
		l.addPlayer(fmt.Sprintf("Viewer Player %d", i+1))
	}
	l.await(l.mgr.Done(), "the league to complete")
	records, err := manager.LoadResults(l.data, l.mgr.LeagueID())
	if err != nil {
		t.Fatal(err)
	}
	var entrants []manager.Entrant
	for _, p := range l.mgr.Snapshot().Players {
		entrants = append(entrants, manager.Entrant{PlayerID: p.PlayerID, DisplayName: p.DisplayName})
	}
	champ := l.mgr.Champion()
	if champ == nil || len(records) != players*(players-1)/2 {
		t.Fatalf("the league ended with %d results and champion %+v", len(records), champ)
	}
	live := strings.TrimSuffix(l.url, "/mcp")

	v, err := manager.NewViewer(manager.ViewerConfig{DataRoot: l.data})
	if err != nil {
		t.Fatal(err)
	}
	readOnly := httptest.NewServer(v.Handler())
	t.Cleanup(readOnly.Close)

	for _, base := range []string{live + "/view.html", readOnly.URL + "/league/" + l.mgr.LeagueID() + "/"} {
		t.Run(base, func(t *testing.T) {
			rec := records[len(records)/2]
			page := openPage(t, base+"#/match/"+rec.MatchID)
			page.expect(`document.body.dataset.view === "match"`)
			d := rec.Result.Details
			page.expect(fmt.Sprintf(`document.getElementById("match-choice-A").innerText === %q &&
				document.getElementById("match-choice-B").innerText === %q &&
				document.getElementById("match-number").innerText === "%d"`,
				d.Choices[rec.PlayerA], d.Choices[rec.PlayerB], d.DrawnNumber))
			page.expect(fmt.Sprintf(`document.getElementById("match-player-A").innerText.startsWith(%q)`, rec.PlayerA))
			// Every message of the referee's transcript, the answers with their latency.
			page.expect(`document.querySelectorAll("#match-messages tbody tr").length >= 12`)
			page.expect(`[...document.querySelectorAll("#match-messages tbody tr")].filter((tr) =>
				tr.innerText.includes("CHOOSE_PARITY_RESPONSE") && / \/ \d+/.test(tr.innerText)).length === 2`)

			// A player's page: one point of its chart per round played.
			id := rec.PlayerA
			navigate(t, page, "#/player/"+id)
			page.expect(fmt.Sprintf(`document.body.dataset.view === "player" && document.body.dataset.playerId === %q`, id))
			page.expect(`document.querySelector("#player-chart canvas")`)
			got := eval[int](page, `document.getElementById("player-chart").uplot.data[1].filter((y) => y !== null && y !== undefined).length`)
			if got != rounds {
				t.Errorf("the chart of %s has %d points, want one per round played (%d)", id, got, rounds)
			}
			page.expect(fmt.Sprintf(`document.querySelectorAll("#player-matches tbody tr").length === %d`, players-1))

			// The league: the slider at k shows the standings after round k.
			navigate(t, page, "#/")
			page.expect(`document.body.dataset.view === "league" && document.querySelector("#course-chart canvas")`)
			for _, k := range []int{0, 1, 3, rounds} {
				eval[bool](page, fmt.Sprintf(`(() => { const s = document.getElementById("round-slider");
					s.value = "%d"; s.dispatchEvent(new Event("input")); return true; })()`, k))
				page.expect(fmt.Sprintf(`document.getElementById("view-standings").dataset.round === "%d"`, k))
				var upTo []manager.MatchRecord
				for _, r := range records {
					if r.RoundID <= k {
						upTo = append(upTo, r)
					}
				}
				want := manager.ComputeStandings(entrants, upTo, nil)
				shown := eval[[]standingsShown](page, readStandings)
				if len(shown) != len(want) {
					t.Fatalf("after round %d the page shows %d rows, want %d", k, len(shown), len(want))
				}
				for i, row := range want {
					if shown[i].PlayerID != row.PlayerID || shown[i].Points != fmt.Sprint(row.Points) {
						t.Errorf("after round %d, row %d: the page shows %+v, the records give %s with %d points", k, i+1, shown[i], row.PlayerID, row.Points)
					}
				}
			}
			// The standings link to the players.
			if err := chromedp.Do(page.ctx, chromedp.Click(`#view-standings tbody tr a`)); err != nil {
				t.Fatal(err)
			}
			page.expect(fmt.Sprintf(`document.body.dataset.view === "player" && document.body.dataset.playerId === %q`, champ.PlayerID))
			page.checkProblems()
		})
	}

	t.Run("offline file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "league.html")
		f, err := os.Create(file)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(f)
		if err := v.WriteHTML(context.Background(), w, l.mgr.LeagueID()); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		// No request may leave the browser: every one fails as when
		// the network is off.
		offline := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
				return err
			}
			_, err := cdp.Call(ctx, tg, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
				MatchedNetworkConditions: []*network.Conditions{{Offline: true, DownloadThroughput: -1, UploadThroughput: -1}}})
			return err
		})
		page := openPageWith(t, "file://"+file+"#/", offline)
		page.expect(fmt.Sprintf(`document.body.dataset.view === "league" &&
			document.getElementById("view-champion").dataset.playerId === %q &&
			!document.getElementById("view-champion").hidden`, champ.PlayerID))
		if text := eval[string](page, `document.getElementById("view-champion").innerText`); !containsAll(text, champ.PlayerID, fmt.Sprint(champ.Points)) {
			t.Errorf("the offline file's champion reads %q, want %s with %d points", text, champ.PlayerID, champ.Points)
		}
		rec := records[0]
		navigate(t, page, "#/match/"+rec.MatchID)
		page.expect(fmt.Sprintf(`document.body.dataset.view === "match" && document.getElementById("match-number").innerText === "%d"`,
			rec.Result.Details.DrawnNumber))
		page.checkProblems()
	})
}

// navigate changes the page's hash, as a click on one of its links does.
func navigate(t *testing.T, p *page, hash string) {
	t.Helper()
	eval[bool](p, fmt.Sprintf(`(() => { document.body.dataset.view = "loading"; location.hash = %q; return true; })()`, hash))
}

// writeBigLeague writes, under dataRoot, the manager's records of a
// completed league of n players: its state (players, referee, the
// round-robin schedule, the champion) and every result, in the files and
// forms the manager keeps them in. P0001 wins every match; the others'
// matches are decided by their numbers. It returns the league's id.
func writeBigLeague(t *testing.T, dataRoot string, n int) string {
	t.Helper()
	const id = "league_thousand"
	dir := filepath.Join(dataRoot, "data", "leagues", id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	type agent struct {
		ID           string    `json:"id"`
		DisplayName  string    `json:"display_name"`
		Endpoint     string    `json:"contact_endpoint"`
		AuthToken    string    `json:"auth_token"`
		RegisteredAt time.Time `json:"registered_at"`
		Capacity     int       `json:"max_concurrent_matches,omitempty"`
	}
	type scheduled struct {
		MatchID   string `json:"match_id"`
		RoundID   int    `json:"round_id"`
		PlayerA   string `json:"player_A_id"`
		PlayerB   string `json:"player_B_id"`
		RefereeID string `json:"referee_id"`
	}
	ids := make([]string, n)
	var ps []agent
	for i := range ids {
		ids[i] = fmt.Sprintf("P%04d", i+1)
		ps = append(ps, agent{ID: ids[i], DisplayName: fmt.Sprintf("Player %d", i+1), Endpoint: fmt.Sprintf("http://127.0.0.1:%d/mcp", 20000+i),
			AuthToken: fmt.Sprintf("tok-%d", i), RegisteredAt: at})
	}
	var rounds [][]scheduled
	results, err := os.Create(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(results, 1<<20)
	k := 0
	for _, round := range manager.RoundRobin(ids) {
		var rs []scheduled
		for _, p := range round {
			rs = append(rs, scheduled{MatchID: p.MatchID, RoundID: p.Round, PlayerA: p.PlayerA, PlayerB: p.PlayerB, RefereeID: "REF01"})
			number := 1 + (k*7)%10
			winner, loser := p.PlayerA, p.PlayerB
			if number%2 == 1 {
				winner, loser = loser, winner
			}
			if p.PlayerB == ids[0] {
				winner, loser = p.PlayerB, p.PlayerA
			} else if p.PlayerA == ids[0] {
				winner, loser = p.PlayerA, p.PlayerB
			}
			np := "even"
			if number%2 == 1 {
				np = "odd"
			}
			other := "odd"
			if np == "odd" {
				other = "even"
			}
			fmt.Fprintf(w, `{"schema_version":"1.0.0","last_updated":"2026-01-01T12:00:00Z","league_id":%q,"match_id":%q,"round_id":%d,"player_A_id":%q,"player_B_id":%q,"referee_id":"REF01","result":{"winner":%q,"score":{%q:3,%q:0},"status":"WIN","details":{"drawn_number":%d,"choices":{%q:%q,%q:%q},"reason":"%s chose %s, number was %d (%s)"}},"recorded_at":%q}`+"\n",
				id, p.MatchID, p.Round, p.PlayerA, p.PlayerB, winner, winner, loser, number, winner, np, loser, other, winner, np, number, np,
				at.Add(time.Duration(k)*time.Millisecond).Format(time.RFC3339Nano))
			k++
		}
		rounds = append(rounds, rs)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := results.Close(); err != nil {
		t.Fatal(err)
	}
	done := at.Add(time.Hour)
	type times struct {
		StartedAt   time.Time `json:"started_at"`
		CompletedAt time.Time `json:"completed_at"`
	}
	roundTimes := make([]times, len(rounds))
	for i := range roundTimes {
		roundTimes[i] = times{at.Add(time.Duration(i) * time.Second), at.Add(time.Duration(i+1) * time.Second)}
	}
	state := map[string]any{
		"schema_version": "1.0.0", "last_updated": leaguesdk.FormatTime(done), "league_id": id, "game_type": "even_odd",
		"status": "COMPLETED", "registration_opened_at": at, "started_at": at, "completed_at": done,
		"next_player_number": n + 1, "next_referee_number": 2,
		"referees": []agent{{ID: "REF01", DisplayName: "Referee", Endpoint: "http://127.0.0.1:19999/mcp", AuthToken: "tok-ref", RegisteredAt: at, Capacity: 500}},
		"players":  ps, "rounds": rounds, "rounds_completed": len(rounds), "round_times": roundTimes,
		"champion": map[string]any{"player_id": ids[0], "display_name": "Player 1", "points": 3 * (n - 1)},
	}
	b, err := json.Marshal(state)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "state.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestFirstScreenOfA1000PlayerLeague serves the manager's records of a
// completed league of 1000 players (499 500 matches) by a manager that
// keeps it on show, and opens its dashboard and its viewer's league
// page: each paints its first screen — the standings, and the viewer's
// chart — within 2 s of being asked for, as the page itself measures it
// (performance.now() when drawn).
func TestFirstScreenOfA1000PlayerLeague(t *testing.T) {
	const n = 1000
	needBrowser(t)
	data := t.TempDir()
	id := writeBigLeague(t, data, n)
	ln := listen(t)
	mgr, err := manager.New(manager.Config{LeagueID: id, DataRoot: data, Listener: ln, ShowCompleted: true,
		RegistrationWindow: -1, NoAgentLog: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- mgr.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	if got := mgr.Snapshot(); got.Status != manager.StatusCompleted || got.Totals.Finished != n*(n-1)/2 {
		t.Fatalf("the manager shows %s with %d results", got.Status, got.Totals.Finished)
	}
	base := "http://" + ln.Addr().String()
	// The manager, just started, ranks its standings once and rewrites
	// its views (a rounds file of 100 MB); the pages are measured as a
	// reader who comes to a manager that is up finds them.
	for _, path := range []string{"/api/state", "/api/view/league", "/api/view/standings"} {
		start := time.Now()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		t.Logf("GET %s first: %v", path, time.Since(start).Round(time.Millisecond))
	}

	t.Run("dashboard", func(t *testing.T) {
		page := openPage(t, base+"/")
		page.expect(`document.querySelectorAll("#standings tbody tr").length > 0 && document.body.dataset.status === "COMPLETED"`)
		painted := eval[float64](page, `performance.now()`)
		t.Logf("dashboard of %d players: first screen by %.0f ms", n, painted)
		if painted > 2000 {
			t.Errorf("the dashboard of %d players painted its first screen after %.0f ms, want at most 2 s", n, painted)
		}
		page.expect(`document.getElementById("standings-pager").innerText.includes("of 1000")`)
		page.checkProblems()
	})
	t.Run("viewer", func(t *testing.T) {
		page := openPage(t, base+"/view.html#/")
		page.expect(`document.body.dataset.view === "league" && window.viewDrawnAt`)
		painted := eval[float64](page, `window.viewDrawnAt`)
		t.Logf("viewer of %d players: first screen drawn at %.0f ms", n, painted)
		if painted > 2000 {
			t.Errorf("the viewer of %d players drew its first screen after %.0f ms, want at most 2 s", n, painted)
		}
		page.expect(fmt.Sprintf(`document.getElementById("view-champion").dataset.playerId === "P0001" &&
			document.querySelectorAll("#view-standings tbody tr").length === 50 &&
			document.getElementById("standings-pager").innerText.includes("of %d")`, n))
		page.checkProblems()
	})
}
