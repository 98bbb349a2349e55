package leaguesdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// countingPeer is an HTTP peer that counts the requests it receives and
// answers each with handle (n is the 1-based number of the request).
type countingPeer struct {
	ts      *httptest.Server
	url     string
	n       atomic.Int32
	mu      sync.Mutex
	methods []string
	times   []time.Time
}

func newCountingPeer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, req map[string]any, n int)) *countingPeer {
	t.Helper()
	return newCountingPeerWith(t, nil, handle)
}

// newCountingPeerWith is newCountingPeer with a ConnState hook.
func newCountingPeerWith(t *testing.T, connState func(net.Conn, http.ConnState), handle func(w http.ResponseWriter, r *http.Request, req map[string]any, n int)) *countingPeer {
	t.Helper()
	p := &countingPeer{}
	p.ts = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(p.n.Add(1))
		var req map[string]any
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &req)
		m, _ := req["method"].(string)
		p.mu.Lock()
		p.methods = append(p.methods, m)
		p.times = append(p.times, time.Now())
		p.mu.Unlock()
		handle(w, r, req, n)
	}))
	p.ts.Config.ConnState = connState
	p.ts.Start()
	t.Cleanup(p.ts.Close)
	p.url = p.ts.URL + "/mcp"
	return p
}

func (p *countingPeer) count() int { return int(p.n.Load()) }

func (p *countingPeer) seenMethods() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.methods...)
}

func (p *countingPeer) gaps() []time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []time.Duration
	for i := 1; i < len(p.times); i++ {
		out = append(out, p.times[i].Sub(p.times[i-1]))
	}
	return out
}

func writeRaw(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

func resultBody(req map[string]any, result any) string {
	id, _ := json.Marshal(req["id"])
	res, _ := json.Marshal(result)
	return `{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + string(res) + `}`
}

func protocolErrorBody(req map[string]any, code leaguesdk.Code) string {
	id, _ := json.Marshal(req["id"])
	data, _ := json.Marshal(leaguesdk.ErrorMessage(leaguesdk.MsgGameError, &leaguesdk.Error{Code: code, Message: "refused", Context: map[string]any{"k": "v"}},
		"player:P01", leaguesdk.MsgChooseParityCall, fixedNow))
	return `{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":-32000,"message":"` + code.Name() + `","data":` + string(data) + `}}`
}

func hangUp(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

func fastClient(t *testing.T, cfg leaguesdk.ClientConfig) *leaguesdk.Client {
	t.Helper()
	if cfg.Retry.Delay == 0 {
		cfg.Retry.Delay = 10 * time.Millisecond
	}
	if cfg.Breaker.OpenFor == 0 {
		cfg.Breaker.OpenFor = 50 * time.Millisecond
	}
	c := leaguesdk.NewClient(cfg)
	t.Cleanup(c.Close)
	return c
}

func choose(ctx context.Context, c *leaguesdk.Client, endpoint string) (*leaguesdk.ChooseParityResponse, error) {
	var resp leaguesdk.ChooseParityResponse
	err := c.Call(ctx, endpoint, leaguesdk.MethodChooseParity, chooseParityCall(), &resp)
	return &resp, err
}

func mustClientError(t *testing.T, err error, code leaguesdk.Code, endpoint string, attempt int) *leaguesdk.Error {
	t.Helper()
	var e *leaguesdk.Error
	if !errors.As(err, &e) {
		t.Fatalf("want *leaguesdk.Error %s, got %T %v", code, err, err)
	}
	if e.Code != code || e.Endpoint != endpoint || e.Method != leaguesdk.MethodChooseParity || e.Attempt != attempt {
		t.Fatalf("want %s at %s attempt %d, got %s at %s method %s attempt %d (%v)", code, endpoint, attempt, e.Code, e.Endpoint, e.Method, e.Attempt, err)
	}
	if !strings.Contains(err.Error(), endpoint) || !strings.Contains(err.Error(), string(code)) {
		t.Fatalf("error text %q", err)
	}
	return e
}

func TestClientRetriesRetryableFailures(t *testing.T) {
	cases := []struct {
		name   string
		status int
		code   leaguesdk.Code
	}{
		{"503", http.StatusServiceUnavailable, leaguesdk.CodeConnectionError},
		{"500", http.StatusInternalServerError, leaguesdk.CodeConnectionError},
		{"429", http.StatusTooManyRequests, leaguesdk.CodeRateLimited},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			peer := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
				http.Error(w, "busy", tc.status)
			})
			c := fastClient(t, leaguesdk.ClientConfig{})
			_, err := choose(context.Background(), c, peer.url)
			mustClientError(t, err, tc.code, peer.url, 4)
			if peer.count() != 4 {
				t.Fatalf("%d requests, want 1+3", peer.count())
			}
			if leaguesdk.BreakerState(c, peer.url) != "closed" {
				t.Fatalf("breaker %s after 4 failures", leaguesdk.BreakerState(c, peer.url))
			}
		})
	}
	t.Run("connection refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		endpoint := "http://" + ln.Addr().String() + "/mcp"
		ln.Close()
		c := fastClient(t, leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{MaxRetries: 2}})
		_, err = choose(context.Background(), c, endpoint)
		e := mustClientError(t, err, leaguesdk.CodeConnectionError, endpoint, 3)
		if !e.Retryable() {
			t.Fatal("connection error not retryable")
		}
	})
	t.Run("recovers", func(t *testing.T) {
		peer := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
			if n < 3 {
				hangUp(w)
				return
			}
			writeRaw(w, http.StatusOK, resultBody(req, parityResponse()))
		})
		c := fastClient(t, leaguesdk.ClientConfig{})
		resp, err := choose(context.Background(), c, peer.url)
		if err != nil || resp.ParityChoice != leaguesdk.Even || peer.count() != 3 {
			t.Fatalf("resp %+v err %v after %d requests", resp, err, peer.count())
		}
	})
}

