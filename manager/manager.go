package manager

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentleague/league/internal/agentkit"
	"github.com/agentleague/league/internal/dashboard"
	"github.com/agentleague/league/internal/gopool"
	"github.com/agentleague/league/internal/journal"
	"github.com/agentleague/league/internal/ratelimit"
	"github.com/agentleague/league/leaguesdk"
)

// Manager runs one league: it registers referees and players, schedules
// the round-robin, hands matches to referees, records their results, keeps
// the standings, answers queries and keeps everything it needs to resume
// under its data root. It is safe for concurrent use.
type Manager struct {
	cfg      Config
	series   string // the configured league id: the series cfg.LeagueID is of
	log      *slog.Logger
	store    store
	events   *eventLog
	assigned *journal.Journal   // the assignment journal, assignments.jsonl
	roundLog *journal.Journal   // rounds started and completed, rounds.jsonl
	results  *journal.Journal   // the results journal, results.jsonl
	life     *lifecycle         // lifecycle.go: the agents' states
	agentLog *agentkit.AgentLog // nil with Config.NoAgentLog
	srv      *leaguesdk.Server
	client   *leaguesdk.Client
	tokens   agentkit.Tokens
	handler  http.Handler

	// persistMu serialises the changes of state.json: it is taken before mu
	// and held until the new state is on disk, so files are written in the
	// order the changes were made.
	persistMu sync.Mutex
	// admissions holds the registrations waiting to share the next save
	// of state.json (registry.go, admit).
	admissions admissionQueue
	// announcing is read-held by a report's handler from before its result
	// is recorded until its EventMatchResult is out, and held by
	// completeRound while it emits EventRoundCompleted: a round's
	// completion follows the result event of each of its matches
	// (results.go, league.go).
	announcing sync.RWMutex
	// standingsMu and roundsMu serialise writes of standings.json and
	// rounds.json (queries.go).
	standingsMu      sync.Mutex
	roundsMu         sync.Mutex
	standingsVersion int

	mu              sync.Mutex
	status          LeagueStatus
	endpoint        string
	openedAt        time.Time
	startedAt       *time.Time
	completedAt     *time.Time
	registry        // registry.go: the registered agents
	rounds          [][]*match
	matchByID       map[string]*match // the matches matchLocked does not find by their ids' places
	roundTimes      []roundTimes
	roundsCompleted int
	currentRound    int
	records         []*match // finished matches, in the order their results were recorded
	cache           standingsCache
	champion        *leaguesdk.Champion
	viewTables      viewTables // the viewer's standings after a round (view.go)
	updatedAt       time.Time

	calls sync.WaitGroup // start_match calls in flight
	// workers runs the start_match calls and the calls of broadcasts on
	// goroutines kept from one to the next, whose stacks have grown to
	// what a call needs already.
	workers    *gopool.Pool
	bg         sync.WaitGroup // journal appends nobody waits for
	wake       chan struct{}  // something changed that the league loop waits for
	viewsDirty int            // views to write (viewStandings, viewRounds); guarded by mu
	viewsWake  chan struct{}  // wakes viewWriter
	done       chan struct{}
	doneOnce   sync.Once
	completion completion          // LEAGUE_COMPLETED's redelivery (league.go); guarded by mu
	runner     *agentkit.Lifecycle // Run, Shutdown and Close
	clk        clock               // clock.go; nil: the system clock

	// sharedEncodes counts the broadcasts encoded once (standings.go).
	sharedEncodes atomic.Int64

	// gate bounds the queries whose answers grow with the league, and
	// schedule keeps the whole schedule's answer (bigqueries.go).
	gate     *queryGate
	schedule scheduleCache
	// byPlayer lists each player's matches, in the schedule's order
	// (GET_SCHEDULE of one player); guarded by mu.
	byPlayer map[string][]*match
}

// referee is a registered referee and its load.
type referee struct {
	agentRecord
	active    int       // matches given to it and not yet finished
	downUntil time.Time // passed over until then, after a failed call
	failures  int       // consecutive failed calls
}

// match is a scheduled match and where it stands.
type match struct {
	scheduledMatch                       // RefereeID: the referee planned at the round's start
	status         leaguesdk.MatchStatus // leaguesdk.MatchPending, matchStarting, leaguesdk.MatchRunning, leaguesdk.MatchFinished
	assignees      assignees             // every referee the match was given to (kept in the journal); their reports are accepted
	run            *matchRun             // the attempts under way; nil before the first and once the result is recorded
	record         *recorded             // the recorded result (recorded.go)
}

