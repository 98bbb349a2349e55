package playertest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player/playertest"
)

// mcpNativePlayer is a player of an MCP-native implementation: its server
// knows initialize, tools/list (names only) and tools/call; its tools have
// names of its own and reply with content-wrapped bodies; any other method
// is -32601, a tool it does not have -32603 "Unknown tool".
func mcpNativePlayer() http.Handler {
	ack := func(json.RawMessage) any { return map[string]any{"status": "ACK"} }
	tools := map[string]func(args json.RawMessage) any{
		"receive_game_invitation": ack,
		"choose_parity": func(args json.RawMessage) any {
			var c leaguesdk.ChooseParityCall
			_ = json.Unmarshal(args, &c)
			return map[string]any{"protocol": "league.v2", "message_type": "CHOOSE_PARITY_RESPONSE", "sender": "player:" + c.PlayerID,
				"timestamp": leaguesdk.FormatTime(time.Now()), "match_id": c.MatchID, "parity_choice": "even"}
		},
		"receive_game_over": func(json.RawMessage) any { return map[string]any{"status": "ACK", "received": true} },
		"notify_round":      ack,
		"notify_standings":  ack,
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"status":"healthy"}`))
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"params"`
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if len(req.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		resp := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		switch req.Method {
		case "initialize":
			resp["result"] = map[string]any{"protocolVersion": "2024-11-05", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]string{"name": "native"}}
		case "tools/list":
			var list []map[string]string
			for name := range tools {
				list = append(list, map[string]string{"name": name})
			}
			resp["result"] = map[string]any{"tools": list}
		case "tools/call":
			tool, ok := tools[req.Params.Name]
			if !ok {
				resp["error"] = map[string]any{"code": -32603, "message": "Unknown tool: " + req.Params.Name}
				break
			}
			text, _ := json.Marshal(tool(req.Params.Arguments))
			resp["result"] = map[string]any{"content": []map[string]string{{"type": "text", "text": string(text)}}}
		default:
			resp["error"] = map[string]any{"code": -32601, "message": "Method not found"}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	})
}

// TestMCPNativePlayerNamesAreWarnings: a player that serves the messages
// only as tools/call, under names of its own, plays with this project's
// referees: the kit finds its names in tools/list and reports each as a
// warning of the check that sent the message, and fails only what no
// referee of the project could read (a notification it has no tool for).
func TestMCPNativePlayerNamesAreWarnings(t *testing.T) {
	srv := serve(t, mcpNativePlayer())
	rep, err := playertest.Check(context.Background(), srv.URL+"/mcp", playertest.Options{Timeout: time.Second, ChoiceDeadline: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id   string
		want playertest.Status
		says string
	}{
		{"tool.handle_game_invitation.spec", playertest.Warn, "tools/call receive_game_invitation, a name of its own"},
		{"tool.choose_parity.spec", playertest.Warn, "only as tools/call choose_parity"},
		{"notify.notify_match_result", playertest.Warn, "tools/call receive_game_over"},
		{"notify.update_standings", playertest.Warn, "tools/call notify_standings"},
		{"notify.notify_round", playertest.Warn, "only as tools/call notify_round"},
		{"choice.parity", playertest.Pass, ""},
		{"timing.join_ack", playertest.Pass, ""},
		{"notify.notify_round_completed", playertest.Fail, "not acknowledged"},
	} {
		r, ok := rep.Find(tc.id)
		if !ok || r.Status != tc.want || !strings.Contains(r.Detail, tc.says) {
			t.Errorf("%s = %s %q, want %s saying %q", tc.id, r.Status, r.Detail, tc.want, tc.says)
		}
	}
	if r, _ := rep.Find("reply.shape"); strings.Contains(r.Detail, "wrapped in MCP content") ||
		!strings.Contains(r.Detail, `bare {"status":"ACK"}`) {
		t.Errorf("reply.shape = %s %q: a tools/call reply is wrapped as it should be, and the bare ACK is named", r.Status, r.Detail)
	}
}
