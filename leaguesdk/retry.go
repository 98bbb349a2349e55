package leaguesdk

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// NoRetries, as [RetryPolicy.MaxRetries], disables retries.
const NoRetries = -1

// RetryPolicy says how a [Client] retries a call that failed with a retryable
// error (E001 timeout, E009 connection, E010 rate limited). Retries never
// go past the call's deadline or its context.
type RetryPolicy struct {
	// MaxRetries is the number of retries after the first attempt.
	// Default 3; [NoRetries] (or any negative value) for none.
	MaxRetries int
	// Delay is the pause before each retry, or before the first one when
	// Exponential is set. Default 2 s.
	Delay time.Duration
	// Exponential doubles the pause after each retry (1 s, 2 s, 4 s with a
	// Delay of 1 s), up to 64 times Delay.
	Exponential bool
	// AttemptTimeout bounds each attempt. Zero: an attempt may take what is
	// left of the call's deadline.
	AttemptTimeout time.Duration
	// OnRetry, when set, is called after a failed attempt that will be
	// retried, with its number (from 1), its error and the pause before the
	// next one: to log it, or to tell the peer (a referee announces each
	// retry to the player with a GAME_ERROR).
	OnRetry func(attempt int, err error, pause time.Duration)
}

// RetryUntilDone as [RetryPolicy.MaxRetries] retries until the call's context
// ends or an error is not retryable.
const RetryUntilDone = math.MaxInt32

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxRetries == 0 {
		p.MaxRetries = 3
	}
	if p.MaxRetries < 0 {
		p.MaxRetries = 0
	}
	if p.Delay <= 0 {
		p.Delay = 2 * time.Second
	}
	return p
}

// attemptFunc makes one attempt of a call: the layer under the retry policy.
type attemptFunc func(ctx context.Context, x *exchange) error

// retrying returns the retry layer of a call: attempt is made, and made
// again per policy while it fails with a retryable error (E001, E009,
// E010), never past the call's deadline or its context. It returns the
// number of attempts made and the call's error, an [*Error] naming the
// endpoint, the method and the attempts.
func (c *Client) retrying(policy RetryPolicy, attempt attemptFunc) func(ctx context.Context, x *exchange) (int, error) {
	return func(ctx context.Context, x *exchange) (int, error) {
		r := retrier{ctx: ctx, x: x, policy: policy, attemptFn: attempt}
		// Most calls succeed, or fail for good, at their first attempt:
		// the backoff that paces the retries is set up only for a call
		// that will have one, and is then handed the first attempt's
		// error as if it had made it.
		if done, first := r.once(); !done {
			return r.retry(first)
		}
		return r.attempt, r.err
	}
}

// retrier is one call of the retry layer: its attempts so far.
type retrier struct {
	ctx       context.Context
	x         *exchange
	policy    RetryPolicy
	attemptFn attemptFunc
	attempt   int
	err       error // the result of the last attempt
	last      error // the *Error of the last failed attempt
}

// once makes one attempt. done is true when it is the last: it succeeded
// (err nil) or failed with an error not to retry; otherwise err is the
// attempt's retryable error.
func (r *retrier) once() (done bool, err error) {
	r.attempt++
	actx := r.ctx
	if r.policy.AttemptTimeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(r.ctx, r.policy.AttemptTimeout)
		defer cancel()
	}
	if r.err = r.attemptFn(actx, r.x); r.err == nil {
		return true, nil
	}
	var e *Error
	if !errors.As(r.err, &e) {
		e = &Error{Code: CodeConnectionError, Err: r.err}
	}
	e.Endpoint, e.Method, e.Attempt = r.x.ep.name, r.x.method, r.attempt
	r.last, r.err = e, e
	return !e.Code.Retryable() || errors.Is(e, ErrCircuitOpen) || r.ctx.Err() != nil, e
}

// retry goes on with a call whose first attempt failed with first, a
// retryable error, as the retry policy says, and returns the number of
// attempts made and the call's error.
func (r *retrier) retry(first error) (int, error) {
	policy, ctx := r.policy, r.ctx
	var b backoff.BackOff
	if policy.Exponential {
		e := backoff.NewExponentialBackOff()
		e.InitialInterval = policy.Delay
		e.Multiplier = 2
		e.RandomizationFactor = 0
		e.MaxInterval = 64 * policy.Delay
		e.MaxElapsedTime = 0
		b = e
	} else {
		b = backoff.NewConstantBackOff(policy.Delay)
	}
	deadline, _ := ctx.Deadline()
	// WithContext ends a pause between attempts as soon as ctx is done.
	b = backoff.WithContext(&deadlineBackOff{BackOff: backoff.WithMaxRetries(b, uint64(policy.MaxRetries)), deadline: deadline}, ctx)
	op := func() error {
		done, err := false, first
		if first == nil {
			done, err = r.once()
		}
		first = nil // the first attempt was made already
		if done && err != nil {
			return backoff.Permanent(err)
		}
		return err
	}
	b.Reset()
	var notify backoff.Notify
	if policy.OnRetry != nil {
		notify = func(err error, pause time.Duration) { policy.OnRetry(r.attempt, err, pause) }
	}
	if err := backoff.RetryNotify(op, b, notify); err != nil {
		if errors.Is(err, context.Canceled) && !errors.Is(r.last, context.Canceled) {
			// Cancelled while waiting to retry.
			return r.attempt, &Error{Code: CodeConnectionError, Message: "call cancelled", Endpoint: r.x.ep.name, Method: r.x.method, Attempt: r.attempt, Err: err}
		}
		if r.last != nil {
			return r.attempt, r.last
		}
		return r.attempt, err
	}
	return r.attempt, nil
}

// deadlineBackOff stops retrying when the next pause would end past the deadline.
type deadlineBackOff struct {
	backoff.BackOff
	deadline time.Time
}

func (d *deadlineBackOff) NextBackOff() time.Duration {
	next := d.BackOff.NextBackOff()
	if next == backoff.Stop || (!d.deadline.IsZero() && time.Now().Add(next).After(d.deadline)) {
		return backoff.Stop
	}
	return next
}
