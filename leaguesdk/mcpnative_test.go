package leaguesdk_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
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

// mcpNativePeer stands in for an agent of an MCP-native implementation:
// its server knows initialize, tools/list (names only) and tools/call,
// answers any other method -32601 "Method not found" and a tool it does
// not have -32603 "Unknown tool: <name>", and replies with the
// content-wrapped body of each tool.
func mcpNativePeer(t *testing.T, tools map[string]string) *countingPeer {
	t.Helper()
	return newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
		id, _ := json.Marshal(req["id"])
		fail := func(code int, msg string) {
			writeRaw(w, http.StatusOK, `{"jsonrpc":"2.0","id":`+string(id)+`,"error":{"code":`+strconv.Itoa(code)+`,"message":`+mustJSON(t, msg)+`}}`)
		}
		params, _ := req["params"].(map[string]any)
		switch req["method"] {
		case "initialize":
			writeRaw(w, http.StatusOK, resultBody(req, map[string]any{"protocolVersion": "2024-11-05", "capabilities": map[string]any{}}))
		case "tools/list":
			list := []map[string]string{}
			for name := range tools {
				list = append(list, map[string]string{"name": name})
			}
			writeRaw(w, http.StatusOK, resultBody(req, map[string]any{"tools": list}))
		case "tools/call":
			name, _ := params["name"].(string)
			body, ok := tools[name]
			if !ok {
				fail(-32603, "Unknown tool: "+name)
				return
			}
			writeRaw(w, http.StatusOK, resultBody(req, map[string]any{"content": []map[string]string{{"type": "text", "text": body}}}))
		default:
			fail(-32601, "Method not found")
		}
	})
}

// sequence returns the methods peer saw, in order, joined by commas.
func (p *countingPeer) sequence() string { return strings.Join(p.seenMethods(), ",") }

