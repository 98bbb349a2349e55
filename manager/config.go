package manager

import (
	"crypto/tls"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"time"

	"github.com/agentleague/league/internal/agentkit"
	"github.com/agentleague/league/internal/ratelimit"
	"github.com/agentleague/league/leaguesdk"
)

// Defaults of [Config].
const (
	DefaultLeagueID           = "league_2025_even_odd"
	DefaultAddr               = "127.0.0.1:8000"
	DefaultDataRoot           = "./league-data"
	DefaultMinPlayers         = 4
	DefaultRegistrationWindow = 60 * time.Second
	DefaultReportTimeout      = 3 * time.Minute
	DefaultStartMatchTimeout  = 10 * time.Second
	DefaultBroadcastTimeout   = 5 * time.Second
	DefaultRetryDelay         = time.Second
	DefaultMaxRetryDelay      = 30 * time.Second
	DefaultShutdownGrace      = 5 * time.Second
	DefaultMaxFails           = 3
	DefaultProbeInterval      = 2 * time.Second
)

// DefaultRateLimit is [Config.RateLimit]'s default: requests per second per
// caller.
const DefaultRateLimit = ratelimit.DefaultPerSecond

// Defaults of the bounds on queries whose answers grow with the league.
const (
	// DefaultScheduleRate is [Config.ScheduleRate]'s default: whole
	// schedules per second per caller.
	DefaultScheduleRate = 1
	// DefaultScheduleBytesPerSecond is [Config.ScheduleBytesPerSecond]'s
	// default.
	DefaultScheduleBytesPerSecond = 4 << 20
)

