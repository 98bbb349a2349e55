package leaguesdk

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// answerHeads are answers peekAnswerHead reads (the first seven) and leaves
// to http.ReadResponse (the others).
var answerHeads = []string{
	"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nDate: Tue, 24 Nov 2026 10:00:00 GMT\r\n\r\n{}",
	"HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 429 Too Many Requests\r\ncontent-length:  5 \r\nretry-after:\t1\r\nX-A: 1\r\nx-a: 2\r\n\r\nslow!",
	"HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 3\r\nMcp-Session-Id: s-1\r\n\r\nabc",
	"HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Length: 3\r\nX_Under: é\r\n\r\nabc",
	"HTTP/1.1 307 Temporary Redirect\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\ncontent-type: application/json\r\nLocation:\r\nLocation: /x\r\nContent-Length: 2\r\n\r\n{}",
	// Left to http.ReadResponse.
	"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}",
	"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}",
	"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}",
	"HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\n{}",
	"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 2\r\n\r\n{}",
	"HTTP/1.1 200 OK\r\nX-Folded: a\r\n b\r\nContent-Length: 2\r\n\r\n{}",
	"HTTP/1.1 200 OK\r\nBad Name: a\r\nContent-Length: 2\r\n\r\n{}",
	"HTTP/1.1 200 OK\r\nX: a\x01b\r\nContent-Length: 2\r\n\r\n{}",
	"HTTP/1.1 200 OK\r\nContent-Length: 2\n\r\n{}",
	"HTTP/1.1 200 OK\r\n\r\n{}",
	"HTTP/1.1 200 OK\r\nPragma: no-cache\r\nContent-Length: 2\r\n\r\n{}",
	"HTTP/1.1 2000 OK\r\nContent-Length: 2\r\n\r\n{}",
	"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n",
}

// peekAnswerHead reads what http.ReadResponse reads: the same status,
// header, Content-Length and close, and the same bytes are left to read
// after the head. An answer it does not read is left whole.
func FuzzAnswerHead(f *testing.F) {
	for _, a := range answerHeads {
		f.Add([]byte(a))
	}
	f.Fuzz(func(t *testing.T, answer []byte) {
		checkAnswerHead(t, answer)
	})
}

func checkAnswerHead(t *testing.T, answer []byte) bool {
	t.Helper()
	// Read without its header, the answer is read (or not) as with it.
	bare := bufio.NewReaderSize(bytes.NewReader(answer), 64<<10)
	_, _ = bare.Peek(1)
	b, bareOK := peekAnswerHead(bare, 1<<20, false)
	br := bufio.NewReaderSize(bytes.NewReader(answer), 64<<10)
	_, _ = br.Peek(1)
	a, ok := peekAnswerHead(br, 1<<20, true)
	if bareOK != ok || b.header != nil || b.status != a.status || b.contentLength != a.contentLength || b.close != a.close ||
		b.eventStream != a.eventStream || b.location != a.location {
		t.Fatalf("%q: read without its header as %+v (%v), with it as %+v (%v)", answer, b, bareOK, a, ok)
	}
	rest, _ := io.ReadAll(br)
	if !ok {
		if !bytes.Equal(rest, answer) {
			t.Fatalf("%q: not read, yet %d bytes were consumed", answer, len(answer)-len(rest))
		}
		return false
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(answer)), nil)
	if err != nil {
		t.Fatalf("%q: read as %+v; http.ReadResponse: %v", answer, a, err)
	}
	body, _ := io.ReadAll(io.LimitReader(bytes.NewReader(rest), a.contentLength))
	want, _ := io.ReadAll(resp.Body)
	if a.status != resp.StatusCode || !reflect.DeepEqual(a.header, resp.Header) || a.contentLength != resp.ContentLength ||
		a.close != resp.Close || !bytes.Equal(body, want) ||
		a.eventStream != strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") ||
		a.location != (resp.Header.Get("Location") != "") {
		t.Fatalf("%q: read status %d, header %q, length %d, close %v, body %q\nhttp.ReadResponse: %d, %q, %d, %v, %q",
			answer, a.status, a.header, a.contentLength, a.close, body,
			resp.StatusCode, resp.Header, resp.ContentLength, resp.Close, want)
	}
	return true
}

func TestAnswerHeadReadAsNetHTTPReadsIt(t *testing.T) {
	for i, a := range answerHeads {
		if read := checkAnswerHead(t, []byte(a)); read != (i < 7) {
			t.Errorf("%q: read %v, want %v", a, read, i < 7)
		}
	}
}

// An answer read without http.ReadResponse takes no allocation, and a few
// with its header: the string of its values, the map and the values'
// slice.
func TestAnswerHeadAllocations(t *testing.T) {
	answer := []byte(answerHeads[0])
	r := bytes.NewReader(answer)
	br := bufio.NewReaderSize(r, 4096)
	for _, tc := range []struct {
		header bool
		most   float64
	}{{false, 0}, {true, 4}} {
		allocs := testing.AllocsPerRun(100, func() {
			r.Reset(answer)
			br.Reset(r)
			_, _ = br.Peek(1)
			if _, ok := peekAnswerHead(br, 1<<20, tc.header); !ok {
				t.Fatal("not read")
			}
		})
		if allocs > tc.most {
			t.Errorf("header %v: %v allocations per answer, want at most %v", tc.header, allocs, tc.most)
		}
	}
}
