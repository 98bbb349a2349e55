package player

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"time"
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
	History History
}

// EarlierLeagues returns the histories a player called name kept under
// dataRoot in leagues other than leagueID, the league it plays now, oldest
// first. They are its own: found by its display name, not by a player id,
// which each league gives anew. An [Agent]'s [History] and [ParityCall.History]
// hold only the league it plays now; a strategy that wants to learn from
// its earlier leagues reads them with this (it reads every history file
// under the data root, so once, not at every call):
//
//	earlier, err := player.EarlierLeagues(dataRoot, "Agent Alpha", call.LeagueID)
func EarlierLeagues(dataRoot, name, leagueID string) ([]LeagueHistory, error) {
	players := filepath.Join(dataRoot, "data", "players")
	var out []LeagueHistory
	for _, dir := range historyDirs(players) {
		path := filepath.Join(players, dir, "history.json")
		info, err := os.Stat(path)
		if err != nil {
			continue // not a history directory, or gone meanwhile
		}
		f, err := readHistory(path)
		if err != nil {
			return nil, err
		}
		if f.DisplayName != name {
			continue
		}
		manager := f.Manager
		if manager == "" && f.Registration != nil {
			manager = f.Registration.League
		}
		// A file of an earlier version may hold several leagues: one
		// history for each.
		byLeague := map[string][]MatchRecord{}
		for _, m := range f.Matches {
			byLeague[m.LeagueID] = append(byLeague[m.LeagueID], m)
		}
		if len(f.Matches) == 0 {
			byLeague[f.LeagueID] = nil
		}
		for id, records := range byLeague {
			if id == leagueID {
				continue
			}
			out = append(out, LeagueHistory{LeagueID: id, Manager: manager, PlayerID: f.PlayerID,
				Updated: info.ModTime(), History: History{matches: records}})
		}
	}
	slices.SortStableFunc(out, func(x, y LeagueHistory) int {
		return cmp.Or(x.Updated.Compare(y.Updated), cmp.Compare(x.LeagueID, y.LeagueID))
	})
	return out, nil
}