func TestClientNoRetries(t *testing.T) {
	peer := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
		http.Error(w, "busy", http.StatusServiceUnavailable)
	})
	c := fastClient(t, leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{MaxRetries: leaguesdk.NoRetries}})
	_, err := choose(context.Background(), c, peer.url)
	mustClientError(t, err, leaguesdk.CodeConnectionError, peer.url, 1)
	if peer.count() != 1 {
		t.Fatalf("%d requests with NoRetries", peer.count())
	}
	c2 := fastClient(t, leaguesdk.ClientConfig{})
	_, err = leaguesdk.CallWith[leaguesdk.ChooseParityResponse](context.Background(), c2, peer.url, chooseParityCall(),
		leaguesdk.CallOptions{Retry: leaguesdk.Once()})
	mustClientError(t, err, leaguesdk.CodeConnectionError, peer.url, 1)
	if peer.count() != 2 {
		t.Fatalf("%d requests after a call with leaguesdk.Once()", peer.count())
	}
}

func TestClientDoesNotRetryProtocolErrors(t *testing.T) {
	for _, code := range []leaguesdk.Code{leaguesdk.CodeInvalidParityChoice, leaguesdk.CodeAuthTokenInvalid, leaguesdk.CodeMatchNotFound} {
		t.Run(string(code), func(t *testing.T) {
			peer := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
				writeRaw(w, http.StatusOK, protocolErrorBody(req, code))
			})
			c := fastClient(t, leaguesdk.ClientConfig{})
			for i := 1; i <= 6; i++ {
				_, err := choose(context.Background(), c, peer.url)
				e := mustClientError(t, err, code, peer.url, 1)
				if e.Context["k"] != "v" || e.Message != "refused" {
					t.Fatalf("error details lost: %+v", e)
				}
				var rpc *leaguesdk.RPCError
				if !errors.As(err, &rpc) || rpc.Code != leaguesdk.RPCServerError {
					t.Fatalf("RPCError not in the chain: %v", err)
				}
				if peer.count() != i {
					t.Fatalf("%d requests after %d calls", peer.count(), i)
				}
			}
			// Six answered errors in a row: a peer that answers is up.
			if s := leaguesdk.BreakerState(c, peer.url); s != "closed" {
				t.Fatalf("breaker %s", s)
			}
		})
	}
}

