package leaguesdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentleague/league/leaguesdk"
)

// sdkParityServer returns an MCP server built on the official Go SDK with
// a choose_parity tool answering a CHOOSE_PARITY_RESPONSE (as structured
// content and JSON text, or as JSON text only).
func sdkParityServer(textOnly bool) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "sdk-player", Version: "1.0.0"}, nil)
	srv.AddTool(&mcp.Tool{Name: leaguesdk.MethodChooseParity, InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in leaguesdk.ChooseParityCall
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || in.MessageType != leaguesdk.MsgChooseParityCall {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "not a parity call"}}}, nil
			}
			resp := &leaguesdk.ChooseParityResponse{
				Envelope:     leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityResponse, "player:P01", testToken, in.ConversationID, fixedNow),
				MatchID:      in.MatchID,
				PlayerID:     in.PlayerID,
				ParityChoice: leaguesdk.Odd,
			}
			text, _ := json.Marshal(resp)
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}
			if !textOnly {
				res.StructuredContent = resp
			}
			return res, nil
		})
	return srv
}

// sdkPeer serves an SDK handler behind a middleware that records the
// JSON-RPC method and MCP headers of every request; restart swaps in a new
// handler, which forgets every session.
type sdkPeer struct {
	url     string
	newH    func() http.Handler
	handler atomic.Pointer[http.Handler]

	mu       sync.Mutex
	methods  []string
	sessions []string // Mcp-Session-Id of each request
	versions []string // MCP-Protocol-Version of each request
	issued   []string // Mcp-Session-Id set by replies to initialize
}

func newSDKPeer(t *testing.T, newHandler func() http.Handler) *sdkPeer {
	t.Helper()
	p := &sdkPeer{newH: newHandler}
	p.restart()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &req)
		p.mu.Lock()
		p.methods = append(p.methods, req.Method)
		p.sessions = append(p.sessions, r.Header.Get("Mcp-Session-Id"))
		p.versions = append(p.versions, r.Header.Get("MCP-Protocol-Version"))
		p.mu.Unlock()
		(*p.handler.Load()).ServeHTTP(w, r)
		if req.Method == "initialize" {
			p.mu.Lock()
			p.issued = append(p.issued, w.Header().Get("Mcp-Session-Id"))
			p.mu.Unlock()
		}
	}))
	t.Cleanup(ts.Close)
	p.url = ts.URL + "/mcp"
	return p
}

func (p *sdkPeer) restart() {
	h := p.newH()
	p.handler.Store(&h)
}

func (p *sdkPeer) count(method string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, m := range p.methods {
		if m == method {
			n++
		}
	}
	return n
}

func (p *sdkPeer) total() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.methods)
}

func (p *sdkPeer) mark() int { return p.total() }

// since returns the requests after mark as "method session version".
func (p *sdkPeer) since(mark int) (methods, sessions, versions []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.methods[mark:]...), append([]string(nil), p.sessions[mark:]...), append([]string(nil), p.versions[mark:]...)
}

func (p *sdkPeer) lastIssued() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.issued) == 0 {
		return ""
	}
	return p.issued[len(p.issued)-1]
}

func sdkHandler(textOnly bool, opts *mcp.StreamableHTTPOptions) func() http.Handler {
	return func() http.Handler {
		srv := sdkParityServer(textOnly)
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, opts)
	}
}

func callParity(ctx context.Context, c *leaguesdk.Client, endpoint string) error {
	call := chooseParityCall()
	var resp leaguesdk.ChooseParityResponse
	if err := c.Call(ctx, endpoint, leaguesdk.MethodChooseParity, call, &resp); err != nil {
		return err
	}
	if resp.MessageType != leaguesdk.MsgChooseParityResponse || resp.ParityChoice != leaguesdk.Odd || resp.MatchID != call.MatchID {
		return errors.New("unexpected reply")
	}
	return leaguesdk.Validate(&resp)
}

