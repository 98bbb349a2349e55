package manager

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentleague/league/internal/agentkit"
	"github.com/agentleague/league/leaguesdk"
)

// addTools adds the manager's tools to its server. The registration tools
// are NoValidate: their handlers validate the request themselves, to answer
// a too-old protocol_version with REJECTED as the protocol wants rather than
// with an error. They take BareArguments: MCP-native agents register with
// tools/call and the agent's *_meta alone, no envelope.
func (m *Manager) addTools() {
	leaguesdk.Handle(m.srv, leaguesdk.Tool{Name: leaguesdk.MethodRegisterReferee, Public: true, NoValidate: true, BareArguments: true,
		MessageTypes: []leaguesdk.MessageType{leaguesdk.MsgRefereeRegisterRequest},
		Description:  "Register a referee with the league; the answer carries its referee_id and auth_token."},
		m.handleRegisterReferee)
	leaguesdk.Handle(m.srv, leaguesdk.Tool{Name: leaguesdk.MethodRegisterPlayer, Public: true, NoValidate: true, BareArguments: true,
		MessageTypes: []leaguesdk.MessageType{leaguesdk.MsgLeagueRegisterRequest},
		Description:  "Register a player with the league; the answer carries its player_id and auth_token."},
		m.handleRegisterPlayer)
	leaguesdk.Handle(m.srv, leaguesdk.Tool{Name: leaguesdk.MethodReportMatchResult,
		Description: "Report the result of a match; only the referee the match was given to may report it."},
		m.handleReport)
	leaguesdk.Handle(m.srv, leaguesdk.Tool{Name: leaguesdk.MethodLeagueQuery,
		Description: "Ask for the standings, the schedule, a player's next match or a player's statistics."},
		m.handleQuery)
	leaguesdk.Handle(m.srv, leaguesdk.Tool{Name: leaguesdk.MethodGetStandings,
		Description: "Return the current standings table as the manager's state."},
		m.handleGetStandings)
	leaguesdk.Handle(m.srv, leaguesdk.Tool{Name: leaguesdk.MethodStartLeague, Public: true,
		Description: "Close registration and start the league; needs the operator's admin token."},
		m.handleStartLeague)
}

// authorize checks that a message after registration carries the token of
// the agent its sender names (E011 without a token, E012 with another's);
// get_standings also answers the operator's admin token.
func (m *Manager) authorize(_ context.Context, tool string, env *leaguesdk.Envelope) error {
	if m.cfg.Insecure {
		return nil
	}
	if tool == leaguesdk.MethodGetStandings && m.cfg.AdminToken != "" && leaguesdk.TokensEqual(env.AuthToken, m.cfg.AdminToken) {
		return nil // the operator may read the standings too
	}
	id, err := m.tokens.Verify(env.Sender, env.AuthToken)
	if err != nil {
		return err
	}
	kind, _ := leaguesdk.SplitSender(env.Sender)
	m.mu.Lock()
	_, isPlayer := m.playerByID[id]
	_, isReferee := m.refByID[id]
	m.mu.Unlock()
	if (kind == "player" && !isPlayer) || (kind == "referee" && !isReferee) {
		return &leaguesdk.Error{Code: leaguesdk.CodeAuthTokenInvalid, Field: "sender",
			Message: fmt.Sprintf("auth_token belongs to %s, who is not a %s", id, kind)}
	}
	return nil
}

// replyToken returns the token a reply to env may carry: the caller's own,
// when env carries the token the manager issued to its sender, and none
// otherwise (an unauthenticated caller, as in insecure mode, learns no token).
func (m *Manager) replyToken(env *leaguesdk.Envelope) string {
	if _, err := m.tokens.Verify(env.Sender, env.AuthToken); err != nil {
		return ""
	}
	return env.AuthToken
}

// agentID formats the n-th id with prefix: two digits at least (P01, REF07),
// more when needed (P100).
func agentID(prefix string, n int) string {
	s := strconv.Itoa(n)
	if len(s) < 2 {
		s = "0" + s
	}
	return prefix + s
}

