package player

import (
	"cmp"
	"crypto/tls"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/agentleague/league/internal/agentkit"
	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player/internal/decide"
	"github.com/agentleague/league/player/internal/playerstore"
)

// Defaults of [Config].
const (
	DefaultAddr          = "127.0.0.1:8101"
	DefaultDataRoot      = "./league-data"
	DefaultSafetyMargin  = 2 * time.Second
	DefaultLearnTimeout  = 2 * time.Second
	DefaultRegisterRetry = 2 * time.Second
	DefaultShutdownGrace = 5 * time.Second
	DefaultFillWait      = 10 * time.Second
)

// Store keeps the histories of players that share it durable with one
// journal, their results sharing fsyncs. Open one with Open of package
// player/store (github.com/agentleague/league/player/store), which
// documents it, hand it to players through [Config.Store], and close it
// after they have stopped.
type Store = playerstore.Store[MatchRecord]

// Config configures an [Agent]. The zero value of every field but Name and
// League means the documented default. The fields an author sets come
// first; the settings of operators and tests follow in a block of their
// own.
type Config struct {
	// Name is the player's display name ("Agent Alpha"). Required.
	Name string
	// League is the league manager's endpoint
	// ("http://127.0.0.1:8000/mcp"). Required.
	League string
	// Strategy chooses the parity. Default: [Random](Rand).
	Strategy Strategy
	// Fallback answers when [Strategy] fails (error, panic, invalid choice,
	// or no answer before the safety margin). Default: [Random](Rand). When
	// the fallback fails too, the [Agent] answers a random choice itself.
	Fallback Strategy
	// Addr is the address [Agent.Run] listens on when Listener is nil.
	// Default "127.0.0.1:8101".
	Addr string
	// Listener, when set, is the listener [Agent.Run] serves on (tests and
	// examples pass one on port 0). Otherwise Run listens on Addr.
	Listener net.Listener
	// Endpoint is the contact endpoint sent to the manager, the URL at
	// which referees reach this player. Default: http(s)://<listen
	// address>/mcp, with an unspecified host (0.0.0.0, ::) replaced by
	// 127.0.0.1. Set it when other machines must reach the player, or when
	// the [Agent.Handler] is mounted in your own server.
	Endpoint string
	// ID is the player id the player asks for ("P01"): until the manager
	// accepts it, every message it sends carries the sender player:<ID>.
	// Managers that key players by sender, with a line-up of ids known in
	// advance, register it under this id. The id the manager assigns in
	// its reply wins. Letters, digits, "_", "-" and "." only, at most 64
	// bytes. Default "": the sender is made from Name ("player:agent_alpha").
	ID string
	// DataRoot is the data root of the league's data layer; the history
	// of each league lives in
	// DataRoot/data/players/<league_id>/<player_id>/history.json, with the
	// player's registration and token (mode 0600), so that a player
	// started again registers as itself (package player/store says how).
	// A history file that cannot be read is logged and left untouched; the
	// player then keeps its history in memory only. Default: the Store's
	// data root when Store is set, else "./league-data".
	DataRoot string
	// Logger receives the agent's log, for people to read (a text handler
	// on stderr, say): at info, short lines of what the player does
	// ("P02 won R1M1 against P01 (even vs odd, 4)"); each call's ids and
	// timings, and whole messages, at debug. Default: discard. The agent
	// log file gets every record as well, unless NoAgentLog is set.
	Logger *slog.Logger
	// GameTypes are the games the player plays. Default ["even_odd"].
	GameTypes []string
	// Version is the player's own version, sent at registration and
	// reported to MCP clients. Default [leaguesdk.Version].
	Version string
	// TLS, when set, makes [Agent.Run] serve HTTPS only with it (its Certificates,
	// and ClientCAs with ClientAuth for mutual TLS); the default Endpoint
	// then starts with https://. Default nil: plain HTTP.
	TLS *tls.Config
	// ClientTLS is the TLS configuration of the player's calls to https://
	// endpoints: RootCAs to trust (nil: the system roots) and the
	// Certificates presented as its client certificate under mutual TLS.
	// [leaguesdk.TLSFiles] builds both from PEM files. Default nil: the
	// system roots, no client certificate.
	ClientTLS *tls.Config
	// SafetyMargin is how long before a call's deadline the strategy's
	// context ends, leaving time for the fallback and the reply. It is
	// capped at a quarter of the time left when the call arrives, so that
	// short deadlines still leave the strategy most of the time.
	// Default 2 s.
	SafetyMargin time.Duration
	// ShutdownGrace is how long [Agent.Run] lets in-flight calls, and a
	// fill of the history from the manager under way, finish when its
	// context ends. Default 5 s.
	ShutdownGrace time.Duration

	// Operator and test settings. A player author needs none of them:
	// their zero values are the defaults a league's players run with.

	// Store, when set, is a store of package player/store (store.Open)
	// that keeps the player's history, in the store's data root, with the
	// histories of the other players that share it: their results share
	// fsyncs. The caller closes it after the players stop. Default nil:
	// the player opens a store of its own on DataRoot when it registers
	// and closes it when [Agent.Run] returns.
	Store *Store
	// NoRegister makes [Agent.Run] serve without registering: the player
	// answers whoever calls it (as a bare [Agent.Handler] does, in the name
	// of the player id each call addresses) and keeps its history in memory
	// only. For a harness that drives players itself: an arena's external
	// players, a conformance kit, tests. League may then be empty.
	// Default false: Run registers.
	NoRegister bool
	// HTTPClient, when set, carries the player's calls to the manager
	// (ClientTLS is then unused): inmem.Network's client, say, to reach
	// a manager of the same process without a socket. Default: a
	// client of leaguesdk.
	HTTPClient *http.Client
	// Observer, when set, is told about every call the player serves and
	// makes (package metrics counts them for Prometheus). Default: none.
	Observer leaguesdk.Observer
	// Routes adds HTTP handlers beside the player's own, keyed by
	// [http.ServeMux] pattern (for example "GET /metrics"). Default: none.
	Routes map[string]http.Handler
	// ChoiceTimeout is the deadline assumed for a parity or move call that
	// names none, counted from its arrival. Default 30 s.
	ChoiceTimeout time.Duration
	// LearnTimeout bounds each call of [Learner.Learn] and
	// [StandingsObserver.ObserveStandings]. Default 2 s.
	LearnTimeout time.Duration
	// RegisterRetry is the pause between registration attempts while the
	// manager cannot be reached. Default 2 s.
	RegisterRetry time.Duration
	// BodyTimeout bounds the time a request's body may take to arrive
	// once its head has ([leaguesdk.ServerConfig.BodyTimeout]): a caller
	// that trickles its body in is cut off then. Default
	// [leaguesdk.DefaultBodyTimeout] (10 s).
	BodyTimeout time.Duration
	// RegisterTimeout bounds each registration attempt. Default 10 s.
	RegisterTimeout time.Duration
	// QueryTimeout bounds each league query of a context without a
	// deadline. Default 10 s.
	QueryTimeout time.Duration
	// FillWait is how long a player whose standings row counts more
	// matches than its history holds waits for the results it is owed
	// (the GAME_OVERs of the matches of that round it is playing or was
	// told of, and those being recorded) before it asks the manager for
	// what is still missing: a round's standings may overtake the
	// player's own GAME_OVER. Default 10 s (twice a referee's GAME_OVER
	// deadline).
	FillWait time.Duration
	// NoAgentLog turns off the agent log file. By default (false) the
	// player writes JSON lines (timestamp, level, agent_id, message,
	// tokens redacted) to DataRoot/logs/agents/<player_id>.log.jsonl. The
	// file opens when the manager accepts the player; the lines logged
	// before (the last 1000) are written to it then and carry the sender
	// used before registration (player:<ID>, else made from Name:
	// "player:agent_alpha") as agent_id, later lines the player id. Run
	// closes the file when it returns, Close when [Agent.Run] is not used; a player that is refused writes no
	// file.
	NoAgentLog bool
	// AgentLogLevel is the least level the agent log file records. The
	// zero value, [slog.LevelInfo], records the short lines of what the
	// player does (as Logger); [slog.LevelDebug] adds one line per call
	// with its ids and outcome, and every message sent and received,
	// whole (tokens redacted), at a cost that grows with the messages.
	AgentLogLevel slog.Level
	// Now is the clock. Default [time.Now].
	Now func() time.Time
	// Rand is the random source of the default strategies and of the
	// last-resort choice. Default crypto/rand.
	Rand io.Reader
}