// matchRun is what the manager keeps of a match's attempts while it is
// being played. It lives apart from the match, from the first attempt to
// the recorded result: a league holds n²/2 matches for its whole life
// (499 500 at 1000 players), a round's worth of them are being played at a
// time.
type matchRun struct {
	recording sync.Mutex      // held while the match's result is written
	referee   string          // the referee holding the match now, while starting or running
	attempt   int             // the number of the latest assignment, 0 before the first
	excluded  map[string]bool // referees that failed this match; nil until the first
	deadline  time.Time       // when the holding referee must have reported
	notBefore time.Time       // no new attempt before then
	backoff   time.Duration
}

// live returns mt's attempts, made on first use.
func (mt *match) live() *matchRun {
	if mt.run == nil {
		mt.run = &matchRun{}
	}
	return mt.run
}

// holder returns the referee holding mt now, "" when none does.
func (mt *match) holder() string {
	if mt.run == nil {
		return ""
	}
	return mt.run.referee
}

// attempts returns the number of mt's latest assignment, 0 before the first.
func (mt *match) attempts() int {
	if mt.run == nil {
		return 0
	}
	return mt.run.attempt
}

// shown returns the referee and the status mt is shown with: the referee
// that reported and FINISHED once recorded, RUNNING while it is being
// given out (STARTING, RESUMING), else the planned referee and its status.
func (mt *match) shown() (string, leaguesdk.MatchStatus) {
	switch {
	case mt.record != nil:
		return mt.record.referee.Value(), leaguesdk.MatchFinished
	case mt.status == matchStarting, mt.status == matchResuming:
		return mt.RefereeID, leaguesdk.MatchRunning
	}
	return mt.RefereeID, mt.status
}

// excludes reports whether referee id failed mt.
func (mt *match) excludes(id string) bool { return mt.run != nil && mt.run.excluded[id] }

// assignees is the set of referees a match was given to. Most matches
// are given to one referee, and a league holds n²/2 matches for its whole
// life: the first is kept in place, without a slice of its own.
type assignees struct {
	first string
	more  *[]string // the others, in order; nil while there are none
}

// String lists the referees, for messages.
func (a assignees) String() string { return fmt.Sprint(a.all()) }

// all returns the referees in the order the match was given to them.
func (a assignees) all() []string {
	if a.first == "" {
		return nil
	}
	out := []string{a.first}
	if a.more != nil {
		out = append(out, *a.more...)
	}
	return out
}

// assign records that mt was given to referee id.
func (mt *match) assign(id string) {
	a := &mt.assignees
	switch {
	case id == "", mt.assigned(id):
	case a.first == "":
		a.first = id
	case a.more == nil:
		a.more = &[]string{id}
	default:
		*a.more = append(*a.more, id)
	}
}

// assigned reports whether mt was ever given to referee id.
func (mt *match) assigned(id string) bool {
	a := &mt.assignees
	return id != "" && (a.first == id || a.more != nil && slices.Contains(*a.more, id))
}

// exclude records that referee id failed mt.
func (mt *match) exclude(id string) {
	r := mt.live()
	if r.excluded == nil {
		r.excluded = make(map[string]bool, 1)
	}
	r.excluded[id] = true
}

// Statuses of a match the manager has under way, besides the protocol's.
const (
	matchStarting leaguesdk.MatchStatus = "STARTING" // start_match (or, on resume, the question to its referee) in flight
	matchResuming leaguesdk.MatchStatus = "RESUMING" // given out before a restart; its referee is to be asked about it
)

// standingsCache keeps each player's tally up to date one record at a
// time, and the ranked table as of the last time it was asked for, so that
// neither costs a pass over every result of the league.
type standingsCache struct {
	n       int // records applied to tallies; -1 = rebuild
	players int // players the tallies were made for
	tallies map[string]*tally
	rowsN   int // records the rows were ranked from; -1 = rank again
	rows    []leaguesdk.StandingRow
}

