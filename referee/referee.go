package referee

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentleague/league/internal/agentkit"
	"github.com/agentleague/league/internal/gopool"
	"github.com/agentleague/league/internal/ratelimit"
	"github.com/agentleague/league/leaguesdk"
)

// Defaults of [Config].
const (
	DefaultAddr                 = "127.0.0.1:8001"
	DefaultMaxConcurrentMatches = 2
	DefaultRetries              = 3
	DefaultRetryDelay           = 2 * time.Second
	DefaultRegisterRetry        = 2 * time.Second
	DefaultShutdownGrace        = 30 * time.Second
	DefaultDataRoot             = "./league-data"
)

// DefaultRateLimit is [Config.RateLimit]'s default: requests per second per
// caller.
const DefaultRateLimit = ratelimit.DefaultPerSecond

// Config configures a [Referee]. The zero value of every field but Name and
// League means the documented default.
type Config struct {
	// Name is the referee's display name (required).
	Name string
	// Version is the referee's software version, declared at registration
	// and reported to MCP clients. Default [leaguesdk.Version].
	Version string
	// League is the manager's endpoint, "http://127.0.0.1:8000/mcp" (required).
	League string
	// Addr is the address [Referee.Run] listens on when Listener is nil. Default
	// [DefaultAddr].
	Addr string
	// Listener, when set, is used by [Referee.Run] instead of listening on Addr.
	Listener net.Listener
	// Endpoint is the contact endpoint announced at registration. Default:
	// the /mcp URL of the listener's address.
	Endpoint string
	// TLS, when set, makes [Referee.Run] serve HTTPS only with it (its Certificates,
	// and ClientCAs with ClientAuth for mutual TLS); the default Endpoint
	// then starts with https://. Default nil: plain HTTP.
	TLS *tls.Config
	// ClientTLS is the TLS configuration of the referee's calls to https://
	// endpoints: RootCAs to trust (nil: the system roots) and the
	// Certificates presented as its client certificate under mutual TLS.
	// [leaguesdk.TLSFiles] builds both from PEM files. Default nil: the
	// system roots, no client certificate.
	ClientTLS *tls.Config
	// RateLimit is the number of requests per second each caller may make
	// (an agent proven by its token, else a remote address), with bursts of
	// twice as many; a caller over it is answered HTTP 429 with
	// Retry-After and E010 RATE_LIMITED. Default [DefaultRateLimit], which a
	// normal league never reaches; negative disables the limit.
	RateLimit float64
	// BodyTimeout bounds the time a request's body may take to arrive
	// once its head has ([leaguesdk.ServerConfig.BodyTimeout]): a caller
	// that trickles its body in is cut off then. Default
	// [leaguesdk.DefaultBodyTimeout] (10 s).
	BodyTimeout time.Duration
	// Observer, when set, is told about every call the referee serves and
	// makes (package metrics counts them for Prometheus). Default: none.
	Observer leaguesdk.Observer
	// Routes adds HTTP handlers beside the referee's own, keyed by
	// [http.ServeMux] pattern (for example "GET /metrics"). Default: none.
	Routes map[string]http.Handler
	// MaxConcurrentMatches is how many matches run at once; past it
	// start_match is refused with E010 (retryable). Default 2.
	MaxConcurrentMatches int
	// JoinTimeout is the deadline of each GAME_INVITATION (its
	// GAME_JOIN_ACK). Default 5 s.
	JoinTimeout time.Duration
	// MoveTimeout is the deadline of each CHOOSE_PARITY_CALL or
	// GAME_MOVE_CALL; the call carries it as deadline. Default 30 s.
	MoveTimeout time.Duration
	// Retries is how many times a failed player call (an invitation
	// without a valid GAME_JOIN_ACK in time, a move call without a valid
	// choice in time) is retried, each retry announced by a GAME_ERROR
	// with retry_count and max_retries. A decline is not retried. Default
	// 3; [leaguesdk.NoRetries] (or any negative value) for none.
	Retries int
	// RetryDelay is the pause before each retry of a player call, and the
	// first pause between report attempts (which then doubles, up to 30
	// times RetryDelay). Default 2 s.
	RetryDelay time.Duration
	// GameOverTimeout is the deadline of GAME_OVER and GAME_ERROR
	// notifications. Default 5 s.
	GameOverTimeout time.Duration
	// ReportTimeout is the deadline of each MATCH_RESULT_REPORT attempt;
	// the report is retried until the manager acknowledges it or the
	// referee stops. Default 10 s.
	ReportTimeout time.Duration
	// RegisterTimeout is the deadline of each registration attempt.
	// Default 10 s.
	RegisterTimeout time.Duration
	// RegisterRetry is the pause between registration attempts while the
	// manager is not up. Default 2 s.
	RegisterRetry time.Duration
	// ShutdownGrace is how long [Referee.Run] lets in-flight matches finish after its
	// context ends. Default 30 s.
	ShutdownGrace time.Duration
	// DataRoot is the root of the data layer. Default: the [Store]'s data
	// root when Store is set, else [DefaultDataRoot].
	DataRoot string
	// Store, when set, keeps the referee's match transcripts, in the
	// Store's data root, with those of the other referees that share it:
	// the matches that end together share fsyncs. The caller closes it
	// after the referees stop. Default nil: the referee keeps a store of
	// its own on DataRoot and closes it when it stops.
	Store *Store
	// Games are the game types the referee runs. Default [DefaultGames]().
	Games Games
	// Logger receives the referee's log, for people to read (a text
	// handler on stderr, say). Default: discard. The agent log file gets
	// every record as well, unless NoAgentLog is set.
	Logger *slog.Logger
	// NoAgentLog turns off the agent log file. By default (false) the
	// referee writes JSON lines (timestamp, level, agent_id, message,
	// tokens redacted) to DataRoot/logs/agents/<referee_id>.log.jsonl. The
	// file opens when the manager accepts the referee; the lines logged
	// before (the last 1000) are written to it then and carry the
	// name-based sender ("referee:referee_alpha") as agent_id, later lines
	// the referee id. Run closes the file when it returns (Close when [Referee.Run]
	// is not used); a referee that is refused writes no file.
	NoAgentLog bool
	// AgentLogLevel is the least level the agent log file records. The
	// zero value, [slog.LevelInfo], records a line per match (the match
	// accepted, its result) and each refused call, with ids and outcome;
	// [slog.LevelDebug] adds a line per call served and every message sent
	// and received, whole (tokens redacted), at a cost that grows with the
	// messages.
	AgentLogLevel slog.Level
	// Now is the clock. Default [time.Now].
	Now func() time.Time
	// Rand is the random source given to every game. Default crypto/rand.Reader.
	Rand io.Reader
	// HTTPClient, when set, carries the referee's calls to players and
	// the manager (ClientTLS is then unused). Default: a pooled client of
	// leaguesdk. Referees sharing one should let its transport keep, to
	// one host, as many idle connections as they run matches at once
	// ([http.Transport.MaxIdleConnsPerHost]): their reports to the manager
	// come together as a round's matches end, and connections closed past
	// the cap are dialled again the next round.
	HTTPClient *http.Client
}

