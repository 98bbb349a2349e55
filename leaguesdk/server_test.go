package leaguesdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// testPeer is a player-like server with a choose_parity tool, a
// notify_match_result tool, and tools that misbehave on purpose.
type testPeer struct {
	ts       *httptest.Server
	srv      *leaguesdk.Server
	lastReq  atomic.Pointer[leaguesdk.Request]
	gameOver atomic.Int32
}

func newTestPeer(t *testing.T, cfg leaguesdk.ServerConfig) *testPeer {
	t.Helper()
	p := &testPeer{}
	if cfg.Sender == nil {
		cfg.Sender = func() string { return "player:P01" }
	}
	cfg.Now = func() time.Time { return fixedNow }
	p.srv = leaguesdk.NewServer(cfg)
	leaguesdk.Handle(p.srv, leaguesdk.Tool{Name: leaguesdk.MethodChooseParity, Aliases: []string{"parity_choose"}, Description: "Choose a parity."},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.ChooseParityCall) (*leaguesdk.ChooseParityResponse, error) {
			p.lastReq.Store(leaguesdk.RequestFrom(ctx))
			choice := leaguesdk.Even
			if in.Context.OpponentID == "P03" {
				choice = leaguesdk.Odd
			}
			return &leaguesdk.ChooseParityResponse{
				Envelope:     leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityResponse, "player:P01", testToken, in.ConversationID, fixedNow),
				MatchID:      in.MatchID,
				PlayerID:     "P01",
				ParityChoice: choice,
			}, nil
		})
	leaguesdk.Handle(p.srv, leaguesdk.Tool{Name: leaguesdk.MethodNotifyMatchResult},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.GameOver) (*leaguesdk.Ack, error) {
			p.lastReq.Store(leaguesdk.RequestFrom(ctx))
			p.gameOver.Add(1)
			return &leaguesdk.Ack{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgAck, "player:P01", testToken, in.ConversationID, fixedNow),
				Status: leaguesdk.AckOK, Acknowledged: leaguesdk.MsgGameOver, MatchID: in.MatchID}, nil
		})
	// A callback-style tool, to see alias normalisation of what it receives.
	leaguesdk.Handle(p.srv, leaguesdk.Tool{Name: leaguesdk.MethodChooseParityResponse, Public: true},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.ChooseParityResponse) (*leaguesdk.Ack, error) {
			return &leaguesdk.Ack{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgAck, "referee:REF01", testToken, in.ConversationID, fixedNow),
				Status: leaguesdk.AckStatus(in.ParityChoice)}, nil
		})
	type failIn struct {
		Mode string `json:"mode"`
	}
	leaguesdk.Handle(p.srv, leaguesdk.Tool{Name: "fail", Public: true},
		func(ctx context.Context, _ *leaguesdk.Request, in *failIn) (*leaguesdk.Ack, error) {
			switch in.Mode {
			case "panic":
				panic("handler bug")
			case "protocol":
				return nil, &leaguesdk.Error{Code: leaguesdk.CodeMatchNotFound, Message: "no match R9M9", Field: "match_id",
					Context: map[string]any{"match_id": "R9M9"}}
			case "rpc":
				return nil, &leaguesdk.RPCError{Code: -32099, Message: "custom"}
			case "nil":
				return nil, nil
			}
			return nil, errors.New("database on fire")
		})
	p.ts = httptest.NewServer(p.srv)
	t.Cleanup(p.ts.Close)
	return p
}

type rpcReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func post(t *testing.T, url, contentType string, body io.Reader) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Post(url, contentType, body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, raw
}

