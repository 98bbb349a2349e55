package manager_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
)

// twoPlayerLeague is a started league of two peer players and two peer
// referees: one match, R1M1, handed to one of the referees.
type twoPlayerLeague struct {
	m              *running
	players, refs  [2]*peer
	playerTokens   [2]string
	refTokens      [2]string
	start          *leaguesdk.StartMatch
	assigned, idle int // index of the referee holding R1M1, and of the other
}

func newTwoPlayerLeague(t *testing.T, dataRoot string) *twoPlayerLeague {
	l := &twoPlayerLeague{}
	cfg := fastConfig(t, dataRoot)
	cfg.MinPlayers = 2
	l.m = startManager(t, cfg)
	for i := range 2 {
		l.refs[i] = newPeer(t)
		l.refTokens[i] = registerReferee(t, l.m.MCP, []string{"Ref A", "Ref B"}[i], l.refs[i].URL, 1, nil).AuthToken
	}
	for i := range 2 {
		l.players[i] = newPeer(t)
		l.playerTokens[i] = registerPlayer(t, l.m.MCP, []string{"Alpha", "Beta"}[i], l.players[i].URL, nil).AuthToken
	}
	select {
	case l.start = <-l.refs[0].starts:
		l.assigned, l.idle = 0, 1
	case l.start = <-l.refs[1].starts:
		l.assigned, l.idle = 1, 0
	case <-time.After(5 * time.Second):
		t.Fatal("no start_match")
	}
	return l
}

