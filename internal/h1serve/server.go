// Package h1serve serves the agents' JSON-RPC calls over HTTP/1.1 on
// cleartext connections with less work per request than net/http's
// server, and hands every other request to a net/http server.
//
// A request whose method is POST is read from the connection's buffered
// reader (by this package when its head is plain, with http.ReadRequest
// otherwise) and served on the connection's own goroutine; its answer is
// buffered whole and written with its head in one write, with a
// Content-Length. net/http's server, per request, also
// starts a goroutine that reads the connection in the background (to see
// a caller hang up) and stops it with two changes of the read deadline;
// here that watch starts only once a handler has run for HangupAfter.
//
// The first request on a connection that is not a POST (the dashboard's
// pages, a HEAD, a request with a body sent in HTTP/2's preface) hands
// the connection, with what was read of it, to a net/http server serving
// the same handler, which keeps it: a handler there may stream (Flusher),
// hijack or answer whatever HTTP/1.x allows.
//
// A POST's handler gets what net/http's server gives it, with these
// differences: its ResponseWriter implements neither http.Flusher nor
// http.Hijacker (the answer goes out when the handler returns), informational
// answers (1xx) are not sent, except 100 Continue, and trailers are dropped.
package h1serve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentleague/league/internal/httphead"
)

// Defaults of Server's fields left zero.
const (
	DefaultHangupAfter    = 100 * time.Millisecond
	DefaultMaxHeaderBytes = http.DefaultMaxHeaderBytes
)

// drainLimit is how much of a request body its handler left unread is
// read and discarded so that the connection can serve the next request;
// past it the connection is closed after the answer, as net/http does.
const drainLimit = 256 << 10

// Server serves HTTP/1.1 on the connections of listeners. Its fields are
// read when Serve is first called and must not change afterwards.
type Server struct {
	// Handler answers every request.
	Handler http.Handler
	// ReadHeaderTimeout bounds the reading of a request's head once its
	// first bytes have come; zero means no bound. Idle connections are
	// kept without a bound, as net/http keeps them without an IdleTimeout.
	ReadHeaderTimeout time.Duration
	// MaxHeaderBytes bounds a request's head (DefaultMaxHeaderBytes when
	// zero); a longer one is answered 431 and its connection closed.
	MaxHeaderBytes int
	// HangupAfter is how long a handler runs before the connection is
	// watched for its caller hanging up, which ends the request's context
	// (DefaultHangupAfter when zero).
	HangupAfter time.Duration
	// ErrorLog receives handlers' panics and failed accepts; nil means
	// the log package's standard logger.
	ErrorLog *log.Logger

	mu        sync.Mutex
	started   bool
	closing   atomic.Bool // set with mu held; read without it on every request
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	fallback  *http.Server
	handoffs  *chanListener
	date      atomic.Pointer[dateLine]
}

// Serve accepts connections on ln and serves them until Shutdown or Close
// is called, when it returns http.ErrServerClosed, or accepting fails for
// good. It closes ln when it returns.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closing.Load() {
		s.mu.Unlock()
		_ = ln.Close()
		return http.ErrServerClosed
	}
	if !s.started {
		s.started = true
		s.listeners = map[net.Listener]struct{}{}
		s.conns = map[*conn]struct{}{}
		s.handoffs = newChanListener(ln.Addr())
		s.fallback = &http.Server{Handler: s.Handler, ReadHeaderTimeout: s.ReadHeaderTimeout,
			MaxHeaderBytes: s.MaxHeaderBytes, ErrorLog: s.ErrorLog}
		go func() { _ = s.fallback.Serve(s.handoffs) }()
	}
	s.listeners[ln] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, ln)
		s.mu.Unlock()
		_ = ln.Close()
	}()

	var pause time.Duration
	for {
		rwc, err := ln.Accept()
		if err != nil {
			if s.closing.Load() {
				return http.ErrServerClosed
			}
			// As net/http's server: a temporary failure (too many open
			// files) is waited out rather than ending Serve.
			var te interface{ Temporary() bool }
			if errors.As(err, &te) && te.Temporary() {
				pause = min(max(2*pause, 5*time.Millisecond), time.Second)
				s.logf("h1serve: accept error: %v; retrying in %v", err, pause)
				time.Sleep(pause)
				continue
			}
			return err
		}
		pause = 0
		c := s.newConn(rwc)
		if c == nil {
			_ = rwc.Close()
			return http.ErrServerClosed
		}
		go c.serve()
	}
}

