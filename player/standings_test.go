package player_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
)

// A 1000-row LEAGUE_STANDINGS_UPDATE is accepted with only the player's
// own row decoded: the other rows, however odd (a rank as a string, points
// as an object, unknown fields, a row that is no object at all), neither
// refuse the message nor reach the player's row. A StandingsObserver gets
// the rows that decode.
func TestStandingsOnlyOwnRowDecoded(t *testing.T) {
	m := startManager(t, &testManager{})
	l := &learner{Strategy: always(leaguesdk.Even)}
	a := runAgent(t, player.Config{League: m.URL, Strategy: l})

	rows := make([]json.RawMessage, 0, 1000)
	for i := 1; i <= 1000; i++ {
		id := fmt.Sprintf("P%02d", i)
		var row string
		switch {
		case id == "P01":
			row = `{"rank":17,"player_id":"P01","display_name":"me","played":9,"wins":5,"draws":2,"losses":2,"points":17,"extra":{"x":[1,2]}}`
		case i%3 == 0:
			row = fmt.Sprintf(`{"rank":"%d","player_id":%q,"points":{"total":3}}`, i, id) // does not decode
		case i%3 == 1:
			row = fmt.Sprintf(`%d`, i) // not a row at all
		default:
			row = fmt.Sprintf(`{"rank":%d,"player_id":%q,"played":9,"points":3,"league_extension":"P01"}`, i, id)
		}
		rows = append(rows, json.RawMessage(row))
	}
	update := map[string]any{
		"protocol": leaguesdk.Protocol, "message_type": leaguesdk.MsgLeagueStandingsUpdate, "sender": leaguesdk.LeagueManagerSender,
		"timestamp": leaguesdk.FormatTime(time.Now()), "conversation_id": "conv-standings", "auth_token": playerToken,
		"league_id": testLeague, "round_id": 3, "standings": rows,
	}
	r := post(t, a.Endpoint(), request(1, leaguesdk.MethodUpdateStandings, update))
	if r.Error != nil {
		t.Fatalf("update_standings refused: %v", r.Error)
	}
	var ack leaguesdk.Ack
	if err := json.Unmarshal(r.Result, &ack); err != nil || ack.MessageType != leaguesdk.MsgAck {
		t.Fatalf("reply %s: %v", r.Result, err)
	}

	var st struct {
		Standings  []leaguesdk.StandingRow `json:"standings"`
		MyStanding *leaguesdk.StandingRow  `json:"my_standing"`
	}
	raw := playerStateRaw(t, a)
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	want := leaguesdk.StandingRow{Rank: 17, PlayerID: "P01", DisplayName: "me", Played: 9, Wins: 5, Draws: 2, Losses: 2, Points: 17}
	if st.MyStanding == nil || *st.MyStanding != want {
		t.Fatalf("my_standing = %+v, want %+v", st.MyStanding, want)
	}
	// P01 and the 333 plain rows (i%3 == 2) decode; the rest are left out.
	if len(st.Standings) != 334 {
		t.Fatalf("state has %d decodable rows, want 334", len(st.Standings))
	}
	_, tables := l.snapshot()
	if len(tables) != 1 || len(tables[0]) != 334 || tables[0][0] != want {
		t.Fatalf("observed %d tables, want one of 334 rows starting with %+v", len(tables), want)
	}

	// The standings in null or in another shape are an empty table, not a refusal.
	for _, odd := range []any{nil, map[string]any{"P01": 3}, "none"} {
		update["standings"] = odd
		if r := post(t, a.Endpoint(), request(2, leaguesdk.MethodUpdateStandings, update)); r.Error != nil {
			t.Fatalf("standings %v refused: %v", odd, r.Error)
		}
	}
	// So are a round announcement's matches.
	for _, odd := range []any{nil, map[string]any{"R1M1": 3}, "none"} {
		ra := managerMessage(leaguesdk.MsgRoundAnnouncement, "conv-round", map[string]any{"round_id": 4, "matches": odd})
		if r := post(t, a.Endpoint(), request(4, leaguesdk.MethodNotifyRound, ra)); r.Error != nil || r.Result == nil {
			t.Fatalf("matches %v refused: %v", odd, r.Error)
		}
	}
	// The envelope is still checked.
	delete(update, "league_id")
	if r := post(t, a.Endpoint(), request(3, leaguesdk.MethodUpdateStandings, update)); r.Error == nil {
		t.Fatal("an update without league_id was accepted")
	}
}

// playerStateRaw returns the state object of get_player_state.
func playerStateRaw(t *testing.T, a *player.Agent) json.RawMessage {
	t.Helper()
	r := post(t, a.Endpoint(), request(1, leaguesdk.MethodGetPlayerState, map[string]any{"auth_token": playerToken}))
	if r.Error != nil {
		t.Fatalf("get_player_state: %v", r.Error)
	}
	var resp leaguesdk.StateResponse
	if err := json.Unmarshal(r.Result, &resp); err != nil {
		t.Fatal(err)
	}
	if resp.MessageType != leaguesdk.MsgStateResponse || resp.AuthToken != playerToken {
		t.Fatalf("state reply %s", r.Result)
	}
	return resp.State
}

// The standings table the player keeps stays as it came while later
// messages arrive: the server reuses the buffers bodies are read into, so
// the player keeps a copy of the table rather than a part of a message.
func TestStandingsKeptPastLaterMessages(t *testing.T) {
	m := startManager(t, &testManager{})
	a := runAgent(t, player.Config{League: m.URL, Strategy: always(leaguesdk.Even)})

	var want []leaguesdk.StandingRow
	for i := 1; i <= 200; i++ {
		want = append(want, leaguesdk.StandingRow{Rank: i, PlayerID: fmt.Sprintf("P%03d", i), Played: 9, Wins: i % 10, Points: 300 - i})
	}
	update := managerMessage(leaguesdk.MsgLeagueStandingsUpdate, "conv-standings", map[string]any{"round_id": 3, "standings": want})
	if r := post(t, a.Endpoint(), request(1, leaguesdk.MethodUpdateStandings, update)); r.Error != nil {
		t.Fatalf("update_standings refused: %v", r.Error)
	}
	// Smaller announcements, whose bodies fit in the buffer the table came
	// in and take it back, as their rows take the offsets of its rows.
	var matches []leaguesdk.ScheduledMatch
	for i := 1; i <= 50; i++ {
		matches = append(matches, leaguesdk.ScheduledMatch{MatchID: fmt.Sprintf("R4M%d", i), GameType: "even_odd",
			PlayerAID: fmt.Sprintf("X%03d", i), PlayerBID: fmt.Sprintf("Y%03d", i)})
	}
	for i := range 20 {
		round := managerMessage(leaguesdk.MsgRoundAnnouncement, "conv-round-4", map[string]any{"round_id": 4, "matches": matches})
		if r := post(t, a.Endpoint(), request(2+i, leaguesdk.MethodNotifyRound, round)); r.Error != nil {
			t.Fatalf("notify_round refused: %v", r.Error)
		}
	}
	var st struct {
		Standings []leaguesdk.StandingRow `json:"standings"`
	}
	if err := json.Unmarshal(playerStateRaw(t, a), &st); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(st.Standings, want) {
		t.Fatalf("the kept table changed: %d rows, first %+v", len(st.Standings), st.Standings[:min(1, len(st.Standings))])
	}
}