// checkProtocol returns the rejection reason for a registration whose
// validation failed on its declared protocol_version, or "" when err is
// something else.
func checkProtocol(err error, field, declared string) string {
	var e *leaguesdk.Error
	if le, ok := err.(*leaguesdk.Error); ok {
		e = le
	}
	if e == nil || e.Code != leaguesdk.CodeProtocolVersionMismatch || e.Field != field {
		return ""
	}
	return fmt.Sprintf("%s %s: protocol_version %q is older than %s, the oldest version this league accepts; upgrade the agent",
		e.Code, e.Code.Name(), declared, leaguesdk.MinProtocolVersion)
}

// supports reports whether gameTypes holds the league's game type.
func (m *Manager) supports(gameTypes []string) bool {
	return slices.ContainsFunc(gameTypes, func(g string) bool { return strings.EqualFold(strings.TrimSpace(g), m.cfg.GameType) })
}

// registration is the outcome of a registration request.
type registration struct {
	id, token, reason string
	rejoined          bool
}

// registry holds the registered agents: players and referees in the order
// they registered, by id, and by contact endpoint, with the counters the
// next ids come from. The manager's mu guards it.
type registry struct {
	nextPlayer, nextReferee int
	players                 []*agentRecord
	playerByID              map[string]*agentRecord
	referees                []*referee
	refByID                 map[string]*referee
	endpoints               map[string]string // contact endpoint → agent id
}

// newRegistry returns an empty registry; the first ids are P01 and REF01.
func newRegistry() registry {
	return registry{nextPlayer: 1, nextReferee: 1, playerByID: map[string]*agentRecord{},
		refByID: map[string]*referee{}, endpoints: map[string]string{}}
}

// applicant is an agent asking to register: its kind ("player" or
// "referee") and its record as it describes itself, without id and token.
type applicant struct {
	kind string
	rec  agentRecord
}

// rejoin looks up a's contact endpoint. An endpoint nobody registered
// gives a zero registration and nil. An agent that registers again from
// its endpoint with the token it was given (tokenOf returns the token of
// an id) keeps its id and token; anyone else is refused.
func (r *registry) rejoin(a *applicant, presented string, tokenOf func(id string) (string, bool)) (registration, error) {
	other, taken := r.endpoints[a.rec.Endpoint]
	if !taken {
		return registration{}, nil
	}
	if tok, ok := tokenOf(other); ok && presented != "" && leaguesdk.TokensEqual(tok, presented) {
		return registration{id: other, token: tok, rejoined: true}, nil
	}
	return registration{}, rejection("%s is already registered with contact endpoint %s; an agent registers once", other, a.rec.Endpoint)
}

// add records a under the next id of its kind with token, registered at
// now, and returns its registration.
func (r *registry) add(a *applicant, token string, now time.Time) registration {
	rec := a.rec
	rec.AuthToken, rec.RegisteredAt = token, now.UTC()
	if a.kind == "referee" {
		rec.ID = agentID("REF", r.nextReferee)
		ref := &referee{agentRecord: rec}
		r.referees = append(r.referees, ref)
		r.refByID[rec.ID] = ref
		r.nextReferee++
	} else {
		rec.ID = agentID("P", r.nextPlayer)
		p := &rec
		r.players = append(r.players, p)
		r.playerByID[rec.ID] = p
		r.nextPlayer++
	}
	r.endpoints[rec.Endpoint] = rec.ID
	return registration{id: rec.ID, token: token}
}

// undoAdd takes back the latest add, of a, whose state could not be saved.
func (r *registry) undoAdd(a *applicant) {
	if a.kind == "referee" {
		ref := r.referees[len(r.referees)-1]
		r.referees = r.referees[:len(r.referees)-1]
		delete(r.refByID, ref.ID)
		r.nextReferee--
	} else {
		p := r.players[len(r.players)-1]
		r.players = r.players[:len(r.players)-1]
		delete(r.playerByID, p.ID)
		r.nextPlayer--
	}
	delete(r.endpoints, a.rec.Endpoint)
}

// refusalLocked returns why the league does not take a now, or nil.
// m.mu must be held.
func (m *Manager) refusalLocked(a *applicant) error {
	switch {
	case m.status == StatusCompleted:
		return m.leagueOver()
	case a.kind == "player" && m.status != StatusRegistering:
		return rejection("registration is closed: league %s has already started", m.cfg.LeagueID)
	case !m.supports(a.rec.GameTypes):
		return rejection("this league plays %s, and the %s supports only %s", m.cfg.GameType, a.kind, strings.Join(a.rec.GameTypes, ", "))
	case a.kind == "player" && m.cfg.MaxPlayers > 0 && len(m.players) >= m.cfg.MaxPlayers:
		return rejection("the league is full: it takes at most %d players", m.cfg.MaxPlayers)
	}
	return nil
}