// rpc posts body to the peer's /mcp and decodes a JSON-RPC reply, checking
// the status and content type every reply must have.
func (p *testPeer) rpc(t *testing.T, body string) (rpcReply, []byte) {
	t.Helper()
	resp, raw := post(t, p.ts.URL+"/mcp", "application/json", strings.NewReader(body))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d for %s: %s", resp.StatusCode, body, raw)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("content type %q", ct)
	}
	var r rpcReply
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("reply %s: %v", raw, err)
	}
	if r.JSONRPC != "2.0" {
		t.Fatalf("reply without jsonrpc 2.0: %s", raw)
	}
	return r, raw
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestServerDispatchForms(t *testing.T) {
	p := newTestPeer(t, leaguesdk.ServerConfig{})
	call := mustJSON(t, chooseParityCall())
	gameOver := mustJSON(t, &leaguesdk.GameOver{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgGameOver, "referee:REF01", testToken, "conv-r1m1-001", fixedNow),
		MatchID:  "R1M1", GameType: leaguesdk.GameEvenOdd,
		GameResult: leaguesdk.GameResult{Status: leaguesdk.ResultWin, WinnerPlayerID: "P01", DrawnNumber: 8, NumberParity: leaguesdk.Even},
	})
	cases := []struct {
		name   string
		method string
		params string
		form   leaguesdk.WireForm
		tool   string
	}{
		{"spec method", "choose_parity", call, leaguesdk.FormSpec, "choose_parity"},
		{"spec method in other case", "Choose_Parity", call, leaguesdk.FormSpec, "choose_parity"},
		{"alias", "parity_choose", call, leaguesdk.FormSpec, "choose_parity"},
		{"method is the message type", "CHOOSE_PARITY_CALL", call, leaguesdk.FormMessageType, "choose_parity"},
		{"method is the lower-case message type", "choose_parity_call", call, leaguesdk.FormMessageType, "choose_parity"},
		{"generic method, flat params", "mcp_message", call, leaguesdk.FormEnvelope, "choose_parity"},
		{"params.message", "handle_message", `{"message":` + call + `}`, leaguesdk.FormEnvelope, "choose_parity"},
		{"params.arguments", "handle_message", `{"arguments":` + call + `}`, leaguesdk.FormEnvelope, "choose_parity"},
		{"params.payload", "mcp_message", `{"payload":` + call + `}`, leaguesdk.FormEnvelope, "choose_parity"},
		{"spec method with params.message", "choose_parity", `{"message":` + call + `}`, leaguesdk.FormEnvelope, "choose_parity"},
		{"message_type wins over a wrong method", "choose_parity", gameOver, leaguesdk.FormEnvelope, "notify_match_result"},
		{"game over by spec method", "notify_match_result", gameOver, leaguesdk.FormSpec, "notify_match_result"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p.lastReq.Store(nil)
			r, _ := p.rpc(t, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i+1)+`,"method":"`+tc.method+`","params":`+tc.params+`}`)
			if r.Error != nil {
				t.Fatalf("error %+v", r.Error)
			}
			if string(r.ID) != strconv.Itoa(i+1) {
				t.Fatalf("id %s", r.ID)
			}
			req := p.lastReq.Load()
			if req == nil || req.Form != tc.form || req.Tool != tc.tool || req.Method != tc.method || string(req.ID) != strconv.Itoa(i+1) || req.HTTP == nil {
				t.Fatalf("request seen by the handler: %+v, want form %s tool %s", req, tc.form, tc.tool)
			}
			if tc.tool == "choose_parity" {
				var resp leaguesdk.ChooseParityResponse
				if err := json.Unmarshal(r.Result, &resp); err != nil || resp.ParityChoice != leaguesdk.Even || resp.MatchID != "R1M1" {
					t.Fatalf("result %s (%v)", r.Result, err)
				}
				if err := leaguesdk.Validate(&resp); err != nil {
					t.Fatal(err)
				}
			} else {
				var ack leaguesdk.Ack
				if err := json.Unmarshal(r.Result, &ack); err != nil || ack.MessageType != leaguesdk.MsgAck || ack.MatchID != "R1M1" {
					t.Fatalf("result %s (%v)", r.Result, err)
				}
			}
		})
	}
	if leaguesdk.RequestFrom(context.Background()) != nil {
		t.Fatal("RequestFrom outside a handler")
	}
}

