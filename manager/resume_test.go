package manager_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/player"
)

// journalLine is a line of the manager's assignment journal.
type journalLine struct {
	MatchID   string `json:"match_id"`
	RefereeID string `json:"referee_id"`
	Attempt   int    `json:"attempt"`
}

// readJournal reads data/leagues/<league>/assignments.jsonl under dir.
func readJournal(t *testing.T, dir, league string) []journalLine {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "data", "leagues", league, "assignments.jsonl"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []journalLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l journalLine
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.MatchID != "" {
			out = append(out, l)
		}
	}
	return out
}

// checkHistories fails unless every player's history holds exactly the
// league's records of its matches, with the same results, and sums up to
// its row of the standings.
func checkHistories(t *testing.T, players []*player.Agent, records []manager.MatchRecord, standings []leaguesdk.StandingRow) {
	t.Helper()
	rows := map[string]leaguesdk.StandingRow{}
	for _, r := range standings {
		rows[r.PlayerID] = r
	}
	for _, a := range players {
		id := a.ID()
		h := a.History()
		got := map[string]player.Result{}
		for _, m := range h.Matches() {
			got[m.MatchID] = m.Result
		}
		want := map[string]player.Result{}
		for _, rec := range records {
			if rec.PlayerA != id && rec.PlayerB != id {
				continue
			}
			switch {
			case rec.Result.Status == leaguesdk.ResultDraw:
				want[rec.MatchID] = player.Draw
			case string(rec.Result.Winner) == id:
				want[rec.MatchID] = player.Win
			case rec.Result.Status == leaguesdk.ResultTechnicalLoss:
				want[rec.MatchID] = player.TechnicalLoss
			default:
				want[rec.MatchID] = player.Loss
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s's history %v, the league recorded %v", id, got, want)
		}
		st, row := h.Stats(), rows[id]
		if st.Wins != row.Wins || st.Draws != row.Draws || st.Losses != row.Losses || st.Points != row.Points {
			t.Errorf("%s's history sums up to %+v, its standings row is %+v", id, st, row)
		}
	}
}

// TestKillManagerInsideOneRound SIGKILLs the manager process three times
// while the matches of round 1 run on two live referees and restarts it on
// the same data root each time: after the first restart it asks the
// referees about their matches, the second kill hits it right after a
// restart, the third while it waits for reports. No report is refused, no
// match is handed out a second time (its referee is alive), the standings
// are those recomputed from the records on disk, and every player's history
// agrees with the league.
func TestKillManagerInsideOneRound(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a manager process")
	}
	t.Parallel()
	// The report timeout is far above a match's length: a match is only
	// handed out again here if the manager loses track of it.
	c := startCrashLeague(t, "league_resume", "20s")
	dir, league := c.dir, c.id
	alpha, _ := startReferee(t, c.p.endpoint, "Referee Alpha", refereeOptions{capacity: 2})
	beta, _ := startReferee(t, c.p.endpoint, "Referee Beta", refereeOptions{capacity: 2})
	// The choices of round 1 but for R1M1 wait until the kills are over
	// (at most until the referee's move deadline), so that those matches
	// run through them; R1M1's result is recorded first, which changes
	// the restarted manager's plan of the round's unfinished matches.
	gate := make(chan struct{})
	players := startPlayers(t, c.p.endpoint, 6, player.StrategyFunc(func(ctx context.Context, pc player.ParityCall) (leaguesdk.Parity, error) {
		if pc.RoundID == 1 && pc.MatchID != "R1M1" {
			select {
			case <-gate:
			case <-ctx.Done():
			}
		}
		return leaguesdk.Even, nil
	}))
	leagueLog := filepath.Join(dir, "logs", "league", league, "league.log.jsonl")
	resumed := func() int {
		b, _ := os.ReadFile(leagueLog)
		return strings.Count(string(b), "is still with referee")
	}

	waitFor(t, 30*time.Second, "round 1 handed out and R1M1 recorded", func() bool {
		records, _ := manager.LoadResults(dir, league)
		return len(readJournal(t, dir, league)) >= 3 && len(records) == 1
	})
	c.restart() // while the round's matches run
	before, handedOut := resumed(), len(readJournal(t, dir, league))
	c.restart() // at once: the restarted manager may be asking its referees
	waitFor(t, 30*time.Second, "the restarted manager to wait for a referee's report (or hand a match out again)", func() bool {
		return resumed() > before || len(readJournal(t, dir, league)) > handedOut
	})
	c.restart() // while it waits for reports
	close(gate)

	final, records := c.completed()
	for i, out := range c.outputs {
		if strings.Contains(out.String(), "match result refused") {
			t.Errorf("run %d of the manager refused a report:\n%s", i+1, out.String())
		}
	}
	// A match is played twice when two referees have it, or one referee
	// has it twice (start_match is idempotent, so only as a new attempt).
	given := map[string]int{}
	for _, l := range readJournal(t, dir, league) {
		given[l.MatchID] = max(given[l.MatchID], l.Attempt)
	}
	for id := range given {
		_, onAlpha := alpha.MatchState(id)
		_, onBeta := beta.MatchState(id)
		if onAlpha && onBeta {
			t.Errorf("%s played on both referees (attempt %d)", id, given[id])
		}
	}
	if len(given) != 15 {
		t.Fatalf("%d matches handed out, want 15", len(given))
	}
	checkHistories(t, players, records, final.Standings)
}

