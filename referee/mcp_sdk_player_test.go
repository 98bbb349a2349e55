package referee_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/referee"
)

// sdkPlayer is a player built on the official MCP Go SDK (stateful
// streamable HTTP, replies as server-sent events): it serves its tools only
// through tools/call inside an MCP session.
type sdkPlayer struct {
	URL    string
	choice leaguesdk.Parity
	token  string

	mu          sync.Mutex
	initializes int
	invitations []leaguesdk.GameInvitation
	parityCalls []leaguesdk.ChooseParityCall
	gameOvers   []leaguesdk.GameOver
}

func newSDKPlayer(t *testing.T, choice leaguesdk.Parity) *sdkPlayer {
	t.Helper()
	p := &sdkPlayer{choice: choice, token: leaguesdk.NewToken()}
	srv := mcp.NewServer(&mcp.Implementation{Name: "sdk-player", Version: "1.0.0"}, nil)
	object := json.RawMessage(`{"type":"object"}`)
	tool := func(name string, answer func(args json.RawMessage) (any, error)) {
		srv.AddTool(&mcp.Tool{Name: name, InputSchema: object}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			out, err := answer(req.Params.Arguments)
			if err != nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
			}
			text, _ := json.Marshal(out)
			return &mcp.CallToolResult{StructuredContent: out, Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}, nil
		})
	}
	tool(leaguesdk.MethodHandleGameInvitation, func(args json.RawMessage) (any, error) {
		var in leaguesdk.GameInvitation
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, err
		}
		p.mu.Lock()
		p.invitations = append(p.invitations, in)
		p.mu.Unlock()
		return &leaguesdk.GameJoinAck{
			Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgGameJoinAck, leaguesdk.PlayerSender(in.PlayerID), p.token, in.ConversationID, time.Now()),
			MatchID:  in.MatchID, PlayerID: in.PlayerID, ArrivalTimestamp: leaguesdk.FormatTime(time.Now()), Accept: true,
		}, nil
	})
	tool(leaguesdk.MethodChooseParity, func(args json.RawMessage) (any, error) {
		var in leaguesdk.ChooseParityCall
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, err
		}
		p.mu.Lock()
		p.parityCalls = append(p.parityCalls, in)
		p.mu.Unlock()
		return &leaguesdk.ChooseParityResponse{
			Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityResponse, leaguesdk.PlayerSender(in.PlayerID), p.token, in.ConversationID, time.Now()),
			MatchID:  in.MatchID, PlayerID: in.PlayerID, ParityChoice: p.choice,
		}, nil
	})
	tool(leaguesdk.MethodNotifyMatchResult, func(args json.RawMessage) (any, error) {
		var in leaguesdk.GameOver
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, err
		}
		p.mu.Lock()
		p.gameOvers = append(p.gameOvers, in)
		p.mu.Unlock()
		return &leaguesdk.Ack{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgAck, "player:sdk", p.token, in.ConversationID, time.Now()),
			Status: leaguesdk.AckOK}, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var probe struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(body, &probe) == nil && probe.Method == "initialize" {
			p.mu.Lock()
			p.initializes++
			p.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	p.URL = ts.URL + "/mcp"
	return p
}

// TestMatchWithMCPSDKPlayers runs one match between two players built on
// the official MCP Go SDK: the referee's client opens an MCP session with
// each and the match ends with a normal result.
func TestMatchWithMCPSDKPlayers(t *testing.T) {
	mgr := newTestManager(t)
	e := startReferee(t, mgr, func(c *referee.Config) { c.Rand = draws(8) })
	a := newSDKPlayer(t, leaguesdk.Even)
	b := newSDKPlayer(t, leaguesdk.Odd)

	req := &leaguesdk.StartMatch{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgStartMatch, leaguesdk.LeagueManagerSender, mgr.token, "", time.Now()),
		LeagueID: testLeague, RoundID: 1, MatchID: "R1M_SDK", GameType: leaguesdk.GameEvenOdd,
		PlayerAID: "P01", PlayerBID: "P02", PlayerAEndpoint: a.URL, PlayerBEndpoint: b.URL,
	}
	res := e.play(t, req).Result
	if res.Status != leaguesdk.ResultWin || res.Winner != "P01" || res.Score["P01"] != 3 || res.Score["P02"] != 0 {
		t.Fatalf("result %+v, want WIN for P01 3-0", res)
	}
	if res.Details.DrawnNumber != 8 || res.Details.Choices["P01"] != leaguesdk.Even || res.Details.Choices["P02"] != leaguesdk.Odd {
		t.Fatalf("details %+v", res.Details)
	}
	// The referee tells both players before it reports; each saw one
	// session for the whole match.
	for _, p := range []*sdkPlayer{a, b} {
		p.mu.Lock()
		inv, par, overs, inits := len(p.invitations), len(p.parityCalls), len(p.gameOvers), p.initializes
		p.mu.Unlock()
		if inv != 1 || par != 1 || overs != 1 || inits != 1 {
			t.Fatalf("player calls: invitations %d, parity %d, game overs %d, initialize %d", inv, par, overs, inits)
		}
	}
	if over := a.gameOvers[0]; over.GameResult.Status != leaguesdk.ResultWin || over.GameResult.WinnerPlayerID != "P01" {
		t.Fatalf("GAME_OVER %+v", over.GameResult)
	}
}