func (s *Server) logf(format string, args ...any) {
	if s.ErrorLog != nil {
		s.ErrorLog.Printf(format, args...)
		return
	}
	log.Printf(format, args...)
}

// Shutdown stops the server gracefully: it closes the listeners and the
// idle connections, then waits for the requests under way to be answered
// and their connections closed, or for ctx to end, when it returns ctx's
// error and leaves the rest to Close. Requests served by net/http (see
// the package's doc) are shut down by its Server.Shutdown.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing.Store(true)
	s.closeListenersLocked()
	fallback := s.fallback
	s.mu.Unlock()

	var fallbackErr error
	fallbackDone := make(chan struct{})
	go func() {
		defer close(fallbackDone)
		if fallback != nil {
			fallbackErr = fallback.Shutdown(ctx)
		}
	}()
	pause := time.Millisecond
	timer := time.NewTimer(pause)
	defer timer.Stop()
	for {
		if s.closeIdle() {
			break
		}
		select {
		case <-ctx.Done():
			<-fallbackDone
			return ctx.Err()
		case <-timer.C:
			pause = min(2*pause, 100*time.Millisecond)
			timer.Reset(pause)
		}
	}
	<-fallbackDone
	return fallbackErr
}

// Close closes the listeners and every connection at once; the contexts
// of the requests under way end.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closing.Store(true)
	s.closeListenersLocked()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	fallback := s.fallback
	s.mu.Unlock()
	for _, c := range conns {
		c.close()
	}
	if fallback != nil {
		return fallback.Close()
	}
	return nil
}

func (s *Server) closeListenersLocked() {
	for ln := range s.listeners {
		_ = ln.Close()
	}
	if s.handoffs != nil {
		_ = s.handoffs.Close()
	}
}

// closeIdle closes the connections waiting for a request and reports
// whether none is left.
func (s *Server) closeIdle() bool {
	s.mu.Lock()
	var idle []*conn
	for c := range s.conns {
		if c.state.CompareAndSwap(stateIdle, stateClosed) {
			idle = append(idle, c)
		}
	}
	left := len(s.conns) - len(idle)
	s.mu.Unlock()
	for _, c := range idle {
		c.close()
	}
	return left == 0
}

func (s *Server) newConn(rwc net.Conn) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing.Load() {
		return nil
	}
	c := &conn{srv: s, rwc: rwc, remoteAddr: rwc.RemoteAddr().String()}
	c.ctx = context.WithValue(context.Background(), http.LocalAddrContextKey, rwc.LocalAddr())
	c.cr.c, c.cr.limit = c, -1
	c.br = bufio.NewReaderSize(&c.cr, 4096)
	c.body.c = c
	c.header = http.Header{}
	s.conns[c] = struct{}{}
	return c
}