func TestServerToolsCall(t *testing.T) {
	p := newTestPeer(t, leaguesdk.ServerConfig{})
	call := mustJSON(t, chooseParityCall())
	r, _ := p.rpc(t, `{"jsonrpc":"2.0","id":"c-1","method":"tools/call","params":{"name":"choose_parity","arguments":`+call+`}}`)
	if r.Error != nil || string(r.ID) != `"c-1"` {
		t.Fatalf("reply %+v", r)
	}
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent leaguesdk.ChooseParityResponse `json:"structuredContent"`
		IsError           bool                           `json:"isError"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || res.Content[0].Type != "text" || res.IsError {
		t.Fatalf("content %+v", res)
	}
	var fromText leaguesdk.ChooseParityResponse
	if err := json.Unmarshal([]byte(res.Content[0].Text), &fromText); err != nil || fromText != res.StructuredContent {
		t.Fatalf("text %q vs structured %+v", res.Content[0].Text, res.StructuredContent)
	}
	if res.StructuredContent.ParityChoice != leaguesdk.Even || res.StructuredContent.MessageType != leaguesdk.MsgChooseParityResponse {
		t.Fatalf("structured %+v", res.StructuredContent)
	}
	if req := p.lastReq.Load(); req.Form != leaguesdk.FormToolsCall || req.Method != "tools/call" || req.Tool != "choose_parity" {
		t.Fatalf("request %+v", req)
	}
	// By alias, and with the message nested once more in arguments.message.
	r, _ = p.rpc(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"parity_choose","arguments":{"message":`+call+`}}}`)
	if r.Error != nil || !bytes.Contains(r.Result, []byte(`"structuredContent"`)) {
		t.Fatalf("alias tools/call: %+v %s", r.Error, r.Result)
	}
	for _, params := range []string{`{"name":"no_such_tool","arguments":{}}`, `{"arguments":` + call + `}`, `[1,2]`, `"x"`} {
		r, _ = p.rpc(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":`+params+`}`)
		if r.Error == nil || r.Error.Code != leaguesdk.RPCInvalidParams {
			t.Fatalf("tools/call %s: %+v", params, r)
		}
	}
}

