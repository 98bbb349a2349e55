package playerstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentleague/league/internal/filelock"
	"github.com/agentleague/league/internal/journal"
	"github.com/google/uuid"
)

// compactEvery is the fewest records appended to a store's journal after
// which it is compacted: rewritten with only the records no durable
// history.json covers yet. A compaction waits for as many records as it
// kept the last time, so the bytes it rewrites per record stay constant.
// A compaction holds the store's appends back while it writes and syncs
// the new journal, so it comes seldom: 4096 records are about 20 rounds of
// a 200-player league sharing one store (two records a match), some 1.5 MB
// of journal.
const compactEvery = 4096

// A Store keeps the histories of the players that share it durable with
// one journal: every result is a line of
// <DataRoot>/data/players/.journal/<instance>.jsonl, tagged with its
// player's id, and a GAME_OVER is acknowledged once its line is on disk.
// The results of players that finish at the same time share one fsync
// (group commit), which is what lets many players in one process keep up
// with a league. Each player's history.json stays the file to read; it is
// rewritten durably now and then (when the player's results since the last
// rewrite are as many as the file holds, and at least 32) and when the
// player stops, and the journal is compacted so that it keeps only the
// results no history.json holds yet.
//
// Stores of several processes may share a data root: each holds a lock on
// its own journal. A journal whose lock is free was left by a process that
// crashed; the next store to open on the data root (or to load a player's
// history) merges its results into the players' history.json files and
// removes it. Where the system has no file locks, a Store keeps no journal
// and writes each player's history.json durably at every result.
//
// The players of a Store also share the reading of the registrations
// saved in the data root's history files (a player started again finds
// its token there): each file is read once for all of them, not once per
// player that registers.
//
// Open one with [Open], hand it to the players (player.Config.Store),
// and Close it after they have stopped. A Store is safe for concurrent use.
type Store[R any] struct {
	kind         Kind[R]
	root         string
	instance     string
	j            *journal.Journal // nil where file locks are not available
	lock         *filelock.Lock
	compactEvery int

	mu         sync.Mutex
	players    map[*History[R]]struct{} // histories bound to the store
	closed     bool
	since      int // records appended since the last compaction
	kept       int // records the last compaction kept
	compacting bool
	wg         sync.WaitGroup // a compaction under way

	regs savedRegistrations // the registrations saved under root
}

// storeRecord is the head of one line of a store's journal: the player's
// id before the fields of its match record.
type storeRecord struct {
	PlayerID string `json:"player_id"`
	// LeagueDir is the league's directory under data/players (leagueDir)
	// when the record's league_id does not name it; empty otherwise.
	LeagueDir string `json:"league_dir,omitempty"`
}

// encode returns the journal line of m: one JSON object with the head's
// members first, then m's.
func (h storeRecord) encode(m any) ([]byte, error) {
	head, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	rec, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if len(rec) < 2 || rec[0] != '{' {
		return nil, fmt.Errorf("a match record encodes as %.20s, not an object", rec)
	}
	if len(rec) == 2 { // {}
		return head, nil
	}
	return append(append(head[:len(head)-1], ','), rec[1:]...), nil
}

// Open opens a history store of records of kind on dataRoot (the data
// root of the league's data layer), first recovering the journals of
// stores that crashed there.
func Open[R any](dataRoot string, kind Kind[R]) (*Store[R], error) {
	return openStore(dataRoot, kind, journal.Config{})
}

func openStore[R any](dataRoot string, kind Kind[R], jcfg journal.Config) (*Store[R], error) {
	// The journal is the store's own, read by no one while it is open:
	// space reserved ahead of its records makes each fsync cheaper.
	jcfg.Reserve = journal.DefaultReserve
	s := &Store[R]{kind: kind, root: dataRoot, instance: uuid.NewString(), compactEvery: compactEvery,
		players: map[*History[R]]struct{}{}, regs: savedRegistrations{root: dataRoot}}
	if !filelock.Supported {
		return s, nil
	}
	dir := journalDir(dataRoot)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("player: open history store: %w", err)
	}
	base := filepath.Join(dir, s.instance)
	lock, ok, err := filelock.TryLock(base + ".lock")
	if err != nil {
		return nil, fmt.Errorf("player: open history store: %w", err)
	}
	if !ok {
		return nil, fmt.Errorf("player: open history store: %s is locked", base)
	}
	if err := s.recoverOrphans(); err != nil {
		lock.Release(true)
		return nil, err
	}
	if s.j, err = journal.Open(base+".jsonl", jcfg); err != nil {
		lock.Release(true)
		return nil, fmt.Errorf("player: open history store: %w", err)
	}
	s.lock = lock
	return s, nil
}

// journalDir is where the stores on dataRoot keep their journals.
func journalDir(dataRoot string) string {
	return filepath.Join(dataRoot, "data", "players", ".journal")
}

// recoverOrphans merges every journal of the data root whose lock nobody
// holds (its store crashed) into the history files of its players, and
// removes it. Stores recover one at a time, so that a player's history is
// read only after the journals holding its results are merged.
func (s *Store[R]) recoverOrphans() error {
	if !filelock.Supported {
		return nil
	}
	dir := journalDir(s.root)
	names, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || !slices.ContainsFunc(names, s.orphanCandidate) {
		return err
	}
	guard, err := filelock.Acquire(filepath.Join(dir, "recover.lock"))
	if err != nil {
		return fmt.Errorf("player: recover history journals: %w", err)
	}
	defer guard.Release(false)
	if names, err = filepath.Glob(filepath.Join(dir, "*.jsonl")); err != nil {
		return err
	}
	for _, name := range names {
		if !s.orphanCandidate(name) {
			continue
		}
		base := strings.TrimSuffix(name, ".jsonl")
		lock, ok, err := filelock.TryLock(base + ".lock")
		if err != nil {
			return fmt.Errorf("player: recover history journals: %w", err)
		}
		if !ok {
			continue // a live store's
		}
		err = recoverJournal(s.root, name, s.kind)
		if err == nil {
			if err = os.Remove(name); errors.Is(err, fs.ErrNotExist) {
				err = nil
			}
		}
		lock.Release(err == nil)
		if err != nil {
			return fmt.Errorf("player: recover history journal %s: %w", name, err)
		}
	}
	return nil
}

