package referee

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/agentleague/league/internal/atomicfile"
	"github.com/agentleague/league/leaguesdk"
)

// SchemaVersion is the schema_version of every file the referee writes.
const SchemaVersion = "1.0.0"

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
