package player

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/agentleague/league/internal/agentkit"
	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player/internal/decide"
)

// Agent is a league player: it serves the player side of the protocol,
// registers with the league manager, asks its [Strategy] for each choice and
// keeps its history. Create one with [New]; serve it with [Agent.Run], or mount
// [Agent.Handler] in your own server and call [Agent.Register]. It is safe for
// concurrent use.
type Agent struct {
	cfg      Config
	log      *slog.Logger
	agentLog *agentkit.AgentLog // nil with Config.NoAgentLog
	client   *leaguesdk.Client
	srv      *leaguesdk.Server
	handler  http.Handler
	history  *memory
	counts   decide.Counts // Decisions

	gaps       gapFiller           // fills of the history from the manager (gapfill.go)
	runner     *agentkit.Lifecycle // Run, Shutdown and Close
	registered chan struct{}
	regOnce    sync.Once
	// attempt, while a registration request is under way, is closed when
	// it has failed or its reply has been read: a round announcement that
	// comes meanwhile (the manager starts the league when the last player
	// registers) waits for it (register.go).
	attempt atomic.Pointer[chan struct{}]

	mu        sync.Mutex
	id        string
	token     string
	leagueID  string
	endpoint  string
	matches   map[string]*matchState // matches in progress, by match id
	announced map[string]bool        // matches the manager announced with the player in them, by match id
	standings standingsTable         // the latest table (standings.go)
	lastRound int
	// myStanding is the player's row of the latest standings update.
	myStanding *leaguesdk.StandingRow
	// recording counts the GAME_OVERs being recorded; settled is closed
	// (and made anew) when one is (gapfill.go, settling).
	recording int
	settled   chan struct{}
}

// New returns an [Agent] configured by cfg, or a *[leaguesdk.ConfigError]
// naming every invalid field.
func New(cfg Config) (*Agent, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	a := &Agent{
		cfg:        cfg,
		registered: make(chan struct{}),
		history:    newMemory(),
		endpoint:   cfg.Endpoint,
		matches:    map[string]*matchState{},
		announced:  map[string]bool{},
		settled:    make(chan struct{}),
	}
	if !cfg.NoAgentLog {
		a.agentLog = agentkit.NewAgentLog(a.sender(), cfg.AgentLogLevel)
	}
	a.log = a.agentLog.Logger(cfg.Logger)
	if a.endpoint == "" && cfg.Listener != nil {
		a.endpoint = agentkit.EndpointFor(cfg.Listener.Addr(), cfg.TLS != nil)
	}
	// The player calls only its manager, and must keep trying to register
	// while the manager is down: a circuit breaker would only delay that.
	a.client = leaguesdk.NewClient(leaguesdk.ClientConfig{
		Timeout:   cfg.QueryTimeout,
		Breaker:   leaguesdk.BreakerPolicy{Disabled: true},
		TLSConfig: cfg.ClientTLS,
		Logger:    a.log,
		Observer:  cfg.Observer,
		// Set, it carries the calls (ClientTLS unused).
		HTTPClient: cfg.HTTPClient,
	})
	a.srv = leaguesdk.NewServer(leaguesdk.ServerConfig{
		Name:        "league-player",
		Version:     cfg.Version,
		BodyTimeout: cfg.BodyTimeout,
		Sender:      a.sender,
		ErrorType:   leaguesdk.MsgGameError,
		Logger:      a.log,
		Now:         cfg.Now,
		Observer:    cfg.Observer,
		// Info lines for a person (LogOutcome's); each call's ids at debug.
		Middleware: []leaguesdk.Middleware{agentkit.LogCallsForPeople(a.log)},
		Unknown:    a.onUnknown,
		// Referees of other implementations read only bare replies.
		FlatDialect: true,
	})
	a.addTools()
	a.runner = agentkit.NewLifecycle("player", func() error {
		a.gaps.close()            // the fill of the history under way, if any
		a.history.records.Close() // history.json complete, the player's own store closed
		a.client.Close()
		return a.agentLog.Close()
	})
	routed, err := agentkit.WithRoutes(a.srv, cfg.Routes)
	if err != nil {
		_ = a.runner.Close()
		return nil, fmt.Errorf("player: %w", err)
	}
	a.handler = handler{Handler: routed, a: a}
	return a, nil
}

