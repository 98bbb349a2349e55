package leaguesdk

import (
	"encoding/json"
	"testing"

	wirejson "github.com/agentleague/league/internal/json"
)

// TestLocate checks where a server finds the message of a request.
func TestLocate(t *testing.T) {
	msg := `{"message_type":"GAME_OVER","match_id":"R1M1"}`
	tests := []struct {
		name, method, params string
		wantType, wantMsg    string
		wantTool             string
	}{
		{"flat", "notify_match_result", msg, "GAME_OVER", msg, ""},
		{"params.message", "handle_message", `{"message":` + msg + `}`, "GAME_OVER", msg, ""},
		{"params.arguments", "handle_message", `{"arguments":` + msg + `}`, "GAME_OVER", msg, ""},
		{"params.payload", "handle_message", `{"payload":` + msg + `}`, "GAME_OVER", msg, ""},
		{"no message", "x", `{"name":"x"}`, "", `{"name":"x"}`, ""},
		{"not an object", "x", `[1]`, "", `[1]`, ""},
		{"tools/call", "tools/call", `{"name":"notify_match_result","arguments":` + msg + `}`, "GAME_OVER", msg, "notify_match_result"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, bad := locateCall(tc.method, json.RawMessage(tc.params))
			if bad != nil || c.MessageType != tc.wantType || string(c.Message) != tc.wantMsg || c.Tool != tc.wantTool {
				t.Fatalf("Locate = %+v, %v", c, bad)
			}
		})
	}
	if _, bad := locateCall("tools/call", json.RawMessage(`{"arguments":{}}`)); bad == nil || bad.Code != codeInvalidParams {
		t.Fatalf("tools/call without a name: %v", bad)
	}
}

// table is a route table of three tools for TestRoute.
type table map[string][]string // tool → message types

// server returns a Server whose tools are t's, for routing only.
func (t table) server() *Server {
	s := &Server{byName: map[string]*route{}, byType: map[MessageType]*route{}}
	for name, types := range t {
		rt := &route{tool: Tool{Name: name}, types: map[MessageType]bool{}}
		for _, mt := range types {
			rt.types[MessageType(mt)] = true
			s.byType[MessageType(mt)] = rt
		}
		s.byName[name] = rt
	}
	return s
}

// TestRoute checks the tool and the form Route gives each request.
func TestRoute(t *testing.T) {
	tools := table{"choose_parity": {"CHOOSE_PARITY_CALL"}, "notify_match_result": {"GAME_OVER"}}
	call := `{"message_type":"CHOOSE_PARITY_CALL"}`
	tests := []struct {
		method, params, tool string
		form                 WireForm
	}{
		{"choose_parity", call, "choose_parity", FormSpec},
		{"Choose_Parity", call, "choose_parity", FormSpec},
		{"CHOOSE_PARITY_CALL", call, "choose_parity", FormMessageType},
		{"choose_parity_call", call, "choose_parity", FormMessageType},
		{"mcp_message", call, "choose_parity", FormEnvelope},
		{"handle_message", `{"message":` + call + `}`, "choose_parity", FormEnvelope},
		{"choose_parity", `{"message":` + call + `}`, "choose_parity", FormEnvelope},
		{"choose_parity", `{"message_type":"GAME_OVER"}`, "notify_match_result", FormEnvelope},
		{"game_over", `{}`, "notify_match_result", FormMessageType},
		{"unknown", `{}`, "", FormSpec},
	}
	for _, tc := range tests {
		c, _ := locateCall(tc.method, json.RawMessage(tc.params))
		tool, ok := "", false
		if rt := tools.server().routeCall(tc.method, &c); rt != nil {
			tool, ok = rt.tool.Name, true
		}
		if tool != tc.tool || ok != (tc.tool != "") || ok && c.Form != tc.form {
			t.Errorf("%s %s: routed to %q (%v) as %v, want %q as %v", tc.method, tc.params, tool, ok, c.Form, tc.tool, tc.form)
		}
	}
}

// TestDialects: a match opened in the lower-case dialect is answered flat
// until its GAME_OVER; other callers are not.
func TestDialects(t *testing.T) {
	var d dialectMemory
	if !d.Flat(FormMessageType, "game_invitation", "R1M1", true, false) {
		t.Fatal("lower-case invitation not flat")
	}
	if !d.Flat(FormSpec, "choose_parity", "R1M1", false, false) {
		t.Fatal("a later call of the match not flat")
	}
	if d.Flat(FormSpec, "choose_parity", "R1M2", false, false) || d.Flat(FormMessageType, "CHOOSE_PARITY_CALL", "R1M2", false, false) {
		t.Fatal("another match flat")
	}
	if d.Flat(FormToolsCall, "tools/call", "R1M1", false, false) {
		t.Fatal("tools/call flat")
	}
	if !d.Flat(FormSpec, "notify_match_result", "R1M1", false, true) || d.Flat(FormSpec, "choose_parity", "R1M1", false, false) {
		t.Fatal("GAME_OVER does not end the match's dialect")
	}
}

