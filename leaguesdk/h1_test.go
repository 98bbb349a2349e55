package leaguesdk

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentleague/league/internal/tlstest"
)

const okReply = `{"jsonrpc":"2.0","id":1,"result":{}}`

// idleCount returns the number of idle connections in the pool.
func (p *connPool) idleCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.count
}

// noRetries is a client of its own transport that makes one attempt per
// call.
func noRetries(t *testing.T, cfg ClientConfig) *Client {
	t.Helper()
	cfg.Retry.MaxRetries = NoRetries
	c := NewClient(cfg)
	t.Cleanup(c.Close)
	return c
}

// countedServer is an httptest server that counts the connections it
// accepts.
type countedServer struct {
	*httptest.Server
	url     string
	accepts atomic.Int32
	mu      sync.Mutex
	conns   map[net.Conn]http.ConnState
}

func newCountedServer(t *testing.T, h http.HandlerFunc) *countedServer {
	t.Helper()
	s := &countedServer{conns: make(map[net.Conn]http.ConnState)}
	s.Server = httptest.NewUnstartedServer(h)
	s.Config.ConnState = func(c net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.accepts.Add(1)
		}
		s.mu.Lock()
		s.conns[c] = st
		s.mu.Unlock()
	}
	s.Start()
	t.Cleanup(s.Close)
	s.url = s.URL + "/mcp"
	return s
}

func okHandler(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, okReply)
}

func ping(c *Client, url string) error {
	return c.Call(context.Background(), url, "ping_tool", map[string]any{}, nil)
}

// Sequential calls share one kept connection, and no call goes through
// net/http's Transport.
func TestLeanKeepsOneConnection(t *testing.T) {
	s := newCountedServer(t, okHandler)
	c := noRetries(t, ClientConfig{})
	for i := range 20 {
		if err := ping(c, s.url); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	if n := s.accepts.Load(); n != 1 {
		t.Errorf("%d connections for 20 calls, want 1", n)
	}
	if n := c.pool.idleCount(); n != 1 {
		t.Errorf("%d idle connections, want 1", n)
	}
	if c.endpoint(s.url).lean == nil {
		t.Error("the endpoint is not called on the client's own transport")
	}
}

// A connection is kept past the deadline of the call that last used it.
func TestLeanKeepsConnectionPastDeadline(t *testing.T) {
	s := newCountedServer(t, okHandler)
	c := noRetries(t, ClientConfig{})
	for i := range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		if err := c.Call(ctx, s.url, "ping_tool", map[string]any{}, nil); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		deadline, _ := ctx.Deadline()
		time.Sleep(time.Until(deadline) + 10*time.Millisecond) // the call's deadline passes
		cancel()
	}
	if n := s.accepts.Load(); n != 1 {
		t.Errorf("%d connections for 2 calls, want 1", n)
	}
}

