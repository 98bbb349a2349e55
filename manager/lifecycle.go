package manager

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/agentleague/league/internal/journal"
	"github.com/agentleague/league/leaguesdk"
)

// AgentState is where an agent (player or referee) stands in its
// lifecycle, as the manager sees it.
type AgentState string

// The lifecycle states. An agent goes INIT → REGISTERED → ACTIVE; ACTIVE ⇄
// SUSPENDED while it fails and recovers; SUSPENDED → SHUTDOWN after
// [Config.MaxFails] consecutive failures, and every agent → SHUTDOWN when the
// league ends. Registering again with its own token brings an agent back.
const (
	StateInit       AgentState = "INIT"
	StateRegistered AgentState = "REGISTERED"
	StateActive     AgentState = "ACTIVE"
	StateSuspended  AgentState = "SUSPENDED"
	StateShutdown   AgentState = "SHUTDOWN"
)

// Trigger names what moved an agent from one state to another.
type Trigger string

// The triggers of lifecycle transitions. A failure is [TriggerTimeout]
// when the agent did not answer (no reply in time, or not reachable) and
// [TriggerError] when it answered with an error (a refusal, an unknown
// tool, a failed /health).
const (
	TriggerRegister    Trigger = "register"
	TriggerLeagueStart Trigger = "league_start"
	TriggerTimeout     Trigger = "timeout"
	TriggerError       Trigger = "error"
	TriggerRecover     Trigger = "recover"
	TriggerMaxFails    Trigger = "max_fails"
	TriggerLeagueEnd   Trigger = "league_end"
)

// Transition is one change of an agent's state.
type Transition struct {
	AgentID string     `json:"agent_id"`
	From    AgentState `json:"from"`
	To      AgentState `json:"to"`
	Trigger Trigger    `json:"trigger"`
	// Fails is the number of consecutive failures after the transition.
	Fails  int       `json:"fails"`
	Reason string    `json:"reason,omitempty"`
	Time   time.Time `json:"time"`
}

// agentLife is one agent's place in the lifecycle.
type agentLife struct {
	state     AgentState
	fails     int
	nextProbe time.Time
	// endedUp is set when the league's end shut the agent down while it
	// answered (ACTIVE or REGISTERED, not SUSPENDED): as far as the
	// manager knows, it still serves.
	endedUp bool
}

// endedUp reports whether t is the league's end shutting down an agent
// that answered.
func endedUp(t Transition) bool {
	return t.To == StateShutdown && t.Trigger == TriggerLeagueEnd && (t.From == StateActive || t.From == StateRegistered)
}

// lifecycle is the state machine of every agent's lifecycle. It takes no
// lock of the Manager, so it may be called with m.mu held; the transitions
// it returns are persisted and announced by Manager.applyTransitions
// without locks.
type lifecycle struct {
	maxFails int
	mu       sync.Mutex
	agents   map[string]*agentLife
	journal  *journal.Journal
}

// openLifecycle opens the journal of transitions (lifecycle.jsonl under s) and
// replays it; its group commits are observed like the other journals.
func openLifecycle(s store, maxFails int) (*lifecycle, error) {
	lc := &lifecycle{maxFails: maxFails, agents: map[string]*agentLife{}}
	j, err := journal.Open(s.lifecyclePath(), s.journalConfig("lifecycle", func(rec []byte) error {
		var t Transition
		if err := json.Unmarshal(rec, &t); err != nil {
			return err
		}
		a := lc.life(t.AgentID)
		a.state, a.fails, a.endedUp = t.To, t.Fails, endedUp(t)
		return nil
	}))
	if err != nil {
		return nil, err
	}
	lc.journal = j
	return lc, nil
}

func (lc *lifecycle) life(id string) *agentLife {
	a := lc.agents[id]
	if a == nil {
		a = &agentLife{state: StateInit}
		lc.agents[id] = a
	}
	return a
}

// State returns an agent's state; INIT for an agent it does not know.
func (lc *lifecycle) State(id string) AgentState {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if a := lc.agents[id]; a != nil {
		return a.state
	}
	return StateInit
}

// Serving reports whether, as far as the manager knows, the agent still
// serves: it is REGISTERED or ACTIVE, or the league's end shut it down
// while it answered (not failures: SUSPENDED, or SHUTDOWN after
// [Config.MaxFails] failures, is not serving).
func (lc *lifecycle) Serving(id string) bool {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	a := lc.agents[id]
	return a != nil && (a.state == StateRegistered || a.state == StateActive || a.endedUp)
}

// move changes a's state to to, when it differs, and returns the transition.
func (lc *lifecycle) move(out []Transition, id string, a *agentLife, to AgentState, tr Trigger, reason string, now time.Time) []Transition {
	if a.state == to {
		return out
	}
	t := Transition{AgentID: id, From: a.state, To: to, Trigger: tr, Fails: a.fails, Reason: reason, Time: now.UTC()}
	a.state, a.endedUp = to, endedUp(t)
	return append(out, t)
}

