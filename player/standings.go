package player

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"

	"github.com/agentleague/league/internal/agentkit"
	wirejson "github.com/agentleague/league/internal/json"
	"github.com/agentleague/league/leaguesdk"
)

// standingsUpdate is LEAGUE_STANDINGS_UPDATE as the player reads it: the
// envelope is decoded and validated, the table is kept as its rows came.
// A table of n rows reaches each of the n players every round; decoding
// and validating every row would cost the league n² rows a round. The
// player decodes its own row only, and the whole table when its strategy
// is a StandingsObserver or someone asks for its state.
type standingsUpdate struct {
	leaguesdk.Envelope
	LeagueID  string            `json:"league_id" validate:"required"`
	RoundID   leaguesdk.RoundID `json:"round_id"`
	Standings rawTable          `json:"standings"`
}

// rawTable is a JSON array as it came in a message (the standings, the
// matches of a round), one element each, undecoded: a row is decoded only
// when it is used. The rows are slices of the request's body
// (internal/json), not copies.
type rawTable []json.RawMessage

// UnmarshalJSON reads an array of rows; anything else (null, an object, a
// string) is read as an empty table rather than refused.
func (t *rawTable) UnmarshalJSON(b []byte) error {
	*t = nil
	if b = bytes.TrimSpace(b); len(b) == 0 || b[0] != '[' {
		return nil
	}
	return wirejson.Unmarshal(b, (*[]json.RawMessage)(t))
}

// standing decodes the row of player id: the rows that name id in their
// bytes are the only ones decoded (every row when id does not appear as
// such, for a peer that escapes its strings differently). A row that does
// not decode or lacks a player_id counts as absent.
func (t rawTable) standing(id string) (leaguesdk.StandingRow, bool) {
	quoted, _ := json.Marshal(id)
	for _, i := range t.holding(quoted) {
		if row, ok := decodeStanding(t[i]); ok && row.PlayerID == id {
			return row, true
		}
	}
	if id != "" {
		for _, raw := range t {
			if row, ok := decodeStanding(raw); ok && row.PlayerID == id {
				return row, true
			}
		}
	}
	return leaguesdk.StandingRow{}, false
}

// holding returns, in order, the indexes of the rows whose bytes hold
// needle.
func (t rawTable) holding(needle []byte) []int {
	var out []int
	for i, row := range t {
		if len(needle) > 0 && bytes.Contains(row, needle) {
			out = append(out, i)
		}
	}
	return out
}

// rows decodes the table, leaving out rows that do not decode or name no
// player.
func (t rawTable) rows() []leaguesdk.StandingRow {
	out := make([]leaguesdk.StandingRow, 0, len(t))
	for _, raw := range t {
		if row, ok := decodeStanding(raw); ok {
			out = append(out, row)
		}
	}
	return out
}

func decodeStanding(raw []byte) (leaguesdk.StandingRow, bool) {
	var row leaguesdk.StandingRow
	if json.Unmarshal(raw, &row) != nil || row.PlayerID == "" {
		return leaguesdk.StandingRow{}, false
	}
	return row, true
}

func (a *Agent) onStandings(ctx context.Context, in *standingsUpdate) (*leaguesdk.Ack, error) {
	if !a.fromManager(ctx, &in.Envelope) {
		return a.ack(in, ""), nil
	}
	a.noteLeagueSize(len(in.Standings))
	id, _ := a.credentials()
	round := int(in.RoundID)
	attrs := []slog.Attr{slog.Int("round_id", round), slog.Int("rows", len(in.Standings))}
	mine, found := in.Standings.standing(id)
	if found {
		attrs = append(attrs, slog.Int("rank", mine.Rank), slog.Int("points", mine.Points))
	}
	a.mu.Lock()
	a.standings, a.lastRound = standingsTable{raw: in.Standings}, round
	if found {
		a.myStanding = &mine
	}
	a.mu.Unlock()
	if o, ok := a.cfg.Strategy.(StandingsObserver); ok {
		table := in.Standings.rows()
		a.notify(ctx, "ObserveStandings", func(ctx context.Context) { o.ObserveStandings(ctx, round, table) })
	}
	agentkit.LogOutcome(ctx, a.log, "standings updated", attrs...)
	return a.ack(in, ""), nil
}

// standingsTable is the latest league table the player was given: as it
// came in a LEAGUE_STANDINGS_UPDATE (raw), or decoded (rows, from
// LEAGUE_COMPLETED).
type standingsTable struct {
	raw  rawTable
	rows []leaguesdk.StandingRow
}

// decoded returns the table's rows, decoding them if they came raw.
func (t standingsTable) decoded() []leaguesdk.StandingRow {
	if t.raw != nil {
		return t.raw.rows()
	}
	return t.rows
}