// withDefaults checks cfg and fills in its defaults. It reports every
// invalid field at once.
func (cfg Config) withDefaults() (Config, error) {
	check := agentkit.NewConfigCheck("player")
	cfg.Name = strings.TrimSpace(cfg.Name)
	if cfg.Name == "" {
		check.Add("Config.Name (the display name) is required")
	}
	cfg.ID = strings.TrimSpace(cfg.ID)
	if cfg.ID != "" && !validID(cfg.ID) {
		check.Add("Config.ID %q is not a valid player id: use 1 to 64 letters, digits, \"_\", \"-\" or \".\"", cfg.ID)
	}
	if cfg.League == "" && !cfg.NoRegister {
		check.Add("Config.League (the manager's endpoint) is required")
	} else if cfg.League != "" && !leaguesdk.ValidEndpoint(cfg.League) {
		check.Add("Config.League %q is not an http(s) URL", cfg.League)
	}
	if cfg.Endpoint != "" && !leaguesdk.ValidEndpoint(cfg.Endpoint) {
		check.Add("Config.Endpoint %q is not an http(s) URL", cfg.Endpoint)
	}
	for _, g := range cfg.GameTypes {
		if strings.TrimSpace(g) == "" {
			check.Add("Config.GameTypes holds an empty game type")
		}
	}
	check.Durations(map[string]time.Duration{"SafetyMargin": cfg.SafetyMargin, "ChoiceTimeout": cfg.ChoiceTimeout,
		"LearnTimeout": cfg.LearnTimeout, "RegisterRetry": cfg.RegisterRetry, "RegisterTimeout": cfg.RegisterTimeout,
		"QueryTimeout": cfg.QueryTimeout, "FillWait": cfg.FillWait, "ShutdownGrace": cfg.ShutdownGrace, "BodyTimeout": cfg.BodyTimeout})
	if err := check.Err(); err != nil {
		return cfg, err
	}
	cfg.Version = cmp.Or(cfg.Version, leaguesdk.Version)
	cfg.Addr = cmp.Or(cfg.Addr, DefaultAddr)
	if len(cfg.GameTypes) == 0 {
		cfg.GameTypes = []string{leaguesdk.GameEvenOdd}
	}
	if cfg.DataRoot == "" && cfg.Store != nil {
		cfg.DataRoot = cfg.Store.Root()
	}
	cfg.DataRoot = cmp.Or(cfg.DataRoot, DefaultDataRoot)
	cfg.Rand = decide.LockedReader(cfg.Rand)
	if cfg.Strategy == nil {
		cfg.Strategy = Random(cfg.Rand)
	}
	if cfg.Fallback == nil {
		cfg.Fallback = Random(cfg.Rand)
	}
	agentkit.Default(&cfg.SafetyMargin, DefaultSafetyMargin)
	agentkit.Default(&cfg.ChoiceTimeout, leaguesdk.DefaultChoiceTimeout)
	agentkit.Default(&cfg.LearnTimeout, DefaultLearnTimeout)
	agentkit.Default(&cfg.RegisterRetry, DefaultRegisterRetry)
	agentkit.Default(&cfg.RegisterTimeout, leaguesdk.DefaultRegistrationTimeout)
	agentkit.Default(&cfg.QueryTimeout, leaguesdk.DefaultQueryTimeout)
	agentkit.Default(&cfg.ShutdownGrace, DefaultShutdownGrace)
	agentkit.Default(&cfg.FillWait, DefaultFillWait)
	cfg.Logger = cmp.Or(cfg.Logger, slog.New(slog.DiscardHandler))
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return cfg, nil
}

// validID reports whether id can be a player id: it goes into a sender
// (player:<id>) and names the player's data directory.
func validID(id string) bool {
	if id == "" || len(id) > 64 || id == "." || id == ".." {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}
