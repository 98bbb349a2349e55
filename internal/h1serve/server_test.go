package h1serve

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// serve starts s on a loopback listener and returns its address; the test
// closes it at its end and checks that Serve returned.
func serve(t *testing.T, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	t.Cleanup(func() {
		_ = s.Close()
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve returned %v, want http.ErrServerClosed", err)
		}
	})
	return ln.Addr().String()
}

// echo answers a request with its method, path and body.
var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, "%s %s %s", r.Method, r.URL.Path, body)
})

// rawConn is a client that writes raw requests and reads answers.
type rawConn struct {
	t  *testing.T
	c  net.Conn
	br *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	return &rawConn{t: t, c: c, br: bufio.NewReader(c)}
}

func (rc *rawConn) send(s string) {
	rc.t.Helper()
	if _, err := io.WriteString(rc.c, s); err != nil {
		rc.t.Fatal(err)
	}
}

// answer reads one answer and its body.
func (rc *rawConn) answer() (*http.Response, string) {
	rc.t.Helper()
	resp, err := http.ReadResponse(rc.br, nil)
	if err != nil {
		rc.t.Fatalf("reading the answer: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		rc.t.Fatalf("reading the answer's body: %v", err)
	}
	return resp, string(body)
}

// expect sends req and checks that the answer's body is want.
func (rc *rawConn) expect(req, want string) {
	rc.t.Helper()
	rc.send(req)
	if _, body := rc.answer(); body != want {
		rc.t.Fatalf("answer to %.40q: %q, want %q", req, body, want)
	}
}

// closed reports whether the server closed the connection.
func (rc *rawConn) closed() bool {
	_ = rc.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := rc.br.ReadByte()
	return err == io.EOF
}

func post(path, body string, headers ...string) string {
	return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n%s\r\n%s", path, len(body),
		strings.Join(append(headers, ""), "\r\n"), body)
}

func TestPostsOnOneConnection(t *testing.T) {
	addr := serve(t, &Server{Handler: echo})
	rc := dialRaw(t, addr)
	for i := range 3 {
		rc.send(post("/mcp", fmt.Sprintf(`{"n":%d}`, i)))
		resp, body := rc.answer()
		if resp.StatusCode != 200 || body != fmt.Sprintf(`POST /mcp {"n":%d}`, i) {
			t.Fatalf("answer %d: %d %q", i, resp.StatusCode, body)
		}
		if resp.ContentLength != int64(len(body)) || resp.Header.Get("Content-Type") != "application/json" ||
			resp.Header.Get("Date") == "" || resp.Close {
			t.Fatalf("answer %d: header %v, length %d, close %v", i, resp.Header, resp.ContentLength, resp.Close)
		}
	}
}

