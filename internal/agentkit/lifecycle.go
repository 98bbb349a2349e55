package agentkit

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// Lifecycle is the life of one agent, the same for the player, the referee
// and the manager: Run at most once (listen, advertise, serve, do the
// agent's work, stop with grace), [Lifecycle.Shutdown], and Close, which releases what
// the agent's New acquired. An agent keeps one, made by [NewLifecycle], and
// describes its [Lifecycle.Run] with a [Spec].
type Lifecycle struct {
	name    string
	release func() error

	mu      sync.Mutex
	running bool // Run was called
	closed  bool // Close was called

	stop        chan context.Context // a graceful stop and its deadline
	kill        context.Context      // ends when Close is called
	killNow     context.CancelFunc
	done        chan struct{} // closed when Run returns
	releaseOnce sync.Once
	releaseErr  error
}

// NewLifecycle returns the lifecycle of the agent name ("player",
// "referee", "manager": the prefix of its errors). release frees what the
// agent's New acquired (files, connections, contexts); it runs once, when
// Run returns or Close is called, whichever comes first.
func NewLifecycle(name string, release func() error) *Lifecycle {
	l := &Lifecycle{name: name, release: release, stop: make(chan context.Context, 1), done: make(chan struct{})}
	l.kill, l.killNow = context.WithCancel(context.Background())
	return l
}

// Advertise sets *endpoint, guarded by mu, to listened unless an endpoint
// was configured, and returns the one the agent advertises: what an
// agent's [Spec.Listening] does first.
func Advertise(mu *sync.Mutex, endpoint *string, listened string) string {
	mu.Lock()
	defer mu.Unlock()
	if *endpoint == "" {
		*endpoint = listened
	}
	return *endpoint
}

// The agents' HTTP server's timeouts. A request's head must arrive within
// readHeaderTimeout; its body within the leaguesdk.Server's BodyTimeout
// (the handler sets that deadline); a connection kept alive between
// requests is closed after idleTimeout. No write timeout: a player's
// handler may take as long as the strategy's deadline allows.
const (
	readHeaderTimeout = 10 * time.Second
	idleTimeout       = 120 * time.Second
)

// Spec describes what an agent's [Lifecycle.Run] does besides serving.
type Spec struct {
	// Listener is served when set; otherwise [Lifecycle.Run] listens on Addr.
	Listener net.Listener
	// Addr is the TCP address to listen on without a Listener.
	Addr string
	// TLS, when set, makes [Lifecycle.Run] serve HTTPS only with it.
	TLS *tls.Config
	// Handler is what is served.
	Handler http.Handler
	// Grace bounds the graceful stop when [Lifecycle.Run]'s context ends (Drain, then
	// the requests in flight).
	Grace time.Duration
	// Log receives the server's errors (failed TLS handshakes) as warnings.
	Log *slog.Logger
	// Listening, when set, is called once the listener is open, before
	// anything is served, with the endpoint of its address (see
	// [EndpointFor]). An error ends [Lifecycle.Run] before it serves.
	Listening func(endpoint string) error
	// Work, when set, runs while the agent serves (registration, the
	// league), under a context that ends when [Lifecycle.Run] stops. An error it
	// returns before that ends Run with that error; returning nil leaves
	// the agent serving.
	Work func(ctx context.Context) error
	// Drain, when set, is called when [Lifecycle.Run] stops, while the agent still
	// serves, to let work in flight (the referee's matches) finish until
	// its context ends.
	Drain func(ctx context.Context) error
	// Stopped, when set, is called with the error [Lifecycle.Run] is about to return
	// once serving has stopped and Work has returned, before the agent's
	// resources are released.
	Stopped func(err error)
}

