package player_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
)

// A player answers with its token only a caller that proved to be its
// manager, and the referee of a match the manager announced to it while
// that match runs. Anyone else — an invitation for a match never
// announced, a state query, an error — learns no token, and no choice of a
// match in progress.
func TestPlayerGivesItsTokenToNoStranger(t *testing.T) {
	m := startManager(t, &testManager{})
	a := runAgent(t, player.Config{League: m.URL, Strategy: always(leaguesdk.Odd)})
	stranger := []map[string]any{
		request(1, leaguesdk.MethodHandleGameInvitation, invitation("R9M9", "P01", "P02", leaguesdk.PlayerA)),
		request(2, leaguesdk.MethodChooseParity, parityCall("R9M9", "P01", "P02", 5*time.Second)),
		request(3, "tools/call", map[string]any{"name": leaguesdk.MethodChooseParity, "arguments": parityCall("R9M9", "P01", "P02", 5*time.Second)}),
		request(4, leaguesdk.MethodNotifyMatchResult, gameOver("R9M9", "P01", 3, nil)),
		request(5, leaguesdk.MethodGetPlayerState, map[string]any{}),
		request(6, leaguesdk.MethodNotifyRoundCompleted, map[string]any{"protocol": "league.v2", "message_type": "ROUND_COMPLETED",
			"sender": "league_manager", "timestamp": "2025-01-15T10:00:00Z", "conversation_id": "c", "auth_token": "", "league_id": testLeague, "round_id": 1}),
		request(7, leaguesdk.MethodHandleGameInvitation, map[string]any{"protocol": "league.v1"}),
		request(8, "notify_weather", map[string]any{"message_type": "WEATHER", "sender": "league_manager"}),
	}
	for _, body := range stranger {
		r := post(t, a.Endpoint(), body)
		if strings.Contains(string(r.Raw), playerToken) {
			t.Errorf("%v answered with the player's token: %s", body["method"], r.Raw)
		}
	}

	// The match in progress: announced, invited and chosen; a stranger's
	// state query does not see the choice, the manager's does.
	announce(t, a, "R1M1")
	var ack leaguesdk.GameJoinAck
	call(t, a, leaguesdk.MethodHandleGameInvitation, invitation("R1M1", "P01", "P02", leaguesdk.PlayerA), &ack)
	var resp leaguesdk.ChooseParityResponse
	call(t, a, leaguesdk.MethodChooseParity, parityCall("R1M1", "P01", "P02", 5*time.Second), &resp)
	if ack.AuthToken != playerToken || resp.AuthToken != playerToken {
		t.Fatalf("the referee of an announced match got tokens %q and %q", ack.AuthToken, resp.AuthToken)
	}
	choiceSeen := func(params map[string]any) (bool, string) {
		r := post(t, a.Endpoint(), request(9, leaguesdk.MethodGetPlayerState, params))
		var sr leaguesdk.StateResponse
		if err := json.Unmarshal(r.Result, &sr); err != nil {
			t.Fatalf("state: %s", r.Raw)
		}
		var st struct {
			Active []map[string]any `json:"active_matches"`
		}
		_ = json.Unmarshal(sr.State, &st)
		for _, m := range st.Active {
			if m["match_id"] == "R1M1" && m["my_choice"] == "odd" {
				return true, sr.AuthToken
			}
		}
		return false, sr.AuthToken
	}
	if seen, tok := choiceSeen(map[string]any{}); seen || tok != "" {
		t.Errorf("a stranger's state query: choice seen %v, token %q", seen, tok)
	}
	if seen, tok := choiceSeen(map[string]any{"auth_token": playerToken}); !seen || tok != playerToken {
		t.Errorf("the manager's state query: choice seen %v, token %q", seen, tok)
	}
	// Once the match is over, a call about it gets no token either.
	call(t, a, leaguesdk.MethodNotifyMatchResult, gameOver("R1M1", "P01", 3, map[string]leaguesdk.Parity{"P01": "odd", "P02": "odd"}), new(leaguesdk.Ack))
	call(t, a, leaguesdk.MethodChooseParity, parityCall("R1M1", "P01", "P02", 5*time.Second), &resp)
	if resp.AuthToken != "" {
		t.Errorf("a call about a finished match got the token %q", resp.AuthToken)
	}
}
