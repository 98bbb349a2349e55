// Package store is where players keep their histories on disk, for
// programs that run many players in one process and for strategies that
// read a player's earlier leagues.
//
// A player keeps its history in
// <DataRoot>/data/players/<league_id>/<player_id>/history.json, with its
// registration and token (mode 0600), so that a player started again
// registers as itself. Each result is first a line of a Store's journal,
// <DataRoot>/data/players/.journal/<instance>.jsonl, on disk before its
// GAME_OVER is acknowledged; history.json, the whole history, is current
// at rest (once LEAGUE_COMPLETED is acknowledged, and when the player
// stops), and rewritten now and then in between (when the results since
// the last rewrite are as many as the file holds, and at least 32). The
// file and the journal are read back when the player registers again,
// after a crash too.
//
// A player given no Store ([player.Config.Store]) opens one of its own on
// its data root: nothing here is needed to play. Players of one process
// that share a Store share its fsyncs: the results of players whose
// matches end together are made durable together.
//
//	s, err := store.Open(dataRoot)
//	...
//	defer s.Close() // after the players have stopped
//	a, err := player.New(player.Config{Name: "Agent Alpha", League: league, Store: s})
package store

import (
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/player/internal/playerstore"
)

// A Store keeps the histories of the players that share it durable with
// one journal: every result is a line of
// <DataRoot>/data/players/.journal/<instance>.jsonl, tagged with its
// player's id, and a GAME_OVER is acknowledged once its line is on disk.
// The results of players that finish at the same time share one fsync
// (group commit). Each player's history.json stays the file to read, and
// the journal is compacted so that it keeps only the results no
// history.json holds yet.
//
// Stores of several processes may share a data root: each holds a lock on
// its own journal. A journal whose lock is free was left by a process that
// crashed; the next store to open on the data root (or to load a player's
// history) merges its results into the players' history.json files and
// removes it. Where the system has no file locks, a Store keeps no journal
// and writes each player's history.json durably at every result. The
// players of a Store also share the reading of the registrations saved in
// the data root's history files.
//
// Hand a Store to players through [player.Config.Store], and call its
// Close(), which writes every player's history.json and removes the
// journal, after they have stopped. A Store is safe for concurrent use.
type Store = player.Store

// Open opens a Store on dataRoot (the data root of the league's data
// layer, as in [player.Config.DataRoot]), first recovering the journals of
// stores that crashed there.
func Open(dataRoot string) (*Store, error) {
	return playerstore.Open(dataRoot, kind())
}

// kind is what the store knows of a [player.MatchRecord]: its league and
// match, its attempt and the stats history.json heads its records with.
func kind() playerstore.Kind[player.MatchRecord] {
	return playerstore.Kind[player.MatchRecord]{
		Key:     func(m *player.MatchRecord) (string, string) { return m.LeagueID, m.MatchID },
		Attempt: func(m *player.MatchRecord) int { return m.Attempt },
		Stats:   func(ms []player.MatchRecord) any { return player.NewHistory(ms...).Stats() },
	}
}
