package leaguesdk_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentleague/league/leaguesdk"
)

// TestMCPSDKClient connects the official MCP Go SDK client to a leaguesdk
// server, lists its tools and calls one with a league message as arguments.
func TestMCPSDKClient(t *testing.T) {
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{Name: "player-p01", Sender: func() string { return "player:P01" }})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodChooseParity, Description: "Choose even or odd."},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.ChooseParityCall) (*leaguesdk.ChooseParityResponse, error) {
			return &leaguesdk.ChooseParityResponse{
				Envelope:     leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityResponse, "player:P01", testToken, in.ConversationID, fixedNow),
				MatchID:      in.MatchID,
				PlayerID:     "P01",
				ParityChoice: leaguesdk.Odd,
			}, nil
		})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodNotifyMatchResult},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.GameOver) (*leaguesdk.Ack, error) {
			return &leaguesdk.Ack{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgAck, "player:P01", testToken, in.ConversationID, fixedNow), Status: leaguesdk.AckOK}, nil
		})
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "league-test", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer session.Close()
	if got := session.InitializeResult(); got == nil || got.ServerInfo == nil || got.ServerInfo.Name != "player-p01" {
		t.Fatalf("initialize result: %+v", got)
	}

	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("list tools: %v", err)
	}
	names := map[string]*mcp.Tool{}
	for _, tool := range tools.Tools {
		names[tool.Name] = tool
	}
	tool := names[leaguesdk.MethodChooseParity]
	if len(names) != 2 || tool == nil || names[leaguesdk.MethodNotifyMatchResult] == nil {
		t.Fatalf("tools: %v", names)
	}
	if tool.Description != "Choose even or odd." || tool.InputSchema == nil {
		t.Fatalf("choose_parity tool: %+v", tool)
	}
	schema, _ := json.Marshal(tool.InputSchema)
	var s struct {
		Type       string         `json:"type"`
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	}
	if err := json.Unmarshal(schema, &s); err != nil || s.Type != "object" || s.Properties["match_id"] == nil || s.Properties["sender"] == nil {
		t.Fatalf("input schema: %s", schema)
	}

	call := chooseParityCall()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: leaguesdk.MethodChooseParity, Arguments: call})
	if err != nil {
		t.Fatalf("call tool: %v", err)
	}
	if res.IsError {
		t.Fatalf("tool error: %+v", res)
	}
	structured, _ := json.Marshal(res.StructuredContent)
	var resp leaguesdk.ChooseParityResponse
	if err := json.Unmarshal(structured, &resp); err != nil {
		t.Fatalf("structured content %s: %v", structured, err)
	}
	if resp.MessageType != leaguesdk.MsgChooseParityResponse || resp.ParityChoice != leaguesdk.Odd || resp.MatchID != call.MatchID ||
		resp.ConversationID != call.ConversationID {
		t.Fatalf("structured response: %+v", resp)
	}
	if err := leaguesdk.Validate(&resp); err != nil {
		t.Fatalf("structured response invalid: %v", err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("content: %+v", res.Content)
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content[0] is %T", res.Content[0])
	}
	var fromText leaguesdk.ChooseParityResponse
	if err := json.Unmarshal([]byte(text.Text), &fromText); err != nil || fromText != resp {
		t.Fatalf("text content %q does not hold the response (%v)", text.Text, err)
	}

	// A protocol error surfaces through the SDK as a JSON-RPC error.
	bad := chooseParityCall()
	bad.Timestamp = "2025-01-15T12:15:05+02:00"
	if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: leaguesdk.MethodChooseParity, Arguments: bad}); err == nil {
		t.Fatal("call with a non-UTC timestamp succeeded")
	}
	if err := session.Ping(ctx, nil); err != nil {
		t.Fatalf("ping: %v", err)
	}
}
