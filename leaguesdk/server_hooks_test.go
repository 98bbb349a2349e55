package leaguesdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentleague/league/leaguesdk"
)

func TestServerToolNameTakenTwicePanics(t *testing.T) {
	ack := func(context.Context, *leaguesdk.Request, *leaguesdk.GameOver) (*leaguesdk.Ack, error) {
		return &leaguesdk.Ack{}, nil
	}
	raw := func(context.Context, *leaguesdk.Request) (any, error) { return map[string]string{}, nil }
	for name, add := range map[string]func(s *leaguesdk.Server){
		"same name":            func(s *leaguesdk.Server) { leaguesdk.Handle(s, leaguesdk.Tool{Name: "notify_match_result"}, ack) },
		"name in another case": func(s *leaguesdk.Server) { leaguesdk.Handle(s, leaguesdk.Tool{Name: "Notify_Match_Result"}, ack) },
		"alias of another": func(s *leaguesdk.Server) {
			leaguesdk.Handle(s, leaguesdk.Tool{Name: "x", Aliases: []string{"game_over"}}, ack)
		},
		"raw": func(s *leaguesdk.Server) { s.HandleRaw(leaguesdk.Tool{Name: "notify_match_result"}, raw) },
	} {
		t.Run(name, func(t *testing.T) {
			s := leaguesdk.NewServer(leaguesdk.ServerConfig{})
			leaguesdk.Handle(s, leaguesdk.Tool{Name: "notify_match_result", Aliases: []string{"game_over"}}, ack)
			defer func() {
				p := recover()
				if p == nil || !strings.Contains(p.(string), "registered twice") {
					t.Fatalf("recovered %v, want a panic naming the tool registered twice", p)
				}
				if n := len(s.Tools()); n != 1 {
					t.Fatalf("%d tools after the refused registration, want 1", n)
				}
			}()
			add(s)
		})
	}
}

func TestServerHandleRawGetsTheRequest(t *testing.T) {
	s := leaguesdk.NewServer(leaguesdk.ServerConfig{})
	got := make(chan *leaguesdk.Request, 4)
	s.HandleRaw(leaguesdk.Tool{Name: "echo_raw", MessageTypes: []leaguesdk.MessageType{"ECHO_CALL"}},
		func(ctx context.Context, req *leaguesdk.Request) (any, error) {
			if leaguesdk.RequestFrom(ctx) != req {
				return nil, errors.New("RequestFrom is not the request passed")
			}
			got <- req
			var in struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(req.Message, &in); err != nil {
				return nil, err
			}
			return map[string]string{"echo": in.Text}, nil
		})
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	p := &testPeer{ts: ts, srv: s}
	msg := map[string]any{"message_type": "ECHO_CALL", "sender": "referee:REF01", "text": "hi", "choice": "even"}
	for _, tc := range []struct {
		name string
		body map[string]any
		form leaguesdk.WireForm
	}{
		{"spec", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "echo_raw", "params": msg}, leaguesdk.FormSpec},
		{"message type", map[string]any{"jsonrpc": "2.0", "id": 2, "method": "ECHO_CALL", "params": msg}, leaguesdk.FormMessageType},
		{"envelope", map[string]any{"jsonrpc": "2.0", "id": 3, "method": "handle_message", "params": map[string]any{"message": msg}}, leaguesdk.FormEnvelope},
	} {
		r, raw := p.rpc(t, mustJSON(t, tc.body))
		if r.Error != nil || string(r.Result) != `{"echo":"hi"}` {
			t.Fatalf("%s: reply %s, want the echo", tc.name, raw)
		}
		req := <-got
		if req.Tool != "echo_raw" || req.Form != tc.form || req.Envelope == nil || req.Envelope.Sender != "referee:REF01" {
			t.Fatalf("%s: handler saw tool %q form %v envelope %+v", tc.name, req.Tool, req.Form, req.Envelope)
		}
		// A raw handler gets the message as it came; tolerated variants
		// are read by the typed decoding only.
		if !strings.Contains(string(req.Message), `"choice":"even"`) || strings.Contains(string(req.Message), "parity_choice") {
			t.Fatalf("%s: message %s, want it as received", tc.name, req.Message)
		}
	}
	r, raw := p.rpc(t, mustJSON(t, map[string]any{"jsonrpc": "2.0", "id": 4, "method": "tools/call",
		"params": map[string]any{"name": "echo_raw", "arguments": msg}}))
	if r.Error != nil || !strings.Contains(string(r.Result), `"structuredContent":{"echo":"hi"}`) {
		t.Fatalf("tools/call reply %s", raw)
	}
	<-got
}