func (s *Server) forget(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// handOff gives c, with what its reader holds, to the net/http server; it
// reports false when that server no longer takes connections.
func (s *Server) handOff(c *conn) bool {
	return s.handoffs.give(&handedConn{Conn: c.rwc, r: c.br})
}

// A connection's states; a connection closed by Shutdown while idle
// never serves again.
const (
	stateIdle int32 = iota
	stateActive
	stateClosed
)

// conn is one connection served by Server.
type conn struct {
	srv        *Server
	rwc        net.Conn
	remoteAddr string
	ctx        context.Context // the requests' parent, with LocalAddrContextKey
	state      atomic.Int32
	cr         connReader
	br         *bufio.Reader
	wbuf       []byte
	body       requestBody
	resp       response
	header     http.Header
	req        http.Request // a request peekRequest read, before it is copied
	fixed      fixedBody    // the body of that request

	// mu guards what the hang-up watch shares with the serving goroutine.
	mu         sync.Mutex
	running    bool // a handler runs
	bodyDone   bool // its request's body has been read to its end
	watchDue   bool // HangupAfter passed before bodyDone: the watch starts with it
	watching   bool // a watch reads the connection
	aborting   bool // the watch is being stopped
	hungUp     bool // the watch saw the caller hang up
	watchDone  chan struct{}
	cancelReq  context.CancelFunc
	watchTimer *time.Timer
	closeOnce  sync.Once
}

func (c *conn) close() {
	c.closeOnce.Do(func() {
		_ = c.rwc.Close()
		c.mu.Lock()
		cancel := c.cancelReq
		c.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	})
}

// serve serves c's requests until it is closed, handed off, or broken.
func (c *conn) serve() {
	handedOff := false
	defer func() {
		if !handedOff {
			c.close()
		}
		c.srv.forget(c)
		if c.watchTimer != nil {
			c.watchTimer.Stop()
		}
	}()
	// A new connection has ReadHeaderTimeout to send its first request,
	// as net/http gives it; an idle one waits without a bound.
	if d := c.srv.ReadHeaderTimeout; d > 0 {
		_ = c.rwc.SetReadDeadline(time.Now().Add(d))
	}
	for {
		head, err := c.br.Peek(5)
		if err != nil && len(head) == 0 {
			return // closed, or idle until the caller left
		}
		if !c.state.CompareAndSwap(stateIdle, stateActive) {
			return // closed by Shutdown while idle
		}
		if string(head) != "POST " {
			handedOff = c.srv.handOff(c)
			return
		}
		if !c.serveOne() {
			return
		}
		if !c.state.CompareAndSwap(stateActive, stateIdle) || c.srv.closing.Load() {
			return
		}
	}
}

// serveOne reads a request and answers it; it reports whether the
// connection may serve another.
func (c *conn) serveOne() bool {
	s := c.srv
	if d := s.ReadHeaderTimeout; d > 0 {
		_ = c.rwc.SetReadDeadline(time.Now().Add(d))
	}
	maxHeader := s.MaxHeaderBytes
	if maxHeader <= 0 {
		maxHeader = DefaultMaxHeaderBytes
	}
	c.cr.setLimit(int64(maxHeader) + 4096) // net/http's allowance for the request line
	var err error
	req := c.peekRequest(maxHeader)
	headerChecked := req != nil // peekRequest reads only valid names and values
	if req == nil {
		req, err = http.ReadRequest(c.br)
	}
	tooLarge := c.cr.hitLimit
	c.cr.setLimit(-1)
	if s.ReadHeaderTimeout > 0 {
		_ = c.rwc.SetReadDeadline(time.Time{})
	}
	if err != nil {
		switch {
		case tooLarge:
			c.answerError(http.StatusRequestHeaderFieldsTooLarge, "431 Request Header Fields Too Large")
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), isNetError(err):
			// The caller left, or the connection failed: nobody to answer.
		default:
			c.answerError(http.StatusBadRequest, "400 Bad Request")
		}
		return false
	}
	if msg := checkRequest(req, headerChecked); msg != "" {
		status := http.StatusBadRequest
		if req.ProtoMajor != 1 {
			status = http.StatusHTTPVersionNotSupported
		}
		c.answerError(status, strconv.Itoa(status)+" "+msg)
		return false
	}
	expectContinue := false
	if ex, ok := req.Header["Expect"]; ok {
		if len(ex) != 1 || !httphead.Is(ex[0], "100-continue") {
			c.answerError(http.StatusExpectationFailed, "417 Expectation Failed")
			return false
		}
		expectContinue = req.ProtoAtLeast(1, 1) && req.ContentLength != 0
		delete(req.Header, "Expect")
	}

	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	req = req.WithContext(ctx)
	req.RemoteAddr = c.remoteAddr
	c.body.reset(req.Body, expectContinue)
	req.Body = &c.body

	clear(c.header)
	c.resp = response{c: c, req: req, header: c.header, body: c.resp.body[:0]}
	c.mu.Lock()
	c.running, c.bodyDone, c.watchDue, c.hungUp, c.cancelReq = true, false, false, false, cancel
	c.mu.Unlock()
	c.armWatch()

	ok := c.runHandler(req)

	c.mu.Lock()
	c.running, c.cancelReq = false, nil
	watching, hungUp := c.watching, c.hungUp
	if watching {
		c.aborting = true
	}
	c.mu.Unlock()
	c.watchTimer.Stop()
	if watching {
		_ = c.rwc.SetReadDeadline(aLongTimeAgo)
		<-c.watchDone
		_ = c.rwc.SetReadDeadline(time.Time{})
		c.mu.Lock()
		c.watching, c.aborting = false, false
		hungUp = c.hungUp
		c.mu.Unlock()
	}
	if !ok || hungUp {
		return false
	}
	keep := !req.Close && req.ProtoAtLeast(1, 1) && !c.srv.closing.Load()
	unread := keep && !c.body.finish()
	if err := c.resp.finish(keep && !unread); err != nil {
		return false
	}
	if unread {
		c.linger()
	}
	return keep && !unread
}

