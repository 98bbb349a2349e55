package leaguesdk

import (
	"context"
	"io"
	"net"
)

// partsConn is a connection of the net/http client a Client makes for
// itself (used where its own transport, h1.go, is not). It sends a
// request body held as parts (a broadcast: the envelope, the shared table,
// the closing brace) straight from them, in one vectored write.
//
// net/http writes a request's headers and the first bytes of its body
// through a 4 KiB buffer, then hands the rest of the body to the
// connection's ReadFrom behind an io.LimitedReader of the Content-Length.
// A plain TCP connection copies that through a buffer of up to 32 KiB it
// allocates each time, in writes of that size: a 1000-player standings
// table (119 KB) cost four writes and the buffer. partsConn writes what is
// left of a partsBody with one writev instead, when the limit covers all
// of it; any other reader takes the connection's own path. (A TLS
// connection has no ReadFrom: net/http copies into it as before.)
type partsConn struct{ net.Conn }

// ReadFrom implements io.ReaderFrom.
func (c partsConn) ReadFrom(r io.Reader) (int64, error) {
	if lr, ok := r.(*io.LimitedReader); ok {
		if body, ok := lr.R.(*partsBody); ok && int64(encoded(body.parts).size()) <= lr.N {
			n, err := body.parts.WriteTo(c.Conn)
			lr.N -= n
			return n, err
		}
	}
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(writerOnly{c.Conn}, r)
}

// partsBody is a request body held as parts; reading consumes them.
type partsBody struct{ parts net.Buffers }

func (b *partsBody) Read(p []byte) (int, error) { return b.parts.Read(p) }
func (b *partsBody) Close() error               { return nil }

// writerOnly hides everything of a writer but Write, so that io.Copy does
// not call back into ReadFrom.
type writerOnly struct{ io.Writer }

// dialParts returns dial's connections as partsConns.
func dialParts(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return partsConn{c}, nil
	}
}