// New returns a [Manager] configured by cfg, or a *[leaguesdk.ConfigError]
// naming every invalid field. When the data root holds the
// state of the same league, the manager resumes it: registered agents keep
// their ids and tokens, recorded results stay, and the league continues
// from its first unfinished round when [Manager.Run] is called. When that league has
// completed, the manager runs the next league of its series instead,
// unless cfg.ShowCompleted is set (see [Config.LeagueID] and
// [Manager.LeagueID]); with cfg.Keep, the files of older leagues are removed.
func New(cfg Config) (*Manager, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	configured := cfg.LeagueID
	if cfg.LeagueID, err = leagueToRun(cfg.DataRoot, cfg.LeagueID, cfg.ShowCompleted); err != nil {
		return nil, fmt.Errorf("manager: data root: %w", err)
	}
	m := &Manager{
		cfg:       cfg,
		series:    configured,
		store:     store{root: cfg.DataRoot, league: cfg.LeagueID, observe: observeWrites(cfg.Observer)},
		status:    StatusRegistering,
		registry:  newRegistry(),
		matchByID: map[string]*match{},
		wake:      make(chan struct{}, 1),
		workers:   gopool.New(0),
		viewsWake: make(chan struct{}, 1),
		done:      make(chan struct{}),
		cache:     standingsCache{n: -1, rowsN: -1},
		gate:      newQueryGate(cfg.ScheduleRate, cfg.ScheduleBytesPerSecond, cfg.Now),
	}
	if err := os.MkdirAll(cfg.DataRoot, 0o755); err != nil {
		return nil, fmt.Errorf("manager: data root: %w", err)
	}
	if !cfg.NoAgentLog {
		// The manager's id in the data layer is its sender:
		// logs/agents/league_manager.log.jsonl.
		m.agentLog = agentkit.NewAgentLog(leaguesdk.LeagueManagerSender, cfg.AgentLogLevel)
		if err := m.agentLog.Open(cfg.DataRoot, leaguesdk.LeagueManagerSender); err != nil {
			return nil, fmt.Errorf("manager: agent log: %w", err)
		}
	}
	m.log = m.agentLog.Logger(cfg.Logger)
	if cfg.LeagueID != configured {
		m.log.Info("the league of this id has completed on this data root: a new league starts (-show-completed, Config.ShowCompleted, shows the completed one)",
			slog.String("configured", configured), slog.String("league_id", cfg.LeagueID))
	}
	if removed, err := PruneLeagues(cfg.DataRoot, cfg.Keep, cfg.LeagueID); err != nil {
		m.log.Warn("older leagues not all removed", slog.String("error", err.Error()))
	} else if len(removed) > 0 {
		m.log.Info("older leagues' files removed", slog.Int("keep", cfg.Keep), slog.Any("leagues", removed))
	}
	if m.events, err = openEventLog(m.store.leagueLogPath()); err != nil {
		m.agentLog.Close()
		return nil, fmt.Errorf("manager: league log: %w", err)
	}
	if m.life, err = openLifecycle(m.store, cfg.MaxFails); err != nil {
		m.closeFiles()
		return nil, fmt.Errorf("manager: lifecycle journal: %w", err)
	}
	if err := m.restore(); err != nil {
		m.closeFiles()
		return nil, err
	}
	m.life.adopt(m.allAgentIDsLocked(), m.status) // lifecycle.go: agents of a league kept without the journal
	var assignments []assignment
	if m.assigned, assignments, err = m.store.openAssignments(); err != nil {
		m.closeFiles()
		return nil, fmt.Errorf("manager: assignment journal: %w", err)
	}
	m.restoreAssignments(assignments)
	var roundEvents []roundEvent
	if m.roundLog, roundEvents, err = m.store.openRounds(); err != nil {
		m.closeFiles()
		return nil, fmt.Errorf("manager: round journal: %w", err)
	}
	m.restoreRounds(roundEvents)
	if m.results, err = m.store.openResults(); err != nil {
		m.closeFiles()
		return nil, fmt.Errorf("manager: results journal: %w", err)
	}
	m.endpoint = cfg.Endpoint
	m.updatedAt = cfg.Now()
	m.client = leaguesdk.NewClient(leaguesdk.ClientConfig{
		Timeout:   cfg.BroadcastTimeout,
		TLSConfig: cfg.ClientTLS,
		// A connection kept to every agent: each round calls all of them.
		MaxIdleConns: -1,
		// And as many to one agent as it is called at once: a referee is
		// given up to its max_concurrent_matches start_match calls
		// together each round, and closing what a round opened past a
		// smaller cap would have the next round dial them again.
		MaxIdleConnsPerHost: maxIdlePerAgent,
		Retry:               leaguesdk.RetryPolicy{MaxRetries: 2, Delay: min(500*time.Millisecond, cfg.BroadcastTimeout/4)},
		Logger:              m.log,
		Observer:            cfg.Observer,
		// Set, it carries the calls (ClientTLS unused).
		HTTPClient: cfg.HTTPClient,
	})
	m.srv = leaguesdk.NewServer(leaguesdk.ServerConfig{
		Name:         "league-manager",
		Sender:       func() string { return leaguesdk.LeagueManagerSender },
		Authorize:    m.authorize,
		MaxBodyBytes: cfg.MaxBodyBytes,
		BodyTimeout:  cfg.BodyTimeout,
		Logger:       m.log,
		Now:          cfg.Now,
		Middleware:   m.middlewares(),
		Observer:     cfg.Observer,
	})
	m.addTools()
	if m.handler, err = agentkit.WithRoutes(m.newHandler(), cfg.Routes); err != nil {
		m.client.Close()
		m.closeFiles()
		return nil, fmt.Errorf("manager: %w", err)
	}
	m.runner = agentkit.NewLifecycle("manager", func() error {
		m.client.Close()
		return m.closeFiles()
	})
	return m, nil
}

