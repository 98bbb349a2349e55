package leaguesdk_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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

// A call's own retry policy replaces the client's: each failed attempt
// that will be retried is told to OnRetry with its number and pause, an
// attempt that hangs is cut at AttemptTimeout, and RetryUntilDone keeps
// trying past the client's three retries until the peer answers.
func TestCallWithItsOwnRetryPolicy(t *testing.T) {
	peer := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
		switch {
		case n == 2: // hangs past the attempt's timeout
			<-r.Context().Done()
		case n < 6:
			http.Error(w, "busy", http.StatusServiceUnavailable)
		default:
			writeRaw(w, http.StatusOK, resultBody(req, parityResponse()))
		}
	})
	c := fastClient(t, leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{MaxRetries: leaguesdk.NoRetries},
		Breaker: leaguesdk.BreakerPolicy{Disabled: true}})
	var retried []int
	policy := &leaguesdk.RetryPolicy{MaxRetries: leaguesdk.RetryUntilDone, Delay: time.Millisecond, AttemptTimeout: 50 * time.Millisecond,
		OnRetry: func(attempt int, err error, pause time.Duration) {
			if pause != time.Millisecond {
				t.Errorf("pause %v before attempt %d, want 1ms", pause, attempt+1)
			}
			retried = append(retried, attempt)
		}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := leaguesdk.CallWith[leaguesdk.ChooseParityResponse](ctx, c, peer.url, chooseParityCall(), leaguesdk.CallOptions{Retry: policy})
	if err != nil || resp.ParityChoice != leaguesdk.Even {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
	if peer.count() != 6 || fmt.Sprint(retried) != "[1 2 3 4 5]" {
		t.Fatalf("%d requests, retries after attempts %v; want 6 and [1 2 3 4 5]", peer.count(), retried)
	}
	// The client's own policy is untouched: one attempt.
	if _, err := leaguesdk.Call[leaguesdk.ChooseParityResponse](ctx, c, peer.url+"?again", chooseParityCall()); err != nil {
		t.Fatal(err)
	}
	if peer.count() != 7 {
		t.Fatalf("%d requests after a call with the client's policy, want 7", peer.count())
	}
}
