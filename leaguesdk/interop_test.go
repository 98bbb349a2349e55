package leaguesdk_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// nestedOnlyManager stands in for a manager of another implementation that
// reads a message only nested as handle_message params.message: the spec
// form (flat params) gets HTTP 500 with a -32000 "Missing required fields"
// error, any other method -32601. reply answers the nested message.
func nestedOnlyManager(t *testing.T, reply string) *countingPeer {
	t.Helper()
	return newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
		params, _ := req["params"].(map[string]any)
		switch req["method"] {
		case "handle_message":
			if _, ok := params["message"].(map[string]any); ok {
				writeRaw(w, http.StatusOK, `{"jsonrpc":"2.0","result":`+reply+`,"id":1}`)
				return
			}
		case leaguesdk.MethodRegisterPlayer:
			writeRaw(w, http.StatusInternalServerError, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Missing required fields: {'message_type', 'sender', 'timestamp'}"},"id":1}`)
			return
		}
		writeRaw(w, http.StatusOK, `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":1}`)
	})
}

func registerRequest() *leaguesdk.LeagueRegisterRequest {
	return &leaguesdk.LeagueRegisterRequest{
		Envelope:   leaguesdk.NewEnvelope(leaguesdk.MsgLeagueRegisterRequest, "player:P01", "", "", fixedNow),
		PlayerMeta: leaguesdk.PlayerMeta{DisplayName: "P01", Version: "1.0.0", GameTypes: []string{"even_odd"}, ContactEndpoint: "http://127.0.0.1:1/mcp"},
	}
}

// TestFallbackOnServerErrorFirstExchange: a manager answering the flat form
// with HTTP 500 and -32000 is tried in the other forms on the first
// exchange; the nested form that works is remembered.
func TestFallbackOnServerErrorFirstExchange(t *testing.T) {
	accepted := `{"protocol":"league.v2","message_type":"LEAGUE_REGISTER_RESPONSE","sender":"league_manager","timestamp":"2025-01-15T10:00:00Z","conversation_id":"c1","status":"ACCEPTED","player_id":"P01"}`
	m := nestedOnlyManager(t, accepted)
	c := leaguesdk.NewClient(leaguesdk.ClientConfig{Timeout: 5 * time.Second, Retry: leaguesdk.RetryPolicy{MaxRetries: 0}})
	defer c.Close()
	var resp leaguesdk.LeagueRegisterResponse
	if err := c.Call(context.Background(), m.url, leaguesdk.MethodRegisterPlayer, registerRequest(), &resp); err != nil {
		t.Fatalf("register: %v (methods %v)", err, m.seenMethods())
	}
	if resp.Status != leaguesdk.StatusAccepted || resp.PlayerID != "P01" {
		t.Fatalf("reply = %+v", resp)
	}
	before := m.count()
	if err := c.Call(context.Background(), m.url, leaguesdk.MethodRegisterPlayer, registerRequest(), &resp); err != nil {
		t.Fatalf("second call: %v", err)
	}
	seen := m.seenMethods()
	if m.count() != before+1 || seen[len(seen)-1] != "handle_message" {
		t.Fatalf("second call not sent once in the remembered nested form: %v", seen)
	}
}

// TestNoFallbackOnProtocolRejection: a REJECTED reply, and E011/E012/E018
// carried as a LEAGUE_ERROR in a JSON-RPC error, are answers: the client
// sends the request once, in the spec form.
func TestNoFallbackOnProtocolRejection(t *testing.T) {
	rejected := `{"jsonrpc":"2.0","result":{"protocol":"league.v2","message_type":"LEAGUE_REGISTER_RESPONSE","sender":"league_manager","timestamp":"2025-01-15T10:00:00Z","conversation_id":"c1","status":"REJECTED","reason":"league full"},"id":1}`
	bodies := map[string]string{"REJECTED": rejected}
	for _, code := range []string{"E011", "E012", "E018"} {
		bodies[code] = `{"jsonrpc":"2.0","error":{"code":-32000,"message":"refused","data":{"protocol":"league.v2","message_type":"LEAGUE_ERROR","sender":"league_manager","timestamp":"2025-01-15T10:00:00Z","conversation_id":"c1","error_code":"` + code + `","error_description":"refused"}},"id":1}`
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			p := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
				writeRaw(w, http.StatusOK, body)
			})
			c := leaguesdk.NewClient(leaguesdk.ClientConfig{Timeout: 5 * time.Second, Retry: leaguesdk.RetryPolicy{MaxRetries: 0}})
			defer c.Close()
			var resp leaguesdk.LeagueRegisterResponse
			err := c.Call(context.Background(), p.url, leaguesdk.MethodRegisterPlayer, registerRequest(), &resp)
			if name == "REJECTED" {
				if err != nil || resp.Status != leaguesdk.StatusRejected {
					t.Fatalf("err = %v, reply = %+v", err, resp)
				}
			} else if got := leaguesdk.CodeOf(err); string(got) != name {
				t.Fatalf("code = %q (%v), want %s", got, err, name)
			}
			if seen := p.seenMethods(); !slices.Equal(seen, []string{leaguesdk.MethodRegisterPlayer}) {
				t.Fatalf("requests = %v, want one in the spec form", seen)
			}
		})
	}
}

