// Package broadcast reads the manager's broadcasts as a player does:
// LEAGUE_STANDINGS_UPDATE and ROUND_ANNOUNCEMENT reach every player of a
// league every round, and each carries a table of the whole league, so a
// player decodes their envelopes and keeps their tables as they came
// ([Table]), decoding only the rows that name it.
package broadcast

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unique"
	"unsafe"

	wirejson "github.com/agentleague/league/internal/json"
	"github.com/agentleague/league/leaguesdk"
)

// StandingsUpdate is LEAGUE_STANDINGS_UPDATE as the player reads it: the
// envelope is decoded and validated, the table is kept as its rows came.
// A table of n rows reaches each of the n players every round; decoding
// and validating every row would cost the league n² rows a round. The
// player decodes its own row only ([Table.Standing]), and the whole table
// ([Table.Rows]) when its strategy is a StandingsObserver or someone asks
// for its state.
type StandingsUpdate struct {
	leaguesdk.Envelope
	LeagueID  string            `json:"league_id" validate:"required"`
	RoundID   leaguesdk.RoundID `json:"round_id"`
	Standings Table             `json:"standings"`
}

// Table is a JSON array as it came in a message (the standings, the
// matches of a round), one element each, undecoded: a row is decoded only
// when it is used. The rows are slices of the request's body
// (internal/json), not copies. A message holding one is decoded in one
// reading of the table; its UnmarshalTolerant (internal/json's Tolerant)
// reads a table that came as anything but an array (null, an object, a
// string) as an empty table rather than refusing the message.
type Table []json.RawMessage

// presized returns an empty table with room for as many rows as data
// holds objects: the rows of a table are objects, and the text holds
// one more (the message itself) and few else.
func presized(data []byte) Table {
	return make(Table, 0, bytes.Count(data, []byte{'{'}))
}

// Presize makes room for the table's rows before the update is decoded
// from data (internal/json's Presizer).
func (u *StandingsUpdate) Presize(data []byte) { u.Standings = presized(data) }

// Presize makes room for the announced matches before the announcement
// is decoded from data (internal/json's Presizer).
func (r *RoundAnnouncement) Presize(data []byte) { r.Matches = presized(data) }

// broadcastHead is the envelope and ids of a manager's broadcast, read
// without its table (the UnmarshalTolerant of the messages that carry one).
type broadcastHead struct {
	leaguesdk.Envelope
	LeagueID string            `json:"league_id"`
	RoundID  leaguesdk.RoundID `json:"round_id"`
}

// UnmarshalTolerant reads an update whose table is not an array: its
// envelope and ids as usual, the table as empty.
func (u *StandingsUpdate) UnmarshalTolerant(b []byte) error {
	var h broadcastHead
	if err := wirejson.Unmarshal(b, &h); err != nil {
		return err
	}
	*u = StandingsUpdate{Envelope: h.Envelope, LeagueID: h.LeagueID, RoundID: h.RoundID}
	return nil
}

