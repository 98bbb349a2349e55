package playerstore

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// League is a player's records in one league, as its history file under a
// data root keeps them.
type League[R any] struct {
	// LeagueID is the league's id ("" for a manager that named none).
	LeagueID string
	// Manager is the endpoint of the league's manager.
	Manager string
	// PlayerID is the id the player had in that league.
	PlayerID string
	// Updated is when the file was last written.
	Updated time.Time
	// Records are the player's matches in that league.
	Records []R
}

// Earlier returns the records a player called name kept under dataRoot
// in leagues other than leagueID, oldest first: found by its display
// name, not by a player id, which each league gives anew. It reads every
// history file under the data root.
func Earlier[R any](dataRoot, name, leagueID string, kind Kind[R]) ([]League[R], error) {
	players := filepath.Join(dataRoot, "data", "players")
	var out []League[R]
	for _, dir := range historyDirs(players) {
		path := filepath.Join(players, dir, "history.json")
		info, err := os.Stat(path)
		if err != nil {
			continue // not a history directory, or gone meanwhile
		}
		f, err := readHistory[R](path)
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
		byLeague := map[string][]R{}
		for _, m := range f.Matches {
			league, _ := kind.Key(&m)
			byLeague[league] = append(byLeague[league], m)
		}
		if len(f.Matches) == 0 {
			byLeague[f.LeagueID] = nil
		}
		for id, records := range byLeague {
			if id == leagueID {
				continue
			}
			out = append(out, League[R]{LeagueID: id, Manager: manager, PlayerID: f.PlayerID,
				Updated: info.ModTime(), Records: records})
		}
	}
	slices.SortStableFunc(out, func(x, y League[R]) int {
		return cmp.Or(x.Updated.Compare(y.Updated), cmp.Compare(x.LeagueID, y.LeagueID))
	})
	return out, nil
}