// runHandler runs the handler on req, recovering a panic as net/http's
// server does: the connection is closed without an answer, and the panic
// logged unless it is http.ErrAbortHandler. It reports whether the
// handler returned.
func (c *conn) runHandler(req *http.Request) (ok bool) {
	defer func() {
		if err := recover(); err != nil {
			if err != http.ErrAbortHandler {
				buf := make([]byte, 64<<10)
				buf = buf[:runtime.Stack(buf, false)]
				c.srv.logf("h1serve: panic serving %v: %v\n%s", c.remoteAddr, err, buf)
			}
			ok = false
		}
	}()
	c.srv.Handler.ServeHTTP(&c.resp, req)
	return true
}

// answerError answers a request that cannot be served (its connection is
// closed afterwards) as net/http's server does.
func (c *conn) answerError(status int, text string) {
	b := fmt.Appendf(c.wbuf[:0], "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n%s",
		status, http.StatusText(status), text)
	if _, err := c.rwc.Write(b); err == nil {
		c.linger()
	}
}

// linger ends the writing half of the connection and reads and drops
// what the caller still sends, until it stops or for half a second, before
// the connection is closed: closed with unread data, it would be reset,
// and the reset can destroy the answer before the caller reads it
// (net/http's server waits likewise).
func (c *conn) linger() {
	cw, ok := c.rwc.(interface{ CloseWrite() error })
	if !ok || cw.CloseWrite() != nil {
		return
	}
	_ = c.rwc.SetReadDeadline(time.Now().Add(lingerFor))
	_, _ = io.Copy(io.Discard, c.br)
}

// lingerFor bounds linger.
const lingerFor = 500 * time.Millisecond

// armWatch starts the timer after which a running handler's connection is
// watched for its caller hanging up.
func (c *conn) armWatch() {
	d := c.srv.HangupAfter
	if d <= 0 {
		d = DefaultHangupAfter
	}
	if c.watchTimer == nil {
		c.watchTimer = time.AfterFunc(d, c.watch)
		return
	}
	c.watchTimer.Reset(d)
}

// watch reads the connection while a handler runs whose request's body
// has been read whole: an end of the connection, or a failure, ends the
// request's context; a byte read (a request sent before this one is
// answered) is kept for the next read. When the body is still being read,
// the watch starts once it has been (requestBody.Read). A late watch may
// start in the next request's handler, which only watches it sooner.
func (c *conn) watch() {
	c.mu.Lock()
	if c.running && !c.bodyDone {
		c.watchDue = true
	}
	if !c.running || !c.bodyDone || c.watching || c.br.Buffered() > 0 || c.cr.hasByte {
		c.mu.Unlock()
		return
	}
	c.watching = true
	c.watchDone = make(chan struct{})
	c.mu.Unlock()
	n, err := c.rwc.Read(c.cr.byteBuf[:])
	c.mu.Lock()
	if n == 1 {
		c.cr.hasByte = true
	}
	if err != nil && !c.aborting {
		c.hungUp = true
		if c.cancelReq != nil {
			c.cancelReq()
		}
	}
	close(c.watchDone)
	c.mu.Unlock()
}

// aLongTimeAgo is a read deadline in the past: a read blocked on the
// connection returns at once.
var aLongTimeAgo = time.Unix(1, 0)

func isNetError(err error) bool {
	var ne net.Error
	return errors.As(err, &ne)
}

// checkRequest returns why net/http's server would refuse req before its
// handler, or "". The names and values of its header are checked unless
// headerChecked says they were as they were read.
func checkRequest(req *http.Request, headerChecked bool) string {
	if req.ProtoMajor != 1 {
		return "HTTP Version Not Supported"
	}
	// http.ReadRequest has moved the Host header to req.Host.
	if req.ProtoAtLeast(1, 1) && req.Host == "" {
		return "Bad Request: missing required Host header"
	}
	if !validHost(req.Host) {
		return "Bad Request: malformed Host header"
	}
	if headerChecked {
		return ""
	}
	for k, vv := range req.Header {
		if !httphead.ValidName(k) {
			return "Bad Request: invalid header name"
		}
		for _, v := range vv {
			if !httphead.ValidValue(v) {
				return "Bad Request: invalid header value"
			}
		}
	}
	return ""
}

