package player

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unique"

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
// data/players/<league_id>/<player_id>/history.json.
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
	MyChoice       Parity `json:"my_choice,omitempty"`
	OpponentChoice Parity `json:"opponent_choice,omitempty"`
	// DrawnNumber and NumberParity are zero when no number was drawn.
	DrawnNumber  int    `json:"drawn_number,omitempty"`
	NumberParity Parity `json:"number_parity,omitempty"`
	Reason       string `json:"reason,omitempty"`
	// FinishedAt is when this player learned the result (UTC, RFC 3339).
	FinishedAt string `json:"finished_at,omitempty"`
	// Attempt is the GAME_OVER's attempt number (see [leaguesdk.GameOver]);
	// zero when it carried none, which counts as 1.
	Attempt int `json:"attempt,omitempty"`
	// Filled marks a result the player took from the manager's schedule
	// rather than from a GAME_OVER: one it missed (it was down or cut off
	// then), or one the league kept otherwise than the player had (a match
	// played twice; the record then carries the next attempt number). Such
	// a record has no choices.
	Filled bool `json:"filled,omitempty"`
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
	// at, in a History narrowed by Against, lists where its records are
	// in matches; narrowed tells an empty list from none.
	at       []int32
	narrowed bool
	// counts, when counted, are the opponents' even and odd choices in
	// the records.
	counts  [2]int32
	counted bool
	// index, in a snapshot of an Agent's history, finds the records of
	// each opponent without reading the others (history_index.go).
	index *opponentIndex
}

// NewHistory returns a history of the given records, for instance to test
// a strategy without an [Agent].
func NewHistory(records ...MatchRecord) History {
	return History{matches: slices.Clone(records)}
}

// Matches returns a copy of the records, oldest first.
func (h History) Matches() []MatchRecord {
	if !h.narrowed {
		return slices.Clone(h.matches)
	}
	out := make([]MatchRecord, 0, len(h.at))
	for m := range h.records() {
		out = append(out, *m)
	}
	return out
}

// Len returns the number of records.
func (h History) Len() int {
	if h.narrowed {
		return len(h.at)
	}
	return len(h.matches)
}

