package leaguesdk

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/sony/gobreaker/v2"

	wirejson "github.com/agentleague/league/internal/json"
	"github.com/agentleague/league/internal/sse"
)

// NoRetries, as [RetryPolicy.MaxRetries], disables retries.
const NoRetries = -1

// RetryPolicy says how a [Client] retries a call that failed with a retryable
// error (E001 timeout, E009 connection, E010 rate limited). Retries never
// go past the call's deadline or its context.
type RetryPolicy struct {
	// MaxRetries is the number of retries after the first attempt.
	// Default 3; [NoRetries] (or any negative value) for none.
	MaxRetries int
	// Delay is the pause before each retry, or before the first one when
	// Exponential is set. Default 2 s.
	Delay time.Duration
	// Exponential doubles the pause after each retry (1 s, 2 s, 4 s with a
	// Delay of 1 s), up to 64 times Delay.
	Exponential bool
	// AttemptTimeout bounds each attempt. Zero: an attempt may take what is
	// left of the call's deadline.
	AttemptTimeout time.Duration
	// OnRetry, when set, is called after a failed attempt that will be
	// retried, with its number (from 1), its error and the pause before the
	// next one: to log it, or to tell the peer (a referee announces each
	// retry to the player with a GAME_ERROR).
	OnRetry func(attempt int, err error, pause time.Duration)
}

// RetryUntilDone as [RetryPolicy.MaxRetries] retries until the call's context
// ends or an error is not retryable.
const RetryUntilDone = math.MaxInt32

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxRetries == 0 {
		p.MaxRetries = 3
	}
	if p.MaxRetries < 0 {
		p.MaxRetries = 0
	}
	if p.Delay <= 0 {
		p.Delay = 2 * time.Second
	}
	return p
}

// BreakerPolicy configures the circuit breaker a [Client] keeps per endpoint.
type BreakerPolicy struct {
	// Failures is the number of consecutive failures that opens the
	// circuit. Default 5.
	Failures int
	// OpenFor is how long an open circuit refuses calls before it lets one
	// probe through. Default 30 s.
	OpenFor time.Duration
	// Disabled turns the breaker off.
	Disabled bool
}

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
	cfg       ClientConfig
	http      *http.Client
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
	// form is 1 + the WireForm that worked with the endpoint, 0 before
	// one has.
	form atomic.Int32
	mcp  mcpEndpoint
}

// endpoint returns the state kept of endpoint, made at its first call.
func (c *Client) endpoint(endpoint string) *endpointState {
	if ep, ok := c.endpoints.Load(endpoint); ok {
		return ep.(*endpointState)
	}
	ep := &endpointState{name: endpoint, mcp: mcpEndpoint{gate: make(chan struct{}, 1)}}
	if u, err := url.Parse(endpoint); err != nil {
		ep.urlErr = err
	} else if u.Scheme != "http" && u.Scheme != "https" {
		ep.urlErr = fmt.Errorf("unsupported scheme %q", u.Scheme)
	}
	failures := uint32(c.cfg.Breaker.Failures)
	ep.breaker = gobreaker.NewCircuitBreaker[struct{}](gobreaker.Settings{
		Name:        endpoint,
		MaxRequests: 1,
		Timeout:     c.cfg.Breaker.OpenFor,
		ReadyToTrip: func(counts gobreaker.Counts) bool { return counts.ConsecutiveFailures >= failures },
		IsExcluded:  func(err error) bool { return errors.Is(err, context.Canceled) },
	})
	actual, _ := c.endpoints.LoadOrStore(endpoint, ep)
	return actual.(*endpointState)
}

