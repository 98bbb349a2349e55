package store

import (
	"time"

	"github.com/agentleague/league/player"
	"github.com/agentleague/league/player/internal/playerstore"
)

// LeagueHistory is a player's history in one league, as its history file
// under a data root keeps it.
type LeagueHistory struct {
	// LeagueID is the league's id ("" for a manager that named none).
	LeagueID string
	// Manager is the endpoint of the league's manager.
	Manager string
	// PlayerID is the id the player had in that league.
	PlayerID string
	// Updated is when the file was last written.
	Updated time.Time
	// History is the player's matches in that league.
	History player.History
}

// EarlierLeagues returns the histories a player called name kept under
// dataRoot in leagues other than leagueID, the league it plays now, oldest
// first. They are its own: found by its display name, not by a player id,
// which each league gives anew. An Agent's History and
// [player.ParityCall.History] hold only the league it plays now; a strategy
// that wants to learn from its earlier leagues reads them with this (it
// reads every history file under the data root, so once, not at every
// call):
//
//	earlier, err := store.EarlierLeagues(dataRoot, "Agent Alpha", call.LeagueID)
func EarlierLeagues(dataRoot, name, leagueID string) ([]LeagueHistory, error) {
	leagues, err := playerstore.Earlier(dataRoot, name, leagueID, kind())
	if err != nil {
		return nil, err
	}
	out := make([]LeagueHistory, 0, len(leagues))
	for _, l := range leagues {
		out = append(out, LeagueHistory{LeagueID: l.LeagueID, Manager: l.Manager, PlayerID: l.PlayerID,
			Updated: l.Updated, History: player.NewHistory(l.Records...)})
	}
	return out, nil
}