func TestServerMCPLifecycle(t *testing.T) {
	p := newTestPeer(t, leaguesdk.ServerConfig{Name: "player-alpha", Version: "9.9.9"})
	for _, v := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "1999-01-01", ""} {
		r, _ := p.rpc(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+v+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		var res struct {
			ProtocolVersion string                    `json:"protocolVersion"`
			Capabilities    map[string]map[string]any `json:"capabilities"`
			ServerInfo      struct{ Name, Version string }
		}
		if r.Error != nil || json.Unmarshal(r.Result, &res) != nil {
			t.Fatalf("initialize %s: %+v", v, r)
		}
		want := v
		if v == "1999-01-01" || v == "" {
			want = "2025-11-25"
		}
		if res.ProtocolVersion != want || res.Capabilities["tools"] == nil || res.ServerInfo.Name != "player-alpha" || res.ServerInfo.Version != "9.9.9" {
			t.Fatalf("initialize %s: %s", v, r.Result)
		}
	}
	// notifications/initialized: HTTP 202, no body.
	resp, raw := post(t, p.ts.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if resp.StatusCode != http.StatusAccepted || len(raw) != 0 {
		t.Fatalf("notification: %d %q", resp.StatusCode, raw)
	}
	r, _ := p.rpc(t, `{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if r.Error != nil || string(r.Result) != `{}` {
		t.Fatalf("ping: %+v %s", r.Error, r.Result)
	}
	for _, m := range []string{"server/discover", "resources/list", "no_such_method"} {
		r, _ = p.rpc(t, `{"jsonrpc":"2.0","id":7,"method":"`+m+`","params":{}}`)
		if r.Error == nil || r.Error.Code != leaguesdk.RPCMethodNotFound || string(r.ID) != "7" {
			t.Fatalf("%s: %+v", m, r)
		}
	}
	r, _ = p.rpc(t, `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{}}`)
	var list struct {
		Tools []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			InputSchema struct {
				Type       string                     `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			} `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(r.Result, &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema.Type != "object" {
			t.Errorf("tool %s: schema type %q", tool.Name, tool.InputSchema.Type)
		}
	}
	if strings.Join(names, ",") != "choose_parity,notify_match_result,choose_parity_response,fail" {
		t.Fatalf("tools %v", names)
	}
	cp := list.Tools[0]
	if cp.Description != "Choose a parity." || cp.InputSchema.Properties["match_id"] == nil || cp.InputSchema.Properties["context"] == nil ||
		!strings.Contains(strings.Join(cp.InputSchema.Required, ","), "match_id") || !strings.Contains(strings.Join(cp.InputSchema.Required, ","), "protocol") {
		t.Fatalf("choose_parity schema: %+v", cp.InputSchema)
	}
	if got := p.srv.Tools(); len(got) != 4 || got[0].Name != "choose_parity" || got[0].Aliases[0] != "parity_choose" {
		t.Fatalf("Tools() = %+v", got)
	}
}

func TestServerIDsEchoedByteForByte(t *testing.T) {
	p := newTestPeer(t, leaguesdk.ServerConfig{})
	for _, id := range []string{`0`, `-7`, `1.5e3`, `12345678901234567890123`, `"abc"`, `""`, `"with \"quotes\" and \u00e9"`, `null`, `"<a&b>"`, `"é\u2028"`, "\"\u2028\""} {
		_, raw := p.rpc(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`)
		if !bytes.Contains(raw, []byte(`"id":`+id+`,`)) {
			t.Errorf("id %s not echoed: %s", id, raw)
		}
		_, raw = p.rpc(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"nope"}`)
		if !bytes.Contains(raw, []byte(`"id":`+id+`,`)) {
			t.Errorf("id %s not echoed in an error: %s", id, raw)
		}
	}
}

func TestServerJSONRPCErrors(t *testing.T) {
	p := newTestPeer(t, leaguesdk.ServerConfig{})
	cases := []struct {
		name string
		body string
		code int
		id   string
	}{
		{"not JSON", `{"jsonrpc":"2.0",`, leaguesdk.RPCParseError, "null"},
		{"empty body", ``, leaguesdk.RPCParseError, "null"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, leaguesdk.RPCInvalidRequest, "null"},
		{"bare string", `"ping"`, leaguesdk.RPCInvalidRequest, "null"},
		{"method not a string", `{"jsonrpc":"2.0","id":1,"method":5}`, leaguesdk.RPCInvalidRequest, "null"},
		{"no jsonrpc", `{"id":4,"method":"ping"}`, leaguesdk.RPCInvalidRequest, "4"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":4,"method":"ping"}`, leaguesdk.RPCInvalidRequest, "4"},
		{"no method", `{"jsonrpc":"2.0","id":5}`, leaguesdk.RPCInvalidRequest, "5"},
		{"empty method", `{"jsonrpc":"2.0","id":5,"method":""}`, leaguesdk.RPCInvalidRequest, "5"},
		{"unknown method", `{"jsonrpc":"2.0","id":6,"method":"launch_rockets","params":{}}`, leaguesdk.RPCMethodNotFound, "6"},
		{"unknown message type", `{"jsonrpc":"2.0","id":6,"method":"handle_message","params":{"message_type":"NOPE"}}`, leaguesdk.RPCMethodNotFound, "6"},
		{"handler error", `{"jsonrpc":"2.0","id":9,"method":"fail","params":{"mode":"plain"}}`, leaguesdk.RPCInternalError, "9"},
		{"handler returns nothing", `{"jsonrpc":"2.0","id":9,"method":"fail","params":{"mode":"nil"}}`, leaguesdk.RPCInternalError, "9"},
		{"handler rpc error", `{"jsonrpc":"2.0","id":9,"method":"fail","params":{"mode":"rpc"}}`, -32099, "9"},
		{"handler panic", `{"jsonrpc":"2.0","id":10,"method":"fail","params":{"mode":"panic"}}`, leaguesdk.RPCInternalError, "10"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, raw := p.rpc(t, tc.body)
			if r.Error == nil || r.Error.Code != tc.code || string(r.ID) != tc.id || r.Result != nil {
				t.Fatalf("want error %d id %s, got %s", tc.code, tc.id, raw)
			}
			if r.Error.Message == "" {
				t.Fatal("error without message")
			}
		})
	}
	if r, _ := p.rpc(t, `{"jsonrpc":"2.0","id":11,"method":"fail","params":{"mode":"plain"}}`); strings.Contains(r.Error.Message, "panic") {
		t.Fatalf("message %q", r.Error.Message)
	}
	// After a panic the server keeps serving.
	r, _ := p.rpc(t, `{"jsonrpc":"2.0","id":12,"method":"choose_parity","params":`+mustJSON(t, chooseParityCall())+`}`)
	if r.Error != nil {
		t.Fatalf("after panic: %+v", r.Error)
	}
}