// knownForm returns the wire form that worked with the endpoint, if one has.
func (ep *endpointState) knownForm() (WireForm, bool) {
	f := ep.form.Load()
	return WireForm(f - 1), f != 0
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
	c := &Client{cfg: cfg}
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

// Call sends params to method on endpoint and decodes the reply message
// into result (which may be nil). Params are encoded with encoding/json,
// except a [json.RawMessage], which is sent as it is: a message encoded
// once for many recipients, which must then be one JSON object. The call
// ends by ctx's deadline, or after [ClientConfig.Timeout] when ctx has
// none. Retryable failures are retried per the retry policy; a refused
// wire form is retried once in each other form. Every failure is an
// [*Error] naming the code, the endpoint, the method and the attempts made.
func (c *Client) Call(ctx context.Context, endpoint, method string, params, result any) error {
	return c.call(ctx, endpoint, method, params, result, c.cfg.Retry)
}

// breakerState returns the state of endpoint's circuit breaker: "closed",
// "open" or "half-open".
func (c *Client) breakerState(endpoint string) string {
	return c.endpoint(endpoint).breaker.State().String()
}

func (c *Client) call(ctx context.Context, endpoint, method string, params, result any, policy RetryPolicy) error {
	if c.cfg.Observer == nil {
		_, err := c.callRetrying(ctx, endpoint, method, params, result, policy)
		return err
	}
	start := time.Now()
	attempts, err := c.callRetrying(ctx, endpoint, method, params, result, policy)
	c.cfg.Observer.ObserveCall(CallEvent{Method: method, Endpoint: endpoint, Outcome: Outcome(err), Attempts: attempts,
		Took: time.Since(start)})
	return err
}

// callRetrying makes the call with its retries and returns the number of
// attempts it made.
func (c *Client) callRetrying(ctx context.Context, endpoint, method string, params, result any, policy RetryPolicy) (int, error) {
	if _, ok := ctx.Deadline(); !ok {
		// A call without a deadline gets the client's Timeout, or, when
		// its policy bounds each attempt, its attempts do.
		if policy.AttemptTimeout == 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, c.cfg.Timeout)
			defer cancel()
		}
	}
	body, err := encodeParams(params)
	if err != nil {
		return 0, &Error{Code: CodeMissingRequiredField, Endpoint: endpoint, Method: method, Message: "params do not encode: " + err.Error(), Err: err}
	}
	r := retrying{c: c, ctx: ctx, ep: c.endpoint(endpoint), method: method, body: &body, result: result, policy: policy}
	// Most calls succeed, or fail for good, at their first attempt: the
	// backoff that paces the retries is set up only for a call that will
	// have one, and is then handed the first attempt's error as if it had
	// made it.
	done, first := r.once()
	if done {
		return r.attempt, first
	}
	return r.retry(first)
}

// retrying is one call of callRetrying: what each of its attempts sends,
// and how many it has made.
type retrying struct {
	c       *Client
	ctx     context.Context
	ep      *endpointState
	method  string
	body    *payload
	result  any
	policy  RetryPolicy
	attempt int
	last    error // the *Error of the last failed attempt
}

// once makes one attempt. done is true when it is the last: it succeeded
// (err nil) or failed with an error not to retry; otherwise err is the
// attempt's retryable error.
func (r *retrying) once() (done bool, err error) {
	r.attempt++
	actx := r.ctx
	if r.policy.AttemptTimeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(r.ctx, r.policy.AttemptTimeout)
		defer cancel()
	}
	err = r.c.withFallback(actx, r.ep, r.method, r.body, r.result)
	if err == nil {
		return true, nil
	}
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Code: CodeConnectionError, Err: err}
	}
	e.Endpoint, e.Method, e.Attempt = r.ep.name, r.method, r.attempt
	r.last = e
	return !e.Code.Retryable() || errors.Is(e, ErrCircuitOpen) || r.ctx.Err() != nil, e
}

// retry goes on with a call whose first attempt failed with first, a
// retryable error, as the retry policy says, and returns the number of
// attempts made and the call's error.
func (r retrying) retry(first error) (int, error) {
	policy, ctx := r.policy, r.ctx
	var b backoff.BackOff
	if policy.Exponential {
		e := backoff.NewExponentialBackOff()
		e.InitialInterval = policy.Delay
		e.Multiplier = 2
		e.RandomizationFactor = 0
		e.MaxInterval = 64 * policy.Delay
		e.MaxElapsedTime = 0
		b = e
	} else {
		b = backoff.NewConstantBackOff(policy.Delay)
	}
	deadline, _ := ctx.Deadline()
	// WithContext ends a pause between attempts as soon as ctx is done.
	b = backoff.WithContext(&deadlineBackOff{BackOff: backoff.WithMaxRetries(b, uint64(policy.MaxRetries)), deadline: deadline}, ctx)
	op := func() error {
		done, err := false, first
		if first == nil {
			done, err = r.once()
		}
		first = nil // the first attempt was made already
		if done && err != nil {
			return backoff.Permanent(err)
		}
		return err
	}
	b.Reset()
	var notify backoff.Notify
	if policy.OnRetry != nil {
		notify = func(err error, pause time.Duration) { policy.OnRetry(r.attempt, err, pause) }
	}
	if err := backoff.RetryNotify(op, b, notify); err != nil {
		if errors.Is(err, context.Canceled) && !errors.Is(r.last, context.Canceled) {
			// Cancelled while waiting to retry.
			return r.attempt, &Error{Code: CodeConnectionError, Message: "call cancelled", Endpoint: r.ep.name, Method: r.method, Attempt: r.attempt, Err: err}
		}
		if r.last != nil {
			return r.attempt, r.last
		}
		return r.attempt, err
	}
	return r.attempt, nil
}

