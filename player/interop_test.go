package player_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
)

// foreignManager stands in for the league manager of another
// implementation. It keys players by the id in their sender
// ("player:P03" → "P03") and answers registration with that id. With
// nestedOnly it reads a message only nested as handle_message
// params.message and answers the spec form (flat params) with HTTP 500 and
// a -32000 "Missing required fields" error.
type foreignManager struct {
	URL        string
	nestedOnly bool

	mu      sync.Mutex
	methods []string
	players map[string]string // player id → contact endpoint
}

func startForeignManager(t *testing.T, nestedOnly bool) *foreignManager {
	t.Helper()
	m := &foreignManager{nestedOnly: nestedOnly, players: map[string]string{}}
	ln := listen(t)
	m.URL = "http://" + ln.Addr().String() + "/mcp"
	serveHandler(t, ln, http.HandlerFunc(m.serve))
	return m
}

func (m *foreignManager) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		ID     json.RawMessage `json:"id"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &req)
	m.mu.Lock()
	m.methods = append(m.methods, req.Method)
	m.mu.Unlock()
	answer := func(status int, v string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, v)
	}
	msg := req.Params
	switch {
	case m.nestedOnly && req.Method == "handle_message":
		var nested struct {
			Message json.RawMessage `json:"message"`
		}
		_ = json.Unmarshal(req.Params, &nested)
		msg = nested.Message
	case m.nestedOnly || req.Method != leaguesdk.MethodRegisterPlayer:
		answer(http.StatusInternalServerError, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Missing required fields: {'message_type', 'sender', 'timestamp', 'conversation_id'}"},"id":1}`)
		return
	}
	var reg leaguesdk.LeagueRegisterRequest
	if json.Unmarshal(msg, &reg) != nil || reg.MessageType != leaguesdk.MsgLeagueRegisterRequest || reg.Sender == "" {
		answer(http.StatusInternalServerError, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Missing required fields: {'message_type', 'sender'}"},"id":1}`)
		return
	}
	id := strings.TrimPrefix(reg.Sender, "player:")
	m.mu.Lock()
	m.players[id] = reg.PlayerMeta.ContactEndpoint
	m.mu.Unlock()
	answer(http.StatusOK, `{"jsonrpc":"2.0","result":{"protocol":"league.v2","message_type":"LEAGUE_REGISTER_RESPONSE","sender":"league_manager",`+
		`"timestamp":"2025-01-15T10:00:00Z","conversation_id":"reg-`+id+`","auth_token":"`+playerToken+`","status":"ACCEPTED","player_id":"`+id+`"},"id":`+string(req.ID)+`}`)
}

func (m *foreignManager) registered() map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]string{}
	for k, v := range m.players {
		out[k] = v
	}
	return out
}

// TestForeignManagerReadsOnlyNestedForm: registration in the spec form is
// answered with HTTP 500 and -32000; the player registers in the nested
// form and keeps using it.
func TestForeignManagerReadsOnlyNestedForm(t *testing.T) {
	m := startForeignManager(t, true)
	a := runAgent(t, player.Config{Name: "Agent Alpha", League: m.URL})
	if a.ID() != "agent_alpha" {
		t.Fatalf("ID = %q, want agent_alpha", a.ID())
	}
	if got := m.registered(); got["agent_alpha"] != a.Endpoint() {
		t.Fatalf("manager registered %v", got)
	}
	m.mu.Lock()
	methods := slices.Clone(m.methods)
	m.mu.Unlock()
	if methods[0] != leaguesdk.MethodRegisterPlayer || methods[len(methods)-1] != "handle_message" {
		t.Fatalf("methods = %v, want the spec form first and the nested form last", methods)
	}
}

// TestForeignManagerKeysPlayersBySender: a manager with the fixed line-up
// P01…P04 registers players under the id of their sender; a player
// configured with ID P03 takes its place in the line-up.
func TestForeignManagerKeysPlayersBySender(t *testing.T) {
	m := startForeignManager(t, false)
	lineup := []string{"P01", "P02", "P03", "P04"}
	a := runAgent(t, player.Config{Name: "Agent Alpha", ID: "P03", League: m.URL})
	got := m.registered()
	for id, endpoint := range got {
		if !slices.Contains(lineup, id) {
			t.Fatalf("registered under %q, an id the line-up %v never uses", id, lineup)
		}
		if id == "P03" && endpoint != a.Endpoint() {
			t.Fatalf("P03's endpoint = %q, want %q", endpoint, a.Endpoint())
		}
	}
	if len(got) != 1 || a.ID() != "P03" {
		t.Fatalf("registered %v, ID = %q", got, a.ID())
	}
}

// TestAssignedIDWins: the player asks for P03; the manager assigns P09,
// which the player then uses.
func TestAssignedIDWins(t *testing.T) {
	m := startManager(t, &testManager{playerID: "P09"})
	a := runAgent(t, player.Config{Name: "Agent Alpha", ID: "P03", League: m.URL})
	if regs := m.registrations(); len(regs) != 1 || regs[0].Sender != "player:P03" {
		t.Fatalf("registrations = %+v, want one sent as player:P03", regs)
	}
	if a.ID() != "P09" {
		t.Fatalf("ID = %q, want P09", a.ID())
	}
	var ack leaguesdk.GameJoinAck
	call(t, a, leaguesdk.MethodHandleGameInvitation, invitation("R1M1", "P09", "P02", leaguesdk.PlayerA), &ack)
	if ack.Sender != "player:P09" || ack.PlayerID != "P09" {
		t.Fatalf("GAME_JOIN_ACK = %+v", ack)
	}
}