func TestNetHTTPClientsConcurrently(t *testing.T) {
	addr := serve(t, &Server{Handler: echo})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer client.CloseIdleConnections()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 50 {
				want := fmt.Sprintf(`{"w":%d,"i":%d,"pad":%q}`, w, i, strings.Repeat("x", i*700))
				resp, err := client.Post("http://"+addr+"/mcp", "application/json", strings.NewReader(want))
				if err != nil {
					t.Error(err)
					return
				}
				got, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if string(got) != "POST /mcp "+want {
					t.Errorf("got %.60q, want %.60q", got, "POST /mcp "+want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// A request that is not a POST is answered by net/http, which may stream;
// POSTs after it on the same connection are answered too.
func TestOtherRequestsGoToNetHTTP(t *testing.T) {
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/events" {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: one\n\n")
			w.(http.Flusher).Flush()
			<-release
			fmt.Fprint(w, "data: two\n\n")
			return
		}
		echo(w, r)
	})
	addr := serve(t, &Server{Handler: h})

	resp, err := http.Get("http://" + addr + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	line, err := br.ReadString('\n')
	if err != nil || line != "data: one\n" {
		t.Fatalf("first event: %q, %v (not flushed before the handler returned?)", line, err)
	}
	close(release)
	rest, _ := io.ReadAll(br)
	if string(rest) != "\ndata: two\n\n" {
		t.Fatalf("rest of the stream: %q", rest)
	}

	rc := dialRaw(t, addr)
	rc.expect(post("/mcp", "a"), "POST /mcp a")
	rc.expect("GET /page HTTP/1.1\r\nHost: x\r\n\r\n", "GET /page ")
	rc.expect(post("/mcp", "b"), "POST /mcp b")
}

func TestPipelinedRequests(t *testing.T) {
	addr := serve(t, &Server{Handler: echo})
	rc := dialRaw(t, addr)
	rc.send(post("/mcp", "one") + post("/mcp", "two") + post("/mcp", "three"))
	for _, want := range []string{"one", "two", "three"} {
		if _, body := rc.answer(); body != "POST /mcp "+want {
			t.Fatalf("got %q, want %q", body, want)
		}
	}
}

func TestChunkedBody(t *testing.T) {
	addr := serve(t, &Server{Handler: echo})
	rc := dialRaw(t, addr)
	rc.expect("POST /mcp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", "POST /mcp hello world")
	rc.expect(post("/mcp", "next"), "POST /mcp next")
}

func TestExpectContinue(t *testing.T) {
	addr := serve(t, &Server{Handler: echo})
	rc := dialRaw(t, addr)
	rc.send("POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
	line, err := rc.br.ReadString('\n')
	if err != nil || line != "HTTP/1.1 100 Continue\r\n" {
		t.Fatalf("before the body: %q, %v", line, err)
	}
	if blank, _ := rc.br.ReadString('\n'); blank != "\r\n" {
		t.Fatalf("after 100 Continue: %q", blank)
	}
	rc.send("body")
	if resp, body := rc.answer(); resp.StatusCode != 200 || body != "POST /mcp body" {
		t.Fatalf("got %d %q", resp.StatusCode, body)
	}

	rc = dialRaw(t, addr)
	rc.send("POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: something-else\r\n\r\nbody")
	if resp, _ := rc.answer(); resp.StatusCode != http.StatusExpectationFailed {
		t.Fatalf("an unknown expectation: %d", resp.StatusCode)
	}
}

func TestBadRequests(t *testing.T) {
	addr := serve(t, &Server{Handler: echo, MaxHeaderBytes: 1 << 10})
	for _, tc := range []struct {
		name, req string
		status    int
	}{
		{"no Host", "POST /mcp HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 400},
		{"bad Host", "POST /mcp HTTP/1.1\r\nHost: a b\r\nContent-Length: 0\r\n\r\n", 400},
		{"bad header value", "POST /mcp HTTP/1.1\r\nHost: a\r\nX: a\x01b\r\nContent-Length: 0\r\n\r\n", 400},
		{"malformed", "POST /mcp\r\n\r\n", 400},
		{"bad length", "POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: x\r\n\r\n", 400},
		{"HTTP/2.0", "POST /mcp HTTP/2.0\r\nHost: a\r\nContent-Length: 0\r\n\r\n", 505},
		{"head too large", "POST /mcp HTTP/1.1\r\nHost: a\r\nX: " + strings.Repeat("y", 16<<10) + "\r\n\r\n", 431},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := dialRaw(t, addr)
			rc.send(tc.req)
			resp, _ := rc.answer()
			if resp.StatusCode != tc.status || !resp.Close {
				t.Fatalf("status %d (close %v), want %d and close", resp.StatusCode, resp.Close, tc.status)
			}
			if !rc.closed() {
				t.Fatal("the connection stays open")
			}
		})
	}
}

func TestConnectionClose(t *testing.T) {
	addr := serve(t, &Server{Handler: echo})
	for _, req := range []string{
		post("/mcp", "x", "Connection: close"),
		"POST /mcp HTTP/1.0\r\nContent-Length: 1\r\n\r\nx",
	} {
		rc := dialRaw(t, addr)
		rc.send(req)
		resp, body := rc.answer()
		if body != "POST /mcp x" || !resp.Close {
			t.Fatalf("%q: body %q, close %v", req, body, resp.Close)
		}
		if !rc.closed() {
			t.Fatalf("%q: the connection stays open", req)
		}
	}
}

// A body the handler leaves unread is read past when it is small, and
// makes the connection close when it is large.
func TestUnreadBodies(t *testing.T) {
	ignore := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	addr := serve(t, &Server{Handler: ignore})
	rc := dialRaw(t, addr)
	rc.send(post("/mcp", strings.Repeat("a", 10<<10)))
	if resp, body := rc.answer(); body != "ok" || resp.Close {
		t.Fatalf("small unread body: %q, close %v", body, resp.Close)
	}
	rc.expect(post("/mcp", "b"), "ok")

	rc = dialRaw(t, addr)
	go func() { _, _ = io.WriteString(rc.c, post("/mcp", strings.Repeat("a", drainLimit+10<<10))) }()
	if resp, body := rc.answer(); body != "ok" || !resp.Close {
		t.Fatalf("large unread body: %q, close %v", body, resp.Close)
	}
}

func TestAnswersHeads(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/none":
			w.WriteHeader(http.StatusNoContent)
			if _, err := w.Write([]byte("x")); !errors.Is(err, http.ErrBodyNotAllowed) {
				t.Errorf("Write after 204: %v", err)
			}
		case "/sniff":
			fmt.Fprint(w, "<html><body>hi</body></html>")
		case "/split":
			w.Header().Set("X-Split", "a\r\nInjected: yes")
			w.WriteHeader(499)
		case "/length":
			w.Header().Set("Content-Length", "100")
			fmt.Fprint(w, "short")
		case "/twice":
			w.WriteHeader(http.StatusAccepted)
			w.WriteHeader(http.StatusTeapot)
		}
	})
	addr := serve(t, &Server{Handler: h})
	rc := dialRaw(t, addr)

	rc.send(post("/none", ""))
	if resp, body := rc.answer(); resp.StatusCode != 204 || body != "" || resp.Header.Get("Content-Length") != "" {
		t.Fatalf("204: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	rc.send(post("/sniff", ""))
	if resp, _ := rc.answer(); resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("sniffed type %q", resp.Header.Get("Content-Type"))
	}
	rc.send(post("/split", ""))
	if resp, _ := rc.answer(); resp.StatusCode != 499 || resp.Header.Get("Injected") != "" || resp.Header.Get("X-Split") != "a  Injected: yes" {
		t.Fatalf("split header: %d %v", resp.StatusCode, resp.Header)
	}
	rc.send(post("/length", ""))
	if resp, body := rc.answer(); body != "short" || resp.ContentLength != 5 {
		t.Fatalf("a wrong Content-Length set by the handler: %q, %d", body, resp.ContentLength)
	}
	rc.send(post("/twice", ""))
	if resp, _ := rc.answer(); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("second WriteHeader counted: %d", resp.StatusCode)
	}
}