// deadlineBackOff stops retrying when the next pause would end past the deadline.
type deadlineBackOff struct {
	backoff.BackOff
	deadline time.Time
}

func (d *deadlineBackOff) NextBackOff() time.Duration {
	next := d.BackOff.NextBackOff()
	if next == backoff.Stop || (!d.deadline.IsZero() && time.Now().Add(next).After(d.deadline)) {
		return backoff.Stop
	}
	return next
}

// withFallback makes one attempt in the endpoint's preferred wire form and,
// when the peer refuses the form, once in each other form. A refusal for
// want of an MCP session leads to the handshake and a tools/call in the
// session (withSession).
//
// On the first exchange with an endpoint (no form remembered yet) any
// JSON-RPC error without a catalog code also counts as a refused form
// (formMissed): some peers answer a message they did not find where they
// looked with a server error. The form of the first exchange that works is
// remembered, so later calls keep the narrow reading.
func (c *Client) withFallback(ctx context.Context, ep *endpointState, method string, params *payload, result any) error {
	first, known := ep.knownForm()
	if !known {
		first = FormSpec
	}
	refused := func(err error) bool { return formRefused(err) || (!known && formMissed(err)) }
	sess := ep.mcp.cur.Load()
	err := c.attempt(ctx, ep, method, first, sess, params, result)
	if err == nil && !known {
		ep.form.CompareAndSwap(0, int32(first)+1)
	}
	if err == nil || ctx.Err() != nil {
		return err
	}
	if sessionRefused(err) {
		return c.withSession(ctx, ep, method, sess, params, result)
	}
	if !refused(err) {
		return err
	}
	for _, f := range []WireForm{FormSpec, FormMessageType, FormEnvelope, FormToolsCall} {
		if f == first || (f == FormMessageType && params.messageType() == "") {
			continue
		}
		e2 := c.attempt(ctx, ep, method, f, sess, params, result)
		switch {
		case e2 == nil:
			ep.form.Store(int32(f) + 1)
			c.cfg.Logger.LogAttrs(ctx, slog.LevelInfo, "peer accepts another wire form", slog.String("endpoint", ep.name),
				slog.String("method", method), slog.String("form", f.String()))
			return nil
		case ctx.Err() != nil:
			return e2
		case sessionRefused(e2):
			return c.withSession(ctx, ep, method, sess, params, result)
		case !refused(e2):
			return e2
		}
	}
	return err
}

// formMissed reports whether err is a JSON-RPC error the peer answered
// without a catalog code of the protocol (such as -32000 "Missing required
// fields", whatever its HTTP status): the peer may not have found the
// message where it looked. A LEAGUE_ERROR or GAME_ERROR with a code, and a
// REJECTED reply, are protocol answers and never count.
func formMissed(err error) bool {
	var rpc *RPCError
	return errors.As(err, &rpc) && CodeOf(err) == ""
}

// formRefused reports whether err says the peer did not understand the
// request's form: method not found, invalid params, HTTP 400, 404, 405 or
// 422, or a missing-field error it answered.
func formRefused(err error) bool {
	var rpc *RPCError
	if errors.As(err, &rpc) && (rpc.Code == RPCMethodNotFound || rpc.Code == RPCInvalidParams || rpc.Code == RPCInvalidRequest) {
		return true
	}
	var h *httpStatusError
	if errors.As(err, &h) && (h.status == http.StatusNotFound || h.status == http.StatusBadRequest ||
		h.status == http.StatusMethodNotAllowed || h.status == http.StatusUnprocessableEntity) {
		return true
	}
	// A validation error the peer answered (E003 in a JSON-RPC error) means
	// it read the request differently; a reply we cannot read does not.
	return CodeOf(err) == CodeMissingRequiredField && errors.As(err, &rpc)
}

// httpStatusError is an HTTP status the peer answered without a JSON-RPC
// reply; body is the start of what it said instead.
type httpStatusError struct {
	status int
	body   string
}