func TestServerUnknownHook(t *testing.T) {
	seen := make(chan *leaguesdk.Request, 4)
	var order []string
	mw := func(next leaguesdk.HandlerFunc) leaguesdk.HandlerFunc {
		return func(ctx context.Context, req *leaguesdk.Request) (any, error) {
			order = append(order, "middleware") // requests below are sequential
			return next(ctx, req)
		}
	}
	p := newTestPeer(t, leaguesdk.ServerConfig{Middleware: []leaguesdk.Middleware{mw},
		Unknown: func(ctx context.Context, req *leaguesdk.Request) (any, error) {
			order = append(order, "unknown")
			seen <- req
			if req.Envelope == nil {
				return nil, leaguesdk.ErrUnrouted
			}
			return map[string]string{"acknowledged": string(req.Envelope.MessageType)}, nil
		}})
	// An unrouted JSON-RPC notification reaches the hook and gets 202.
	resp, _ := post(t, p.ts.URL+"/mcp", "application/json", strings.NewReader(mustJSON(t, map[string]any{"jsonrpc": "2.0",
		"method": "notify_weather", "params": map[string]any{"message_type": "WEATHER_REPORT", "sender": "league_manager", "rain": true}})))
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notification answered %d, want 202", resp.StatusCode)
	}
	req := <-seen
	if req.Method != "notify_weather" || req.Tool != "" || len(req.ID) != 0 || req.Envelope.Sender != "league_manager" ||
		!strings.Contains(string(req.Message), `"rain":true`) {
		t.Fatalf("hook saw %+v", req)
	}
	if strings.Join(order, ",") != "middleware,unknown" {
		t.Fatalf("ran %v, want the middleware around the hook", order)
	}
	// A request with an id is answered with the hook's reply, also as tools/call.
	r, raw := p.rpc(t, mustJSON(t, map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call",
		"params": map[string]any{"name": "weather", "arguments": map[string]any{"message_type": "WEATHER_REPORT"}}}))
	if r.Error != nil || !strings.Contains(string(r.Result), `"structuredContent":{"acknowledged":"WEATHER_REPORT"}`) {
		t.Fatalf("tools/call reply %s", raw)
	}
	if req := <-seen; req.Tool != "weather" || req.Form != leaguesdk.FormToolsCall {
		t.Fatalf("hook saw tool %q form %v", req.Tool, req.Form)
	}
	// ErrUnrouted keeps the default answer; routed and lifecycle methods never reach the hook.
	r, raw = p.rpc(t, `{"jsonrpc":"2.0","id":8,"method":"server/discover"}`)
	if r.Error == nil || r.Error.Code != -32601 {
		t.Fatalf("reply %s, want -32601", raw)
	}
	<-seen
	for _, body := range []string{`{"jsonrpc":"2.0","id":9,"method":"ping"}`,
		mustJSON(t, map[string]any{"jsonrpc": "2.0", "id": 10, "method": "choose_parity", "params": chooseParityCall()})} {
		if r, raw := p.rpc(t, body); r.Error != nil {
			t.Fatalf("reply %s", raw)
		}
	}
	select {
	case req := <-seen:
		t.Fatalf("hook got the routed request %q", req.Method)
	default:
	}
}

func TestServerNoValidate(t *testing.T) {
	s := leaguesdk.NewServer(leaguesdk.ServerConfig{})
	handled := make(chan string, 2)
	h := func(_ context.Context, _ *leaguesdk.Request, in *leaguesdk.GameOver) (*leaguesdk.Ack, error) {
		handled <- in.MatchID
		return &leaguesdk.Ack{Status: leaguesdk.AckOK}, nil
	}
	leaguesdk.Handle(s, leaguesdk.Tool{Name: "checked", MessageTypes: []leaguesdk.MessageType{"X"}}, h)
	leaguesdk.Handle(s, leaguesdk.Tool{Name: "unchecked", NoValidate: true, MessageTypes: []leaguesdk.MessageType{"Y"}}, h)
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	p := &testPeer{ts: ts, srv: s}
	invalid := map[string]any{"message_type": "GAME_OVER", "match_id": "R1M1"} // no sender, timestamp, result
	r, raw := p.rpc(t, mustJSON(t, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "checked", "params": invalid}))
	if r.Error == nil || !strings.Contains(string(r.Error.Data), "E00") {
		t.Fatalf("validated tool answered %s, want a protocol error", raw)
	}
	r, raw = p.rpc(t, mustJSON(t, map[string]any{"jsonrpc": "2.0", "id": 2, "method": "unchecked", "params": invalid}))
	if r.Error != nil {
		t.Fatalf("NoValidate tool refused: %s", raw)
	}
	if id := <-handled; id != "R1M1" {
		t.Fatalf("handler got match %q", id)
	}
	if len(handled) != 0 {
		t.Fatal("the validated tool's handler ran on an invalid message")
	}
}