// validHost reports whether h holds only the bytes net/http's server
// takes in a Host header.
func validHost(h string) bool {
	for i := range len(h) {
		b := h[i]
		switch {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9', b >= 0x80:
			continue
		}
		switch b {
		case '!', '$', '%', '&', '\'', '(', ')', '*', '+', ',', '-', '.', ':', ';', '=', '[', ']', '_', '~':
			continue
		}
		return false
	}
	return true
}

// connReader reads a connection for its buffered reader: a byte the
// hang-up watch read first, and no more than a limit while a request's
// head is read.
type connReader struct {
	c        *conn
	byteBuf  [1]byte
	hasByte  bool
	limit    int64 // bytes left to read; negative: no limit
	hitLimit bool
}

func (cr *connReader) setLimit(n int64) { cr.limit, cr.hitLimit = n, false }

func (cr *connReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if cr.limit == 0 {
		cr.hitLimit = true
		return 0, io.EOF
	}
	if cr.limit > 0 && int64(len(p)) > cr.limit {
		p = p[:cr.limit]
	}
	if cr.hasByte {
		p[0] = cr.byteBuf[0]
		cr.hasByte = false
		if cr.limit > 0 {
			cr.limit--
		}
		return 1, nil
	}
	n, err := cr.c.rwc.Read(p)
	if cr.limit > 0 {
		cr.limit -= int64(n)
	}
	return n, err
}

// requestBody is a request's body as its handler reads it: it sends 100
// Continue before the first read when the request asked for it, notes its
// end for the hang-up watch, and, closed, neither reads nor drains what
// is left (finish decides that).
type requestBody struct {
	c              *conn
	r              io.ReadCloser
	expectContinue bool
	sentContinue   bool
	eof            bool
	closed         bool
	readErr        bool
}

func (b *requestBody) reset(r io.ReadCloser, expectContinue bool) {
	*b = requestBody{c: b.c, r: r, expectContinue: expectContinue}
}

// Read reads the body.
func (b *requestBody) Read(p []byte) (int, error) {
	if b.closed {
		return 0, http.ErrBodyReadAfterClose
	}
	if b.eof {
		return 0, io.EOF
	}
	if b.expectContinue && !b.sentContinue {
		b.sentContinue = true
		if _, err := io.WriteString(b.c.rwc, "HTTP/1.1 100 Continue\r\n\r\n"); err != nil {
			b.readErr = true
			return 0, err
		}
	}
	n, err := b.r.Read(p)
	switch {
	case err == io.EOF:
		b.eof = true
		b.c.mu.Lock()
		b.c.bodyDone = true
		due := b.c.watchDue
		b.c.mu.Unlock()
		if due { // the handler has run for HangupAfter already
			go b.c.watch()
		}
	case err != nil:
		b.readErr = true
	}
	return n, err
}

// Close stops the handler's reading of the body.
func (b *requestBody) Close() error {
	b.closed = true
	return nil
}

// finish reads what the handler left of the body, up to drainLimit, and
// reports whether the connection can read the next request after it.
func (b *requestBody) finish() bool {
	switch {
	case b.eof:
		return true
	case b.readErr, b.expectContinue && !b.sentContinue:
		return false
	}
	n, err := io.CopyN(io.Discard, b.r, drainLimit+1)
	return n <= drainLimit && err == io.EOF
}

// response is the ResponseWriter of a POST: what the handler writes is
// kept and sent, with its head, when the handler returns.
type response struct {
	c           *conn
	req         *http.Request
	header      http.Header
	status      int
	wroteHeader bool
	body        []byte
}

// Header returns the answer's header, to set before WriteHeader or Write.
func (w *response) Header() http.Header { return w.header }

// WriteHeader sets the answer's status; only the first call counts, and
// informational statuses are not sent.
func (w *response) WriteHeader(code int) {
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", code))
	}
	if w.wroteHeader || code < 200 {
		return
	}
	w.wroteHeader, w.status = true, code
}

// Write adds p to the answer's body.
func (w *response) Write(p []byte) (int, error) {
	if err := w.writable(); err != nil {
		return 0, err
	}
	w.body = append(w.body, p...)
	return len(p), nil
}

// WriteString adds s to the answer's body.
func (w *response) WriteString(s string) (int, error) {
	if err := w.writable(); err != nil {
		return 0, err
	}
	w.body = append(w.body, s...)
	return len(s), nil
}