// Stats sums up the records.
func (h History) Stats() Stats {
	var s Stats
	for m := range h.records() {
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
	if !h.narrowed && h.index != nil {
		return h.index.against(h.matches, opponentID, len(h.matches))
	}
	out := History{matches: h.matches, narrowed: true}
	for i := range h.Len() {
		k := i
		if h.narrowed {
			k = int(h.at[i])
		}
		if h.matches[k].OpponentID == opponentID {
			out.at = append(out.at, int32(k))
		}
	}
	return out
}

// OpponentChoices counts the parities the opponents of these matches chose.
// Matches where the opponent made no choice are not counted.
func (h History) OpponentChoices() (even, odd int) {
	switch {
	case h.counted:
		return int(h.counts[0]), int(h.counts[1])
	case !h.narrowed && h.index != nil:
		return h.index.opponentChoices(len(h.matches))
	}
	for m := range h.records() {
		switch m.OpponentChoice {
		case Even:
			even++
		case Odd:
			odd++
		}
	}
	return even, odd
}

// OpponentMostly returns the parity the opponents of these matches chose
// more often, or "" when there is no choice on record or it is a tie.
func (h History) OpponentMostly() Parity {
	even, odd := h.OpponentChoices()
	switch {
	case even > odd:
		return Even
	case odd > even:
		return Odd
	}
	return ""
}

// historySchemaVersion is the schema_version of history.json.
const historySchemaVersion = "1.0.0"

// historyFile is the JSON form of
// data/players/<league>/<player_id>/history.json: one agent's history in
// one league (see leagueDir).
type historyFile struct {
	SchemaVersion string `json:"schema_version"`
	LastUpdated   string `json:"last_updated"`
	PlayerID      string `json:"player_id"`
	DisplayName   string `json:"display_name,omitempty"`
	// LeagueID and Manager say which league the records are of: its id,
	// as the manager named it, and the manager's endpoint.
	LeagueID string `json:"league_id,omitempty"`
	Manager  string `json:"manager,omitempty"`
	// Registration is how the player is registered, token included, so
	// that a player started again registers as itself. It makes the file
	// a secret: it is written with mode 0600. It comes before the matches,
	// so that finding a saved registration reads only the file's head.
	Registration *registration `json:"registration,omitempty"`
	Stats        Stats         `json:"stats"`
	Matches      []MatchRecord `json:"matches"`
}

// registration is a player's registration with a league, as its history
// file keeps it.
type registration struct {
	League    string `json:"league"` // the manager's endpoint
	LeagueID  string `json:"league_id,omitempty"`
	Endpoint  string `json:"contact_endpoint"`
	AuthToken string `json:"auth_token"`
}

// historyStore keeps a player's history in memory and, once the player's id
// is known, in its history file through a Store. Records are keyed by
// league and match, so a repeated GAME_OVER is recorded once.
type historyStore struct {
	// snapMu serialises the writes of history.json, so that a later
	// version never loses to an earlier one.
	snapMu sync.Mutex

	mu      sync.Mutex
	store   *Store // nil before registration and after close: memory only
	own     bool   // store was opened for this player and closes with it
	path    string // "" until the player id is known
	dir     string // the league's directory under data/players (leagueDir)
	league  string // the league id dir was made from; "" for a league the manager did not name
	id      string
	name    string
	reg     *registration
	now     func() time.Time
	matches []MatchRecord
	index   *opponentIndex // where each opponent's records are in matches
	seen    map[[2]string]bool
	// pending holds where in matches the results are that history.json
	// does not hold yet, in the order they came (their journal records,
	// see storeRecord, are made again from matches when the journal is
	// compacted, not kept); written is the number of results the file held
	// when last written. The file is rewritten when pending reaches
	// max(minSnapshot, written), so the bytes written per result stay
	// constant on average.
	pending  []int
	written  int
	snapping bool           // a rewrite of history.json is under way
	snapDone sync.WaitGroup // the rewrite under way
	// encoded holds matches[:len(encoded)] as history.json lays them out,
	// so that a rewrite encodes only the records that came since the last
	// one; it is emptied when a record is replaced. It is kept only for a
	// history of at most encodedLimit records: a longer one is rewritten
	// seldom (when its new results are as many as it holds), and its
	// encodings would double the memory a player's history takes.
	encoded [][]byte
}

// historyPath returns where the history of playerID in the league whose
// directory is dir (see leagueDir) lives under dataRoot.
func historyPath(dataRoot, dir, playerID string) string {
	return filepath.Join(dataRoot, "data", "players", dir, agentkit.SafeFileName(playerID), "history.json")
}

// legacyHistoryPath returns where earlier versions kept the history of
// playerID, whatever its league: data/players/<player_id>/history.json.
func legacyHistoryPath(dataRoot, playerID string) string {
	return filepath.Join(dataRoot, "data", "players", agentkit.SafeFileName(playerID), "history.json")
}

// leagueDir returns the directory under data/players of the histories of
// the league leagueID of the manager at manager: the league's id, or, for
// a manager that names no league, one made from its endpoint. Player ids
// are given anew in each league (P02 of one league is not P02 of the
// next), so a history is found by league and player id.
func leagueDir(leagueID, manager string) string {
	if leagueID != "" {
		return agentkit.SafeFileName(leagueID)
	}
	sum := sha256.Sum256([]byte(manager))
	return "unnamed_" + hex.EncodeToString(sum[:6])
}

// sameAgent reports whether the registration saved in a history file, by a
// player called savedName, is the registration reg of a player called
// name: the same token, or, where a token is missing, the same name,
// manager and endpoint.
func sameAgent(saved *registration, savedName string, reg registration, name string) bool {
	if saved == nil {
		return true // a file without a registration: an earlier version's, kept as it was
	}
	if saved.AuthToken != "" && reg.AuthToken != "" {
		return leaguesdk.TokensEqual(saved.AuthToken, reg.AuthToken)
	}
	return savedName == name && saved.League == reg.League && saved.Endpoint == reg.Endpoint
}

// legacyJournalPath returns the per-player journal earlier versions kept
// beside the history file path.
func legacyJournalPath(historyFile string) string {
	return strings.TrimSuffix(historyFile, ".json") + ".jsonl"
}

// minSnapshot is the fewest journal records that lead to a rewrite of
// history.json.
const minSnapshot = 32

// readHistory reads the history file at path; a file that does not exist
// reads as an empty history.
func readHistory(path string) (historyFile, error) {
	var f historyFile
	if err := atomicfile.ReadJSON(path, &f); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return historyFile{}, fmt.Errorf("player: load history: %w", err)
	}
	return f, nil
}

