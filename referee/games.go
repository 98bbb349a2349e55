package referee

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/agentleague/league/internal/atomicfile"
	"github.com/agentleague/league/leaguesdk"
)

// SchemaVersion is the schema_version of every file the referee writes.
const SchemaVersion = "1.0.0"

// Games is a registry of game types: game type ("even_odd") → its rules.
// It marshals to the games-registry shape {"game_registry": {<type>: info}}.
type Games map[string]Rules

// DefaultGames returns the registry a referee uses when [Config.Games] is
// empty: the even/odd game only.
func DefaultGames() Games {
	return Games{leaguesdk.GameEvenOdd: EvenOdd{}}
}

// Types returns the game types of g, sorted.
func (g Games) Types() []string {
	out := make([]string, 0, len(g))
	for t := range g {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// Infos returns the description of every game type of g.
func (g Games) Infos() map[string]GameInfo {
	out := make(map[string]GameInfo, len(g))
	for t, r := range g {
		out[t] = r.Info()
	}
	return out
}

// MarshalJSON implements [json.Marshaler].
func (g Games) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		GameRegistry map[string]GameInfo `json:"game_registry"`
	}{g.Infos()})
}

// RegistryFile is the content of config/games/games_registry.json.
type RegistryFile struct {
	SchemaVersion string              `json:"schema_version"`
	LastUpdated   string              `json:"last_updated"`
	GameRegistry  map[string]GameInfo `json:"game_registry"`
}

// RegistryPath returns the path of the games registry under a data root.
func RegistryPath(dataRoot string) string {
	return filepath.Join(dataRoot, "config", "games", "games_registry.json")
}

// writeRegistry writes the games registry under dataRoot unless a file is
// there already (the manager or an operator may own it). It reports whether
// it wrote the file.
func writeRegistry(dataRoot string, g Games, now time.Time) (bool, error) {
	path := RegistryPath(dataRoot)
	if _, err := os.Stat(path); err == nil {
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	return true, atomicfile.WriteJSON(path, RegistryFile{SchemaVersion: SchemaVersion,
		LastUpdated: leaguesdk.FormatTime(now), GameRegistry: g.Infos()})
}
