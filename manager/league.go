package manager

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentleague/league/internal/agentkit"
	"github.com/agentleague/league/leaguesdk"
)

// maxParallelCalls bounds the calls of one broadcast in flight at once.
const maxParallelCalls = 64

// maxIdlePerAgent is the most idle connections the manager keeps to one
// agent: enough for a referee given every match of a round of up to
// 2 048 players at once (1 024 matches).
const maxIdlePerAgent = 1024

// runLeague waits for the start, plays every round not yet completed, and
// completes the league.
func (m *Manager) runLeague(ctx context.Context) error {
	if err := m.waitForStart(ctx); err != nil {
		return err
	}
	m.mu.Lock()
	status, first, total := m.status, m.roundsCompleted+1, len(m.rounds)
	m.mu.Unlock()
	if status == StatusCompleted {
		m.doneOnce.Do(func() { close(m.done) })
		return nil
	}
	for r := first; r <= total; r++ {
		if err := m.runRound(ctx, r); err != nil {
			return err
		}
	}
	return m.completeLeague(ctx)
}

// waitForStart returns once the league has started: on MinPlayers players
// and a referee, at the end of the registration window with two players and
// a referee, or when Start or start_league started it.
func (m *Manager) waitForStart(ctx context.Context) error {
	for {
		m.mu.Lock()
		status, players, referees := m.status, len(m.players), len(m.referees)
		windowEnd := m.openedAt.Add(m.cfg.RegistrationWindow)
		m.mu.Unlock()
		if status != StatusRegistering {
			return nil
		}
		var wait time.Time
		reason := ""
		switch {
		case referees == 0:
		case m.cfg.MinPlayers > 0 && players >= m.cfg.MinPlayers:
			reason = agentkit.Plural(players, "player") + " registered"
		case m.cfg.RegistrationWindow > 0 && !m.cfg.Now().Before(windowEnd) && players >= 2:
			reason = "the registration window ended"
		case m.cfg.RegistrationWindow > 0 && m.cfg.Now().Before(windowEnd):
			wait = m.clock().Now().Add(windowEnd.Sub(m.cfg.Now()))
		}
		if reason != "" {
			if _, err := m.begin(reason); err != nil {
				m.emit(Event{Kind: EventWarning, Message: "cannot start the league: " + err.Error()})
				if err := m.sleep(ctx, m.cfg.RetryDelay); err != nil {
					return err
				}
			}
			continue
		}
		if err := m.waitUntil(ctx, wait); err != nil {
			return err
		}
	}
}

// sleep waits d on the manager's clock, or until ctx ends.
func (m *Manager) sleep(ctx context.Context, d time.Duration) error {
	c, stop := m.clock().After(d)
	defer stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-c:
		return nil
	}
}

// target is an agent a broadcast goes to.
type target struct {
	id, sender, endpoint, token string
}

// playerTargetsLocked returns every player as a broadcast target.
func (m *Manager) playerTargetsLocked() []target {
	out := make([]target, 0, len(m.players))
	for _, p := range m.players {
		if m.life.State(p.ID) == StateShutdown {
			continue // lifecycle.go: a SHUTDOWN player is not waited for
		}
		out = append(out, target{id: p.ID, sender: leaguesdk.PlayerSender(p.ID), endpoint: p.Endpoint, token: p.AuthToken})
	}
	return out
}

// broadcast runs send for every target concurrently (at most
// maxParallelCalls at once), each call bounded by BroadcastTimeout, and
// returns the targets it failed to reach once all have finished. A target
// that fails is logged and reported as a warning; it never holds the
// others up.
func (m *Manager) broadcast(ctx context.Context, what string, targets []target, send func(ctx context.Context, t target) error) []target {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed []string
	var missed []target
	var next atomic.Int64
	one := func(t target) {
		cctx, cancel := context.WithTimeout(ctx, m.cfg.BroadcastTimeout)
		defer cancel()
		err := send(cctx, t)
		switch {
		case err == nil:
			m.agentAnswered(t.id, what+" answered")
		case ctx.Err() == nil:
			m.agentFailed(t.id, failureTrigger(err), what+": "+err.Error())
		}
		if err != nil && ctx.Err() == nil {
			m.log.Warn("broadcast failed", slog.String("what", what), slog.String("agent_id", t.id),
				slog.String("endpoint", t.endpoint), slog.String("error", err.Error()))
			mu.Lock()
			failed = append(failed, fmt.Sprintf("%s (%s)", t.id, leaguesdk.CodeOf(err)))
			missed = append(missed, t)
			mu.Unlock()
		}
	}
	// maxParallelCalls workers of the manager's pool take the targets in
	// turn: a goroutine per target would grow a fresh stack through the
	// whole client call for each of a 1000-player league's recipients,
	// three times a round.
	for range min(maxParallelCalls, len(targets)) {
		m.workers.GoWait(&wg, func() {
			for i := next.Add(1) - 1; i < int64(len(targets)); i = next.Add(1) - 1 {
				one(targets[i])
			}
		})
	}
	wg.Wait()
	if len(failed) > 0 {
		m.emit(Event{Kind: EventWarning, Message: fmt.Sprintf("%s did not reach %d agent(s): %v", what, len(failed), failed)})
	}
	return missed
}

