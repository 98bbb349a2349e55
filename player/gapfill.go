package player

import (
	"context"
	"log/slog"
	"math"
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
// registered as itself — asks the manager for its own matches
// (LEAGUE_QUERY GET_SCHEDULE with query_params.player_id) and records every
// finished one that its history lacks or holds with another result,
// marked Filled and without the choices it never saw, through the same
// durable path as a GAME_OVER; its Learner is told of each.
//
// A round's standings can reach a player before the GAME_OVER of its own
// match of that round has been recorded (the referee gave up waiting for
// the acknowledgement, the player's disk is slow): that is no gap. A
// player whose row is ahead of its history first waits, up to
// [Config.FillWait], for the results it is owed — of the matches of that
// round or earlier it was told of or is playing, and of the GAME_OVERs
// being recorded — and asks only for what is still missing then. A player
// whose history agrees with its standings sends nothing more than before.

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
	want    gapCheck      // the latest row to check the history against
	wg      sync.WaitGroup
	// rejoining is set while a player started again registers with its
	// saved token: its history is not open yet, so a result it
	// acknowledged then would be kept in memory only. It refuses
	// GAME_OVER meanwhile and takes those results from the manager once
	// registered.
	rejoining atomic.Bool
}

// gapCheck is a standings row to check the history against, and the last
// round whose results it counts.
type gapCheck struct {
	row   leaguesdk.StandingRow
	round int
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

// setWant makes c the row the next fill checks the history against.
func (g *gapFiller) setWant(c gapCheck) {
	g.mu.Lock()
	g.want = c
	g.mu.Unlock()
}

// wanted returns the latest row to check the history against.
func (g *gapFiller) wanted() gapCheck {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.want
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

// settling marks a GAME_OVER being recorded: from before its match leaves
// the matches in progress until its record is in the history, it is owed.
// The returned func ends it.
func (a *Agent) settling() (done func()) {
	a.mu.Lock()
	a.recording++
	a.mu.Unlock()
	return func() {
		a.mu.Lock()
		a.recording--
		close(a.settled)
		a.settled = make(chan struct{})
		a.mu.Unlock()
	}
}

// owed returns how many results the player is owed by rounds up to round:
// its matches in progress of those rounds (or of no known round), and the
// GAME_OVERs being recorded; and a channel closed when one of the latter
// is settled.
func (a *Agent) owed(round int) (int, <-chan struct{}) {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := a.recording
	for _, m := range a.matches {
		if m.RoundID <= round {
			n++
		}
	}
	return n, a.settled
}

// gapCause returns why row, the player's standings row of round,
// disagrees with the history, and how many matches the history lacks:
// FillBehind when the row counts more matches played than the history
// holds (results missed), FillDiffers when it counts as many but other
// wins, draws or losses (a match played twice, by a referee that was
// thought not to have taken it and by another, whose GAME_OVERs differ:
// the league keeps the result reported first, which need not be the one
// the player kept); "" when they agree.
//
// The row counts the rounds up to round only, so it is held against the
// records of those rounds (and of no known round): a later round's result,
// which often comes before that round's standings, would otherwise stand
// in for a missed one and hide the gap for the rest of the league.
func (a *Agent) gapCause(row leaguesdk.StandingRow, round int) (string, int) {
	s := a.history.snapshot().statsUpTo(round)
	switch {
	case row.Played > s.TotalMatches:
		return leaguesdk.FillBehind, row.Played - s.TotalMatches
	case row.Played == s.TotalMatches && (row.Wins != s.Wins || row.Draws != s.Draws || row.Losses != s.Losses):
		return leaguesdk.FillDiffers, 0
	}
	return "", 0
}

// checkGap fills the history from the manager when the player's standings
// row of round disagrees with it (gapCause), once the results the player
// is owed have come or FillWait has passed.
func (a *Agent) checkGap(row leaguesdk.StandingRow, round int) {
	if cause, _ := a.gapCause(row, round); cause == "" {
		return
	}
	a.gaps.setWant(gapCheck{row: row, round: round})
	a.gaps.start(a.fillBehind)
}

// checkGapIn is checkGap with the player's row of table, when it has one:
// the final standings, which count every round.
func (a *Agent) checkGapIn(table broadcast.Table) {
	me, _ := a.credentials()
	if row, ok := table.Standing(me); ok {
		a.checkGap(row, math.MaxInt)
		return
	}
	for _, row := range table.Rows() { // an id written otherwise ("player:P01")
		if sameID(row.PlayerID, me) {
			a.checkGap(row, math.MaxInt)
			return
		}
	}
}

// fillBehind waits for the results the player is owed while its latest
// row disagrees with its history, up to FillWait, and fills what is still
// missing then.
func (a *Agent) fillBehind(ctx context.Context) {
	wait := time.NewTimer(a.cfg.FillWait)
	defer wait.Stop()
	for {
		w := a.gaps.wanted()
		cause, missing := a.gapCause(w.row, w.round)
		if cause == "" {
			return // the GAME_OVERs came
		}
		n, settled := a.owed(w.round)
		if n == 0 {
			a.fillGaps(ctx, cause, missing)
			return
		}
		select {
		case <-settled:
		case <-wait.C:
			a.fillGaps(ctx, cause, missing)
			return
		case <-ctx.Done():
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
		if have := a.history.snapshot().Len(); stats.Played > have {
			a.fillGaps(ctx, leaguesdk.FillRestart, stats.Played-have)
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

// fillGaps asks the manager for the player's own matches and records every
// finished one that its history lacks or holds with another result. It
// logs a line and tells a FillObserver of each fill, with its cause.
func (a *Agent) fillGaps(ctx context.Context, cause string, missing int) {
	start := a.cfg.Now()
	var matches []leaguesdk.ScheduleEntry
	err := a.askManager(ctx, func(ctx context.Context) (err error) {
		matches, err = a.OwnMatches(ctx)
		return err
	})
	ev := leaguesdk.FillEvent{Cause: cause, Missing: missing, Entries: len(matches), Outcome: leaguesdk.Outcome(err)}
	defer func() {
		ev.Took = a.cfg.Now().Sub(start)
		if o, ok := a.cfg.Observer.(leaguesdk.FillObserver); ok {
			o.ObserveFill(ev)
		}
	}()
	if err != nil {
		a.log.Warn("history gap not filled", slog.String("cause", cause), slog.Int("missing", missing), slog.String("error", err.Error()))
		return
	}
	me, _ := a.credentials()
	leagueID := a.LeagueID()
	have := map[string]MatchRecord{}
	for _, m := range a.history.snapshot().Matches() {
		have[m.MatchID] = m
	}
	for _, e := range matches {
		if e.Status != leaguesdk.MatchFinished || e.Result == nil ||
			(!sameID(e.PlayerAID, me) && !sameID(e.PlayerBID, me)) {
			continue
		}
		// Over, as the manager says: the player owes it nothing more (a
		// GAME_OVER that never came would be waited for again).
		a.takeMatch(e.MatchID)
		a.mu.Lock()
		delete(a.announced, e.MatchID)
		a.mu.Unlock()
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
		ev.Matches++
		agentkit.LogOutcome(ctx, a.log, resultLine(me, rec)+" (from the manager's schedule)")
		if l, ok := a.cfg.Strategy.(Learner); ok {
			a.notify(ctx, "Learn", func(ctx context.Context) { l.Learn(ctx, rec) })
		}
	}
	a.log.Info("history filled from the manager", slog.String("cause", cause), slog.Int("missing", missing),
		slog.Int("matches", ev.Matches), slog.Int("entries", len(matches)))
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