// withDefaults checks c and fills in its defaults. It reports every
// invalid field at once.
func (c Config) withDefaults() (Config, error) {
	check := agentkit.NewConfigCheck("referee")
	if strings.TrimSpace(c.Name) == "" {
		check.Add("Config.Name is required")
	}
	if c.League == "" {
		check.Add("Config.League (the manager's endpoint) is required")
	} else if !leaguesdk.ValidEndpoint(c.League) {
		check.Add("Config.League %q is not an http(s) URL", c.League)
	}
	if c.Endpoint != "" && !leaguesdk.ValidEndpoint(c.Endpoint) {
		check.Add("Config.Endpoint %q is not an http(s) URL", c.Endpoint)
	}
	if c.MaxConcurrentMatches < 0 {
		check.Add("Config.MaxConcurrentMatches cannot be negative (%d)", c.MaxConcurrentMatches)
	}
	check.Durations(map[string]time.Duration{"JoinTimeout": c.JoinTimeout, "MoveTimeout": c.MoveTimeout,
		"RetryDelay": c.RetryDelay, "GameOverTimeout": c.GameOverTimeout, "ReportTimeout": c.ReportTimeout,
		"RegisterTimeout": c.RegisterTimeout, "RegisterRetry": c.RegisterRetry, "ShutdownGrace": c.ShutdownGrace,
		"BodyTimeout": c.BodyTimeout})
	for t, r := range c.Games {
		if t == "" || r == nil {
			check.Add("Config.Games has an empty game type or nil rules (%q)", t)
		}
	}
	if err := check.Err(); err != nil {
		return c, err
	}
	if c.Version == "" {
		c.Version = leaguesdk.Version
	}
	if c.Addr == "" {
		c.Addr = DefaultAddr
	}
	agentkit.Default(&c.MaxConcurrentMatches, DefaultMaxConcurrentMatches)
	agentkit.Default(&c.JoinTimeout, leaguesdk.DefaultJoinTimeout)
	agentkit.Default(&c.MoveTimeout, leaguesdk.DefaultChoiceTimeout)
	switch {
	case c.Retries == 0:
		c.Retries = DefaultRetries
	case c.Retries < 0:
		c.Retries = 0
	}
	agentkit.Default(&c.RetryDelay, DefaultRetryDelay)
	agentkit.Default(&c.GameOverTimeout, leaguesdk.DefaultGameOverTimeout)
	agentkit.Default(&c.ReportTimeout, leaguesdk.DefaultReportTimeout)
	agentkit.Default(&c.RegisterTimeout, leaguesdk.DefaultRegistrationTimeout)
	agentkit.Default(&c.RegisterRetry, DefaultRegisterRetry)
	agentkit.Default(&c.ShutdownGrace, DefaultShutdownGrace)
	if c.DataRoot == "" && c.Store != nil {
		c.DataRoot = c.Store.t.root
	}
	if c.DataRoot == "" {
		c.DataRoot = DefaultDataRoot
	}
	if len(c.Games) == 0 {
		c.Games = DefaultGames()
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Rand == nil {
		c.Rand = rand.Reader
	}
	return c, nil
}

// Referee runs matches for a league manager: it registers, accepts
// start_match from the manager within its capacity, runs each match as the
// state machine of the protocol and reports each result exactly once.
type Referee struct {
	cfg      Config
	log      *slog.Logger
	agentLog *agentkit.AgentLog // nil with Config.NoAgentLog
	// transcripts keeps the match transcripts durable (store.go).
	transcripts *transcripts
	srv         *leaguesdk.Server
	handler     http.Handler
	client      *leaguesdk.Client // calls to players
	// manager carries calls to the manager. Its circuit breaker is off:
	// reports have their own backoff, and a burst of slow reports must not
	// hold every other report back for the breaker's whole open period.
	manager *leaguesdk.Client
	hub     hub

	// base is the context of every match; Shutdown cancels it when the
	// grace period ends, Close at once.
	base   context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// workers runs the matches and the calls a match makes in parallel on
	// goroutines kept from one match to the next, whose stacks have grown
	// to what a call needs already.
	workers *gopool.Pool
	runner  *agentkit.Lifecycle // Run, Shutdown and Close

	registered chan struct{}

	mu       sync.Mutex
	id       string
	token    string
	leagueID string
	endpoint string
	draining bool
	active   int
	matches  map[string]*match // league_id/match_id → match
}

// New returns a [Referee] configured by cfg, or a *[leaguesdk.ConfigError]
// naming every invalid field.
func New(cfg Config) (*Referee, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	r := &Referee{
		cfg:        cfg,
		registered: make(chan struct{}),
		matches:    map[string]*match{},
		endpoint:   cfg.Endpoint,
	}
	ownStore := cfg.Store == nil
	if ownStore {
		r.transcripts = newTranscripts(cfg.DataRoot)
	} else {
		r.transcripts = cfg.Store.t
	}
	if !cfg.NoAgentLog {
		r.agentLog = agentkit.NewAgentLog(leaguesdk.NameSender("referee", cfg.Name), cfg.AgentLogLevel)
	}
	r.log = r.agentLog.Logger(cfg.Logger)
	r.base, r.cancel = context.WithCancel(context.Background())
	r.workers = gopool.New(0)
	r.client = leaguesdk.NewClient(leaguesdk.ClientConfig{HTTPClient: cfg.HTTPClient, TLSConfig: cfg.ClientTLS,
		// Over a league a referee meets every player again and again: it
		// keeps its connections to each, with no cap on their number,
		// rather than dial the players it met longest ago anew. To one
		// host it keeps as many as it calls at once, two players a match:
		// players served on one host (one process, one gateway) are not
		// dialled anew with each wave of matches.
		MaxIdleConnsPerHost: 2 * cfg.MaxConcurrentMatches, MaxIdleConns: -1, Logger: r.log, Observer: cfg.Observer})
	r.manager = leaguesdk.NewClient(leaguesdk.ClientConfig{HTTPClient: cfg.HTTPClient, TLSConfig: cfg.ClientTLS,
		MaxIdleConnsPerHost: cfg.MaxConcurrentMatches, Logger: r.log, Observer: cfg.Observer,
		Breaker: leaguesdk.BreakerPolicy{Disabled: true}})
	r.srv = leaguesdk.NewServer(leaguesdk.ServerConfig{Name: "league-referee", Version: cfg.Version, BodyTimeout: cfg.BodyTimeout,
		Sender: r.sender, ErrorType: leaguesdk.MsgGameError, Logger: r.log, Now: cfg.Now,
		Middleware: append([]leaguesdk.Middleware{agentkit.LogCalls(r.log)}, ratelimit.Middlewares(cfg.RateLimit, r.identify)...),
		Observer:   cfg.Observer})
	r.addTools()
	r.runner = agentkit.NewLifecycle("referee", func() error {
		r.cancel()
		r.wg.Wait() // the matches aborted by cancel have written their transcripts
		r.workers.Close()
		r.client.Close()
		r.manager.Close()
		var err error
		if ownStore { // a shared Store is closed by its owner
			err = r.transcripts.close()
		}
		if err != nil {
			r.log.Error("cannot make the match transcripts durable", slog.String("error", err.Error()))
		}
		return errors.Join(err, r.agentLog.Close())
	})
	if r.handler, err = agentkit.WithRoutes(r.srv, cfg.Routes); err != nil {
		_ = r.runner.Close()
		return nil, fmt.Errorf("referee: %w", err)
	}
	return r, nil
}

// Handler returns the referee's [http.Handler] (POST /mcp, GET /health). It
// can be mounted in any mux; [Referee.Run] serves it on its own listener.
func (r *Referee) Handler() http.Handler { return r.handler }

// identify returns "league_manager" for a request that carries the token
// the manager issued to this referee, and "" otherwise (players' tokens
// cannot be checked here): rate limiting keys on it.
func (r *Referee) identify(req *leaguesdk.Request) string {
	_, token := r.credentials()
	if req.Envelope != nil && token != "" && leaguesdk.TokensEqual(req.Envelope.AuthToken, token) {
		return leaguesdk.LeagueManagerSender
	}
	return ""
}

// ID returns the referee id the manager assigned ("REF01"), or "" before
// registration.
func (r *Referee) ID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.id
}

