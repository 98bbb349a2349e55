package h1serve

import (
	"bytes"
	"io"
	"net/http"
	"net/url"

	"github.com/agentleague/league/internal/httphead"
)

// peekRequest reads the head of a POST from c.br without http.ReadRequest
// when it is whole in the buffer, within maxHeader bytes, and plain
// (internal/httphead): "POST <path> HTTP/1.1" with a path of letters,
// digits and "-._~/" only, one Host, at most one Content-Length, and no
// Transfer-Encoding, Trailer or Pragma. It then consumes the head and
// returns the request, which is c.req, to be copied (WithContext) before
// it is served; its body reads from c.br. Otherwise it consumes nothing and
// returns nil: the request is left to http.ReadRequest, which reads every
// request. The request is what http.ReadRequest would return
// (FuzzPeekRequest).
//
// The agents' calls have such heads: reading one takes one string for
// the head, the header's map, the URL and, once copied, the Request,
// where http.ReadRequest also makes a string per value and the readers of
// the body.
func (c *conn) peekRequest(maxHeader int) *http.Request {
	buf, _ := c.br.Peek(c.br.Buffered())
	head, size, ok := httphead.Cut(buf)
	if !ok || size > maxHeader {
		return nil
	}
	lineEnd := bytes.IndexByte(head, '\r')
	target, ok := bytes.CutPrefix(head[:lineEnd], []byte("POST "))
	if !ok {
		return nil
	}
	if target, ok = bytes.CutSuffix(target, []byte(" HTTP/1.1")); !ok || !plainPath(target) {
		return nil
	}
	h, ok := httphead.Header(head[lineEnd+2:])
	if !ok {
		return nil
	}
	host := h["Host"]
	if len(host) != 1 {
		return nil
	}
	for _, name := range [...]string{"Transfer-Encoding", "Trailer", "Pragma"} {
		if _, ok := h[name]; ok {
			return nil
		}
	}
	var n int64
	if _, ok := h["Content-Length"]; ok {
		if n, ok = httphead.ContentLength(h); !ok {
			return nil
		}
	}
	delete(h, "Host") // as http.ReadRequest does: it is req.Host
	path := string(target)
	c.req = http.Request{Method: http.MethodPost, URL: &url.URL{Path: path}, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: http.NoBody, ContentLength: n, Close: httphead.HasToken(h["Connection"], "close"),
		Host: host[0], RequestURI: path}
	if n > 0 {
		c.fixed = fixedBody{r: c.br, n: n}
		c.req.Body = &c.fixed
	}
	_, _ = c.br.Discard(size)
	return &c.req
}

// plainPath reports whether target is a path that url.ParseRequestURI
// reads as itself: a slash and letters, digits and "-._~/", not beginning
// with two slashes.
func plainPath(target []byte) bool {
	if len(target) == 0 || target[0] != '/' || len(target) > 1 && target[1] == '/' {
		return false
	}
	for _, c := range target {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '.', c == '_', c == '~', c == '/':
		default:
			return false
		}
	}
	return true
}

// fixedBody is the body of a request whose head peekRequest read: the n
// bytes that follow the head, read as net/http's server reads a body with
// a Content-Length (io.EOF with its last bytes, io.ErrUnexpectedEOF when
// the connection ends first).
type fixedBody struct {
	r io.Reader
	n int64
}

func (b *fixedBody) Read(p []byte) (int, error) {
	if b.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.n {
		p = p[:b.n]
	}
	n, err := b.r.Read(p)
	b.n -= int64(n)
	switch {
	case b.n == 0:
		return n, io.EOF
	case err == io.EOF:
		return n, io.ErrUnexpectedEOF
	}
	return n, err
}

func (b *fixedBody) Close() error { return nil }