// Standing decodes the row of player id: the rows that name id in their
// bytes are the only ones decoded (every row when id does not appear as
// such, for a peer that escapes its strings differently). A row that does
// not decode or lacks a player_id counts as absent.
func (t Table) Standing(id string) (leaguesdk.StandingRow, bool) {
	quoted, _ := json.Marshal(id)
	for _, i := range t.Holding(quoted) {
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

// Holding returns, in order, the indexes of the rows whose bytes hold
// needle. Rows decoded from one message lie in order in its body: the
// bytes from the first row to the last are then searched at once, not row
// by row (a thousand short searches cost several times one long one).
func (t Table) Holding(needle []byte) []int {
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
func (t Table) span() ([]byte, bool) {
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

// LeagueCompleted is LEAGUE_COMPLETED as the player reads it: the
// envelope, ids, totals and champion decoded and validated, the final
// standings kept as their rows came, as a [StandingsUpdate]'s table: the
// league's end reaches every player at once, each with the whole table.
type LeagueCompleted struct {
	leaguesdk.Envelope
	LeagueID       string              `json:"league_id" validate:"required"`
	TotalRounds    int                 `json:"total_rounds"`
	TotalMatches   int                 `json:"total_matches"`
	Champion       *leaguesdk.Champion `json:"champion"`
	FinalStandings Table               `json:"final_standings"`
}

// Presize makes room for the final standings' rows before the message
// is decoded from data (internal/json's Presizer).
func (c *LeagueCompleted) Presize(data []byte) { c.FinalStandings = presized(data) }

// UnmarshalTolerant reads a LEAGUE_COMPLETED whose final standings are
// not an array: the rest as usual, no standings.
func (c *LeagueCompleted) UnmarshalTolerant(b []byte) error {
	var h struct {
		leaguesdk.Envelope
		LeagueID     string              `json:"league_id"`
		TotalRounds  int                 `json:"total_rounds"`
		TotalMatches int                 `json:"total_matches"`
		Champion     *leaguesdk.Champion `json:"champion"`
	}
	if err := wirejson.Unmarshal(b, &h); err != nil {
		return err
	}
	*c = LeagueCompleted{Envelope: h.Envelope, LeagueID: h.LeagueID, TotalRounds: h.TotalRounds,
		TotalMatches: h.TotalMatches, Champion: h.Champion}
	return nil
}

// Shared is a table kept after the message that carried it: its rows'
// text, one copy for every table of the same text in the process. The
// zero value is an empty table.
type Shared struct {
	text unique.Handle[string]
	set  bool
}

// Share returns the table as a Shared one. A table of n rows reaches each
// of n players every round; players that share a process (a whole league
// run in one, an arena) keep one copy of it rather than each its message
// body and its rows' slices. It returns false for a table whose rows are
// not one span of a message's text (a table made otherwise): keep that
// table as it is.
func (t Table) Share() (Shared, bool) {
	if len(t) == 0 {
		return Shared{}, true
	}
	span, ok := t.span()
	if !ok {
		return Shared{}, false
	}
	// unique.Make copies the text it keeps: the string looks at the
	// message's bytes only while the call lasts, and they do not change.
	return Shared{text: unique.Make(unsafe.String(unsafe.SliceData(span), len(span))), set: true}, true
}

// Rows decodes the table as [Table.Rows] does.
func (s Shared) Rows() []leaguesdk.StandingRow {
	if !s.set {
		return []leaguesdk.StandingRow{}
	}
	var t Table
	if wirejson.Unmarshal([]byte("["+s.text.Value()+"]"), &t) != nil {
		return []leaguesdk.StandingRow{}
	}
	return t.Rows()
}

// Rows decodes the table, leaving out rows that do not decode or name no
// player.
func (t Table) Rows() []leaguesdk.StandingRow {
	out := make([]leaguesdk.StandingRow, 0, len(t))
	for _, raw := range t {
		if row, ok := decodeStanding(raw); ok {
			out = append(out, row)
		}
	}
	return out
}

// decodeStanding decodes one row; a row that does not decode or names no
// player is not one.
func decodeStanding(raw []byte) (leaguesdk.StandingRow, bool) {
	var row leaguesdk.StandingRow
	if json.Unmarshal(raw, &row) != nil || row.PlayerID == "" {
		return leaguesdk.StandingRow{}, false
	}
	return row, true
}

// RoundAnnouncement is ROUND_ANNOUNCEMENT as the player reads it: the
// envelope and ids decoded and validated, the matches kept as they came,
// one element each. The round's n/2 matches reach each of the n players;
// a player decodes and checks the matches that name it, not the others.
type RoundAnnouncement struct {
	leaguesdk.Envelope
	LeagueID string            `json:"league_id" validate:"required"`
	RoundID  leaguesdk.RoundID `json:"round_id" validate:"required"`
	Matches  Table             `json:"matches"`
}

// UnmarshalTolerant reads an announcement whose matches are not an array:
// its envelope and ids as usual, no matches.
func (r *RoundAnnouncement) UnmarshalTolerant(b []byte) error {
	var h broadcastHead
	if err := wirejson.Unmarshal(b, &h); err != nil {
		return err
	}
	*r = RoundAnnouncement{Envelope: h.Envelope, LeagueID: h.LeagueID, RoundID: h.RoundID}
	return nil
}

// MatchesOf decodes and validates the announced matches that may name the
// player id: those whose bytes hold its id, or every one when none does (a
// peer escaping its strings differently). A match that names the player
// and does not validate refuses the announcement.
func (r *RoundAnnouncement) MatchesOf(id string, sameID func(x, y string) bool) ([]leaguesdk.ScheduledMatch, error) {
	_, bare := leaguesdk.SplitSender(id)
	var out []leaguesdk.ScheduledMatch
	holding := r.Matches.Holding([]byte(bare))
	for _, scan := range []bool{true, false} {
		for i, raw := range r.Matches {
			if _, held := slices.BinarySearch(holding, i); scan != held {
				continue
			}
			var m leaguesdk.ScheduledMatch
			if err := json.Unmarshal(raw, &m); err != nil {
				return nil, &leaguesdk.Error{Code: leaguesdk.CodeMissingRequiredField, Field: fmt.Sprintf("matches[%d]", i),
					Message: fmt.Sprintf("matches[%d] does not decode: %v", i, err), Err: err}
			}
			if !sameID(m.PlayerAID, id) && !sameID(m.PlayerBID, id) {
				continue
			}
			if err := leaguesdk.Validate(&m); err != nil {
				var e *leaguesdk.Error
				if errors.As(err, &e) {
					field := fmt.Sprintf("matches[%d].%s", i, e.Field)
					e.Message, e.Field = strings.Replace(e.Message, e.Field, field, 1), field
				}
				return nil, err
			}
			out = append(out, m)
		}
		if len(out) > 0 {
			break
		}
	}
	return out, nil
}
