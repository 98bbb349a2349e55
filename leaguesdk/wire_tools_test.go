package leaguesdk

import (
	"encoding/json"
	"testing"
)

// TestRouteTool checks the tool a tools/call is routed to: by the message
// its arguments carry, with the name as a hint.
func TestRouteTool(t *testing.T) {
	tools := table{"choose_parity": {"CHOOSE_PARITY_CALL"}, "notify_match_result": {"GAME_OVER"},
		"handle_game_invitation": {"GAME_INVITATION"}, "update_standings": {"LEAGUE_STANDINGS_UPDATE"}}
	tests := []struct {
		name, arguments, tool string
	}{
		{"choose_parity", `{"message_type":"CHOOSE_PARITY_CALL"}`, "choose_parity"},
		{"choose_parity", `{}`, "choose_parity"},
		{"choose_parity", `{"message_type":"WEATHER_REPORT"}`, "choose_parity"},
		{"choose_parity", `{"message_type":"GAME_OVER"}`, "notify_match_result"},
		{"receive_game_invitation", `{"message_type":"GAME_INVITATION"}`, "handle_game_invitation"},
		{"receive_game_invitation", `{}`, "handle_game_invitation"},
		{"Receive_Game_Over", `{"message_type":"GAME_OVER"}`, "notify_match_result"},
		{"receive_game_over", `{"message":{"message_type":"GAME_OVER"}}`, "notify_match_result"},
		{"notify_standings", `{"message_type":"LEAGUE_STANDINGS_UPDATE"}`, "update_standings"},
		{"notify_standings", `{}`, "update_standings"},
		{"anything_at_all", `{"message_type":"GAME_INVITATION"}`, "handle_game_invitation"},
		{"game_over", `{}`, "notify_match_result"},
		{"receive_game_invitation", `{"message_type":"WEATHER_REPORT"}`, ""},
		{"no_such_tool", `{}`, ""},
	}
	s := tools.server()
	for _, tc := range tests {
		c, bad := locateCall("tools/call", json.RawMessage(`{"name":"`+tc.name+`","arguments":`+tc.arguments+`}`))
		if bad != nil {
			t.Fatal(bad)
		}
		tool := ""
		if rt := s.routeTool(&c); rt != nil {
			tool = rt.tool.Name
		}
		if tool != tc.tool || c.Form != FormToolsCall {
			t.Errorf("tools/call %s %s: routed to %q as %v, want %q", tc.name, tc.arguments, tool, c.Form, tc.tool)
		}
	}
}

// TestToolFor checks which of a peer's tools a message is sent under.
func TestToolFor(t *testing.T) {
	listed := []string{"register_player", "receive_game_invitation", "choose_parity", "receive_game_over",
		"notify_round", "notify_standings", "on_round_completed", "on_league_completed", "game_invitation_v2_extended"}
	tests := []struct {
		method, messageType, want string
	}{
		{"handle_game_invitation", "GAME_INVITATION", "receive_game_invitation"},
		{"notify_match_result", "GAME_OVER", "receive_game_over"},
		{"update_standings", "LEAGUE_STANDINGS_UPDATE", "notify_standings"},
		{"notify_round_completed", "ROUND_COMPLETED", "on_round_completed"},
		{"notify_league_completed", "LEAGUE_COMPLETED", "on_league_completed"},
		{"choose_parity", "CHOOSE_PARITY_CALL", ""}, // the peer's only fit is the name it refused
		{"notify_game_error", "GAME_ERROR", ""},
		{"notify_round", "", ""},
	}
	for _, tc := range tests {
		if got := toolFor(listed, tc.method, tc.messageType); got != tc.want {
			t.Errorf("toolFor(%s, %s) = %q, want %q", tc.method, tc.messageType, got, tc.want)
		}
	}
	// The shortest of the names that hold the message's words.
	if got := toolFor([]string{"game_invitation_handler_v2", "on_game_invitation"}, "handle_game_invitation", "GAME_INVITATION"); got != "on_game_invitation" {
		t.Errorf("picked %q", got)
	}
}

func TestToolUnknown(t *testing.T) {
	for msg, want := range map[string]bool{
		"Unknown tool: receive_game_invitation": true,
		`unknown tool "choose_parity"`:          true,
		"Tool choose_parity not found":          true,
		"no such tool":                          true,
		"Method not found":                      false,
		"method tools/call not found":           false,
		"Missing required fields":               false,
	} {
		if got := toolUnknown(msg); got != want {
			t.Errorf("toolUnknown(%q) = %v, want %v", msg, got, want)
		}
	}
}
