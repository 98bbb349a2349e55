package player

import (
	"os"

	"github.com/agentleague/league/internal/journal"
	"github.com/agentleague/league/player/internal/playerstore"
)

// OpenStoreWithSync opens a Store whose journal makes its writes durable
// with sync, so that tests can hold a group commit.
func OpenStoreWithSync(dataRoot string, sync func(*os.File) error) (*playerstore.Store[MatchRecord], error) {
	return playerstore.OpenWithSync(dataRoot, recordKind(), sync)
}

// StoreJournal returns the path of the store's journal, what it has done
// and the records appended to it that are not durable yet.
func StoreJournal(s *playerstore.Store[MatchRecord]) (path string, stats journal.Stats, pending int) {
	return playerstore.JournalOf(s)
}

// SetStoreCompactEvery sets the fewest records after which the store's
// journal is compacted.
func SetStoreCompactEvery(s *playerstore.Store[MatchRecord], n int) {
	playerstore.SetCompactEvery(s, n)
}

// CompactStore waits for the store's work in the background, then
// compacts its journal.
func CompactStore(s *playerstore.Store[MatchRecord]) { playerstore.Compact(s) }

// OpenStoreWithoutLocks opens a Store as it is where the system has no
// file locks: without a journal.
func OpenStoreWithoutLocks(dataRoot string) *playerstore.Store[MatchRecord] {
	return playerstore.OpenWithoutLocks(dataRoot, recordKind())
}
