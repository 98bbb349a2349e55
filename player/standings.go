package player

import (
	"context"
	"log/slog"

	"github.com/agentleague/league/internal/agentkit"
	"github.com/agentleague/league/internal/broadcast"
	"github.com/agentleague/league/leaguesdk"
)

func (a *Agent) onStandings(ctx context.Context, in *broadcast.StandingsUpdate) (*leaguesdk.Ack, error) {
	if !a.fromManager(ctx, &in.Envelope) {
		return a.ack(in, ""), nil
	}
	id, _ := a.credentials()
	round := int(in.RoundID)
	attrs := []slog.Attr{slog.Int("round_id", round), slog.Int("rows", len(in.Standings))}
	mine, found := in.Standings.Standing(id)
	if found {
		attrs = append(attrs, slog.Int("rank", mine.Rank), slog.Int("points", mine.Points))
	}
	a.mu.Lock()
	a.standings, a.lastRound = standingsTable{raw: in.Standings}, round
	if found {
		a.myStanding = &mine
	}
	a.mu.Unlock()
	a.checkGap(mine) // gapfill.go
	if o, ok := a.cfg.Strategy.(StandingsObserver); ok {
		table := in.Standings.Rows()
		a.notify(ctx, "ObserveStandings", func(ctx context.Context) { o.ObserveStandings(ctx, round, table) })
	}
	agentkit.LogOutcome(ctx, a.log, "standings updated", attrs...)
	return a.ack(in, ""), nil
}

// standingsTable is the latest league table the player was given: as it
// came in a LEAGUE_STANDINGS_UPDATE (raw), or decoded (rows, from
// LEAGUE_COMPLETED).
type standingsTable struct {
	raw  broadcast.Table
	rows []leaguesdk.StandingRow
}

// decoded returns the table's rows, decoding them if they came raw.
func (t standingsTable) decoded() []leaguesdk.StandingRow {
	if t.raw != nil {
		return t.raw.Rows()
	}
	return t.rows
}