// middlewares returns the server's middleware: the calls' log, the rate
// limit per caller and, unless either is off, the bound on strangers
// (bigqueries.go).
func (m *Manager) middlewares() []leaguesdk.Middleware {
	mw := append([]leaguesdk.Middleware{agentkit.LogCalls(m.log)}, ratelimit.Middlewares(m.cfg.RateLimit, m.identify)...)
	if m.cfg.RateLimit >= 0 && !m.cfg.Insecure {
		mw = append(mw, m.strangerLimit())
	}
	return mw
}

// identify returns the agent a request proves it comes from, by the token
// the manager issued to its sender, or "" (rate limiting keys on it). An
// agent started again registers with the token it was issued under the
// sender it had before registration: the token alone proves it, so that
// strangers flooding from the same address do not hold up its return.
func (m *Manager) identify(req *leaguesdk.Request) string {
	if req.Envelope == nil || req.Envelope.AuthToken == "" {
		return ""
	}
	id, err := m.tokens.Verify(req.Envelope.Sender, req.Envelope.AuthToken)
	if err != nil {
		switch req.Envelope.MessageType {
		case leaguesdk.MsgLeagueRegisterRequest, leaguesdk.MsgRefereeRegisterRequest:
			if owner, ok := m.tokens.Owner(req.Envelope.AuthToken); ok {
				return owner
			}
		}
		return ""
	}
	return id
}

// observeWrites returns the function that tells o about durable writes,
// or nil when o does not want to know.
func observeWrites(o leaguesdk.Observer) func(WriteEvent) {
	if w, ok := o.(WriteObserver); ok {
		return w.ObserveWrite
	}
	return nil
}

// restore loads the league's state and results from the data root, if any.
func (m *Manager) restore() error {
	st, err := m.store.loadState()
	if err != nil {
		return fmt.Errorf("manager: resume: %w", err)
	}
	if st == nil {
		m.openedAt = m.cfg.Now()
		return nil
	}
	if st.GameType != "" && st.GameType != m.cfg.GameType {
		return fmt.Errorf("manager: league %s under %s plays %s, not %s", m.cfg.LeagueID, m.cfg.DataRoot, st.GameType, m.cfg.GameType)
	}
	m.status, m.openedAt, m.startedAt, m.completedAt = st.Status, st.OpenedAt, st.StartedAt, st.CompletedAt
	m.nextPlayer, m.nextReferee = max(st.NextPlayer, 1), max(st.NextReferee, 1)
	for _, r := range st.Referees {
		ref := &referee{agentRecord: r}
		m.referees = append(m.referees, ref)
		m.refByID[r.ID] = ref
		m.endpoints[r.Endpoint] = r.ID
		m.tokens.Bind(r.ID, r.AuthToken)
	}
	for i := range st.Players {
		p := st.Players[i]
		m.players = append(m.players, &p)
		m.playerByID[p.ID] = &p
		m.endpoints[p.Endpoint] = p.ID
		m.tokens.Bind(p.ID, p.AuthToken)
	}
	m.setSchedule(st.Rounds)
	m.roundTimes = st.RoundTimes
	m.roundsCompleted = st.RoundsCompleted
	m.champion = st.Champion
	records, err := LoadResults(m.cfg.DataRoot, m.cfg.LeagueID)
	if err != nil {
		return fmt.Errorf("manager: resume: %w", err)
	}
	for _, rec := range records {
		mt := m.matchLocked(rec.MatchID)
		if mt == nil || mt.PlayerA != rec.PlayerA || mt.PlayerB != rec.PlayerB {
			m.log.Warn("recorded result does not match the schedule; ignored", slog.String("match_id", rec.MatchID))
			continue
		}
		mt.record, mt.status = compactRecord(&rec), leaguesdk.MatchFinished
		m.records = append(m.records, mt)
	}
	m.log.Info("league resumed", slog.String("league_id", m.cfg.LeagueID), slog.String("status", string(m.status)),
		slog.Int("referees", len(m.referees)), slog.Int("players", len(m.players)),
		slog.Int("rounds_completed", m.roundsCompleted), slog.Int("results", len(m.records)))
	return nil
}

