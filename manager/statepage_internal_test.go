package manager

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// bigLeague returns a manager whose league has the given players and 50
// referees, its round-robin schedule, and every match of its first
// played rounds recorded, as registration, begin and record leave them,
// served by its Handler on a loopback listener.
func bigLeague(tb testing.TB, players, played int) (*Manager, string) {
	tb.Helper()
	m, err := New(Config{LeagueID: "league_big", DataRoot: tb.TempDir(), NoAgentLog: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = m.Close() })
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	ids := make([]string, players)
	m.mu.Lock()
	for i := range 50 {
		r := &referee{agentRecord: agentRecord{ID: fmt.Sprintf("REF%02d", i+1), DisplayName: fmt.Sprintf("Referee %d", i+1),
			Endpoint: fmt.Sprintf("http://127.0.0.1:%d/mcp", 20000+i), MaxConcurrentMatches: 10, RegisteredAt: at}}
		m.referees = append(m.referees, r)
		m.refByID[r.ID] = r
	}
	for i := range ids {
		ids[i] = fmt.Sprintf("P%04d", i+1)
		p := &agentRecord{ID: ids[i], DisplayName: fmt.Sprintf("Player number %d", i+1),
			Endpoint: fmt.Sprintf("http://127.0.0.1:%d/mcp", 30000+i), RegisteredAt: at}
		m.players = append(m.players, p)
		m.playerByID[p.ID] = p
	}
	var schedule [][]scheduledMatch
	for _, round := range RoundRobin(ids) {
		ms := make([]scheduledMatch, 0, len(round))
		for _, p := range round {
			ms = append(ms, scheduledMatch{MatchID: p.MatchID, RoundID: p.Round, PlayerA: p.PlayerA, PlayerB: p.PlayerB,
				RefereeID: fmt.Sprintf("REF%02d", len(ms)%50+1)})
		}
		schedule = append(schedule, ms)
	}
	m.setSchedule(schedule)
	n := 0
	for _, round := range m.rounds[:played] {
		for _, mt := range round {
			number := 1 + n%10
			winner, choiceA, choiceB := mt.PlayerA, leaguesdk.Even, leaguesdk.Odd
			if number%2 == 1 {
				winner = mt.PlayerB
			}
			rec := MatchRecord{MatchID: mt.MatchID, RoundID: mt.RoundID, PlayerA: mt.PlayerA, PlayerB: mt.PlayerB, RefereeID: mt.RefereeID,
				RecordedAt: at.Add(time.Duration(n) * time.Millisecond),
				Result: leaguesdk.MatchResult{Status: leaguesdk.ResultWin, Winner: leaguesdk.OptionalString(winner),
					Score: map[string]int{mt.PlayerA: 0, mt.PlayerB: 0, winner: 3},
					Details: leaguesdk.MatchDetails{DrawnNumber: number, Reason: fmt.Sprintf("%s won, number was %d", winner, number),
						Choices: map[string]leaguesdk.Parity{mt.PlayerA: choiceA, mt.PlayerB: choiceB}}}}
			mt.record, mt.status = compactRecord(&rec), leaguesdk.MatchFinished
			m.records = append(m.records, mt)
			n++
		}
	}
	m.status, m.currentRound, m.startedAt = StatusRunning, played+1, &at
	m.mu.Unlock()
	srv := httptest.NewServer(m.Handler())
	tb.Cleanup(srv.Close)
	return m, srv.URL
}

// stateBytes returns the size of the body of GET url, and its ETag.
func stateBytes(tb testing.TB, url, etag string) (int, string, int) {
	tb.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return len(b), resp.Header.Get("ETag"), resp.StatusCode
}

// dashboardQuery is what the dashboard asks for every second (app.js):
// a page of each list.
const dashboardQuery = "/api/state?limit=100&matches_limit=300"

// TestAPIStatePageOfA1000PlayerLeague: at 1000 players the whole state
// is several hundred kilobytes; the page the dashboard reads every second
// is at most 100 kB, and nothing once the state no longer changes.
func TestAPIStatePageOfA1000PlayerLeague(t *testing.T) {
	m, base := bigLeague(t, 1000, 400)
	whole, _, _ := stateBytes(t, base+"/api/state", "")
	paged, _, code := stateBytes(t, base+dashboardQuery, "")
	t.Logf("GET /api/state: %d bytes; %s: %d bytes", whole, dashboardQuery, paged)
	if code != http.StatusOK || paged > 100_000 {
		t.Errorf("%s: status %d, %d bytes; want 200 and at most 100 kB", dashboardQuery, code, paged)
	}
	if whole < 2*paged {
		t.Errorf("the whole state (%d bytes) is not much larger than a page (%d): the league is not big", whole, paged)
	}
	// While the league runs its rate and time left change every moment;
	// once it has completed, nothing does.
	m.mu.Lock()
	m.status, m.completedAt = StatusCompleted, m.startedAt
	m.mu.Unlock()
	_, etag, _ := stateBytes(t, base+dashboardQuery, "")
	again, _, code := stateBytes(t, base+dashboardQuery, etag)
	if code != http.StatusNotModified || again != 0 {
		t.Errorf("asked again with its ETag: status %d, %d bytes; want 304 and none", code, again)
	}
	var s Snapshot
	resp, err := http.Get(base + "/api/state?limit=100&standings_offset=950&players_offset=5000&matches_offset=100&matches_limit=300")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := decodeJSON(resp.Body, &s); err != nil {
		t.Fatal(err)
	}
	if s.Page == nil || len(s.Standings) != 50 || s.Standings[0].Rank != 951 || s.Page.Standings != 1000 ||
		s.Page.PlayersOffset != 900 || len(s.Players) != 100 || s.Page.Matches != 500 || len(s.Matches) != 300 || s.Page.MatchesOffset != 100 {
		t.Errorf("page %+v with %d standings (first rank %d), %d players, %d matches", s.Page, len(s.Standings), s.Standings[0].Rank, len(s.Players), len(s.Matches))
	}
}

// BenchmarkAPIStatePage1000 measures what the dashboard reads every
// second from the manager of a 1000-player league in its 401st round:
// the bytes of one answer (B/read) and the time to make it.
//
//	go test ./manager -run '^$' -bench APIStatePage1000 -benchtime 20x
func BenchmarkAPIStatePage1000(b *testing.B) {
	_, base := bigLeague(b, 1000, 400)
	var n int
	for b.Loop() {
		n, _, _ = stateBytes(b, base+dashboardQuery, "")
	}
	b.ReportMetric(float64(n), "B/read")
}

func decodeJSON(r io.Reader, v any) error { return json.NewDecoder(r).Decode(v) }
