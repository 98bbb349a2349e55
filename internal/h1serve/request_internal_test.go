package h1serve

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"reflect"
	"testing"
)

// requestHeads are requests peekRequest reads (the first ones) and leaves
// to http.ReadRequest (the others).
var requestHeads = []string{
	"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8101\r\nUser-Agent: league-sdk\r\nContent-Length: 2\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n\r\n{}",
	"POST / HTTP/1.1\r\nhost:  example.com \r\n\r\n",
	"POST /a/b-c.d_e~f HTTP/1.1\r\nHost: h\r\nConnection: Keep-Alive, close\r\nX-A: 1\r\nx-a: 2\r\nexpect: 100-continue\r\ncontent-length: 3\r\n\r\nabcdef",
	"POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\nX_Odd: é\t\r\n\r\n",
	// Left to http.ReadRequest.
	"GET /mcp HTTP/1.1\r\nHost: h\r\n\r\n",
	"POST /mcp HTTP/1.0\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}",
	"POST /mcp?x=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}",
	"POST /m%63p HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}",
	"POST //mcp HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}",
	"POST http://h/mcp HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}",
	"POST /mcp HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}",
	"POST /mcp HTTP/1.1\r\nHost: h\r\nHost: i\r\nContent-Length: 2\r\n\r\n{}",
	"POST /mcp HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
	"POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}",
	"POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Length: -2\r\n\r\n{}",
	"POST /mcp HTTP/1.1\r\nHost: h\r\nPragma: no-cache\r\nContent-Length: 2\r\n\r\n{}",
	"POST /mcp HTTP/1.1\r\nHost: h\r\nX: a\r\n b\r\nContent-Length: 2\r\n\r\n{}",
	"POST /mcp HTTP/1.1\r\nHost: h\nContent-Length: 2\r\n\r\n{}",
	"POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n",
}

// peekRequest reads what http.ReadRequest reads, and leaves the same bytes
// after the head; a request it does not read is left whole.
func FuzzPeekRequest(f *testing.F) {
	for _, r := range requestHeads {
		f.Add([]byte(r))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		checkPeekRequest(t, in)
	})
}

func checkPeekRequest(t *testing.T, in []byte) bool {
	t.Helper()
	c := &conn{br: bufio.NewReaderSize(bytes.NewReader(in), 64<<10)}
	_, _ = c.br.Peek(1)
	got := c.peekRequest(DefaultMaxHeaderBytes)
	if got == nil {
		if rest, _ := io.ReadAll(c.br); !bytes.Equal(rest, in) {
			t.Fatalf("%q: not read, yet %d bytes were consumed", in, len(in)-len(rest))
		}
		return false
	}
	want, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(in)))
	if err != nil {
		t.Fatalf("%q: read as %+v; http.ReadRequest: %v", in, got, err)
	}
	gotBody, gotErr := io.ReadAll(got.Body)
	wantBody, wantErr := io.ReadAll(want.Body)
	if got.Method != want.Method || !reflect.DeepEqual(got.URL, want.URL) || got.Proto != want.Proto ||
		got.ProtoMajor != want.ProtoMajor || got.ProtoMinor != want.ProtoMinor || !reflect.DeepEqual(got.Header, want.Header) ||
		got.ContentLength != want.ContentLength || got.Close != want.Close || got.Host != want.Host ||
		got.RequestURI != want.RequestURI || got.TransferEncoding != nil || want.TransferEncoding != nil || got.Trailer != nil || want.Trailer != nil ||
		!bytes.Equal(gotBody, wantBody) || (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("%q:\nread    %s %#v %s header %q length %d close %v host %q uri %q body %q (%v)\nnet/http %s %#v %s header %q length %d close %v host %q uri %q body %q (%v)",
			in, got.Method, got.URL, got.Proto, got.Header, got.ContentLength, got.Close, got.Host, got.RequestURI, gotBody, gotErr,
			want.Method, want.URL, want.Proto, want.Header, want.ContentLength, want.Close, want.Host, want.RequestURI, wantBody, wantErr)
	}
	return true
}

func TestPeekRequestReadsAsNetHTTPReads(t *testing.T) {
	for i, r := range requestHeads {
		if read := checkPeekRequest(t, []byte(r)); read != (i < 4) {
			t.Errorf("%q: read %v, want %v", r, read, i < 4)
		}
	}
}

// A body cut short by the end of the connection is an unexpected EOF, as
// net/http's server reads it.
func TestPeekRequestShortBody(t *testing.T) {
	c := &conn{br: bufio.NewReader(bytes.NewReader([]byte("POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nab")))}
	_, _ = c.br.Peek(1)
	req := c.peekRequest(DefaultMaxHeaderBytes)
	if req == nil {
		t.Fatal("not read")
	}
	if b, err := io.ReadAll(req.Body); string(b) != "ab" || err != io.ErrUnexpectedEOF {
		t.Errorf("body %q, %v; want %q, %v", b, err, "ab", io.ErrUnexpectedEOF)
	}
}