// Registered records a registration: REGISTERED before the league starts,
// ACTIVE after it (an agent coming back with its own token).
func (lc *lifecycle) Registered(id string, started bool, now time.Time) []Transition {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	a := lc.life(id)
	a.fails = 0
	to := StateRegistered
	if started || a.state == StateActive || a.state == StateSuspended || a.state == StateShutdown {
		to = StateActive
	}
	return lc.move(nil, id, a, to, TriggerRegister, "registered", now)
}

// adopt gives the agents of ids that the journal does not know the state
// the league's status implies, without a transition: a league resumed from
// files that have no lifecycle journal.
func (lc *lifecycle) adopt(ids []string, status LeagueStatus) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	st := map[LeagueStatus]AgentState{StatusRegistering: StateRegistered, StatusRunning: StateActive, StatusCompleted: StateShutdown}[status]
	for _, id := range ids {
		if a := lc.life(id); a.state == StateInit && st != "" {
			a.state = st
		}
	}
}

// Started moves every REGISTERED agent of ids to ACTIVE.
func (lc *lifecycle) Started(ids []string, now time.Time) []Transition {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	var out []Transition
	for _, id := range ids {
		if a := lc.life(id); a.state == StateRegistered || a.state == StateInit {
			out = lc.move(out, id, a, StateActive, TriggerLeagueStart, "the league started", now)
		}
	}
	return out
}

// Failed counts a failure of id, which tr names: ACTIVE → SUSPENDED, and
// SUSPENDED → SHUTDOWN at maxFails consecutive failures. A SHUTDOWN agent
// stays so.
func (lc *lifecycle) Failed(id string, tr Trigger, reason string, now time.Time) []Transition {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	a := lc.life(id)
	if a.state == StateShutdown || a.state == StateInit {
		return nil
	}
	a.fails++
	var out []Transition
	if a.state != StateSuspended {
		out = lc.move(out, id, a, StateSuspended, tr, reason, now)
	}
	if lc.maxFails > 0 && a.fails >= lc.maxFails {
		out = lc.move(out, id, a, StateShutdown, TriggerMaxFails,
			fmt.Sprintf("%d consecutive failures; last: %s", a.fails, reason), now)
	} else if len(out) == 0 {
		// Still SUSPENDED: the count is kept durable as well.
		out = append(out, Transition{AgentID: id, From: StateSuspended, To: StateSuspended, Trigger: tr,
			Fails: a.fails, Reason: reason, Time: now.UTC()})
	}
	return out
}

// Succeeded records an answered call of id: the failure count restarts,
// and a SUSPENDED agent recovers to ACTIVE.
func (lc *lifecycle) Succeeded(id, reason string, now time.Time) []Transition {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	a := lc.agents[id]
	if a == nil || a.state != StateSuspended {
		if a != nil && a.state == StateActive {
			a.fails = 0
		}
		return nil
	}
	a.fails = 0
	return lc.move(nil, id, a, StateActive, TriggerRecover, reason, now)
}

// Ended moves every agent of ids to SHUTDOWN.
func (lc *lifecycle) Ended(ids []string, now time.Time) []Transition {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	var out []Transition
	for _, id := range ids {
		out = lc.move(out, id, lc.life(id), StateShutdown, TriggerLeagueEnd, "the league ended", now)
	}
	return out
}

// dueProbes returns the SUSPENDED agents of ids whose next probe is due
// and sets their next probe interval later: each agent is probed at most
// once per interval.
func (lc *lifecycle) dueProbes(ids []string, now time.Time, interval time.Duration) []string {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	var out []string
	for _, id := range ids {
		a := lc.agents[id]
		if a == nil || a.state != StateSuspended || now.Before(a.nextProbe) {
			continue
		}
		a.nextProbe = now.Add(interval)
		out = append(out, id)
	}
	return out
}

func (lc *lifecycle) close() {
	if lc != nil && lc.journal != nil {
		_ = lc.journal.Close()
	}
}

// lifecyclePath is the journal of the agents' lifecycle transitions.
func (s store) lifecyclePath() string { return filepath.Join(s.leagueDir(), "lifecycle.jsonl") }

// applyTransitions makes ts durable in the lifecycle journal and announces
// each real change as an agent_state event. It must not be called with a
// lock held.
func (m *Manager) applyTransitions(ts []Transition) {
	// Durable before they are announced, all with one group commit (a
	// registration makes two); a failed write is reported and the states
	// are still kept in memory.
	records := make([]any, len(ts))
	for i, t := range ts {
		records[i] = t
	}
	err := m.life.journal.Append(context.Background(), records...)
	for _, t := range ts {
		if err != nil {
			m.emit(Event{Kind: EventWarning, AgentID: t.AgentID, Message: "lifecycle transition not saved: " + err.Error()})
		}
		if t.From == t.To {
			continue
		}
		t := t
		msg := fmt.Sprintf("%s %s → %s (%s)", t.AgentID, t.From, t.To, t.Trigger)
		if t.Reason != "" {
			msg += ": " + t.Reason
		}
		m.emit(Event{Kind: EventAgentState, Time: t.Time, AgentID: t.AgentID, Transition: &t, Message: msg})
	}
	for _, t := range ts {
		if t.To == StateActive || t.To == StateShutdown {
			m.wakeUp()
			break
		}
	}
}

