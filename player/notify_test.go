package player_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/internal/filelock"
	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
)

func managerEnv(t leaguesdk.MessageType, token string) leaguesdk.Envelope {
	return leaguesdk.NewEnvelope(t, leaguesdk.LeagueManagerSender, token, "conv-broadcast", time.Now())
}

func TestNotificationsAreAcknowledged(t *testing.T) {
	m := startManager(t, &testManager{})
	l := &learner{Strategy: always(leaguesdk.Even)}
	a := runAgent(t, player.Config{League: m.URL, Strategy: l})
	table := []leaguesdk.StandingRow{{Rank: 1, PlayerID: "P01", Played: 1, Wins: 1, Points: 3}}
	next := leaguesdk.RoundID(2)
	tests := []struct {
		method string
		msg    leaguesdk.Message
	}{
		{leaguesdk.MethodNotifyRound, &leaguesdk.RoundAnnouncement{Envelope: managerEnv(leaguesdk.MsgRoundAnnouncement, playerToken),
			LeagueID: testLeague, RoundID: 1, Matches: []leaguesdk.ScheduledMatch{
				{MatchID: "R1M1", GameType: leaguesdk.GameEvenOdd, PlayerAID: "P02", PlayerBID: "P01", RefereeEndpoint: "http://127.0.0.1:1/mcp"},
				{MatchID: "R1M2", GameType: leaguesdk.GameEvenOdd, PlayerAID: "P03", PlayerBID: "P04"}}}},
		{leaguesdk.MethodUpdateStandings, &leaguesdk.LeagueStandingsUpdate{Envelope: managerEnv(leaguesdk.MsgLeagueStandingsUpdate, playerToken),
			LeagueID: testLeague, RoundID: 1, Standings: table}},
		{leaguesdk.MethodNotifyRoundCompleted, &leaguesdk.RoundCompleted{Envelope: managerEnv(leaguesdk.MsgRoundCompleted, playerToken),
			LeagueID: testLeague, RoundID: 1, MatchesCompleted: 2, NextRoundID: &next}},
		// A broadcast with another token is logged, not refused.
		{leaguesdk.MethodNotifyRoundCompleted, &leaguesdk.RoundCompleted{Envelope: managerEnv(leaguesdk.MsgRoundCompleted, "tok_someoneelse0000000000000000000"),
			LeagueID: testLeague, RoundID: 2}},
		{leaguesdk.MethodNotifyGameError, &leaguesdk.GameError{Envelope: env(leaguesdk.MsgGameError, "conv-R1M1"), MatchID: "R1M1",
			ErrorCode: leaguesdk.CodeTimeout, ErrorName: "TIMEOUT_ERROR", Retryable: true, RetryCount: 1, MaxRetries: 3}},
		{leaguesdk.MethodNotifyLeagueCompleted, &leaguesdk.LeagueCompleted{Envelope: managerEnv(leaguesdk.MsgLeagueCompleted, playerToken),
			LeagueID: testLeague, TotalRounds: 3, TotalMatches: 6, Champion: &leaguesdk.Champion{PlayerID: "P01", Points: 9}, FinalStandings: table}},
		// After the league, the referee of R1M1 no longer gets the player's token.
		{leaguesdk.MethodNotifyGameError, &leaguesdk.GameError{Envelope: env(leaguesdk.MsgGameError, "conv-R1M1"), MatchID: "R1M1",
			ErrorCode: leaguesdk.CodeTimeout, ErrorName: "TIMEOUT_ERROR", Retryable: true, RetryCount: 2, MaxRetries: 3}},
	}
	over := false // whether the league is over
	for _, tc := range tests {
		var ack leaguesdk.Ack
		call(t, a, tc.method, tc.msg, &ack)
		// The ack carries the player's token to its manager (a message with
		// that token) and to the referee of an announced match (R1M1); a
		// broadcast with another token gets none.
		wantToken := playerToken
		if tok := tc.msg.Header().AuthToken; tok != playerToken && (tok != refereeToken || over) {
			wantToken = ""
		}
		over = over || tc.method == leaguesdk.MethodNotifyLeagueCompleted
		if ack.MessageType != leaguesdk.MsgAck || ack.Status != leaguesdk.AckOK || ack.Acknowledged != tc.msg.Header().MessageType ||
			ack.AuthToken != wantToken || ack.Sender != "player:P01" {
			t.Errorf("%s: ack = %+v", tc.method, ack)
		}
	}
	if _, tables := l.snapshot(); len(tables) != 2 || tables[0][0].PlayerID != "P01" {
		t.Fatalf("observed tables %+v, want the update and the final standings", tables)
	}
	// The announcement told the player its role and opponent in R1M1.
	st := playerState(t, a)
	i := slices.IndexFunc(st.Active, func(m map[string]any) bool { return m["match_id"] == "R1M1" })
	if i < 0 || st.Active[i]["role_in_match"] != "PLAYER_B" || st.Active[i]["opponent_id"] != "P02" || len(st.Active) != 1 {
		t.Fatalf("active matches after the announcement = %v", st.Active)
	}
}

