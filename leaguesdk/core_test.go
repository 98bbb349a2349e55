package leaguesdk_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

func newParityServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{Sender: func() string { return "player:P01" }})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodChooseParity, Aliases: []string{"parity_choose"}},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.ChooseParityCall) (*leaguesdk.ChooseParityResponse, error) {
			return &leaguesdk.ChooseParityResponse{
				Envelope:     leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityResponse, "player:P01", "tok_x", in.ConversationID, time.Now()),
				MatchID:      in.MatchID,
				PlayerID:     "P01",
				ParityChoice: leaguesdk.Even,
			}, nil
		})
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts
}

func TestCallRoundTrip(t *testing.T) {
	ts := newParityServer(t)
	c := leaguesdk.NewClient(leaguesdk.ClientConfig{})
	defer c.Close()
	call := liveParityCall()
	var resp leaguesdk.ChooseParityResponse
	if err := c.Call(context.Background(), ts.URL+"/mcp", leaguesdk.MethodChooseParity, call, &resp); err != nil {
		t.Fatal(err)
	}
	if resp.ParityChoice != leaguesdk.Even || resp.MatchID != "R1M1" {
		t.Fatalf("got %+v", resp)
	}
	// Invalid message: wrong protocol → E018 through the JSON-RPC error.
	bad := *call
	bad.Protocol = "league.v1"
	err := c.Call(context.Background(), ts.URL+"/mcp", leaguesdk.MethodChooseParity, &bad, &resp)
	var e *leaguesdk.Error
	if !errors.As(err, &e) || e.Code != leaguesdk.CodeProtocolVersionMismatch {
		t.Fatalf("want E018, got %v", err)
	}
}