// agentFailed counts a failed call to the agent, which tr names.
func (m *Manager) agentFailed(id string, tr Trigger, reason string) {
	m.applyTransitions(m.life.Failed(id, tr, reason, m.cfg.Now()))
}

// failureTrigger names the failure err is: a timeout when the agent did
// not answer (no reply in time, or not reachable), an error when it
// answered with one.
func failureTrigger(err error) Trigger {
	switch code := leaguesdk.CodeOf(err); {
	case code == leaguesdk.CodeTimeout, code == leaguesdk.CodeConnectionError:
		return TriggerTimeout
	case errors.As(err, new(*healthStatus)):
		return TriggerError
	}
	var e *leaguesdk.Error
	if errors.As(err, &e) || errors.As(err, new(*leaguesdk.RPCError)) {
		return TriggerError
	}
	return TriggerTimeout // a transport failure outside the client (a /health probe)
}

// agentAnswered records an answered call of the agent.
func (m *Manager) agentAnswered(id, reason string) {
	m.applyTransitions(m.life.Succeeded(id, reason, m.cfg.Now()))
}

// AgentState returns an agent's lifecycle state (players and referees by
// id); [StateInit] for an id the manager does not know.
func (m *Manager) AgentState(id string) AgentState { return m.life.State(id) }

// allAgentIDsLocked returns every player's and referee's id. m.mu must be held.
func (m *Manager) allAgentIDsLocked() []string {
	ids := make([]string, 0, len(m.players)+len(m.referees))
	for _, p := range m.players {
		ids = append(ids, p.ID)
	}
	for _, r := range m.referees {
		ids = append(ids, r.ID)
	}
	return ids
}

// prober probes SUSPENDED agents with GET /health, each at most once per
// ProbeInterval, until ctx ends. An agent that answers is ACTIVE again; one
// that does not counts a failure.
func (m *Manager) prober(ctx context.Context) {
	if m.cfg.ProbeInterval < 0 {
		return
	}
	hc := &http.Client{Timeout: m.cfg.BroadcastTimeout}
	if m.cfg.HTTPClient != nil {
		hc = &http.Client{Transport: m.cfg.HTTPClient.Transport, Timeout: m.cfg.BroadcastTimeout}
	}
	for {
		if m.sleep(ctx, m.cfg.ProbeInterval) != nil {
			return
		}
		m.mu.Lock()
		ids := m.allAgentIDsLocked()
		endpoints := map[string]string{}
		for _, p := range m.players {
			endpoints[p.ID] = p.Endpoint
		}
		for _, r := range m.referees {
			endpoints[r.ID] = r.Endpoint
		}
		m.mu.Unlock()
		for _, id := range m.life.dueProbes(ids, m.clock().Now(), m.cfg.ProbeInterval) {
			if err := probe(ctx, hc, endpoints[id]); err != nil {
				if ctx.Err() != nil {
					return
				}
				m.agentFailed(id, failureTrigger(err), "health probe: "+err.Error())
			} else {
				m.agentAnswered(id, "answered a health probe")
			}
		}
	}
}

// probe asks the agent's /health (next to its /mcp endpoint).
func probe(ctx context.Context, hc *http.Client, endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil {
		return err
	}
	u.Path, u.RawQuery = "/health", ""
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &healthStatus{status: resp.Status}
	}
	return nil
}

// healthStatus is a /health probe answered with another status than 200.
type healthStatus struct{ status string }

func (h *healthStatus) Error() string { return "/health answered " + h.status }

// lifecycleReport feeds a recorded result to the lifecycle: a player the
// report names unresponsive failed, the others answered.
func (m *Manager) lifecycleReport(rec *MatchRecord) {
	for _, id := range []string{rec.PlayerA, rec.PlayerB} {
		if slices.Contains(rec.Result.Details.Unresponsive, id) {
			m.agentFailed(id, TriggerTimeout, rec.MatchID+": technical loss, did not answer the referee")
		} else {
			m.agentAnswered(id, "played "+rec.MatchID)
		}
	}
}

// lifecycleCall feeds the outcome of a call to an agent to the lifecycle:
// an answer is a success, a timeout or an unreachable agent a failure, any
// other error (a refusal) neither.
func (m *Manager) lifecycleCall(id, what string, err error) {
	switch code := leaguesdk.CodeOf(err); {
	case err == nil:
		m.agentAnswered(id, what+" answered")
	case code == leaguesdk.CodeConnectionError || code == leaguesdk.CodeTimeout:
		m.agentFailed(id, TriggerTimeout, what+": "+err.Error())
	}
}

// standingsWithStatesLocked returns a copy of the standings with each
// player's lifecycle state, as query answers show them. m.mu must be held.
func (m *Manager) standingsWithStatesLocked() []leaguesdk.StandingRow {
	rows := append([]leaguesdk.StandingRow{}, m.standingsLocked()...)
	for i := range rows {
		rows[i].State = string(m.life.State(rows[i].PlayerID))
	}
	return rows
}