// protocolError checks a -32000 reply and returns its data message.
func protocolError(t *testing.T, r rpcReply, code leaguesdk.Code) map[string]any {
	t.Helper()
	if r.Error == nil || r.Error.Code != leaguesdk.RPCServerError || r.Error.Message != code.Name() {
		t.Fatalf("want -32000 %s, got %+v", code.Name(), r.Error)
	}
	var data map[string]any
	if err := json.Unmarshal(r.Error.Data, &data); err != nil {
		t.Fatalf("data %s: %v", r.Error.Data, err)
	}
	if data["error_code"] != string(code) || data["error_name"] != code.Name() || data["retryable"] != code.Retryable() ||
		data["protocol"] != leaguesdk.Protocol || data["sender"] != "player:P01" || data["timestamp"] != "2025-01-15T10:15:05Z" ||
		data["error_description"] == "" {
		t.Fatalf("data %s", r.Error.Data)
	}
	msg := leaguesdk.NewMessage(leaguesdk.MessageType(data["message_type"].(string)))
	if err := json.Unmarshal(r.Error.Data, msg); err != nil {
		t.Fatal(err)
	}
	if err := leaguesdk.Validate(msg); err != nil {
		t.Fatalf("error message does not validate: %v", err)
	}
	return data
}

func TestServerProtocolErrors(t *testing.T) {
	authorized := atomic.Int32{}
	p := newTestPeer(t, leaguesdk.ServerConfig{
		Authorize: func(ctx context.Context, tool string, env *leaguesdk.Envelope) error {
			authorized.Add(1)
			if env.AuthToken == "" {
				return &leaguesdk.Error{Code: leaguesdk.CodeAuthTokenMissing, Field: "auth_token", Message: "no token"}
			}
			if env.AuthToken != testToken {
				return &leaguesdk.Error{Code: leaguesdk.CodeAuthTokenInvalid, Field: "auth_token", Message: "bad token"}
			}
			if tool == leaguesdk.MethodNotifyMatchResult {
				return errors.New("authorizer broken")
			}
			return nil
		},
	})
	send := func(method string, m any) rpcReply {
		r, _ := p.rpc(t, `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+mustJSON(t, m)+`}`)
		return r
	}
	cases := []struct {
		name   string
		mutate func(c *leaguesdk.ChooseParityCall)
		code   leaguesdk.Code
		field  string
	}{
		{"old protocol", func(c *leaguesdk.ChooseParityCall) { c.Protocol = "league.v1" }, leaguesdk.CodeProtocolVersionMismatch, "protocol"},
		{"timestamp at +02:00", func(c *leaguesdk.ChooseParityCall) { c.Timestamp = "2025-01-15T12:15:05+02:00" }, leaguesdk.CodeInvalidTimestamp, "timestamp"},
		{"timestamp without zone", func(c *leaguesdk.ChooseParityCall) { c.Timestamp = "2025-01-15T10:15:05" }, leaguesdk.CodeInvalidTimestamp, "timestamp"},
		{"missing match", func(c *leaguesdk.ChooseParityCall) { c.MatchID = "" }, leaguesdk.CodeMissingRequiredField, "match_id"},
		{"missing token", func(c *leaguesdk.ChooseParityCall) { c.AuthToken = "" }, leaguesdk.CodeAuthTokenMissing, "auth_token"},
		{"wrong token", func(c *leaguesdk.ChooseParityCall) { c.AuthToken = leaguesdk.NewToken() }, leaguesdk.CodeAuthTokenInvalid, "auth_token"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := chooseParityCall()
			tc.mutate(c)
			data := protocolError(t, send("choose_parity", c), tc.code)
			if data["message_type"] != string(leaguesdk.MsgLeagueError) || data["original_message_type"] != "CHOOSE_PARITY_CALL" {
				t.Fatalf("data %v", data)
			}
			if ctx, _ := data["context"].(map[string]any); ctx["field"] != tc.field {
				t.Fatalf("context %v", data["context"])
			}
		})
	}
	// Without message_type a call is still routed by its method, and then refused for the missing field.
	flat := strings.Replace(mustJSON(t, chooseParityCall()), `"message_type":"CHOOSE_PARITY_CALL",`, ``, 1)
	for _, method := range []string{"choose_parity", "CHOOSE_PARITY_CALL"} {
		r, _ := p.rpc(t, `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+flat+`}`)
		if data := protocolError(t, r, leaguesdk.CodeMissingRequiredField); data["context"].(map[string]any)["field"] != "message_type" {
			t.Fatalf("%s without message_type: %v", method, data)
		}
	}
	// Validation runs before Authorize: an invalid message never reaches it.
	before := authorized.Load()
	bad := chooseParityCall()
	bad.Protocol = "x"
	send("choose_parity", bad)
	if authorized.Load() != before {
		t.Fatal("Authorize called for an invalid message")
	}
	// A message that does not decode → E003.
	r, _ := p.rpc(t, `{"jsonrpc":"2.0","id":1,"method":"choose_parity","params":{"message_type":"CHOOSE_PARITY_CALL","match_id":42}}`)
	protocolError(t, r, leaguesdk.CodeMissingRequiredField)
	// A handler's *Error keeps its code and context.
	r, _ = p.rpc(t, `{"jsonrpc":"2.0","id":1,"method":"fail","params":{"mode":"protocol"}}`)
	data := protocolError(t, r, leaguesdk.CodeMatchNotFound)
	if ctx := data["context"].(map[string]any); ctx["match_id"] != "R9M9" || ctx["field"] != "match_id" {
		t.Fatalf("context %v", data["context"])
	}
	// Authorize failing with a plain error → -32603.
	r = send("notify_match_result", &leaguesdk.GameOver{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgGameOver, "referee:REF01", testToken, "c", fixedNow), MatchID: "R1M1",
		GameResult: leaguesdk.GameResult{Status: leaguesdk.ResultDraw}})
	if r.Error == nil || r.Error.Code != leaguesdk.RPCInternalError || p.gameOver.Load() != 0 {
		t.Fatalf("plain authorize error: %+v", r.Error)
	}
	// A Public tool skips Authorize.
	before = authorized.Load()
	resp := parityResponse()
	resp.AuthToken = ""
	if r = send("choose_parity_response", resp); r.Error != nil || authorized.Load() != before {
		t.Fatalf("public tool: %+v", r.Error)
	}
	// Through tools/call the same protocol error comes back.
	c := chooseParityCall()
	c.AuthToken = ""
	r, _ = p.rpc(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"choose_parity","arguments":`+mustJSON(t, c)+`}}`)
	protocolError(t, r, leaguesdk.CodeAuthTokenMissing)
}

func TestServerGameErrorType(t *testing.T) {
	p := newTestPeer(t, leaguesdk.ServerConfig{ErrorType: leaguesdk.MsgGameError})
	c := chooseParityCall()
	c.Timestamp = "yesterday"
	r, _ := p.rpc(t, `{"jsonrpc":"2.0","id":1,"method":"choose_parity","params":`+mustJSON(t, c)+`}`)
	data := protocolError(t, r, leaguesdk.CodeInvalidTimestamp)
	if data["message_type"] != string(leaguesdk.MsgGameError) {
		t.Fatalf("data %v", data)
	}
}

func TestServerAliasNormalisation(t *testing.T) {
	p := newTestPeer(t, leaguesdk.ServerConfig{})
	body := strings.Replace(mustJSON(t, parityResponse()), `"parity_choice"`, `"choice"`, 1)
	r, _ := p.rpc(t, `{"jsonrpc":"2.0","id":1,"method":"choose_parity_response","params":`+body+`}`)
	var ack leaguesdk.Ack
	if r.Error != nil || json.Unmarshal(r.Result, &ack) != nil || ack.Status != "even" {
		t.Fatalf("choice alias: %+v %s", r.Error, r.Result)
	}
	// The profile's name wins when both are present.
	body = strings.Replace(mustJSON(t, parityResponse()), `"parity_choice":"even"`, `"parity_choice":"odd","choice":"even"`, 1)
	r, _ = p.rpc(t, `{"jsonrpc":"2.0","id":1,"method":"choose_parity_response","params":`+body+`}`)
	if r.Error != nil || json.Unmarshal(r.Result, &ack) != nil || ack.Status != "odd" {
		t.Fatalf("both names: %+v %s", r.Error, r.Result)
	}
}

func TestServerNotification(t *testing.T) {
	p := newTestPeer(t, leaguesdk.ServerConfig{})
	over := &leaguesdk.GameOver{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgGameOver, "referee:REF01", testToken, "c", fixedNow), MatchID: "R1M1",
		GameResult: leaguesdk.GameResult{Status: leaguesdk.ResultDraw}}
	resp, raw := post(t, p.ts.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","method":"notify_match_result","params":`+mustJSON(t, over)+`}`))
	if resp.StatusCode != http.StatusAccepted || len(raw) != 0 {
		t.Fatalf("notification: %d %q", resp.StatusCode, raw)
	}
	if p.gameOver.Load() != 1 {
		t.Fatal("notification not delivered to its handler")
	}
	// A failing notification gets no body either.
	resp, raw = post(t, p.ts.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","method":"launch_rockets"}`))
	if resp.StatusCode != http.StatusAccepted || len(raw) != 0 {
		t.Fatalf("failing notification: %d %q", resp.StatusCode, raw)
	}
}