func (m *Manager) handleRegisterPlayer(_ context.Context, call *leaguesdk.Request, req *leaguesdk.LeagueRegisterRequest) (*leaguesdk.LeagueRegisterResponse, error) {
	meta := req.PlayerMeta
	reg, err := m.register(registrationRequest{env: &req.Envelope, invalid: leaguesdk.Validate(req), http: call.HTTP,
		protocolField: "player_meta.protocol_version",
		applicant: applicant{kind: "player", rec: agentRecord{DisplayName: meta.DisplayName, Version: meta.Version,
			Endpoint: meta.ContactEndpoint, GameTypes: meta.GameTypes, ProtocolVersion: meta.ProtocolVersion}}})
	if err != nil {
		return nil, err
	}
	resp := &leaguesdk.LeagueRegisterResponse{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgLeagueRegisterResponse, leaguesdk.LeagueManagerSender, reg.token, req.ConversationID, m.cfg.Now()),
		Status:   leaguesdk.StatusAccepted, PlayerID: reg.id, LeagueID: m.cfg.LeagueID, Reason: leaguesdk.OptionalString(reg.reason)}
	if reg.reason != "" {
		resp.Status = leaguesdk.StatusRejected
	}
	return resp, nil
}

func (m *Manager) handleRegisterReferee(_ context.Context, call *leaguesdk.Request, req *leaguesdk.RefereeRegisterRequest) (*leaguesdk.RefereeRegisterResponse, error) {
	meta := req.RefereeMeta
	reg, err := m.register(registrationRequest{env: &req.Envelope, invalid: leaguesdk.Validate(req), http: call.HTTP,
		protocolField: "referee_meta.protocol_version", detail: fmt.Sprintf(", up to %d matches at once", meta.MaxConcurrentMatches),
		applicant: applicant{kind: "referee", rec: agentRecord{DisplayName: meta.DisplayName, Version: meta.Version,
			Endpoint: meta.ContactEndpoint, GameTypes: meta.GameTypes, ProtocolVersion: meta.ProtocolVersion,
			MaxConcurrentMatches: meta.MaxConcurrentMatches}}})
	if err != nil {
		return nil, err
	}
	resp := &leaguesdk.RefereeRegisterResponse{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgRefereeRegisterResponse, leaguesdk.LeagueManagerSender, reg.token, req.ConversationID, m.cfg.Now()),
		Status:   leaguesdk.StatusAccepted, RefereeID: reg.id, LeagueID: m.cfg.LeagueID, Reason: leaguesdk.OptionalString(reg.reason)}
	if reg.reason != "" {
		resp.Status = leaguesdk.StatusRejected
	}
	return resp, nil
}

// registrationRequest is a registration as register handles it.
type registrationRequest struct {
	applicant
	env     *leaguesdk.Envelope
	invalid error // what validating the request found
	// protocolField names the declared protocol_version, which a too-old
	// value in is answered with REJECTED rather than an error.
	protocolField string
	detail        string        // added to the registration event's message
	http          *http.Request // the HTTP request it came in, when known
}

