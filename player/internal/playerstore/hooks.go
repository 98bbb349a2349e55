package playerstore

import (
	"os"

	"github.com/agentleague/league/internal/journal"
)

// The functions below reach into a Store for the tests of the packages
// that use it (the package is internal: they are no one's API).

// OpenWithSync opens a Store whose journal makes its writes durable with
// sync, so that a test can hold a group commit.
func OpenWithSync[R any](dataRoot string, kind Kind[R], sync func(*os.File) error) (*Store[R], error) {
	return openStore(dataRoot, kind, journal.Config{Sync: sync})
}

// OpenWithoutLocks opens a Store as it is where the system has no file
// locks: without a journal.
func OpenWithoutLocks[R any](dataRoot string, kind Kind[R]) *Store[R] {
	return &Store[R]{kind: kind, root: dataRoot, compactEvery: compactEvery, players: map[*History[R]]struct{}{},
		regs: savedRegistrations{root: dataRoot}}
}

// JournalOf returns the path of the store's journal, what it has done and
// the records appended to it that are not durable yet.
func JournalOf[R any](s *Store[R]) (path string, stats journal.Stats, pending int) {
	return s.j.Path(), s.j.Stats(), s.j.Pending()
}

// SetCompactEvery sets the fewest records after which the store's journal
// is compacted.
func SetCompactEvery[R any](s *Store[R], n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compactEvery = n
}

// Compact waits for the store's work in the background, then compacts its
// journal.
func Compact[R any](s *Store[R]) {
	s.wg.Wait()
	s.wg.Add(1)
	s.compact()
}