// Config configures a [Manager]. The zero value of every field means the
// default its comment names. A negative number or duration disables what
// the field's comment says it disables, and is an error elsewhere; [New]
// reports every invalid field at once.
type Config struct {
	// LeagueID names the league. It is also the key of the league's files
	// under DataRoot, so a manager started again with the same LeagueID and
	// DataRoot resumes the league. A league that completed gives way to
	// the next: started on a data root where the league LeagueID names
	// has completed, the manager starts a new league, of the next id of
	// the series LeagueID, LeagueID-2, LeagueID-3… (and resumes the latest
	// of the series while it has not completed), unless ShowCompleted is
	// set. [Manager.LeagueID] says which. Default [DefaultLeagueID]. Letters,
	// digits, '_', '-' and '.' only.
	LeagueID string
	// ShowCompleted keeps the latest league of [Manager.LeagueID]'s series on show
	// when it has completed: the manager serves its standings, dashboard
	// and queries, and refuses registrations, rather than starting the
	// next league. Default false.
	ShowCompleted bool
	// Keep, when positive, keeps only the files of the Keep leagues saved
	// last under DataRoot, the one the manager runs included: [New] removes
	// those of older leagues ([LeagueFiles]: their configuration, the
	// manager's data, the referees' matches, the players' histories, the
	// league log). Default 0: every league's files are kept.
	Keep int
	// GameType is the game the league plays. Default [leaguesdk.GameEvenOdd].
	GameType string
	// Addr is the address [Manager.Run] listens on when Listener is nil. Default
	// [DefaultAddr].
	Addr string
	// Listener, when set, is the listener [Manager.Run] serves on (tests and examples
	// pass one on port 0). Run closes it when it returns.
	Listener net.Listener
	// Endpoint is the manager's endpoint as agents reach it. Default: the
	// /mcp URL of the listener's address.
	Endpoint string
	// TLS, when set, makes [Manager.Run] serve HTTPS only with it (its Certificates,
	// and ClientCAs with ClientAuth for mutual TLS); the default Endpoint
	// then starts with https://. Default nil: plain HTTP.
	TLS *tls.Config
	// ClientTLS is the TLS configuration of the manager's calls to https://
	// endpoints: RootCAs to trust (nil: the system roots) and the
	// Certificates presented as its client certificate under mutual TLS.
	// [leaguesdk.TLSFiles] builds both from PEM files. Default nil: the
	// system roots, no client certificate.
	ClientTLS *tls.Config
	// HTTPClient, when set, carries the manager's calls to referees and
	// players, health probes included (ClientTLS is then unused):
	// inmem.Network's client, say, to reach the agents of the same
	// process without a socket. Default: a client of leaguesdk.
	HTTPClient *http.Client
	// RateLimit is the number of requests per second each caller may make
	// (an agent proven by its token, else a remote address), with bursts of
	// twice as many; a caller over it is answered HTTP 429 with
	// Retry-After and E010 RATE_LIMITED. Default [DefaultRateLimit], which a
	// normal league never reaches; negative disables the limit.
	RateLimit float64
	// ScheduleRate is the number of times per second each caller may ask
	// for the whole league's schedule (GET_SCHEDULE without
	// query_params.player_id), with bursts of twice as many. A caller has
	// one query whose answer grows with the league (that one, GET_STANDINGS,
	// get_standings) answered at a time. A query over either bound is
	// refused at once with E010 RATE_LIMITED (HTTP 429, Retry-After). The
	// queries about one player (GET_SCHEDULE with query_params.player_id,
	// GET_NEXT_MATCH, GET_PLAYER_STATS) are not bounded so. Default
	// [DefaultScheduleRate]; negative: no rate (still one at a time).
	ScheduleRate float64
	// ScheduleBytesPerSecond bounds what the manager spends on answers
	// holding the whole league's schedule (GET_SCHEDULE without a player:
	// some 100 MB at 1000 players), all callers together: one is answered
	// at a time, and the next not before its predecessor's bytes at this
	// rate have passed; a question meanwhile is refused at once with E010.
	// Default [DefaultScheduleBytesPerSecond] (4 MiB/s); negative: no
	// bound (still one at a time).
	ScheduleBytesPerSecond float64
	// Observer, when set, is told about every call the manager serves and
	// makes, and about its durable writes when it is a [WriteObserver]
	// (package metrics counts them for Prometheus). Default: none.
	Observer leaguesdk.Observer
	// Routes adds HTTP handlers beside the manager's own, keyed by
	// [http.ServeMux] pattern (for example "GET /metrics"). Default: none.
	Routes map[string]http.Handler
	// DataRoot is the root of the league's data layer (config/, data/,
	// logs/). Default [DefaultDataRoot].
	DataRoot string
	// MinPlayers starts the league as soon as that many players (and at
	// least one referee) are registered. Default [DefaultMinPlayers]; a
	// negative value disables this trigger, leaving the registration window
	// and start_league.
	MinPlayers int
	// MaxPlayers refuses players beyond this number. Default 0: unlimited.
	MaxPlayers int
	// RegistrationWindow starts the league when it has passed since the
	// manager first opened registration, provided at least two players and
	// a referee are registered (otherwise as soon as they are). Default
	// [DefaultRegistrationWindow]; a negative value disables this trigger.
	RegistrationWindow time.Duration
	// AdminToken authorises start_league calls, which start the league at
	// once, and get_standings calls of the operator. Default "":
	// start_league is refused.
	AdminToken string
	// ReportTimeout is how long a referee may take, after it accepted
	// start_match, to report the match's result before the match is given
	// to another referee. It must exceed what a match can take (join and
	// choice deadlines with their retries). Default [DefaultReportTimeout].
	ReportTimeout time.Duration
	// StartMatchTimeout is the deadline of one start_match call. Default
	// [DefaultStartMatchTimeout].
	StartMatchTimeout time.Duration
	// BroadcastTimeout is the deadline of one broadcast call to one agent
	// (round announcements, standings, completion), retries included.
	// Default [DefaultBroadcastTimeout].
	BroadcastTimeout time.Duration
	// RetryDelay is the first pause before a match that no referee could
	// take is offered again, and how long a referee that failed a call is
	// passed over; the pause doubles up to MaxRetryDelay. Default
	// [DefaultRetryDelay].
	RetryDelay time.Duration
	// MaxRetryDelay bounds RetryDelay's doubling (a value below RetryDelay
	// counts as RetryDelay). Default [DefaultMaxRetryDelay].
	MaxRetryDelay time.Duration
	// ShutdownGrace is how long [Manager.Run] lets in-flight requests finish when its
	// context ends. Default [DefaultShutdownGrace].
	ShutdownGrace time.Duration
	// MaxFails is the number of consecutive failures (unanswered calls,
	// technical losses for not answering, failed probes) after which a
	// SUSPENDED agent is SHUTDOWN. Default [DefaultMaxFails]; a negative
	// value never shuts an agent down (it stays SUSPENDED until it answers).
	MaxFails int
	// ProbeInterval is how often a SUSPENDED agent is probed with GET
	// /health, at most; an answer makes it ACTIVE again. Default
	// [DefaultProbeInterval]; a negative value turns probing off.
	ProbeInterval time.Duration
	// Tiebreakers orders the standings. Default [DefaultTiebreakers]().
	Tiebreakers []Tiebreaker
	// Insecure turns off authentication of agents' messages, for leagues
	// with third-party agents that do not send the tokens they were given.
	// Tokens are still issued and sent. Anyone who can reach the manager can
	// then report results and speak for any agent: use it only on a trusted
	// network. start_league still needs AdminToken. Default false.
	Insecure bool
	// MaxBodyBytes limits request bodies. Default
	// [leaguesdk.DefaultMaxBodyBytes]; negative is an error.
	MaxBodyBytes int64
	// BodyTimeout bounds the time a request's body may take to arrive
	// once its head has ([leaguesdk.ServerConfig.BodyTimeout]): a caller
	// that trickles its body in is cut off then. Default
	// [leaguesdk.DefaultBodyTimeout] (10 s).
	BodyTimeout time.Duration
	// Logger receives the manager's log, for people to read (a text
	// handler on stderr, say). The agent log file gets every record as
	// well, unless NoAgentLog is set. Default: only the file.
	Logger *slog.Logger
	// NoAgentLog turns off the agent log file. By default (false) the
	// manager writes JSON lines (timestamp, level, agent_id, message,
	// tokens redacted) to DataRoot/logs/agents/league_manager.log.jsonl,
	// opened by [New] and closed by [Manager.Close] (or when [Manager.Run] returns). The league's own files
	// (state, standings, the league log) are written either way.
	NoAgentLog bool
	// AgentLogLevel is the least level the agent log file records. The
	// zero value, [slog.LevelInfo], records the league's events (a line per
	// registration, round and result) and each refused call with its ids
	// and outcome; [slog.LevelDebug] adds a line per call served and every
	// message sent and received, whole (tokens redacted), at a cost that
	// grows with the messages.
	AgentLogLevel slog.Level
	// Now is the clock of timestamps and of the registration window (which
	// is kept across a restart as a wall-clock time). Other durations
	// (deadlines, report timeouts, retry pauses) are measured with the
	// monotonic clock. Default [time.Now].
	Now func() time.Time
	// OnEvent, when set, is called for every league event. It is called
	// synchronously from the manager's goroutines, never while the manager
	// holds a lock; it must return quickly and must not call the manager's
	// mutating methods ([Manager.Start]). Reading methods ([Manager.Standings], [Manager.Snapshot]) are fine.
	OnEvent func(Event)
}