func TestUnknownNotificationsAreAcknowledged(t *testing.T) {
	m := startManager(t, &testManager{})
	a := runAgent(t, player.Config{League: m.URL})
	weather := map[string]any{"protocol": "league.v2", "message_type": "WEATHER_REPORT", "sender": "league_manager",
		"timestamp": "2025-01-15T10:00:00Z", "conversation_id": "conv-w", "auth_token": playerToken}
	tests := []struct {
		name string
		body map[string]any
		tool bool
	}{
		{"unknown method with a message", request(1, "notify_weather", weather), false},
		{"message type as method", request("w", "WEATHER_REPORT", weather), false},
		{"generic method", request(0, "handle_message", map[string]any{"message": weather}), false},
		{"notify method without a message", request(2, "notify_tournament_start", map[string]any{}), false},
		{"tools/call of an unknown tool", request(3, "tools/call", map[string]any{"name": "notify_weather", "arguments": weather}), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := post(t, a.Endpoint(), tc.body)
			wantID, _ := json.Marshal(tc.body["id"])
			if r.Error != nil || string(r.ID) != string(wantID) {
				t.Fatalf("reply %s", r.Raw)
			}
			msg := r.Result
			if tc.tool {
				var tr struct {
					StructuredContent json.RawMessage `json:"structuredContent"`
				}
				_ = json.Unmarshal(r.Result, &tr)
				msg = tr.StructuredContent
			}
			var ack leaguesdk.Ack
			if err := json.Unmarshal(msg, &ack); err != nil {
				t.Fatal(err)
			}
			wantToken := playerToken // the weather report carries the player's token, as the manager's messages do
			if !strings.Contains(string(r.Raw), "WEATHER") {
				wantToken = ""
			}
			if err := leaguesdk.Validate(&ack); err != nil || ack.Status != leaguesdk.AckOK || ack.AuthToken != wantToken {
				t.Fatalf("ack %s: %v", msg, err)
			}
		})
	}
	// A JSON-RPC notification (no id) gets no body.
	r := post(t, a.Endpoint(), map[string]any{"jsonrpc": "2.0", "method": "notify_weather", "params": weather})
	if r.Status != http.StatusAccepted || len(r.Raw) != 0 {
		t.Fatalf("notification answered %d %s", r.Status, r.Raw)
	}
	// Unknown methods that are not notifications are still "method not found".
	r = post(t, a.Endpoint(), request(9, "server/discover", map[string]any{}))
	if r.Error == nil || r.Error.Code != leaguesdk.RPCMethodNotFound {
		t.Fatalf("server/discover answered %s", r.Raw)
	}
	// A known message that is invalid is refused with its catalog code.
	bad := invitation("R1M1", "P01", "P02", leaguesdk.PlayerA)
	bad.Protocol = "league.v1"
	r = post(t, a.Endpoint(), request(10, "handle_game_invitation", bad))
	if r.Error == nil || r.Error.Code != leaguesdk.RPCServerError {
		t.Fatalf("invalid invitation answered %s", r.Raw)
	}
}

type stateView struct {
	PlayerID   string           `json:"player_id"`
	Registered bool             `json:"registered"`
	State      player.State     `json:"state"`
	Stats      player.Stats     `json:"stats"`
	Active     []map[string]any `json:"active_matches"`
	Matches    []map[string]any `json:"matches"`
}