// restoreAssignments reads the assignment journal: every referee a match
// was given to stays one whose report is accepted, attempts keep counting,
// and a match given out and not recorded is resumed with the referee it
// was last given to (dispatch asks that referee about it first).
func (m *Manager) restoreAssignments(as []assignment) {
	for _, a := range as {
		mt := m.matchLocked(a.MatchID)
		if mt == nil || m.refByID[a.RefereeID] == nil {
			continue
		}
		mt.assign(a.RefereeID)
		if r := mt.live(); a.Attempt >= r.attempt {
			r.attempt, r.referee = a.Attempt, a.RefereeID
		}
	}
	for mt := range m.allMatches() {
		if mt.record != nil {
			mt.run = nil
			continue
		}
		if mt.holder() == "" {
			continue
		}
		mt.status = matchResuming
		m.refByID[mt.holder()].active++
	}
}

// restoreRounds applies the round journal to the round times state.json
// gave: the rounds started and completed since the file was last written.
func (m *Manager) restoreRounds(events []roundEvent) {
	for _, e := range events {
		if e.RoundID > len(m.roundTimes) {
			continue
		}
		t := &m.roundTimes[e.RoundID-1]
		if e.StartedAt != nil && t.StartedAt == nil {
			t.StartedAt = e.StartedAt
		}
		if e.CompletedAt != nil {
			if t.CompletedAt == nil {
				t.CompletedAt = e.CompletedAt
			}
			m.roundsCompleted = max(m.roundsCompleted, e.RoundID)
		}
	}
}

// recordRound applies a round's start or completion and appends it to the
// round journal without waiting for its fsync: nothing is acknowledged on
// the strength of it. A round whose record a crash lost is started or
// completed again on resume, which repeats its announcements only.
func (m *Manager) recordRound(e roundEvent) {
	m.mu.Lock()
	m.restoreRounds([]roundEvent{e})
	m.updatedAt = m.cfg.Now()
	m.mu.Unlock()
	m.bg.Add(1)
	go func() {
		defer m.bg.Done()
		if err := m.roundLog.Append(context.Background(), e); err != nil {
			m.log.Error("cannot record the round", slog.Int("round_id", e.RoundID), slog.String("error", err.Error()))
		}
	}()
}

// setSchedule installs the schedule's rounds.
func (m *Manager) setSchedule(rounds [][]scheduledMatch) {
	m.rounds = make([][]*match, len(rounds))
	clear(m.matchByID)
	m.byPlayer = make(map[string][]*match, len(m.players))
	for i, round := range rounds {
		// A round's matches in one allocation: a league holds n²/2 of
		// them for its whole life.
		slab := make([]match, len(round))
		m.rounds[i] = make([]*match, len(round))
		for j, sm := range round {
			mt := &slab[j]
			mt.scheduledMatch, mt.status = sm, leaguesdk.MatchPending
			m.rounds[i][j] = mt
			if id, ok := positionOf(sm.MatchID); !ok || id != [2]int{i, j} {
				m.matchByID[sm.MatchID] = mt
			}
			for _, p := range [2]string{sm.PlayerA, sm.PlayerB} {
				if m.byPlayer[p] == nil {
					m.byPlayer[p] = make([]*match, 0, len(rounds))
				}
				m.byPlayer[p] = append(m.byPlayer[p], mt)
			}
		}
	}
	if len(m.roundTimes) < len(rounds) {
		m.roundTimes = append(m.roundTimes, make([]roundTimes, len(rounds)-len(m.roundTimes))...)
	}
	// Room for every result at once, rather than a slice outgrown and
	// copied again and again as n²/2 results come in.
	m.records = slices.Grow(m.records, max(m.matchCount()-len(m.records), 0))
}

// matchCount returns the number of matches of the schedule.
func (m *Manager) matchCount() int {
	n := 0
	for _, round := range m.rounds {
		n += len(round)
	}
	return n
}

// allMatches yields every match of the schedule, round by round.
func (m *Manager) allMatches() func(yield func(*match) bool) {
	return func(yield func(*match) bool) {
		for _, round := range m.rounds {
			for _, mt := range round {
				if !yield(mt) {
					return
				}
			}
		}
	}
}

// positionOf returns the round and the place in it, from 0, of the match
// id RoundRobin gives the match at that place: "R<round>M<number>".
func positionOf(id string) (pos [2]int, ok bool) {
	if len(id) < 4 || id[0] != 'R' {
		return pos, false
	}
	r, rest, ok := leadingNumber(id[1:])
	if !ok || len(rest) < 2 || rest[0] != 'M' {
		return pos, false
	}
	k, rest, ok := leadingNumber(rest[1:])
	if !ok || rest != "" {
		return pos, false
	}
	return [2]int{r - 1, k - 1}, true
}

// leadingNumber reads the positive decimal number, without leading zeros,
// that s starts with.
func leadingNumber(s string) (n int, rest string, ok bool) {
	i := 0
	for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
		n = n*10 + int(s[i]-'0')
		i++
	}
	if i == 0 || s[0] == '0' {
		return 0, s, false
	}
	return n, s[i:], true
}

