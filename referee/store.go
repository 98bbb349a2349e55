package referee

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentleague/league/internal/agentkit"
	"github.com/agentleague/league/internal/atomicfile"
	"github.com/agentleague/league/internal/filelock"
	"github.com/agentleague/league/internal/journal"
	wirejson "github.com/agentleague/league/internal/json"
	"github.com/google/uuid"
)

// compactEvery is the number of transcript records after which a league's
// journal is compacted in the background: the files written since the last
// compaction are made durable and their records dropped. Each compaction
// syncs the file system (syncfs) and holds the journal's group commits back
// while it writes the new journal, so it comes seldom: 2048 records are
// about 1000 matches (two records a match, 6 to 7 KB each): some 13 MB of
// journal, and the newest record of each match, about 7 MB, kept in memory
// until its file is durable.
const compactEvery = 2048

// transcripts keeps a referee's match transcripts durable. Each write of a
// transcript (when its match ends, when its result is acknowledged) is one
// record of this referee's journal for the league,
// data/matches/<league>/.journal/<instance>.jsonl, made durable by group
// commit: the matches that end together share one fsync. The match's own
// file, data/matches/<league>/<match>.json, is written once, when the
// match is settled (its report answered, or the match aborted), without an
// fsync of its own: replacing a file at each write would create and delete
// a file system inode per write, and on ext4 the creation of inodes slows
// down as recently deleted ones pile up. Until then the transcript is
// served from the journal's record. Compaction (every compactEvery records)
// writes the files still pending, flushes them and drops their records;
// when the referee stops, the same is done and the journal removed.
//
// Referees may share a data root, so each holds its own journal under a
// lock (internal/filelock). A journal whose lock nobody holds was left by a
// referee that crashed: the next referee to open the league rewrites,
// durably, every file it holds that is missing, torn or older than the
// journal's record, then removes it. Where file locks are not available
// every transcript is written durably on its own instead.
type transcripts struct {
	root     string
	instance string

	mu      sync.Mutex
	leagues map[string]*leagueTranscripts
	closed  bool
}

// leagueTranscripts is one league's journal and the files it covers.
type leagueTranscripts struct {
	dir  string
	j    *journal.Journal
	lock *filelock.Lock

	// gate is read-held by a write from its journal record to its file
	// replacement, and held by compaction while it takes the dirty set, so
	// every file it then flushes is complete.
	gate sync.RWMutex

	// files is held while a match file is written, with the check that
	// the record written is still its match's newest: a compaction
	// flushing a record taken before a newer write of the same match
	// then never replaces the newer file with the older record.
	files sync.Mutex

	mu         sync.Mutex
	dirty      map[string]*pending // match id → newest record whose file is not yet durable
	sinceCompa int                 // records appended since the last compaction
	compacting bool
	wg         sync.WaitGroup // background compaction
	// kick wakes the writer goroutine, which creates the files of settled
	// matches; stop ends it, and writer is done when it has ended.
	kick   chan struct{}
	stop   chan struct{}
	writer sync.WaitGroup
}

// pending is a transcript record whose match file is not yet durable.
type pending struct {
	record  []byte
	settled bool // the match is settled: its file is to be written now
	written bool // the match's file holds record (not yet durably)
}

func newTranscripts(root string) *transcripts {
	return &transcripts{root: root, instance: uuid.NewString(), leagues: map[string]*leagueTranscripts{}}
}

// A Store keeps durable the match transcripts of the referees that share
// it: one journal per league for all of them, so that the matches that end
// together on any of them share one fsync (group commit). Several referees
// in one process (examples/fourplayer runs them so) would otherwise each
// keep a journal of their own and pay an fsync each for matches that end
// at the same moment; on one disk those fsyncs queue behind one another.
// The match files are the same either way:
// <DataRoot>/data/matches/<league_id>/<match_id>.json.
//
// A referee sharing a Store also sees the matches the others finished: a
// start_match for a match another referee of the Store has already decided
// (given again by a manager that waited too long for its report) is
// answered with that result, reported again, not played a second time.
//
// Open one with [OpenStore], hand it to the referees through [Config.Store],
// and Close it after they have stopped. A Store is safe for concurrent use.
type Store struct {
	t *transcripts
}