// call sends msg to one target and discards its answer.
func (m *Manager) call(ctx context.Context, t target, method string, msg any) error {
	var ack leaguesdk.Ack
	return m.client.Call(ctx, t.endpoint, method, msg, &ack)
}

// runRound plays round r: announce, hand out its unfinished matches, wait
// for every result, then tell the players.
func (m *Manager) runRound(ctx context.Context, r int) error {
	m.persistMu.Lock()
	var announce []leaguesdk.ScheduledMatch
	pending := 0
	m.mu.Lock()
	m.currentRound = r
	m.planRoundLocked(r)
	started := m.roundTimes[r-1].StartedAt != nil
	for _, mt := range m.rounds[r-1] {
		sm := leaguesdk.ScheduledMatch{MatchID: mt.MatchID, GameType: m.cfg.GameType, PlayerAID: mt.PlayerA, PlayerBID: mt.PlayerB}
		if ref := m.refByID[mt.RefereeID]; ref != nil {
			sm.RefereeEndpoint = ref.Endpoint
		}
		announce = append(announce, sm)
		if mt.record == nil {
			pending++
		}
	}
	targets := m.playerTargetsLocked()
	m.mu.Unlock()
	if !started {
		now := m.cfg.Now().UTC()
		m.recordRound(roundEvent{RoundID: r, StartedAt: &now})
	}
	m.persistMu.Unlock()
	m.markViews(viewRounds)
	if pending > 0 {
		shared := m.encodeShared(&leaguesdk.RoundAnnouncement{Envelope: leaguesdk.Envelope{MessageType: leaguesdk.MsgRoundAnnouncement},
			LeagueID: m.cfg.LeagueID, RoundID: leaguesdk.RoundID(r), Matches: announce})
		m.broadcast(ctx, fmt.Sprintf("ROUND_ANNOUNCEMENT of round %d", r), targets, func(ctx context.Context, t target) error {
			return m.callShared(ctx, t, leaguesdk.MethodNotifyRound, shared)
		})
		if err := ctx.Err(); err != nil {
			return err
		}
		m.emit(Event{Kind: EventRoundStarted, RoundID: r, Message: fmt.Sprintf("round %d started: %s", r, agentkit.Plural(len(announce), "match"))})
		if err := m.dispatch(ctx, r); err != nil {
			return err
		}
	}
	return m.completeRound(ctx, r)
}

// planRoundLocked picks a referee for every unfinished match of round r:
// the referee a match was given to before a restart, or else the one whose
// planned load relative to its capacity is the lowest — among those equally
// loaded, one that had either player in the round before, whose
// connection to that player is likely still open. The plan is what
// ROUND_ANNOUNCEMENT gives as referee_endpoint; dispatch follows it while
// the referee has room. m.mu must be held.
func (m *Manager) planRoundLocked(r int) {
	load := map[string]int{}
	before := map[string]string{} // player id → their referee in round r-1
	if r >= 2 {
		for _, mt := range m.rounds[r-2] {
			before[mt.PlayerA], before[mt.PlayerB] = mt.RefereeID, mt.RefereeID
		}
	}
	for _, mt := range m.rounds[r-1] {
		if mt.record == nil && mt.status == matchResuming {
			mt.RefereeID = mt.holder()
			load[mt.holder()]++
		}
	}
	for _, mt := range m.rounds[r-1] {
		if mt.record != nil || mt.status == matchResuming {
			continue
		}
		met := func(ref *referee) bool { return ref.ID == before[mt.PlayerA] || ref.ID == before[mt.PlayerB] }
		var best *referee
		for _, ref := range m.referees {
			if !m.supports(ref.GameTypes) || m.life.State(ref.ID) == StateShutdown {
				continue
			}
			if best == nil {
				best = ref
				continue
			}
			// load/capacity against best's load/capacity, without
			// division; at equal loads, the referee the players had before.
			mine, theirs := load[ref.ID]*best.MaxConcurrentMatches, load[best.ID]*ref.MaxConcurrentMatches
			if mine < theirs || mine == theirs && met(ref) && !met(best) {
				best = ref
			}
		}
		mt.RefereeID = ""
		if best != nil {
			mt.RefereeID = best.ID
			load[best.ID]++
		}
	}
}