// matchLocked returns the match of the schedule with the given id, or nil.
// A match is found where its id places it (positionOf); the few whose id
// does not say where they are (a schedule made otherwise) are in
// matchByID. m.mu must be held.
func (m *Manager) matchLocked(id string) *match {
	if pos, ok := positionOf(id); ok && pos[0] < len(m.rounds) && pos[1] < len(m.rounds[pos[0]]) {
		if mt := m.rounds[pos[0]][pos[1]]; mt.MatchID == id {
			return mt
		}
	}
	return m.matchByID[id]
}

// stateLocked returns the state to persist, without its rounds, which
// saveState reads a round at a time (scheduledRound). m.mu must be held.
func (m *Manager) stateLocked() *leagueState {
	st := &leagueState{
		stateHead: stateHead{LeagueID: m.cfg.LeagueID, GameType: m.cfg.GameType, Status: m.status,
			OpenedAt: m.openedAt, StartedAt: m.startedAt, CompletedAt: m.completedAt,
			NextPlayer: m.nextPlayer, NextReferee: m.nextReferee,
			Referees: make([]agentRecord, 0, len(m.referees)), Players: make([]agentRecord, 0, len(m.players))},
		stateTail: stateTail{RoundsCompleted: m.roundsCompleted,
			RoundTimes: append([]roundTimes(nil), m.roundTimes...), Champion: m.champion},
	}
	for _, r := range m.referees {
		st.Referees = append(st.Referees, r.agentRecord)
	}
	for _, p := range m.players {
		st.Players = append(st.Players, *p)
	}
	return st
}

// scheduledRound returns round i+1 of the schedule as state.json keeps it.
func (m *Manager) scheduledRound(i int) []scheduledMatch {
	m.mu.Lock()
	defer m.mu.Unlock()
	if i >= len(m.rounds) { // undone meanwhile (begin failed to save)
		return []scheduledMatch{}
	}
	out := make([]scheduledMatch, len(m.rounds[i]))
	for j, mt := range m.rounds[i] {
		out[j] = mt.scheduledMatch
	}
	return out
}

// saveState writes the state as change leaves it. The caller holds
// persistMu; change runs under mu and may refuse with an error, in which
// case nothing is written. When the write fails, undo runs under mu.
func (m *Manager) saveState(change func() error, undo func()) error {
	m.mu.Lock()
	if err := change(); err != nil {
		m.mu.Unlock()
		return err
	}
	m.updatedAt = m.cfg.Now()
	st, n := m.stateLocked(), len(m.rounds)
	m.mu.Unlock()
	if err := m.store.saveState(st, n, m.scheduledRound, m.cfg.Now()); err != nil {
		if undo != nil {
			m.mu.Lock()
			undo()
			m.mu.Unlock()
		}
		m.log.Error("cannot save the league state", slog.String("error", err.Error()))
		return fmt.Errorf("manager: saving the league state: %w", err)
	}
	return nil
}

// Handler returns the manager's HTTP surface: the protocol on POST /mcp
// (and POST /), GET /health, GET /api/state (the [Snapshot] as JSON) and the
// dashboard on every other GET path. The league itself runs only under Run.
func (m *Manager) Handler() http.Handler { return m.handler }

func (m *Manager) newHandler() http.Handler {
	dash := dashboard.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost, r.URL.Path == "/mcp", r.URL.Path == "/health":
			m.srv.ServeHTTP(w, r)
		case r.URL.Path == "/api/state":
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				w.Header().Set("Allow", "GET, HEAD")
				http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
				return
			}
			round, err := m.stateRound(r.URL.Query().Get("round"))
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			page, err := statePage(r.URL.Query())
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			s := m.snapshot(round)
			if page != nil {
				s.page(page)
			}
			writeState(w, r, s)
		case strings.HasPrefix(r.URL.Path, "/api/view/"):
			serveView(w, r, m.managerView, strings.TrimPrefix(r.URL.Path, "/api/view/"))
		default:
			dash.ServeHTTP(w, r)
		}
	})
}

// stateRound reads GET /api/state's round parameter: "" for the default
// (every match of a league of at most DashboardAllMatches matches, else
// the current round's), "all", or a round number.
func (m *Manager) stateRound(q string) (int, error) {
	switch q {
	case "all":
		return 0, nil
	case "":
		p := m.Progress()
		if p.Matches <= DashboardAllMatches {
			return 0, nil
		}
		return max(p.CurrentRound, 1), nil
	}
	n, err := strconv.Atoi(q)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("round must be a round number or all, not %q", q)
	}
	return n, nil
}