// LeagueID returns the league id the manager gave at registration, if any.
func (r *Referee) LeagueID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.leagueID
}

// Registered returns a channel closed once the referee is registered.
func (r *Referee) Registered() <-chan struct{} { return r.registered }

// ActiveMatches returns the number of matches being played now (matches
// whose result is only waiting to be acknowledged do not count).
func (r *Referee) ActiveMatches() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.active
}

// Endpoint returns the contact endpoint the referee announces.
func (r *Referee) Endpoint() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.endpoint
}

func (r *Referee) sender() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.id != "" {
		return leaguesdk.RefereeSender(r.id)
	}
	return leaguesdk.NameSender("referee", r.cfg.Name)
}

func (r *Referee) credentials() (sender, token string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.id == "" {
		return leaguesdk.NameSender("referee", r.cfg.Name), ""
	}
	return leaguesdk.RefereeSender(r.id), r.token
}

// replyCredentials returns the sender and token of a reply to a request
// that presented the token presented: the referee's own token only when the
// caller proved to be the manager that issued it (presented is that token),
// no token for anyone else.
func (r *Referee) replyCredentials(presented string) (sender, token string) {
	sender, token = r.credentials()
	if token == "" || !leaguesdk.TokensEqual(presented, token) {
		token = ""
	}
	return sender, token
}

