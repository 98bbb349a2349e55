package playerstore

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
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

// Kind says what the store needs to know of the records it keeps (a
// player's match records): the same for every history of a [Store].
type Kind[R any] struct {
	// Key returns the league and the match a record is of: a history holds
	// one record per key.
	Key func(r *R) (leagueID, matchID string)
	// Attempt returns the attempt of the GAME_OVER a record was made of (0
	// counts as 1): a record of a later attempt replaces the one it
	// supersedes.
	Attempt func(r *R) int
	// Stats sums up records, for history.json's "stats".
	Stats func(records []R) any
}

// Hooks are told, under the history's lock, how its records change, so
// that what is derived from them (an index) stays in step with
// [History.View].
type Hooks[R any] struct {
	// Prepare, when set, may change a record before it is kept (to
	// intern its strings).
	Prepare func(r *R)
	// Added, when set, is told that r was appended at index i.
	Added func(r *R, i int)
	// Replaced, when set, is told that a record was replaced: all holds
	// every record.
	Replaced func(all []R)
}

// historySchemaVersion is the schema_version of history.json.
const historySchemaVersion = "1.0.0"

// historyFile is the JSON form of
// data/players/<league>/<player_id>/history.json: one agent's history in
// one league (see leagueDir).
type historyFile[R any] struct {
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
	Registration *Registration `json:"registration,omitempty"`
	Stats        any           `json:"stats"`
	Matches      []R           `json:"matches"`
}

// Registration is a player's registration with a league, as its history
// file keeps it.
type Registration struct {
	League    string `json:"league"` // the manager's endpoint
	LeagueID  string `json:"league_id,omitempty"`
	Endpoint  string `json:"contact_endpoint"`
	AuthToken string `json:"auth_token"`
}

// History keeps a player's history in memory and, once the player's id
// is known, in its history file through a [Store]. Records are keyed by
// league and match, so a repeated GAME_OVER is recorded once. It is safe
// for concurrent use.
type History[R any] struct {
	kind  Kind[R]
	hooks Hooks[R]

	// snapMu serialises the writes of history.json, so that a later
	// version never loses to an earlier one.
	snapMu sync.Mutex

	mu      sync.Mutex
	store   *Store[R] // nil before Open and after Close: memory only
	own     bool      // store was opened for this player and closes with it
	path    string    // "" until the player id is known
	dir     string    // the league's directory under data/players (leagueDir)
	league  string    // the league id dir was made from; "" for a league the manager did not name
	id      string
	name    string
	reg     *Registration
	now     func() time.Time
	matches []R
	seen    map[[2]string]bool
	// pending holds where in matches the results are that history.json
	// does not hold yet, in the order they came (their journal records
	// are made again from matches when the journal is compacted, not
	// kept); written is the number of results the file held when last
	// written. The file is rewritten when pending reaches
	// max(minSnapshot, written), so the bytes written per result stay
	// constant on average.
	pending  []int
	written  int
	snapping bool           // a rewrite of history.json is under way
	snapDone sync.WaitGroup // the rewrite under way
}