func TestSecurity(t *testing.T) {
	l := newTwoPlayerLeague(t, t.TempDir())
	m := l.m
	s := l.start
	if s.MatchID != "R1M1" || s.PlayerAID != "P01" || s.PlayerBID != "P02" || s.AuthToken != l.refTokens[l.assigned] ||
		s.PlayerAEndpoint != l.players[0].URL || s.Sender != leaguesdk.LeagueManagerSender {
		t.Fatalf("start_match %+v", s)
	}
	refID := []string{"REF01", "REF02"}
	query := func(sender, token string) *rpcReply {
		return call(t, m.MCP, leaguesdk.MethodLeagueQuery, &leaguesdk.LeagueQuery{
			Envelope: env(leaguesdk.MsgLeagueQuery, sender, token), QueryType: leaguesdk.QueryStandings})
	}
	if r := query("player:P01", l.playerTokens[0]); r.Error != nil {
		t.Fatalf("own query refused: %+v", r.Error)
	}
	tests := []struct {
		name  string
		reply *rpcReply
		want  leaguesdk.Code
	}{
		{"query without a token", query("player:P01", ""), leaguesdk.CodeAuthTokenMissing},
		{"query with another player's token", query("player:P02", l.playerTokens[0]), leaguesdk.CodeAuthTokenInvalid},
		{"a player's token under a referee sender", query("referee:P01", l.playerTokens[0]), leaguesdk.CodeAuthTokenInvalid},
		{"an unknown token", query("player:P01", leaguesdk.NewToken()), leaguesdk.CodeAuthTokenInvalid},
		{"a player reporting a result", report(t, m.MCP, "P01", l.playerTokens[0], s, "P01"), leaguesdk.CodeAuthTokenInvalid},
		{"a player's token reporting as a referee", report(t, m.MCP, refID[l.assigned], l.playerTokens[0], s, "P01"), leaguesdk.CodeAuthTokenInvalid},
		{"a referee the match was not given to", report(t, m.MCP, refID[l.idle], l.refTokens[l.idle], s, "P01"), leaguesdk.CodeAuthTokenInvalid},
		{"a report without a token", report(t, m.MCP, refID[l.assigned], "", s, "P01"), leaguesdk.CodeAuthTokenMissing},
	}
	for _, tt := range tests {
		if got := tt.reply.code(); got != tt.want {
			t.Errorf("%s: %v, want %s", tt.name, tt.reply.Error, tt.want)
		}
	}

	// Messages that do not follow the protocol.
	valid := &leaguesdk.MatchResultReport{
		Envelope: env(leaguesdk.MsgMatchResultReport, leaguesdk.RefereeSender(refID[l.assigned]), l.refTokens[l.assigned]),
		LeagueID: s.LeagueID, RoundID: 1, MatchID: "R1M1",
		Result: leaguesdk.MatchResult{Winner: "P01", Score: map[string]int{"P01": 3, "P02": 0}, Status: leaguesdk.ResultWin}}
	mutated := func(f func(*leaguesdk.MatchResultReport)) *leaguesdk.MatchResultReport {
		c := *valid
		c.Result.Score = map[string]int{"P01": 3, "P02": 0}
		f(&c)
		return &c
	}
	for _, tt := range []struct {
		name string
		msg  *leaguesdk.MatchResultReport
		want leaguesdk.Code
	}{
		{"wrong protocol", mutated(func(r *leaguesdk.MatchResultReport) { r.Protocol = "league.v1" }), leaguesdk.CodeProtocolVersionMismatch},
		{"timestamp not in UTC", mutated(func(r *leaguesdk.MatchResultReport) { r.Timestamp = "2025-01-15T12:30:00+02:00" }), leaguesdk.CodeInvalidTimestamp},
		{"timestamp without zone", mutated(func(r *leaguesdk.MatchResultReport) { r.Timestamp = "2025-01-15T12:30:00" }), leaguesdk.CodeInvalidTimestamp},
		{"unknown match", mutated(func(r *leaguesdk.MatchResultReport) { r.MatchID = "R9M9" }), leaguesdk.CodeMatchNotFound},
		{"other league", mutated(func(r *leaguesdk.MatchResultReport) { r.LeagueID = "league_other" }), leaguesdk.CodeLeagueNotFound},
		{"winner not in the match", mutated(func(r *leaguesdk.MatchResultReport) { r.Result.Winner = "P07" }), leaguesdk.CodeInvalidChoice},
		{"missing match id", mutated(func(r *leaguesdk.MatchResultReport) { r.MatchID = "" }), leaguesdk.CodeMissingRequiredField},
	} {
		if r := call(t, m.MCP, leaguesdk.MethodReportMatchResult, tt.msg); r.code() != tt.want {
			t.Errorf("%s: %+v, want %s", tt.name, r.Error, tt.want)
		}
	}
	if r := post(t, m.MCP, []byte(`{"jsonrpc":"2.0","id":1,"method":"report_match_result","params":{`)); r.Error == nil || r.Error.Code != leaguesdk.RPCParseError {
		t.Errorf("malformed JSON: %+v, want -32700", r.Error)
	}
	big := bytes.Repeat([]byte("x"), 2<<20)
	resp, err := http.Post(m.MCP, "application/json", bytes.NewReader(append([]byte(`{"jsonrpc":"2.0","id":1,"method":"league_query","params":{"pad":"`), big...)))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized body: HTTP %d, want 413", resp.StatusCode)
	}
	if len(m.Results()) != 0 {
		t.Fatalf("a refused report was recorded: %+v", m.Results())
	}

	// The match's referee reports: recorded once, however often it reports.
	if st := ackStatus(t, call(t, m.MCP, leaguesdk.MethodReportMatchResult, valid)); st != leaguesdk.AckRecorded {
		t.Fatalf("report: ack %s, want RECORDED", st)
	}
	if st := ackStatus(t, call(t, m.MCP, leaguesdk.MethodReportMatchResult, mutated(func(r *leaguesdk.MatchResultReport) {
		r.Result = leaguesdk.MatchResult{Status: leaguesdk.ResultDraw, Score: map[string]int{"P01": 1, "P02": 1}}
	}))); st != leaguesdk.AckDuplicate {
		t.Fatalf("second report: ack %s, want DUPLICATE", st)
	}
	m.waitDone(t, 10*time.Second)
	if res := m.Results(); len(res) != 1 || res[0].Result.Winner != "P01" || res[0].RefereeID != refID[l.assigned] {
		t.Fatalf("results %+v, want P01's win reported by %s", res, refID[l.assigned])
	}
	// Every agent heard the manager with its own token only.
	for i, p := range l.players {
		if !p.onlyToken(l.playerTokens[i]) {
			t.Errorf("player %d received messages without its own token", i+1)
		}
		if n := len(messages[leaguesdk.LeagueCompleted](p, leaguesdk.MsgLeagueCompleted)); n != 1 {
			t.Errorf("player %d got %d LEAGUE_COMPLETED, want 1", i+1, n)
		}
	}
	for i, p := range l.refs {
		if n := len(messages[leaguesdk.LeagueCompleted](p, leaguesdk.MsgLeagueCompleted)); n != 1 || !p.onlyToken(l.refTokens[i]) {
			t.Errorf("referee %d got %d LEAGUE_COMPLETED (own token only: %v)", i+1, n, p.onlyToken(l.refTokens[i]))
		}
	}
}