// Handler returns the agent's HTTP handler: POST /mcp for the protocol and
// GET /health. Mount it in your own server to serve the player yourself
// (then set [Config.Endpoint] and call [Agent.Register]).
func (a *Agent) Handler() http.Handler { return a.handler }

// ID returns the player id the manager assigned, or "" before registration.
func (a *Agent) ID() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.id
}

// LeagueID returns the id of the league the player joined, if the manager
// named it.
func (a *Agent) LeagueID() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.leagueID
}

// Registered returns a channel that is closed when the manager accepts the
// player.
func (a *Agent) Registered() <-chan struct{} { return a.registered }

// Endpoint returns the contact endpoint the player advertises, or "" while
// it is not known (before [Agent.Run] listens on an address with port 0).
func (a *Agent) Endpoint() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.endpoint
}

// History returns a snapshot of the player's finished matches.
func (a *Agent) History() History { return a.history.snapshot() }

// sender is the envelope sender: player:<id> once registered; before,
// player:<Config.ID> when set, else made from the display name.
func (a *Agent) sender() string {
	if id := a.ID(); id != "" {
		return leaguesdk.PlayerSender(id)
	}
	if a.cfg.ID != "" {
		return leaguesdk.PlayerSender(a.cfg.ID)
	}
	return leaguesdk.NameSender("player", a.cfg.Name)
}

// credentials returns the player's id and token.
func (a *Agent) credentials() (id, token string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.id, a.token
}

// Run listens ([Config.Listener], or [Config.Addr]), serves the player and
// registers it with the manager (see [Agent.Register]; not with
// [Config.NoRegister]), then serves until ctx
// ends, [Agent.Shutdown] or Close is called. When ctx ends it lets in-flight calls
// finish for up to [Config.ShutdownGrace]. It returns nil after a clean
// stop, a [*leaguesdk.RejectedError] when the manager refuses the player,
// and any other error that keeps the player from serving. Run may be
// called once, and not after Close (it then returns an error at once); it
// releases what [New] acquired when it returns, as Close does.
func (a *Agent) Run(ctx context.Context) error {
	work := a.Register
	if a.cfg.NoRegister {
		work = nil // serve only
	}
	return a.runner.Run(ctx, agentkit.Spec{
		Listener: a.cfg.Listener, Addr: a.cfg.Addr, TLS: a.cfg.TLS, Handler: a.handler,
		Grace: a.cfg.ShutdownGrace, Log: a.log,
		Listening: func(endpoint string) error {
			endpoint = agentkit.Advertise(&a.mu, &a.endpoint, endpoint)
			a.log.Info("player serving", slog.String("endpoint", endpoint), slog.String("name", a.cfg.Name))
			return nil
		},
		Work:  work,
		Drain: a.gaps.drain, // a fill of the history under way finishes within the grace (gapfill.go)
		Stopped: func(err error) {
			if err == nil {
				a.log.Info("player stopped")
			}
		},
	})
}

// Shutdown stops the player gracefully: Run stops serving, letting
// in-flight calls and a fill of its history from the manager under way
// (results it missed, taken after LEAGUE_COMPLETED) finish until ctx
// ends, and returns. Shutdown waits for that and returns ctx's error when
// ctx ended first. For a player whose [Agent.Handler] you serve yourself
// it waits for that fill only.
func (a *Agent) Shutdown(ctx context.Context) error { return a.runner.Shutdown(ctx, a.gaps.drain) }

// Close stops [Agent.Run] at once if it is running (in-flight calls are cut off)
// and releases what [New] acquired: the connections to the manager, the
// agent log file and the history's journal (history.json is written
// complete first). Call it when you serve [Agent.Handler] yourself, once you are
// done; it is safe to call more than once, and after Run.
func (a *Agent) Close() error { return a.runner.Close() }