// startJob is a start_match call to make: attempt number attempt of mt,
// or, with resume, the question to the referee that had mt before a
// restart (see resumeMatch). sched is the scheduler that gave it out.
type startJob struct {
	sched            *scheduler
	mt               *match
	round            int
	attempt          int
	resume           bool
	ref              target
	endpoints        [2]string
	recordA, recordB leaguesdk.PlayerRecord
}

// dispatch hands round r's unfinished matches to referees and returns once
// every match of the round has a result. It runs the round's matches in
// parallel over the referees, least loaded first, never above a referee's
// capacity; it takes a match away from a referee that does not report in
// time and offers a match no referee takes again later (see scheduler).
func (m *Manager) dispatch(ctx context.Context, r int) error {
	m.mu.Lock()
	s := m.newScheduler(r)
	m.mu.Unlock()
	for {
		now := m.clock().Now()
		m.mu.Lock()
		events := s.reclaimExpired(now)
		jobs, stranded := s.assign(now)
		for i := range jobs {
			m.playersOfJobLocked(&jobs[i])
		}
		remaining, next := s.remaining(), s.nextWake(now)
		m.mu.Unlock()
		if len(stranded) > 0 {
			events = append(events, Event{Kind: EventWarning, RoundID: r, Message: fmt.Sprintf(
				"no referee can take %v now; offering again shortly", stranded)})
		}
		for _, e := range events {
			m.emit(e)
		}
		if len(jobs) > 0 {
			m.workers.GoWait(&m.calls, func() { m.startMatches(ctx, jobs) })
		}
		if remaining == 0 {
			return nil
		}
		if err := m.waitUntil(ctx, next); err != nil {
			return err
		}
	}
}

// playersOfJobLocked adds what start_match tells of the players to j:
// their endpoints and records. m.mu must be held.
func (m *Manager) playersOfJobLocked(j *startJob) {
	mt := j.mt
	a, b := m.tallyLocked(mt.PlayerA), m.tallyLocked(mt.PlayerB)
	j.endpoints = [2]string{m.playerByID[mt.PlayerA].Endpoint, m.playerByID[mt.PlayerB].Endpoint}
	j.recordA = leaguesdk.PlayerRecord{Wins: a.wins, Losses: a.losses, Draws: a.draws}
	j.recordB = leaguesdk.PlayerRecord{Wins: b.wins, Losses: b.losses, Draws: b.draws}
}

// waitUntil waits for a wake-up, for the time next (when not zero), or for
// ctx to end.
func (m *Manager) waitUntil(ctx context.Context, next time.Time) error {
	var timer <-chan time.Time
	if !next.IsZero() {
		c, stop := m.clock().After(max(next.Sub(m.clock().Now()), time.Millisecond))
		defer stop()
		timer = c
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-m.wake:
	case <-timer:
	}
	return nil
}

// startMatches runs the jobs of one pass of the scheduler: it writes the
// assignments among them to the journal together, in one group commit
// (a round's matches are handed out in one pass, and could otherwise wait
// for two or more fsyncs in a row), then makes each call on a worker of
// its own. Nothing is sent unless its assignment is on disk, so that a
// restarted manager knows every referee a match was given to.
func (m *Manager) startMatches(ctx context.Context, jobs []startJob) {
	var records []any
	now := m.cfg.Now().UTC()
	for _, j := range jobs {
		if !j.resume {
			records = append(records, assignment{MatchID: j.mt.MatchID, RefereeID: j.ref.id, Attempt: j.attempt, AssignedAt: now})
		}
	}
	saved := m.assigned.Append(ctx, records...)
	if saved != nil && ctx.Err() == nil {
		m.log.Error("cannot journal assignments", slog.Int("matches", len(records)), slog.String("error", saved.Error()))
	}
	for _, j := range jobs {
		m.workers.GoWait(&m.calls, func() {
			if j.resume {
				m.resumeMatch(ctx, j)
			} else {
				m.startMatch(ctx, j, saved)
			}
		})
	}
}

