package leaguesdk_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// A player serves choose_parity; a referee calls it with a Client.
func ExampleHandle() {
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{Sender: func() string { return "player:P01" }})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodChooseParity, Description: "Choose even or odd."},
		func(ctx context.Context, _ *leaguesdk.Request, call *leaguesdk.ChooseParityCall) (*leaguesdk.ChooseParityResponse, error) {
			return &leaguesdk.ChooseParityResponse{
				Envelope:     leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityResponse, "player:P01", "tok_2d8f6a1c9e4b7d3f0a5c8e2b6d9f1a4c", call.ConversationID, time.Now()),
				MatchID:      call.MatchID,
				PlayerID:     "P01",
				ParityChoice: leaguesdk.Even,
			}, nil
		})
	ts := httptest.NewServer(srv)
	defer ts.Close()

	client := leaguesdk.NewClient(leaguesdk.ClientConfig{})
	defer client.Close()
	call := &leaguesdk.ChooseParityCall{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityCall, "referee:REF01", "tok_7c1e4b9a2f6d3e8c5a0b9d4f1e7c2a6b", "conv-r1m1-001", time.Now()),
		MatchID:  "R1M1",
		PlayerID: "P01",
		GameType: leaguesdk.GameEvenOdd,
		Deadline: leaguesdk.FormatTime(time.Now().Add(leaguesdk.DefaultChoiceTimeout)),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// The method (choose_parity) comes from the message type.
	resp, err := leaguesdk.Call[leaguesdk.ChooseParityResponse](ctx, client, ts.URL+"/mcp", call)
	if err != nil {
		fmt.Println("call failed:", err)
		return
	}
	fmt.Println(resp.MessageType, resp.MatchID, resp.ParityChoice)
	// Output: CHOOSE_PARITY_RESPONSE R1M1 even
}

// The protocol is case sensitive: "EVEN" is not a parity choice.
func ExampleValidate() {
	resp := &leaguesdk.ChooseParityResponse{
		Envelope:     leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityResponse, "player:P01", "tok_2d8f6a1c9e4b7d3f0a5c8e2b6d9f1a4c", "conv-r1m1-001", time.Now()),
		MatchID:      "R1M1",
		ParityChoice: "EVEN",
	}
	err := leaguesdk.Validate(resp)
	var e *leaguesdk.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Code.Name(), e.Field)
	}
	resp.Timestamp = "2025-01-15T12:15:10+02:00"
	resp.ParityChoice = leaguesdk.Even
	fmt.Println(leaguesdk.CodeOf(leaguesdk.Validate(resp)))
	// Output:
	// E004 INVALID_PARITY_CHOICE parity_choice
	// E021
}

func ExampleCodeOf() {
	err := fmt.Errorf("asking P02: %w", &leaguesdk.Error{Code: leaguesdk.CodeTimeout, Message: "no reply before the deadline"})
	code := leaguesdk.CodeOf(err)
	fmt.Println(code, code.Name(), code.Retryable())
	fmt.Println(leaguesdk.CodeOf(context.DeadlineExceeded))
	fmt.Println(leaguesdk.CodeOf(errors.New("anything else")) == "")
	// Output:
	// E001 TIMEOUT_ERROR true
	// E001
	// true
}

// PeerTool picks, among the tools a peer lists, the one a message goes
// under when the peer serves it only by a name of its own, as an
// MCP-native implementation does.
func ExamplePeerTool() {
	listed := []string{"register_player", "receive_game_invitation", "choose_parity", "receive_game_over", "receive_round_completed"}
	fmt.Println(leaguesdk.PeerTool(listed, leaguesdk.MethodHandleGameInvitation, leaguesdk.MsgGameInvitation))
	fmt.Println(leaguesdk.PeerTool(listed, leaguesdk.MethodNotifyMatchResult, leaguesdk.MsgGameOver))
	fmt.Println(leaguesdk.PeerTool(listed, leaguesdk.MethodNotifyRoundCompleted, leaguesdk.MsgRoundCompleted))
	fmt.Printf("%q\n", leaguesdk.PeerTool(listed, leaguesdk.MethodNotifyGameError, leaguesdk.MsgGameError))
	// Output:
	// receive_game_invitation
	// receive_game_over
	// receive_round_completed
	// ""
}
