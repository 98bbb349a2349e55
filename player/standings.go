package player

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"sort"
	"sync"

	"github.com/agentleague/league/internal/agentkit"
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
// cut out and split into rows by internal/jsonscan, which checks the whole
// text as it goes, and only the rest (the envelope and the ids) is decoded
// by encoding/json.
func (u *standingsUpdate) UnmarshalJSON(b []byte) error {
	cut := newTableCut()
	rest, table, err := jsonscan.Cut(b, "standings", cut.collect)
	if err != nil {
		return err
	}
	type fields standingsUpdate // without this method
	if err := json.Unmarshal(rest, (*fields)(u)); err != nil {
		return err
	}
	u.Standings = cut.table(table)
	return nil
}

// ChecksJSON tells the server that UnmarshalJSON refuses malformed text
// (jsonscan.Checker), so that it hands over a request's params unchecked
// and the table is read once.
func (*standingsUpdate) ChecksJSON() {}

// rawTable is a JSON array as it came in a message (the standings, the
// matches of a round), kept as its bytes with where each element lies in
// them. A table of n rows reaches each of n players every round: finding
// its rows takes two offsets per row and no pointer (nothing for the
// garbage collector to follow), in a buffer an earlier table's handler
// released, and a row is decoded only when it is used.
type rawTable struct {
	raw []byte   // the array, a part of the message, which is never changed
	at  []uint32 // element i is raw[at[2i]:at[2i+1]]
	// pooled holds at once release has given it back to offsetBuffers.
	pooled *[]uint32
}

// offsetBuffers keeps the offsets of the tables their handlers are done
// with (rawTable.release), for the next tables: each player gets two
// tables of n rows a round.
var offsetBuffers sync.Pool // of *[]uint32

// release gives t's offsets back for another table to use; t is empty
// afterwards. A handler releases the table of its message once it has
// copied what it keeps (copyInto).
func (t *rawTable) release() {
	if t.at == nil {
		return
	}
	p := t.pooled
	if p == nil {
		p = new([]uint32)
	}
	*p = t.at[:0]
	offsetBuffers.Put(p)
	*t = rawTable{}
}

// tableCut collects the elements jsonscan.Cut hands out, as offsets from
// the end of the message they are slices of.
type tableCut struct {
	base   int      // the capacity of the first element: elements are slices of one message
	at     []uint32 // start and end of each element, as base - cap
	pooled *[]uint32
}

// newTableCut returns a tableCut that collects into offsets a handler
// released, when there are some.
func newTableCut() tableCut {
	if p, _ := offsetBuffers.Get().(*[]uint32); p != nil {
		return tableCut{at: (*p)[:0], pooled: p}
	}
	return tableCut{}
}

// collect is Cut's element function.
func (c *tableCut) collect(elem []byte) error {
	if len(c.at) == 0 {
		c.base = cap(elem)
	}
	start := c.base - cap(elem)
	c.at = append(c.at, uint32(start), uint32(start+len(elem)))
	return nil
}

// table returns the elements that are part of table, the value Cut
// returned: Cut hands out the elements of every member it takes, and a
// message naming the table twice keeps the last one, as encoding/json
// does.
func (c *tableCut) table(table []byte) rawTable {
	if len(table) == 0 || table[0] != '[' || len(c.at) == 0 {
		return rawTable{}
	}
	// The offsets of table's first and last byte, as those of the elements.
	from := c.base - cap(table)
	to := from + len(table)
	out := rawTable{raw: table, at: c.at[:0], pooled: c.pooled} // kept in place, as offsets in table
	for i := 0; i < len(c.at); i += 2 {
		if s, e := int(c.at[i]), int(c.at[i+1]); s > from && e <= to {
			out.at = append(out.at, uint32(s-from), uint32(e-from))
		}
	}
	return out
}