func TestBroadcastsAndQueries(t *testing.T) {
	l := newTwoPlayerLeague(t, t.TempDir())
	m := l.m
	q := func(qt leaguesdk.QueryType, params *leaguesdk.QueryParams, v any) *leaguesdk.LeagueQueryResponse {
		t.Helper()
		var resp leaguesdk.LeagueQueryResponse
		call(t, m.MCP, leaguesdk.MethodLeagueQuery, &leaguesdk.LeagueQuery{Envelope: env(leaguesdk.MsgLeagueQuery, "player:P02", l.playerTokens[1]),
			LeagueID: "league_test", QueryType: qt, QueryParams: params}).decode(t, &resp)
		if v != nil {
			if err := resp.DecodeData(v); err != nil {
				t.Fatal(err)
			}
		}
		return &resp
	}
	var next leaguesdk.NextMatchData
	q(leaguesdk.QueryNextMatch, nil, &next)
	if n := next.NextMatch; n == nil || n.MatchID != "R1M1" || n.OpponentID != "P01" || n.Role != leaguesdk.PlayerB || n.RefereeEndpoint != l.refs[l.assigned].URL {
		t.Errorf("next match of P02: %+v", n)
	}
	var sched leaguesdk.ScheduleData
	q(leaguesdk.QuerySchedule, nil, &sched)
	if len(sched.Matches) != 1 || sched.Matches[0].Status != leaguesdk.MatchRunning || sched.Matches[0].RefereeID != []string{"REF01", "REF02"}[l.assigned] {
		t.Errorf("schedule: %+v", sched.Matches)
	}
	if resp := q(leaguesdk.QueryPlayerStats, &leaguesdk.QueryParams{PlayerID: "P77"}, nil); resp.Success || resp.Error == nil || resp.Error.ErrorCode != leaguesdk.CodePlayerNotRegistered {
		t.Errorf("stats of an unknown player: %+v", resp)
	}
	if resp := q("GET_WEATHER", nil, nil); resp.Success || resp.Error == nil {
		t.Errorf("unknown query type: %+v", resp)
	}

	res := report(t, m.MCP, []string{"REF01", "REF02"}[l.assigned], l.refTokens[l.assigned], l.start, "P02")
	if st := ackStatus(t, res); st != leaguesdk.AckRecorded {
		t.Fatalf("ack %s", st)
	}
	m.waitDone(t, 10*time.Second)

	var stats leaguesdk.PlayerStatsData
	q(leaguesdk.QueryPlayerStats, nil, &stats)
	if stats.PlayerID != "P02" || stats.Rank != 1 || stats.Wins != 1 || stats.Points != 3 || stats.Played != 1 {
		t.Errorf("stats of P02: %+v", stats)
	}
	var standings leaguesdk.StandingsData
	q(leaguesdk.QueryStandings, nil, &standings)
	if len(standings.Standings) != 2 || standings.Standings[0].PlayerID != "P02" || standings.RoundID != 1 {
		t.Errorf("standings: %+v", standings)
	}
	q(leaguesdk.QueryNextMatch, nil, &next)
	if next.NextMatch != nil {
		t.Errorf("next match after the league: %+v", next.NextMatch)
	}
	var state leaguesdk.StateResponse
	call(t, m.MCP, leaguesdk.MethodGetStandings, &leaguesdk.StateQuery{Envelope: env(leaguesdk.MsgStateQuery, "player:P01", l.playerTokens[0])}).decode(t, &state)
	if !strings.Contains(string(state.State), `"player_id":"P02"`) {
		t.Errorf("get_standings: %s", state.State)
	}

	// What each player heard, in order.
	for i, p := range l.players {
		ann := messages[leaguesdk.RoundAnnouncement](p, leaguesdk.MsgRoundAnnouncement)
		upd := messages[leaguesdk.LeagueStandingsUpdate](p, leaguesdk.MsgLeagueStandingsUpdate)
		done := messages[leaguesdk.RoundCompleted](p, leaguesdk.MsgRoundCompleted)
		fin := messages[leaguesdk.LeagueCompleted](p, leaguesdk.MsgLeagueCompleted)
		if len(ann) != 1 || len(ann[0].Matches) != 1 || ann[0].Matches[0].RefereeEndpoint != l.refs[l.assigned].URL || ann[0].RoundID != 1 {
			t.Errorf("player %d: announcements %+v", i+1, ann)
		}
		if len(upd) != 1 || upd[0].Standings[0].PlayerID != "P02" || upd[0].Standings[0].Points != 3 {
			t.Errorf("player %d: standings updates %+v", i+1, upd)
		}
		if len(done) != 1 || done[0].NextRoundID != nil || done[0].MatchesCompleted != 1 || done[0].Summary == nil || done[0].Summary.Wins != 1 {
			t.Errorf("player %d: round completions %+v", i+1, done)
		}
		if len(fin) != 1 || fin[0].Champion == nil || fin[0].Champion.PlayerID != "P02" || fin[0].TotalMatches != 1 || len(fin[0].FinalStandings) != 2 {
			t.Errorf("player %d: league completions %+v", i+1, fin)
		}
	}
	if c := m.Champion(); c == nil || c.PlayerID != "P02" || c.Points != 3 || c.DisplayName != "Beta" {
		t.Errorf("champion %+v", c)
	}
}