func (h *httpStatusError) Error() string { return fmt.Sprintf("HTTP status %d", h.status) }

// peerAnswer carries an error the peer answered through the breaker as a
// success: a peer that answers is up.
type peerAnswer struct{ err error }

func (p *peerAnswer) Error() string { return p.err.Error() }
func (p *peerAnswer) Unwrap() error { return p.err }

func (c *Client) attempt(ctx context.Context, ep *endpointState, method string, form WireForm, sess *mcpSession, params *payload, result any) error {
	// The debug line is built only for a logger that writes it.
	log := c.cfg.Logger
	debug := log.Enabled(ctx, slog.LevelDebug)
	var start time.Time
	if debug {
		start = time.Now()
	}
	err := c.guarded(ep, func() error {
		return c.send(ctx, ep, method, form, sess, params, result)
	})
	if !debug {
		return err
	}
	attrs := []slog.Attr{slog.String("endpoint", ep.name), slog.String("method", method),
		slog.String("message_type", string(params.messageType())), slog.String("form", form.String()),
		slog.Duration("took", time.Since(start)), slog.Any("error", err)}
	if sess != nil && form == FormToolsCall {
		attrs = append(attrs, slog.Bool("mcp_session", true))
	}
	log.LogAttrs(ctx, slog.LevelDebug, "call", attrs...)
	return err
}

// guarded runs one exchange with the endpoint through its circuit breaker.
// An error the peer answered (*peerAnswer) is returned unwrapped and counts
// as a success: a peer that answers is up.
func (c *Client) guarded(ep *endpointState, exchange func() error) error {
	var answered error
	exec := func() (struct{}, error) {
		err := exchange()
		if pa := asPeerAnswer(err); pa != nil {
			answered = pa.err
			return struct{}{}, nil
		}
		return struct{}{}, err
	}
	var err error
	if c.cfg.Breaker.Disabled {
		_, err = exec()
	} else {
		_, err = ep.breaker.Execute(exec)
		if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
			err = &Error{Code: CodeConnectionError, Message: "circuit breaker open for " + ep.name, Err: ErrCircuitOpen}
		}
	}
	if err == nil {
		err = answered
	}
	return err
}

// asPeerAnswer returns the *peerAnswer in err's chain, or nil. The
// exchanges return it as it is: the type assertion finds it without the
// allocation errors.As makes of its target.
func asPeerAnswer(err error) *peerAnswer {
	if err == nil {
		return nil
	}
	if pa, ok := err.(*peerAnswer); ok {
		return pa
	}
	var pa *peerAnswer
	if errors.As(err, &pa) {
		return pa
	}
	return nil
}

// send makes one HTTP exchange (in the MCP session sess, if any, when the
// form is tools/call). Errors the peer answered come back wrapped in
// *peerAnswer; transport failures come back as *Error.
func (c *Client) send(ctx context.Context, ep *endpointState, method string, form WireForm, sess *mcpSession, params *payload, result any) error {
	if form != FormToolsCall {
		sess = nil
	}
	id := c.nextID.Add(1)
	var body [][]byte
	switch form {
	case FormMessageType:
		body = [][]byte{appendRequest(nil, id, string(params.messageType()), params.text())}
	case FormEnvelope:
		p, _ := json.Marshal(map[string]json.RawMessage{"message": params.text()})
		body = [][]byte{appendRequest(nil, id, "handle_message", p)}
	case FormToolsCall:
		name, _ := json.Marshal(method)
		p, _ := json.Marshal(map[string]json.RawMessage{"name": name, "arguments": params.text()})
		body = [][]byte{appendRequest(nil, id, "tools/call", p)}
	default:
		body = params.request(id, method)
	}
	reply, _, err := c.request(ctx, ep, body, sess)
	if err != nil {
		return err
	}
	if t := reply.messageType; t == string(MsgLeagueError) || t == string(MsgGameError) {
		return &peerAnswer{errorFromMessage(reply.message)}
	}
	if result != nil {
		if err := decodeMessage(reply.message, result); err != nil {
			return &peerAnswer{&Error{Code: CodeMissingRequiredField, Message: "reply does not decode: " + err.Error(), Err: err}}
		}
	}
	return nil
}