// startMatch sends start_match for j, whose assignment was written to the
// journal unless saved is an error, and records what came of it.
func (m *Manager) startMatch(ctx context.Context, j startJob, saved error) {
	var err error
	if saved != nil {
		err = fmt.Errorf("assignment not saved, start_match not sent: %w", saved)
	} else {
		err = m.sendStartMatch(ctx, j)
	}
	if ctx.Err() != nil {
		return // shutting down; the match is resumed after a restart
	}
	m.settle(j, err)
}

// sendStartMatch sends start_match for j and returns nil when the referee
// accepted the match.
func (m *Manager) sendStartMatch(ctx context.Context, j startJob) error {
	mt := j.mt
	msg := &leaguesdk.StartMatch{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgStartMatch, leaguesdk.LeagueManagerSender, j.ref.token, "", m.cfg.Now()),
		LeagueID: m.cfg.LeagueID, RoundID: leaguesdk.RoundID(j.round), MatchID: mt.MatchID, GameType: m.cfg.GameType,
		PlayerAID: mt.PlayerA, PlayerBID: mt.PlayerB, PlayerAEndpoint: j.endpoints[0], PlayerBEndpoint: j.endpoints[1],
		Standings: map[string]leaguesdk.PlayerRecord{mt.PlayerA: j.recordA, mt.PlayerB: j.recordB},
		Attempt:   j.attempt,
	}
	for _, id := range []string{mt.PlayerA, mt.PlayerB} {
		if m.life.State(id) == StateShutdown { // lifecycle.go
			msg.ShutdownPlayers = append(msg.ShutdownPlayers, id)
		}
	}
	cctx, cancel := context.WithTimeout(ctx, m.cfg.StartMatchTimeout)
	defer cancel()
	resp, err := leaguesdk.CallWith[leaguesdk.StartMatchResponse](cctx, m.client, j.ref.endpoint, msg,
		leaguesdk.CallOptions{Retry: leaguesdk.Once()})
	if err == nil && !resp.Accepted() {
		reason := string(resp.Reason)
		if reason == "" {
			reason = "no reason given"
		}
		err = fmt.Errorf("refused the match (%s): %s", resp.Status, reason)
	}
	return err
}

// resumeMatch asks the referee that had a match before a restart whether
// it still has it (get_match_state). A referee that has it keeps it, and
// the manager waits for its report up to Config.ReportTimeout; a finished
// match is assigned to it again, unchanged, which makes the referee report
// its result again at once. A referee that cannot be reached or does not
// know the match loses it: the match is given out again as a new attempt.
func (m *Manager) resumeMatch(ctx context.Context, j startJob) {
	q := &leaguesdk.StateQuery{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgStateQuery, leaguesdk.LeagueManagerSender, j.ref.token, "", m.cfg.Now()),
		MatchID:  j.mt.MatchID}
	cctx, cancel := context.WithTimeout(ctx, m.cfg.StartMatchTimeout)
	resp, err := leaguesdk.CallWith[leaguesdk.StateResponse](cctx, m.client, j.ref.endpoint, q,
		leaguesdk.CallOptions{Retry: leaguesdk.Once()})
	cancel()
	var st struct {
		LeagueID string `json:"league_id"`
		State    string `json:"state"`
	}
	switch code := leaguesdk.CodeOf(err); {
	case err == nil:
		if json.Unmarshal(resp.State, &st) != nil || (st.LeagueID != "" && st.LeagueID != m.cfg.LeagueID) {
			err = fmt.Errorf("does not know match %s of league %s", j.mt.MatchID, m.cfg.LeagueID)
		}
	case code == leaguesdk.CodeMatchNotFound, code == leaguesdk.CodeConnectionError, code == leaguesdk.CodeTimeout:
	default:
		// The referee does not answer the question (another implementation,
		// or it refuses it): it is taken to have the match, and the report
		// timeout decides.
		m.log.Info("referee cannot say whether it has a match; waiting for its report", slog.String("match_id", j.mt.MatchID),
			slog.String("referee_id", j.ref.id), slog.String("error", err.Error()))
		err = nil
	}
	if err == nil && st.State == "FINISHED" {
		// Reported before, perhaps to the manager that stopped: ask for the
		// report again (a repeated start_match is idempotent).
		if e := m.sendStartMatch(ctx, j); e != nil {
			m.log.Info("referee did not take the repeated start_match", slog.String("match_id", j.mt.MatchID),
				slog.String("referee_id", j.ref.id), slog.String("error", e.Error()))
		}
	}
	if ctx.Err() != nil {
		return
	}
	m.settle(j, err)
}

