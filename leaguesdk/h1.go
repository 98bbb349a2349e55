package leaguesdk

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentleague/league/internal/httphead"
	"github.com/agentleague/league/internal/sse"
)

// The Client's own transport. A Client whose ClientConfig.HTTPClient is nil
// makes each exchange on the caller's goroutine, over a connection of its
// own pool: it writes the request's head and body in one write (two for a
// large body) and reads the answer's head itself when it is plain
// (peekAnswerHead), with http.ReadResponse otherwise. net/http's Transport
// would hand every call from the caller to a writing and a reading
// goroutine of the connection and back, and keep both goroutines for as
// long as the connection is idle; for a manager calling hundreds of agents
// each round those hand-offs and goroutine stacks cost more than the
// calls' own work.
//
// What the pool cannot do the same way as net/http goes through the
// Client's http.Client instead (endpointState.lean is nil, or the
// exchange is redone there): endpoints behind a proxy, with user
// information in their URL, with a host or path net/http would rewrite or
// refuse, and answers that redirect.

// idleConnTimeout is how long a connection may stay idle in the pool.
const idleConnTimeout = 90 * time.Second

// writeBeside is the size up to which a request's head and the first
// parts of its body are sent in one write, as net/http does through its
// 4 KiB write buffer.
const writeBeside = 4 << 10

// maxAnswerHeadBytes bounds the head (status line and headers, 1xx answers
// included) of an answer, as net/http's Transport does by default.
const maxAnswerHeadBytes = 10 << 20

// leanTarget is what the Client's own transport keeps of an endpoint.
type leanTarget struct {
	// key names the pool's connections to the endpoint's scheme and
	// address; addr is the address dialled.
	key, addr string
	// url is the endpoint as net/http names it in its errors.
	url string
	// prefix is the start of every request's head: the request line, Host,
	// User-Agent and the name of Content-Length.
	prefix []byte
	// tls is the configuration of an https:// endpoint's connections, nil
	// for http://.
	tls *tls.Config
}

