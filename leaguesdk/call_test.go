package leaguesdk_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// liveParityCall is a CHOOSE_PARITY_CALL stamped now, its deadline 30s on.
func liveParityCall() *leaguesdk.ChooseParityCall {
	return &leaguesdk.ChooseParityCall{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityCall, "referee:REF01", "tok_r", "", time.Now()),
		MatchID:  "R1M1", PlayerID: "P01", GameType: leaguesdk.GameEvenOdd,
		Deadline: leaguesdk.FormatTime(time.Now().Add(30 * time.Second)),
	}
}

func TestTypedCallMethodFromMessageType(t *testing.T) {
	ts := newParityServer(t)
	c := leaguesdk.NewClient(leaguesdk.ClientConfig{})
	defer c.Close()
	call := liveParityCall()
	resp, err := leaguesdk.Call[leaguesdk.ChooseParityResponse](context.Background(), c, ts.URL+"/mcp", call)
	if err != nil {
		t.Fatal(err)
	}
	if resp.ParityChoice != leaguesdk.Even || resp.MatchID != "R1M1" {
		t.Fatalf("got %+v", resp)
	}
	// A reply type has no method: refused before anything is sent.
	_, err = leaguesdk.Call[leaguesdk.Ack](context.Background(), c, ts.URL+"/mcp", resp)
	var e *leaguesdk.Error
	if !errors.As(err, &e) || e.Code != leaguesdk.CodeMissingRequiredField {
		t.Fatalf("want a refusal, got %v", err)
	}
}

func TestMethodOfEveryRequestType(t *testing.T) {
	for typ, method := range map[leaguesdk.MessageType]string{
		leaguesdk.MsgChooseParityCall:     leaguesdk.MethodChooseParity,
		leaguesdk.MsgGameInvitation:       leaguesdk.MethodHandleGameInvitation,
		leaguesdk.MsgGameOver:             leaguesdk.MethodNotifyMatchResult,
		leaguesdk.MsgMatchResultReport:    leaguesdk.MethodReportMatchResult,
		leaguesdk.MsgStartMatch:           leaguesdk.MethodStartMatch,
		leaguesdk.MsgChooseParityResponse: "",
	} {
		if got := leaguesdk.MethodOf(typ); got != method {
			t.Errorf("MethodOf(%s) = %q, want %q", typ, got, method)
		}
	}
}
