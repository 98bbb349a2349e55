package leaguesdk_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/agentleague/league/leaguesdk"
)

var convID = regexp.MustCompile(`conv-[0-9a-f-]{36}`)

// A request's members may come in any order, and unknown ones are
// ignored: every body is answered as the same body with an unknown member
// put first: the same status, the same answer, and the handler given the
// same request.
func TestServerReadsMembersInAnyOrder(t *testing.T) {
	p := newTestPeer(t, leaguesdk.ServerConfig{})
	over := mustJSON(t, &leaguesdk.GameOver{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgGameOver, "referee:REF01", testToken, "c", fixedNow),
		MatchID: "R1M1", GameResult: leaguesdk.GameResult{Status: leaguesdk.ResultDraw}})
	bad := strings.Replace(over, `"match_id":"R1M1"`, `"match_id":7`, 1)
	unknownType := strings.Replace(over, `"GAME_OVER"`, `"ROUND_COMPLETED"`, 1)
	bodies := []string{
		`{"jsonrpc":"2.0","id":1,"method":"notify_match_result","params":` + over + `}`,
		`{ "jsonrpc" : "2.0" , "id" : "a\"b" , "method" : "notify_match_result" , "params" : ` + over + " }\n",
		`{"jsonrpc":"2.0","method":"notify_match_result","params":` + over + `,"id":{"k":[1]}}`,
		`{"jsonrpc":"2.0","id":null,"method":"notify_match_result","params":` + over + `}`,
		`{"jsonrpc":"2.0","method":"notify_match_result","params":` + over + `}`,
		`{"id":3,"method":"notify_match_result","params":` + over + `,"jsonrpc":"2.0"}`,
		`{"id":3,"method":"notify_match_result","params":` + over + `}`,
		`{"jsonrpc":"1.0","id":3,"method":"notify_match_result","params":` + over + `}`,
		`{"jsonrpc":"2.0","id":3,"method":"NOTIFY_MATCH_RESULT","params":` + over + `}`,
		`{"jsonrpc":"2.0","id":3,"method":"notify_match_\u0072esult","params":` + over + `}`,
		`{"jsonrpc":"2.0","id":3,"Method":"notify_match_result","params":` + over + `}`,
		`{"jsonrpc":"2.0","id":3,"method":"notify_match_result","params":` + over + `,"method":"choose_parity"}`,
		`{"jsonrpc":"2.0","id":3,"method":"notify_match_result","params":` + over + `,"params":{}}`,
		`{"jsonrpc":"2.0","id":3,"method":"notify_match_result","params":` + over + `,"id":4,"id":5}`,
		`{"jsonrpc":"2.0","id":3,"method":"notify_match_result","params":` + over + `} x`,
		`{"jsonrpc":"2.0","id":3,"method":"notify_match_result","params":` + over + `,}`,
		`{"jsonrpc":"2.0","id":3,"method":"notify_match_result","params":` + over,
		`{"jsonrpc":"2.0","id":3,"method":"notify_match_result","params":` + over[:len(over)-3] + `}`,
		`{"jsonrpc":"2.0","id":3,"method":"notify_match_result","params":` + bad + `}`,
		`{"jsonrpc":"2.0","id":3,"method":"notify_match_result","params":` + unknownType + `}`,
		`{"jsonrpc":"2.0","id":3,"method":"notify_match_result","params":[` + over + `]}`,
		`{"jsonrpc":"2.0","id":3,"method":"notify_match_result","params":{"message":` + over + `}}`,
		`{"jsonrpc":"2.0","id":3,"method":"no_such_tool","params":` + over + `}`,
		`{"jsonrpc":"2.0","id":3,"method":"fail","params":{"mode":"panic"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"fail","params":{"mode":"protocol"}}`,
	}
	type answer struct {
		status   int
		body     string
		req      leaguesdk.Request
		received bool
	}
	serve := func(body string) answer {
		p.lastReq.Store(nil)
		resp, raw := post(t, p.ts.URL+"/mcp", "application/json", strings.NewReader(body))
		// Error answers carry a conversation id of their own.
		a := answer{status: resp.StatusCode, body: convID.ReplaceAllString(string(raw), "conv-")}
		if r := p.lastReq.Load(); r != nil {
			a.req, a.received = *r, true
			a.req.HTTP = nil
		}
		return a
	}
	for _, body := range bodies {
		one := serve(body)
		general := serve(`{"x":0,` + body[1:])
		if one.status != general.status || one.body != general.body || one.received != general.received {
			t.Errorf("%s\nanswered %d %s (handler called: %t)\nread in two passes: %d %s (handler called: %t)",
				body, one.status, one.body, one.received, general.status, general.body, general.received)
			continue
		}
		o, g := one.req, general.req
		if o.Method != g.Method || o.Tool != g.Tool || o.Form != g.Form || !bytes.Equal(o.ID, g.ID) ||
			!bytes.Equal(o.Message, g.Message) || (o.Envelope == nil) != (g.Envelope == nil) {
			t.Errorf("%s\nhandler given %+v\nin two passes %+v", body, o, g)
		}
	}
	if one := serve(bodies[0]); !one.received || string(one.req.Message) != over || string(one.req.ID) != "1" {
		t.Fatalf("the plain request reached its handler as %+v", one.req)
	}
}