// settle records the outcome of a start_match (or, with resumed, of the
// question about a resumed match) with the job's scheduler, reports it and
// wakes dispatch.
func (m *Manager) settle(j startJob, err error) {
	m.mu.Lock()
	ev := j.sched.settled(j, err, m.clock().Now())
	m.mu.Unlock()
	if ev.Kind != "" {
		m.emit(ev)
	}
	m.lifecycleCall(j.ref.id, "start_match of "+j.mt.MatchID, err) // lifecycle.go
	m.wakeUp()
}

// roundSummaryLocked counts round r's outcomes. m.mu must be held.
func (m *Manager) roundSummaryLocked(r int) leaguesdk.RoundSummary {
	var s leaguesdk.RoundSummary
	for _, mt := range m.rounds[r-1] {
		if mt.record == nil {
			continue
		}
		s.TotalMatches++
		switch mt.record.status.Value() {
		case leaguesdk.ResultDraw:
			s.Draws++
		case leaguesdk.ResultTechnicalLoss:
			s.TechnicalLosses++
		default:
			s.Wins++
		}
	}
	return s
}

// completeRound tells every player the standings and that round r is
// over, then records the round as completed.
func (m *Manager) completeRound(ctx context.Context, r int) error {
	m.mu.Lock()
	standings := append([]leaguesdk.StandingRow(nil), m.standingsLocked()...)
	summary := m.roundSummaryLocked(r)
	targets := m.playerTargetsLocked()
	var next *leaguesdk.RoundID
	if r < len(m.rounds) {
		n := leaguesdk.RoundID(r + 1)
		next = &n
	}
	m.mu.Unlock()
	table := m.encodeShared(&leaguesdk.LeagueStandingsUpdate{Envelope: leaguesdk.Envelope{MessageType: leaguesdk.MsgLeagueStandingsUpdate},
		LeagueID: m.cfg.LeagueID, RoundID: leaguesdk.RoundID(r), Standings: standings})
	m.broadcast(ctx, fmt.Sprintf("the results of round %d", r), targets, func(ctx context.Context, t target) error {
		err := m.callShared(ctx, t, leaguesdk.MethodUpdateStandings, table)
		if ctx.Err() != nil {
			return err
		}
		err2 := m.call(ctx, t, leaguesdk.MethodNotifyRoundCompleted, &leaguesdk.RoundCompleted{
			Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgRoundCompleted, leaguesdk.LeagueManagerSender, t.token, "", m.cfg.Now()),
			LeagueID: m.cfg.LeagueID, RoundID: leaguesdk.RoundID(r), MatchesCompleted: summary.TotalMatches,
			NextRoundID: next, Summary: &summary})
		return errors.Join(err, err2)
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	now := m.cfg.Now().UTC()
	m.recordRound(roundEvent{RoundID: r, CompletedAt: &now})
	m.markViews(viewStandings | viewRounds)
	// Once the result events of the round's matches are all out.
	m.announcing.Lock()
	defer m.announcing.Unlock()
	m.emit(Event{Kind: EventRoundCompleted, RoundID: r, Standings: standings, Message: fmt.Sprintf(
		"round %d completed: %s, %s, %s, %s", r, agentkit.Plural(summary.TotalMatches, "match"),
		agentkit.Plural(summary.Wins, "win"), agentkit.Plural(summary.Draws, "draw"), agentkit.Plural(summary.TechnicalLosses, "technical loss"))})
	return nil
}

// completeLeague names the champion, sends LEAGUE_COMPLETED to every
// player and referee, and records the league as completed.
func (m *Manager) completeLeague(ctx context.Context) error {
	m.mu.Lock()
	standings := append([]leaguesdk.StandingRow(nil), m.standingsLocked()...)
	var champion *leaguesdk.Champion
	if len(standings) > 0 {
		champion = &leaguesdk.Champion{PlayerID: standings[0].PlayerID, DisplayName: standings[0].DisplayName, Points: standings[0].Points}
	}
	targets := m.playerTargetsLocked()
	// A player shut down meanwhile (lifecycle.go) hears of the end as well:
	// alive again, it learns the results it missed from the final
	// standings. Not waiting for it is over; one call, bounded like the
	// others, is the last.
	for _, p := range m.players {
		if m.life.State(p.ID) == StateShutdown {
			targets = append(targets, target{id: p.ID, sender: leaguesdk.PlayerSender(p.ID), endpoint: p.Endpoint, token: p.AuthToken})
		}
	}
	for _, ref := range m.referees {
		targets = append(targets, target{id: ref.ID, sender: leaguesdk.RefereeSender(ref.ID), endpoint: ref.Endpoint, token: ref.AuthToken})
	}
	rounds, matches := len(m.rounds), m.matchCount()
	ids := m.allAgentIDsLocked()
	m.mu.Unlock()
	// The final standings are encoded once, as a round's are: each agent
	// gets its own envelope followed by the same bytes.
	shared := m.encodeShared(&leaguesdk.LeagueCompleted{Envelope: leaguesdk.Envelope{MessageType: leaguesdk.MsgLeagueCompleted},
		LeagueID: m.cfg.LeagueID, TotalRounds: rounds, TotalMatches: matches, Champion: champion, FinalStandings: standings})
	send := func(ctx context.Context, t target) error {
		return m.callShared(ctx, t, leaguesdk.MethodNotifyLeagueCompleted, shared)
	}
	missed := m.broadcast(ctx, "LEAGUE_COMPLETED", targets, send)
	if err := ctx.Err(); err != nil {
		return err
	}
	// The players it did not reach are told again while the manager runs
	// (redeliverCompletion): one alive again learns the results it missed.
	m.mu.Lock()
	m.completion = completion{send: send}
	for _, t := range missed {
		if t.sender == leaguesdk.PlayerSender(t.id) { // the referees need nothing more
			m.completion.missed = append(m.completion.missed, t)
		}
	}
	m.mu.Unlock()
	m.applyTransitions(m.life.Ended(ids, m.cfg.Now())) // lifecycle.go
	m.persistMu.Lock()
	err := m.saveState(func() error {
		now := m.cfg.Now().UTC()
		m.status, m.completedAt, m.champion, m.currentRound = StatusCompleted, &now, champion, 0
		return nil
	}, nil)
	m.persistMu.Unlock()
	if err != nil {
		m.emit(Event{Kind: EventWarning, Message: "league completion not saved: " + err.Error()})
	}
	if err := m.writeConfigFiles(); err != nil {
		m.log.Warn("cannot write the league configuration", slog.String("error", err.Error()))
	}
	m.writeViews(viewStandings|viewRounds, true)
	msg := fmt.Sprintf("league %s completed after %s and %s", m.cfg.LeagueID, agentkit.Plural(rounds, "round"), agentkit.Plural(matches, "match"))
	if champion != nil {
		msg += fmt.Sprintf("; champion %s (%s) with %s", champion.PlayerID, champion.DisplayName, agentkit.Plural(champion.Points, "point"))
	}
	m.emit(Event{Kind: EventLeagueCompleted, Standings: standings, Champion: champion, Message: msg})
	m.doneOnce.Do(func() { close(m.done) })
	return nil
}

// completion is what LEAGUE_COMPLETED's redelivery needs: the players it
// has not reached yet, and how to send it to one.
type completion struct {
	missed []target
	send   func(ctx context.Context, t target) error
}

// redeliverCompletion sends LEAGUE_COMPLETED again to each player the
// league's end did not reach (down, cut off, or shut down and gone), after
// RetryDelay and then at doubling pauses up to MaxRetryDelay, until every
// one has acknowledged it or ctx ends: a player that is back learns that
// the league is over, and fills its history from the final standings. Each
// try calls the player afresh, whatever its endpoint's circuit breaker
// learned during the league. It calls nothing when every player was
// reached.
func (m *Manager) redeliverCompletion(ctx context.Context) {
	m.mu.Lock()
	c := m.completion
	m.mu.Unlock()
	pending := c.missed
	for delay := m.cfg.RetryDelay; len(pending) > 0; delay = min(2*delay, m.cfg.MaxRetryDelay) {
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		var still []target
		for _, t := range pending {
			// Called afresh: the breaker of its endpoint, open for the
			// failures that made it miss the end, would refuse the call
			// for a while yet; these calls are few and far between.
			m.client.Forget(t.endpoint)
			cctx, cancel := context.WithTimeout(ctx, m.cfg.BroadcastTimeout)
			err := c.send(cctx, t)
			cancel()
			switch {
			case ctx.Err() != nil:
				return
			case err != nil:
				still = append(still, t)
				m.log.Debug("LEAGUE_COMPLETED not delivered again", slog.String("agent_id", t.id), slog.String("error", err.Error()))
			default:
				m.log.Info("LEAGUE_COMPLETED delivered late", slog.String("agent_id", t.id))
			}
		}
		pending = still
	}
}