// The pool keeps at most MaxIdleConnsPerHost connections per peer and
// MaxIdleConns in all.
func TestLeanPoolCaps(t *testing.T) {
	const fanOut = 5
	a := newCountedServer(t, together(fanOut, okHandler))
	var gatedB atomic.Bool
	bTogether := together(2, okHandler)
	b := newCountedServer(t, func(w http.ResponseWriter, r *http.Request) {
		if gatedB.Load() {
			bTogether(w, r)
			return
		}
		okHandler(w, r)
	})
	c := noRetries(t, ClientConfig{MaxIdleConnsPerHost: 2, MaxIdleConns: 3})
	var wg sync.WaitGroup
	for range fanOut {
		wg.Go(func() {
			if err := ping(c, a.url); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n, idle := a.accepts.Load(), c.pool.idleCount(); n != fanOut || idle != 2 {
		t.Fatalf("%d calls at once: %d connections, %d kept; want %d and 2", fanOut, n, idle, fanOut)
	}
	for range 2 {
		if err := ping(c, b.url); err != nil {
			t.Fatal(err)
		}
	}
	// b's connection, and a's two: within the cap of 3.
	if idle := c.pool.idleCount(); idle != 3 {
		t.Fatalf("%d idle connections, want 3", idle)
	}
	// Two connections to b at once: the pool drops its oldest (one of a's).
	gatedB.Store(true)
	for range 2 {
		wg.Go(func() {
			if err := ping(c, b.url); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	c.pool.mu.Lock()
	na, nb := len(c.pool.idle[c.endpoint(a.url).lean.key]), len(c.pool.idle[c.endpoint(b.url).lean.key])
	c.pool.mu.Unlock()
	if na != 1 || nb != 2 {
		t.Errorf("idle: %d to a, %d to b; want 1 and 2", na, nb)
	}
	c.Close()
	if idle := c.pool.idleCount(); idle != 0 {
		t.Errorf("%d idle connections after Close", idle)
	}
}

// A connection taken from the pool and not given back (its answer said
// Connection: close) leaves no empty entry behind: the pool, full, then
// drops its oldest connection among the others.
func TestLeanPoolFullAfterConnectionNotReturned(t *testing.T) {
	var closeA atomic.Bool
	a := newCountedServer(t, func(w http.ResponseWriter, r *http.Request) {
		if closeA.Load() {
			w.Header().Set("Connection", "close")
		}
		okHandler(w, r)
	})
	b := newCountedServer(t, okHandler)
	d := newCountedServer(t, okHandler)
	c := noRetries(t, ClientConfig{MaxIdleConnsPerHost: 1, MaxIdleConns: 1})
	if err := ping(c, a.url); err != nil {
		t.Fatal(err)
	}
	closeA.Store(true)
	if err := ping(c, a.url); err != nil { // takes a's connection, which is then closed
		t.Fatal(err)
	}
	for _, s := range []*countedServer{b, d, b} {
		if err := ping(c, s.url); err != nil {
			t.Fatal(err)
		}
		if idle := c.pool.idleCount(); idle != 1 {
			t.Fatalf("%d idle connections, want 1", idle)
		}
	}
	c.pool.mu.Lock()
	keys := len(c.pool.idle)
	c.pool.mu.Unlock()
	if keys != 1 {
		t.Errorf("the pool keeps entries for %d addresses, want 1", keys)
	}
}

// together returns a handler that holds the first n requests until all n
// have arrived, so that they are served on n connections at once, then
// serves them with h.
func together(n int32, h http.HandlerFunc) http.HandlerFunc {
	var arrived atomic.Int32
	gate := make(chan struct{})
	return func(w http.ResponseWriter, r *http.Request) {
		if k := arrived.Add(1); k == n {
			close(gate)
		} else if k < n {
			<-gate
		}
		h(w, r)
	}
}

// A connection the server closed while it was idle is not used again: the
// next call succeeds on a new one.
func TestLeanServerClosedIdleConnection(t *testing.T) {
	s := newCountedServer(t, okHandler)
	c := noRetries(t, ClientConfig{})
	for i := range 3 {
		if err := ping(c, s.url); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		// The server closes its side once the connection is idle, as a
		// server with a short IdleTimeout does.
		s.mu.Lock()
		for conn, st := range s.conns {
			if st == http.StateIdle || st == http.StateActive {
				conn.Close()
			}
		}
		s.mu.Unlock()
		waitFor(t, func() bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			for _, st := range s.conns {
				if st != http.StateClosed {
					return false
				}
			}
			return true
		})
	}
	if n := s.accepts.Load(); n != 3 {
		t.Errorf("%d connections, want 3", n)
	}
}

// liveness finds an open, quiet connection alive, and neither one the
// peer sent unasked bytes on nor one it closed.
func TestLeanLiveness(t *testing.T) {
	client, server := tcpPair(t)
	live := newLiveness(client)
	for i := range 2 { // a check leaves the connection as it was
		if !live.check() {
			t.Fatalf("check %d: an open, quiet connection is not alive", i+1)
		}
	}
	_, _ = server.Write([]byte("x"))
	waitFor(t, func() bool { return !live.check() })
	c2, s2 := tcpPair(t)
	s2.Close()
	live2 := newLiveness(c2)
	waitFor(t, func() bool { return !live2.check() })
}

// waitFor waits until cond holds, for at most 5 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5 s")
		}
		time.Sleep(time.Millisecond)
	}
}

// An answer with Connection: close is read, and its connection is not
// kept.
func TestLeanConnectionCloseNotPooled(t *testing.T) {
	s := newCountedServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		okHandler(w, r)
	})
	c := noRetries(t, ClientConfig{})
	for range 3 {
		if err := ping(c, s.url); err != nil {
			t.Fatal(err)
		}
		if idle := c.pool.idleCount(); idle != 0 {
			t.Fatalf("%d idle connections after a Connection: close answer", idle)
		}
	}
	if n := s.accepts.Load(); n != 3 {
		t.Errorf("%d connections for 3 calls, want 3", n)
	}
}

