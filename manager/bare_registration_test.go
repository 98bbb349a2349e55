package manager_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentleague/league/leaguesdk"
)

// TestBareRegistrationThroughToolsCall: an MCP-native agent registers with
// tools/call and its *_meta alone, no envelope; the tool names the
// message, protocol_version stands for version, and the answer is a tool
// result. The same arguments sent in any other form are refused (E003), a
// bare registration that is invalid otherwise is refused as it would be
// with an envelope, and a too-old protocol_version is REJECTED.
func TestBareRegistrationThroughToolsCall(t *testing.T) {
	m := startManager(t, fastConfig(t, t.TempDir()))
	toolsCall := func(name string, args any) *rpcReply {
		return call(t, m.MCP, "tools/call", map[string]any{"name": name, "arguments": args})
	}
	read := func(r *rpcReply, v any) {
		t.Helper()
		var tr struct {
			Content []struct{ Type, Text string } `json:"content"`
		}
		if r.Error != nil || json.Unmarshal(r.Result, &tr) != nil || len(tr.Content) != 1 {
			t.Fatalf("reply %s, want a tool result", r.Raw)
		}
		if err := json.Unmarshal([]byte(tr.Content[0].Text), v); err != nil {
			t.Fatal(err)
		}
	}
	playerMeta := map[string]any{"protocol_version": "2.1.0", "display_name": "Bare Alpha",
		"game_types": []string{"even_odd"}, "contact_endpoint": "http://127.0.0.1:9/mcp"}
	var reg leaguesdk.LeagueRegisterResponse
	read(toolsCall(leaguesdk.MethodRegisterPlayer, map[string]any{"player_meta": playerMeta}), &reg)
	if reg.Status != leaguesdk.StatusAccepted || reg.PlayerID != "P01" || reg.AuthToken == "" ||
		reg.MessageType != leaguesdk.MsgLeagueRegisterResponse {
		t.Fatalf("player registration answered %+v", reg)
	}
	var ref leaguesdk.RefereeRegisterResponse
	read(toolsCall(leaguesdk.MethodRegisterReferee, map[string]any{"referee_meta": map[string]any{"protocol_version": "2.1.0",
		"display_name": "Bare Ref", "game_types": []string{"even_odd"}, "contact_endpoint": "http://127.0.0.1:10/mcp",
		"max_concurrent_matches": 1}}), &ref)
	if ref.Status != leaguesdk.StatusAccepted || ref.RefereeID != "REF01" || ref.AuthToken == "" {
		t.Fatalf("referee registration answered %+v", ref)
	}
	// A partial envelope (no conversation_id) is completed too; what is
	// there is kept.
	partial := map[string]any{"protocol": "league.v2", "message_type": "LEAGUE_REGISTER_REQUEST", "sender": "player:bare_beta",
		"timestamp": "2025-01-15T10:00:00Z", "player_meta": map[string]any{"display_name": "Bare Beta", "protocol_version": "2.1.0",
			"agent_version": "1.0.0", "game_types": []string{"even_odd"}, "contact_endpoint": "http://127.0.0.1:11/mcp"}}
	read(toolsCall(leaguesdk.MethodRegisterPlayer, partial), &reg)
	if reg.Status != leaguesdk.StatusAccepted || reg.PlayerID != "P02" {
		t.Fatalf("partial envelope answered %+v", reg)
	}

	// Strict everywhere else: the spec form, and a message type the tool
	// does not take.
	bare := map[string]any{"player_meta": map[string]any{"protocol_version": "2.1.0", "display_name": "Bare Gamma",
		"game_types": []string{"even_odd"}, "contact_endpoint": "http://127.0.0.1:12/mcp"}}
	if r := call(t, m.MCP, leaguesdk.MethodRegisterPlayer, bare); r.code() != leaguesdk.CodeMissingRequiredField {
		t.Fatalf("spec form without an envelope answered %s, want E003", r.Raw)
	}
	if r := call(t, m.MCP, "handle_message", map[string]any{"message": bare}); r.Error == nil {
		t.Fatalf("envelope form without an envelope answered %s", r.Raw)
	}
	// Present fields stay as they came: a wrong protocol is refused.
	wrong := map[string]any{"protocol": "league.v1", "player_meta": bare["player_meta"]}
	if r := toolsCall(leaguesdk.MethodRegisterPlayer, wrong); r.code() != leaguesdk.CodeProtocolVersionMismatch {
		t.Fatalf("league.v1 answered %s, want E018", r.Raw)
	}
	// Invalid in its own fields: refused as with an envelope.
	noEndpoint := map[string]any{"player_meta": map[string]any{"protocol_version": "2.1.0", "display_name": "Bare Delta",
		"game_types": []string{"even_odd"}}}
	if r := toolsCall(leaguesdk.MethodRegisterPlayer, noEndpoint); r.code() != leaguesdk.CodeMissingRequiredField ||
		!strings.Contains(string(r.Raw), "contact_endpoint") {
		t.Fatalf("registration without contact_endpoint answered %s", r.Raw)
	}
	old := map[string]any{"player_meta": map[string]any{"protocol_version": "1.0.0", "display_name": "Bare Old",
		"game_types": []string{"even_odd"}, "contact_endpoint": "http://127.0.0.1:13/mcp"}}
	read(toolsCall(leaguesdk.MethodRegisterPlayer, old), &reg)
	if reg.Status != leaguesdk.StatusRejected || !strings.Contains(string(reg.Reason), "E018") {
		t.Fatalf("protocol_version 1.0.0 answered %+v", reg)
	}
	if got := len(m.Snapshot().Standings); got != 2 {
		t.Fatalf("%d players registered, want 2", got)
	}
}