// writable sets the status to 200 unless one was set, and says whether
// it allows a body.
func (w *response) writable() error {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if !bodyAllowed(w.status) {
		return http.ErrBodyNotAllowed
	}
	return nil
}

func bodyAllowed(status int) bool {
	return status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}

// finish writes the answer: its status line, its header (with Date,
// Content-Length and, when the handler set none, the Content-Type
// net/http would sniff), and its body, in one write.
func (w *response) finish(keep bool) error {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	// The framing is this writer's: the body is sent whole with its
	// length, whatever length or coding the handler set.
	h := w.header
	delete(h, "Transfer-Encoding")
	delete(h, "Trailer")
	delete(h, "Content-Length")
	b := w.c.wbuf[:0]
	b = append(b, "HTTP/1.1 "...)
	b = strconv.AppendInt(b, int64(w.status), 10)
	b = append(b, ' ')
	if text := http.StatusText(w.status); text != "" {
		b = append(b, text...)
	} else {
		b = append(b, "status code "...)
		b = strconv.AppendInt(b, int64(w.status), 10)
	}
	b = append(b, "\r\n"...)
	var keys [16]string
	sorted := keys[:0]
	for k := range h {
		sorted = append(sorted, k)
	}
	slices.Sort(sorted)
	for _, k := range sorted {
		if !httphead.ValidName(k) {
			continue
		}
		for _, v := range h[k] {
			b = append(b, k...)
			b = append(b, ": "...)
			b = appendFieldValue(b, v)
			b = append(b, "\r\n"...)
		}
	}
	if _, ok := h["Date"]; !ok {
		b = append(b, w.c.srv.dateHeader()...)
	}
	if bodyAllowed(w.status) {
		if _, ok := h["Content-Type"]; !ok && len(w.body) > 0 {
			b = append(b, "Content-Type: "...)
			b = append(b, http.DetectContentType(w.body)...)
			b = append(b, "\r\n"...)
		}
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, int64(len(w.body)), 10)
		b = append(b, "\r\n"...)
	}
	if !keep {
		b = append(b, "Connection: close\r\n"...)
	}
	b = append(b, "\r\n"...)
	var err error
	if len(w.body) <= 16<<10 {
		b = append(b, w.body...)
		_, err = w.c.rwc.Write(b)
	} else {
		bufs := net.Buffers{b, w.body}
		_, err = bufs.WriteTo(w.c.rwc)
	}
	w.c.wbuf = b[:0]
	if cap(w.body) > 1<<20 {
		w.body = nil // not kept for the next answer
	}
	return err
}

// appendFieldValue appends v with the line breaks an answer's header may
// not hold replaced by spaces, as net/http writes header values.
func appendFieldValue(b []byte, v string) []byte {
	for i := range len(v) {
		c := v[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		b = append(b, c)
	}
	return b
}

// dateLine is the Date header of the second it was made in.
type dateLine struct {
	unix int64
	line []byte
}

// dateHeader returns the "Date: ...\r\n" line of the present second.
func (s *Server) dateHeader() []byte {
	now := time.Now()
	if d := s.date.Load(); d != nil && d.unix == now.Unix() {
		return d.line
	}
	d := &dateLine{unix: now.Unix()}
	d.line = append(append([]byte("Date: "), now.UTC().AppendFormat(nil, http.TimeFormat)...), "\r\n"...)
	s.date.Store(d)
	return d.line
}

// handedConn is a connection handed to net/http with what was read of it.
type handedConn struct {
	net.Conn
	r *bufio.Reader
}

// Read reads what the connection's reader holds, then the connection.
func (c *handedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// chanListener is the listener of the net/http server: it accepts the
// connections handed to it.
type chanListener struct {
	addr  net.Addr
	conns chan net.Conn
	mu    sync.Mutex
	done  chan struct{}
	shut  bool
}

func newChanListener(addr net.Addr) *chanListener {
	return &chanListener{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
}

// give hands c to the server's Accept; it reports false once the listener
// is closed.
func (l *chanListener) give(c net.Conn) bool {
	select {
	case l.conns <- c:
		return true
	case <-l.done:
		return false
	}
}

// Accept returns the next connection handed over.
func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops Accept.
func (l *chanListener) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.shut {
		l.shut = true
		close(l.done)
	}
	return nil
}

// Addr returns the address of the listener the connections came from.
func (l *chanListener) Addr() net.Addr { return l.addr }
