package leaguesdk

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sony/gobreaker/v2"
)

// ClientConfig configures a [Client]. The zero value is usable; every field
// documents its default.
type ClientConfig struct {
	// HTTPClient sends the requests. Default: a client of the Client's own
	// on an [http.Transport] with the settings below (idle connections
	// kept per peer, connections dialled within 5 s, TCP keep-alive every
	// 30 s, HTTP/2 with peers that offer it over TLS, the proxy of the
	// environment). A client given here is used as it is, except that when
	// its CheckRedirect is nil, redirects are followed only within the
	// endpoint's origin, as with the default client (see [Client]).
	HTTPClient *http.Client
	// TLSConfig is the TLS configuration of the default client's calls to
	// https:// endpoints: its RootCAs are trusted (nil: the system roots)
	// and its Certificates are presented when a server asks for a client
	// certificate (mutual TLS). See [TLSFiles] for one built from PEM
	// files. Ignored when HTTPClient is set. Default: the system roots, no
	// client certificate.
	TLSConfig *tls.Config
	// Observer, when set, is told about every call made (once per call,
	// after its retries). Default: none.
	Observer Observer
	// MaxIdleConnsPerHost caps the idle connections the default client
	// keeps to each peer (more may be open while calls run). Default 64.
	MaxIdleConnsPerHost int
	// MaxIdleConns caps the idle connections the default client keeps over
	// all peers; an idle connection is closed after 90 s. Default 4 ×
	// MaxIdleConnsPerHost; negative: no cap, for a client that calls a
	// known set of peers again and again (the manager calls every agent of
	// its league each round: a cap below their number would open a
	// connection per call).
	MaxIdleConns int
	// Timeout is the deadline of a call whose context has none. Default 10 s.
	Timeout time.Duration
	// Retry is the retry policy.
	Retry RetryPolicy
	// Breaker is the per-endpoint circuit breaker policy.
	Breaker BreakerPolicy
	// UserAgent is sent with every request. Default "league-agent/<Version>".
	UserAgent string
	// MaxReplyBytes limits the size of a reply. Default 4 MiB.
	MaxReplyBytes int64
	// Logger receives a debug line per attempt. Default: discard.
	Logger *slog.Logger
}

// ErrCircuitOpen is the cause of calls refused because the endpoint's
// circuit breaker is open (test with [errors.Is]).
var ErrCircuitOpen = errors.New("circuit breaker open")

// Client calls other agents: one JSON-RPC request per call, with a deadline,
// retries of retryable failures, a circuit breaker per endpoint, and the
// wire-form fallback of the profile, remembered per endpoint. It is safe
// for concurrent use.
//
// A call goes through layers a reader can take one at a time, each in a
// file of its own: the retry policy (retry.go) makes attempts; an attempt
// tries the endpoint's wire forms and MCP session (fallback.go, the forms
// themselves are the wire layer's, wire*.go); each exchange passes the
// endpoint's circuit breaker (breaker.go) and is one HTTP request whose
// reply is read once and decoded once (exchange.go).
//
// Peers built on an MCP SDK serve their tools only through tools/call inside
// an MCP session. When a peer refuses a request because it has no session
// (HTTP 400 or 404 naming the session, or a JSON-RPC error saying the server
// is not initialized), the client performs the MCP handshake (initialize,
// then notifications/initialized), keeps the Mcp-Session-Id and the
// negotiated protocol version, and sends the call again as tools/call with
// the Mcp-Session-Id and MCP-Protocol-Version headers. The form and the
// session are remembered per endpoint and shared by concurrent calls (one
// handshake at a time per endpoint); when the peer later answers that the
// session is gone (HTTP 404), the client redoes the handshake once and
// retries. Peers that never mention a session see no handshake. The
// handshake counts against the call's deadline and goes through the
// endpoint's circuit breaker like any other request.
//
// A peer that answers with a redirect (307 or 308) is followed only within
// the endpoint's origin (scheme, host and port: /mcp to /mcp/, say), with
// the same request. A redirect to another origin, or one that would turn
// the POST into a GET (301, 302, 303), fails the call with an [*Error]
// naming the status, and the request is not sent there: a message carries
// its sender's auth token.
type Client struct {
	cfg  ClientConfig
	http *http.Client
	// headers are the headers of every request, made once: each
	// request's map takes their values rather than a new slice per header
	// and call. Nothing writes to them.
	headers   http.Header
	ownsHTTP  bool
	nextID    atomic.Int64
	endpoints sync.Map // endpoint → *endpointState
}