// Endpoint returns the endpoint agents reach the manager at: [Config.Endpoint],
// or once [Manager.Run] listens, the /mcp URL of its listener.
func (m *Manager) Endpoint() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.endpoint
}

// Run listens ([Config.Listener], or [Config.Addr]), serves [Manager.Handler], and runs
// the league: registration until a start trigger, then every round, then
// LEAGUE_COMPLETED. After the league completes it keeps serving queries
// until ctx ends, [Manager.Shutdown] or [Manager.Close] is called. When ctx ends it stops the
// league where it is, lets in-flight requests finish for up to
// [Config.ShutdownGrace], and returns nil: everything needed to resume is on
// disk. Run may be called once, and not after Close (it then returns an
// error at once); it releases what [New] acquired when it returns, as Close
// does.
func (m *Manager) Run(ctx context.Context) error {
	return m.runner.Run(ctx, agentkit.Spec{
		Listener: m.cfg.Listener, Addr: m.cfg.Addr, TLS: m.cfg.TLS, Handler: m.handler,
		Grace: m.cfg.ShutdownGrace, Log: m.log,
		Listening: func(endpoint string) error {
			endpoint = agentkit.Advertise(&m.mu, &m.endpoint, endpoint)
			if err := m.writeConfigFiles(); err != nil {
				return err
			}
			m.mu.Lock()
			resumed := m.startedAt != nil
			m.mu.Unlock()
			if resumed { // the views a crash may have left behind the journals
				m.writeViews(viewStandings|viewRounds, true)
			}
			m.log.Info("league manager listening", slog.String("endpoint", endpoint), slog.String("league_id", m.cfg.LeagueID),
				slog.String("data_root", m.cfg.DataRoot))
			return nil
		},
		Work: func(ctx context.Context) error {
			var wg sync.WaitGroup
			wg.Go(func() { m.viewWriter(ctx) })
			wg.Go(func() { m.prober(ctx) })
			err := m.runLeague(ctx)
			if err == nil {
				m.redeliverCompletion(ctx) // to the players LEAGUE_COMPLETED did not reach (league.go)
				<-ctx.Done()               // the league is over: serve queries until stopped
			}
			wg.Wait()
			if errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		},
		Stopped: func(error) {
			m.calls.Wait()
			m.writeViews(viewStandings|viewRounds, true)
			m.log.Info("league manager stopped", slog.String("league_id", m.cfg.LeagueID))
		},
	})
}

// Shutdown stops [Manager.Run] gracefully: the league stops where it is, and
// in-flight requests may finish until ctx ends; then Run returns.
// Shutdown waits for that and returns ctx's error when ctx ended first.
// It does nothing to a manager that is not running.
func (m *Manager) Shutdown(ctx context.Context) error { return m.runner.Shutdown(ctx, nil) }

// Close stops [Manager.Run] at once if it is running (in-flight requests are cut
// off; everything acknowledged is on disk already) and releases what [New]
// acquired: the journals, the league log, the agent log file and the
// connections to agents. Call it when you serve [Manager.Handler] yourself, once
// you are done; it is safe to call more than once, and after Run.
func (m *Manager) Close() error { return m.runner.Close() }

// closeFiles closes the files New opened.
func (m *Manager) closeFiles() error {
	m.workers.Close()
	m.bg.Wait()
	m.life.close()
	m.events.close()
	var errs []error
	for _, j := range []*journal.Journal{m.assigned, m.roundLog, m.results} {
		if j != nil {
			errs = append(errs, j.Close())
		}
	}
	return errors.Join(append(errs, m.agentLog.Close())...)
}

// Done returns a channel that is closed once the league has completed and
// LEAGUE_COMPLETED has been sent (or, for a resumed league that had
// completed, once [Manager.Run] has started).
func (m *Manager) Done() <-chan struct{} { return m.done }

// LeagueID returns the id of the league the manager runs: [Config.LeagueID],
// or the next of its series when that league had completed (see
// Config.LeagueID).
func (m *Manager) LeagueID() string { return m.cfg.LeagueID }

// Status returns the league's status: [StatusRegistering], [StatusRunning] or
// [StatusCompleted].
func (m *Manager) Status() LeagueStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.status
}

// Standings returns the current standings table, computed from the
// recorded results.
func (m *Manager) Standings() []leaguesdk.StandingRow {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]leaguesdk.StandingRow(nil), m.standingsLocked()...)
}

// Champion returns the league's winner once the league has completed, and
// nil before.
func (m *Manager) Champion() *leaguesdk.Champion {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.champion == nil {
		return nil
	}
	c := *m.champion
	return &c
}

// Results returns the recorded results, ordered by round and match.
func (m *Manager) Results() []MatchRecord {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []MatchRecord
	for _, round := range m.rounds {
		for _, mt := range round {
			if mt.record != nil {
				out = append(out, mt.record.full(mt))
			}
		}
	}
	return out
}

