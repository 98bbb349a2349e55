package leaguesdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// recorder is an Observer that keeps what it is told.
type recorder struct {
	mu     sync.Mutex
	events []leaguesdk.CallEvent
}

func (r *recorder) ObserveCall(e leaguesdk.CallEvent) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) all() []leaguesdk.CallEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]leaguesdk.CallEvent(nil), r.events...)
}

func TestMiddlewareWrapsEveryRoutedCallInOrder(t *testing.T) {
	var mu sync.Mutex
	var trace []string
	mw := func(name string) leaguesdk.Middleware {
		return func(next leaguesdk.HandlerFunc) leaguesdk.HandlerFunc {
			return func(ctx context.Context, req *leaguesdk.Request) (any, error) {
				sender := ""
				if req.Envelope != nil {
					sender = req.Envelope.Sender
				}
				mu.Lock()
				trace = append(trace, name+" in "+req.Tool+" "+sender)
				mu.Unlock()
				out, err := next(ctx, req)
				mu.Lock()
				trace = append(trace, name+" out")
				mu.Unlock()
				return out, err
			}
		}
	}
	p := newTestPeer(t, leaguesdk.ServerConfig{Middleware: []leaguesdk.Middleware{mw("outer"), mw("inner")}})
	r, raw := p.rpc(t, mustJSON(t, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "choose_parity", "params": chooseParityCall()}))
	if r.Error != nil {
		t.Fatalf("refused: %s", raw)
	}
	want := []string{"outer in choose_parity referee:REF01", "inner in choose_parity referee:REF01", "inner out", "outer out"}
	if strings.Join(trace, "|") != strings.Join(want, "|") {
		t.Fatalf("middleware ran as %q, want %q", trace, want)
	}
}

func TestMiddlewareCanRefuseBeforeTheHandler(t *testing.T) {
	refuse := func(next leaguesdk.HandlerFunc) leaguesdk.HandlerFunc {
		return func(ctx context.Context, req *leaguesdk.Request) (any, error) {
			return nil, leaguesdk.NewError(leaguesdk.CodeAuthTokenInvalid, "not you")
		}
	}
	p := newTestPeer(t, leaguesdk.ServerConfig{Middleware: []leaguesdk.Middleware{refuse}})
	r, raw := p.rpc(t, mustJSON(t, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "notify_match_result", "params": map[string]any{}}))
	if r.Error == nil || !strings.Contains(string(r.Error.Data), "E012") {
		t.Fatalf("reply %s, want E012 from the middleware", raw)
	}
	if p.gameOver.Load() != 0 {
		t.Fatal("the handler ran although the middleware refused")
	}
}

func TestMiddlewarePanicIsAnInternalError(t *testing.T) {
	boom := func(leaguesdk.HandlerFunc) leaguesdk.HandlerFunc {
		return func(context.Context, *leaguesdk.Request) (any, error) { panic("middleware bug") }
	}
	p := newTestPeer(t, leaguesdk.ServerConfig{Middleware: []leaguesdk.Middleware{boom}})
	r, raw := p.rpc(t, mustJSON(t, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "choose_parity", "params": chooseParityCall()}))
	if r.Error == nil || r.Error.Code != -32603 {
		t.Fatalf("reply %s, want -32603", raw)
	}
}

// A RateLimitError is answered HTTP 429 with Retry-After and a protocol
// error E010 in the JSON-RPC error, which the project's client retries.
func TestRateLimitErrorIsAnswered429WithRetryAfter(t *testing.T) {
	var mu sync.Mutex
	refusals := 1
	limit := func(next leaguesdk.HandlerFunc) leaguesdk.HandlerFunc {
		return func(ctx context.Context, req *leaguesdk.Request) (any, error) {
			mu.Lock()
			refuse := refusals > 0
			refusals--
			mu.Unlock()
			if refuse {
				return nil, &leaguesdk.RateLimitError{RetryAfter: 1500 * time.Millisecond, Caller: "addr:127.0.0.1"}
			}
			return next(ctx, req)
		}
	}
	obs := &recorder{}
	p := newTestPeer(t, leaguesdk.ServerConfig{Middleware: []leaguesdk.Middleware{limit}, Observer: obs})
	resp, raw := post(t, p.ts.URL+"/mcp", "application/json",
		strings.NewReader(mustJSON(t, map[string]any{"jsonrpc": "2.0", "id": 7, "method": "choose_parity", "params": chooseParityCall()})))
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("status %d, Retry-After %q; want 429 and 2", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	var r rpcReply
	if err := json.Unmarshal(raw, &r); err != nil || r.Error == nil || string(r.ID) != "7" {
		t.Fatalf("reply %s is not a JSON-RPC error to id 7", raw)
	}
	var data leaguesdk.GameError
	if err := json.Unmarshal(r.Error.Data, &data); err != nil || data.ErrorCode != leaguesdk.CodeRateLimited || !data.Retryable {
		t.Fatalf("error data %s, want a retryable E010", r.Error.Data)
	}

	// The client retries it and gets through.
	c := leaguesdk.NewClient(leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{Delay: 10 * time.Millisecond}, Observer: obs})
	defer c.Close()
	mu.Lock()
	refusals = 2
	mu.Unlock()
	var out leaguesdk.ChooseParityResponse
	if err := c.Call(context.Background(), p.ts.URL+"/mcp", leaguesdk.MethodChooseParity, chooseParityCall(), &out); err != nil {
		t.Fatalf("client did not get past two rate limits: %v", err)
	}
	var served, made []leaguesdk.CallEvent
	for _, e := range obs.all() {
		if e.Served {
			served = append(served, e)
		} else {
			made = append(made, e)
		}
	}
	outcomes := []string{}
	for _, e := range served {
		outcomes = append(outcomes, e.Method+":"+e.Outcome)
	}
	if strings.Join(outcomes, " ") != "choose_parity:E010 choose_parity:E010 choose_parity:E010 choose_parity:ok" {
		t.Fatalf("served calls observed: %v", outcomes)
	}
	if len(made) != 1 || made[0].Outcome != "ok" || made[0].Attempts != 3 || made[0].Method != leaguesdk.MethodChooseParity {
		t.Fatalf("calls made observed: %+v, want one ok call of 3 attempts", made)
	}
}

func TestOutcome(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, "ok"},
		{leaguesdk.NewError(leaguesdk.CodeTimeout, "slow"), "E001"},
		{&leaguesdk.RateLimitError{RetryAfter: time.Second}, "E010"},
		{errors.New("other"), "error"},
	} {
		if got := leaguesdk.Outcome(tc.err); got != tc.want {
			t.Errorf("Outcome(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
