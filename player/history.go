package player

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentleague/league/internal/agentkit"
	"github.com/agentleague/league/internal/atomicfile"
	"github.com/agentleague/league/internal/journal"
	"github.com/agentleague/league/leaguesdk"
)

// Result is the outcome of a match from this player's point of view.
type Result string

// The outcomes a player records.
const (
	Win  Result = "WIN"
	Loss Result = "LOSS"
	Draw Result = "DRAW"
	// TechnicalLoss is a loss by failing to answer in time, declining,
	// or any other fault the referee charged to this player (also when both
	// players failed).
	TechnicalLoss Result = "TECHNICAL_LOSS"
)

// Points returns the league points of the result: 3 for a win, 1 for a
// draw, 0 otherwise.
func (r Result) Points() int {
	switch r {
	case Win:
		return 3
	case Draw:
		return 1
	}
	return 0
}

// MatchRecord is one finished match in a player's history, as stored in
// data/players/<player_id>/history.json.
type MatchRecord struct {
	MatchID    string         `json:"match_id"`
	LeagueID   string         `json:"league_id,omitempty"`
	RoundID    int            `json:"round_id,omitempty"`
	GameType   string         `json:"game_type,omitempty"`
	OpponentID string         `json:"opponent_id"`
	Role       leaguesdk.Role `json:"role_in_match,omitempty"`
	Result     Result         `json:"result"`
	// MyChoice and OpponentChoice are the choices the referee reported
	// (MyChoice falls back to what this player answered); empty when a
	// player made none.
	MyChoice       leaguesdk.Parity `json:"my_choice,omitempty"`
	OpponentChoice leaguesdk.Parity `json:"opponent_choice,omitempty"`
	// DrawnNumber and NumberParity are zero when no number was drawn.
	DrawnNumber  int              `json:"drawn_number,omitempty"`
	NumberParity leaguesdk.Parity `json:"number_parity,omitempty"`
	Reason       string           `json:"reason,omitempty"`
	// FinishedAt is when this player learned the result (UTC, RFC 3339).
	FinishedAt string `json:"finished_at,omitempty"`
	// Attempt is the GAME_OVER's attempt number (see leaguesdk.GameOver);
	// zero when it carried none, which counts as 1.
	Attempt int `json:"attempt,omitempty"`
}

// Stats sums up a history. Losses include technical losses, which are also
// counted on their own.
type Stats struct {
	TotalMatches    int `json:"total_matches"`
	Wins            int `json:"wins"`
	Losses          int `json:"losses"`
	Draws           int `json:"draws"`
	TechnicalLosses int `json:"technical_losses"`
	Points          int `json:"points"`
}

// History is a read-only snapshot of a player's finished matches, oldest
// first. The zero value is an empty history. Values are cheap to copy and
// safe to share between goroutines.
type History struct {
	matches []MatchRecord
}

// NewHistory returns a history of the given records, for instance to test
// a strategy without an Agent.
func NewHistory(records ...MatchRecord) History {
	return History{matches: slices.Clone(records)}
}

// Matches returns a copy of the records, oldest first.
func (h History) Matches() []MatchRecord { return slices.Clone(h.matches) }

// Len returns the number of records.
func (h History) Len() int { return len(h.matches) }

// Stats sums up the records.
func (h History) Stats() Stats {
	var s Stats
	for _, m := range h.matches {
		s.TotalMatches++
		switch m.Result {
		case Win:
			s.Wins++
		case Draw:
			s.Draws++
		case Loss:
			s.Losses++
		case TechnicalLoss:
			s.Losses++
			s.TechnicalLosses++
		}
		s.Points += m.Result.Points()
	}
	return s
}

// Against returns the matches played against opponentID.
func (h History) Against(opponentID string) History {
	var out []MatchRecord
	for _, m := range h.matches {
		if m.OpponentID == opponentID {
			out = append(out, m)
		}
	}
	return History{matches: out}
}

// OpponentChoices counts the parities the opponents of these matches chose.
// Matches where the opponent made no choice are not counted.
func (h History) OpponentChoices() (even, odd int) {
	for _, m := range h.matches {
		switch m.OpponentChoice {
		case leaguesdk.Even:
			even++
		case leaguesdk.Odd:
			odd++
		}
	}
	return even, odd
}