// TestClientLearnsPeerToolNames: a peer that refuses every form of a
// call, and says it has no tool of the spec name, has its tools/list read
// once; the message goes under the tool that lists it, a known name of
// another implementation or one holding the message's words, remembered
// for the endpoint. When no tool fits, the error kept is the peer's
// "Unknown tool", not the -32601 of the first form.
func TestClientLearnsPeerToolNames(t *testing.T) {
	ack := `{"status":"ACK","received":true}`
	peer := mcpNativePeer(t, map[string]string{
		"receive_game_invitation": `{"status":"ACK"}`,
		"receive_game_over":       ack,
		"notify_standings":        ack,
		"on_round_completed":      ack,
	})
	c := fastClient(t, leaguesdk.ClientConfig{})
	ctx := context.Background()
	inv := &leaguesdk.GameInvitation{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgGameInvitation, "referee:REF01", testToken, "", fixedNow),
		LeagueID: "league_x", RoundID: 1, MatchID: "R1M1", GameType: leaguesdk.GameEvenOdd, RoleInMatch: leaguesdk.PlayerA, OpponentID: "P02"}
	join, err := leaguesdk.CallWith[leaguesdk.GameJoinAck](ctx, c, peer.url, inv, leaguesdk.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if accept, ok, err := join.Answer(); !accept || !ok || err != nil {
		t.Fatalf(`{"status":"ACK"} read as %v, %v, %v; want an acceptance`, accept, ok, err)
	}
	want := "handle_game_invitation,GAME_INVITATION,handle_message,tools/call,tools/list,tools/call"
	if got := peer.sequence(); got != want {
		t.Fatalf("requests %s, want %s", got, want)
	}
	// The name is remembered: the next invitation goes straight to it.
	if _, err := leaguesdk.CallWith[leaguesdk.GameJoinAck](ctx, c, peer.url, inv, leaguesdk.CallOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := peer.sequence(); got != want+",tools/call" {
		t.Fatalf("requests %s, want one more tools/call", got)
	}
	// Another message: tools/call is the form now; refused under the spec
	// name, the other forms, then the listed tool (tools/list is not read
	// again). A name holding the message's words is found too.
	for _, tc := range []struct {
		method string
		msg    leaguesdk.Message
	}{
		{leaguesdk.MethodUpdateStandings, &leaguesdk.LeagueStandingsUpdate{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgLeagueStandingsUpdate, "league_manager", testToken, "", fixedNow),
			LeagueID: "league_x", RoundID: 1}},
		{leaguesdk.MethodNotifyRoundCompleted, &leaguesdk.RoundCompleted{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgRoundCompleted, "league_manager", testToken, "", fixedNow),
			LeagueID: "league_x", RoundID: 1}},
	} {
		before := peer.count()
		if _, err := leaguesdk.CallWith[leaguesdk.Ack](ctx, c, peer.url, tc.msg, leaguesdk.CallOptions{}); err != nil {
			t.Fatalf("%s: %v", tc.method, err)
		}
		got := strings.Join(peer.seenMethods()[before:], ",")
		if got != "tools/call,"+tc.method+","+string(tc.msg.Header().MessageType)+",handle_message,tools/call" {
			t.Fatalf("%s: requests %s", tc.method, got)
		}
	}
	// A message the peer has no tool for: the telling error is kept.
	before := peer.count()
	_, err = leaguesdk.CallWith[leaguesdk.Ack](ctx, c, peer.url, &leaguesdk.GameError{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgGameError, "referee:REF01", testToken, "", fixedNow), MatchID: "R1M1",
		ErrorCode: leaguesdk.CodeTimeout, ErrorName: leaguesdk.CodeTimeout.Name(), ErrorDescription: "late"}, leaguesdk.CallOptions{})
	if err == nil || !strings.Contains(err.Error(), "Unknown tool: notify_game_error") {
		t.Fatalf("error %v, want the peer's unknown tool", err)
	}
	if n := peer.count() - before; n != 4 {
		t.Fatalf("%d requests for a message no tool takes, want 4 (tools/list read once)", n)
	}
	if leaguesdk.BreakerState(c, peer.url) != "closed" {
		t.Fatal("refusals counted as failures")
	}
	// The same to a client that has not called the peer: the spec form's
	// -32601 comes first, the unknown tool last, and the latter is kept.
	fresh := fastClient(t, leaguesdk.ClientConfig{})
	_, err = leaguesdk.CallWith[leaguesdk.Ack](ctx, fresh, peer.url, &leaguesdk.GameError{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgGameError, "referee:REF01", testToken, "", fixedNow), MatchID: "R1M1",
		ErrorCode: leaguesdk.CodeTimeout, ErrorName: leaguesdk.CodeTimeout.Name(), ErrorDescription: "late"}, leaguesdk.CallOptions{})
	if err == nil || !strings.Contains(err.Error(), "Unknown tool: notify_game_error") || strings.Contains(err.Error(), "Method not found") {
		t.Fatalf("error %v, want the peer's unknown tool", err)
	}
}

// TestClientToolsListOnlyForUnknownTools: a peer that refuses tools/call
// itself (-32601 for every method) is not asked for its tools.
func TestClientToolsListOnlyForUnknownTools(t *testing.T) {
	peer := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
		id, _ := json.Marshal(req["id"])
		writeRaw(w, http.StatusOK, `{"jsonrpc":"2.0","id":`+string(id)+`,"error":{"code":-32601,"message":"Method not found"}}`)
	})
	c := fastClient(t, leaguesdk.ClientConfig{})
	if _, err := leaguesdk.CallWith[leaguesdk.ChooseParityResponse](context.Background(), c, peer.url, chooseParityCall(), leaguesdk.CallOptions{}); err == nil {
		t.Fatal("call succeeded")
	}
	if got := peer.sequence(); strings.Contains(got, "tools/list") {
		t.Fatalf("requests %s", got)
	}
}