// endpointState is what a Client keeps of one endpoint it has called:
// one look-up per call finds it all. There is one per endpoint called, as
// there is one circuit breaker per endpoint.
type endpointState struct {
	name string
	// urlErr is why the endpoint does not parse as a URL, if it does not.
	urlErr  error
	breaker *gobreaker.CircuitBreaker[struct{}]
	// peer is what is known of the endpoint's dialect: the form that
	// worked, the MCP session.
	peer *wirePeer
}

// endpoint returns the state kept of endpoint, made at its first call.
func (c *Client) endpoint(endpoint string) *endpointState {
	if ep, ok := c.endpoints.Load(endpoint); ok {
		return ep.(*endpointState)
	}
	ep := &endpointState{name: endpoint, peer: newWirePeer()}
	if u, err := url.Parse(endpoint); err != nil {
		ep.urlErr = err
	} else if u.Scheme != "http" && u.Scheme != "https" {
		ep.urlErr = fmt.Errorf("unsupported scheme %q", u.Scheme)
	}
	ep.breaker = c.newBreaker(endpoint)
	actual, _ := c.endpoints.LoadOrStore(endpoint, ep)
	return actual.(*endpointState)
}

// NewClient returns a [Client] configured by cfg.
func NewClient(cfg ClientConfig) *Client {
	if cfg.MaxIdleConnsPerHost <= 0 {
		cfg.MaxIdleConnsPerHost = 64
	}
	switch {
	case cfg.MaxIdleConns == 0:
		cfg.MaxIdleConns = 4 * cfg.MaxIdleConnsPerHost
	case cfg.MaxIdleConns < 0:
		cfg.MaxIdleConns = 0 // net/http's "no limit"
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	cfg.Retry = cfg.Retry.withDefaults()
	if cfg.Breaker.Failures <= 0 {
		cfg.Breaker.Failures = 5
	}
	if cfg.Breaker.OpenFor <= 0 {
		cfg.Breaker.OpenFor = 30 * time.Second
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = "league-agent/" + Version
	}
	if cfg.MaxReplyBytes <= 0 {
		cfg.MaxReplyBytes = 4 << 20
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Client{cfg: cfg, headers: http.Header{
		"Content-Type": {"application/json"},
		"Accept":       {"application/json, text/event-stream"},
		"User-Agent":   {cfg.UserAgent},
	}}
	if cfg.HTTPClient != nil {
		hc := *cfg.HTTPClient
		if hc.CheckRedirect == nil {
			hc.CheckRedirect = sameOrigin
		}
		c.http = &hc
	} else {
		c.ownsHTTP = true
		dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
		c.http = &http.Client{CheckRedirect: sameOrigin, Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           dialer.DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          cfg.MaxIdleConns,
			MaxIdleConnsPerHost:   cfg.MaxIdleConnsPerHost,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ExpectContinueTimeout: time.Second,
			TLSClientConfig:       cfg.TLSConfig.Clone(),
		}}
	}
	return c
}

// sameOrigin is the CheckRedirect of a Client's HTTP client: it follows a
// 307 or 308 to the same scheme, host and port as the request it answers,
// at most ten times, and refuses anything else (a redirectError).
func sameOrigin(req *http.Request, via []*http.Request) error {
	status := 0
	if req.Response != nil {
		status = req.Response.StatusCode
	}
	prev := via[len(via)-1].URL
	switch {
	case status != http.StatusTemporaryRedirect && status != http.StatusPermanentRedirect:
		return &redirectError{status: status, to: req.URL.Redacted(), why: "it would not re-send the request as it was"}
	case req.URL.Scheme != prev.Scheme || !strings.EqualFold(hostPort(req.URL), hostPort(prev)):
		return &redirectError{status: status, to: req.URL.Redacted(), why: "it leads to another origin"}
	case len(via) >= 10:
		return &redirectError{status: status, to: req.URL.Redacted(), why: "after 10 redirects"}
	}
	return nil
}

// hostPort returns u's host and port, with the scheme's default port
// when u names none.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// redirectError is a redirect a Client did not follow.
type redirectError struct {
	status int
	to     string
	why    string
}

func (r *redirectError) Error() string {
	return fmt.Sprintf("peer answered HTTP %d redirecting to %s, not followed: %s", r.status, r.to, r.why)
}

// Close closes the idle connections of the client's own HTTP client (not
// those of a [ClientConfig.HTTPClient]). The client remains usable: later
// calls open new ones.
func (c *Client) Close() {
	if c.ownsHTTP {
		c.http.CloseIdleConnections()
	}
}

// Forget drops what the client keeps of endpoint — its circuit breaker's
// count of failures, the wire form and MCP session it learned — so that
// the next call finds it as a first call would. Call it when the peer is
// known to have started again (it has just registered anew, say): its
// breaker may still be open for the failures of its earlier life. Calls
// under way finish with what they had.
func (c *Client) Forget(endpoint string) {
	c.endpoints.Delete(endpoint)
}

// breakerState returns the state of endpoint's circuit breaker: "closed",
// "open" or "half-open".
func (c *Client) breakerState(endpoint string) string {
	return c.endpoint(endpoint).breaker.State().String()
}

// Call sends params to method on endpoint and decodes the reply message
// into result (which may be nil). Params are encoded with encoding/json,
// except a [json.RawMessage], which is sent as it is: a message encoded
// once for many recipients, which must then be one JSON object. The call
// ends by ctx's deadline, or after [ClientConfig.Timeout] when ctx has
// none. Retryable failures are retried per the retry policy; a refused
// wire form is retried once in each other form. Every failure is an
// [*Error] naming the code, the endpoint, the method and the attempts made.
func (c *Client) Call(ctx context.Context, endpoint, method string, params, result any) error {
	_, err := c.call(ctx, endpoint, method, params, result, c.cfg.Retry)
	return err
}

// exchange is one call as its layers see it: what it sends, where its
// reply goes, and what came back.
type exchange struct {
	ep     *endpointState
	method string
	// tool is the name a tools/call of the exchange is sent under when it
	// is not method: the peer's own name for the message, learned from
	// its tools/list.
	tool   string
	params *payload
	// result is where the reply message is decoded (nil: not decoded).
	result any
	// raw is the reply message as received, form the form it answered.
	raw  []byte
	form WireForm
	// undecoded is true when the reply came and does not decode.
	undecoded bool
}

// call makes a call through its layers: the observer, the call's
// deadline, the retry policy, the wire-form fallback, the breaker and the
// exchange. It returns the exchange, whose raw and form are those of the
// reply when there is one.
func (c *Client) call(ctx context.Context, endpoint, method string, params, result any, policy RetryPolicy) (*exchange, error) {
	start := time.Now()
	if _, ok := ctx.Deadline(); !ok && policy.AttemptTimeout == 0 {
		// A call without a deadline gets the client's Timeout, or, when
		// its policy bounds each attempt, its attempts do.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.Timeout)
		defer cancel()
	}
	x := &exchange{ep: c.endpoint(endpoint), method: method, result: result}
	attempts, err := 0, error(nil)
	if body, perr := encodeParams(params); perr != nil {
		err = &Error{Code: CodeMissingRequiredField, Endpoint: endpoint, Method: method, Message: "params do not encode: " + perr.Error(), Err: perr}
	} else {
		x.params = &body
		attempts, err = c.retrying(policy, c.withFallback)(ctx, x)
	}
	if c.cfg.Observer != nil {
		c.cfg.Observer.ObserveCall(CallEvent{Method: method, Endpoint: endpoint, Outcome: Outcome(err), Attempts: attempts,
			Took: time.Since(start)})
	}
	return x, err
}
