package player

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentleague/league/internal/agentkit"
	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player/internal/broadcast"
)

// A player that is down, or cut off, when its GAME_OVER comes never learns
// that result from the referee. The manager has it: a player that notices
// a gap — its standings row counts more matches played than its history
// holds, or other wins, draws or losses, or it was started again and
// registered as itself — asks the manager for the league's schedule
// (LEAGUE_QUERY GET_SCHEDULE) and records every finished match of its own
// that its history lacks or holds with another result, marked Filled and
// without the choices it never saw, through the same durable path as a
// GAME_OVER; its Learner is told of each. A player whose history agrees
// with its standings sends nothing more than before.

// gapFillAttempts is how many times a fill asks the manager before it
// gives up until the next sign of a gap.
const gapFillAttempts = 5

// gapFiller runs at most one fill of a player's history at a time, on a
// goroutine of its own, and stops it when the player closes.
type gapFiller struct {
	mu      sync.Mutex
	ctx     context.Context // made by the first fill; ends with close
	cancel  context.CancelFunc
	closed  bool
	running bool
	again   bool          // another fill was asked for while one ran
	idle    chan struct{} // closed when the fill under way ends (drain)
	wg      sync.WaitGroup
	// rejoining is set while a player started again registers with its
	// saved token: its history is not open yet, so a result it
	// acknowledged then would be kept in memory only. It refuses
	// GAME_OVER meanwhile and takes those results from the manager once
	// registered.
	rejoining atomic.Bool
}

// start runs fill on a goroutine of its own, or once more after the fill
// under way.
func (g *gapFiller) start(fill func(context.Context)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return
	}
	if g.running {
		g.again = true
		return
	}
	if g.ctx == nil {
		g.ctx, g.cancel = context.WithCancel(context.Background())
	}
	g.running = true
	ctx := g.ctx
	g.wg.Go(func() {
		for {
			fill(ctx)
			g.mu.Lock()
			again := g.again && !g.closed
			g.running, g.again = again, false
			if !again && g.idle != nil {
				close(g.idle)
				g.idle = nil
			}
			g.mu.Unlock()
			if !again {
				return
			}
		}
	})
}