var leagueIDPattern = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// withDefaults validates c and fills in its defaults. It reports every
// invalid field at once.
func (c Config) withDefaults() (Config, error) {
	check := agentkit.NewConfigCheck("manager")
	if c.LeagueID == "" {
		c.LeagueID = DefaultLeagueID
	}
	if !leagueIDPattern.MatchString(c.LeagueID) || c.LeagueID == "." || c.LeagueID == ".." {
		check.Add("Config.LeagueID %q may hold only letters, digits, '_', '-' and '.'", c.LeagueID)
	}
	if c.Endpoint != "" && !leaguesdk.ValidEndpoint(c.Endpoint) {
		check.Add("Config.Endpoint %q is not an http(s) URL", c.Endpoint)
	}
	agentkit.Default(&c.MinPlayers, DefaultMinPlayers)
	if c.MinPlayers > 0 && c.MinPlayers < 2 {
		check.Add("Config.MinPlayers must be at least 2 (or negative to disable the trigger)")
	}
	switch {
	case c.MaxPlayers < 0:
		check.Add("Config.MaxPlayers cannot be negative (0 means unlimited)")
	case c.MaxPlayers > 0 && c.MaxPlayers < 2:
		check.Add("Config.MaxPlayers must be at least 2 (0 means unlimited)")
	case c.MaxPlayers > 0 && c.MinPlayers > c.MaxPlayers:
		check.Add("Config.MinPlayers %d exceeds Config.MaxPlayers %d", c.MinPlayers, c.MaxPlayers)
	}
	if c.MaxBodyBytes < 0 {
		check.Add("Config.MaxBodyBytes cannot be negative (%d)", c.MaxBodyBytes)
	}
	if c.Keep < 0 {
		check.Add("Config.Keep cannot be negative (%d; 0 keeps every league)", c.Keep)
	}
	check.Durations(map[string]time.Duration{"ReportTimeout": c.ReportTimeout, "StartMatchTimeout": c.StartMatchTimeout,
		"BroadcastTimeout": c.BroadcastTimeout, "RetryDelay": c.RetryDelay, "MaxRetryDelay": c.MaxRetryDelay,
		"ShutdownGrace": c.ShutdownGrace, "BodyTimeout": c.BodyTimeout})
	for _, t := range c.Tiebreakers {
		if !t.valid() {
			check.Add("Config.Tiebreakers holds the unknown tiebreaker %q (use points, wins, draws, head_to_head, player_id)", t)
		}
	}
	if err := check.Err(); err != nil {
		return c, err
	}
	if c.GameType == "" {
		c.GameType = leaguesdk.GameEvenOdd
	}
	if c.Addr == "" {
		c.Addr = DefaultAddr
	}
	if c.DataRoot == "" {
		c.DataRoot = DefaultDataRoot
	}
	agentkit.Default(&c.RegistrationWindow, DefaultRegistrationWindow)
	agentkit.Default(&c.ReportTimeout, DefaultReportTimeout)
	agentkit.Default(&c.StartMatchTimeout, DefaultStartMatchTimeout)
	agentkit.Default(&c.BroadcastTimeout, DefaultBroadcastTimeout)
	agentkit.Default(&c.RetryDelay, DefaultRetryDelay)
	agentkit.Default(&c.MaxRetryDelay, DefaultMaxRetryDelay)
	if c.MaxRetryDelay < c.RetryDelay {
		c.MaxRetryDelay = c.RetryDelay
	}
	agentkit.Default(&c.ShutdownGrace, DefaultShutdownGrace)
	agentkit.Default(&c.MaxFails, DefaultMaxFails)
	agentkit.Default(&c.ProbeInterval, DefaultProbeInterval)
	agentkit.Default(&c.ScheduleRate, DefaultScheduleRate)
	agentkit.Default(&c.ScheduleBytesPerSecond, DefaultScheduleBytesPerSecond)
	if len(c.Tiebreakers) == 0 {
		c.Tiebreakers = DefaultTiebreakers()
	}
	agentkit.Default(&c.MaxBodyBytes, leaguesdk.DefaultMaxBodyBytes)
	if c.Now == nil {
		c.Now = time.Now
	}
	return c, nil
}