func TestClientBackoffTiming(t *testing.T) {
	failing := func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
		http.Error(w, "busy", http.StatusServiceUnavailable)
	}
	t.Run("constant", func(t *testing.T) {
		peer := newCountingPeer(t, failing)
		c := fastClient(t, leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{Delay: 30 * time.Millisecond}})
		_, _ = choose(context.Background(), c, peer.url)
		gaps := peer.gaps()
		if len(gaps) != 3 {
			t.Fatalf("gaps %v", gaps)
		}
		for _, g := range gaps {
			if g < 30*time.Millisecond {
				t.Fatalf("retry after %v, want ≥ 30ms: %v", g, gaps)
			}
		}
	})
	t.Run("exponential", func(t *testing.T) {
		peer := newCountingPeer(t, failing)
		c := fastClient(t, leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{Delay: 30 * time.Millisecond, Exponential: true}})
		_, _ = choose(context.Background(), c, peer.url)
		gaps := peer.gaps()
		if len(gaps) != 3 {
			t.Fatalf("gaps %v", gaps)
		}
		for i, min := range []time.Duration{30 * time.Millisecond, 60 * time.Millisecond, 120 * time.Millisecond} {
			if gaps[i] < min {
				t.Fatalf("gap %d is %v, want ≥ %v: %v", i, gaps[i], min, gaps)
			}
		}
	})
}

func TestClientDeadline(t *testing.T) {
	slow := func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}
	const slack = 300 * time.Millisecond
	t.Run("context deadline", func(t *testing.T) {
		peer := newCountingPeer(t, slow)
		c := fastClient(t, leaguesdk.ClientConfig{})
		// The clock starts before the deadline is set, so the deadline can
		// never fall earlier than start+150ms.
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
		defer cancel()
		_, err := choose(ctx, c, peer.url)
		took := time.Since(start)
		mustClientError(t, err, leaguesdk.CodeTimeout, peer.url, 1)
		if took < 150*time.Millisecond || took > 150*time.Millisecond+slack {
			t.Fatalf("took %v for a 150ms deadline", took)
		}
		if peer.count() != 1 {
			t.Fatalf("%d requests: retried past the deadline", peer.count())
		}
		if !errors.Is(err, context.DeadlineExceeded) && leaguesdk.CodeOf(err) != leaguesdk.CodeTimeout {
			t.Fatal(err)
		}
	})
	t.Run("client timeout", func(t *testing.T) {
		peer := newCountingPeer(t, slow)
		c := fastClient(t, leaguesdk.ClientConfig{Timeout: 100 * time.Millisecond})
		start := time.Now()
		_, err := choose(context.Background(), c, peer.url)
		took := time.Since(start)
		mustClientError(t, err, leaguesdk.CodeTimeout, peer.url, 1)
		if took > 100*time.Millisecond+slack || peer.count() != 1 {
			t.Fatalf("took %v, %d requests", took, peer.count())
		}
	})
	t.Run("retries stop at the deadline", func(t *testing.T) {
		peer := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
			http.Error(w, "busy", http.StatusServiceUnavailable)
		})
		c := fastClient(t, leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{Delay: 60 * time.Millisecond}})
		// The clock starts before the deadline is set, so the deadline can
		// never fall earlier than start+150ms.
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
		defer cancel()
		_, err := choose(ctx, c, peer.url)
		took := time.Since(start)
		if leaguesdk.CodeOf(err) != leaguesdk.CodeConnectionError {
			t.Fatal(err)
		}
		// Attempts at 0, 60 and 120 ms; a retry at 180 ms would pass the deadline.
		if n := peer.count(); n < 2 || n > 3 {
			t.Fatalf("%d requests", n)
		}
		if took > 150*time.Millisecond+slack {
			t.Fatalf("took %v", took)
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		peer := newCountingPeer(t, slow)
		c := fastClient(t, leaguesdk.ClientConfig{})
		for i := 0; i < 7; i++ {
			ctx, cancel := context.WithCancel(context.Background())
			// Cancel once the peer has the request, not at a fixed time: a
			// call cancelled before its request left never reaches the peer.
			go func() {
				for deadline := time.Now().Add(5 * time.Second); peer.count() <= i && time.Now().Before(deadline); {
					time.Sleep(time.Millisecond)
				}
				cancel()
			}()
			_, err := choose(ctx, c, peer.url)
			cancel()
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("call %d: %v", i, err)
			}
		}
		if peer.count() != 7 {
			t.Fatalf("%d requests: a cancelled call was retried", peer.count())
		}
		// Cancelled calls are not failures of the peer.
		if s := leaguesdk.BreakerState(c, peer.url); s != "closed" {
			t.Fatalf("breaker %s after cancelled calls", s)
		}
	})
}

