package manager

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"time"

	wirejson "github.com/agentleague/league/internal/json"
	"github.com/agentleague/league/internal/ratelimit"
	"github.com/agentleague/league/leaguesdk"
)

// Some answers grow with the league: the standings with the players, the
// whole schedule with their square (499 500 matches, some 100 MB, at 1000
// players). Such a query costs the manager far more than any call of the
// league's own, and callers that ask again and again would take the
// processors from the league. So:
//
//   - each caller has one such query answered at a time, and may ask for
//     the whole schedule at Config.ScheduleRate; a query over either is
//     refused at once with E010;
//   - the whole schedule is answered one at a time for all callers, paced
//     at Config.ScheduleBytesPerSecond, and refused at once with E010
//     meanwhile;
//   - the whole schedule is encoded outside the lock that the league's own
//     calls take, a round at a time; a round whose matches all have their
//     result is encoded once for the league's life, and the answer is
//     made once per round (or after a second, results being recorded) and
//     shared by every caller meanwhile;
//   - a player asks for its own matches (query_params.player_id), an
//     answer of its own size, read from an index of each player's matches.

// Callers that prove no agent (no token the manager issued) may register;
// any other call of theirs is refused (E011, E012) but costs the manager an
// exchange all the same, and strangers that ask again at once would cost
// it as many as its league's own calls. Beyond registrations they share a
// bucket per address of strangerRate calls a second, and one refused is
// told to come back after strangerPause.
const (
	strangerRate  = 10
	strangerPause = 10 * time.Second
)

// strangerLimit is the middleware that bounds the calls of callers that
// prove no agent to the tools that need a token.
func (m *Manager) strangerLimit() leaguesdk.Middleware {
	lim := ratelimit.New(ratelimit.Config{PerSecond: strangerRate, Identify: m.identify, Now: m.cfg.Now})
	return func(next leaguesdk.HandlerFunc) leaguesdk.HandlerFunc {
		return func(ctx context.Context, req *leaguesdk.Request) (any, error) {
			switch req.Tool {
			case leaguesdk.MethodRegisterReferee, leaguesdk.MethodRegisterPlayer:
				return next(ctx, req)
			}
			key := lim.Key(req)
			if strings.HasPrefix(key, "agent:") {
				return next(ctx, req)
			}
			if ok, _ := lim.Allow(key); !ok {
				return nil, &leaguesdk.RateLimitError{RetryAfter: strangerPause, Caller: key + " (a caller that proves no agent)"}
			}
			return next(ctx, req)
		}
	}
}

// queryGate bounds the queries whose answers grow with the league.
type queryGate struct {
	rate *ratelimit.Limiter // whole schedules per caller; nil: no rate
	now  func() time.Time
	// bytesPerSecond paces the whole schedule's answers; <= 0: not paced.
	bytesPerSecond float64

	mu       sync.Mutex
	inFlight map[string]bool // callers with a large query being answered
	busy     bool            // a whole schedule is being answered
	next     time.Time       // the next whole schedule not before then
}

func newQueryGate(perSecond, bytesPerSecond float64, now func() time.Time) *queryGate {
	g := &queryGate{bytesPerSecond: bytesPerSecond, inFlight: map[string]bool{}, now: now}
	if perSecond > 0 {
		g.rate = ratelimit.New(ratelimit.Config{PerSecond: perSecond, Now: now})
	}
	return g
}

// enter admits a large query of caller, whole when it asks for the whole
// schedule, or refuses it with a [*leaguesdk.RateLimitError]. leave ends
// it, charging the answer's size to the schedule's pace.
func (g *queryGate) enter(caller string, whole bool) (leave func(size int), err error) {
	now := g.now()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.inFlight[caller] {
		return nil, &leaguesdk.RateLimitError{RetryAfter: time.Second, Caller: caller + " (a large query of its own is being answered)"}
	}
	if whole {
		if g.busy || now.Before(g.next) {
			return nil, &leaguesdk.RateLimitError{RetryAfter: max(g.next.Sub(now), time.Second),
				Caller: caller + " (the whole schedule is being answered to another caller)"}
		}
	}
	if whole && g.rate != nil {
		if ok, wait := g.rate.Allow(caller); !ok {
			return nil, &leaguesdk.RateLimitError{RetryAfter: wait, Caller: caller + " (large queries)"}
		}
	}
	g.inFlight[caller] = true
	if whole {
		g.busy = true
	}
	return func(size int) {
		g.mu.Lock()
		defer g.mu.Unlock()
		delete(g.inFlight, caller)
		if !whole {
			return
		}
		g.busy = false
		if g.bytesPerSecond > 0 {
			g.next = g.now().Add(time.Duration(float64(size) / g.bytesPerSecond * float64(time.Second)))
		}
	}, nil
}