// register decides a registration (see admit) and reports it as an
// event. It returns the outcome — an id and token, or a rejection reason —
// or the protocol error to answer.
func (m *Manager) register(r registrationRequest) (registration, error) {
	var reg registration
	name, endpoint := r.rec.DisplayName, r.rec.Endpoint
	if r.invalid != nil {
		if reg.reason = checkProtocol(r.invalid, r.protocolField, r.rec.ProtocolVersion); reg.reason == "" {
			return reg, r.invalid
		}
	} else {
		reg = m.admit(&r.applicant, r.env.AuthToken)
	}
	switch {
	case reg.reason != "":
		m.emit(Event{Kind: EventRegistrationRejected, DisplayName: name, Endpoint: endpoint,
			Message: fmt.Sprintf("%s %q refused: %s", r.kind, name, reg.reason)})
		return reg, nil
	case reg.id == "":
		return reg, &leaguesdk.Error{Code: leaguesdk.CodeConnectionError, Message: "the manager could not save the registration; try again"}
	}
	if reg.rejoined {
		// An agent back from a restart is up: calls to it start afresh,
		// not behind a circuit opened by the failures of its earlier life.
		m.client.Forget(endpoint)
	}
	if status := m.Status(); status != StatusCompleted { // lifecycle.go; after the end everyone stays SHUTDOWN
		m.applyTransitions(m.life.Registered(reg.id, status != StatusRegistering, m.cfg.Now()))
	}
	if !reg.rejoined {
		kind := EventPlayerRegistered
		if r.kind == "referee" {
			kind = EventRefereeRegistered
		}
		m.emit(Event{Kind: kind, AgentID: reg.id, DisplayName: name, Endpoint: endpoint,
			Message: fmt.Sprintf("%s %s registered as %s (%s%s)", r.kind, name, reg.id, endpoint, r.detail)})
	}
	if from, ok := loopbackFromElsewhere(endpoint, r.http); ok {
		m.emit(Event{Kind: EventWarning, AgentID: reg.id, DisplayName: name, Endpoint: endpoint,
			Message: fmt.Sprintf("%s %s (%s) registered the loopback endpoint %s from %s, another host: "+
				"its loopback is not the manager's, so the manager cannot reach it there and it will lose every match; the agent should listen on an address this host can reach and advertise it (the examples' -host 0.0.0.0 -endpoint http://<its address>:<port>/mcp; the Endpoint of player.Config or referee.Config)",
				r.kind, reg.id, name, endpoint, from)})
	}
	if !reg.rejoined {
		m.wakeUp()
	}
	return reg, nil
}

// loopbackFromElsewhere reports whether endpoint names a loopback address
// (127.0.0.0/8, ::1, localhost) while the registration req came from
// another address than the one it reached the manager at, and not from
// the endpoint's own: from another host, whose loopback is not the
// manager's (or, on one host, from another loopback address, which tests
// use to stand for another host). An agent on the manager's host reaches
// it from the address it connects to. It returns the address the request
// came from. A request whose addresses are not known (an in-memory
// network) is not judged.
func loopbackFromElsewhere(endpoint string, req *http.Request) (string, bool) {
	if req == nil {
		return "", false
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", false
	}
	host := u.Hostname()
	ip, ipErr := netip.ParseAddr(host)
	loopback := ipErr == nil && ip.Unmap().IsLoopback() ||
		strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost")
	if !loopback {
		return "", false
	}
	remote, err := netip.ParseAddrPort(req.RemoteAddr)
	if err != nil {
		return "", false
	}
	local, ok := req.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return "", false
	}
	at, err := netip.ParseAddrPort(local.String())
	if err != nil {
		return "", false
	}
	from := remote.Addr().Unmap()
	if from == at.Addr().Unmap() || ipErr == nil && from == ip.Unmap() {
		return "", false // the agent runs on the manager's host, or the endpoint is the address it came from
	}
	return from.String(), true
}

// refereesNeeded says how a round's matches meet the referees' room: a
// round of perRound matches runs at once when the referees take that many
// together (capacity); with less, its other matches wait their turn.
func refereesNeeded(perRound, capacity, refs int) string {
	if perRound == 0 {
		return ""
	}
	s := fmt.Sprintf(" of up to %s; %s, taking %d at once", agentkit.Plural(perRound, "match"), agentkit.Plural(refs, "referee"), capacity)
	if capacity < perRound {
		s += fmt.Sprintf(", so the other matches of a round wait their turn (%d referees of the default %d matches each run a round at once)",
			(perRound+defaultRefereeCapacity-1)/defaultRefereeCapacity, defaultRefereeCapacity)
	}
	return s
}

// defaultRefereeCapacity is how many matches a referee runs at once by
// default (referee.DefaultMaxConcurrentMatches).
const defaultRefereeCapacity = 2

// leagueOver is the rejection of every registration with a league that has
// completed, rejoining agents' included: there is nothing left to play.
func (m *Manager) leagueOver() error {
	return rejection("league %s is over: it has completed, and takes no more registrations "+
		"(the next league of the series starts when the manager is started again without -show-completed)", m.cfg.LeagueID)
}

// rejectionError carries a registration's rejection reason through admit.
type rejectionError string

func (r rejectionError) Error() string { return string(r) }

func rejection(format string, args ...any) error { return rejectionError(fmt.Sprintf(format, args...)) }