// concurrentCalls makes n calls at once and fails the test on any error.
func concurrentCalls(t *testing.T, c *leaguesdk.Client, endpoint string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- callParity(ctx, c, endpoint)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestClientMCPSessionSDK calls tools of a player built on the official
// MCP Go SDK (stateful, SSE replies): the client opens one session for all
// concurrent calls, reuses it, and opens a new one once when the server
// has forgotten it.
func TestClientMCPSessionSDK(t *testing.T) {
	peer := newSDKPeer(t, sdkHandler(false, nil))
	c := fastClient(t, leaguesdk.ClientConfig{})

	concurrentCalls(t, c, peer.url, 20)
	if n := peer.count("initialize"); n != 1 {
		t.Fatalf("%d initialize requests for 20 concurrent calls", n)
	}
	if n := peer.count("notifications/initialized"); n != 1 {
		t.Fatalf("%d initialized notifications", n)
	}
	sid := peer.lastIssued()
	if sid == "" {
		t.Fatal("the SDK server set no Mcp-Session-Id")
	}
	if leaguesdk.BreakerState(c, peer.url) != "closed" {
		t.Fatal("refused forms counted as failures")
	}

	// A later call goes straight to tools/call in the session.
	mark := peer.mark()
	if err := callParity(context.Background(), c, peer.url); err != nil {
		t.Fatal(err)
	}
	methods, sessions, versions := peer.since(mark)
	if strings.Join(methods, ",") != "tools/call" || sessions[0] != sid || versions[0] != "2025-06-18" {
		t.Fatalf("second call: %v %v %v (session %s)", methods, sessions, versions, sid)
	}

	// The server restarts and forgets the session: the next calls redo the
	// handshake once between them.
	peer.restart()
	mark = peer.mark()
	concurrentCalls(t, c, peer.url, 10)
	if n := peer.count("initialize"); n != 2 {
		t.Fatalf("%d initialize requests after the restart, want 2 in all", n)
	}
	methods, sessions, _ = peer.since(mark)
	if methods[0] != "tools/call" || sessions[0] != sid {
		t.Fatalf("after restart: %v", methods)
	}
	newSID := peer.lastIssued()
	if newSID == sid || newSID == "" {
		t.Fatalf("session %q after restart", newSID)
	}
	mark = peer.mark()
	if err := callParity(context.Background(), c, peer.url); err != nil {
		t.Fatal(err)
	}
	if methods, sessions, _ = peer.since(mark); len(methods) != 1 || sessions[0] != newSID {
		t.Fatalf("after re-initialize: %v %v", methods, sessions)
	}
}

// TestClientMCPSessionSDKJSONResponse does the same with an SDK server
// answering plain JSON and a tool result in text content only.
func TestClientMCPSessionSDKJSONResponse(t *testing.T) {
	peer := newSDKPeer(t, sdkHandler(true, &mcp.StreamableHTTPOptions{JSONResponse: true}))
	c := fastClient(t, leaguesdk.ClientConfig{})
	for i := 0; i < 3; i++ {
		if err := callParity(context.Background(), c, peer.url); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if peer.count("initialize") != 1 || peer.count("tools/call") != 4 {
		t.Fatalf("requests: %d initialize, %d tools/call", peer.count("initialize"), peer.count("tools/call"))
	}
}

// TestClientMCPSDKStateless calls a stateless SDK server: tools/call works
// without a session, so the client makes no handshake.
func TestClientMCPSDKStateless(t *testing.T) {
	peer := newSDKPeer(t, sdkHandler(false, &mcp.StreamableHTTPOptions{Stateless: true}))
	c := fastClient(t, leaguesdk.ClientConfig{})
	for i := 0; i < 2; i++ {
		if err := callParity(context.Background(), c, peer.url); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if peer.count("initialize") != 0 || peer.count("tools/call") != 2 {
		methods, _, _ := peer.since(0)
		t.Fatalf("requests: %v", methods)
	}
}

// TestClientMCPSessionVersion checks the negotiation against a minimal MCP
// peer: the version it answers is sent back in MCP-Protocol-Version, and a
// version the client does not speak ends the call with a clear error.
func TestClientMCPSessionVersion(t *testing.T) {
	serve := func(version string) *countingPeer {
		return newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
			switch {
			case req["method"] == "initialize":
				params, _ := req["params"].(map[string]any)
				info, _ := params["clientInfo"].(map[string]any)
				if params["protocolVersion"] != "2025-06-18" || info["name"] != "league-agent" || info["version"] != leaguesdk.Version {
					writeRaw(w, http.StatusBadRequest, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad initialize"}}`)
					return
				}
				w.Header().Set("Mcp-Session-Id", "s-1")
				w.Header().Set("Content-Type", "text/event-stream")
				res, _ := json.Marshal(map[string]any{"protocolVersion": version, "capabilities": map[string]any{}, "serverInfo": map[string]any{"name": "x", "version": "1"}})
				id, _ := json.Marshal(req["id"])
				_, _ = io.WriteString(w, "event: prime\nid: 0\ndata:\n\nevent: message\nid: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":"+string(id)+",\"result\":"+string(res)+"}\n\n")
			case r.Header.Get("Mcp-Session-Id") != "s-1":
				http.Error(w, "Bad Request: Missing session ID", http.StatusBadRequest)
			case r.Header.Get("Mcp-Protocol-Version") != version:
				http.Error(w, "bad protocol version header", http.StatusBadRequest)
			case req["method"] == "notifications/initialized":
				w.WriteHeader(http.StatusAccepted)
			case req["method"] == "tools/call":
				text, _ := json.Marshal(parityResponse())
				writeRaw(w, http.StatusOK, resultBody(req, map[string]any{"content": []map[string]any{{"type": "text", "text": string(text)}}}))
			default:
				writeRaw(w, http.StatusOK, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`)
			}
		})
	}
	old := serve("2025-03-26")
	c := fastClient(t, leaguesdk.ClientConfig{})
	if _, err := choose(context.Background(), c, old.url); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(old.seenMethods(), ","); got != "choose_parity,initialize,notifications/initialized,tools/call" {
		t.Fatalf("methods %s", got)
	}

	unknown := serve("1999-01-01")
	_, err := choose(context.Background(), c, unknown.url)
	if err == nil || !strings.Contains(err.Error(), "1999-01-01") {
		t.Fatalf("unknown version: %v", err)
	}
	if got := strings.Join(unknown.seenMethods(), ","); got != "choose_parity,initialize" {
		t.Fatalf("methods %s", got)
	}
}

// TestClientMCPSessionBounded checks that peers which never mention a
// session see no handshake, and that a peer which keeps asking for one
// gets exactly one.
func TestClientMCPSessionBounded(t *testing.T) {
	t.Run("no session mentioned", func(t *testing.T) {
		peer := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
			http.Error(w, "Bad Request: unknown method", http.StatusBadRequest)
		})
		c := fastClient(t, leaguesdk.ClientConfig{})
		if _, err := choose(context.Background(), c, peer.url); err == nil {
			t.Fatal("call succeeded")
		}
		if got := strings.Join(peer.seenMethods(), ","); got != "choose_parity,CHOOSE_PARITY_CALL,handle_message,tools/call" {
			t.Fatalf("methods %s", got)
		}
	})
	t.Run("session always missing", func(t *testing.T) {
		peer := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
			http.Error(w, "Bad Request: No valid session ID provided", http.StatusBadRequest)
		})
		c := fastClient(t, leaguesdk.ClientConfig{})
		_, err := choose(context.Background(), c, peer.url)
		if err == nil || !strings.Contains(err.Error(), "handshake") {
			t.Fatalf("error %v", err)
		}
		if leaguesdk.CodeOf(err).Retryable() {
			t.Fatalf("refused handshake is retryable: %v", err)
		}
		if got := strings.Join(peer.seenMethods(), ","); got != "choose_parity,initialize" {
			t.Fatalf("methods %s", got)
		}
		if leaguesdk.BreakerState(c, peer.url) != "closed" {
			t.Fatal("refused handshake counted as a failure")
		}
	})
	t.Run("session refused again after handshake", func(t *testing.T) {
		peer := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
			if req["method"] == "initialize" {
				w.Header().Set("Mcp-Session-Id", "s-1")
				writeRaw(w, http.StatusOK, resultBody(req, map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}}))
				return
			}
			if req["method"] == "notifications/initialized" {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			http.Error(w, "session not found", http.StatusNotFound)
		})
		c := fastClient(t, leaguesdk.ClientConfig{})
		for i := 0; i < 2; i++ {
			if _, err := choose(context.Background(), c, peer.url); err == nil {
				t.Fatal("call succeeded")
			}
		}
		// Each call: one handshake and one retry in the new session.
		want := "choose_parity,initialize,notifications/initialized,tools/call"
		if got := strings.Join(peer.seenMethods(), ","); got != want+","+want {
			t.Fatalf("methods %s", got)
		}
	})
	t.Run("handshake within the deadline", func(t *testing.T) {
		peer := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
			if req["method"] == "initialize" {
				select {
				case <-r.Context().Done():
				case <-time.After(2 * time.Second):
				}
				return
			}
			http.Error(w, "missing session ID", http.StatusBadRequest)
		})
		c := fastClient(t, leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{MaxRetries: leaguesdk.NoRetries}})
		ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := choose(ctx, c, peer.url)
		if leaguesdk.CodeOf(err) != leaguesdk.CodeTimeout || time.Since(start) > time.Second {
			t.Fatalf("%v after %v", err, time.Since(start))
		}
	})
}