func TestHTTPSurface(t *testing.T) {
	l := newTwoPlayerLeague(t, t.TempDir())
	resp, err := http.Get(l.m.URL + "/api/state")
	if err != nil {
		t.Fatal(err)
	}
	var state map[string]json.RawMessage
	err = json.NewDecoder(resp.Body).Decode(&state)
	resp.Body.Close()
	if err != nil || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /api/state: %v, %s", err, resp.Header.Get("Content-Type"))
	}
	var keys []string
	for k := range state {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := []string{"champion", "current_round", "game_type", "league_id", "matches", "players", "referees", "standings", "status", "total_rounds", "totals", "updated_at"}
	if !slices.Equal(keys, want) {
		t.Errorf("state keys %v, want %v", keys, want)
	}
	if string(state["status"]) != `"RUNNING"` || string(state["champion"]) != "null" || strings.Contains(string(mustJSON(t, state)), "tok_") {
		t.Errorf("state: status %s champion %s (tokens must never appear)", state["status"], state["champion"])
	}
	var refs []map[string]any
	json.Unmarshal(state["referees"], &refs)
	if len(refs) != 2 || refs[l.assigned]["active_matches"] != float64(1) || refs[l.assigned]["max_concurrent_matches"] != float64(1) {
		t.Errorf("referees in the state: %v", refs)
	}
	for path, want := range map[string]string{"/health": `"status":"healthy"`, "/": "<html"} {
		resp, err := http.Get(l.m.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(strings.ToLower(string(b)), strings.ToLower(want)) {
			t.Errorf("GET %s: %d %.80s", path, resp.StatusCode, b)
		}
	}
	// The MCP lifecycle works on the manager too.
	r := post(t, l.m.MCP, []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`))
	for _, tool := range []string{"register_player", "register_referee", "report_match_result", "league_query", "start_league", "get_standings"} {
		if !strings.Contains(string(r.Result), `"`+tool+`"`) {
			t.Errorf("tools/list lacks %s", tool)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestInsecureMode(t *testing.T) {
	cfg := fastConfig(t, t.TempDir())
	cfg.MinPlayers = 2
	cfg.Insecure = true
	m := startManager(t, cfg)
	ref := newPeer(t)
	registerReferee(t, m.MCP, "Foreign Referee", ref.URL, 1, nil)
	registerPlayer(t, m.MCP, "A", newPeer(t).URL, nil)
	registerPlayer(t, m.MCP, "B", newPeer(t).URL, nil)
	s := ref.nextStart(t, 5*time.Second)
	// A third-party referee that sends no token and names itself its own way.
	if st := ackStatus(t, report(t, m.MCP, "foreign", "", s, "P02")); st != leaguesdk.AckRecorded {
		t.Fatalf("ack %s", st)
	}
	m.waitDone(t, 10*time.Second)
	if r := m.Results(); len(r) != 1 || r[0].RefereeID != "REF01" || r[0].Result.Winner != "P02" {
		t.Errorf("results %+v", r)
	}
}

// A report that contradicts what the manager knows of the match — its
// round, its players — is refused even with the right referee's token, and
// is a security event in the league log and through OnEvent.
func TestReportContradictingTheMatchIsASecurityEvent(t *testing.T) {
	dataRoot := t.TempDir()
	l := newTwoPlayerLeague(t, dataRoot)
	m := l.m
	refID := []string{"REF01", "REF02"}[l.assigned]
	tok := l.refTokens[l.assigned]
	base := func() *leaguesdk.MatchResultReport {
		return &leaguesdk.MatchResultReport{Envelope: env(leaguesdk.MsgMatchResultReport, leaguesdk.RefereeSender(refID), tok),
			LeagueID: l.start.LeagueID, RoundID: 1, MatchID: "R1M1",
			Result: leaguesdk.MatchResult{Status: leaguesdk.ResultWin, Winner: "P01", Score: map[string]int{"P01": 3, "P02": 0},
				Details: leaguesdk.MatchDetails{DrawnNumber: 3, Choices: map[string]leaguesdk.Parity{"P01": "odd", "P02": "even"}}}}
	}
	for _, tt := range []struct {
		name   string
		mutate func(*leaguesdk.MatchResultReport)
		want   leaguesdk.Code
	}{
		{"another round", func(r *leaguesdk.MatchResultReport) { r.RoundID = 2 }, leaguesdk.CodeMatchNotFound},
		{"a winner from another match", func(r *leaguesdk.MatchResultReport) {
			r.Result.Winner, r.Result.Score = "P04", map[string]int{"P04": 3}
		}, leaguesdk.CodeInvalidChoice},
		{"choices of a stranger", func(r *leaguesdk.MatchResultReport) {
			r.Result.Details.Choices = map[string]leaguesdk.Parity{"P01": "odd", "P03": "even"}
		}, leaguesdk.CodeInvalidChoice},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := m.Events.count(manager.EventSecurity)
			rep := base()
			tt.mutate(rep)
			if r := call(t, m.MCP, leaguesdk.MethodReportMatchResult, rep); r.code() != tt.want {
				t.Fatalf("report answered %+v, want %s", r.Error, tt.want)
			}
			if got := m.Events.count(manager.EventSecurity); got != before+1 {
				t.Fatalf("%d security events, want %d", got, before+1)
			}
		})
	}
	if len(m.Results()) != 0 {
		t.Fatalf("a contradicting report was recorded: %+v", m.Results())
	}
	// The true report is still recorded, and a repeat of it is no error.
	if st := ackStatus(t, call(t, m.MCP, leaguesdk.MethodReportMatchResult, base())); st != leaguesdk.AckRecorded {
		t.Fatalf("true report: ack %s", st)
	}
	if st := ackStatus(t, call(t, m.MCP, leaguesdk.MethodReportMatchResult, base())); st != leaguesdk.AckDuplicate {
		t.Fatalf("repeated report: ack %s", st)
	}
	m.waitDone(t, 10*time.Second)
	logged, err := os.ReadFile(filepath.Join(dataRoot, "logs", "league", "league_test", "league.log.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(logged), `"SECURITY"`); n != 3 {
		t.Errorf("league log has %d SECURITY events, want 3:\n%s", n, logged)
	}
}

// Without authentication (insecure mode) the manager takes a sender at its
// word, but it never answers with a token the caller did not send: a
// report or a query signed as another agent learns nothing secret, and a
// report for a match no referee was given is refused.
func TestInsecureModeGivesAwayNoToken(t *testing.T) {
	cfg := fastConfig(t, t.TempDir())
	cfg.MinPlayers = 3
	cfg.Insecure = true
	m := startManager(t, cfg)
	ref := newPeer(t)
	refTok := registerReferee(t, m.MCP, "Referee", ref.URL, 1, nil).AuthToken
	var tokens []string
	for _, name := range []string{"A", "B", "C"} {
		tokens = append(tokens, registerPlayer(t, m.MCP, name, newPeer(t).URL, nil).AuthToken)
	}
	s := ref.nextStart(t, 5*time.Second)
	q := call(t, m.MCP, leaguesdk.MethodLeagueQuery, &leaguesdk.LeagueQuery{
		Envelope: env(leaguesdk.MsgLeagueQuery, "player:P01", ""), QueryType: leaguesdk.QueryStandings})
	st := call(t, m.MCP, leaguesdk.MethodGetStandings, &leaguesdk.StateQuery{Envelope: env(leaguesdk.MsgStateQuery, "referee:REF01", "")})
	later := *s
	later.MatchID, later.RoundID = "R3M1", 3 // a match of a later round, given to no referee yet
	if r := report(t, m.MCP, "REF01", "", &later, ""); r.code() != leaguesdk.CodeOutOfTurn {
		t.Errorf("report of a match not being played: %+v, want %s", r.Error, leaguesdk.CodeOutOfTurn)
	}
	rep := report(t, m.MCP, "REF01", "", s, "")
	if ackStatus(t, rep) != leaguesdk.AckRecorded {
		t.Fatalf("report: %s", rep.Raw)
	}
	for _, r := range []*rpcReply{q, st, rep} {
		for _, tok := range append([]string{refTok}, tokens...) {
			if strings.Contains(string(r.Raw), tok) {
				t.Errorf("a reply to a caller without a token carries a token: %s", r.Raw)
			}
		}
	}
}

// get_standings answers the league's agents and the operator; a stranger
// is refused, and no answer carries a token the caller did not send.
func TestGetStandingsIsAuthorised(t *testing.T) {
	cfg := fastConfig(t, t.TempDir())
	cfg.MinPlayers = 3
	cfg.AdminToken = leaguesdk.NewToken()
	m := startManager(t, cfg)
	p1 := registerPlayer(t, m.MCP, "A", newPeer(t).URL, nil).AuthToken
	ask := func(sender, token string) *rpcReply {
		return call(t, m.MCP, leaguesdk.MethodGetStandings, &leaguesdk.StateQuery{Envelope: env(leaguesdk.MsgStateQuery, sender, token)})
	}
	for _, tt := range []struct {
		name, sender, token string
		want                leaguesdk.Code
		wantToken           string
	}{
		{"the player itself", "player:P01", p1, "", p1},
		{"the operator", "operator", cfg.AdminToken, "", ""},
		{"a stranger", "player:P01", "", leaguesdk.CodeAuthTokenMissing, ""},
		{"a made-up token", "player:P01", leaguesdk.NewToken(), leaguesdk.CodeAuthTokenInvalid, ""},
	} {
		r := ask(tt.sender, tt.token)
		if r.code() != tt.want {
			t.Errorf("%s: %+v, want %q", tt.name, r.Error, tt.want)
			continue
		}
		if tt.want == "" {
			var resp leaguesdk.StateResponse
			r.decode(t, &resp)
			if resp.AuthToken != tt.wantToken {
				t.Errorf("%s: reply token %q, want %q", tt.name, resp.AuthToken, tt.wantToken)
			}
		}
		if tt.token != p1 && strings.Contains(string(r.Raw), p1) {
			t.Errorf("%s: the reply carries P01's token: %s", tt.name, r.Raw)
		}
	}
}
