// Package ratelimit limits how often each caller may call an agent: one
// token bucket (golang.org/x/time/rate) per caller, as a
// [leaguesdk.Middleware]. A caller is an authenticated agent when the agent can tell
// ([Config.Identify]), and its remote address otherwise.
//
// Shared by the referee and the manager; it imports leaguesdk, whose
// Middleware it is.
package ratelimit

import (
	"context"
	"net"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/agentleague/league/leaguesdk"
)

// Config configures a [Limiter].
type Config struct {
	// PerSecond is the sustained rate allowed to each caller; the burst is
	// twice as many. It must be positive.
	PerSecond float64
	// Identify returns the authenticated agent a request comes from
	// ("P01"), or "" when the request does not prove one; such requests
	// share a bucket per remote address. Default: always "".
	Identify func(req *leaguesdk.Request) string
	// IdleAfter is how long a bucket that has not been used is kept.
	// Default one minute.
	IdleAfter time.Duration
	// Now is the clock. Default [time.Now].
	Now func() time.Time
}

// Limiter keeps the buckets. It is safe for concurrent use.
type Limiter struct {
	cfg   Config
	limit rate.Limit
	burst int

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

// New returns a [Limiter].
func New(cfg Config) *Limiter {
	if cfg.Identify == nil {
		cfg.Identify = func(*leaguesdk.Request) string { return "" }
	}
	if cfg.IdleAfter <= 0 {
		cfg.IdleAfter = time.Minute
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Limiter{cfg: cfg, limit: rate.Limit(cfg.PerSecond), burst: max(1, int(2*cfg.PerSecond)),
		buckets: map[string]*bucket{}}
}

// Middleware refuses a call over its caller's limit with a
// [*leaguesdk.RateLimitError] (HTTP 429, Retry-After, E010) before the
// message is validated, authorised or handled.
func (l *Limiter) Middleware() leaguesdk.Middleware {
	return func(next leaguesdk.HandlerFunc) leaguesdk.HandlerFunc {
		return func(ctx context.Context, req *leaguesdk.Request) (any, error) {
			key := l.Key(req)
			if ok, wait := l.Allow(key); !ok {
				return nil, &leaguesdk.RateLimitError{RetryAfter: wait, Caller: key}
			}
			return next(ctx, req)
		}
	}
}

// Key returns the bucket a request draws from: "agent:<id>" for an
// identified agent, "addr:<ip>" otherwise.
func (l *Limiter) Key(req *leaguesdk.Request) string {
	if id := l.cfg.Identify(req); id != "" {
		return "agent:" + id
	}
	if req.HTTP == nil {
		return "addr:unknown"
	}
	host, _, err := net.SplitHostPort(req.HTTP.RemoteAddr)
	if err != nil {
		host = req.HTTP.RemoteAddr
	}
	return "addr:" + host
}

// Allow takes a token from key's bucket. When the bucket is empty it
// reports false and how long until a token is there.
func (l *Limiter) Allow(key string) (bool, time.Duration) {
	now := l.cfg.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweepLocked(now)
	b := l.buckets[key]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(l.limit, l.burst)}
		l.buckets[key] = b
	}
	b.seen = now
	r := b.lim.ReserveN(now, 1)
	if wait := r.DelayFrom(now); wait > 0 {
		r.CancelAt(now)
		return false, wait
	}
	return true, 0
}

// Buckets returns the number of buckets kept.
func (l *Limiter) Buckets() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// sweepLocked forgets buckets unused for IdleAfter, at most once per
// IdleAfter, so that callers that come and go do not grow the map.
func (l *Limiter) sweepLocked(now time.Time) {
	if now.Sub(l.lastSweep) < l.cfg.IdleAfter {
		return
	}
	l.lastSweep = now
	for k, b := range l.buckets {
		if now.Sub(b.seen) >= l.cfg.IdleAfter {
			delete(l.buckets, k)
		}
	}
}

// DefaultPerSecond is the agents' default rate limit per caller: far above
// what any agent of a normal league sends (a 1000-player league's busiest
// caller, the registration burst from one address, stays inside the burst).
const DefaultPerSecond = 1000

// Middlewares returns the middleware of an agent's RateLimit setting: a
// limiter of perSecond requests per caller ([DefaultPerSecond] for 0), or
// none for a negative value.
func Middlewares(perSecond float64, identify func(*leaguesdk.Request) string) []leaguesdk.Middleware {
	if perSecond < 0 {
		return nil
	}
	if perSecond == 0 {
		perSecond = DefaultPerSecond
	}
	return []leaguesdk.Middleware{New(Config{PerSecond: perSecond, Identify: identify}).Middleware()}
}