// rawServer accepts connections and answers each request read on them
// with answer's bytes; it closes the connection after an answer when
// answer says so. It records the head and body of every request.
type rawServer struct {
	ln      net.Listener
	url     string
	accepts atomic.Int32
	mu      sync.Mutex
	heads   [][]byte
	bodies  [][]byte
	conns   []net.Conn
}

func newRawServer(t *testing.T, answer func(n int) (reply string, closeAfter bool)) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln, url: "http://" + ln.Addr().String() + "/mcp"}
	var wg sync.WaitGroup
	var served atomic.Int32
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			s.accepts.Add(1)
			s.mu.Lock()
			s.conns = append(s.conns, conn)
			s.mu.Unlock()
			wg.Go(func() {
				defer conn.Close()
				br := bufio.NewReader(conn)
				for {
					var head bytes.Buffer
					for {
						line, err := br.ReadString('\n')
						if err != nil {
							return
						}
						head.WriteString(line)
						if line == "\r\n" {
							break
						}
					}
					req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(head.Bytes())))
					if err != nil {
						return
					}
					body := make([]byte, req.ContentLength)
					if _, err := io.ReadFull(br, body); err != nil {
						return
					}
					s.mu.Lock()
					s.heads, s.bodies = append(s.heads, head.Bytes()), append(s.bodies, body)
					s.mu.Unlock()
					reply, closeAfter := answer(int(served.Add(1)))
					if _, err := io.WriteString(conn, reply); err != nil || closeAfter {
						return
					}
				}
			})
		}
	})
	t.Cleanup(func() {
		ln.Close()
		s.mu.Lock()
		for _, c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		wg.Wait()
	})
	return s
}

// Chunked, close-delimited, HTTP/1.0, gzip-encoded and event-stream
// answers, and answers after 1xx ones, are read whole; the connection is
// kept when the answer allows it.
func TestLeanAnswerFraming(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = io.WriteString(zw, `{"jsonrpc":"2.0","id":1,"result":{"x":"gzip"}}`)
	_ = zw.Close()
	tests := []struct {
		name   string
		answer string
		close  bool // the server closes after the answer
		kept   bool // the client keeps the connection
		want   string
	}{
		{"content-length", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 45\r\n\r\n" +
			`{"jsonrpc":"2.0","id":1,"result":{"x":"len"}}`, false, true, "len"},
		{"chunked", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
			"10\r\n{\"jsonrpc\":\"2.0\"\r\n1f\r\n,\"id\":1,\"result\":{\"x\":\"chunk\"}}\r\n0\r\n\r\n", false, true, "chunk"},
		{"close-delimited", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n" +
			`{"jsonrpc":"2.0","id":1,"result":{"x":"eof"}}`, true, false, "eof"},
		{"http/1.0", "HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nContent-Length: 47\r\n\r\n" +
			`{"jsonrpc":"2.0","id":1,"result":{"x":"old10"}}`, false, false, "old10"},
		{"1xx first", "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 45\r\n\r\n" +
			`{"jsonrpc":"2.0","id":1,"result":{"x":"1xx"}}`, false, true, "1xx"},
		{"gzip", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: " +
			strconv.Itoa(gz.Len()) + "\r\n\r\n" + gz.String(), false, true, "gzip"},
		{"event stream", "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 68\r\n\r\n" +
			"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"x\":\"sse\"}}\n\n", false, true, "sse"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newRawServer(t, func(int) (string, bool) { return tc.answer, tc.close })
			c := noRetries(t, ClientConfig{})
			for i := range 2 {
				var out struct {
					X string `json:"x"`
				}
				if err := c.Call(context.Background(), s.url, "ping_tool", map[string]any{}, &out); err != nil || out.X != tc.want {
					t.Fatalf("call %d: %q, %v; want %q", i+1, out.X, err, tc.want)
				}
				if idle := c.pool.idleCount(); (idle == 1) != tc.kept {
					t.Fatalf("call %d: %d idle connections, kept %v", i+1, idle, tc.kept)
				}
			}
			want := int32(2)
			if tc.kept {
				want = 1
			}
			if n := s.accepts.Load(); n != want {
				t.Errorf("%d connections for 2 calls, want %d", n, want)
			}
		})
	}
}