// TestReadReply checks where a client finds the message of a reply.
func TestReadReply(t *testing.T) {
	msg := `{"message_type":"GAME_JOIN_ACK","accept":true}`
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"result":` + msg + `}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":` + quoteJSON(msg) + `}]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":` + msg + `}}`,
		`{"jsonrpc":"2.0","method":"game_join_ack","params":` + msg + `}`,
		msg,
	} {
		r, err := parseReply([]byte(body))
		if err != nil || string(r.Message) != msg {
			t.Errorf("%s: message %s, %v", body, r.Message, err)
		}
	}
	r, err := parseReply([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`))
	if err != nil || r.Error == nil || r.Error.Code != -32601 {
		t.Fatalf("error reply: %+v, %v", r, err)
	}
	if _, err := parseReply([]byte(`{"jsonrpc":"2.0","id":1}`)); err != errNoResult {
		t.Fatalf("no result: %v", err)
	}
}

func quoteJSON(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestReadRequestDecodesParamsAsTheBodyIsRead checks when into reads a
// request's params in the reading of its body, and that the request read
// is the same either way.
func TestReadRequestDecodesParamsAsTheBodyIsRead(t *testing.T) {
	params := `{"match_id":"R1M1", "n": [1, {"a":"}"}]}`
	tests := []struct {
		name, body string
		wantRead   bool
		wantMethod string
		wantCode   int // 0: the request reads
	}{
		{"method first", `{"jsonrpc":"2.0","id":1,"method":"m","params":` + params + `}`, true, "m", 0},
		{"spaced", " \n{ \"jsonrpc\" : \"2.0\" ,\t\"method\" : \"m\" , \"params\" : " + params + " , \"id\" : 7 }\r\n", true, "m", 0},
		{"params first", `{"params":` + params + `,"jsonrpc":"2.0","id":1,"method":"m"}`, false, "m", 0},
		{"method named again after params", `{"jsonrpc":"2.0","method":"m","params":` + params + `,"method":"n"}`, false, "n", 0},
		{"the same method again", `{"jsonrpc":"2.0","method":"m","params":` + params + `,"method":"m"}`, true, "m", 0},
		{"params twice", `{"jsonrpc":"2.0","method":"m","params":{"x":1},"params":` + params + `}`, false, "m", 0},
		{"keys in other cases", `{"JSONRPC":"2.0","Method":"m","PARAMS":` + params + `}`, true, "m", 0},
		{"unknown members", `{"jsonrpc":"2.0","x":{"params":[1]},"method":"m","params":` + params + `,"y":null}`, true, "m", 0},
		{"trailing text", `{"jsonrpc":"2.0","method":"m","params":` + params + `} x`, false, "", codeParse},
		{"unfinished", `{"jsonrpc":"2.0","method":"m","params":` + params, false, "", codeParse},
		{"method not a string", `{"jsonrpc":"2.0","method":5,"params":` + params + `}`, false, "", codeInvalidRequest},
		{"no method", `{"jsonrpc":"2.0","params":` + params + `}`, false, "", codeInvalidRequest},
		{"batch", `[{"jsonrpc":"2.0","method":"m"}]`, false, "", codeInvalidRequest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got map[string]any
			req, _, read, bad := readRequest([]byte(tc.body), func(method string, p []byte) ([]byte, bool) {
				if method != "m" {
					return nil, false
				}
				var m map[string]any
				r, err := wirejson.Next(p, &m)
				if err != nil {
					return nil, false
				}
				got = m
				return r, true
			})
			plain, _, _, plainBad := readRequest([]byte(tc.body), nil)
			if tc.wantCode != 0 {
				if bad == nil || bad.Code != tc.wantCode || plainBad == nil || plainBad.Code != tc.wantCode {
					t.Fatalf("read %+v, %v (without into %v), want code %d", req, bad, plainBad, tc.wantCode)
				}
				return
			}
			if bad != nil || plainBad != nil {
				t.Fatalf("refused: %v, %v", bad, plainBad)
			}
			if read != tc.wantRead || req.Method != tc.wantMethod {
				t.Fatalf("read %v, method %q; want %v, %q", read, req.Method, tc.wantRead, tc.wantMethod)
			}
			if string(req.Params) != string(plain.Params) || string(req.ID) != string(plain.ID) || req.Method != plain.Method {
				t.Fatalf("read %+v with into, %+v without", req, plain)
			}
			var want map[string]any
			if err := json.Unmarshal(req.Params, &want); err != nil {
				t.Fatalf("params %s: %v", req.Params, err)
			}
			if read {
				b1, _ := json.Marshal(got)
				b2, _ := json.Marshal(want)
				if string(b1) != string(b2) {
					t.Fatalf("decoded %s as the body was read, %s from the params", b1, b2)
				}
			}
		})
	}
}
