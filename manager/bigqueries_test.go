package manager_test

import (
	"net/http"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// scheduleQuery asks the manager at mcp for the schedule as sender: the
// whole league's, or with player set that player's matches only.
func scheduleQuery(t *testing.T, mcp, sender, player string) (*rpcReply, leaguesdk.ScheduleData) {
	t.Helper()
	q := &leaguesdk.LeagueQuery{Envelope: env(leaguesdk.MsgLeagueQuery, sender, ""), QueryType: leaguesdk.QuerySchedule}
	if player != "" {
		q.QueryParams = &leaguesdk.QueryParams{PlayerID: player}
	}
	r := call(t, mcp, leaguesdk.MethodLeagueQuery, q)
	var data leaguesdk.ScheduleData
	if r.Error == nil {
		var resp leaguesdk.LeagueQueryResponse
		r.decode(t, &resp)
		if resp.Success {
			if err := resp.DecodeData(&data); err != nil {
				t.Fatal(err)
			}
		}
	}
	return r, data
}

// TestScheduleOfOnePlayerAndTheWholeSchedule: GET_SCHEDULE with
// query_params.player_id answers that player's matches only; without, the
// whole schedule, the same as the manager's own results, the answer shared
// by the callers of the same state.
func TestScheduleOfOnePlayerAndTheWholeSchedule(t *testing.T) {
	const players = 6
	cfg := fastConfig(t, t.TempDir())
	cfg.MinPlayers, cfg.Insecure = players, true
	cfg.ScheduleBytesPerSecond = -1 // answers one after the other
	m := startManager(t, cfg)
	startReferee(t, m.MCP, "Referee", refereeOptions{})
	startPlayers(t, m.MCP, players, always(leaguesdk.Even))
	m.waitDone(t, 30*time.Second)

	r, own := scheduleQuery(t, m.MCP, "player:P01", "P03")
	if r.Error != nil || len(own.Matches) != players-1 {
		t.Fatalf("P03's schedule: %d matches, want %d: %s", len(own.Matches), players-1, r.Raw)
	}
	for _, e := range own.Matches {
		if e.PlayerAID != "P03" && e.PlayerBID != "P03" || e.Status != leaguesdk.MatchFinished || e.Result == nil {
			t.Errorf("P03's schedule holds %+v", e)
		}
	}
	var resp leaguesdk.LeagueQueryResponse
	r, _ = scheduleQuery(t, m.MCP, "player:P01", "P77")
	r.decode(t, &resp)
	if resp.Success || resp.Error == nil || resp.Error.ErrorCode != leaguesdk.CodePlayerNotRegistered {
		t.Errorf("the schedule of an unknown player: %s", r.Raw)
	}

	r, whole := scheduleQuery(t, m.MCP, "player:P01", "")
	if r.Error != nil || len(whole.Matches) != players*(players-1)/2 {
		t.Fatalf("whole schedule: %d matches, want %d: %s", len(whole.Matches), players*(players-1)/2, r.Raw)
	}
	results := map[string]string{}
	for _, res := range m.Results() {
		results[res.MatchID] = string(res.Result.Winner) + "/" + string(res.Result.Status)
	}
	for _, e := range whole.Matches {
		if e.Result == nil || results[e.MatchID] != string(e.Result.Winner)+"/"+string(e.Result.Status) {
			t.Errorf("whole schedule's %s: %+v, the manager's result %s", e.MatchID, e.Result, results[e.MatchID])
		}
	}
	// Another caller, the same state: the same answer.
	_, again := scheduleQuery(t, m.MCP, "player:P02", "")
	if !reflect.DeepEqual(again.Matches, whole.Matches) {
		t.Errorf("a second caller's whole schedule differs:\n%+v\n%+v", again, whole)
	}
}

// TestLargeQueriesRefusedAtOnceOverTheirBounds: a caller that asks for the
// whole schedule faster than ScheduleRate, or while the pace of the whole
// schedule's bytes has not let the next answer go, is refused at once with
// E010 and Retry-After; its queries about one player are answered
// meanwhile, and so is the league's table.
func TestLargeQueriesRefusedAtOnceOverTheirBounds(t *testing.T) {
	const players = 4
	cfg := fastConfig(t, t.TempDir())
	cfg.MinPlayers, cfg.Insecure = players, true
	cfg.ScheduleRate = 0.5              // burst 1
	cfg.ScheduleBytesPerSecond = 1 << 9 // a 6-match schedule: some seconds
	m := startManager(t, cfg)
	startReferee(t, m.MCP, "Referee", refereeOptions{})
	startPlayers(t, m.MCP, players, always(leaguesdk.Even))
	m.waitDone(t, 30*time.Second)

	if r, whole := scheduleQuery(t, m.MCP, "player:P01", ""); r.Error != nil || len(whole.Matches) != 6 {
		t.Fatalf("first whole schedule: %s", r.Raw)
	}
	refused := func(what string, r *rpcReply) {
		t.Helper()
		if r.HTTPStatus != http.StatusTooManyRequests || r.code() != leaguesdk.CodeRateLimited {
			t.Fatalf("%s: %d %s, want 429 E010", what, r.HTTPStatus, r.Raw)
		}
		if s, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || s < 1 {
			t.Fatalf("%s: Retry-After %q", what, r.Header.Get("Retry-After"))
		}
	}
	r, _ := scheduleQuery(t, m.MCP, "player:P01", "")
	refused("the same caller again", r)
	r, _ = scheduleQuery(t, m.MCP, "player:P02", "")
	refused("another caller within the bytes' pace", r)
	if r, own := scheduleQuery(t, m.MCP, "player:P01", "P01"); r.Error != nil || len(own.Matches) != players-1 {
		t.Fatalf("a player's own schedule meanwhile: %s", r.Raw)
	}
	r = call(t, m.MCP, leaguesdk.MethodLeagueQuery, &leaguesdk.LeagueQuery{
		Envelope: env(leaguesdk.MsgLeagueQuery, "player:P01", ""), QueryType: leaguesdk.QueryStandings})
	if r.Error != nil {
		t.Fatalf("the standings meanwhile: %s", r.Raw)
	}
}

// TestStrangersAreToldToComeBackLater: callers that prove no agent, past
// a few calls a second from their address, are refused with E010 and told
// to come back in 10 s; a registered player's queries and a registration
// from the same address are served meanwhile.
func TestStrangersAreToldToComeBackLater(t *testing.T) {
	m := startManager(t, fastConfig(t, t.TempDir()))
	p := registerPlayer(t, m.MCP, "Known", "http://127.0.0.1:1/mcp", nil)
	var limited *rpcReply
	for i := range 40 {
		r := call(t, m.MCP, leaguesdk.MethodLeagueQuery, &leaguesdk.LeagueQuery{
			Envelope: env(leaguesdk.MsgLeagueQuery, "player:S"+strconv.Itoa(i), "tok_00000000000000000000000000000000"), QueryType: leaguesdk.QuerySchedule})
		if r.HTTPStatus == http.StatusTooManyRequests {
			limited = r
			break
		}
		if c := r.code(); c != leaguesdk.CodeAuthTokenInvalid && c != leaguesdk.CodeAuthTokenMissing {
			t.Fatalf("a stranger's query %d: %s", i+1, r.Raw)
		}
	}
	if limited == nil || limited.code() != leaguesdk.CodeRateLimited || limited.Header.Get("Retry-After") != "10" {
		t.Fatalf("40 strangers' queries at once, none told to come back in 10 s (last %v)", limited)
	}
	r := call(t, m.MCP, leaguesdk.MethodLeagueQuery, &leaguesdk.LeagueQuery{
		Envelope: env(leaguesdk.MsgLeagueQuery, leaguesdk.PlayerSender(p.PlayerID), p.AuthToken), QueryType: leaguesdk.QueryStandings})
	if r.Error != nil {
		t.Fatalf("a registered player's query meanwhile: %s", r.Raw)
	}
	if reg := registerPlayer(t, m.MCP, "Late", "http://127.0.0.1:2/mcp", nil); reg.Status != leaguesdk.StatusAccepted {
		t.Fatalf("a registration meanwhile: %+v", reg)
	}
}
