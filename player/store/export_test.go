package store

import (
	"os"

	"github.com/agentleague/league/internal/journal"
	"github.com/agentleague/league/player/internal/playerstore"
)

// OpenWithSync opens a Store whose journal makes its writes durable with
// sync, so that tests can hold a group commit.
func OpenWithSync(dataRoot string, sync func(*os.File) error) (*Store, error) {
	return playerstore.OpenWithSync(dataRoot, kind(), sync)
}

// JournalOf returns the path of the store's journal, what it has done and
// the records appended to it that are not durable yet.
func JournalOf(s *Store) (path string, stats journal.Stats, pending int) {
	return playerstore.JournalOf(s)
}

// SetCompactEvery sets the fewest records after which the store's journal
// is compacted.
func SetCompactEvery(s *Store, n int) { playerstore.SetCompactEvery(s, n) }

// Compact waits for the store's work in the background, then compacts its
// journal.
func Compact(s *Store) { playerstore.Compact(s) }

// OpenWithoutLocks opens a Store as it is where the system has no file
// locks: without a journal.
func OpenWithoutLocks(dataRoot string) *Store {
	return playerstore.OpenWithoutLocks(dataRoot, kind())
}