// Start closes registration and starts the league, as an authenticated
// start_league call does. It needs at least two players and one referee.
// Starting a league that has already started does nothing. The rounds are
// played by Run.
func (m *Manager) Start(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := m.begin("started by the operator")
	return err
}

// entrantsLocked returns the players as the standings know them.
func (m *Manager) entrantsLocked() []Entrant {
	out := make([]Entrant, len(m.players))
	for i, p := range m.players {
		out[i] = Entrant{PlayerID: p.ID, DisplayName: p.DisplayName}
	}
	return out
}

// standingsLocked returns the standings, recomputed from the records when
// a result was recorded since the last call. m.mu must be held.
func (m *Manager) standingsLocked() []leaguesdk.StandingRow {
	ts := m.talliesLocked()
	if m.cache.rowsN != len(m.records) {
		order := rank(m.entrantsLocked(), scoredMatches(m.records), ts, m.cfg.Tiebreakers)
		m.cache.rows = rowsOf(order, ts)
		m.cache.rowsN = len(m.records)
	}
	return m.cache.rows
}

// talliesLocked returns every player's tally, applying the records added
// since the last call. m.mu must be held.
func (m *Manager) talliesLocked() map[string]*tally {
	if m.cache.n < 0 || m.cache.n > len(m.records) || m.cache.players != len(m.players) {
		m.cache = standingsCache{tallies: tallies(m.entrantsLocked(), scoredMatches(nil)), players: len(m.players), rowsN: -1}
	}
	if m.cache.n < len(m.records) {
		addTallies(m.cache.tallies, scoredMatches(m.records[m.cache.n:]))
		m.cache.n = len(m.records)
	}
	return m.cache.tallies
}

// tallyLocked returns a player's record. m.mu must be held.
func (m *Manager) tallyLocked(id string) *tally {
	if t := m.talliesLocked()[id]; t != nil {
		return t
	}
	return &tally{Entrant: Entrant{PlayerID: id}}
}

// emit logs e to the league log and passes it to Config.OnEvent. It must
// not be called with a lock held.
func (m *Manager) emit(e Event) {
	if e.Time.IsZero() {
		e.Time = m.cfg.Now()
	}
	level := "INFO"
	if e.Kind == EventWarning || e.Kind == EventRegistrationRejected || e.Kind == EventSecurity {
		level = "WARNING"
	}
	m.events.write(e.Time, eventType(e.Kind), level, eventDetailsOf(&e))
	if e.Kind == EventWarning {
		m.log.Warn(e.Message, slog.String("event", string(e.Kind)))
	} else {
		m.log.Info(e.Message, slog.String("event", string(e.Kind)))
	}
	if m.cfg.OnEvent != nil {
		m.cfg.OnEvent(e)
	}
}

// eventDetails is the details member of a league log line: the event's
// fields that are set, its message always, in the order of their names
// (the order in which encoding/json writes a map's).
type eventDetails struct {
	AgentID     string                 `json:"agent_id,omitempty"`
	Champion    *leaguesdk.Champion    `json:"champion,omitempty"`
	DisplayName string                 `json:"display_name,omitempty"`
	Endpoint    string                 `json:"endpoint,omitempty"`
	From        *AgentState            `json:"from,omitempty"`
	MatchID     string                 `json:"match_id,omitempty"`
	Message     string                 `json:"message"`
	PlayerA     string                 `json:"player_A_id,omitempty"`
	PlayerB     string                 `json:"player_B_id,omitempty"`
	RefereeID   string                 `json:"referee_id,omitempty"`
	Result      *leaguesdk.MatchResult `json:"result,omitempty"`
	RoundID     int                    `json:"round_id,omitempty"`
	To          *AgentState            `json:"to,omitempty"`
	Trigger     *Trigger               `json:"trigger,omitempty"`
}

// eventDetailsOf returns the details of e's league log line.
func eventDetailsOf(e *Event) *eventDetails {
	d := &eventDetails{AgentID: e.AgentID, Champion: e.Champion, DisplayName: e.DisplayName, Endpoint: e.Endpoint,
		MatchID: e.MatchID, Message: e.Message, PlayerA: e.PlayerA, PlayerB: e.PlayerB, RefereeID: e.RefereeID,
		Result: e.Result, RoundID: e.RoundID}
	if t := e.Transition; t != nil {
		d.From, d.To, d.Trigger = &t.From, &t.To, &t.Trigger
	}
	return d
}

func eventType(k EventKind) string {
	b := []byte(k)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// wakeUp tells the league loop that something it may wait for changed.
func (m *Manager) wakeUp() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}