// foreignRefereeCall stands in for the referee of another implementation:
// it sends msg with method (a lower-case message type, or choose_parity)
// and reads the reply only when it is shaped like a request (method +
// params) or is the bare message at the top level. It returns the message
// it read ("" when it found none) and the raw response.
func foreignRefereeCall(t *testing.T, endpoint, method string, msg any) (string, []byte) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": msg, "id": 1})
	resp, err := http.Post(endpoint, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return "", raw
	}
	var read struct {
		MessageType string `json:"message_type"`
	}
	switch {
	case top["method"] != nil && top["params"] != nil:
		_ = json.Unmarshal(top["params"], &read)
	case top["message_type"] != nil:
		_ = json.Unmarshal(raw, &read)
	}
	return read.MessageType, raw
}

// TestForeignRefereeReadsRepliesInItsDialect: a referee that sends
// game_invitation, choose_parity and game_over and reads only
// request-shaped or bare replies plays a match with the player; each reply
// stays a JSON-RPC response that the MCP SDK's decoder and the project's
// client read by its result.
func TestForeignRefereeReadsRepliesInItsDialect(t *testing.T) {
	m := startManager(t, &testManager{})
	a := runAgent(t, player.Config{League: m.URL, Strategy: always(leaguesdk.Even)})
	steps := []struct {
		method string
		msg    leaguesdk.Message
		want   leaguesdk.MessageType
	}{
		{"game_invitation", invitation("R1M1", "P01", "P02", leaguesdk.PlayerA), leaguesdk.MsgGameJoinAck},
		{"choose_parity", parityCall("R1M1", "P01", "P02", 5*time.Second), leaguesdk.MsgChooseParityResponse},
		{"game_over", gameOver("R1M1", "P01", 4, map[string]leaguesdk.Parity{"P01": leaguesdk.Even, "P02": leaguesdk.Odd}), leaguesdk.MsgAck},
	}
	for _, s := range steps {
		got, raw := foreignRefereeCall(t, a.Endpoint(), s.method, s.msg)
		if got != string(s.want) {
			t.Fatalf("%s: the referee read %q, want %s; reply %s", s.method, got, s.want, raw)
		}
		dec, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			t.Fatalf("%s: MCP SDK decoder: %v", s.method, err)
		}
		res, ok := dec.(*jsonrpc.Response)
		if !ok || res.Error != nil {
			t.Fatalf("%s: MCP SDK decoder read %T %+v, want a response", s.method, dec, dec)
		}
		var inResult struct {
			MessageType string `json:"message_type"`
		}
		if json.Unmarshal(res.Result, &inResult) != nil || inResult.MessageType != string(s.want) {
			t.Fatalf("%s: result = %s", s.method, res.Result)
		}
	}
	if h := a.History(); h.Len() != 1 {
		t.Fatalf("history holds %d matches, want 1", h.Len())
	}

	// The project's own client reads such a reply by its result.
	var ack leaguesdk.GameJoinAck
	call(t, a, "game_invitation", invitation("R1M2", "P01", "P02", leaguesdk.PlayerA), &ack)
	if ack.MessageType != leaguesdk.MsgGameJoinAck || ack.MatchID != "R1M2" || !ack.Accept {
		t.Fatalf("GAME_JOIN_ACK = %+v", ack)
	}
}

// TestSpecDialectRepliesUnchanged: callers in the spec dialect (and in the
// upper-case message-type form) get a response with jsonrpc, id and result
// only, whatever dialect another match was played in.
func TestSpecDialectRepliesUnchanged(t *testing.T) {
	m := startManager(t, &testManager{})
	a := runAgent(t, player.Config{League: m.URL})
	foreignRefereeCall(t, a.Endpoint(), "game_invitation", invitation("R1M9", "P01", "P02", leaguesdk.PlayerA))
	for _, req := range []map[string]any{
		request(1, leaguesdk.MethodHandleGameInvitation, invitation("R1M1", "P01", "P02", leaguesdk.PlayerA)),
		request(2, leaguesdk.MethodChooseParity, parityCall("R1M1", "P01", "P02", 5*time.Second)),
		request(3, string(leaguesdk.MsgGameInvitation), invitation("R1M2", "P01", "P02", leaguesdk.PlayerA)),
		request(4, "tools/call", map[string]any{"name": leaguesdk.MethodChooseParity, "arguments": parityCall("R1M9", "P01", "P02", 5*time.Second)}),
		request(5, leaguesdk.MethodNotifyMatchResult, gameOver("R1M1", "", 4, map[string]leaguesdk.Parity{"P01": leaguesdk.Even, "P02": leaguesdk.Even})),
	} {
		r := post(t, a.Endpoint(), req)
		var top map[string]json.RawMessage
		if err := json.Unmarshal(r.Raw, &top); err != nil || r.Error != nil {
			t.Fatalf("%v: reply %s", req["method"], r.Raw)
		}
		keys := make([]string, 0, len(top))
		for k := range top {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, []string{"id", "jsonrpc", "result"}) {
			t.Fatalf("%v: reply members %v, want id, jsonrpc, result: %s", req["method"], keys, r.Raw)
		}
	}
}