// drain waits until no fill is under way, or until ctx ends: a player
// stopped gracefully right after the league completed still records the
// results it is taking from the manager (started again after the end, it
// would be refused and never get them).
func (g *gapFiller) drain(ctx context.Context) error {
	for {
		g.mu.Lock()
		if !g.running {
			g.mu.Unlock()
			return nil
		}
		if g.idle == nil {
			g.idle = make(chan struct{})
		}
		idle := g.idle
		g.mu.Unlock()
		select {
		case <-idle:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// close stops the fill under way, if any, and waits for it; no fill starts
// after.
func (g *gapFiller) close() {
	g.mu.Lock()
	g.closed = true
	if g.cancel != nil {
		g.cancel()
	}
	g.mu.Unlock()
	g.wg.Wait()
}

// refuseResult returns the error a GAME_OVER is answered with while the
// player registers again after a restart, or nil.
func (a *Agent) refuseResult() error {
	if !a.gaps.rejoining.Load() {
		return nil
	}
	return leaguesdk.NewError(leaguesdk.CodePlayerNotRegistered,
		"the player is registering again: its history is not open, the result will be taken from the manager")
}

// checkGap fills the history from the manager when the player's standings
// row disagrees with it: it counts more matches played than the history
// holds (results missed), or other wins, draws or losses (a match played
// twice, by a referee that was thought not to have taken it and by
// another, whose GAME_OVERs differ: the league keeps the result reported
// first, which need not be the one the player kept).
func (a *Agent) checkGap(row leaguesdk.StandingRow) {
	s := a.history.snapshot().Stats()
	if row.Played <= s.TotalMatches && (row.Played != s.TotalMatches ||
		row.Wins == s.Wins && row.Draws == s.Draws && row.Losses == s.Losses) {
		return
	}
	a.gaps.start(a.fillGaps)
}

// checkGapIn is checkGap with the player's row of table, when it has one.
func (a *Agent) checkGapIn(table broadcast.Table) {
	me, _ := a.credentials()
	if row, ok := table.Standing(me); ok {
		a.checkGap(row)
		return
	}
	for _, row := range table.Rows() { // an id written otherwise ("player:P01")
		if sameID(row.PlayerID, me) {
			a.checkGap(row)
			return
		}
	}
}

// checkGapAfterRestart asks the manager, once, how many matches the
// player has played (GET_PLAYER_STATS), and fills the history when it
// holds fewer: a player started again may have missed results while it
// was down.
func (a *Agent) checkGapAfterRestart() {
	a.gaps.start(func(ctx context.Context) {
		var stats *leaguesdk.PlayerStatsData
		err := a.askManager(ctx, func(ctx context.Context) (err error) {
			stats, err = a.Stats(ctx)
			return err
		})
		if err != nil {
			a.log.Warn("history not checked after restart", slog.String("error", err.Error()))
			return
		}
		if stats.Played > a.history.snapshot().Len() {
			a.fillGaps(ctx)
		}
	})
}

// askManager calls ask until it succeeds, up to gapFillAttempts times,
// [Config.RegisterRetry] apart, or until ctx ends.
func (a *Agent) askManager(ctx context.Context, ask func(context.Context) error) error {
	var err error
	for i := range gapFillAttempts {
		if i > 0 {
			select {
			case <-ctx.Done():
				return err
			case <-time.After(a.cfg.RegisterRetry):
			}
		}
		if err = ask(ctx); err == nil || ctx.Err() != nil {
			return err
		}
	}
	return err
}

// fillGaps asks the manager for the schedule and records every finished
// match of the player that its history lacks.
func (a *Agent) fillGaps(ctx context.Context) {
	var matches []leaguesdk.ScheduleEntry
	err := a.askManager(ctx, func(ctx context.Context) (err error) {
		matches, err = a.Schedule(ctx)
		return err
	})
	if err != nil {
		a.log.Warn("history gap not filled", slog.String("error", err.Error()))
		return
	}
	me, _ := a.credentials()
	leagueID := a.LeagueID()
	have := map[string]MatchRecord{}
	for _, m := range a.history.snapshot().Matches() {
		have[m.MatchID] = m
	}
	filled := 0
	for _, e := range matches {
		if e.Status != leaguesdk.MatchFinished || e.Result == nil ||
			(!sameID(e.PlayerAID, me) && !sameID(e.PlayerBID, me)) {
			continue
		}
		now := a.cfg.Now()
		rec := filledRecord(me, leagueID, e, now)
		old, ok := have[e.MatchID]
		if ok && old.Result == rec.Result {
			continue
		}
		if ok {
			// The league kept another result than the player: the record
			// is replaced by the league's, as a later attempt's would be.
			rec.Attempt = leaguesdk.AttemptOf(old.Attempt) + 1
			a.log.Warn("history corrected from the manager", slog.String("match_id", rec.MatchID),
				slog.String("recorded", string(old.Result)), slog.String("league", string(rec.Result)))
		}
		added, err := a.history.records.Add(rec, now)
		if err != nil {
			a.log.Error("history not saved", slog.String("match_id", rec.MatchID), slog.String("error", err.Error()))
		}
		if !added {
			continue
		}
		filled++
		agentkit.LogOutcome(ctx, a.log, resultLine(me, rec)+" (from the manager's schedule)")
		if l, ok := a.cfg.Strategy.(Learner); ok {
			a.notify(ctx, "Learn", func(ctx context.Context) { l.Learn(ctx, rec) })
		}
	}
	if filled > 0 {
		a.log.Info("history gap filled from the manager", slog.Int("matches", filled))
	}
}

// filledRecord is the history record of player me for a finished match of
// the schedule: the result, the drawn number and the reason, without the
// choices (the player never saw them), marked Filled.
func filledRecord(me, leagueID string, e leaguesdk.ScheduleEntry, now time.Time) MatchRecord {
	r := e.Result
	rec := MatchRecord{
		MatchID: e.MatchID, LeagueID: leagueID, RoundID: int(e.RoundID), GameType: e.GameType,
		OpponentID: e.PlayerBID, Role: leaguesdk.PlayerA,
		DrawnNumber: r.Details.DrawnNumber, Reason: r.Details.Reason,
		FinishedAt: leaguesdk.FormatTime(now), Filled: true,
	}
	if sameID(e.PlayerBID, me) {
		rec.OpponentID, rec.Role = e.PlayerAID, leaguesdk.PlayerB
	}
	if rec.DrawnNumber > 0 {
		rec.NumberParity = leaguesdk.ParityOf(rec.DrawnNumber)
	}
	status := r.Status
	if status == "" { // a manager that leaves it out: it follows from the score
		score, _ := scoreOf(r.Score, me)
		switch {
		case r.Winner != "":
			status = leaguesdk.ResultWin
		case score == 1:
			status = leaguesdk.ResultDraw
		default:
			status = leaguesdk.ResultTechnicalLoss
		}
	}
	rec.Result = resultFor(me, leaguesdk.GameResult{Status: status, WinnerPlayerID: r.Winner})
	return rec
}

// scoreOf returns the points of player me in a result's score.
func scoreOf(score map[string]int, me string) (int, bool) {
	for id, p := range score {
		if sameID(id, me) {
			return p, true
		}
	}
	return 0, false
}