// A reply longer than MaxReplyBytes fails as it does through net/http, and
// its connection, not read to its end, is not kept.
func TestLeanReplyOverLimit(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":1,"result":{"x":"` + strings.Repeat("y", 1000) + `"}}`
	s := newCountedServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, long)
	})
	lean := noRetries(t, ClientConfig{MaxReplyBytes: 100})
	std := noRetries(t, ClientConfig{MaxReplyBytes: 100, HTTPClient: &http.Client{}})
	errLean, errStd := ping(lean, s.url), ping(std, s.url)
	if errLean == nil || errStd == nil || CodeOf(errLean) != CodeOf(errStd) || errLean.Error() != errStd.Error() {
		t.Errorf("a reply over the limit: %v; through net/http: %v", errLean, errStd)
	}
	if idle := lean.pool.idleCount(); idle != 0 {
		t.Errorf("%d idle connections after a reply cut at the limit", idle)
	}
}

// A peer that does not answer in time fails the call with E001 at the
// deadline, and a cancelled call ends at once as "call cancelled"; neither
// connection is kept.
func TestLeanDeadlineAndCancel(t *testing.T) {
	release := make(chan struct{})
	arrived := make(chan struct{}, 4)
	s := newCountedServer(t, func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	c := noRetries(t, ClientConfig{Timeout: 200 * time.Millisecond})
	start := time.Now()
	err := ping(c, s.url)
	if took := time.Since(start); CodeOf(err) != CodeTimeout || !errors.Is(err, context.DeadlineExceeded) || took > 2*time.Second {
		t.Errorf("call past its deadline: %v after %v; want E001 wrapping context.DeadlineExceeded at about 200ms", err, took)
	}
	<-arrived

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Call(ctx, s.url, "ping_tool", map[string]any{}, nil) }()
	<-arrived
	cancel()
	err = <-done
	var e *Error
	if !errors.As(err, &e) || e.Message != "call cancelled" || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v; want call cancelled", err)
	}
	if idle := c.pool.idleCount(); idle != 0 {
		t.Errorf("%d idle connections after a timeout and a cancellation", idle)
	}
}

// A redirect is followed as net/http follows it, and the endpoint's later
// calls go through net/http.
func TestLeanRedirect(t *testing.T) {
	var moved, landed atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		moved.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		http.Redirect(w, r, "/new", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/new", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || !bytes.Contains(body, []byte(`"ping_tool"`)) {
			t.Errorf("redirected request: %s %s", r.Method, body)
		}
		landed.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, okReply)
	})
	s := httptest.NewServer(mux)
	defer s.Close()
	c := noRetries(t, ClientConfig{})
	for i := range 2 {
		if err := ping(c, s.URL+"/old"); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	// The first call: once on the client's own transport, once through
	// net/http; the second through net/http alone.
	if moved.Load() != 3 || landed.Load() != 2 || !c.endpoint(s.URL+"/old").redirects.Load() {
		t.Errorf("%d requests to /old, %d to /new", moved.Load(), landed.Load())
	}
}

