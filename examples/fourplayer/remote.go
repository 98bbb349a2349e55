package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
)

// With -manager the league's manager runs in another process, and the
// command follows its league by polling GET /api/state, the state the
// dashboard shows. What it reads there is turned into the events an
// in-process manager gives OnEvent, so the league is shown the same way.

// How often the state is read: a league shown per match is read often
// enough to show its rounds as they go; one shown per round only needs
// its totals.
const (
	pollPerMatch = 100 * time.Millisecond
	pollPerRound = time.Second
)

// checkManagerURL checks -manager: an http:// or https:// URL with a host.
func checkManagerURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("-manager must be a manager's endpoint such as http://127.0.0.1:8000/mcp, not %q", s)
	}
	return nil
}

// remoteManager reads the state of a manager running elsewhere.
type remoteManager struct {
	base   string // scheme://host of the manager: the dashboard, /api/state
	client *http.Client
}

// newRemoteManager returns the reader of the manager at endpoint, which
// checkManagerURL accepted.
func newRemoteManager(endpoint string) *remoteManager {
	u, _ := url.Parse(endpoint)
	return &remoteManager{base: u.Scheme + "://" + u.Host, client: &http.Client{Timeout: 10 * time.Second}}
}

func (r *remoteManager) close() { r.client.CloseIdleConnections() }

// state reads GET /api/state: the matches of round only when round is
// not 0, else the manager's default (every match of a small league, the
// current round's of a larger one).
func (r *remoteManager) state(ctx context.Context, round int) (manager.Snapshot, error) {
	var s manager.Snapshot
	u := r.base + "/api/state"
	if round > 0 {
		u += "?round=" + strconv.Itoa(round)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return s, err
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return s, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		return s, fmt.Errorf("GET %s: %w", u, err)
	}
	return s, nil
}