func TestClientCircuitBreaker(t *testing.T) {
	var healthy atomic.Bool
	release := make(chan struct{})
	var hold atomic.Bool
	arrived := make(chan struct{}, 4)
	peer := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
		if !healthy.Load() {
			hangUp(w)
			return
		}
		if hold.Load() {
			arrived <- struct{}{}
			<-release
		}
		writeRaw(w, http.StatusOK, resultBody(req, parityResponse()))
	})
	other := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
		writeRaw(w, http.StatusOK, resultBody(req, parityResponse()))
	})
	c := fastClient(t, leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{MaxRetries: leaguesdk.NoRetries}, Breaker: leaguesdk.BreakerPolicy{OpenFor: 80 * time.Millisecond}})
	for i := 1; i <= 5; i++ {
		_, err := choose(context.Background(), c, peer.url)
		mustClientError(t, err, leaguesdk.CodeConnectionError, peer.url, 1)
		if errors.Is(err, leaguesdk.ErrCircuitOpen) {
			t.Fatalf("call %d refused by the breaker", i)
		}
	}
	if peer.count() != 5 || leaguesdk.BreakerState(c, peer.url) != "open" {
		t.Fatalf("%d requests, breaker %s", peer.count(), leaguesdk.BreakerState(c, peer.url))
	}
	// The 6th call is refused without a request.
	_, err := choose(context.Background(), c, peer.url)
	mustClientError(t, err, leaguesdk.CodeConnectionError, peer.url, 1)
	if !errors.Is(err, leaguesdk.ErrCircuitOpen) || peer.count() != 5 {
		t.Fatalf("6th call: %v after %d requests", err, peer.count())
	}
	// Another endpoint is unaffected.
	if _, err := choose(context.Background(), c, other.url); err != nil || other.count() != 1 || leaguesdk.BreakerState(c, other.url) != "closed" {
		t.Fatalf("other endpoint: %v", err)
	}
	// After OpenFor the breaker lets one probe through; while it runs, other calls are refused.
	healthy.Store(true)
	hold.Store(true)
	deadline := time.Now().Add(2 * time.Second)
	for leaguesdk.BreakerState(c, peer.url) != "half-open" {
		if time.Now().After(deadline) {
			t.Fatal("breaker never half-open")
		}
		time.Sleep(5 * time.Millisecond)
	}
	probe := make(chan error, 1)
	go func() {
		_, err := choose(context.Background(), c, peer.url)
		probe <- err
	}()
	<-arrived
	if _, err := choose(context.Background(), c, peer.url); !errors.Is(err, leaguesdk.ErrCircuitOpen) {
		t.Fatalf("second call during the probe: %v", err)
	}
	close(release)
	if err := <-probe; err != nil {
		t.Fatalf("probe: %v", err)
	}
	if peer.count() != 6 || leaguesdk.BreakerState(c, peer.url) != "closed" {
		t.Fatalf("%d requests, breaker %s after the probe", peer.count(), leaguesdk.BreakerState(c, peer.url))
	}
	hold.Store(false)
	if _, err := choose(context.Background(), c, peer.url); err != nil || peer.count() != 7 {
		t.Fatalf("after closing: %v, %d requests", err, peer.count())
	}
}