// admit decides the registration of a, who presented the token presented,
// and makes it durable: an agent registering again from its endpoint with
// its token keeps its id (registry.rejoin), anyone else from a known
// endpoint or whom refusalLocked refuses gets a reason, and a new agent is
// added to the registry, taken back if the state cannot be saved. A
// registration that cannot be saved returns an empty id and no reason.
//
// Registrations share their saves of state.json (a group commit): those
// that arrive while the state is being saved wait, and the first of them
// then decides them all in their order of arrival and saves the state once
// for them. A league whose players register at once thus writes state.json
// a few times, not once per player, each write holding every agent.
func (m *Manager) admit(a *applicant, presented string) registration {
	ad := &admission{applicant: a, presented: presented, wake: make(chan bool, 1)}
	q := &m.admissions
	q.mu.Lock()
	q.waiting = append(q.waiting, ad)
	lead := !q.leading
	q.leading = true
	q.mu.Unlock()
	if !lead && !<-ad.wake {
		return ad.reg // decided by another's batch
	}
	m.persistMu.Lock()
	q.mu.Lock()
	batch := q.waiting
	q.waiting = nil
	q.mu.Unlock()
	// Deferred, so that nobody waits forever should the batch panic (its
	// registrations then answer that they could not be saved).
	decided := false
	defer func() {
		if !decided {
			for _, other := range batch {
				other.reg = registration{}
			}
		}
		m.persistMu.Unlock()
		q.mu.Lock()
		if len(q.waiting) > 0 {
			q.waiting[0].wake <- true // arrived meanwhile: the first leads the next batch
		} else {
			q.leading = false
		}
		q.mu.Unlock()
		for _, other := range batch {
			if other != ad {
				other.wake <- false
			}
		}
	}()
	m.admitBatch(batch)
	decided = true
	return ad.reg
}

// admissionQueue holds the registrations waiting for the next save of
// state.json (admit).
type admissionQueue struct {
	mu      sync.Mutex
	waiting []*admission
	leading bool // a registration is deciding a batch; the next waits
}

// admission is a registration in an admissionQueue.
type admission struct {
	*applicant
	presented string
	reg       registration // the outcome, set by admitBatch
	// wake is sent true when this registration is to decide the next
	// batch, false when another's batch has decided it.
	wake chan bool
}

// admitBatch decides the registrations of batch in order and saves the
// state once for those it added; if the save fails, they are all taken
// back and answered with neither id nor reason. m.persistMu must be held.
func (m *Manager) admitBatch(batch []*admission) {
	var added []*admission
	err := m.saveState(func() error {
		for _, ad := range batch {
			reg, err := m.registry.rejoin(ad.applicant, ad.presented, m.tokens.Token)
			if err == nil && reg.rejoined && m.status == StatusCompleted {
				err = m.leagueOver()
			}
			if err == nil && !reg.rejoined {
				err = m.refusalLocked(ad.applicant)
			}
			switch {
			case err != nil: // rejoin and refusalLocked refuse with a rejectionError
				ad.reg = registration{reason: err.Error()}
			case reg.rejoined:
				ad.reg = reg
			default:
				ad.reg = m.registry.add(ad.applicant, leaguesdk.NewToken(), m.cfg.Now())
				added = append(added, ad)
			}
		}
		if len(added) == 0 {
			return errUnchanged
		}
		return nil
	}, func() {
		for i := len(added) - 1; i >= 0; i-- {
			m.registry.undoAdd(added[i].applicant)
		}
	})
	for _, ad := range added {
		if err != nil {
			ad.reg = registration{}
			continue
		}
		m.tokens.Bind(ad.reg.id, ad.reg.token)
	}
}

// errUnchanged stops saveState when a change turns out to change nothing.
var errUnchanged = errors.New("unchanged")

