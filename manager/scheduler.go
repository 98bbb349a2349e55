package manager

import (
	"fmt"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// scheduler owns the transitions of one round's matches:
//
//	PENDING  → STARTING  assign: start_match is to be sent to a referee with room
//	RESUMING → STARTING  assign: its referee of before a restart is to be asked about it
//	STARTING → RUNNING   settled: the referee took the match (or still has it)
//	STARTING → PENDING   settled: the referee refused it or could not be reached
//	RUNNING  → PENDING   reclaimExpired: no report within Config.ReportTimeout
//	RUNNING  → FINISHED  the manager's results (results.go), on the report
//
// Its methods take the time as an argument and do no I/O; they run with
// the manager's mu held, and dispatch turns what they return into calls.
type scheduler struct {
	round   int
	matches []*match
	// referees returns the registered referees, in registration order;
	// usable says whether one plays the league's game type and is not SHUTDOWN.
	referees                                 func() []*referee
	usable                                   func(*referee) bool
	reportTimeout, retryDelay, maxRetryDelay time.Duration
}

// newScheduler returns the scheduler of round r's matches. m.mu must be
// held while its methods run.
func (m *Manager) newScheduler(r int) *scheduler {
	return &scheduler{round: r, matches: m.rounds[r-1],
		referees:      func() []*referee { return m.referees },
		usable:        func(ref *referee) bool { return m.supports(ref.GameTypes) && m.life.State(ref.ID) != StateShutdown },
		reportTimeout: m.cfg.ReportTimeout, retryDelay: m.cfg.RetryDelay, maxRetryDelay: m.cfg.MaxRetryDelay}
}

// referee returns the registered referee id, or nil.
func (s *scheduler) referee(id string) *referee {
	for _, ref := range s.referees() {
		if ref.ID == id {
			return ref
		}
	}
	return nil
}

// remaining returns the number of the round's matches without a result.
func (s *scheduler) remaining() int {
	n := 0
	for _, mt := range s.matches {
		if mt.status != leaguesdk.MatchFinished {
			n++
		}
	}
	return n
}

// reclaimExpired takes every running match whose referee has not reported
// by now away from it: the match is pending again, never again offered to
// that referee. It returns one EventMatchReassigned for each.
func (s *scheduler) reclaimExpired(now time.Time) []Event {
	var events []Event
	for _, mt := range s.matches {
		if mt.status != leaguesdk.MatchRunning || now.Before(mt.run.deadline) { // running: it has its run
			continue
		}
		ref := s.referee(mt.holder())
		ref.active--
		mt.exclude(ref.ID)
		mt.status, mt.run.referee = leaguesdk.MatchPending, ""
		events = append(events, Event{Kind: EventMatchReassigned, RoundID: s.round, MatchID: mt.MatchID, PlayerA: mt.PlayerA,
			PlayerB: mt.PlayerB, RefereeID: ref.ID, Message: fmt.Sprintf("referee %s did not report %s within %s; the match goes to another referee",
				ref.ID, mt.MatchID, s.reportTimeout)})
	}
	return events
}

// assign gives out what can be given out now: a resumed match goes to its
// referee of before the restart (as a question, resume set), a pending
// match whose pause is over to the referee pickReferee names, as a new
// attempt. Each is STARTING afterwards. It also returns the ids of the
// pending matches that no referee can take at all, which wait (with a
// growing pause) and may go to any referee again afterwards.
//
// A pass looks at the referees once (which are usable now, which have
// room), not once per match: the manager makes a pass at every report, so
// per-match work over every referee would cost a round matches² ×
// referees.
func (s *scheduler) assign(now time.Time) (jobs []startJob, stranded []string) {
	var refs []*referee // usable now
	for _, ref := range s.referees() {
		if !now.Before(ref.downUntil) && s.usable(ref) {
			refs = append(refs, ref)
		}
	}
	room := hasRoom(refs)
	for _, mt := range s.matches {
		switch {
		case mt.status == matchResuming:
			mt.status = matchStarting
			jobs = append(jobs, s.job(mt, s.referee(mt.holder()), true))
			continue
		case mt.status != leaguesdk.MatchPending, mt.run != nil && now.Before(mt.run.notBefore):
			continue
		case !room && len(refs) > 0 && (mt.run == nil || len(mt.run.excluded) == 0):
			continue // every referee is full; one will take it once it has room
		}
		ref, anyEligible := pickReferee(mt, refs)
		if ref == nil {
			if !anyEligible {
				r := mt.live()
				r.backoff = min(max(2*r.backoff, s.retryDelay), s.maxRetryDelay)
				r.notBefore = now.Add(r.backoff)
				clear(r.excluded)
				stranded = append(stranded, mt.MatchID)
			}
			continue
		}
		ref.active++
		if ref.active >= ref.MaxConcurrentMatches {
			room = hasRoom(refs)
		}
		r := mt.live()
		mt.status, r.referee, mt.RefereeID = matchStarting, ref.ID, ref.ID
		mt.assign(ref.ID)
		r.attempt++
		jobs = append(jobs, s.job(mt, ref, false))
	}
	return jobs, stranded
}

// job returns the start_match call (or, with resume, the question) that
// gives mt to ref as its current attempt.
func (s *scheduler) job(mt *match, ref *referee, resume bool) startJob {
	return startJob{sched: s, mt: mt, round: s.round, attempt: mt.attempts(), resume: resume,
		ref: target{id: ref.ID, sender: leaguesdk.RefereeSender(ref.ID), endpoint: ref.Endpoint, token: ref.AuthToken}}
}

// nextWake returns the earliest time after now at which a pass could do
// more than now — a report deadline, the end of a match's pause or of a
// referee's — or the zero time when only an event (a report, a settled
// call, a registration) can.
func (s *scheduler) nextWake(now time.Time) time.Time {
	var next time.Time
	soon := func(t time.Time) {
		if now.Before(t) && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	for _, mt := range s.matches {
		switch mt.status {
		case leaguesdk.MatchRunning:
			soon(mt.run.deadline)
		case leaguesdk.MatchPending:
			if mt.run != nil {
				soon(mt.run.notBefore)
			}
		}
	}
	for _, ref := range s.referees() {
		soon(ref.downUntil)
	}
	return next
}

// hasRoom reports whether any of refs can take one more match.
func hasRoom(refs []*referee) bool {
	for _, ref := range refs {
		if ref.active < ref.MaxConcurrentMatches {
			return true
		}
	}
	return false
}

// pickReferee returns the referee to give mt to: among the usable referees with
// room, the least loaded for its capacity (active/capacity, the same
// measure planRoundLocked uses, so a round dispatched to idle referees goes
// where ROUND_ANNOUNCEMENT said); among equals its planned referee, then
// the one with the most free places, then the first registered. It returns
// nil and whether any referee could take the match once it has room.
func pickReferee(mt *match, usable []*referee) (*referee, bool) {
	var best *referee
	anyEligible := false
	for _, ref := range usable {
		if mt.excludes(ref.ID) {
			continue
		}
		anyEligible = true
		if ref.active >= ref.MaxConcurrentMatches {
			continue
		}
		if best == nil {
			best = ref
			continue
		}
		// Compare active/capacity without division.
		mine, theirs := ref.active*best.MaxConcurrentMatches, best.active*ref.MaxConcurrentMatches
		switch {
		case mine < theirs:
			best = ref
		case mine == theirs && best.ID != mt.RefereeID && (ref.ID == mt.RefereeID ||
			ref.MaxConcurrentMatches-ref.active > best.MaxConcurrentMatches-best.active):
			best = ref
		}
	}
	return best, anyEligible
}

// settled records what came of job j at now: with err nil the match runs
// on its referee until its report or the report timeout; otherwise it is
// pending again and offered to another referee, and a referee that could
// not be reached is passed over by every match for a while. A job that
// is no longer the match's current one changes nothing. It returns the
// event to report, with an empty Kind when there is none.
func (s *scheduler) settled(j startJob, err error, now time.Time) Event {
	mt := j.mt
	ref := s.referee(j.ref.id)
	if mt.status != matchStarting || ref == nil || mt.holder() != ref.ID {
		return Event{}
	}
	if err == nil {
		mt.status, mt.run.deadline = leaguesdk.MatchRunning, now.Add(s.reportTimeout)
		mt.run.backoff = 0
		ref.failures = 0
		msg := fmt.Sprintf("%s (%s vs %s) runs on referee %s", mt.MatchID, mt.PlayerA, mt.PlayerB, ref.ID)
		if j.resume {
			msg = fmt.Sprintf("%s (%s vs %s) is still with referee %s; waiting for its report", mt.MatchID, mt.PlayerA, mt.PlayerB, ref.ID)
		}
		return Event{Kind: EventMatchAssigned, RoundID: j.round, MatchID: mt.MatchID, PlayerA: mt.PlayerA, PlayerB: mt.PlayerB,
			RefereeID: ref.ID, Message: msg}
	}
	ref.active--
	mt.status, mt.run.referee = leaguesdk.MatchPending, ""
	mt.exclude(ref.ID)
	if code := leaguesdk.CodeOf(err); (code == leaguesdk.CodeConnectionError || code == leaguesdk.CodeTimeout) && !now.Before(ref.downUntil) {
		// The other calls that fail while the referee is passed over were
		// in flight with this one (its connections reset, its process
		// killed): one failure, one pause.
		ref.failures++
		ref.downUntil = now.Add(min(s.retryDelay<<min(ref.failures-1, 16), s.maxRetryDelay))
	}
	what := "did not take"
	if j.resume {
		what = "no longer has"
	}
	return Event{Kind: EventWarning, RoundID: j.round, MatchID: mt.MatchID, RefereeID: ref.ID,
		Message: fmt.Sprintf("referee %s %s %s: %v; trying another referee", ref.ID, what, mt.MatchID, err)}
}