func TestClientBreakerWithRetries(t *testing.T) {
	peer := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) { hangUp(w) })
	c := fastClient(t, leaguesdk.ClientConfig{Breaker: leaguesdk.BreakerPolicy{OpenFor: time.Minute}})
	_, err := choose(context.Background(), c, peer.url) // 4 attempts, 4 failures
	mustClientError(t, err, leaguesdk.CodeConnectionError, peer.url, 4)
	_, err = choose(context.Background(), c, peer.url) // 5th failure opens; the retry is refused and not retried further
	mustClientError(t, err, leaguesdk.CodeConnectionError, peer.url, 2)
	if !errors.Is(err, leaguesdk.ErrCircuitOpen) || peer.count() != 5 {
		t.Fatalf("%v after %d requests", err, peer.count())
	}
	disabled := fastClient(t, leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{MaxRetries: leaguesdk.NoRetries}, Breaker: leaguesdk.BreakerPolicy{Disabled: true}})
	for i := 0; i < 7; i++ {
		if _, err := choose(context.Background(), disabled, peer.url); errors.Is(err, leaguesdk.ErrCircuitOpen) {
			t.Fatal("disabled breaker refused a call")
		}
	}
	if peer.count() != 12 {
		t.Fatalf("%d requests", peer.count())
	}
}

func TestClientWireFormFallback(t *testing.T) {
	call := chooseParityCall()
	t.Run("tools/call", func(t *testing.T) {
		peer := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
			if req["method"] != "tools/call" {
				id, _ := json.Marshal(req["id"])
				writeRaw(w, http.StatusOK, `{"jsonrpc":"2.0","id":`+string(id)+`,"error":{"code":-32601,"message":"Method not found"}}`)
				return
			}
			params := req["params"].(map[string]any)
			args, _ := json.Marshal(params["arguments"])
			var in leaguesdk.ChooseParityCall
			if params["name"] != leaguesdk.MethodChooseParity || json.Unmarshal(args, &in) != nil || in.MatchID != "R1M1" {
				writeRaw(w, http.StatusOK, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}}`)
				return
			}
			text, _ := json.Marshal(parityResponse())
			writeRaw(w, http.StatusOK, resultBody(req, map[string]any{"content": []map[string]any{{"type": "text", "text": string(text)}}}))
		})
		c := fastClient(t, leaguesdk.ClientConfig{})
		var resp leaguesdk.ChooseParityResponse
		if err := c.Call(context.Background(), peer.url, leaguesdk.MethodChooseParity, call, &resp); err != nil || resp.ParityChoice != leaguesdk.Even {
			t.Fatalf("first call: %+v %v", resp, err)
		}
		if got := strings.Join(peer.seenMethods(), ","); got != "choose_parity,CHOOSE_PARITY_CALL,handle_message,tools/call" {
			t.Fatalf("first call methods %s", got)
		}
		if err := c.Call(context.Background(), peer.url, leaguesdk.MethodChooseParity, call, &resp); err != nil {
			t.Fatal(err)
		}
		if peer.count() != 5 || peer.seenMethods()[4] != "tools/call" {
			t.Fatalf("second call: %v", peer.seenMethods())
		}
	})
	t.Run("message type method after 404", func(t *testing.T) {
		peer := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
			if req["method"] != "CHOOSE_PARITY_CALL" {
				http.NotFound(w, r)
				return
			}
			writeRaw(w, http.StatusOK, resultBody(req, parityResponse()))
		})
		c := fastClient(t, leaguesdk.ClientConfig{})
		for i := 0; i < 3; i++ {
			if _, err := choose(context.Background(), c, peer.url); err != nil {
				t.Fatal(err)
			}
		}
		if got := strings.Join(peer.seenMethods(), ","); got != "choose_parity,CHOOSE_PARITY_CALL,CHOOSE_PARITY_CALL,CHOOSE_PARITY_CALL" {
			t.Fatalf("methods %s", got)
		}
	})
	t.Run("envelope form", func(t *testing.T) {
		peer := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
			params, _ := req["params"].(map[string]any)
			if req["method"] != "handle_message" || params["message"] == nil {
				writeRaw(w, http.StatusOK, protocolErrorBody(req, leaguesdk.CodeMissingRequiredField))
				return
			}
			writeRaw(w, http.StatusOK, resultBody(req, parityResponse()))
		})
		c := fastClient(t, leaguesdk.ClientConfig{})
		if _, err := choose(context.Background(), c, peer.url); err != nil {
			t.Fatal(err)
		}
		if _, err := choose(context.Background(), c, peer.url); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(peer.seenMethods(), ","); got != "choose_parity,CHOOSE_PARITY_CALL,handle_message,handle_message" {
			t.Fatalf("methods %s", got)
		}
	})
	t.Run("no form accepted", func(t *testing.T) {
		peer := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
			id, _ := json.Marshal(req["id"])
			writeRaw(w, http.StatusOK, `{"jsonrpc":"2.0","id":`+string(id)+`,"error":{"code":-32601,"message":"Method not found"}}`)
		})
		c := fastClient(t, leaguesdk.ClientConfig{})
		_, err := choose(context.Background(), c, peer.url)
		var rpc *leaguesdk.RPCError
		if !errors.As(err, &rpc) || rpc.Code != leaguesdk.RPCMethodNotFound || peer.count() != 4 {
			t.Fatalf("%v after %d requests", err, peer.count())
		}
		mustClientError(t, err, "", peer.url, 1)
		if leaguesdk.BreakerState(c, peer.url) != "closed" {
			t.Fatal("method-not-found counted as a failure")
		}
	})
}

func TestClientReplyShapes(t *testing.T) {
	resp := parityResponse()
	msg, _ := json.Marshal(resp)
	withChoice := strings.Replace(string(msg), `"parity_choice"`, `"choice"`, 1)
	cases := []struct {
		name        string
		contentType string
		status      int
		body        func(id string) string
	}{
		{"result", "application/json", 200, func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":` + string(msg) + `}` }},
		{"structuredContent", "application/json", 200, func(id string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"ok"}],"structuredContent":` + string(msg) + `}}`
		}},
		{"content text", "application/json", 200, func(id string) string {
			text, _ := json.Marshal(string(msg))
			return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":` + string(text) + `}]}}`
		}},
		{"request-shaped reply", "application/json", 200, func(id string) string {
			return `{"jsonrpc":"2.0","method":"choose_parity_response","params":` + string(msg) + `}`
		}},
		{"top level", "application/json", 200, func(id string) string { return string(msg) }},
		{"result.message", "application/json", 200, func(id string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"result":{"message":` + string(msg) + `}}`
		}},
		{"choice alias", "application/json", 200, func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":` + withChoice + `}` }},
		{"SSE", "text/event-stream", 200, func(id string) string {
			return "event: message\nid: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":" + string(msg) + "}\n\n"
		}},
		{"SSE split over data lines", "text/event-stream; charset=utf-8", 200, func(id string) string {
			return ": comment\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\ndata: \"id\":" + id + ",\ndata:\"result\":" + string(msg) + "}\n\ndata: {\"ignored\":true}\n\n"
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var accept, ctype atomic.Value
			peer := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
				accept.Store(r.Header.Get("Accept"))
				ctype.Store(r.Header.Get("Content-Type"))
				id, _ := json.Marshal(req["id"])
				w.Header().Set("Content-Type", tc.contentType)
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body(string(id)))
			})
			c := fastClient(t, leaguesdk.ClientConfig{})
			got, err := choose(context.Background(), c, peer.url)
			if err != nil {
				t.Fatal(err)
			}
			if *got != *resp {
				t.Fatalf("got %+v", got)
			}
			if accept.Load() != "application/json, text/event-stream" || ctype.Load() != "application/json" || peer.count() != 1 {
				t.Fatalf("accept %v content type %v, %d requests", accept.Load(), ctype.Load(), peer.count())
			}
		})
	}
}