// OpponentMostly returns the parity the opponents of these matches chose
// more often, or "" when there is no choice on record or it is a tie.
func (h History) OpponentMostly() leaguesdk.Parity {
	even, odd := h.OpponentChoices()
	switch {
	case even > odd:
		return leaguesdk.Even
	case odd > even:
		return leaguesdk.Odd
	}
	return ""
}

// historySchemaVersion is the schema_version of history.json.
const historySchemaVersion = "1.0.0"

// historyFile is the JSON form of data/players/<player_id>/history.json.
type historyFile struct {
	SchemaVersion string        `json:"schema_version"`
	LastUpdated   string        `json:"last_updated"`
	PlayerID      string        `json:"player_id"`
	DisplayName   string        `json:"display_name,omitempty"`
	Stats         Stats         `json:"stats"`
	Matches       []MatchRecord `json:"matches"`
	// Registration is how the player is registered, token included, so
	// that a player started again registers as itself. It makes the file
	// a secret: it is written with mode 0600.
	Registration *registration `json:"registration,omitempty"`
}

// registration is a player's registration with a league, as its history
// file keeps it.
type registration struct {
	League    string `json:"league"` // the manager's endpoint
	LeagueID  string `json:"league_id,omitempty"`
	Endpoint  string `json:"contact_endpoint"`
	AuthToken string `json:"auth_token"`
}

// savedRegistration finds, among the history files under dataRoot, the
// registration of the player called name with the manager at league from
// endpoint, and returns its token ("" when there is none). The manager
// gives an agent that registers again from the same endpoint with its
// token the id it had.
func savedRegistration(dataRoot, name, league, endpoint string) string {
	files, _ := filepath.Glob(filepath.Join(dataRoot, "data", "players", "*", "history.json"))
	for _, path := range files {
		var f historyFile
		if atomicfile.ReadJSON(path, &f) != nil || f.Registration == nil {
			continue
		}
		if r := f.Registration; f.DisplayName == name && r.League == league && r.Endpoint == endpoint {
			return r.AuthToken
		}
	}
	return ""
}

// historyStore keeps a player's history in memory and, once the player's id
// is known, in its history file. Records are keyed by league and match, so
// a repeated GAME_OVER is recorded once.
type historyStore struct {
	mu      sync.Mutex
	path    string // "" until the player id is known
	id      string
	name    string
	reg     *registration
	matches []MatchRecord
	seen    map[[2]string]bool
	// j is history.jsonl: each record is appended (and flushed) before its
	// GAME_OVER is acknowledged; history.json, the whole history, is
	// rewritten only when the journal holds as many records as it does
	// (so the bytes written per match stay constant on average), and on
	// close. Open rebuilds the history from both.
	j         *journal.Journal
	journaled int  // records in the journal since history.json was written
	snapping  bool // a rewrite of history.json is under way
	snapDone  sync.WaitGroup
}

// historyPath returns where the history of playerID lives under dataRoot.
func historyPath(dataRoot, playerID string) string {
	return filepath.Join(dataRoot, "data", "players", agentkit.SafeFileName(playerID), "history.json")
}

// journalPath returns the history journal beside the history file path.
func journalPath(historyFile string) string {
	return strings.TrimSuffix(historyFile, ".json") + ".jsonl"
}

// minSnapshot is the fewest journal records that lead to a rewrite of
// history.json.
const minSnapshot = 32

// open binds the store to the history file of playerID, loading the
// records already there and in its journal (records gathered before are
// kept after them), and saves it with reg, the player's registration.
func (s *historyStore) open(dataRoot, playerID, displayName string, reg registration, now time.Time) error {
	path := historyPath(dataRoot, playerID)
	var f historyFile
	err := atomicfile.ReadJSON(path, &f)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("player: load history: %w", err)
	}
	s.close(now) // a store bound before (a second registration) lets go of its files
	s.mu.Lock()
	defer s.mu.Unlock()
	pending := s.matches
	s.path, s.id, s.name, s.reg = path, playerID, displayName, &reg
	s.matches, s.seen = nil, map[[2]string]bool{}
	for _, m := range f.Matches {
		s.addLocked(m)
	}
	j, err := journal.Open(journalPath(path), journal.Config{Replay: func(rec []byte) error {
		var m MatchRecord
		if json.Unmarshal(rec, &m) == nil && m.MatchID != "" && !s.addLocked(m) {
			s.supersedeLocked(m)
		}
		return nil
	}})
	if err != nil {
		s.path = ""
		return fmt.Errorf("player: history journal: %w", err)
	}
	s.j = j
	for _, m := range pending {
		if !s.addLocked(m) {
			s.supersedeLocked(m)
		}
	}
	return s.snapshotLocked(now)
}