// newLeanTarget returns the leanTarget of the endpoint u, or nil when its
// requests must go through net/http: a proxy would carry them, its URL has
// user information, a scheme other than http or https, or a host or path
// net/http would rewrite or refuse, or the user agent is not a valid
// header value.
func newLeanTarget(u *url.URL, userAgent string, tlsConfig *tls.Config) *leanTarget {
	if (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || u.Opaque != "" || u.Host == "" {
		return nil
	}
	for i := 0; i < len(u.Host); i++ {
		b := u.Host[i]
		if !('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || strings.IndexByte(".-:[]_~", b) >= 0) {
			return nil // non-ASCII names, IPv6 zones and oddities: as net/http does
		}
	}
	ruri := u.RequestURI()
	if !httphead.ValidValue(ruri) || strings.ContainsAny(ruri, " \t") || !httphead.ValidValue(userAgent) {
		return nil
	}
	if proxy, err := http.ProxyFromEnvironment(&http.Request{URL: u}); proxy != nil || err != nil {
		return nil
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	addr := net.JoinHostPort(u.Hostname(), port)
	lt := &leanTarget{key: u.Scheme + "://" + addr, addr: addr, url: u.String()}
	lt.prefix = fmt.Appendf(nil, "POST %s HTTP/1.1\r\nHost: %s\r\n", ruri, u.Host)
	if userAgent != "" {
		lt.prefix = fmt.Appendf(lt.prefix, "User-Agent: %s\r\n", textproto.TrimString(userAgent))
	}
	lt.prefix = append(lt.prefix, "Content-Length: "...)
	if u.Scheme == "https" {
		lt.tls = tlsConfig.Clone()
		if lt.tls == nil {
			lt.tls = &tls.Config{}
		}
		if lt.tls.ServerName == "" {
			// As net/http: the address without its port, an IPv6 one
			// in its brackets.
			lt.tls.ServerName = addr[:strings.LastIndexByte(addr, ':')]
		}
		lt.tls.NextProtos = []string{"http/1.1"}
	}
	return lt
}

// appendHead appends the head of a request whose body has size bytes, in
// the MCP session sess if it is not nil: the headers net/http's Transport
// sends for it, in its order (its own first, then the request's sorted,
// then the Accept-Encoding it adds).
func (lt *leanTarget) appendHead(b []byte, size int, sess *mcpSession) []byte {
	b = append(b, lt.prefix...)
	b = strconv.AppendInt(b, int64(size), 10)
	b = append(b, "\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"...)
	if sess != nil {
		b = append(b, "Mcp-Protocol-Version: "...)
		b = append(b, textproto.TrimString(sess.version)...)
		b = append(b, "\r\n"...)
		if sess.id != "" {
			b = append(b, "Mcp-Session-Id: "...)
			b = append(b, textproto.TrimString(sess.id)...)
			b = append(b, "\r\n"...)
		}
	}
	return append(b, "Accept-Encoding: gzip\r\n\r\n"...)
}

// h1Conn is a connection of the Client's own transport.
type h1Conn struct {
	conn net.Conn // the TLS connection of an https:// endpoint
	// live checks the TCP connection under conn for a peer that closed
	// it while it was idle.
	live *liveness
	key  string
	br   *bufio.Reader
	// headLeft is what an answer's head may still read, -1 while its
	// body is read.
	headLeft int64
	// head and bufs are kept from one request to the next: a request's
	// head, and the start of its body, is written in head, and the rest
	// of its body sent from bufs.
	head []byte
	bufs net.Buffers
	// body reads the body of an answer whose head peekAnswerHead read.
	body      io.LimitedReader
	idleSince time.Time
}

// Read reads from the connection for its bufio.Reader, within the limit of
// an answer's head.
func (pc *h1Conn) Read(p []byte) (int, error) {
	if pc.headLeft < 0 {
		return pc.conn.Read(p)
	}
	if pc.headLeft == 0 {
		return 0, fmt.Errorf("net/http: server response headers exceeded %d bytes; aborted", maxAnswerHeadBytes)
	}
	if int64(len(p)) > pc.headLeft {
		p = p[:pc.headLeft]
	}
	n, err := pc.conn.Read(p)
	pc.headLeft -= int64(n)
	return n, err
}

// ConnPool holds idle cleartext connections for the Clients of a process
// that share it (ClientConfig.Conns): up to a number per address, without
// a cap on their total; a connection idle for 90 s is closed when the pool
// is next used. It is safe for concurrent use. A zero ConnPool keeps no
// connection: make one with NewConnPool.
type ConnPool struct {
	p connPool
}

// NewConnPool returns a pool that keeps up to perHost idle connections to
// each address (2 when perHost is not positive).
func NewConnPool(perHost int) *ConnPool {
	if perHost <= 0 {
		perHost = 2
	}
	return &ConnPool{p: connPool{perHost: perHost}}
}

// Close closes the pool's idle connections. The pool remains usable: the
// connections its Clients return later are kept.
func (p *ConnPool) Close() { p.p.closeIdle() }

// connPool holds the idle connections of the Client's own transport, per
// scheme and address, the most recently used on top. Connections idle for
// longer than idleConnTimeout are closed when the pool is next used; no
// goroutine watches them.
type connPool struct {
	perHost int // the cap of each address's idle connections
	total   int // the cap of all idle connections; 0: none

	mu    sync.Mutex
	idle  map[string][]*h1Conn
	count int
	swept time.Time // when expired connections were last looked for everywhere
}

// get returns an idle connection for key, or nil. A connection the peer has
// closed, or that holds bytes nobody asked for, is closed and skipped.
func (p *connPool) get(key string) *h1Conn {
	for {
		now := time.Now()
		p.mu.Lock()
		stack := p.idle[key]
		if len(stack) == 0 {
			p.mu.Unlock()
			return nil
		}
		pc := stack[len(stack)-1]
		stack[len(stack)-1] = nil
		if len(stack) == 1 {
			delete(p.idle, key) // no empty stacks: oldestLocked reads stack[0]
		} else {
			p.idle[key] = stack[:len(stack)-1]
		}
		p.count--
		var expired []*h1Conn
		if now.Sub(pc.idleSince) > idleConnTimeout {
			// The top is the newest: the rest is older still.
			expired = p.idle[key]
			delete(p.idle, key)
			p.count -= len(expired)
		}
		p.mu.Unlock()
		if expired != nil {
			pc.conn.Close()
			closeAll(expired)
			return nil
		}
		if pc.br.Buffered() == 0 && pc.live.check() {
			return pc
		}
		pc.conn.Close()
	}
}

// put returns a connection to the pool, or closes it when the pool is
// full: a full address keeps its connections, a full pool drops its
// oldest.
func (p *connPool) put(pc *h1Conn) {
	// The last exchange's deadline would fail the check of the
	// connection's liveness once it passed, and is no concern of the next.
	if pc.conn.SetDeadline(time.Time{}) != nil {
		pc.conn.Close()
		return
	}
	now := time.Now()
	pc.idleSince = now
	var drop []*h1Conn
	p.mu.Lock()
	if p.idle == nil {
		p.idle = make(map[string][]*h1Conn)
	}
	if now.Sub(p.swept) > idleConnTimeout/4 {
		drop = p.sweepLocked(now)
	}
	if stack := p.idle[pc.key]; len(stack) >= p.perHost {
		drop = append(drop, pc)
	} else {
		p.idle[pc.key] = append(stack, pc)
		p.count++
		if p.total > 0 && p.count > p.total {
			drop = append(drop, p.oldestLocked())
		}
	}
	p.mu.Unlock()
	closeAll(drop)
}

// sweepLocked takes the connections idle for too long out of the pool and
// returns them.
func (p *connPool) sweepLocked(now time.Time) []*h1Conn {
	p.swept = now
	var expired []*h1Conn
	for key, stack := range p.idle {
		n := 0
		for n < len(stack) && now.Sub(stack[n].idleSince) > idleConnTimeout {
			n++
		}
		if n == 0 {
			continue
		}
		expired = append(expired, stack[:n]...)
		p.count -= n
		if n == len(stack) {
			delete(p.idle, key)
		} else {
			p.idle[key] = append(stack[:0], stack[n:]...)
		}
	}
	return expired
}

// oldestLocked takes the connection idle for the longest out of the pool
// and returns it.
func (p *connPool) oldestLocked() *h1Conn {
	var oldest string
	for key, stack := range p.idle {
		if oldest == "" || stack[0].idleSince.Before(p.idle[oldest][0].idleSince) {
			oldest = key
		}
	}
	stack := p.idle[oldest]
	pc := stack[0]
	if len(stack) == 1 {
		delete(p.idle, oldest)
	} else {
		p.idle[oldest] = append(stack[:0], stack[1:]...)
	}
	p.count--
	return pc
}

// closeIdle closes every idle connection.
func (p *connPool) closeIdle() {
	p.mu.Lock()
	var all []*h1Conn
	for _, stack := range p.idle {
		all = append(all, stack...)
	}
	p.idle, p.count = nil, 0
	p.mu.Unlock()
	closeAll(all)
}

func closeAll(conns []*h1Conn) {
	for _, pc := range conns {
		pc.conn.Close()
	}
}

// dial opens a connection to lt, bounded by ctx (and, for an https://
// endpoint, makes the TLS handshake).
func (c *Client) dial(ctx context.Context, lt *leanTarget) (*h1Conn, error) {
	conn, err := c.dialer.DialContext(ctx, "tcp", lt.addr)
	if err != nil {
		return nil, err
	}
	pc := &h1Conn{conn: conn, live: newLiveness(conn), key: lt.key}
	if lt.tls != nil {
		tc := tls.Client(conn, lt.tls)
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, err
		}
		pc.conn = tc
	}
	pc.br = bufio.NewReader(pc)
	return pc, nil
}

// leanAnswer is an answer read by the Client's own transport.
type leanAnswer struct {
	status int
	header http.Header
	body   []byte
	// redirect is set when the answer redirects: the exchange is to be
	// made through net/http, which follows it.
	redirect bool
}

// leanExchange makes one exchange of Client.exchange on the Client's own
// transport. ok is false when it must be made through net/http instead:
// the session's headers are not valid header values, or the answer
// redirects. Transport failures come back as *Error.
func (c *Client) leanExchange(ctx context.Context, lt *leanTarget, body encoded, sess *mcpSession, header bool) (a leanAnswer, ok bool, err error) {
	if sess != nil && (!httphead.ValidValue(sess.id) || !httphead.ValidValue(sess.version)) {
		return leanAnswer{}, false, nil
	}
	if err := ctx.Err(); err != nil {
		return leanAnswer{}, true, transportError(ctx, &url.Error{Op: "Post", URL: lt.url, Err: err})
	}
	for {
		pool := c.pool
		if lt.tls == nil {
			pool = c.plain
		}
		pc := pool.get(lt.key)
		reused := pc != nil
		if !reused {
			if pc, err = c.dial(ctx, lt); err != nil {
				return leanAnswer{}, true, transportError(ctx, &url.Error{Op: "Post", URL: lt.url, Err: leanCause(ctx, err)})
			}
		}
		a, written, keep, err := c.roundTrip(ctx, pc, lt, body, sess, header)
		if keep {
			pool.put(pc)
		} else {
			pc.conn.Close()
		}
		if err != nil && reused && written == 0 && ctx.Err() == nil {
			// Nothing of the request left on a connection the peer had
			// closed in the meantime: it is sent on another one.
			continue
		}
		if err != nil {
			return leanAnswer{}, true, err
		}
		return a, !a.redirect, nil
	}
}

// roundTrip writes the request on pc and reads its answer. written is the
// number of bytes of the request written; keep says whether pc may serve
// another exchange: the answer was read to its end, it allows that, and no
// deadline or cancellation interrupted it.
func (c *Client) roundTrip(ctx context.Context, pc *h1Conn, lt *leanTarget, body encoded, sess *mcpSession, header bool) (a leanAnswer, written int64, keep bool, err error) {
	deadline, _ := ctx.Deadline()
	if err := pc.conn.SetDeadline(deadline); err != nil {
		return leanAnswer{}, 0, false, transportError(ctx, &url.Error{Op: "Post", URL: lt.url, Err: err})
	}
	// The deadline bounds the exchange; a cancellation before it moves it
	// to the past, which ends a blocked write or read at once.
	stop := context.AfterFunc(ctx, func() { _ = pc.conn.SetDeadline(time.Unix(1, 0)) })
	defer func() {
		if !stop() {
			keep = false
		}
	}()

	// The head goes out with the parts of the body that fit beside it in
	// one write, the rest (a broadcast's table) from its parts in one
	// vectored write. (A plain write also tells the race detector that
	// what the peer reads happened after it, which a vectored one does
	// not.)
	pc.head = lt.appendHead(pc.head[:0], body.size(), sess)
	rest := body
	for len(rest) > 0 && len(pc.head)+len(rest[0]) <= writeBeside {
		pc.head = append(pc.head, rest[0]...)
		rest = rest[1:]
	}
	n, err := pc.conn.Write(pc.head)
	written = int64(n)
	if err == nil && len(rest) > 0 {
		pc.bufs = append(pc.bufs[:0], rest...)
		bufs := pc.bufs
		var m int64
		m, err = bufs.WriteTo(pc.conn)
		written += m
		clear(pc.bufs) // no body is kept past its exchange
	}
	if err != nil {
		return leanAnswer{}, written, false, transportError(ctx, &url.Error{Op: "Post", URL: lt.url, Err: leanCause(ctx, err)})
	}

	pc.headLeft = maxAnswerHeadBytes
	if _, err := pc.br.Peek(1); err != nil { // the answer's first bytes
		if err == io.EOF {
			err = io.ErrUnexpectedEOF // as http.ReadResponse says it
		}
		return leanAnswer{}, written, false, transportError(ctx, &url.Error{Op: "Post", URL: lt.url, Err: leanCause(ctx, err)})
	}
	if h, ok := peekAnswerHead(pc.br, c.cfg.MaxReplyBytes-1, header); ok {
		pc.headLeft = -1
		pc.body = io.LimitedReader{R: pc.br, N: h.contentLength}
		raw, err := c.readAnswer(&pc.body, h.contentLength)
		if err == nil && int64(len(raw)) < h.contentLength {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return leanAnswer{}, written, false, transportError(ctx, leanCause(ctx, err))
		}
		keep = !h.close && pc.br.Buffered() == 0
		if redirects(h.status) && h.location {
			return leanAnswer{redirect: true}, written, keep, nil
		}
		if h.eventStream {
			raw = sse.Data(raw)
		}
		return leanAnswer{status: h.status, header: h.header, body: raw}, written, keep, nil
	}
	var resp *http.Response
	for {
		resp, err = http.ReadResponse(pc.br, nil)
		if err != nil {
			return leanAnswer{}, written, false, transportError(ctx, &url.Error{Op: "Post", URL: lt.url, Err: leanCause(ctx, err)})
		}
		// 1xx answers but 101 come before the answer, as net/http
		// reads them.
		if s := resp.StatusCode; s < 100 || s > 199 || s == http.StatusSwitchingProtocols {
			break
		}
	}
	pc.headLeft = -1

	var r io.Reader = resp.Body
	if strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		// net/http's Transport asks for gzip, and undoes it.
		r = &gzipBody{body: resp.Body}
		resp.Header.Del("Content-Encoding")
		resp.Header.Del("Content-Length")
		resp.ContentLength = -1
	}
	raw, err := c.readAnswer(r, resp.ContentLength)
	if err != nil {
		return leanAnswer{}, written, false, transportError(ctx, leanCause(ctx, err))
	}
	// An answer read to its end is shorter than the limit (readAll stops
	// at the limit without knowing whether more follows).
	keep = int64(len(raw)) < c.cfg.MaxReplyBytes && !resp.Close && resp.StatusCode != http.StatusSwitchingProtocols && pc.br.Buffered() == 0
	if redirects(resp.StatusCode) && resp.Header.Get("Location") != "" {
		return leanAnswer{redirect: true}, written, keep, nil
	}
	return leanAnswer{status: resp.StatusCode, header: resp.Header, body: answerData(resp.Header, raw)}, written, keep, nil
}

// redirects reports whether an answer of the given status redirects, given
// a Location, as net/http's Client follows it.
func redirects(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// leanCause returns the error of an exchange as net/http would: the
// context's error once it is done, and a deadline that passed (the
// context's, which the connection's is) as context.DeadlineExceeded.
func leanCause(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return context.DeadlineExceeded
	}
	return err
}

// gzipBody reads a gzip-encoded answer's body decoded, opening the
// decoder at the first read as net/http does.
type gzipBody struct {
	body io.Reader
	zr   *gzip.Reader
	err  error
}

func (g *gzipBody) Read(p []byte) (int, error) {
	if g.zr == nil && g.err == nil {
		g.zr, g.err = gzip.NewReader(g.body)
	}
	if g.err != nil {
		return 0, g.err
	}
	return g.zr.Read(p)
}
