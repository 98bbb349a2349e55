// Package inmem connects the agents of one process without sockets: a
// [Network] maps host names to http.Handlers, and its RoundTripper calls
// the handler of a request's host directly, in memory. Each agent is
// given the Network's client for its calls and a [Network.Listener] of the Network
// that never accepts a connection, so that its Run opens no port; the
// messages are still the protocol's JSON, through the agents' own
// handlers and clients.
//
// A whole league in one process, with no listener opened:
//
//	var n inmem.Network
//	defer n.Close()
//	m, _ := manager.New(manager.Config{Listener: n.Listener("manager"), HTTPClient: n.Client(), DataRoot: dir})
//	n.Handle("manager", m.Handler())
//	r, _ := referee.New(referee.Config{Name: "Referee Alpha", League: "http://manager/mcp",
//		Listener: n.Listener("ref1"), HTTPClient: n.Client()})
//	n.Handle("ref1", r.Handler())
//	p, _ := player.New(player.Config{Name: "Agent Alpha", League: "http://manager/mcp",
//		Listener: n.Listener("p1"), HTTPClient: n.Client()})
//	n.Handle("p1", p.Handler())
//	go m.Run(ctx) // then r.Run(ctx), p.Run(ctx), …
//
// An agent's endpoint is http://<host>/mcp ([Endpoint]); the agents take it
// from their Listener's address, as they do from a TCP listener's.
package inmem

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/agentleague/league/internal/gopool"
)

// Network is a set of agents reachable by host name, in memory. The zero
// value is an empty network ready to use; a Network is safe for
// concurrent use and must not be copied after first use. Close it once
// its agents have stopped.
type Network struct {
	mu    sync.RWMutex
	hosts map[string]http.Handler
	// workers serve the requests on goroutines kept from one request to
	// the next: an agent's handler grows a new goroutine's stack several
	// times over, as a server's connection goroutine does once.
	workers     *gopool.Pool
	workersOnce sync.Once
}

// Close ends the goroutines the [Network] keeps to serve requests, once the
// requests under way have been served. Requests made after Close are
// still served, each on a goroutine of its own.
func (n *Network) Close() {
	n.pool().Close()
}

func (n *Network) pool() *gopool.Pool {
	n.workersOnce.Do(func() { n.workers = gopool.New(0) })
	return n.workers
}

// Endpoint returns the protocol endpoint of the agent at host:
// "http://<host>/mcp".
func Endpoint(host string) string { return "http://" + host + "/mcp" }

// Handle makes h reachable at host (a name such as "manager" or "p01";
// any port in a request's URL is part of the host). A second Handle of the
// same host replaces the first.
func (n *Network) Handle(host string, h http.Handler) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.hosts == nil {
		n.hosts = map[string]http.Handler{}
	}
	n.hosts[host] = h
}

// Remove makes host unreachable: later requests to it fail as a refused
// connection does.
func (n *Network) Remove(host string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.hosts, host)
}

// Client returns an HTTP client whose requests go through the [Network].
// Give it to an agent's HTTPClient configuration field
// ([github.com/agentleague/league/player.Config],
// [github.com/agentleague/league/referee.Config],
// [github.com/agentleague/league/manager.Config]).
func (n *Network) Client() *http.Client { return &http.Client{Transport: n} }

// UnreachableError is the error of a request to a host no handler serves
// on the [Network] (test with [errors.As]).
type UnreachableError struct {
	Host string
}

// Error names the host.
func (e *UnreachableError) Error() string {
	return fmt.Sprintf("inmem: no agent at host %q", e.Host)
}

// RoundTrip implements [http.RoundTripper]: it serves req with the handler
// of its URL's host and returns the handler's answer. The handler runs on
// another goroutine, as a server's would; when req's context ends first, RoundTrip
// returns the context's error, as a network transport does, and the
// handler's answer is dropped. A handler that panics fails the request.
func (n *Network) RoundTrip(req *http.Request) (*http.Response, error) {
	n.mu.RLock()
	h := n.hosts[req.URL.Host]
	n.mu.RUnlock()
	if req.Body != nil && h == nil {
		_ = req.Body.Close() // a RoundTripper closes the body, even on errors
	}
	if h == nil {
		return nil, &net.OpError{Op: "dial", Net: "inmem", Err: &UnreachableError{Host: req.URL.Host}}
	}
	in := serverRequest(req)
	w := &responseWriter{header: http.Header{}}
	done := make(chan any, 1)
	n.pool().Go(func() {
		defer func() {
			if in.Body != nil {
				_ = in.Body.Close()
			}
			done <- recover()
		}()
		h.ServeHTTP(w, in)
	})
	select {
	case p := <-done:
		if p != nil {
			return nil, fmt.Errorf("inmem: the handler of %s panicked: %v", req.URL.Host, p)
		}
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
	return w.response(req), nil
}

// serverRequest returns req as a server's handler sees it.
func serverRequest(req *http.Request) *http.Request {
	in := new(http.Request)
	*in = *req
	in.Header = req.Header.Clone() // the handler's own, as a server's is
	in.RequestURI = req.URL.RequestURI()
	in.RemoteAddr = "inmem:" + req.URL.Host
	if in.Host == "" {
		in.Host = req.URL.Host
	}
	if in.Body == nil {
		in.Body = http.NoBody
	}
	if in.Proto == "" {
		in.Proto, in.ProtoMajor, in.ProtoMinor = "HTTP/1.1", 1, 1
	}
	return in
}

// responseWriter collects a handler's answer.
type responseWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *responseWriter) Header() http.Header { return w.header }

func (w *responseWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *responseWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(p)
}

// Flush implements [http.Flusher]; the answer is handed over whole when the
// handler returns.
func (w *responseWriter) Flush() {}

// SetReadDeadline is what [http.ResponseController] calls to bound the
// reading of a request's body; the body is in memory already, so there is
// nothing to bound.
func (w *responseWriter) SetReadDeadline(time.Time) error { return nil }

func (w *responseWriter) response(req *http.Request) *http.Response {
	w.WriteHeader(http.StatusOK)
	if w.header.Get("Content-Type") == "" && w.body.Len() > 0 {
		w.header.Set("Content-Type", http.DetectContentType(w.body.Bytes()))
	}
	w.header.Set("Content-Length", strconv.Itoa(w.body.Len()))
	return &http.Response{
		Status:        strconv.Itoa(w.status) + " " + http.StatusText(w.status),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.header,
		Body:          io.NopCloser(bytes.NewReader(w.body.Bytes())),
		ContentLength: int64(w.body.Len()),
		Request:       req,
	}
}

// Listener returns a listener for the agent at host: its address names
// host, so that an agent given it as its Listener configuration field
// advertises [Endpoint](host), and it never accepts a connection, so that
// the agent's Run serves, registers and stops as usual without opening a
// socket. Accept blocks until Close.
func (n *Network) Listener(host string) net.Listener {
	return &listener{addr: Addr(host), closed: make(chan struct{})}
}

// Addr is the address of an agent on a [Network]: its host name.
type Addr string

// Network returns "inmem".
func (Addr) Network() string { return "inmem" }

// String returns the host name.
func (a Addr) String() string { return string(a) }

type listener struct {
	addr   Addr
	once   sync.Once
	closed chan struct{}
}

func (l *listener) Accept() (net.Conn, error) {
	<-l.closed
	return nil, net.ErrClosed
}

func (l *listener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *listener) Addr() net.Addr { return l.addr }