func playerState(t *testing.T, a *player.Agent) stateView {
	t.Helper()
	var v stateView
	if err := json.Unmarshal(playerStateRaw(t, a), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestGetPlayerState(t *testing.T) {
	m := startManager(t, &testManager{})
	a := runAgent(t, player.Config{League: m.URL})
	call(t, a, leaguesdk.MethodHandleGameInvitation, invitation("R1M2", "P01", "P03", leaguesdk.PlayerA), new(leaguesdk.GameJoinAck))
	call(t, a, leaguesdk.MethodNotifyMatchResult, gameOver("R1M1", "P02", 7, map[string]leaguesdk.Parity{"P01": "even", "P02": "odd"}), new(leaguesdk.Ack))
	st := playerState(t, a)
	if st.PlayerID != "P01" || !st.Registered || st.Stats.Losses != 1 || len(st.Matches) != 1 || len(st.Active) != 1 ||
		st.Active[0]["match_id"] != "R1M2" || st.Matches[0]["result"] != "LOSS" {
		t.Fatalf("state = %+v", st)
	}
}

func TestQueryHelpers(t *testing.T) {
	m := startManager(t, &testManager{})
	a := runAgent(t, player.Config{League: m.URL})
	ctx := context.Background()
	rows, err := a.Standings(ctx)
	if err != nil || len(rows) != 2 || rows[0].PlayerID != "P01" || rows[0].Points != 3 {
		t.Fatalf("Standings = %+v, %v", rows, err)
	}
	sched, err := a.Schedule(ctx)
	if err != nil || len(sched) != 2 || sched[0].MatchID != "R1M1" {
		t.Fatalf("Schedule = %+v, %v", sched, err)
	}
	// The test manager ignores the filter: the player keeps its own.
	mine, err := a.OwnMatches(ctx)
	if err != nil || len(mine) != 1 || mine[0].MatchID != "R1M1" {
		t.Fatalf("OwnMatches = %+v, %v", mine, err)
	}
	next, err := a.NextMatch(ctx)
	if err != nil || next == nil || next.OpponentID != "P02" {
		t.Fatalf("NextMatch = %+v, %v", next, err)
	}
	stats, err := a.Stats(ctx)
	if err != nil || stats.PlayerID != "P01" || stats.Points != 3 {
		t.Fatalf("Stats = %+v, %v", stats, err)
	}
	_, err = a.Query(ctx, "GET_WEATHER", nil)
	if leaguesdk.CodeOf(err) != leaguesdk.CodeMissingRequiredField {
		t.Fatalf("unsuccessful query: %v", err)
	}
	m.mu.Lock()
	qs := append([]leaguesdk.LeagueQuery(nil), m.queries...)
	m.mu.Unlock()
	for i, q := range qs {
		// The whole schedule (the second query) names no player; every
		// other query, OwnMatches' included, names this one.
		named := q.QueryParams != nil && q.QueryParams.PlayerID == "P01"
		if q.AuthToken != playerToken || q.Sender != "player:P01" || q.LeagueID != testLeague || named == (i == 1) {
			t.Fatalf("query %d sent = %+v", i, q)
		}
	}

	unregistered, err := player.New(player.Config{Name: "b", League: m.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unregistered.Standings(ctx); leaguesdk.CodeOf(err) != leaguesdk.CodePlayerNotRegistered {
		t.Fatalf("query before registration: %v", err)
	}
}

// mover plays a made-up game and, on request, answers nonsense.
type mover struct {
	player.Strategy
	answer string
}

func (m mover) Move(_ context.Context, c player.MoveCall) (string, error) {
	if m.answer == "" {
		return "", errors.New("no move")
	}
	return m.answer, nil
}

func moveCall(game string, options ...string) *leaguesdk.GameMoveCall {
	return &leaguesdk.GameMoveCall{Envelope: env(leaguesdk.MsgGameMoveCall, "conv-R1M1"), MatchID: "R1M1", PlayerID: "P01",
		GameType: game, MoveRequest: leaguesdk.MoveRequest{MoveType: "pick", ValidOptions: options},
		Deadline: time.Now().Add(2 * time.Second).UTC().Format(time.RFC3339Nano)}
}

func TestGenericMoveCall(t *testing.T) {
	m := startManager(t, &testManager{})
	tests := []struct {
		name     string
		strategy player.Strategy
		game     string
		options  []string
		want     []string // acceptable answers
	}{
		{"even/odd through the parity strategy", always(leaguesdk.Odd), leaguesdk.GameEvenOdd, []string{"even", "odd"}, []string{"odd"}},
		{"even/odd without options", always(leaguesdk.Even), leaguesdk.GameEvenOdd, nil, []string{"even"}},
		{"other game without a Mover", always(leaguesdk.Even), "rock_paper_scissors", []string{"rock", "paper", "scissors"},
			[]string{"rock", "paper", "scissors"}},
		{"Mover", mover{always(leaguesdk.Even), "paper"}, "rock_paper_scissors", []string{"rock", "paper", "scissors"}, []string{"paper"}},
		{"Mover answers outside the options", mover{always(leaguesdk.Even), "lizard"}, "rock_paper_scissors", []string{"rock", "paper"},
			[]string{"rock", "paper"}},
		{"Mover fails", mover{always(leaguesdk.Even), ""}, "rock_paper_scissors", []string{"rock"}, []string{"rock"}},
		{"Mover without options", mover{always(leaguesdk.Even), "42"}, "guess_number", nil, []string{"42"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := runAgent(t, player.Config{League: m.URL, Strategy: tc.strategy})
			announce(t, a, "R1M1")
			var resp leaguesdk.GameMoveResponse
			call(t, a, leaguesdk.MethodMakeMove, moveCall(tc.game, tc.options...), &resp)
			if !slices.Contains(tc.want, resp.MoveData.Choice) || resp.MessageType != leaguesdk.MsgGameMoveResponse ||
				resp.AuthToken != playerToken || resp.MatchID != "R1M1" {
				t.Fatalf("reply %+v, want a choice in %v", resp, tc.want)
			}
		})
	}
	a := runAgent(t, player.Config{League: m.URL})
	r := post(t, a.Endpoint(), request(1, leaguesdk.MethodMakeMove, moveCall("guess_number")))
	if r.Error == nil || r.Error.Code != leaguesdk.RPCServerError {
		t.Fatalf("a move with no options and no Mover answered %s", r.Raw)
	}
}

// history.json holds every acknowledged result once the player has
// acknowledged LEAGUE_COMPLETED from its manager; it is not rewritten at
// the end of a round (the results are in the journal), and a
// LEAGUE_COMPLETED without the player's token changes nothing, the file
// included.
func TestHistoryFileIsCurrentAtRest(t *testing.T) {
	m := startManager(t, &testManager{playerID: "P01"})
	data := t.TempDir()
	a := runAgent(t, player.Config{League: m.URL, DataRoot: data})
	count := func() int {
		t.Helper()
		var f struct {
			Matches []json.RawMessage `json:"matches"`
		}
		b, err := os.ReadFile(filepath.Join(data, "data", "players", testLeague, "P01", "history.json"))
		if err == nil {
			err = json.Unmarshal(b, &f)
		}
		if err != nil {
			t.Fatal(err)
		}
		return len(f.Matches)
	}
	var ack leaguesdk.Ack
	result := func(matchID string) {
		call(t, a, leaguesdk.MethodNotifyMatchResult, gameOver(matchID, "P01", 4, map[string]leaguesdk.Parity{"P01": leaguesdk.Even, "P02": leaguesdk.Odd}), &ack)
	}
	roundCompleted := func(token string, round int) {
		call(t, a, leaguesdk.MethodNotifyRoundCompleted, &leaguesdk.RoundCompleted{Envelope: managerEnv(leaguesdk.MsgRoundCompleted, token),
			LeagueID: testLeague, RoundID: leaguesdk.RoundID(round)}, &ack)
	}
	leagueCompleted := func(token string) {
		call(t, a, leaguesdk.MethodNotifyLeagueCompleted, &leaguesdk.LeagueCompleted{Envelope: managerEnv(leaguesdk.MsgLeagueCompleted, token),
			LeagueID: testLeague, TotalRounds: 3, TotalMatches: 6}, &ack)
	}

	result("R1M1")
	roundCompleted("", 1)
	roundCompleted("tok_someoneelse0000000000000000000", 1)
	roundCompleted(playerToken, 1)
	result("R2M1")
	result("R3M1")
	roundCompleted(playerToken, 3)
	leagueCompleted("")
	// Without file locks every result rewrites the file; with them, the
	// results wait in the journal until the league is at rest.
	if n := count(); n != 0 && filelock.Supported {
		t.Fatalf("history.json holds %d matches after the rounds and a forged LEAGUE_COMPLETED, want 0 (current at rest only)", n)
	}
	leagueCompleted(playerToken)
	if n := count(); n != 3 {
		t.Fatalf("history.json holds %d matches once LEAGUE_COMPLETED is acknowledged, want 3", n)
	}
}