// NewHistory returns an empty history of records of kind, in memory until
// [History.Open].
func NewHistory[R any](kind Kind[R], hooks Hooks[R]) *History[R] {
	return &History[R]{kind: kind, hooks: hooks, seen: map[[2]string]bool{}}
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
func sameAgent(saved *Registration, savedName string, reg Registration, name string) bool {
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
func readHistory[R any](path string) (historyFile[R], error) {
	var f historyFile[R]
	if err := atomicfile.ReadJSON(path, &f); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return historyFile[R]{}, fmt.Errorf("player: load history: %w", err)
	}
	return f, nil
}

// readLegacyJournal returns the records of the per-player journal at path
// that earlier versions wrote, if there is one.
func readLegacyJournal[R any](path string, kind Kind[R]) ([]R, bool, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	var out []R
	j, err := journal.Open(path, journal.Config{Replay: func(rec []byte) error {
		var m R
		if json.Unmarshal(rec, &m) == nil {
			if _, match := kind.Key(&m); match != "" {
				out = append(out, m)
			}
		}
		return nil
	}})
	if err != nil {
		return nil, false, fmt.Errorf("player: history journal: %w", err)
	}
	return out, true, j.Close()
}

// Open binds the history to playerID in the league of reg in store (or,
// when store is nil, in a Store of its own on dataRoot), loading the
// records already in its history file (and, once, those an earlier version
// kept for the same registration; records gathered before of the same
// league are kept after them), and saves it with reg, the player's
// registration. A history file of the same league and id that another
// agent's registration saved (a league id used again on a data root) is
// not read: it is renamed aside, and its name returned.
func (s *History[R]) Open(store *Store[R], dataRoot, playerID, displayName string, reg Registration, now func() time.Time) (setAside string, err error) {
	s.Close() // a history bound before (a second registration) lets go of its store
	own := store == nil
	if own {
		if store, err = Open(dataRoot, s.kind); err != nil {
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
	f, err := readHistory[R](path)
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
		f = historyFile[R]{}
	}
	earlier, removeJournal, err := readEarlierLayout(store.root, playerID, displayName, reg, s.kind)
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
	var gathered []R // of this league only: a second registration may be with another
	for i := range s.matches {
		if league, _ := s.kind.Key(&s.matches[i]); league == "" || league == reg.LeagueID {
			gathered = append(gathered, s.matches[i])
		}
	}
	s.path, s.dir, s.league, s.id, s.name, s.reg, s.now = path, dir, reg.LeagueID, playerID, displayName, &reg, now
	s.matches, s.seen, s.pending = nil, map[[2]string]bool{}, nil
	if s.hooks.Replaced != nil {
		s.hooks.Replaced(nil)
	}
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
func readEarlierLayout[R any](root, playerID, displayName string, reg Registration, kind Kind[R]) (out []R, removeJournal string, err error) {
	if reg.LeagueID == "" {
		return nil, "", nil // records of a league without a name cannot be told apart
	}
	path := legacyHistoryPath(root, playerID)
	f, err := readHistory[R](path)
	if err != nil {
		return nil, "", err
	}
	if f.Registration != nil && (f.Registration.LeagueID != reg.LeagueID || !sameAgent(f.Registration, f.DisplayName, reg, displayName)) {
		return nil, "", nil
	}
	journal, hadJournal, err := readLegacyJournal(legacyJournalPath(path), kind)
	if err != nil {
		return nil, "", err
	}
	all := true
	for i := range journal {
		league, _ := kind.Key(&journal[i])
		all = all && league == reg.LeagueID
	}
	if hadJournal && all {
		removeJournal = legacyJournalPath(path)
	}
	for _, m := range append(f.Matches, journal...) {
		if league, _ := kind.Key(&m); league == reg.LeagueID {
			out = append(out, m)
		}
	}
	return out, removeJournal, nil
}

// File returns the path of history.json, or "" before the player's id is
// known.
func (s *History[R]) File() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.path
}

// View calls f with the records as they are now, under the history's lock
// (so that what [Hooks] keep is in step with them). The slice is capped so
// that later appends never show through it; f must not change it.
func (s *History[R]) View(f func(records []R)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s.matches[:len(s.matches):len(s.matches)])
}

// merge adds records as they would have been added one by one, and reports
// whether the history changed.
func (s *History[R]) merge(records []R) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mergeLocked(records)
}

func (s *History[R]) mergeLocked(records []R) bool {
	changed := false
	for _, m := range records {
		if s.addLocked(m) || s.supersedeLocked(m) >= 0 {
			changed = true
		}
	}
	return changed
}

// Close writes the whole history to history.json and lets go of the
// store (closing it when it is the player's own). The history stays in
// memory.
func (s *History[R]) Close() {
	s.snapDone.Wait()
	s.mu.Lock()
	store, own := s.store, s.own
	s.store, s.own = nil, false
	s.mu.Unlock()
	if store == nil {
		return
	}
	if s.Flush() == nil {
		store.unbind(s)
	}
	if own {
		_ = store.Close()
	}
}

// Flush writes history.json when results came since it was last written,
// so that the file holds every result recorded.
func (s *History[R]) Flush() error {
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
func (s *History[R]) uncovered() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([][]byte, 0, len(s.pending))
	for _, i := range s.pending {
		if record, err := s.journalRecordLocked(&s.matches[i]); err == nil {
			out = append(out, record)
		}
	}
	return out
}

// journalRecordLocked returns m as a line of the store's journal: its
// fields after the player's id, and its league's directory when m's
// league id does not name it. s.mu must be held.
func (s *History[R]) journalRecordLocked(m *R) ([]byte, error) {
	head := storeRecord{PlayerID: s.id}
	if league, _ := s.kind.Key(m); s.league == "" || league != s.league {
		head.LeagueDir = s.dir
	}
	return head.encode(m)
}

func (s *History[R]) addLocked(m R) bool {
	if s.seen == nil {
		s.seen = map[[2]string]bool{}
	}
	if s.hooks.Prepare != nil {
		s.hooks.Prepare(&m) // the key then holds the shared league id too
	}
	league, match := s.kind.Key(&m)
	k := [2]string{league, match}
	if s.seen[k] {
		return false
	}
	s.seen[k] = true
	s.matches = append(s.matches, m)
	if s.hooks.Added != nil {
		s.hooks.Added(&s.matches[len(s.matches)-1], len(s.matches)-1)
	}
	return true
}

