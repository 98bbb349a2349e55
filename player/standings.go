package player

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"sort"

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
// (internal/json), not copies. A message holding one is decoded in one
// reading of the table; its UnmarshalTolerant (internal/json's Tolerant)
// reads a table that came as anything but an array (null, an object, a
// string) as an empty table rather than refusing the message.
type rawTable []json.RawMessage

// broadcastHead is the envelope and ids of a manager's broadcast, read
// without its table (the UnmarshalTolerant of the messages that carry one).
type broadcastHead struct {
	leaguesdk.Envelope
	LeagueID string            `json:"league_id"`
	RoundID  leaguesdk.RoundID `json:"round_id"`
}

// UnmarshalTolerant reads an update whose table is not an array: its
// envelope and ids as usual, the table as empty.
func (u *standingsUpdate) UnmarshalTolerant(b []byte) error {
	var h broadcastHead
	if err := wirejson.Unmarshal(b, &h); err != nil {
		return err
	}
	*u = standingsUpdate{Envelope: h.Envelope, LeagueID: h.LeagueID, RoundID: h.RoundID}
	return nil
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
// needle. Rows decoded from one message lie in order in its body: the
// bytes from the first row to the last are then searched at once, not row
// by row (a thousand short searches cost several times one long one).
func (t rawTable) holding(needle []byte) []int {
	if len(needle) == 0 || len(t) == 0 {
		return nil
	}
	var out []int
	span, ok := t.span()
	if !ok {
		for i, row := range t {
			if bytes.Contains(row, needle) {
				out = append(out, i)
			}
		}
		return out
	}
	first := cap(t[0])
	for pos := 0; ; {
		i := bytes.Index(span[pos:], needle)
		if i < 0 {
			return out
		}
		hit := pos + i
		// The first row ending after the hit is the only one that may hold it.
		k := sort.Search(len(t), func(k int) bool { return first-cap(t[k])+len(t[k]) > hit })
		if k < len(t) {
			if start := first - cap(t[k]); start <= hit && hit+len(needle) <= start+len(t[k]) &&
				(len(out) == 0 || out[len(out)-1] != k) {
				out = append(out, k)
			}
		}
		pos = hit + 1
	}
}

// span returns the bytes from the start of the first row to the end of
// the last when the rows are slices of one array, in order and apart (as
// decoded from one message), and false otherwise.
func (t rawTable) span() ([]byte, bool) {
	first := t[0]
	end := 0
	for _, row := range t {
		start := cap(first) - cap(row)
		if len(row) == 0 || start < end || start+len(row) > cap(first) || &first[:start+1][start] != &row[0] {
			return nil, false
		}
		end = start + len(row)
	}
	return first[:end], true
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
	a.checkGap(mine) // gapfill.go
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