// chunkedReader hides its length, so the request is sent chunked.
type chunkedReader struct{ r io.Reader }

func (c chunkedReader) Read(b []byte) (int, error) { return c.r.Read(b) }

func TestServerBodyLimit(t *testing.T) {
	p := newTestPeer(t, leaguesdk.ServerConfig{MaxBodyBytes: 1024})
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 2048) + `"}}`
	for name, body := range map[string]io.Reader{"content-length": strings.NewReader(big), "chunked": chunkedReader{strings.NewReader(big)}} {
		resp, raw := post(t, p.ts.URL+"/mcp", "application/json", body)
		var r rpcReply
		if resp.StatusCode != http.StatusRequestEntityTooLarge || json.Unmarshal(raw, &r) != nil || r.Error == nil || r.Error.Code != leaguesdk.RPCInvalidRequest {
			t.Fatalf("%s: %d %s", name, resp.StatusCode, raw)
		}
	}
	// Just under the limit is served.
	small := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 900) + `"}}`
	if r, _ := p.rpc(t, small); r.Error != nil {
		t.Fatalf("small body: %+v", r.Error)
	}
	// The default limit is 1 MiB.
	d := newTestPeer(t, leaguesdk.ServerConfig{})
	huge := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", leaguesdk.DefaultMaxBodyBytes) + `"}}`
	if resp, _ := post(t, d.ts.URL+"/mcp", "application/json", strings.NewReader(huge)); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("default limit: %d", resp.StatusCode)
	}
}

func TestServerHTTPRoutes(t *testing.T) {
	p := newTestPeer(t, leaguesdk.ServerConfig{})
	resp, err := http.Get(p.ts.URL + "/health")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" ||
		strings.TrimSpace(string(raw)) != `{"agent":"player:P01","status":"healthy"}` {
		t.Fatalf("health: %d %s", resp.StatusCode, raw)
	}
	resp, err = http.Get(p.ts.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /mcp: %d %v %s", resp.StatusCode, resp.Header, raw)
	}
	for _, tc := range []struct {
		method, path string
		status       int
	}{
		{http.MethodPost, "/health", http.StatusMethodNotAllowed},
		{http.MethodHead, "/health", http.StatusOK},
		{http.MethodDelete, "/mcp", http.StatusMethodNotAllowed},
		{http.MethodPut, "/mcp", http.StatusMethodNotAllowed},
		{http.MethodGet, "/nowhere", http.StatusNotFound},
		{http.MethodGet, "/agents/p01/health", http.StatusOK},
	} {
		req, _ := http.NewRequest(tc.method, p.ts.URL+tc.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, resp.StatusCode, tc.status)
		}
	}
	// POST / and POST /mcp/ serve JSON-RPC too.
	for _, path := range []string{"/", "/mcp/"} {
		_, raw := post(t, p.ts.URL+path, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if !bytes.Contains(raw, []byte(`"result":{}`)) {
			t.Errorf("POST %s: %s", path, raw)
		}
	}
}

// checkedIn decodes itself, with encoding/json.
type checkedIn struct {
	leaguesdk.Envelope
	Mode string `json:"mode"`
}

func (c *checkedIn) UnmarshalJSON(b []byte) error {
	type plain checkedIn
	return json.Unmarshal(b, (*plain)(c))
}

// lenientIn decodes itself without checking: it reads anything, so the
// server must never hand it unchecked text.
type lenientIn struct {
	leaguesdk.Envelope
	Raw string
}

func (l *lenientIn) UnmarshalJSON(b []byte) error {
	l.MessageType, l.Raw = "TEST_LENIENT", string(b)
	return nil
}

// plainIn is decoded by encoding/json, which checks the text first.
type plainIn struct {
	leaguesdk.Envelope
	Mode string `json:"mode"`
}

// Whatever is wrong in a request's params, or after them, is answered as
// encoding/json reads the whole body, whichever decoder the tool has, and
// no handler sees it.
func TestServerMalformedParamsReachNoHandler(t *testing.T) {
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{})
	var served []string
	var mu sync.Mutex
	ack := func(tool, got string) (*leaguesdk.Ack, error) {
		mu.Lock()
		defer mu.Unlock()
		served = append(served, tool+":"+got)
		return &leaguesdk.Ack{Status: leaguesdk.AckOK}, nil
	}
	tool := func(name string) leaguesdk.Tool {
		return leaguesdk.Tool{Name: name, Public: true, NoValidate: true,
			MessageTypes: []leaguesdk.MessageType{leaguesdk.MessageType("TEST_" + strings.ToUpper(name))}}
	}
	leaguesdk.Handle(srv, tool("checked"),
		func(_ context.Context, _ *leaguesdk.Request, in *checkedIn) (*leaguesdk.Ack, error) {
			return ack("checked", in.Mode)
		})
	leaguesdk.Handle(srv, tool("lenient"),
		func(_ context.Context, _ *leaguesdk.Request, in *lenientIn) (*leaguesdk.Ack, error) {
			return ack("lenient", in.Raw)
		})
	leaguesdk.Handle(srv, tool("plain"),
		func(_ context.Context, _ *leaguesdk.Request, in *plainIn) (*leaguesdk.Ack, error) {
			return ack("plain", in.Mode)
		})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	p := &testPeer{ts: ts, srv: srv}

	for _, c := range []struct {
		body   string
		code   int    // 0: served
		served string // what the handler saw
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"checked","params":{"message_type":"TEST_CHECKED","mode":"a"}}`, 0, "checked:a"},
		{`{"jsonrpc":"2.0","id":1,"method":"plain","params":{"message_type":"TEST_PLAIN","mode":"b"} }` + "\n", 0, "plain:b"},
		{`{"jsonrpc":"2.0","id":1,"method":"lenient","params":{"mode":"c"}}`, 0, `lenient:{"mode":"c"}`},
		// What follows params decides: the last method, as encoding/json reads it.
		{`{"jsonrpc":"2.0","id":1,"method":"checked","params":{"message_type":"TEST_PLAIN","mode":"d"},"method":"plain"}`, 0, "plain:d"},
		{`{"jsonrpc":"2.0","id":1,"method":"lenient","params":{"mode":"e"},"id":2}`, 0, `lenient:{"mode":"e"}`},
		// Malformed in or after the params: a parse error, nothing served.
		{`{"jsonrpc":"2.0","id":1,"method":"checked","params":{"message_type":"TEST_CHECKED","mode":"x",]}}`, leaguesdk.RPCParseError, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"lenient","params":{"mode":"x",]}}`, leaguesdk.RPCParseError, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"plain","params":{"message_type":"TEST_PLAIN","mode":"x",]}}`, leaguesdk.RPCParseError, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"checked","params":{"message_type":"TEST_CHECKED","mode":"x"}} x`, leaguesdk.RPCParseError, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"lenient","params":{"mode":"x"}}}`, leaguesdk.RPCParseError, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"lenient","params":{"mode":"x"}`, leaguesdk.RPCParseError, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"mode":"x",]}}`, leaguesdk.RPCParseError, ""},
	} {
		mu.Lock()
		served = nil
		mu.Unlock()
		r, raw := p.rpc(t, c.body)
		mu.Lock()
		got := strings.Join(served, ",")
		mu.Unlock()
		if c.code == 0 && (r.Error != nil || got != c.served) || c.code != 0 && (r.Error == nil || r.Error.Code != c.code || got != "") {
			t.Errorf("%s\n  answered %s, served %q; want code %d, served %q", c.body, raw, got, c.code, c.served)
		}
	}
}
