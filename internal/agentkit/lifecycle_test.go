package agentkit

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestLifecycleReleasesOnceAndReportsIt: what New acquired is released
// exactly once, whether Run returns first or Close is called first, and a
// release that fails is Run's error after a clean stop.
func TestLifecycleReleasesOnceAndReportsIt(t *testing.T) {
	var released atomic.Int32
	broken := errors.New("file not durable")
	l := NewLifecycle("agent", func() error {
		released.Add(1)
		return broken
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	listening := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- l.Run(ctx, Spec{Listener: ln, Handler: http.NotFoundHandler(), Grace: time.Second,
			Listening: func(endpoint string) error { listening <- endpoint; return nil }})
	}()
	if ep := <-listening; !strings.HasSuffix(ep, ln.Addr().String()+"/mcp") {
		t.Errorf("advertised %q for %v", ep, ln.Addr())
	}
	cancel()
	if err := <-done; !errors.Is(err, broken) || !strings.HasPrefix(err.Error(), "agent: ") {
		t.Errorf("Run = %v, want the release error under the agent's name", err)
	}
	if err := l.Close(); !errors.Is(err, broken) {
		t.Errorf("Close = %v, want the release error", err)
	}
	if n := released.Load(); n != 1 {
		t.Errorf("released %d times, want once", n)
	}

	released.Store(0)
	l = NewLifecycle("agent", func() error { released.Add(1); return nil })
	for range 2 {
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Run(context.Background(), Spec{Listener: ln}); err == nil || err.Error() != "agent: Run called after Close" {
		t.Errorf("Run after Close = %v", err)
	}
	if n := released.Load(); n != 1 {
		t.Errorf("released %d times, want once", n)
	}
}

// TestLifecycleWorkErrorEndsRun: an error of Work (a refused registration)
// ends Run with that error while serving is fine.
func TestLifecycleWorkErrorEndsRun(t *testing.T) {
	l := NewLifecycle("agent", nil)
	defer l.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := errors.New("refused")
	err = l.Run(context.Background(), Spec{Listener: ln, Handler: http.NotFoundHandler(), Grace: time.Second,
		Work: func(context.Context) error { return refused }})
	if !errors.Is(err, refused) {
		t.Fatalf("Run = %v, want Work's error", err)
	}
}