// OpenStore opens a transcript store on dataRoot (the data root of the
// league's data layer, as in [Config.DataRoot]; "" means [DefaultDataRoot]).
// A league's journal opens with the first match of that league, after the
// journals of stores that crashed on the data root are recovered.
func OpenStore(dataRoot string) (*Store, error) {
	if dataRoot == "" {
		dataRoot = DefaultDataRoot
	}
	if err := os.MkdirAll(filepath.Join(dataRoot, "data", "matches"), 0o755); err != nil {
		return nil, fmt.Errorf("referee: open transcript store: %w", err)
	}
	return &Store{t: newTranscripts(dataRoot)}, nil
}

// Close writes the match files still pending, makes them durable and
// removes the store's journals. A referee still running afterwards writes
// each transcript durably on its own. Close is idempotent.
func (s *Store) Close() error { return s.t.close() }

func (s *transcripts) dir(leagueID string) string {
	return filepath.Join(s.root, "data", "matches", agentkit.SafeFileName(leagueID))
}

func matchFile(dir, matchID string) string {
	return filepath.Join(dir, agentkit.SafeFileName(matchID)+".json")
}

// league returns this referee's open journal of leagueID, opening it on
// first use after repairing what crashed referees left. It returns nil
// when transcripts are written durably one by one: after close, or where
// file locks are not available.
func (s *transcripts) league(leagueID string) (*leagueTranscripts, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || !filelock.Supported {
		return nil, nil
	}
	if lt := s.leagues[leagueID]; lt != nil {
		return lt, nil
	}
	dir := s.dir(leagueID)
	jdir := filepath.Join(dir, ".journal")
	if err := os.MkdirAll(jdir, 0o755); err != nil {
		return nil, err
	}
	base := filepath.Join(jdir, s.instance)
	lock, ok, err := filelock.TryLock(base + ".lock")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("referee: transcript journal %s is locked", base)
	}
	if err := recoverOrphans(dir, jdir); err != nil {
		lock.Release(true)
		return nil, err
	}
	// The journal is read by no one while it is open: space reserved
	// ahead of its records makes each fsync cheaper.
	j, err := journal.Open(base+".jsonl", journal.Config{Reserve: journal.DefaultReserve})
	if err != nil {
		lock.Release(true)
		return nil, err
	}
	lt := &leagueTranscripts{dir: dir, j: j, lock: lock, dirty: map[string]*pending{},
		kick: make(chan struct{}, 1), stop: make(chan struct{})}
	lt.writer.Add(1)
	go lt.write()
	s.leagues[leagueID] = lt
	return lt, nil
}

// recoverOrphans repairs the match files of every journal in jdir whose
// lock nobody holds (its referee crashed), then removes the journal.
func recoverOrphans(dir, jdir string) error {
	names, err := filepath.Glob(filepath.Join(jdir, "*.jsonl"))
	if err != nil {
		return err
	}
	for _, name := range names {
		base := strings.TrimSuffix(name, ".jsonl")
		lock, ok, err := filelock.TryLock(base + ".lock")
		if err != nil {
			return err
		}
		if !ok {
			continue // a live referee's
		}
		err = recoverJournal(dir, name)
		if err == nil {
			err = os.Remove(name)
		}
		lock.Release(err == nil)
		if err != nil {
			return err
		}
	}
	return nil
}