// UnmarshalJSON reads an array of rows; anything else (null, an object, a
// string) is read as an empty table rather than refused.
func (t *rawTable) UnmarshalJSON(b []byte) error {
	*t = rawTable{}
	if b = bytes.TrimSpace(b); len(b) == 0 || b[0] != '[' {
		return nil
	}
	var c tableCut
	if err := jsonscan.Elements(b, c.collect); err != nil { // b is part of a message checked whole
		return err
	}
	*t = c.table(b)
	return nil
}

// MarshalJSON writes the table as it came (logs at debug level).
func (t rawTable) MarshalJSON() ([]byte, error) {
	if t.raw == nil {
		return []byte("null"), nil
	}
	return t.raw, nil
}

// copyInto returns the table with its bytes and offsets copied into *buf
// and *at, which it reuses (and grows).
func (t rawTable) copyInto(buf *[]byte, at *[]uint32) rawTable {
	if t.raw == nil {
		return rawTable{}
	}
	*buf = append((*buf)[:0], t.raw...)
	*at = append((*at)[:0], t.at...)
	return rawTable{raw: *buf, at: *at}
}

// len returns the number of rows.
func (t rawTable) len() int { return len(t.at) / 2 }

// row returns the bytes of row i.
func (t rawTable) row(i int) []byte { return t.raw[t.at[2*i]:t.at[2*i+1]:t.at[2*i+1]] }

// standing decodes the row of player id: the rows that name id in their
// bytes are the only ones decoded (every row when id does not appear as
// such, for a peer that escapes its strings differently). A row that does
// not decode or lacks a player_id counts as absent.
func (t rawTable) standing(id string) (leaguesdk.StandingRow, bool) {
	quoted, _ := json.Marshal(id)
	for _, i := range t.holding(quoted) {
		if row, ok := decodeStanding(t.row(i)); ok && row.PlayerID == id {
			return row, true
		}
	}
	if id != "" {
		for i := range t.len() {
			if row, ok := decodeStanding(t.row(i)); ok && row.PlayerID == id {
				return row, true
			}
		}
	}
	return leaguesdk.StandingRow{}, false
}

// holding returns, in order, the indexes of the rows whose bytes hold
// needle. The table is searched at once, not row by row; a needle across
// two rows belongs to neither.
func (t rawTable) holding(needle []byte) []int {
	var out []int
	for at := 0; len(needle) > 0; {
		k := bytes.Index(t.raw[at:], needle)
		if k < 0 {
			return out
		}
		at += k
		// The row that starts last at or before at.
		i := sort.Search(t.len(), func(i int) bool { return int(t.at[2*i]) > at }) - 1
		if i >= 0 && at+len(needle) <= int(t.at[2*i+1]) && (len(out) == 0 || out[len(out)-1] != i) {
			out = append(out, i)
		}
		at++
	}
	return out
}

// rows decodes the table, leaving out rows that do not decode or name no
// player.
func (t rawTable) rows() []leaguesdk.StandingRow {
	out := make([]leaguesdk.StandingRow, 0, t.len())
	for i := range t.len() {
		if row, ok := decodeStanding(t.row(i)); ok {
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
	defer in.Standings.release()
	if !a.fromManager(ctx, &in.Envelope) {
		return a.ack(in, ""), nil
	}
	a.noteLeagueSize(in.Standings.len())
	id, _ := a.credentials()
	round := int(in.RoundID)
	attrs := []slog.Attr{slog.Int("round_id", round), slog.Int("rows", in.Standings.len())}
	mine, found := in.Standings.standing(id)
	if found {
		attrs = append(attrs, slog.Int("rank", mine.Rank), slog.Int("points", mine.Points))
	}
	a.mu.Lock()
	// The table is kept past the call in the player's own buffer, reused
	// from one table to the next under a.mu (its only reader, onState,
	// decodes it under a.mu): the message's bytes are the server's to
	// reuse (leaguesdk.ServerConfig.ReuseBuffers).
	a.standings, a.lastRound = standingsTable{raw: in.Standings.copyInto(&a.tableBuf, &a.tableAt)}, round
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
	if t.raw.raw != nil {
		return t.raw.rows()
	}
	return t.rows
}
