package ratelimit_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/agentleague/league/internal/ratelimit"
	"github.com/agentleague/league/leaguesdk"
)

// clock is a settable clock for the limiter.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestBurstThenSustainedRatePerCaller(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	l := ratelimit.New(ratelimit.Config{PerSecond: 10, Now: c.now})
	for i := range 20 { // burst: twice the rate
		if ok, _ := l.Allow("a"); !ok {
			t.Fatalf("request %d of the burst refused", i+1)
		}
	}
	ok, wait := l.Allow("a")
	if ok || wait <= 0 || wait > 100*time.Millisecond {
		t.Fatalf("21st request: ok=%v wait=%v, want refused with a wait of at most 100ms", ok, wait)
	}
	if ok, _ := l.Allow("b"); !ok {
		t.Fatal("another caller was refused because of the first one's flood")
	}
	c.add(100 * time.Millisecond) // one token back at 10/s
	if ok, _ := l.Allow("a"); !ok {
		t.Fatal("refused after the bucket refilled")
	}
	if ok, _ := l.Allow("a"); ok {
		t.Fatal("allowed beyond the refill")
	}
}

func TestIdleBucketsAreForgotten(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	l := ratelimit.New(ratelimit.Config{PerSecond: 1, IdleAfter: time.Minute, Now: c.now})
	for _, k := range []string{"a", "b", "c"} {
		l.Allow(k)
	}
	c.add(2 * time.Minute)
	l.Allow("d")
	if n := l.Buckets(); n != 1 {
		t.Fatalf("%d buckets kept after the others were idle, want 1", n)
	}
}

func TestKeyIsTheAgentElseTheAddress(t *testing.T) {
	l := ratelimit.New(ratelimit.Config{PerSecond: 1, Identify: func(r *leaguesdk.Request) string {
		if r.Envelope != nil && r.Envelope.AuthToken == "good" {
			return "P01"
		}
		return ""
	}})
	hr := &http.Request{RemoteAddr: "192.0.2.7:4431"}
	if k := l.Key(&leaguesdk.Request{HTTP: hr, Envelope: &leaguesdk.Envelope{AuthToken: "good"}}); k != "agent:P01" {
		t.Fatalf("key of an identified agent = %q", k)
	}
	if k := l.Key(&leaguesdk.Request{HTTP: hr, Envelope: &leaguesdk.Envelope{AuthToken: "forged"}}); k != "addr:192.0.2.7" {
		t.Fatalf("key of an unproven caller = %q", k)
	}
}

func TestMiddlewareRefusesWithARateLimitError(t *testing.T) {
	mw := ratelimit.New(ratelimit.Config{PerSecond: 1}).Middleware()
	calls := 0
	h := mw(func(context.Context, *leaguesdk.Request) (any, error) { calls++; return "ok", nil })
	req := &leaguesdk.Request{HTTP: &http.Request{RemoteAddr: "127.0.0.1:1"}}
	for range 2 {
		if _, err := h(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	_, err := h(context.Background(), req)
	var rl *leaguesdk.RateLimitError
	if !errors.As(err, &rl) || leaguesdk.CodeOf(err) != leaguesdk.CodeRateLimited || rl.RetryAfter <= 0 {
		t.Fatalf("third call: %v, want a RateLimitError with E010 and a wait", err)
	}
	if calls != 2 {
		t.Fatalf("handler ran %d times, want 2", calls)
	}
}

func TestMiddlewaresFromTheAgentsSetting(t *testing.T) {
	if mw := ratelimit.Middlewares(-1, nil); mw != nil {
		t.Fatal("a negative rate limit still limits")
	}
	if mw := ratelimit.Middlewares(0, nil); len(mw) != 1 {
		t.Fatal("the default rate limit is missing")
	}
}