// Calls over TLS with a client certificate (mutual TLS) keep their
// connection; a client without a certificate is refused at once, with the
// TLS cause and no retry.
func TestLeanMutualTLS(t *testing.T) {
	ca := tlstest.NewCA(t, "league CA")
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
			t.Error("request without a client certificate")
		}
		okHandler(w, r)
	}))
	var accepts atomic.Int32
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			accepts.Add(1)
		}
	}
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake below
	s.TLS = &tls.Config{Certificates: []tls.Certificate{ca.Issue(t, "server").TLS}, ClientCAs: ca.Pool(), ClientAuth: tls.RequireAndVerifyClientCert}
	s.StartTLS()
	defer s.Close()
	url := s.URL + "/mcp"
	c := noRetries(t, ClientConfig{TLSConfig: &tls.Config{RootCAs: ca.Pool(), Certificates: []tls.Certificate{ca.Issue(t, "client").TLS}}})
	for i := range 5 {
		if err := ping(c, url); err != nil {
			t.Fatalf("call %d over mutual TLS: %v", i+1, err)
		}
	}
	if n := accepts.Load(); n != 1 {
		t.Errorf("%d connections for 5 calls over TLS, want 1", n)
	}
	anon := NewClient(ClientConfig{TLSConfig: &tls.Config{RootCAs: ca.Pool()}, Retry: RetryPolicy{MaxRetries: 3, Delay: time.Second}})
	defer anon.Close()
	err := ping(anon, url)
	var e *Error
	if !errors.As(err, &e) || e.Code != "" || e.Attempt != 1 || !strings.HasPrefix(e.Message, "TLS: ") {
		t.Errorf("call without a client certificate: %v; want a TLS refusal, not retried", err)
	}
}

// Clients given one ConnPool share their cleartext connections: calls of
// three clients, one after the other, go over one connection, which
// Client.Close leaves to the pool and ConnPool.Close closes.
func TestConnPoolSharedByClients(t *testing.T) {
	s := newCountedServer(t, okHandler)
	pool := NewConnPool(2)
	clients := make([]*Client, 3)
	for i := range clients {
		clients[i] = noRetries(t, ClientConfig{Conns: pool})
	}
	for round := range 4 {
		for i, c := range clients {
			if err := ping(c, s.url); err != nil {
				t.Fatalf("round %d, client %d: %v", round, i, err)
			}
		}
	}
	if n := s.accepts.Load(); n != 1 {
		t.Errorf("%d connections for 12 calls of 3 clients sharing a pool, want 1", n)
	}
	clients[0].Close()
	if n := pool.p.idleCount(); n != 1 {
		t.Fatalf("%d idle connections in the pool after a client closed, want 1", n)
	}
	pool.Close()
	if n := pool.p.idleCount(); n != 0 {
		t.Errorf("%d idle connections after the pool closed, want 0", n)
	}
	if err := ping(clients[1], s.url); err != nil {
		t.Fatalf("a call after the pool closed: %v", err)
	}
	if n := s.accepts.Load(); n != 2 {
		t.Errorf("%d connections, want a second one after the pool closed", n)
	}
}