// handleStartLeague serves start_league: with the operator's admin token it
// closes registration and starts the league.
func (m *Manager) handleStartLeague(_ context.Context, _ *leaguesdk.Request, in *leaguesdk.StartLeague) (*leaguesdk.StartLeagueResponse, error) {
	switch {
	case m.cfg.AdminToken == "":
		return nil, &leaguesdk.Error{Code: leaguesdk.CodeAuthTokenInvalid, Field: "auth_token",
			Message: "start_league is disabled on this manager: it was started without an admin token"}
	case in.AuthToken == "":
		return nil, &leaguesdk.Error{Code: leaguesdk.CodeAuthTokenMissing, Field: "auth_token",
			Message: "start_league needs the operator's admin token in auth_token"}
	case !leaguesdk.TokensEqual(in.AuthToken, m.cfg.AdminToken):
		return nil, &leaguesdk.Error{Code: leaguesdk.CodeAuthTokenInvalid, Field: "auth_token",
			Message: "auth_token is not this league's admin token"}
	case in.LeagueID != "" && in.LeagueID != m.cfg.LeagueID && in.LeagueID != m.series: // the operator may name the series
		return nil, &leaguesdk.Error{Code: leaguesdk.CodeLeagueNotFound, Field: "league_id",
			Message: fmt.Sprintf("this manager runs league %s, not %s", m.cfg.LeagueID, in.LeagueID)}
	}
	status := leaguesdk.StartLeagueStarted
	if started, err := m.begin("started by start_league"); err != nil {
		return nil, err
	} else if !started {
		status = leaguesdk.StartLeagueAlreadyStarted
	}
	m.mu.Lock()
	resp := &leaguesdk.StartLeagueResponse{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgStartLeagueResponse, leaguesdk.LeagueManagerSender, "", in.ConversationID, m.cfg.Now()),
		LeagueID: m.cfg.LeagueID, Status: status, Players: len(m.players), Referees: len(m.referees), TotalRounds: len(m.rounds)}
	m.mu.Unlock()
	return resp, nil
}

// begin closes registration and builds the schedule, and reports whether
// it did. It needs two players and a referee; a league that has started
// already is left alone.
func (m *Manager) begin(reason string) (bool, error) {
	m.persistMu.Lock()
	started := false
	var players, rounds int
	err := m.saveState(func() error {
		if m.status != StatusRegistering {
			return errUnchanged
		}
		if len(m.players) < 2 {
			return &leaguesdk.Error{Code: leaguesdk.CodePlayerNotRegistered,
				Message: fmt.Sprintf("the league needs at least two players to start; %d registered", len(m.players))}
		}
		if len(m.referees) == 0 {
			return &leaguesdk.Error{Code: leaguesdk.CodeRefereeNotRegistered,
				Message: "the league needs at least one referee to start; none registered"}
		}
		ids := make([]string, len(m.players))
		for i, p := range m.players {
			ids[i] = p.ID
		}
		pairings := RoundRobin(ids)
		schedule := make([][]scheduledMatch, 0, len(pairings))
		for _, round := range pairings {
			ms := make([]scheduledMatch, 0, len(round))
			for _, p := range round {
				ms = append(ms, scheduledMatch{MatchID: p.MatchID, RoundID: p.Round, PlayerA: p.PlayerA, PlayerB: p.PlayerB})
			}
			schedule = append(schedule, ms)
		}
		now := m.cfg.Now().UTC()
		m.status, m.startedAt = StatusRunning, &now
		m.setSchedule(schedule)
		started, players, rounds = true, len(m.players), len(schedule)
		return nil
	}, func() {
		m.status, m.startedAt = StatusRegistering, nil
		m.rounds, m.roundTimes, m.byPlayer = nil, nil, nil
		clear(m.matchByID)
	})
	m.persistMu.Unlock()
	if err == errUnchanged {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if started {
		if err := m.writeConfigFiles(); err != nil {
			m.log.Warn("cannot write the league configuration", slog.String("error", err.Error()))
		}
		m.mu.Lock()
		ids := m.allAgentIDsLocked()
		perRound, capacity, refs := 0, 0, 0
		for _, r := range m.rounds {
			perRound = max(perRound, len(r))
		}
		for _, r := range m.referees {
			if m.supports(r.GameTypes) {
				refs++
				capacity += max(r.MaxConcurrentMatches, 1)
			}
		}
		m.mu.Unlock()
		m.emit(Event{Kind: EventLeagueStarted, Message: fmt.Sprintf("league %s started (%s): %s, %s%s",
			m.cfg.LeagueID, reason, agentkit.Plural(players, "player"), agentkit.Plural(rounds, "round"), refereesNeeded(perRound, capacity, refs))})
		m.applyTransitions(m.life.Started(ids, m.cfg.Now())) // lifecycle.go
		m.wakeUp()
	}
	return started, nil
}
