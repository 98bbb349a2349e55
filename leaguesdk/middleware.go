package leaguesdk

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
)

// HandlerFunc serves one routed call: it returns the reply message or an
// error, as the handler given to [Handle] does.
type HandlerFunc func(ctx context.Context, req *Request) (any, error)

// Middleware wraps every routed call of a [Server] ([ServerConfig.Middleware]):
// rate limiting, tracing, logging. It sees the [Request] — method, tool, wire
// form, the decoded message's envelope, the HTTP request — before the
// message is validated, authorised and handled, and the reply or error
// after. An error it returns is answered like a handler's.
type Middleware func(next HandlerFunc) HandlerFunc

// Observer is told what an agent's [Server] and [Client] do, so that a program
// can count it (package metrics wires it to Prometheus). Its methods are
// called concurrently, on the request path, and must return quickly.
type Observer interface {
	// ObserveCall is told about every call served and every call made.
	ObserveCall(CallEvent)
}

// CallEvent is one call served by a [Server] or made by a [Client].
type CallEvent struct {
	// Served is true for a call the agent served, false for one it made.
	Served bool
	// Method is the tool that served the call, or the method called.
	Method string
	// Endpoint is the peer called (calls made only).
	Endpoint string
	// Outcome is "ok", the catalog code of the error ("E010"), or "error"
	// for an error without one.
	Outcome string
	// Attempts is the number of attempts a call made took (calls made only).
	Attempts int
	// Took is how long the call took, retries included.
	Took time.Duration
}

// Outcome returns the Outcome of a [CallEvent] that ended with err.
func Outcome(err error) string {
	if err == nil {
		return "ok"
	}
	if c := CodeOf(err); c != "" {
		return string(c)
	}
	return "error"
}

// RateLimitError refuses a call whose caller is over its rate limit. A
// [Server] answers it with HTTP 429, a Retry-After header and a protocol
// error E010 RATE_LIMITED, which clients retry.
type RateLimitError struct {
	// RetryAfter is when the caller may try again.
	RetryAfter time.Duration
	// Caller names the bucket that is empty (an agent id or an address).
	Caller string
}

// Error implements the error interface.
func (e *RateLimitError) Error() string { return e.err().Error() }

// Unwrap returns the protocol error E010, so that [CodeOf] and [errors.As] see it.
func (e *RateLimitError) Unwrap() error { return e.err() }

func (e *RateLimitError) err() *Error {
	return &Error{Code: CodeRateLimited,
		Message: fmt.Sprintf("too many requests from %s; retry after %s", e.Caller, e.RetryAfter.Round(time.Millisecond)),
		Context: map[string]any{"retry_after_seconds": e.retryAfterSeconds()}}
}

// retryAfterSeconds is the Retry-After value: whole seconds, at least 1.
func (e *RateLimitError) retryAfterSeconds() int {
	return max(1, int(math.Ceil(e.RetryAfter.Seconds())))
}

// chain applies mw to h, the first middleware outermost.
func chain(h HandlerFunc, mw []Middleware) HandlerFunc {
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	return h
}

// asRateLimit returns the RateLimitError in err's chain, if any.
func asRateLimit(err error) (*RateLimitError, bool) {
	var rl *RateLimitError
	ok := errors.As(err, &rl)
	return rl, ok
}