// readLegacyJournal returns the records of the per-player journal at path
// that earlier versions wrote, if there is one.
func readLegacyJournal(path string) ([]MatchRecord, bool, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	var out []MatchRecord
	j, err := journal.Open(path, journal.Config{Replay: func(rec []byte) error {
		var m MatchRecord
		if json.Unmarshal(rec, &m) == nil && m.MatchID != "" {
			out = append(out, m)
		}
		return nil
	}})
	if err != nil {
		return nil, false, fmt.Errorf("player: history journal: %w", err)
	}
	return out, true, j.Close()
}

// open binds the history to playerID in the league of reg in store (or,
// when store is nil, in a Store of its own on dataRoot), loading the
// records already in its history file (and, once, those an earlier version
// kept for the same registration; records gathered before of the same
// league are kept after them), and saves it with reg, the player's
// registration. A history file of the same league and id that another
// agent's registration saved (a league id used again on a data root) is
// not read: it is renamed aside, and its name returned.
func (s *historyStore) open(store *Store, dataRoot, playerID, displayName string, reg registration, now func() time.Time) (setAside string, err error) {
	s.close() // a history bound before (a second registration) lets go of its store
	own := store == nil
	if own {
		if store, err = OpenStore(dataRoot); err != nil {
			return "", err
		}
	} else if err := store.recoverOrphans(); err != nil {
		return "", err
	}
	release := func() {
		if own {
			_ = store.Close()
		}
	}
	dir := leagueDir(reg.LeagueID, reg.League)
	path := historyPath(store.root, dir, playerID)
	f, err := readHistory(path)
	if err != nil {
		release()
		return "", err
	}
	if !sameAgent(f.Registration, f.DisplayName, reg, displayName) {
		setAside = strings.TrimSuffix(path, ".json") + "." + now().UTC().Format("20060102T150405.000000000Z") + ".json"
		if err := os.Rename(path, setAside); err != nil {
			release()
			return "", fmt.Errorf("player: set aside another agent's history: %w", err)
		}
		f = historyFile{}
	}
	earlier, removeJournal, err := readEarlierLayout(store.root, playerID, displayName, reg)
	if err != nil {
		release()
		return "", err
	}
	if !store.bind(s) {
		return "", errors.New("player: history store is closed")
	}
	// Bound before the history is written: a result that comes meanwhile
	// goes to the journal.
	s.mu.Lock()
	var gathered []MatchRecord // of this league only: a second registration may be with another
	for _, m := range s.matches {
		if m.LeagueID == "" || m.LeagueID == reg.LeagueID {
			gathered = append(gathered, m)
		}
	}
	s.path, s.dir, s.league, s.id, s.name, s.reg, s.now = path, dir, reg.LeagueID, playerID, displayName, &reg, now
	s.matches, s.seen, s.pending, s.index, s.encoded = nil, map[[2]string]bool{}, nil, nil, nil
	s.mergeLocked(f.Matches)
	s.mergeLocked(earlier)
	s.mergeLocked(gathered)
	s.store, s.own = store, own
	s.mu.Unlock()
	if err := s.persist(now()); err != nil {
		return setAside, err
	}
	store.regs.note(path, displayName, reg)
	if removeJournal != "" {
		_ = os.Remove(removeJournal) // its records are in history.json now
	}
	return setAside, nil
}

// readEarlierLayout returns the records of the league of reg that earlier
// versions kept for playerID in data/players/<player_id>/history.json and
// in history.jsonl beside it: those of reg's league, when the file holds
// no registration or this very one. The file is left where it is; the
// journal, when every record it holds is returned, is named to be removed
// once they are saved.
func readEarlierLayout(root, playerID, displayName string, reg registration) (out []MatchRecord, removeJournal string, err error) {
	if reg.LeagueID == "" {
		return nil, "", nil // records of a league without a name cannot be told apart
	}
	path := legacyHistoryPath(root, playerID)
	f, err := readHistory(path)
	if err != nil {
		return nil, "", err
	}
	if f.Registration != nil && (f.Registration.LeagueID != reg.LeagueID || !sameAgent(f.Registration, f.DisplayName, reg, displayName)) {
		return nil, "", nil
	}
	journal, hadJournal, err := readLegacyJournal(legacyJournalPath(path))
	if err != nil {
		return nil, "", err
	}
	all := true
	for _, m := range journal {
		all = all && m.LeagueID == reg.LeagueID
	}
	if hadJournal && all {
		removeJournal = legacyJournalPath(path)
	}
	for _, m := range append(f.Matches, journal...) {
		if m.LeagueID == reg.LeagueID {
			out = append(out, m)
		}
	}
	return out, removeJournal, nil
}

