package player_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
)

// A round announcement carries the round's n/2 matches to each of the n
// players: the player decodes and checks the ones that name it only.
func TestRoundAnnouncementOnlyOwnMatchesDecoded(t *testing.T) {
	m := startManager(t, &testManager{})
	a := runAgent(t, player.Config{League: m.URL})

	matches := make([]json.RawMessage, 0, 500)
	for i := 1; i <= 500; i++ {
		var match string
		switch {
		case i == 250:
			match = `{"match_id":"R3M250","game_type":"even_odd","player_A_id":"P77","player_B_id":"player:P01","extra":[1,{"x":2}]}`
		case i%2 == 0:
			match = fmt.Sprintf(`{"match_id":%d,"player_A_id":{"id":"P%02d"}}`, i, i) // does not decode
		default:
			match = fmt.Sprintf(`{"match_id":"R3M%d","player_A_id":"P%d"}`, i, i+100) // fails validation
		}
		matches = append(matches, json.RawMessage(match))
	}
	round := managerMessage(leaguesdk.MsgRoundAnnouncement, "conv-round-3", map[string]any{"round_id": 3, "matches": matches})
	if r := post(t, a.Endpoint(), request(1, leaguesdk.MethodNotifyRound, round)); r.Error != nil {
		t.Fatalf("notify_round refused: %v", r.Error)
	}
	st := playerState(t, a)
	if len(st.Active) != 1 || st.Active[0]["match_id"] != "R3M250" || st.Active[0]["opponent_id"] != "P77" ||
		st.Active[0]["role_in_match"] != string(leaguesdk.PlayerB) || st.Active[0]["round_id"] != float64(3) {
		t.Fatalf("active matches after the announcement = %v, want R3M250 against P77 as PLAYER_B", st.Active)
	}

	// A match naming the player that does not validate refuses the
	// announcement, and says where.
	matches[99] = json.RawMessage(`{"match_id":"","game_type":"even_odd","player_A_id":"P01","player_B_id":"P02"}`)
	r := post(t, a.Endpoint(), request(2, leaguesdk.MethodNotifyRound, round))
	if r.Error == nil || !strings.Contains(string(r.Error.Data), "matches[99].match_id") {
		t.Fatalf("announcement with an invalid own match answered %+v, want an error naming matches[99].match_id", r.Error)
	}

	// Malformed JSON in the list is still a parse error.
	b, err := json.Marshal(request(3, leaguesdk.MethodNotifyRound, round))
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Replace(string(b), `"matches":[`, `"matches":[,`, 1)
	if r := post(t, a.Endpoint(), []byte(body)); r.Error == nil || r.Error.Code != leaguesdk.RPCParseError {
		t.Fatalf("malformed announcement answered %+v, want a parse error", r.Error)
	}
}