// A shared pool holds cleartext connections only: a client's connections
// to an https endpoint, made with its own TLS configuration, stay its own.
func TestConnPoolKeepsTLSConnectionsApart(t *testing.T) {
	ca := tlstest.NewCA(t, "league CA")
	s := httptest.NewUnstartedServer(http.HandlerFunc(okHandler))
	var accepts atomic.Int32
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			accepts.Add(1)
		}
	}
	s.TLS = &tls.Config{Certificates: []tls.Certificate{ca.Issue(t, "server").TLS}}
	s.StartTLS()
	defer s.Close()
	pool := NewConnPool(2)
	defer pool.Close()
	a := noRetries(t, ClientConfig{Conns: pool, TLSConfig: &tls.Config{RootCAs: ca.Pool()}})
	b := noRetries(t, ClientConfig{Conns: pool, TLSConfig: &tls.Config{RootCAs: ca.Pool()}})
	for range 3 {
		for _, c := range []*Client{a, b} {
			if err := ping(c, s.URL+"/mcp"); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := accepts.Load(); n != 2 {
		t.Errorf("%d TLS connections for two clients sharing a pool, want one each", n)
	}
	if n := pool.p.idleCount(); n != 0 {
		t.Errorf("%d TLS connections in the shared pool, want none", n)
	}
}

// The client's own transport sends what net/http's sends: the same head,
// byte for byte, and the same body, with and without an MCP session.
func TestLeanRequestBytes(t *testing.T) {
	s := newRawServer(t, func(int) (string, bool) {
		return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 36\r\n\r\n" + okReply, false
	})
	lean := noRetries(t, ClientConfig{})
	std := noRetries(t, ClientConfig{HTTPClient: &http.Client{Transport: &http.Transport{}}})
	sess := &mcpSession{id: "sess-1", version: mcpClientProtocolVersion}
	large := encoded{[]byte(`{"jsonrpc":"2.0","id":1,"method":"x","params":`), bytes.Repeat([]byte("1"), 20<<10), []byte("}")}
	for _, c := range []*Client{lean, std} {
		ep := c.endpoint(s.url + "?q=1")
		for _, sess := range []*mcpSession{nil, sess} {
			for _, body := range []encoded{{[]byte(`{"jsonrpc":"2.0","id":1,"method":"x","params":{}}`)}, large} {
				if status, _, _, err := c.exchange(context.Background(), ep, body, sess, true); err != nil || status != http.StatusOK {
					t.Fatalf("exchange: %d, %v", status, err)
				}
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.heads) != 8 {
		t.Fatalf("%d requests, want 8", len(s.heads))
	}
	for i := range 4 {
		if !bytes.Equal(s.heads[i], s.heads[i+4]) || !bytes.Equal(s.bodies[i], s.bodies[i+4]) {
			t.Errorf("request %d:\n%s\nthrough net/http:\n%s", i+1, s.heads[i], s.heads[i+4])
		}
	}
	if !bytes.Contains(s.heads[2], []byte("Mcp-Session-Id: sess-1\r\n")) {
		t.Errorf("no session header in\n%s", s.heads[2])
	}
}

// Concurrent calls on one client share its pool safely and stay within
// its cap per peer.
func TestLeanConcurrentCalls(t *testing.T) {
	s := newCountedServer(t, okHandler)
	c := noRetries(t, ClientConfig{MaxIdleConnsPerHost: 4})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				if err := ping(c, s.url); err != nil {
					t.Errorf("goroutine %d, call %d: %v", g, i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if idle := c.pool.idleCount(); idle < 1 || idle > 4 {
		t.Errorf("%d idle connections, want 1 to 4", idle)
	}
}

// The client's own transport runs no goroutine of its own: once the client
// and the server are closed, the goroutines are those of before.
func TestLeanLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	s := newCountedServer(t, okHandler)
	c := NewClient(ClientConfig{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				if err := ping(c, s.url); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	c.Close()
	s.Close()
	var now int
	waitFor(t, func() bool {
		now = runtime.NumGoroutine()
		return now <= before
	})
	if now > before {
		t.Errorf("%d goroutines, %d before", now, before)
	}
}

// Endpoints the client's own transport does not call go through net/http.
func TestLeanTargets(t *testing.T) {
	for _, tc := range []struct {
		url  string
		lean bool
		key  string
	}{
		{"http://127.0.0.1:8001/mcp", true, "http://127.0.0.1:8001"},
		{"http://agent.test/mcp?a=b", true, "http://agent.test:80"},
		{"https://agent.test/mcp", true, "https://agent.test:443"},
		{"http://[::1]:8001/mcp", true, "http://[::1]:8001"},
		{"http://user:pw@agent.test/mcp", false, ""},
		{"ftp://agent.test/mcp", false, ""},
		{"http:///mcp", false, ""},
		{"http://ägent.test/mcp", false, ""},
	} {
		c := NewClient(ClientConfig{})
		lt := c.endpoint(tc.url).lean
		if (lt != nil) != tc.lean || (lt != nil && lt.key != tc.key) {
			t.Errorf("%s: %+v, want lean %v, key %s", tc.url, lt, tc.lean, tc.key)
		}
	}
	if NewClient(ClientConfig{HTTPClient: &http.Client{}}).endpoint("http://127.0.0.1:8001/mcp").lean != nil {
		t.Error("a client with an HTTPClient of the caller's uses its own transport")
	}
	if lt := NewClient(ClientConfig{}).endpoint("https://127.0.0.1:8443/mcp").lean; lt == nil || lt.tls.ServerName != "127.0.0.1" ||
		fmt.Sprint(lt.tls.NextProtos) != "[http/1.1]" {
		t.Errorf("TLS target: %+v", lt)
	}
}