// file returns the path of history.json, or "" before the player's id is
// known.
func (s *historyStore) file() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.path
}

// merge adds records as they would have been added one by one, and reports
// whether the history changed.
func (s *historyStore) merge(records []MatchRecord) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mergeLocked(records)
}

func (s *historyStore) mergeLocked(records []MatchRecord) bool {
	changed := false
	for _, m := range records {
		if s.addLocked(m) || s.supersedeLocked(m) >= 0 {
			changed = true
		}
	}
	return changed
}

// close writes the whole history to history.json and lets go of the
// store (closing it when it is the player's own). The history stays in
// memory.
func (s *historyStore) close() {
	s.snapDone.Wait()
	s.mu.Lock()
	store, own := s.store, s.own
	s.store, s.own = nil, false
	s.mu.Unlock()
	if store == nil {
		return
	}
	if s.flush() == nil {
		store.unbind(s)
	}
	if own {
		_ = store.Close()
	}
}

// flush writes history.json when results came since it was last written.
func (s *historyStore) flush() error {
	s.mu.Lock()
	dirty, now := len(s.pending) > 0, s.now
	s.mu.Unlock()
	if !dirty {
		return nil
	}
	return s.persist(now())
}

// uncovered returns the journal records of the results history.json does
// not hold yet.
func (s *historyStore) uncovered() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([][]byte, 0, len(s.pending))
	for _, i := range s.pending {
		if record, err := json.Marshal(s.storeRecordLocked(s.matches[i])); err == nil {
			out = append(out, record)
		}
	}
	return out
}

// storeRecordLocked returns m as a line of the store's journal: with the
// player's id, and its league's directory when m's league id does not
// name it. s.mu must be held.
func (s *historyStore) storeRecordLocked(m MatchRecord) storeRecord {
	r := storeRecord{PlayerID: s.id, MatchRecord: m}
	if s.league == "" || m.LeagueID != s.league {
		r.LeagueDir = s.dir
	}
	return r
}

func (s *historyStore) addLocked(m MatchRecord) bool {
	if s.seen == nil {
		s.seen = map[[2]string]bool{}
	}
	m.intern() // the key then holds the shared league id too
	k := [2]string{m.LeagueID, m.MatchID}
	if s.seen[k] {
		return false
	}
	s.seen[k] = true
	s.matches = append(s.matches, m)
	if s.index == nil {
		s.index = &opponentIndex{}
	}
	s.index.add(&m, len(s.matches)-1)
	return true
}

// intern replaces the strings of m that many records hold alike (league,
// opponent, outcome, choices, reason) by one shared copy of each: a player keeps
// its whole history in memory, and in a league of n players the n(n-1)
// records would otherwise hold their own copies, which the garbage
// collector visits one by one.
func (m *MatchRecord) intern() {
	for _, p := range []*string{&m.LeagueID, &m.GameType, &m.OpponentID, (*string)(&m.Role),
		(*string)(&m.Result), (*string)(&m.MyChoice), (*string)(&m.OpponentChoice), (*string)(&m.NumberParity), &m.Reason} {
		if *p != "" {
			*p = unique.Make(*p).Value()
		}
	}
}

// add records m unless a record of the same league and match exists, and
// returns once it is durable. A record of a later attempt (see
// leaguesdk.GameOver) replaces the one it supersedes in place. It reports
// whether m was recorded.
func (s *historyStore) add(m MatchRecord, now time.Time) (bool, error) {
	s.mu.Lock()
	at := len(s.matches)
	if !s.addLocked(m) {
		if at = s.supersedeLocked(m); at < 0 {
			s.mu.Unlock()
			return false, nil
		}
	}
	store := s.store
	if store == nil || store.j == nil {
		s.mu.Unlock()
		if store == nil {
			return true, nil
		}
		return true, s.persist(now) // no journal: history.json, durably, each time
	}
	// On disk before the GAME_OVER is acknowledged: one line of the
	// store's journal, whatever the length of the history, sharing its
	// fsync with the results of other players that came at the same time.
	record, err := json.Marshal(s.storeRecordLocked(m))
	if err != nil {
		s.mu.Unlock()
		return true, fmt.Errorf("player: save history: %w", err)
	}
	s.pending = append(s.pending, at)
	s.mu.Unlock()
	if err := store.append(record); err != nil {
		// The store is closed or failing: history.json, durably, instead.
		if perr := s.persist(now); perr != nil {
			return true, fmt.Errorf("player: save history: %w", errors.Join(err, perr))
		}
		return true, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) >= max(minSnapshot, s.written) && !s.snapping {
		s.snapDone.Add(1)
		if s.snapping = store.goRewrite(s.rewrite); !s.snapping {
			s.snapDone.Done()
		}
	}
	return true, nil
}