// Run listens ([Config.Listener], or [Config.Addr]), serves the referee and
// registers it with the manager (see [Referee.Register]), then serves until ctx
// ends, [Referee.Shutdown] or Close is called. When ctx ends it stops accepting
// matches, lets in-flight matches finish for up to [Config.ShutdownGrace]
// (see Shutdown), stops serving and returns nil. It returns a
// [*leaguesdk.RejectedError] when the manager refuses the referee, and any
// other error that keeps the referee from serving (then at once, even
// while the manager is down). Run may be called once, and not after Close
// (it then returns an error at once); it releases what [New] acquired when
// it returns, as Close does.
func (r *Referee) Run(ctx context.Context) error {
	return r.runner.Run(ctx, agentkit.Spec{
		Listener: r.cfg.Listener, Addr: r.cfg.Addr, TLS: r.cfg.TLS, Handler: r.handler,
		Grace: r.cfg.ShutdownGrace, Log: r.log,
		Listening: func(endpoint string) error {
			agentkit.Advertise(&r.mu, &r.endpoint, endpoint)
			if _, err := writeRegistry(r.cfg.DataRoot, r.cfg.Games, r.cfg.Now()); err != nil {
				r.log.Warn("cannot write the games registry", slog.String("error", err.Error()))
			}
			return nil
		},
		Work:  r.Register,
		Drain: r.drain,
	})
}