// recoverJournal rewrites durably the file of every match the journal at
// name holds, with its newest record, unless the file already holds that
// record or a newer one.
func recoverJournal(dir, name string) error {
	latest := map[string][]byte{}
	var order []string
	j, err := journal.Open(name, journal.Config{
		Replay: func(record []byte) error {
			var id struct {
				MatchID string `json:"match_id"`
			}
			if err := json.Unmarshal(record, &id); err != nil || id.MatchID == "" {
				return errors.New("referee: transcript record without a match id")
			}
			if _, ok := latest[id.MatchID]; !ok {
				order = append(order, id.MatchID)
			}
			latest[id.MatchID] = bytes.Clone(record)
			return nil
		},
	})
	if err != nil {
		return err
	}
	if err := j.Close(); err != nil {
		return err
	}
	for _, id := range order {
		var rec, cur Transcript
		if err := json.Unmarshal(latest[id], &rec); err != nil {
			return err
		}
		path := matchFile(dir, id)
		if atomicfile.ReadJSON(path, &cur) == nil && !olderThan(&cur, &rec) {
			if err := atomicfile.Sync(path); err != nil {
				return err
			}
			continue
		}
		if err := atomicfile.WriteFile(path, document(latest[id]), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// olderThan reports whether transcript a was written before b.
func olderThan(a, b *Transcript) bool {
	ta, errA := time.Parse(time.RFC3339Nano, a.LastUpdated)
	tb, errB := time.Parse(time.RFC3339Nano, b.LastUpdated)
	if errA != nil || errB != nil {
		return a.LastUpdated < b.LastUpdated
	}
	return ta.Before(tb) || (ta.Equal(tb) && !a.Reported && b.Reported)
}

func (lt *leagueTranscripts) path(matchID string) string { return matchFile(lt.dir, matchID) }

// writeWith makes t durable and, when file is set (the match is settled),
// has its match's file written; the settled record is then made durable
// with the journal's next group commit rather than waited for. The file
// is created off the match's path, by the league's writer goroutine
// (creating a file costs a file system more than writing one); until it
// is, and until it is durable, the journal holds the record. The file
// holds the record as it is, with a newline (see document).
func (s *transcripts) writeWith(t *Transcript, file bool) error {
	record, err := wirejson.Marshal(t)
	if err != nil {
		return fmt.Errorf("referee: encode transcript: %w", err)
	}
	lt, err := s.league(t.LeagueID)
	if err != nil {
		return err
	}
	if lt == nil {
		return atomicfile.WriteFile(matchFile(s.dir(t.LeagueID), t.MatchID), document(record), 0o644)
	}
	lt.gate.RLock()
	lt.mu.Lock()
	// Marked before the record is appended, so that a compaction running
	// meanwhile keeps the record.
	p := &pending{record: record, settled: file}
	lt.dirty[t.MatchID] = p
	lt.sinceCompa++
	compact := lt.sinceCompa >= compactEvery && !lt.compacting
	if compact {
		lt.compacting = true
		lt.wg.Add(1)
	}
	lt.mu.Unlock()
	if file {
		// Nothing waits on the settled record (its result is already
		// durable, and acknowledged or abandoned): it shares the next
		// group commit instead of paying one.
		err = lt.j.AppendLazy(record)
	} else {
		err = lt.j.AppendRaw(context.Background(), record)
	}
	switch {
	case err == nil && file:
		select {
		case lt.kick <- struct{}{}:
		default: // the writer is awake already
		}
	case err != nil:
		lt.mu.Lock()
		if lt.dirty[t.MatchID] == p {
			delete(lt.dirty, t.MatchID)
		}
		lt.mu.Unlock()
		if errors.Is(err, journal.ErrClosed) { // the referee stopped meanwhile
			err = atomicfile.WriteFile(lt.path(t.MatchID), document(record), 0o644)
		}
	}
	lt.gate.RUnlock()
	if compact {
		go func() {
			defer lt.wg.Done()
			_ = lt.compact()
		}()
	}
	return err
}

// write is the league's writer goroutine: each time it wakes, until stop,
// it creates the files of the matches settled since (writeSettled). A file
// it fails to write stays the journal's to keep: the next compaction, or
// close, writes it again and reports the error.
func (lt *leagueTranscripts) write() {
	defer lt.writer.Done()
	for {
		select {
		case <-lt.kick:
			_ = lt.writeSettled()
		case <-lt.stop:
			return
		}
	}
}

// writeSettled writes the file of every settled match whose file does
// not hold its record yet.
func (lt *leagueTranscripts) writeSettled() error {
	lt.mu.Lock()
	var ids []string
	var ps []*pending
	for id, p := range lt.dirty {
		if p.settled && !p.written {
			ids, ps = append(ids, id), append(ps, p)
		}
	}
	lt.mu.Unlock()
	var errs []error
	for i, id := range ids {
		errs = append(errs, lt.writeFile(id, ps[i], true))
	}
	return errors.Join(errs...)
}

// writeSettled writes now the files of the league's settled matches that
// the writer has not written yet: at the end of the league, so that its
// files are all there.
func (s *transcripts) writeSettled(leagueID string) error {
	s.mu.Lock()
	lt := s.leagues[leagueID]
	s.mu.Unlock()
	if lt == nil {
		return nil
	}
	return lt.writeSettled()
}

// writeFile writes p's record to its match's file unless the file holds
// it already or a newer record of the match has come since (its own write
// or the next flush writes the file then, and the journal keeps it until
// that file is durable). With pendingOnly (the writer goroutine, whose
// record may be stale by the time it writes), a record a compaction has
// taken is left to that compaction too.
func (lt *leagueTranscripts) writeFile(matchID string, p *pending, pendingOnly bool) error {
	lt.files.Lock()
	defer lt.files.Unlock()
	lt.mu.Lock()
	newest := lt.dirty[matchID]
	skip := p.written || newest != nil && newest != p || pendingOnly && newest == nil
	lt.mu.Unlock()
	if skip {
		return nil
	}
	if err := atomicfile.Replace(lt.path(matchID), document(p.record), 0o644); err != nil {
		return err
	}
	lt.mu.Lock()
	p.written = true
	lt.mu.Unlock()
	return nil
}

// flush writes the files of taken still pending and makes every file of
// taken durable.
func (lt *leagueTranscripts) flush(taken map[string]*pending) error {
	paths := make([]string, 0, len(taken))
	for id, p := range taken {
		if err := lt.writeFile(id, p, false); err != nil {
			return err
		}
		paths = append(paths, lt.path(id))
	}
	return atomicfile.Sync(paths...)
}

// compact writes and flushes every file pending so far and drops the
// journal records they came from; records of writes still under way are
// kept.
func (lt *leagueTranscripts) compact() error {
	defer func() {
		lt.mu.Lock()
		lt.compacting = false
		lt.mu.Unlock()
	}()
	lt.gate.Lock()
	lt.mu.Lock()
	taken := lt.dirty
	lt.dirty = map[string]*pending{}
	lt.sinceCompa = 0
	lt.mu.Unlock()
	lt.gate.Unlock()

	if err := lt.flush(taken); err != nil {
		lt.restore(taken)
		return err
	}
	err := lt.j.Compact(func(emit func(any) error) error {
		lt.mu.Lock()
		defer lt.mu.Unlock()
		for _, p := range lt.dirty {
			if err := emit(json.RawMessage(p.record)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		lt.restore(taken)
	}
	return err
}

// restore puts back the records of a failed compaction, unless a newer
// record of the same match came meanwhile.
func (lt *leagueTranscripts) restore(taken map[string]*pending) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	for id, p := range taken {
		if _, ok := lt.dirty[id]; !ok {
			lt.dirty[id] = p
		}
	}
}

// newest returns the newest record of a match whose file is not yet
// durable, or nil.
func (lt *leagueTranscripts) newest(matchID string) []byte {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if p := lt.dirty[matchID]; p != nil {
		return p.record
	}
	return nil
}

// close makes every file written durable and removes the journals. Writes
// after close go straight to durable files.
func (s *transcripts) close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	leagues := s.leagues
	s.leagues = nil
	s.mu.Unlock()
	var errs []error
	for _, lt := range leagues {
		lt.wg.Wait()
		close(lt.stop)
		lt.writer.Wait()
		err := lt.j.Close()
		if err == nil {
			lt.mu.Lock()
			taken := lt.dirty
			lt.mu.Unlock()
			err = lt.flush(taken)
		}
		if err == nil {
			if err = os.Remove(lt.j.Path()); errors.Is(err, fs.ErrNotExist) {
				err = nil // the data root was removed
			}
		}
		// A journal kept (on an error) is recovered by the next referee
		// to open the league, once the lock is released.
		lt.lock.Release(err == nil)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// read returns a match's transcript, repairing its league's files first
// when a crash left them behind the journal.
func (s *transcripts) read(leagueID, matchID string) (*Transcript, error) {
	lt, err := s.league(leagueID)
	if err != nil {
		return nil, err
	}
	var t Transcript
	if lt != nil {
		if record := lt.newest(matchID); record != nil {
			if err := json.Unmarshal(record, &t); err != nil {
				return nil, err
			}
			return &t, nil
		}
	}
	if err := atomicfile.ReadJSON(matchFile(s.dir(leagueID), matchID), &t); err != nil {
		return nil, err
	}
	return &t, nil
}
