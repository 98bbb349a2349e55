package referee

import (
	"os"
	"path/filepath"

	"github.com/agentleague/league/internal/agentkit"
	"github.com/agentleague/league/internal/atomicfile"
)

// registrationFile is what a referee keeps of its registration, in
// data/referees/<referee_id>/registration.json under its data root (mode
// 0600: it holds the token). A referee started again on the same data root
// with the same name, manager and contact endpoint — a pod of a
// StatefulSet rescheduled with its volume — registers with that token,
// and the manager gives it back its id instead of refusing a second
// registration from a known endpoint.
type registrationFile struct {
	SchemaVersion   string `json:"schema_version"`
	LastUpdated     string `json:"last_updated"`
	DisplayName     string `json:"display_name"`
	League          string `json:"league"`
	ContactEndpoint string `json:"contact_endpoint"`
	RefereeID       string `json:"referee_id"`
	LeagueID        string `json:"league_id"`
	AuthToken       string `json:"auth_token"`
}

// registrationPath returns the path of the registration file of refereeID.
func registrationPath(dataRoot, refereeID string) string {
	return filepath.Join(dataRoot, "data", "referees", agentkit.SafeFileName(refereeID), "registration.json")
}

// savedToken returns the token of the latest registration saved under
// dataRoot for the referee called name with the manager at league from
// endpoint, or "" when there is none.
func savedToken(dataRoot, name, league, endpoint string) string {
	paths, _ := filepath.Glob(filepath.Join(dataRoot, "data", "referees", "*", "registration.json"))
	var latest registrationFile
	for _, p := range paths {
		var f registrationFile
		if atomicfile.ReadJSON(p, &f) != nil || f.DisplayName != name || f.League != league || f.ContactEndpoint != endpoint {
			continue
		}
		// RFC 3339 UTC timestamps of one format order as strings.
		if latest.AuthToken == "" || f.LastUpdated > latest.LastUpdated {
			latest = f
		}
	}
	return latest.AuthToken
}

// saveRegistration keeps the registration f under dataRoot.
func saveRegistration(dataRoot string, f registrationFile) error {
	f.SchemaVersion = SchemaVersion
	path := registrationPath(dataRoot, f.RefereeID)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteJSONPerm(path, f, 0o600)
}