// exchange posts one JSON-RPC body, given in pieces, to the endpoint, with
// the headers of the MCP session sess if it is not nil, and returns the
// answer's status, headers and body (the data of its first event when it
// is an event stream). Transport failures come back as *Error.
func (c *Client) exchange(ctx context.Context, ep *endpointState, body [][]byte, sess *mcpSession) (int, http.Header, []byte, error) {
	if ep.urlErr != nil {
		return 0, nil, nil, &Error{Code: CodeConnectionError, Message: "bad endpoint: " + ep.urlErr.Error(), Err: ep.urlErr}
	}
	var rd io.Reader
	if len(body) == 1 {
		rd = bytes.NewReader(body[0])
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.name, rd)
	if err != nil {
		return 0, nil, nil, &Error{Code: CodeConnectionError, Message: "bad endpoint: " + err.Error(), Err: err}
	}
	if rd == nil {
		// The pieces are sent one after another, not joined first; the
		// body is given again from the start for a redirect.
		pieces := func() io.ReadCloser { b := net.Buffers(slices.Clone(body)); return io.NopCloser(&b) }
		for _, b := range body {
			req.ContentLength += int64(len(b))
		}
		req.Body = pieces()
		req.GetBody = func() (io.ReadCloser, error) { return pieces(), nil }
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("User-Agent", c.cfg.UserAgent)
	if sess != nil {
		sess.setHeaders(req.Header)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, nil, transportError(ctx, err)
	}
	defer resp.Body.Close()
	raw, err := c.readAnswer(resp.Body, resp.ContentLength)
	if err != nil {
		return 0, nil, nil, transportError(ctx, err)
	}
	return resp.StatusCode, resp.Header, answerData(resp.Header, raw), nil
}

// readAnswer reads an answer's body of contentLength bytes (-1: unknown),
// at most MaxReplyBytes of it.
func (c *Client) readAnswer(body io.Reader, contentLength int64) ([]byte, error) {
	return readAll(body, contentLength, c.cfg.MaxReplyBytes)
}

// answerData returns the reply an answer's body carries: the data of its
// first event when it is an event stream, else the body itself.
func answerData(h http.Header, raw []byte) []byte {
	if strings.HasPrefix(h.Get("Content-Type"), "text/event-stream") {
		return sse.Data(raw)
	}
	return raw
}

// request makes one exchange and reads its JSON-RPC reply; a JSON-RPC error
// comes back as an error the peer answered (*peerAnswer).
func (c *Client) request(ctx context.Context, ep *endpointState, body [][]byte, sess *mcpSession) (parsedReply, http.Header, error) {
	status, h, raw, err := c.exchange(ctx, ep, body, sess)
	if err != nil {
		return parsedReply{}, nil, err
	}
	reply, err := readReply(status, raw)
	if err != nil {
		return parsedReply{}, nil, err
	}
	if reply.rpcErr != nil {
		return parsedReply{}, nil, &peerAnswer{errorFromRPC(reply.rpcErr)}
	}
	return reply, h, nil
}

// readReply parses an answer's body. Answers without a JSON-RPC reply come
// back as errors: HTTP 429 and 5xx as retryable *Error, anything else as an
// error the peer answered (*peerAnswer).
func readReply(status int, raw []byte) (parsedReply, error) {
	reply, perr := parseReply(raw)
	if perr == nil {
		return reply, nil
	}
	herr := &httpStatusError{status: status, body: snippet(raw)}
	switch {
	case status == http.StatusTooManyRequests:
		return parsedReply{}, &Error{Code: CodeRateLimited, Message: "peer is rate limiting (HTTP 429)", Err: herr}
	case status >= 500:
		return parsedReply{}, &Error{Code: CodeConnectionError, Message: fmt.Sprintf("peer failed (HTTP %d)", status), Err: herr}
	case status >= 400:
		// The peer is up and refused the request: no catalog code, not retried.
		msg := fmt.Sprintf("peer refused the request (HTTP %d)", status)
		if herr.body != "" {
			msg = fmt.Sprintf("peer refused the request (HTTP %d: %s)", status, herr.body)
		}
		return parsedReply{}, &peerAnswer{&Error{Message: msg, Err: herr}}
	case status == http.StatusAccepted && len(bytes.TrimSpace(raw)) == 0:
		return parsedReply{}, &peerAnswer{&Error{Code: CodeMissingRequiredField, Message: "peer answered 202 with no reply message"}}
	}
	return parsedReply{}, &peerAnswer{&Error{Code: CodeMissingRequiredField, Message: "reply is not a JSON-RPC response: " + perr.Error(), Err: perr}}
}

// snippet returns the start of a body that is not JSON-RPC, as one line of
// printable text, for error messages.
func snippet(raw []byte) string {
	const limit = 120
	s := strings.Join(strings.Fields(string(raw)), " ")
	if r := []rune(s); len(r) > limit {
		s = string(r[:limit]) + "…"
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
}

func transportError(ctx context.Context, err error) error {
	var redirect *redirectError
	if errors.As(err, &redirect) {
		// The peer answered: not retried, and not a failure of the peer.
		return &peerAnswer{&Error{Message: redirect.Error(), Err: err}}
	}
	if ctx.Err() == context.Canceled {
		return &Error{Code: CodeConnectionError, Message: "call cancelled", Err: context.Canceled}
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return &Error{Code: CodeTimeout, Message: "no reply before the deadline", Err: err}
	}
	if tlsRefused(err) {
		// A certificate that does not verify, or one the peer refuses,
		// stays so however often the call is made: no catalog code, so it
		// is not retried and the caller hears of it at once.
		return &Error{Message: "TLS: " + err.Error(), Err: err}
	}
	return &Error{Code: CodeConnectionError, Message: err.Error(), Err: err}
}

// tlsRefused reports whether err is a TLS handshake that failed on a
// certificate: ours refused by the peer, or the peer's not verified here.
func tlsRefused(err error) bool {
	var verify *tls.CertificateVerificationError
	var alert tls.AlertError
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "remote error" {
		return true // a TLS alert from the peer: it refused our certificate
	}
	return errors.As(err, &verify) || errors.As(err, &alert) || errors.As(err, &unknown) ||
		errors.As(err, &host) || errors.As(err, &invalid)
}

type parsedReply struct {
	rpcErr      *RPCError
	message     json.RawMessage
	messageType string
}

// parseReply finds the reply message in a response body: in result (itself
// or MCP content), in params of a request-shaped reply, or at the top level.
func parseReply(raw []byte) (parsedReply, error) {
	var top replyTop
	if err := wirejson.Unmarshal(raw, &top); err != nil {
		return parsedReply{}, err
	}
	if top.Error != nil {
		return parsedReply{rpcErr: top.Error}, nil
	}
	var msg json.RawMessage
	switch {
	case len(top.Result) > 0 && !bytes.Equal(top.Result, []byte("null")):
		msg = unwrapToolResult(top.Result)
	case len(top.Params) > 0:
		msg = top.Params
	case top.MessageType != "":
		msg = raw
	default:
		return parsedReply{}, errors.New("no result")
	}
	msg, t := locateMessage(msg)
	return parsedReply{message: msg, messageType: t}, nil
}

// unwrapToolResult returns the message inside an MCP tool result
// (structuredContent, else the JSON text of content[0]); any other result
// is returned as it is.
func unwrapToolResult(res json.RawMessage) json.RawMessage {
	if !bytes.Contains(res, []byte(`"content"`)) {
		return res
	}
	var tr struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		MessageType       string          `json:"message_type"`
	}
	if json.Unmarshal(res, &tr) != nil || tr.MessageType != "" {
		return res
	}
	if len(tr.StructuredContent) > 0 && tr.StructuredContent[0] == '{' {
		return tr.StructuredContent
	}
	for _, c := range tr.Content {
		if t := strings.TrimSpace(c.Text); c.Type == "text" && strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
			return json.RawMessage(t)
		}
	}
	return res
}

// errorFromRPC turns a JSON-RPC error the peer answered into an *Error,
// reading the catalog code from a LEAGUE_ERROR or GAME_ERROR in its data.
func errorFromRPC(rpc *RPCError) error {
	if len(rpc.Data) > 0 {
		var d struct {
			ErrorCode Code `json:"error_code"`
		}
		if json.Unmarshal(rpc.Data, &d) == nil && d.ErrorCode != "" {
			e := errorFromMessage(rpc.Data).(*Error)
			e.Err = rpc
			return e
		}
	}
	return &Error{Message: rpc.Error(), Err: rpc}
}

func errorFromMessage(raw json.RawMessage) error {
	var m struct {
		ErrorCode        Code           `json:"error_code"`
		ErrorName        string         `json:"error_name"`
		ErrorDescription string         `json:"error_description"`
		Context          map[string]any `json:"context"`
	}
	_ = json.Unmarshal(raw, &m)
	msg := m.ErrorDescription
	if msg == "" {
		msg = m.ErrorName
	}
	return &Error{Code: m.ErrorCode, Message: msg, Context: m.Context}
}