func TestPanicClosesTheConnection(t *testing.T) {
	var logged bytes.Buffer
	var mu sync.Mutex
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/panic":
			panic("boom")
		case "/abort":
			panic(http.ErrAbortHandler)
		}
		fmt.Fprint(w, "fine")
	})
	addr := serve(t, &Server{Handler: h, ErrorLog: log.New(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logged.Write(p)
	}), "", 0)})
	for _, path := range []string{"/panic", "/abort"} {
		rc := dialRaw(t, addr)
		rc.send(post(path, ""))
		if !rc.closed() {
			t.Fatalf("%s: the connection stays open", path)
		}
	}
	mu.Lock()
	got := logged.String()
	mu.Unlock()
	if !strings.Contains(got, "panic serving") || !strings.Contains(got, "boom") || strings.Count(got, "panic serving") != 1 {
		t.Fatalf("log: %q", got)
	}
	rc := dialRaw(t, addr)
	rc.expect(post("/", ""), "fine")
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// The request's context ends when the handler returns, and when the
// caller hangs up while the handler runs, whether the handler read the
// body before HangupAfter or after it.
func TestRequestContext(t *testing.T) {
	done := make(chan context.Context, 1)
	ended := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/late" {
			time.Sleep(20 * time.Millisecond) // its body read after HangupAfter
		}
		_, _ = io.ReadAll(r.Body)
		if r.URL.Path == "/wait" || r.URL.Path == "/late" {
			select {
			case <-r.Context().Done():
				ended <- context.Cause(r.Context())
			case <-time.After(10 * time.Second):
				ended <- errors.New("the context did not end")
			}
			return
		}
		if r.Context().Value(http.LocalAddrContextKey) == nil {
			t.Error("no LocalAddrContextKey in the request's context")
		}
		done <- r.Context()
		fmt.Fprint(w, "ok")
	})
	addr := serve(t, &Server{Handler: h, HangupAfter: 5 * time.Millisecond})
	rc := dialRaw(t, addr)
	rc.send(post("/", ""))
	rc.answer()
	if err := (<-done).Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("after the handler returned, the context's error is %v", err)
	}

	for _, path := range []string{"/wait", "/late"} {
		rc = dialRaw(t, addr)
		rc.send(post(path, "x"))
		rc.c.Close() // before or after the watch starts: it reads the end either way
		if err := <-ended; !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: after the caller hung up: %v", path, err)
		}
	}
}

// A handler that runs past HangupAfter while its caller waits is
// answered as any other, and the connection serves the next request.
func TestSlowHandlerKeepsItsConnection(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		time.Sleep(30 * time.Millisecond)
		if err := r.Context().Err(); err != nil {
			t.Errorf("the context ended while the caller waited: %v", err)
		}
		w.Write(body)
	})
	addr := serve(t, &Server{Handler: h, HangupAfter: time.Millisecond})
	rc := dialRaw(t, addr)
	for i := range 3 {
		rc.send(post("/", fmt.Sprint(i)))
		if resp, body := rc.answer(); body != fmt.Sprint(i) || resp.Close {
			t.Fatalf("answer %d: %q, close %v", i, body, resp.Close)
		}
	}
	// A request sent while the previous one is served (pipelined) is
	// neither lost nor taken for a hang-up by the watch.
	rc.send(post("/", "a"))
	time.Sleep(10 * time.Millisecond)
	rc.send(post("/", "b"))
	for _, want := range []string{"a", "b"} {
		if _, body := rc.answer(); body != want {
			t.Fatalf("got %q, want %q", body, want)
		}
	}
}