// orphanCandidate reports whether the journal file name is not this
// store's own.
func (s *Store[R]) orphanCandidate(name string) bool {
	return filepath.Base(name) != s.instance+".jsonl"
}

// recoverJournal writes durably into each player's history.json the
// results the journal at name holds for it that the file lacks (or holds
// from an earlier attempt).
func recoverJournal[R any](root, name string, kind Kind[R]) error {
	byFile := map[string][]R{}
	ids := map[string]string{}
	var order []string
	j, err := journal.Open(name, journal.Config{Replay: func(rec []byte) error {
		var head storeRecord
		var m R
		if json.Unmarshal(rec, &head) != nil || json.Unmarshal(rec, &m) != nil || head.PlayerID == "" {
			return nil // not a result: nothing to recover
		}
		league, match := kind.Key(&m)
		if match == "" {
			return nil
		}
		var path string
		switch {
		case head.LeagueDir != "":
			path = historyPath(root, head.LeagueDir, head.PlayerID)
		case league != "":
			path = historyPath(root, leagueDir(league, ""), head.PlayerID)
		default: // an earlier version's record
			path = legacyHistoryPath(root, head.PlayerID)
		}
		if _, ok := byFile[path]; !ok {
			order = append(order, path)
			ids[path] = head.PlayerID
		}
		byFile[path] = append(byFile[path], m)
		return nil
	}})
	if err != nil {
		return err
	}
	if err := j.Close(); err != nil {
		return err
	}
	for _, path := range order {
		h := NewHistory(kind, Hooks[R]{})
		f, err := readHistory[R](path)
		if err != nil {
			return err
		}
		h.path, h.id, h.name, h.reg, h.league = path, ids[path], f.DisplayName, f.Registration, f.LeagueID
		if f.PlayerID != "" {
			h.id = f.PlayerID
		}
		h.merge(f.Matches)
		if !h.merge(byFile[path]) {
			continue // the file holds every result already
		}
		if err := h.persist(time.Now()); err != nil {
			return err
		}
	}
	return nil
}

// bind adds h to the histories the store keeps, or reports false when the
// store is closed.
func (s *Store[R]) bind(h *History[R]) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.players[h] = struct{}{}
	return true
}

// unbind removes h, whose results are all in its history.json.
func (s *Store[R]) unbind(h *History[R]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.players, h)
}

// append makes one journal record durable, and starts a compaction when
// enough records came since the last one.
func (s *Store[R]) append(record []byte) error {
	if err := s.j.AppendRaw(context.Background(), record); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.since++
	if s.since >= max(s.compactEvery, s.kept) && !s.compacting && !s.closed {
		s.compacting, s.since = true, 0
		s.wg.Add(1)
		go s.compact()
	}
	return nil
}

// compact rewrites the journal with the records of its players that no
// durable history.json holds yet. Records appended meanwhile are written
// after them.
func (s *Store[R]) compact() {
	defer s.wg.Done()
	kept := 0
	err := s.j.Compact(func(emit func(any) error) error {
		s.mu.Lock()
		players := slices.Collect(maps.Keys(s.players))
		s.mu.Unlock()
		for _, h := range players {
			for _, rec := range h.uncovered() {
				if err := emit(json.RawMessage(rec)); err != nil {
					return err
				}
				kept++
			}
		}
		return nil
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compacting = false
	if err == nil {
		s.kept = kept
	}
}

// Close writes the history.json of every player still using the store,
// durably, and removes the store's journal. A player that records a result
// after Close writes its history.json durably on its own. Close the store
// after the players that use it have stopped. Close is idempotent.
func (s *Store[R]) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.wg.Wait()
	var errs []error
	if s.j != nil {
		errs = append(errs, s.j.Close())
	}
	s.mu.Lock()
	players := slices.Collect(maps.Keys(s.players))
	s.mu.Unlock()
	// The journal takes no more records: once every player's file holds
	// its results, the journal is no longer needed.
	for _, h := range players {
		errs = append(errs, h.Flush())
	}
	err := errors.Join(errs...)
	if s.j != nil {
		if err == nil {
			if rerr := os.Remove(s.j.Path()); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
				err = rerr
			}
		}
		// A journal kept (on an error) is recovered by the next store to
		// open on the data root, once the lock is released.
		s.lock.Release(err == nil)
	}
	if err != nil {
		return fmt.Errorf("player: close history store: %w", err)
	}
	return nil
}

// goRewrite runs a player's rewrite of history.json in the background, so
// that Close waits for it; it reports false once the store is closed.
func (s *Store[R]) goRewrite(rewrite func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		rewrite()
	}()
	return true
}

// Root returns the store's data root.
func (s *Store[R]) Root() string { return s.root }

// SavedToken returns the token of the registration saved under the data
// root for the player called name with the manager at league from
// endpoint, or "" when there is none: under store's data root, sharing the
// reading of the files with the store's other players, or, when store is
// nil, under dataRoot.
func SavedToken[R any](store *Store[R], dataRoot, name, league, endpoint string) string {
	if store != nil {
		return store.regs.token(name, league, endpoint)
	}
	r := savedRegistrations{root: dataRoot}
	return r.token(name, league, endpoint)
}
