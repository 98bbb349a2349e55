package browsertest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/referee"
)

// league is a real manager with its referees and players, each run by its
// own Run on a 127.0.0.1:0 listener and stopped when the test ends.
type league struct {
	t    *testing.T
	ctx  context.Context
	data string
	mgr  *manager.Manager
	url  string // the manager's MCP endpoint
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

// startLeague starts a manager that begins the league once minPlayers
// players have registered.
func startLeague(t *testing.T, minPlayers int) *league {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ln := listen(t)
	l := &league{t: t, ctx: ctx, data: t.TempDir(), url: "http://" + ln.Addr().String() + "/mcp"}
	mgr, err := manager.New(manager.Config{
		LeagueID:           "league_browser",
		Listener:           ln,
		DataRoot:           l.data,
		MinPlayers:         minPlayers,
		RegistrationWindow: -1,
		ReportTimeout:      20 * time.Second,
		RetryDelay:         100 * time.Millisecond,
		BroadcastTimeout:   2 * time.Second,
	})
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

// addReferee starts a referee and waits until it has registered.
func (l *league) addReferee(name string) {
	l.t.Helper()
	ref, err := referee.New(referee.Config{
		Name:        name,
		League:      l.url,
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

// addPlayer starts a player that chooses at random.
func (l *league) addPlayer(name string) *player.Agent {
	l.t.Helper()
	p, err := player.New(player.Config{
		Name:     name,
		League:   l.url,
		Listener: listen(l.t),
		DataRoot: l.data,
		Strategy: player.Random(nil),
	})
	if err != nil {
		l.t.Fatal(err)
	}
	l.run(name, p.Run)
	return p
}

// await waits for ch, failing the test after a minute.
func (l *league) await(ch <-chan struct{}, what string) {
	l.t.Helper()
	select {
	case <-ch:
	case <-time.After(time.Minute):
		l.t.Fatalf("timed out waiting for %s", what)
	}
}

// heldState serves the manager's handler, holding every GET /api/state
// until release is closed: the page's first answer comes when the test
// says. asked is closed when the first request for the state arrives.
type heldState struct {
	next    http.Handler
	asked   chan struct{}
	release chan struct{}
	once    sync.Once
}

func (h *heldState) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/api/state" {
		h.once.Do(func() { close(h.asked) })
		select {
		case <-h.release:
		case <-r.Context().Done():
			return
		}
	}
	h.next.ServeHTTP(w, r)
}

// TestDashboardOfALiveLeague opens the manager's page in headless Chromium
// before anyone has registered and keeps that one page open while a league
// of twenty players (190 matches) runs. Before the manager's first answer
// the page says it is loading (and nothing about the league); then, without
// a reload, it shows the registration, and at the end the final standings,
// every agent and match, and the champion — with the standings and the
// players on the first screen however long the schedule below them.
func TestDashboardOfALiveLeague(t *testing.T) {
	const players, matches = 20, 190
	needBrowser(t)
	l := startLeague(t, players)
	held := &heldState{next: l.mgr.Handler(), asked: make(chan struct{}), release: make(chan struct{})}
	front := httptest.NewServer(held)
	t.Cleanup(front.Close)

	page := openPage(t, front.URL+"/")
	must := page.expect
	l.await(held.asked, "the page to ask for the league's state")
	must(`document.body.dataset.status === "LOADING"`)
	must(`!document.getElementById("loading").hidden &&
		document.getElementById("loading").innerText.includes("Loading the league's state")`)
	if text := page.text(); !containsNone(text, "No player has registered", "The schedule is made", "Champion") {
		t.Errorf("before its first answer the page says more than that it is loading:\n%s", text)
	}

	close(held.release)
	must(`document.body.dataset.status === "REGISTERING" && document.getElementById("loading").hidden`)
	must(`!document.getElementById("standings-empty").hidden &&
		document.getElementById("standings-empty").innerText === "No player has registered yet."`)

	for i := range 2 {
		l.addReferee(fmt.Sprintf("Browser Referee %d", i+1))
	}
	must(`document.querySelectorAll('#referees tbody tr[data-referee-id] .badge.state[data-state="REGISTERED"]').length === 2`)

	var agents []*player.Agent
	for i := range players {
		agents = append(agents, l.addPlayer(fmt.Sprintf("Browser Player %d", i+1)))
	}
	for _, a := range agents {
		l.await(a.Registered(), "a player to register")
	}
	l.await(l.mgr.Done(), "the league to complete")

	must(fmt.Sprintf(`/^%d of %d matches done · [0-9.]+ matches\/s$/.test(document.getElementById("progress").innerText)`, matches, matches))
	must(`document.body.dataset.status === "COMPLETED"`)
	champ := l.mgr.Champion()
	if champ == nil {
		t.Fatal("the league completed without a champion")
	}
	must(fmt.Sprintf(`document.getElementById("champion").dataset.playerId === %q && !document.getElementById("champion").hidden`, champ.PlayerID))
	if text := eval[string](page, `document.getElementById("champion").innerText`); !containsAll(text, champ.PlayerID, champ.DisplayName) {
		t.Errorf("the champion banner reads %q, want it to name %s (%s)", text, champ.PlayerID, champ.DisplayName)
	}
	must(fmt.Sprintf(`document.querySelector("#standings tbody tr").dataset.playerId === %q`, champ.PlayerID))
	for _, a := range agents {
		must(fmt.Sprintf(`document.querySelector('#standings tr[data-player-id=%q]') && document.querySelector('#players tr[data-player-id=%q]')`, a.ID(), a.ID()))
	}
	// The league is over, and its agents, shut down by its end while they
	// answered, are shown as serving, not as shut down.
	must(`!document.getElementById("over").hidden && document.getElementById("over").innerText.includes("The league is over")`)
	must(fmt.Sprintf(`document.querySelectorAll('#players tbody .badge.state[data-state="SERVING"]').length === %d`, players))
	must(`document.querySelectorAll('#referees tbody .badge.state[data-state="SERVING"]').length === 2`)
	must(`!document.querySelector('.badge.state[data-state="SHUTDOWN"]')`)
	// No endpoint is broken across lines: each is one line box.
	must(`[...document.querySelectorAll("td.endpoint")].every((td) => {
		const r = document.createRange();
		r.selectNodeContents(td);
		return td.innerText.startsWith("http://") && r.getClientRects().length === 1;
	})`)
	must(fmt.Sprintf(`document.querySelectorAll('#schedule [data-match-id][data-status="FINISHED"]').length === %d`, matches))
	// Every round is over: each is one line, until the reader opens it.
	must(`document.querySelectorAll("#schedule details.round").length === 19 && !document.querySelector("#schedule details.round[open]")`)

	// The first screen, unscrolled: the whole standings and the players'
	// table; the schedule below them.
	layout := eval[struct {
		ViewportHeight  float64 `json:"viewportHeight"`
		ScrollY         float64 `json:"scrollY"`
		StandingsBottom float64 `json:"standingsBottom"`
		LastRowBottom   float64 `json:"lastRowBottom"`
		PlayersTop      float64 `json:"playersTop"`
		ScheduleTop     float64 `json:"scheduleTop"`
		NumbersAlign    string  `json:"numbersAlign"`
	}](page, `(() => {
		const rect = (sel) => document.querySelector(sel).getBoundingClientRect();
		return {
			viewportHeight: window.innerHeight, scrollY: window.scrollY,
			standingsBottom: rect("#standings-panel").bottom,
			lastRowBottom: rect("#standings tbody tr:last-child").bottom,
			playersTop: rect("#players tbody tr").top,
			scheduleTop: rect("#schedule-panel").top,
			numbersAlign: getComputedStyle(document.querySelector("#standings tbody td.points")).textAlign,
		};
	})()`)
	t.Logf("layout at %d matches: %+v", matches, layout)
	switch {
	case layout.ViewportHeight > viewportHeight || layout.ScrollY != 0:
		t.Errorf("the viewport is %v px high, scrolled to %v: want at most %d, unscrolled", layout.ViewportHeight, layout.ScrollY, viewportHeight)
	case layout.StandingsBottom > layout.ViewportHeight || layout.LastRowBottom > layout.ViewportHeight:
		t.Errorf("the standings end at %v px (last row at %v px), below the first screen (%v px)", layout.StandingsBottom, layout.LastRowBottom, layout.ViewportHeight)
	case layout.PlayersTop > layout.ViewportHeight:
		t.Errorf("the players' table starts at %v px, below the first screen (%v px)", layout.PlayersTop, layout.ViewportHeight)
	case layout.ScheduleTop < layout.StandingsBottom:
		t.Errorf("the schedule (at %v px) is not below the standings (ending at %v px)", layout.ScheduleTop, layout.StandingsBottom)
	}
	if layout.NumbersAlign != "right" {
		t.Errorf("the standings' points are aligned %q, want right", layout.NumbersAlign)
	}
	page.checkProblems()
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

func containsNone(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
