package player

import (
	"context"
	"log/slog"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player/internal/broadcast"
)

func (a *Agent) onStandings(ctx context.Context, in *broadcast.StandingsUpdate) (*leaguesdk.Ack, error) {
	if !a.fromManager(ctx, &in.Envelope) {
		return a.ack(in, ""), nil
	}
	round := int(in.RoundID)
	attrs := []slog.Attr{slog.Int("round_id", round), slog.Int("rows", len(in.Standings))}
	mine, found := a.keepTable(ctx, round, in.Standings)
	if found {
		attrs = append(attrs, slog.Int("rank", mine.Rank), slog.Int("points", mine.Points))
	}
	a.checkGap(mine, round) // gapfill.go
	// A line a round and player: for people, at debug only.
	a.log.LogAttrs(ctx, slog.LevelDebug, "standings updated", attrs...)
	return a.ack(in, ""), nil
}

// keepTable keeps t as the latest table of round, passes it to a
// StandingsObserver, and returns the player's row of it.
func (a *Agent) keepTable(ctx context.Context, round int, t broadcast.Table) (mine leaguesdk.StandingRow, found bool) {
	id, _ := a.credentials()
	mine, found = t.Standing(id)
	kept := standingsTable{raw: t}
	if shared, ok := t.Share(); ok {
		kept = standingsTable{shared: shared, isShared: true}
	}
	a.mu.Lock()
	a.standings, a.lastRound = kept, round
	if found {
		a.myStanding = &mine
	}
	a.mu.Unlock()
	if o, ok := a.cfg.Strategy.(StandingsObserver); ok {
		table := t.Rows()
		a.notify(ctx, "ObserveStandings", func(ctx context.Context) { o.ObserveStandings(ctx, round, table) })
	}
	return mine, found
}

// standingsTable is the latest league table the player was given: as it
// came in a LEAGUE_STANDINGS_UPDATE (shared: its text, one copy for the
// players of a process; raw, a table that is not one span of a message),
// or decoded (rows, from LEAGUE_COMPLETED). It is decoded when asked for
// (get_player_state).
type standingsTable struct {
	shared   broadcast.Shared
	isShared bool
	raw      broadcast.Table
	rows     []leaguesdk.StandingRow
}

// decoded returns the table's rows, decoding them if they came undecoded.
func (t standingsTable) decoded() []leaguesdk.StandingRow {
	switch {
	case t.isShared:
		return t.shared.Rows()
	case t.raw != nil:
		return t.raw.Rows()
	}
	return t.rows
}
