package player

import (
	"os"

	"github.com/agentleague/league/internal/journal"
)

// OpenStoreWithSync opens a Store whose journal makes its writes durable
// with sync, so that tests can hold a group commit.
func OpenStoreWithSync(dataRoot string, sync func(*os.File) error) (*Store, error) {
	return openStore(dataRoot, journal.Config{Sync: sync})
}

// StoreJournal returns the path of the store's journal, what it has done
// and the records appended to it that are not durable yet.
func StoreJournal(s *Store) (path string, stats journal.Stats, pending int) {
	return s.j.Path(), s.j.Stats(), s.j.Pending()
}

// SetStoreCompactEvery sets the fewest records after which the store's
// journal is compacted.
func SetStoreCompactEvery(s *Store, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compactEvery = n
}

// CompactStore waits for the store's work in the background, then
// compacts its journal.
func CompactStore(s *Store) {
	s.wg.Wait()
	s.wg.Add(1)
	s.compact()
}

// OpenStoreWithoutLocks opens a Store as it is where the system has no
// file locks: without a journal.
func OpenStoreWithoutLocks(dataRoot string) *Store {
	return &Store{root: dataRoot, compactEvery: compactEvery, players: map[*historyStore]struct{}{}}
}