// EventKind names a league event.
type EventKind string

// The events a [Manager] reports through [Config.OnEvent].
const (
	EventRefereeRegistered    EventKind = "referee_registered"
	EventPlayerRegistered     EventKind = "player_registered"
	EventRegistrationRejected EventKind = "registration_rejected"
	EventLeagueStarted        EventKind = "league_started"
	EventRoundStarted         EventKind = "round_started"
	EventMatchAssigned        EventKind = "match_assigned"
	EventMatchReassigned      EventKind = "match_reassigned"
	EventMatchResult          EventKind = "match_result"
	// EventRoundCompleted comes after the [EventMatchResult] of each of the
	// round's matches this [Manager] recorded (results recorded before a
	// restart have theirs in the earlier run).
	EventRoundCompleted  EventKind = "round_completed"
	EventLeagueCompleted EventKind = "league_completed"
	EventWarning         EventKind = "warning"
	// EventAgentState is a change of an agent's lifecycle state; its
	// [Event.Transition] says from what, to what and why.
	EventAgentState EventKind = "agent_state"
	// EventSecurity is a refused message that looks like an attempt to
	// forge: a match report that contradicts what the manager knows of the
	// match, or that arrives when no report is awaited.
	EventSecurity EventKind = "security"
)

// Event is something that happened in the league. Only the fields of its
// kind are set; Message is a sentence for a person in every event.
type Event struct {
	Kind    EventKind
	Time    time.Time
	RoundID int
	MatchID string
	// AgentID, DisplayName and Endpoint describe a registration.
	AgentID, DisplayName, Endpoint string
	// PlayerA, PlayerB and RefereeID describe a match.
	PlayerA, PlayerB, RefereeID string
	// Result is the recorded result of a match_result event; its details
	// carry the choices and the drawn number.
	Result *leaguesdk.MatchResult
	// Standings is the table after a round_completed or league_completed event.
	Standings []leaguesdk.StandingRow
	// Champion is the winner, in a league_completed event.
	Champion *leaguesdk.Champion
	// Transition is the change of an agent_state event.
	Transition *Transition
	// Message describes the event.
	Message string
}
