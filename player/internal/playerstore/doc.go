// Package playerstore keeps players' histories on disk: each player's
// data/players/<league_id>/<player_id>/history.json, the journal a
// [Store] shares between the players of a process (group commit,
// compaction, the merge of a crashed store's journal), the registrations
// saved in the history files, the layouts of earlier versions and the
// histories of a player's earlier leagues. It knows nothing of the player
// agent: the records it keeps are of any JSON type, described by a
// [Kind]. Package player uses it, and package player/store opens shared
// stores for programs that run many players.
package playerstore