// Shutdown stops the referee gracefully: it stops accepting matches
// (start_match is then refused with E010) and waits for the in-flight
// matches to finish and their results to be acknowledged, until ctx ends;
// then [Referee.Run], if running, stops serving and returns. Matches still running
// when ctx ends are aborted: each is marked ABORTED in its transcript and
// is not reported at all, so the manager, which never got a result, gives
// it to another referee. A result that was computed but not yet
// acknowledged stays in the transcript and is reported again if the same
// match is assigned to this data root later. Shutdown returns ctx's error
// when ctx ended first (it had to abort).
func (r *Referee) Shutdown(ctx context.Context) error { return r.runner.Shutdown(ctx, r.drain) }

// Close stops [Referee.Run] at once if it is running, aborting the matches in
// progress as a [Referee.Shutdown] whose ctx has ended does, and releases what [New]
// acquired: the context of the matches, the connections to players and the
// manager, and the agent log file. Call it when you serve [Referee.Handler]
// yourself, once you are done; it is safe to call more than once, and
// after Run.
func (r *Referee) Close() error { return r.runner.Close() }

// drain stops accepting matches and waits for the in-flight ones until ctx
// ends, then aborts the rest.
func (r *Referee) drain(ctx context.Context) error {
	r.mu.Lock()
	r.draining = true
	r.mu.Unlock()
	done := make(chan struct{})
	go func() {
		r.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		r.cancel()
		return nil
	case <-ctx.Done():
	}
	r.log.Warn("shutdown grace over; aborting in-flight matches", slog.Int("active", r.ActiveMatches()))
	r.cancel()
	<-done
	return ctx.Err()
}