// rewrite rewrites history.json off the GAME_OVER's path.
func (s *historyStore) rewrite() {
	defer s.snapDone.Done()
	s.mu.Lock()
	now := s.now
	s.mu.Unlock()
	_ = s.persist(now()) // on an error the records stay in the journal
	s.mu.Lock()
	s.snapping = false
	s.mu.Unlock()
}

// encodedLimit is the longest history whose records' encodings a player
// keeps between rewrites of history.json: a league of roundFlushLimit
// players, whose histories are rewritten every round, gives each player
// fewer records.
const encodedLimit = roundFlushLimit

// persist writes the whole history to history.json, durably, and then
// drops the journal records it covers from pending.
func (s *historyStore) persist(now time.Time) error {
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	s.mu.Lock()
	if s.path == "" {
		s.mu.Unlock()
		return nil
	}
	path, covered := s.path, len(s.pending)
	matches, encoded := s.matches[:len(s.matches):len(s.matches)], s.encoded[:len(s.encoded):len(s.encoded)]
	f := historyFile{
		SchemaVersion: historySchemaVersion,
		LastUpdated:   leaguesdk.FormatTime(now),
		PlayerID:      s.id,
		DisplayName:   s.name,
		LeagueID:      s.league,
		Stats:         History{matches: matches}.Stats(),
		Registration:  s.reg,
	}
	if s.reg != nil {
		f.Manager = s.reg.League
	}
	s.mu.Unlock()
	data, encoded, err := f.encode(matches, encoded)
	if err == nil {
		err = atomicfile.Rewrite(path, data, 0o600)
	}
	if err != nil {
		return fmt.Errorf("player: save history: %w", err)
	}
	s.mu.Lock()
	s.pending = slices.Delete(s.pending, 0, covered)
	s.written = len(matches)
	switch {
	case len(encoded) > encodedLimit:
		s.encoded = nil
	case len(s.encoded) < len(encoded) && len(s.matches) >= len(encoded) && &s.matches[0] == &matches[0]:
		s.encoded = encoded // no record was replaced meanwhile
	}
	s.mu.Unlock()
	return nil
}

// encode returns f with the records matches as history.json holds them,
// json.MarshalIndent's layout with two spaces, and the records' encodings
// with it: encoded holds those of the first records already.
func (f historyFile) encode(matches []MatchRecord, encoded [][]byte) ([]byte, [][]byte, error) {
	f.Matches = []MatchRecord{}
	head, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	if len(matches) == 0 {
		return append(head, '\n'), encoded, nil
	}
	for _, m := range matches[len(encoded):] {
		b, err := json.MarshalIndent(m, "    ", "  ")
		if err != nil {
			return nil, nil, err
		}
		encoded = append(encoded, b)
	}
	head = bytes.TrimSuffix(head, []byte("[]\n}"))
	size := len(head) + 16
	for _, b := range encoded {
		size += len(b) + 6
	}
	out := append(make([]byte, 0, size), head...)
	out = append(out, "[\n"...)
	for i, b := range encoded {
		if i > 0 {
			out = append(out, ",\n"...)
		}
		out = append(append(out, "    "...), b...)
	}
	return append(out, "\n  ]\n}\n"...), encoded, nil
}

// supersedeLocked replaces the record of m's match by m when m is of a
// later attempt, and returns where it is in matches; -1 when it did not.
func (s *historyStore) supersedeLocked(m MatchRecord) int {
	for i, old := range s.matches {
		if old.LeagueID == m.LeagueID && old.MatchID == m.MatchID {
			if leaguesdk.AttemptOf(m.Attempt) <= leaguesdk.AttemptOf(old.Attempt) {
				return -1
			}
			// A copy: snapshots handed out share the old array.
			s.matches = slices.Clone(s.matches)
			m.intern()
			s.matches[i] = m
			s.encoded = nil
			s.index = newOpponentIndex(s.matches) // snapshots keep the one of their records
			return i
		}
	}
	return -1
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

// snapshot returns the history as it is now. The slice is capped so that
// later appends never show through it.
func (s *historyStore) snapshot() History {
	s.mu.Lock()
	defer s.mu.Unlock()
	return History{matches: s.matches[:len(s.matches):len(s.matches)], index: s.index}
}