// Add records m unless a record of the same league and match exists, and
// returns once it is durable. A record of a later attempt (see
// [leaguesdk.GameOver]) replaces the one it supersedes in place. It reports
// whether m was recorded.
func (s *History[R]) Add(m R, now time.Time) (bool, error) {
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
	record, err := s.journalRecordLocked(&s.matches[at])
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
func (s *History[R]) rewrite() {
	defer s.snapDone.Done()
	s.mu.Lock()
	now := s.now
	s.mu.Unlock()
	_ = s.persist(now()) // on an error the records stay in the journal
	s.mu.Lock()
	s.snapping = false
	s.mu.Unlock()
}

// persist writes the whole history to history.json, durably, and then
// drops the journal records it covers from pending.
func (s *History[R]) persist(now time.Time) error {
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	s.mu.Lock()
	if s.path == "" {
		s.mu.Unlock()
		return nil
	}
	path, covered := s.path, len(s.pending)
	matches := s.matches[:len(s.matches):len(s.matches)]
	f := historyFile[R]{
		SchemaVersion: historySchemaVersion,
		LastUpdated:   leaguesdk.FormatTime(now),
		PlayerID:      s.id,
		DisplayName:   s.name,
		LeagueID:      s.league,
		Stats:         s.kind.Stats(matches),
		Registration:  s.reg,
	}
	if s.reg != nil {
		f.Manager = s.reg.League
	}
	s.mu.Unlock()
	err := atomicfile.RewriteStream(path, 0o600, func(w io.Writer) error { return f.write(w, matches) })
	if err != nil {
		return fmt.Errorf("player: save history: %w", err)
	}
	s.mu.Lock()
	s.pending = slices.Delete(s.pending, 0, covered)
	s.written = len(matches)
	s.mu.Unlock()
	return nil
}

// encode returns f with the records matches as history.json holds them:
// json.MarshalIndent's layout with two spaces, and a final newline.
func (f historyFile[R]) encode(matches []R) ([]byte, error) {
	var b bytes.Buffer
	err := f.write(&b, matches)
	return b.Bytes(), err
}

// write writes the file with matches to w, as encoding/json's Encoder
// indented by two spaces writes it, one match at a time: a history of a
// thousand matches is not built in memory first (a whole league's players
// rewrite theirs at once when it completes).
func (f historyFile[R]) write(w io.Writer, matches []R) error {
	f.Matches = []R{}
	head, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	// The matches are the last member: head ends with them, empty.
	head = bytes.TrimSuffix(head, []byte("[]\n}"))
	if len(matches) == 0 {
		_, err = fmt.Fprintf(w, "%s[]\n}\n", head)
		return err
	}
	buf, sep := head, "[\n    " // buf: the head, then each match with what comes before it
	for i := range matches {
		m, err := json.MarshalIndent(&matches[i], "    ", "  ")
		if err != nil {
			return err
		}
		buf = append(append(buf, sep...), m...)
		if _, err := w.Write(buf); err != nil {
			return err
		}
		buf, sep = buf[:0], ",\n    "
	}
	_, err = io.WriteString(w, "\n  ]\n}\n")
	return err
}

// supersedeLocked replaces the record of m's match by m when m is of a
// later attempt, and returns where it is in matches; -1 when it did not.
func (s *History[R]) supersedeLocked(m R) int {
	league, match := s.kind.Key(&m)
	for i := range s.matches {
		if l, mm := s.kind.Key(&s.matches[i]); l == league && mm == match {
			if leaguesdk.AttemptOf(s.kind.Attempt(&m)) <= leaguesdk.AttemptOf(s.kind.Attempt(&s.matches[i])) {
				return -1
			}
			// A copy: views handed out share the old array.
			s.matches = slices.Clone(s.matches)
			if s.hooks.Prepare != nil {
				s.hooks.Prepare(&m)
			}
			s.matches[i] = m
			if s.hooks.Replaced != nil {
				s.hooks.Replaced(s.matches)
			}
			return i
		}
	}
	return -1
}

// Attempt returns the attempt number of the recorded match, or 0 when
// none is recorded.
func (s *History[R]) Attempt(leagueID, matchID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.seen[[2]string{leagueID, matchID}] {
		return 0
	}
	for i := range s.matches {
		if l, m := s.kind.Key(&s.matches[i]); l == leagueID && m == matchID {
			return leaguesdk.AttemptOf(s.kind.Attempt(&s.matches[i]))
		}
	}
	return 0
}