// Register registers the referee with the manager
// (REFEREE_REGISTER_REQUEST), retrying every [Config.RegisterRetry] while the
// manager cannot be reached (or answers a retryable error), until the
// manager accepts it (the id and token it is given are recorded and
// Registered is closed), refuses it (a [*leaguesdk.RejectedError]), or ctx
// ends; bound it with ctx's deadline to give up sooner. Registering a
// referee that is registered already does nothing. Run calls it; call it
// yourself only when you serve [Referee.Handler] in your own server ([Config.Endpoint]
// must then be set).
func (r *Referee) Register(ctx context.Context) error {
	if r.ID() != "" {
		return nil
	}
	endpoint := r.Endpoint()
	if endpoint == "" {
		return errors.New("referee: no contact endpoint to register: set Config.Endpoint or use Run")
	}
	// A referee registered before from this endpoint (its token is kept
	// under its data root) registers again with its token, and so as itself.
	saved := savedToken(r.cfg.DataRoot, r.cfg.Name, r.cfg.League, endpoint)
	req := &leaguesdk.RefereeRegisterRequest{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgRefereeRegisterRequest, leaguesdk.NameSender("referee", r.cfg.Name),
			saved, "", r.cfg.Now()),
		RefereeMeta: leaguesdk.RefereeMeta{
			DisplayName:          r.cfg.Name,
			Version:              r.cfg.Version,
			GameTypes:            r.cfg.Games.Types(),
			ContactEndpoint:      endpoint,
			MaxConcurrentMatches: r.cfg.MaxConcurrentMatches,
			ProtocolVersion:      leaguesdk.ProtocolVersion,
		},
	}
	var resp *leaguesdk.RefereeRegisterResponse
	err := agentkit.Register(ctx, r.log, r.cfg.RegisterRetry, "referee", func(ctx context.Context) (err error) {
		ctx, cancel := context.WithTimeout(ctx, r.cfg.RegisterTimeout)
		defer cancel()
		resp, err = leaguesdk.CallWith[leaguesdk.RefereeRegisterResponse](ctx, r.manager, r.cfg.League, req,
			leaguesdk.CallOptions{Retry: leaguesdk.Once()})
		return err
	})
	if err != nil {
		if errors.As(err, new(*leaguesdk.RejectedError)) {
			return err
		}
		return fmt.Errorf("referee: register with %s: %w", r.cfg.League, err)
	}
	if !resp.Status.Accepted() {
		reason := string(resp.Reason)
		if resp.Status != leaguesdk.StatusRejected {
			reason = strings.TrimSpace(fmt.Sprintf("unexpected registration status %q %s", resp.Status, reason))
		}
		r.log.Error("registration rejected", slog.String("reason", reason))
		return &leaguesdk.RejectedError{Agent: "referee", Reason: reason}
	}
	if resp.RefereeID == "" {
		return errors.New("referee: registration accepted without a referee_id")
	}
	r.mu.Lock()
	first := r.id == ""
	r.id, r.token, r.leagueID = resp.RefereeID, resp.AuthToken, resp.LeagueID
	r.mu.Unlock()
	if err := r.agentLog.Open(r.cfg.DataRoot, resp.RefereeID); err != nil {
		r.log.Error("agent log not opened", slog.String("error", err.Error()))
	}
	if resp.AuthToken != "" {
		if err := saveRegistration(r.cfg.DataRoot, registrationFile{LastUpdated: leaguesdk.FormatTime(r.cfg.Now()),
			DisplayName: r.cfg.Name, League: r.cfg.League, ContactEndpoint: endpoint, RefereeID: resp.RefereeID,
			LeagueID: resp.LeagueID, AuthToken: resp.AuthToken}); err != nil {
			r.log.Warn("registration not saved: started again, the referee would not register as itself",
				slog.String("error", err.Error()))
		}
	}
	r.log.Info("registered", slog.String("referee_id", resp.RefereeID), slog.String("league_id", resp.LeagueID),
		slog.String("endpoint", endpoint), slog.Any("game_types", r.cfg.Games.Types()),
		slog.String("matches", filepath.Dir(TranscriptPath(r.cfg.DataRoot, resp.LeagueID, "any")))) // where the league's match files go
	if first {
		close(r.registered)
	}
	return nil
}