func TestShutdown(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		if r.URL.Path == "/slow" {
			close(started)
			<-release
		}
		fmt.Fprint(w, "ok")
	})
	s := &Server{Handler: h}
	addr := serve(t, s)

	idle := dialRaw(t, addr)
	idle.send(post("/", ""))
	idle.answer()
	handedOff := dialRaw(t, addr)
	handedOff.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	handedOff.answer()

	busy := dialRaw(t, addr)
	busy.send(post("/slow", ""))
	<-started

	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(context.Background()) }()
	if !idle.closed() || !handedOff.closed() {
		t.Fatal("Shutdown left an idle connection open")
	}
	if _, err := net.Dial("tcp", addr); err == nil {
		t.Fatal("a connection was accepted after Shutdown")
	}
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned %v before the request under way was answered", err)
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	resp, body := busy.answer()
	if body != "ok" || !resp.Close {
		t.Fatalf("the request under way: %q, close %v", body, resp.Close)
	}
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}

func TestShutdownGivesUpWithItsContext(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
	})
	s := &Server{Handler: h}
	addr := serve(t, s)
	rc := dialRaw(t, addr)
	rc.send(post("/", ""))
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := s.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown: %v", err)
	}
}

func TestCloseEndsRequests(t *testing.T) {
	started := make(chan struct{})
	ended := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
		ended <- r.Context().Err()
	})
	s := &Server{Handler: h}
	addr := serve(t, s)
	rc := dialRaw(t, addr)
	rc.send(post("/", ""))
	<-started
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Fatalf("the request's context: %v", err)
	}
	if !rc.closed() {
		t.Fatal("Close left the connection open")
	}
	if err := s.Serve(mustListen(t)); !errors.Is(err, http.ErrServerClosed) {
		t.Fatalf("Serve after Close: %v", err)
	}
}

func mustListen(t *testing.T) net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// Nothing the server started is left running once it is closed.
func TestNoGoroutinesLeft(t *testing.T) {
	before := runtime.NumGoroutine()
	func() {
		s := &Server{Handler: echo, HangupAfter: time.Millisecond}
		ln := mustListen(t)
		served := make(chan error, 1)
		go func() { served <- s.Serve(ln) }()
		var n atomic.Int32
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				c, err := net.Dial("tcp", ln.Addr().String())
				if err != nil {
					t.Error(err)
					return
				}
				defer c.Close()
				br := bufio.NewReader(c)
				for range 5 {
					io.WriteString(c, post("/", "x"))
					resp, err := http.ReadResponse(br, nil)
					if err != nil {
						t.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					n.Add(1)
				}
				io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
				if resp, err := http.ReadResponse(br, nil); err == nil {
					io.Copy(io.Discard, resp.Body)
				}
			})
		}
		wg.Wait()
		s.Close()
		<-served
		if n.Load() != 20 {
			t.Fatalf("%d answers, want 20", n.Load())
		}
	}()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines left, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A new connection that sends nothing is closed after ReadHeaderTimeout;
// an idle one that has been served is kept.
func TestFirstRequestTimeout(t *testing.T) {
	addr := serve(t, &Server{Handler: echo, ReadHeaderTimeout: 50 * time.Millisecond})
	silent := dialRaw(t, addr)
	served := dialRaw(t, addr)
	served.send(post("/", "x"))
	served.answer()
	if !silent.closed() {
		t.Fatal("a connection that sent nothing stays open")
	}
	time.Sleep(100 * time.Millisecond)        // twice ReadHeaderTimeout, idle
	served.expect(post("/", "y"), "POST / y") // after an idle wait
}

// A large body the handler refuses without reading it is answered, and the
// caller, still sending it, reads the answer rather than a reset.
func TestLargeBodyRefusedUnread(t *testing.T) {
	refuse := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "too large", http.StatusRequestEntityTooLarge)
	})
	addr := serve(t, &Server{Handler: refuse})
	big := bytes.Repeat([]byte("x"), 4<<20)
	for range 5 {
		resp, err := http.Post("http://"+addr+"/mcp", "application/json", bytes.NewReader(big))
		if err != nil {
			t.Fatalf("the answer was lost: %v", err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("HTTP %d, want 413", resp.StatusCode)
		}
	}
}