// scheduleCache keeps the whole schedule's answer and the encoded rounds
// it is made of that cannot change any more.
type scheduleCache struct {
	mu   sync.Mutex // held while an answer is made: one at a time
	done [][]byte   // the encoded entries of rounds whose every match is recorded; nil: not yet
	key  scheduleKey
	at   time.Time // when data was made
	data []byte    // ScheduleData, encoded
}

// scheduleKey is the state an answer of the whole schedule was made in.
type scheduleKey struct {
	status                  LeagueStatus
	rounds, current, closed int
	results                 int
}

// scheduleFresh is how long an answer of the whole schedule is shared
// within a round while results come in.
const scheduleFresh = time.Second

// wholeSchedule returns the data of GET_SCHEDULE without a player, encoded:
// the answer made in this round (less than scheduleFresh ago, or with no
// result recorded since), or a new one.
func (m *Manager) wholeSchedule() ([]byte, error) {
	c := &m.schedule
	c.mu.Lock()
	defer c.mu.Unlock()
	m.mu.Lock()
	key := scheduleKey{status: m.status, rounds: len(m.rounds), current: m.currentRound, closed: m.roundsCompleted, results: len(m.records)}
	m.mu.Unlock()
	now := time.Now()
	same := c.data != nil && c.key.status == key.status && c.key.rounds == key.rounds && c.key.current == key.current && c.key.closed == key.closed
	if same && (c.key.results == key.results || now.Sub(c.at) < scheduleFresh) {
		return c.data, nil
	}
	var out bytes.Buffer
	head, err := wirejson.Marshal(leaguesdk.ScheduleData{LeagueID: m.cfg.LeagueID, Matches: []leaguesdk.ScheduleEntry{}})
	if err != nil {
		return nil, err
	}
	open := bytes.LastIndex(head, []byte("[]"))
	out.Write(head[:open+1])
	first := true
	var entries []leaguesdk.ScheduleEntry
	for i := range key.rounds {
		var chunk []byte
		if i < len(c.done) && c.done[i] != nil {
			chunk = c.done[i]
		} else {
			m.mu.Lock()
			if i >= len(m.rounds) {
				m.mu.Unlock()
				break
			}
			entries = entries[:0]
			finished := true
			for _, mt := range m.rounds[i] {
				entries = append(entries, m.entryLocked(mt))
				finished = finished && mt.record != nil
			}
			m.mu.Unlock()
			b, err := wirejson.Marshal(entries)
			if err != nil {
				return nil, err
			}
			chunk = b[1 : len(b)-1] // the entries without their brackets
			if finished {
				for len(c.done) <= i {
					c.done = append(c.done, nil)
				}
				c.done[i] = chunk
			}
		}
		if len(chunk) == 0 {
			continue
		}
		if !first {
			out.WriteByte(',')
		}
		first = false
		out.Write(chunk)
	}
	out.Write(head[open+1:])
	c.key, c.at, c.data = key, now, out.Bytes()
	return c.data, nil
}

// playerScheduleLocked returns the matches of player id, in the order of
// the schedule. m.mu must be held.
func (m *Manager) playerScheduleLocked(id string) []leaguesdk.ScheduleEntry {
	mine := m.byPlayer[id]
	out := make([]leaguesdk.ScheduleEntry, 0, len(mine))
	for _, mt := range mine {
		out = append(out, m.entryLocked(mt))
	}
	return out
}
