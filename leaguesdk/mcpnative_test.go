package leaguesdk_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentleague/league/leaguesdk"
)

// toolResultMessage returns the message of a tool result as a caller that
// reads only content[0].text finds it.
func toolResultMessage(t *testing.T, result json.RawMessage) map[string]any {
	t.Helper()
	var tr struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(result, &tr); err != nil || len(tr.Content) != 1 || tr.Content[0].Type != "text" {
		t.Fatalf("result %s is not a tool result with one text content", result)
	}
	var msg map[string]any
	if err := json.Unmarshal([]byte(tr.Content[0].Text), &msg); err != nil {
		t.Fatalf("content text %q: %v", tr.Content[0].Text, err)
	}
	return msg
}

// TestServerToolsCallRoutedByMessage: a tools/call under a name the server
// does not have is routed by the message its arguments carry, and the
// names of an MCP-native implementation are answered as their messages;
// the reply is a tool result.
func TestServerToolsCallRoutedByMessage(t *testing.T) {
	p := newTestPeer(t, leaguesdk.ServerConfig{})
	over := mustJSON(t, &leaguesdk.GameOver{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgGameOver, "referee:REF01", testToken, "conv-1", fixedNow),
		MatchID:  "R1M1", GameType: leaguesdk.GameEvenOdd,
		GameResult: leaguesdk.GameResult{Status: leaguesdk.ResultDraw, DrawnNumber: 4, NumberParity: leaguesdk.Even,
			Choices: map[string]leaguesdk.Parity{"P01": leaguesdk.Even, "P02": leaguesdk.Even}, Reason: "both chose even"},
	})
	call := mustJSON(t, chooseParityCall())
	for i, tc := range []struct {
		name, arguments, tool, reply string
	}{
		{"receive_game_over", over, leaguesdk.MethodNotifyMatchResult, string(leaguesdk.MsgAck)},
		{"Receive_Game_Over", `{"message":` + over + `}`, leaguesdk.MethodNotifyMatchResult, string(leaguesdk.MsgAck)},
		{"what_do_you_choose", call, leaguesdk.MethodChooseParity, string(leaguesdk.MsgChooseParityResponse)},
		{"notify_match_result", call, leaguesdk.MethodChooseParity, string(leaguesdk.MsgChooseParityResponse)},
		{"game_over", over, leaguesdk.MethodNotifyMatchResult, string(leaguesdk.MsgAck)},
	} {
		before := p.gameOver.Load()
		r, raw := p.rpc(t, `{"jsonrpc":"2.0","id":`+mustJSON(t, i)+`,"method":"tools/call","params":{"name":"`+tc.name+`","arguments":`+tc.arguments+`}}`)
		if r.Error != nil {
			t.Fatalf("tools/call %s: %s", tc.name, raw)
		}
		if got := toolResultMessage(t, r.Result); got["message_type"] != tc.reply {
			t.Fatalf("tools/call %s answered %v, want %s", tc.name, got, tc.reply)
		}
		req := p.lastReq.Load()
		if req.Tool != tc.tool || req.Form != leaguesdk.FormToolsCall || req.Method != "tools/call" {
			t.Fatalf("tools/call %s reached %q as %v", tc.name, req.Tool, req.Form)
		}
		if tc.tool == leaguesdk.MethodNotifyMatchResult && p.gameOver.Load() != before+1 {
			t.Fatalf("tools/call %s: GAME_OVER not handled", tc.name)
		}
	}
	// A foreign name with a message of another type no tool takes, or no
	// message and a name nobody has: unknown tool.
	for _, params := range []string{
		`{"name":"receive_game_over","arguments":{"message_type":"WEATHER_REPORT"}}`,
		`{"name":"receive_game_invitation","arguments":{}}`,
	} {
		r, raw := p.rpc(t, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":`+params+`}`)
		if r.Error == nil || r.Error.Code != leaguesdk.RPCInvalidParams || !strings.Contains(r.Error.Message, "unknown tool") {
			t.Fatalf("tools/call %s answered %s, want unknown tool", params, raw)
		}
	}
}
