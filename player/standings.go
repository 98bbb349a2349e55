package player

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"sort"

	"github.com/agentleague/league/internal/jsonscan"

	"github.com/agentleague/league/leaguesdk"
)

// standingsUpdate is LEAGUE_STANDINGS_UPDATE as the player reads it: the
// envelope is decoded and validated, the table is kept as it came. A table
// of n rows reaches each of the n players every round; decoding and
// validating every row would cost the league n² rows a round. The player
// decodes its own row only, and the whole table when its strategy is a
// StandingsObserver or someone asks for its state.
type standingsUpdate struct {
	leaguesdk.Envelope
	LeagueID  string            `json:"league_id" validate:"required"`
	RoundID   leaguesdk.RoundID `json:"round_id"`
	Standings rawTable          `json:"standings"`
}

// UnmarshalJSON reads the message in one pass over its bytes: the table is
// cut out and split into rows by internal/jsonscan, and only the rest (the
// envelope and the ids) is decoded by encoding/json.
func (u *standingsUpdate) UnmarshalJSON(b []byte) error {
	var rows rawTable
	rest, table, err := jsonscan.Cut(b, "standings", rows.collect)
	if err != nil {
		return err
	}
	type fields standingsUpdate // without this method
	if err := json.Unmarshal(rest, (*fields)(u)); err != nil {
		return err
	}
	u.Standings = rows.within(table)
	return nil
}

// rawTable is a standings table as it came, one element per row, each row
// its bytes in the message. Decoding it scans the table once and allocates
// nothing per row.
type rawTable []rawRow

// rawRow is one row of a rawTable, not decoded.
type rawRow []byte

// UnmarshalJSON keeps the row's bytes: they are part of the message the
// table was decoded from, which the handler owns and never changes.
func (r *rawRow) UnmarshalJSON(b []byte) error {
	*r = b
	return nil
}

// collect adds one row; it is Cut's element function.
func (t *rawTable) collect(row []byte) error {
	*t = append(*t, row)
	return nil
}

// within returns the rows of t that are part of table: Cut hands out the
// elements of every member it takes, and a message naming the table twice
// keeps the last one, as encoding/json does.
func (t rawTable) within(table []byte) rawTable {
	if len(t) == 0 || len(table) == 0 || table[0] != '[' {
		return nil
	}
	start, end := cap(table), cap(table)-len(table) // offsets from the end of the message
	out := t[:0]
	for _, row := range t {
		if cap(row) <= start && cap(row) > end {
			out = append(out, row)
		}
	}
	return out
}

// UnmarshalJSON reads an array of rows; anything else (null, an object, a
// string) is read as an empty table rather than refused.
func (t *rawTable) UnmarshalJSON(b []byte) error {
	*t = nil
	if b = bytes.TrimSpace(b); len(b) == 0 || b[0] != '[' {
		return nil
	}
	return jsonscan.Elements(b, func(row []byte) error { // b is part of a message checked whole
		*t = append(*t, row)
		return nil
	})
}

// row decodes the row of player id: the rows that name id in their bytes
// are the only ones decoded (every row when id does not appear as such,
// for a peer that escapes its strings differently). A row that does not
// decode or lacks a player_id counts as absent.
func (t rawTable) row(id string) (leaguesdk.StandingRow, bool) {
	quoted, _ := json.Marshal(id)
	for _, i := range t.holding(quoted) {
		if row, ok := t[i].decode(); ok && row.PlayerID == id {
			return row, true
		}
	}
	if id != "" {
		for _, r := range t {
			if row, ok := r.decode(); ok && row.PlayerID == id {
				return row, true
			}
		}
	}
	return leaguesdk.StandingRow{}, false
}

// holding returns, in order, the indexes of the rows whose bytes hold
// needle. The rows of a table are consecutive parts of one message, so the
// table is searched at once rather than row by row.
func (t rawTable) holding(needle []byte) []int {
	if len(t) == 0 {
		return nil
	}
	// off is a row's offset from the first row's start: rows are slices
	// of one message, so their capacities tell where they begin.
	base := cap(t[0])
	off := func(i int) int { return base - cap(t[i]) }
	all := t[0][:base]
	for i := 1; i < len(t); i++ {
		if o := off(i); o < off(i-1)+len(t[i-1]) || len(t[i]) == 0 || o >= base || &all[o] != &t[i][0] {
			return t.holdingEach(needle) // not laid out as one message
		}
	}
	last := len(t) - 1
	span := t[0][:off(last)+len(t[last])]
	var out []int
	for at := 0; ; {
		k := bytes.Index(span[at:], needle)
		if k < 0 {
			return out
		}
		at += k
		// The row that starts last at or before at.
		i := sort.Search(len(t), func(i int) bool { return off(i) > at }) - 1
		if i >= 0 && at+len(needle) <= off(i)+len(t[i]) && (len(out) == 0 || out[len(out)-1] != i) {
			out = append(out, i)
		}
		at++
	}
}

// holdingEach is holding, searching row by row.
func (t rawTable) holdingEach(needle []byte) []int {
	var out []int
	for i, r := range t {
		if bytes.Contains(r, needle) {
			out = append(out, i)
		}
	}
	return out
}

// rows decodes the table, leaving out rows that do not decode or name no
// player.
func (t rawTable) rows() []leaguesdk.StandingRow {
	out := make([]leaguesdk.StandingRow, 0, len(t))
	for _, r := range t {
		if row, ok := r.decode(); ok {
			out = append(out, row)
		}
	}
	return out
}

// MarshalJSON writes the row as it came (logs at debug level, state answers).
func (r rawRow) MarshalJSON() ([]byte, error) {
	if len(r) == 0 {
		return []byte("null"), nil
	}
	return r, nil
}

// String returns the row's JSON, for logs.
func (r rawRow) String() string { return string(r) }

func (r rawRow) decode() (leaguesdk.StandingRow, bool) {
	var row leaguesdk.StandingRow
	if json.Unmarshal(r, &row) != nil || row.PlayerID == "" {
		return leaguesdk.StandingRow{}, false
	}
	return row, true
}

func (a *Agent) onStandings(ctx context.Context, in *standingsUpdate) (*leaguesdk.Ack, error) {
	a.checkManager(&in.Envelope)
	id, _ := a.credentials()
	round := int(in.RoundID)
	attrs := []slog.Attr{slog.Int("round_id", round), slog.Int("rows", len(in.Standings))}
	mine, found := in.Standings.row(id)
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
	a.log.LogAttrs(ctx, slog.LevelInfo, "standings updated", attrs...)
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