// waitUp waits up to patience for the manager to answer, so that the
// manager and this command may be started together.
func (r *remoteManager) waitUp(ctx context.Context, patience time.Duration, out *progress) error {
	deadline := time.Now().Add(patience)
	for said := false; ; said = true {
		s, err := r.state(ctx, 1)
		if err == nil {
			if s.Status == manager.StatusCompleted {
				return fmt.Errorf("the league %s of the manager at %s has already completed", s.LeagueID, r.base)
			}
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no manager answers at %s: %w", r.base, err)
		}
		if !said {
			out.printf("waiting for the manager at %s …\n", r.base)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("stopped while waiting for the manager: %w", context.Cause(ctx))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// follow shows the manager's league until it completes, and returns its
// final state. A manager that does not answer is read again at the next
// poll: it may be restarting, and its league goes on. It fails when an
// agent of this process stops with an error, or when ctx ends.
func (r *remoteManager) follow(ctx context.Context, out *progress, errc <-chan error) (manager.Snapshot, error) {
	f := &follower{out: out, round: 1}
	interval := pollPerMatch
	if out.perRound {
		interval = pollPerRound
	}
	for {
		done, final, err := f.step(ctx, r)
		if err == nil && done {
			return final, nil
		}
		select {
		case <-ctx.Done():
			return final, fmt.Errorf("stopped while waiting for the league to complete: %w", context.Cause(ctx))
		case err := <-errc:
			return final, err
		case <-time.After(interval):
		}
	}
}

// follower turns successive states of a league into the manager's events.
type follower struct {
	out     *progress
	started bool

	// Per match: the round being shown, whether its "Round r" line is
	// out, and the matches of it shown as assigned and as finished.
	round              int
	roundShown         bool
	assigned, finished map[string]bool

	// Per round: the rounds shown as completed.
	completed int
}

// step reads the state once (per match: the state of each round from the
// one being shown up to the current one) and shows what changed. It
// reports whether the league has completed and everything is shown.
func (f *follower) step(ctx context.Context, r *remoteManager) (bool, manager.Snapshot, error) {
	for {
		round := 0
		if !f.out.perRound {
			round = f.round
		}
		s, err := r.state(ctx, round)
		if err != nil {
			return false, s, err
		}
		if s.Status == manager.StatusRegistering {
			return false, s, nil
		}
		f.start(s)
		if f.out.perRound {
			return f.rounds(s), s, nil
		}
		more, err := f.matches(s)
		if err != nil || !more {
			return s.Status == manager.StatusCompleted && f.round > s.TotalRounds, s, err
		}
	}
}

// start shows the league's start once, and learns the names of players
// registered by others.
func (f *follower) start(s manager.Snapshot) {
	f.out.learn(s.Players)
	if f.started {
		return
	}
	f.started = true
	f.out.setLeague(len(s.Players), s.Totals.Scheduled, s.TotalRounds)
	f.out.event(manager.Event{Kind: manager.EventLeagueStarted, Message: fmt.Sprintf("league %s started: %s, %s",
		s.LeagueID, plural(len(s.Players), "player"), plural(s.TotalRounds, "round"))})
}

// rounds shows the rounds completed since the last state. The rounds are
// played one after another and have the same number of matches, so the
// first finished/perRound rounds are complete.
func (f *follower) rounds(s manager.Snapshot) bool {
	complete := max(s.CurrentRound-1, 0)
	perRound := 0
	if s.TotalRounds > 0 {
		perRound = s.Totals.Scheduled / s.TotalRounds
	}
	if perRound > 0 {
		complete = max(complete, s.Totals.Finished/perRound)
	}
	if s.Status == manager.StatusCompleted {
		complete = s.TotalRounds
	}
	for ; f.completed < min(complete, s.TotalRounds); f.completed++ {
		r := f.completed + 1
		f.out.roundCompleted(r, min(r*perRound, s.Totals.Scheduled))
	}
	return s.Status == manager.StatusCompleted
}

// matches shows what changed in the round being shown, whose matches s
// holds. It reports whether that round is over, so that the next one is
// to be read.
func (f *follower) matches(s manager.Snapshot) (bool, error) {
	if s.MatchesRound != 0 && s.MatchesRound != f.round {
		return false, fmt.Errorf("asked for the matches of round %d, got round %d's", f.round, s.MatchesRound)
	}
	if f.round > s.TotalRounds {
		return false, nil
	}
	var ms []leaguesdk.ScheduleEntry
	for _, m := range s.Matches {
		if int(m.RoundID) == f.round {
			ms = append(ms, m)
		}
	}
	playing := s.CurrentRound > f.round || s.Status == manager.StatusCompleted
	for _, m := range ms {
		playing = playing || m.Status != leaguesdk.MatchPending
	}
	if !playing {
		return false, nil
	}
	if !f.roundShown {
		f.roundShown, f.assigned, f.finished = true, map[string]bool{}, map[string]bool{}
		f.out.event(manager.Event{Kind: manager.EventRoundStarted, RoundID: f.round})
	}
	for _, m := range ms {
		if m.Status != leaguesdk.MatchPending && !f.assigned[m.MatchID] {
			f.assigned[m.MatchID] = true
			f.out.event(manager.Event{Kind: manager.EventMatchAssigned, MatchID: m.MatchID, PlayerA: m.PlayerAID, PlayerB: m.PlayerBID, RefereeID: m.RefereeID})
		}
	}
	left := 0
	for _, m := range ms {
		switch {
		case m.Status != leaguesdk.MatchFinished || m.Result == nil:
			left++
		case !f.finished[m.MatchID]:
			f.finished[m.MatchID] = true
			f.out.event(manager.Event{Kind: manager.EventMatchResult, MatchID: m.MatchID, PlayerA: m.PlayerAID, PlayerB: m.PlayerBID, Result: m.Result})
		}
	}
	if left > 0 || len(ms) == 0 {
		return false, nil
	}
	f.out.event(manager.Event{Kind: manager.EventRoundCompleted, RoundID: f.round})
	f.round, f.roundShown = f.round+1, false
	return true, nil
}

// learn adds the names of players this process did not register.
func (p *progress) learn(players []manager.PlayerInfo) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pl := range players {
		if _, ok := p.names[pl.PlayerID]; !ok {
			p.names[pl.PlayerID] = pl.DisplayName
		}
	}
}

// setLeague sets the size of a league run by another process.
func (p *progress) setLeague(players, matches, rounds int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.players, p.matches, p.rounds = players, matches, rounds
}

// roundCompleted shows round r of a league shown per round as completed,
// with done matches finished.
func (p *progress) roundCompleted(r, done int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = done
	fmt.Fprintln(p.w, p.roundLine(r, time.Since(p.started)))
}