// close writes the whole history to history.json, empties the journal
// and closes it. The store keeps the history in memory.
func (s *historyStore) close(now time.Time) {
	s.snapDone.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.j == nil {
		return
	}
	if s.journaled > 0 {
		_ = s.snapshotLocked(now)
	}
	_ = s.j.Close()
	s.j = nil
}

func (s *historyStore) addLocked(m MatchRecord) bool {
	if s.seen == nil {
		s.seen = map[[2]string]bool{}
	}
	k := [2]string{m.LeagueID, m.MatchID}
	if s.seen[k] {
		return false
	}
	s.seen[k] = true
	s.matches = append(s.matches, m)
	return true
}

// add records m unless a record of the same league and match exists, and
// saves the file. A record of a later attempt (see leaguesdk.GameOver)
// replaces the one it supersedes in place. It reports whether m was
// recorded.
func (s *historyStore) add(m MatchRecord, now time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.addLocked(m) && !s.supersedeLocked(m) {
		return false, nil
	}
	if s.j == nil {
		return true, nil
	}
	// On disk before the GAME_OVER is acknowledged: one line, whatever
	// the length of the history.
	if err := s.j.Append(context.Background(), m); err != nil {
		return true, fmt.Errorf("player: save history: %w", err)
	}
	s.journaled++
	if s.journaled >= max(minSnapshot, len(s.matches)) && !s.snapping {
		s.snapping = true
		s.snapDone.Add(1)
		go s.rewrite(now)
	}
	return true, nil
}

// rewrite rewrites history.json off the GAME_OVER's path.
func (s *historyStore) rewrite(now time.Time) {
	defer s.snapDone.Done()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.snapping = false
	if s.j != nil {
		_ = s.snapshotLocked(now)
	}
}

// snapshotLocked writes the whole history to history.json and then
// empties the journal: a crash in between leaves records in both, which
// open reads once.
func (s *historyStore) snapshotLocked(now time.Time) error {
	if err := s.saveLocked(now); err != nil {
		return err
	}
	if err := s.j.Compact(func(func(any) error) error { return nil }); err != nil {
		return fmt.Errorf("player: history journal: %w", err)
	}
	s.journaled = 0
	return nil
}

// supersedeLocked replaces the record of m's match by m when m is of a
// later attempt, and reports whether it did.
func (s *historyStore) supersedeLocked(m MatchRecord) bool {
	for i, old := range s.matches {
		if old.LeagueID == m.LeagueID && old.MatchID == m.MatchID {
			if leaguesdk.AttemptOf(m.Attempt) <= leaguesdk.AttemptOf(old.Attempt) {
				return false
			}
			s.matches[i] = m
			return true
		}
	}
	return false
}

// attempt returns the attempt number of the recorded match, or 0 when
// none is recorded.
func (s *historyStore) attempt(leagueID, matchID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.seen[[2]string{leagueID, matchID}] {
		return 0
	}
	for _, m := range s.matches {
		if m.LeagueID == leagueID && m.MatchID == matchID {
			return leaguesdk.AttemptOf(m.Attempt)
		}
	}
	return 0
}

func (s *historyStore) saveLocked(now time.Time) error {
	if s.path == "" {
		return nil
	}
	h := History{matches: s.matches}
	f := historyFile{
		SchemaVersion: historySchemaVersion,
		LastUpdated:   leaguesdk.FormatTime(now),
		PlayerID:      s.id,
		DisplayName:   s.name,
		Stats:         h.Stats(),
		Matches:       s.matches,
		Registration:  s.reg,
	}
	if f.Matches == nil {
		f.Matches = []MatchRecord{}
	}
	if err := atomicfile.WriteJSONPerm(s.path, f, 0o600); err != nil {
		return fmt.Errorf("player: save history: %w", err)
	}
	return nil
}

// snapshot returns the history as it is now. The slice is capped so that
// later appends never show through it.
func (s *historyStore) snapshot() History {
	s.mu.Lock()
	defer s.mu.Unlock()
	return History{matches: s.matches[:len(s.matches):len(s.matches)]}
}