func TestClientErrorReplies(t *testing.T) {
	leagueErr := leaguesdk.ErrorMessage(leaguesdk.MsgLeagueError, &leaguesdk.Error{Code: leaguesdk.CodeAuthTokenInvalid, Message: "token belongs to P02"},
		leaguesdk.LeagueManagerSender, leaguesdk.MsgLeagueQuery, fixedNow)
	errJSON, _ := json.Marshal(leagueErr)
	cases := []struct {
		name     string
		status   int
		body     func(id string) string
		code     leaguesdk.Code
		requests int
	}{
		{"LEAGUE_ERROR as result", 200, func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":` + string(errJSON) + `}` }, leaguesdk.CodeAuthTokenInvalid, 1},
		{"-32000 on HTTP 401", 401, func(id string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32000,"message":"AUTH_TOKEN_INVALID","data":` + string(errJSON) + `}}`
		}, leaguesdk.CodeAuthTokenInvalid, 1},
		{"-32000 on HTTP 500 is an answer, not retried", 500, func(id string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32000,"message":"AUTH_TOKEN_INVALID","data":` + string(errJSON) + `}}`
		}, leaguesdk.CodeAuthTokenInvalid, 1},
		// A 4xx without a JSON-RPC body: the peer is up and refused the form;
		// no retries, but each other wire form is tried once.
		{"plain 400", 400, func(id string) string { return "bad request" }, "", 4},
		{"plain 403", 403, func(id string) string { return "forbidden" }, "", 1},
		// Replies that cannot be read are not a refused form: one request.
		{"202 without a body", 202, func(id string) string { return "" }, leaguesdk.CodeMissingRequiredField, 1},
		{"not JSON-RPC", 200, func(id string) string { return `{"hello":"world"}` }, leaguesdk.CodeMissingRequiredField, 1},
		{"reply does not decode", 200, func(id string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"result":{"message_type":"CHOOSE_PARITY_RESPONSE","match_id":7}}`
		}, leaguesdk.CodeMissingRequiredField, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			peer := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
				id, _ := json.Marshal(req["id"])
				writeRaw(w, tc.status, tc.body(string(id)))
			})
			c := fastClient(t, leaguesdk.ClientConfig{})
			_, err := choose(context.Background(), c, peer.url)
			attempts := 1
			if tc.code.Retryable() {
				attempts = tc.requests
			}
			mustClientError(t, err, tc.code, peer.url, attempts)
			if peer.count() != tc.requests {
				t.Fatalf("%d requests, want %d", peer.count(), tc.requests)
			}
			if leaguesdk.BreakerState(c, peer.url) != "closed" {
				t.Fatal("an answer counted as a failure")
			}
		})
	}
}

func TestClientBadInput(t *testing.T) {
	c := fastClient(t, leaguesdk.ClientConfig{})
	err := c.Call(context.Background(), "http://127.0.0.1:1/mcp", "x", map[string]any{"bad": make(chan int)}, nil)
	if leaguesdk.CodeOf(err) != leaguesdk.CodeMissingRequiredField {
		t.Fatalf("unencodable params: %v", err)
	}
	err = c.Call(context.Background(), "://nowhere", "x", map[string]any{}, nil)
	if leaguesdk.CodeOf(err) != leaguesdk.CodeConnectionError {
		t.Fatalf("bad endpoint: %v", err)
	}
}

func TestClientReusesConnections(t *testing.T) {
	const fanOut = 16
	var mu sync.Mutex
	conns := 0
	var waiting atomic.Int32
	gate := make(chan struct{})
	var gated atomic.Bool
	gated.Store(true)
	countConn := func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			mu.Lock()
			conns++
			mu.Unlock()
		}
	}
	peer := newCountingPeerWith(t, countConn, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
		if gated.Load() {
			if waiting.Add(1) == fanOut {
				close(gate)
			}
			select {
			case <-gate:
			case <-time.After(5 * time.Second):
			}
		}
		writeRaw(w, http.StatusOK, resultBody(req, parityResponse()))
	})
	c := fastClient(t, leaguesdk.ClientConfig{})
	wave := func() {
		var wg sync.WaitGroup
		for i := 0; i < fanOut; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := choose(context.Background(), c, peer.url); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
	}
	wave() // all 16 at once: 16 connections
	gated.Store(false)
	wave()
	for i := 0; i < 20; i++ {
		if _, err := choose(context.Background(), c, peer.url); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if conns != fanOut {
		t.Fatalf("%d connections for %d calls with fan-out %d", conns, peer.count(), fanOut)
	}
}

// A cancelled context ends the pause before a retry at once.
func TestClientCancelDuringRetryPause(t *testing.T) {
	peer := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
		http.Error(w, "busy", http.StatusServiceUnavailable)
	})
	c := leaguesdk.NewClient(leaguesdk.ClientConfig{}) // default policy: 3 retries, 2 s apart
	t.Cleanup(c.Close)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := choose(ctx, c, peer.url)
	took := time.Since(start)
	if !errors.Is(err, context.Canceled) || took > time.Second || peer.count() != 1 {
		t.Fatalf("%v after %v and %d requests", err, took, peer.count())
	}
	mustClientError(t, err, leaguesdk.CodeConnectionError, peer.url, 1)
}

// A client that calls the same many peers round after round keeps a
// connection to each when MaxIdleConns is negative; with the default cap
// (4 × MaxIdleConnsPerHost) it opens new ones.
func TestClientMaxIdleConnsKeepsAConnectionPerPeer(t *testing.T) {
	const peers, rounds = 12, 3
	var opened atomic.Int64
	var urls []string
	for range peers {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
		}))
		srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				opened.Add(1)
			}
		}
		srv.Start()
		t.Cleanup(srv.Close)
		urls = append(urls, srv.URL+"/mcp")
	}
	for _, c := range []struct {
		maxIdle int
		atMost  int64
		atLeast int64
	}{{-1, peers, peers}, {0, peers * rounds, peers + 1}} {
		opened.Store(0)
		client := leaguesdk.NewClient(leaguesdk.ClientConfig{MaxIdleConnsPerHost: 1, MaxIdleConns: c.maxIdle,
			Retry: leaguesdk.RetryPolicy{MaxRetries: -1}})
		for range rounds {
			for _, u := range urls {
				if err := client.Call(context.Background(), u, "ping_tool", map[string]any{}, nil); err != nil {
					t.Fatal(err)
				}
			}
		}
		client.Close()
		if n := opened.Load(); n < c.atLeast || n > c.atMost {
			t.Errorf("MaxIdleConns %d: %d connections for %d calls to %d peers, want %d to %d",
				c.maxIdle, n, peers*rounds, peers, c.atLeast, c.atMost)
		}
	}
}

// A request is sent whole whatever its size: small ones in one buffer,
// large ones (a broadcast table) as their parts.
func TestClientSendsSmallAndLargeBodiesWhole(t *testing.T) {
	var got [][]byte
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, b)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	defer srv.Close()
	client := leaguesdk.NewClient(leaguesdk.ClientConfig{})
	defer client.Close()
	for _, n := range []int{10, 3 << 10, 20 << 10, 200 << 10} {
		params := map[string]string{"blob": strings.Repeat("x", n)}
		if err := client.Call(context.Background(), srv.URL+"/mcp", "store", params, nil); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		last := got[len(got)-1]
		mu.Unlock()
		var req struct {
			JSONRPC string            `json:"jsonrpc"`
			Method  string            `json:"method"`
			Params  map[string]string `json:"params"`
		}
		if err := json.Unmarshal(last, &req); err != nil || req.Method != "store" || req.JSONRPC != "2.0" || len(req.Params["blob"]) != n {
			t.Fatalf("a %d-byte message arrived as %d bytes (%v): method %q, blob of %d", n, len(last), err, req.Method, len(req.Params["blob"]))
		}
	}
}

func TestClientForgetClosesTheBreakerOfAPeerBackFromARestart(t *testing.T) {
	var up atomic.Bool
	peer := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
		if !up.Load() {
			hangUp(w)
			return
		}
		writeRaw(w, http.StatusOK, resultBody(req, parityResponse()))
	})
	c := fastClient(t, leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{MaxRetries: leaguesdk.NoRetries},
		Breaker: leaguesdk.BreakerPolicy{Failures: 2, OpenFor: time.Hour}})
	for range 2 {
		if _, err := choose(context.Background(), c, peer.url); err == nil {
			t.Fatal("a call to a peer that hangs up succeeded")
		}
	}
	up.Store(true) // the peer started again
	if _, err := choose(context.Background(), c, peer.url); !errors.Is(err, leaguesdk.ErrCircuitOpen) || peer.count() != 2 {
		t.Fatalf("before Forget: %v after %d requests, want the open circuit's refusal", err, peer.count())
	}
	c.Forget(peer.url)
	if _, err := choose(context.Background(), c, peer.url); err != nil || peer.count() != 3 {
		t.Fatalf("after Forget: %v after %d requests", err, peer.count())
	}
	if got := leaguesdk.BreakerState(c, peer.url); got != "closed" {
		t.Fatalf("breaker %s after Forget and a success", got)
	}
}