// Run runs the agent as s describes until ctx ends, [Lifecycle.Shutdown] or Close is
// called, serving fails, or Work fails. When ctx ends it stops gracefully,
// giving Drain and the requests in flight up to s.Grace. It returns nil
// after a clean stop. Run may be called once, and not after Close; it
// releases the agent's resources when it returns, and returns the error of
// releasing them (a file that could not be made durable) when it has no
// other.
func (l *Lifecycle) Run(ctx context.Context, s Spec) (runErr error) {
	l.mu.Lock()
	switch {
	case l.closed:
		l.mu.Unlock()
		return fmt.Errorf("%s: Run called after Close", l.name)
	case l.running:
		l.mu.Unlock()
		return fmt.Errorf("%s: Run called twice", l.name)
	}
	l.running = true
	l.mu.Unlock()
	defer close(l.done)
	defer func() {
		l.releaseOnce.Do(l.doRelease)
		if runErr == nil && l.releaseErr != nil {
			runErr = fmt.Errorf("%s: %w", l.name, l.releaseErr)
		}
	}()

	ln := s.Listener
	if ln == nil {
		var err error
		if ln, err = Listen(s.Addr); err != nil {
			return fmt.Errorf("%s: %w", l.name, err)
		}
	}
	if s.Listening != nil {
		if err := s.Listening(EndpointFor(ln.Addr(), s.TLS != nil)); err != nil {
			_ = ln.Close()
			return err
		}
	}
	var errorLog *log.Logger
	if s.Log != nil {
		errorLog = slog.NewLogLogger(s.Log.Handler(), slog.LevelWarn)
	}
	srv := &http.Server{Handler: s.Handler, ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: idleTimeout,
		ErrorLog: errorLog}
	if s.TLS != nil {
		srv.TLSConfig = s.TLS.Clone()
		ln = tls.NewListener(ln, srv.TLSConfig)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	// Work runs under a context of its own, ended when Run stops, so that
	// nothing it does (a registration retried while the manager is down)
	// can keep Run waiting after serving failed.
	workCtx, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWork()
	worked := make(chan error, 1)
	working := s.Work != nil
	if working {
		go func() { worked <- s.Work(workCtx) }()
	}

	expired, cancelExpired := context.WithCancel(context.Background())
	cancelExpired()
	var grace context.Context
	cancelGrace := context.CancelFunc(func() {})
	defer func() { cancelGrace() }()
	withGrace := func() context.Context {
		var g context.Context
		g, cancelGrace = context.WithTimeout(context.Background(), s.Grace)
		return g
	}
	serving := true
	workc := worked
	if !working {
		workc = nil
	}
	for grace == nil {
		select {
		case err := <-served:
			serving = false
			runErr = fmt.Errorf("%s: serve: %w", l.name, err)
			grace = expired // nobody can reach the agent: nothing to wait for
		case err := <-workc:
			workc, working = nil, false
			if err != nil {
				runErr = err
				grace = withGrace()
			}
		case <-ctx.Done():
			grace = withGrace()
		case g := <-l.stop:
			grace = g
		case <-l.kill.Done():
			grace = expired
		}
	}
	// Close hurries a graceful stop under way.
	grace, cancel := context.WithCancel(grace)
	defer cancel()
	defer context.AfterFunc(l.kill, cancel)()

	stopWork()
	if s.Drain != nil {
		_ = s.Drain(grace)
	}
	if serving {
		if err := srv.Shutdown(grace); err != nil {
			_ = srv.Close()
		}
		if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) && runErr == nil {
			runErr = fmt.Errorf("%s: serve: %w", l.name, err)
		}
	}
	if working {
		<-worked // ends with workCtx; an error now is only the stop
	}
	if s.Stopped != nil {
		s.Stopped(runErr)
	}
	return runErr
}

// Shutdown stops [Lifecycle.Run] gracefully, with ctx as the deadline of the stop
// instead of the grace Run would give, and waits until Run has returned or
// ctx ends. When Run is not running (the agent's Handler is served by
// someone else) it calls drain, if set, with ctx. It returns ctx's error
// when ctx ended before the agent stopped cleanly.
func (l *Lifecycle) Shutdown(ctx context.Context, drain func(context.Context) error) error {
	l.mu.Lock()
	running := l.running
	l.mu.Unlock()
	if !running {
		if drain != nil {
			return drain(ctx)
		}
		return nil
	}
	select {
	case l.stop <- ctx:
	default: // a stop is asked already
	}
	select {
	case <-l.done:
	case <-ctx.Done():
	}
	return ctx.Err()
}

// Close stops [Lifecycle.Run] at once if it is running (no grace: in-flight work is
// abandoned, connections are closed), waits for it to return, and
// releases the agent's resources. It is safe to call more than once and
// without Run; it returns the error of releasing, if any.
func (l *Lifecycle) Close() error {
	l.mu.Lock()
	l.closed = true
	running := l.running
	l.mu.Unlock()
	l.killNow()
	if running {
		<-l.done
	}
	l.releaseOnce.Do(l.doRelease)
	return l.releaseErr
}

func (l *Lifecycle) doRelease() {
	if l.release != nil {
		l.releaseErr = l.release()
	}
}
