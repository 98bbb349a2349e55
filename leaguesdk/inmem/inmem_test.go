package inmem_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk/inmem"
)

func TestARequestReachesItsHostsHandlerAsAServerWouldServeIt(t *testing.T) {
	var n inmem.Network
	n.Handle("echo", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, r.Method+" "+r.RequestURI+" "+r.Host+" "+string(body))
	}))
	resp, err := n.Client().Post("http://echo/mcp?x=1", "application/json", strings.NewReader(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusAccepted || resp.Header.Get("Content-Type") != "application/json" ||
		string(body) != `POST /mcp?x=1 echo {"a":1}` || resp.ContentLength != int64(len(body)) {
		t.Errorf("got %d %v %q", resp.StatusCode, resp.Header, body)
	}
}

func TestARequestEndsWithItsContextAndAPanicFailsIt(t *testing.T) {
	var n inmem.Network
	release := make(chan struct{})
	defer close(release)
	n.Handle("slow", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	n.Handle("buggy", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { panic("a bug") }))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://slow/health", nil)
	if _, err := n.Client().Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a slow handler: got %v, want the context's deadline", err)
	}
	if _, err := n.Client().Get("http://buggy/health"); err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Errorf("a handler that panics: got %v, want an error", err)
	}
}

func TestAListenerNamesItsHostAndAcceptsNothingUntilClosed(t *testing.T) {
	var n inmem.Network
	ln := n.Listener("p01")
	if ln.Addr().Network() != "inmem" || ln.Addr().String() != "p01" || inmem.Endpoint("p01") != "http://p01/mcp" {
		t.Errorf("address %s %s", ln.Addr().Network(), ln.Addr())
	}
	accepted := make(chan error, 1)
	go func() {
		_, err := ln.Accept()
		accepted <- err
	}()
	select {
	case err := <-accepted:
		t.Fatalf("Accept returned %v before Close", err)
	case <-time.After(20 * time.Millisecond):
	}
	_ = ln.Close()
	if err := <-accepted; !errors.Is(err, net.ErrClosed) {
		t.Errorf("Accept after Close: %v, want net.ErrClosed", err)
	}
}