// TestServerErrorAfterFirstExchange: once an endpoint answered in a form,
// a JSON-RPC error without a catalog code is the answer, not a refused form.
func TestServerErrorAfterFirstExchange(t *testing.T) {
	p := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
		if n == 1 {
			writeRaw(w, http.StatusOK, `{"jsonrpc":"2.0","result":{"protocol":"league.v2","message_type":"LEAGUE_REGISTER_RESPONSE","sender":"league_manager","timestamp":"2025-01-15T10:00:00Z","conversation_id":"c1","status":"ACCEPTED","player_id":"P01"},"id":1}`)
			return
		}
		writeRaw(w, http.StatusInternalServerError, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"boom"},"id":1}`)
	})
	c := leaguesdk.NewClient(leaguesdk.ClientConfig{Timeout: 5 * time.Second, Retry: leaguesdk.RetryPolicy{MaxRetries: 0}})
	defer c.Close()
	var resp leaguesdk.LeagueRegisterResponse
	if err := c.Call(context.Background(), p.url, leaguesdk.MethodRegisterPlayer, registerRequest(), &resp); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(context.Background(), p.url, leaguesdk.MethodRegisterPlayer, registerRequest(), &resp); err == nil {
		t.Fatal("second call succeeded")
	}
	if p.count() != 2 {
		t.Fatalf("requests = %v, want 2", p.seenMethods())
	}
}

// TestFlatReply: a handler that sets Request.FlatReply gets its message
// both as result and at the top level of the response; the response's own
// members stay its own, and a tools/call reply is the usual tool result.
func TestFlatReply(t *testing.T) {
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodChooseParity},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.ChooseParityCall) (*leaguesdk.ChooseParityResponse, error) {
			leaguesdk.RequestFrom(ctx).FlatReply = true
			return &leaguesdk.ChooseParityResponse{
				Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityResponse, "player:P01", testToken, in.ConversationID, fixedNow),
				MatchID:  in.MatchID, PlayerID: "P01", ParityChoice: leaguesdk.Odd,
			}, nil
		})
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	post := func(body string) map[string]json.RawMessage {
		t.Helper()
		resp, err := http.Post(ts.URL+"/mcp", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var top map[string]json.RawMessage
		if err := json.NewDecoder(resp.Body).Decode(&top); err != nil {
			t.Fatal(err)
		}
		return top
	}
	params, _ := json.Marshal(chooseParityCall())
	top := post(`{"jsonrpc":"2.0","id":"a-7","method":"choose_parity","params":` + string(params) + `}`)
	var result map[string]json.RawMessage
	if err := json.Unmarshal(top["result"], &result); err != nil {
		t.Fatalf("result: %v", err)
	}
	if string(top["id"]) != `"a-7"` || string(top["jsonrpc"]) != `"2.0"` || top["method"] != nil || top["params"] != nil {
		t.Fatalf("response members: %v", top)
	}
	for k, v := range result {
		if string(top[k]) != string(v) {
			t.Errorf("top level %s = %s, result has %s", k, top[k], v)
		}
	}
	if string(top["message_type"]) != `"CHOOSE_PARITY_RESPONSE"` {
		t.Fatalf("no message at the top level: %v", top)
	}
	top = post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"choose_parity","arguments":` + string(params) + `}}`)
	if top["message_type"] != nil || top["result"] == nil {
		t.Fatalf("tools/call response: %v", top)
	}
}