// reportHold is a reverse proxy in front of a manager that passes every
// call through but holds report_match_result: it tells held and then
// keeps the call until its caller goes away.
type reportHold struct {
	*httptest.Server
	held chan string // the first held report's body
	once sync.Once
}

func newReportHold(t *testing.T, target string) *reportHold {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	h := &reportHold{held: make(chan string, 1)}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if strings.Contains(string(body), "report_match_result") {
			h.once.Do(func() { h.held <- string(body) })
			<-r.Context().Done()
			return
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		r.ContentLength = int64(len(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(h.Close)
	return h
}

var refereeReady = regexp.MustCompile(`referee ready.*endpoint=(http://127\.0\.0\.1:(\d+)/mcp)`)

// TestRefereeKilledBeforeItsReport runs a referee as a process whose
// reports never reach the manager, and SIGKILLs it once it has told the
// players a result (GAME_OVER) and is reporting it. The manager gives the
// match to the other referee after the report timeout; the replay's result
// is recorded, its GAME_OVER (a later attempt) supersedes the first in the
// players' histories, and every history equals the league's record.
func TestRefereeKilledBeforeItsReport(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a referee process")
	}
	t.Parallel()
	bin := buildBinary(t, "github.com/agentleague/league/examples/referee")
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	cfg.MinPlayers = 4
	// Well above a match's length (instant players), so that only the
	// killed referee's match times out.
	cfg.ReportTimeout = 4 * time.Second
	m := startManager(t, cfg)

	hold := newReportHold(t, m.MCP)
	doomed := startCommand(t, refereeReady, bin, "-port", "0", "-league", hold.URL+"/mcp", "-name", "Referee Doomed",
		"-max-concurrent", "1", "-data", t.TempDir(), "-join-timeout", "2s", "-move-timeout", "2s", "-retry-delay", "50ms")
	startReferee(t, m.MCP, "Referee Survivor", refereeOptions{capacity: 2})
	players := make([]*player.Agent, 4)
	for i := range players {
		parity := leaguesdk.Even
		if i%2 == 1 {
			parity = leaguesdk.Odd
		}
		players[i], _ = startPlayer(t, m.MCP, fmt.Sprintf("Player %d", i+1), always(parity))
	}

	var body string
	select {
	case body = <-hold.held:
	case <-time.After(30 * time.Second):
		t.Fatalf("the doomed referee reported nothing:\n%s", doomed.stderr.String())
	}
	found := regexp.MustCompile(`"match_id"\s*:\s*"([^"]+)"`).FindStringSubmatch(body)
	if found == nil {
		t.Fatalf("held report without a match_id: %s", body)
	}
	matchID := found[1]
	// GAME_OVER went out before the report: both players know a result.
	informed := 0
	for _, a := range players {
		for _, r := range a.History().Matches() {
			if r.MatchID == matchID && leaguesdk.AttemptOf(r.Attempt) == 1 {
				informed++
			}
		}
	}
	if informed != 2 {
		t.Fatalf("%d players have the first result of %s before the kill", informed, matchID)
	}
	if err := doomed.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-doomed.exited

	m.waitDone(t, 60*time.Second)
	checkLeague(t, m, dir, cfg.LeagueID, 4)
	var replayed *manager.MatchRecord
	records := m.Results()
	for i := range records {
		if records[i].MatchID == matchID {
			replayed = &records[i]
		}
	}
	if replayed == nil || replayed.RefereeID != "REF02" {
		t.Fatalf("%s recorded as %+v, want the replay on REF02", matchID, replayed)
	}
	for _, a := range players {
		for _, r := range a.History().Matches() {
			if r.MatchID == matchID && r.Attempt != 2 {
				t.Errorf("%s keeps attempt %d of %s, want the replay's (2)", a.ID(), r.Attempt, matchID)
			}
		}
	}
	checkHistories(t, players, records, m.Standings())

	// The dead referee's report, arriving after all (and after a restart of
	// the manager), is a duplicate: the match was given to that referee.
	m.Stop()
	cfg.Listener = nil
	cfg.ShowCompleted = true // the completed league, not the next
	m2 := startManager(t, cfg)
	var ack leaguesdk.Ack
	post(t, m2.MCP, []byte(body)).decode(t, &ack)
	if ack.Status != leaguesdk.AckDuplicate || ack.MatchID != matchID {
		t.Errorf("late report of the killed referee answered %+v, want DUPLICATE", ack)
	}
}

// TestResumeWithAnUnreachableReferee stops the manager while round 1 runs,
// stops one referee too, and starts the manager again on the same data
// root and address. The live referee's match is awaited; the dead
// referee's is handed to the live one at once, as a new attempt, without
// waiting for the report timeout.
func TestResumeWithAnUnreachableReferee(t *testing.T) {
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	cfg.MinPlayers = 4
	cfg.ReportTimeout = time.Hour
	ln := listen(t)
	addr := ln.Addr().String()
	cfg.Listener = ln
	m := startManager(t, cfg)
	doomed, stopDoomed := startReferee(t, m.MCP, "Referee Doomed", refereeOptions{capacity: 1, grace: time.Millisecond})
	live, _ := startReferee(t, m.MCP, "Referee Live", refereeOptions{capacity: 2})
	gate := make(chan struct{})
	var players []*player.Agent
	for i := range 4 {
		a, _ := startPlayer(t, m.MCP, fmt.Sprintf("Player %d", i+1), player.StrategyFunc(
			func(ctx context.Context, pc player.ParityCall) (leaguesdk.Parity, error) {
				if pc.RoundID == 1 {
					select {
					case <-gate:
					case <-ctx.Done():
					}
				}
				return leaguesdk.Odd, nil
			}))
		players = append(players, a)
	}
	waitFor(t, 10*time.Second, "round 1 running on both referees", func() bool {
		return doomed.ActiveMatches() == 1 && live.ActiveMatches() == 1
	})
	m.Stop()
	stopDoomed()
	var doomedMatch string
	for _, l := range readJournal(t, dir, cfg.LeagueID) {
		if l.RefereeID == "REF01" {
			doomedMatch = l.MatchID
		}
	}
	if doomedMatch == "" {
		t.Fatalf("no match went to REF01: %+v", readJournal(t, dir, cfg.LeagueID))
	}

	var err error
	if cfg.Listener, err = net.Listen("tcp", addr); err != nil {
		t.Fatal(err)
	}
	m = startManager(t, cfg)
	close(gate)
	m.waitDone(t, 30*time.Second)
	checkLeague(t, m, dir, cfg.LeagueID, 4)
	// Round 1's matches: later rounds may try the dead referee first.
	attempts := map[string]int{}
	for _, l := range readJournal(t, dir, cfg.LeagueID) {
		if strings.HasPrefix(l.MatchID, "R1M") {
			attempts[l.MatchID]++
		}
	}
	for id, n := range attempts {
		if want := map[bool]int{true: 2, false: 1}[id == doomedMatch]; n != want {
			t.Errorf("%s handed out %d times, want %d", id, n, want)
		}
	}
	for _, r := range m.Results() {
		if r.MatchID == doomedMatch && r.RefereeID != "REF02" {
			t.Errorf("%s recorded from %s, want REF02", r.MatchID, r.RefereeID)
		}
	}
	if st, ok := live.MatchState(doomedMatch); !ok || st.State != "FINISHED" {
		t.Errorf("the live referee's state of %s: %+v", doomedMatch, st)
	}
	checkHistories(t, players, m.Results(), m.Standings())
}

// TestReportToARestartedManager: a referee's report reaching a restarted
// manager before it has asked that referee about the match (here it is
// still announcing the round to players that do not answer) is recorded,
// and a repeat of it is a DUPLICATE.
func TestReportToARestartedManager(t *testing.T) {
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	cfg.MinPlayers = 2
	cfg.BroadcastTimeout = 30 * time.Second
	m := startManager(t, cfg)

	// Players of another implementation that hang once told to.
	var hang atomic.Bool
	release := make(chan struct{})
	players := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hang.Load() {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
	}))
	t.Cleanup(players.Close)
	t.Cleanup(func() { close(release) }) // runs before players.Close
	ref := newPeer(t)
	reg := registerReferee(t, m.MCP, "Peer Referee", ref.URL, 1, nil)
	registerPlayer(t, m.MCP, "Silent One", players.URL+"/p1/mcp", nil)
	registerPlayer(t, m.MCP, "Silent Two", players.URL+"/p2/mcp", nil)
	s := ref.nextStart(t, 10*time.Second)
	if s.Attempt != 1 {
		t.Errorf("start_match attempt %d, want 1", s.Attempt)
	}
	m.Stop()

	hang.Store(true)
	cfg.Listener = nil
	m = startManager(t, cfg)
	if got := ackStatus(t, report(t, m.MCP, reg.RefereeID, reg.AuthToken, s, s.PlayerAID)); got != leaguesdk.AckRecorded {
		t.Fatalf("report to the restarted manager: %s, want RECORDED", got)
	}
	if got := ackStatus(t, report(t, m.MCP, reg.RefereeID, reg.AuthToken, s, s.PlayerAID)); got != leaguesdk.AckDuplicate {
		t.Fatalf("the same report again: %s, want DUPLICATE", got)
	}
	if r := m.Results(); len(r) != 1 || r[0].MatchID != s.MatchID || r[0].RefereeID != reg.RefereeID {
		t.Errorf("results %+v", r)
	}
	m.Stop()
}
