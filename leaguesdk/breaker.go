package leaguesdk

import (
	"context"
	"errors"
	"time"

	"github.com/sony/gobreaker/v2"
)

// BreakerPolicy configures the circuit breaker a [Client] keeps per endpoint.
type BreakerPolicy struct {
	// Failures is the number of consecutive failures that opens the
	// circuit. Default 5.
	Failures int
	// OpenFor is how long an open circuit refuses calls before it lets one
	// probe through. Default 30 s.
	OpenFor time.Duration
	// Disabled turns the breaker off.
	Disabled bool
}

// newBreaker returns the circuit breaker of one endpoint. An error the
// peer answered counts as a success (a peer that answers is up); a call
// the caller cancelled does not count.
func (c *Client) newBreaker(endpoint string) *gobreaker.CircuitBreaker[struct{}] {
	failures := uint32(c.cfg.Breaker.Failures)
	return gobreaker.NewCircuitBreaker[struct{}](gobreaker.Settings{
		Name:         endpoint,
		MaxRequests:  1,
		Timeout:      c.cfg.Breaker.OpenFor,
		ReadyToTrip:  func(counts gobreaker.Counts) bool { return counts.ConsecutiveFailures >= failures },
		IsExcluded:   func(err error) bool { return errors.Is(err, context.Canceled) },
		IsSuccessful: func(err error) bool { return err == nil || answeredByPeer(err) },
	})
}

// guarded runs one exchange with the endpoint through its circuit breaker:
// an open circuit refuses it with [ErrCircuitOpen] as its cause.
func (c *Client) guarded(ep *endpointState, exchange func() error) error {
	if c.cfg.Breaker.Disabled {
		return exchange()
	}
	_, err := ep.breaker.Execute(func() (struct{}, error) { return struct{}{}, exchange() })
	if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
		err = &Error{Code: CodeConnectionError, Message: "circuit breaker open for " + ep.name, Err: ErrCircuitOpen}
	}
	return err
}

// answered marks e as an error the peer answered (a refusal, a protocol
// error, a reply that does not read) rather than a failure to reach it.
func answered(e *Error) *Error {
	e.answered = true
	return e
}

// answeredByPeer reports whether err is an error the peer answered.
func answeredByPeer(err error) bool {
	e, ok := err.(*Error)
	if !ok && !errors.As(err, &e) {
		return false
	}
	return e.answered
}
