package manager

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentleague/league/internal/agentkit"
	"github.com/agentleague/league/internal/atomicfile"
)

// A data root holds many leagues: each league's files are found by its
// id (see LeagueFiles), so one data root serves league after league. A
// manager started with the id of a league that completed there starts
// the next league of its series instead (leagueToRun): <id>-2, then
// <id>-3, and so on.

// LeagueFiles returns the files and directories under dataRoot that hold
// the league leagueID, whichever agents wrote them: its configuration,
// the manager's data, the referees' match files, the players' histories
// and its league log. Agents' own logs (logs/agents/) are not a league's:
// they follow an agent from league to league.
func LeagueFiles(dataRoot, leagueID string) []string {
	id := agentkit.SafeFileName(leagueID)
	return []string{
		filepath.Join(dataRoot, "config", "leagues", leagueID+".json"),
		filepath.Join(dataRoot, "data", "leagues", leagueID),
		filepath.Join(dataRoot, "data", "matches", id),
		filepath.Join(dataRoot, "data", "players", id),
		filepath.Join(dataRoot, "logs", "league", leagueID),
	}
}

// Usage is how much a league's files take on disk.
type Usage struct {
	// Files is the number of regular files.
	Files int
	// Bytes is their total size.
	Bytes int64
}

// String gives the usage as a person reads it: "12.3 MB in 456 files".
func (u Usage) String() string {
	return fmt.Sprintf("%s in %d files", formatBytes(u.Bytes), u.Files)
}

// formatBytes writes n in the largest unit that keeps it at least 1.
func formatBytes(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "kMGTPE"[exp])
}

// LeagueUsage returns how much the files of leagueID ([LeagueFiles]) take
// under dataRoot. Files that do not exist count nothing, and neither do
// what running agents keep beside the league's files: their journals (the
// .journal directories, whose records the league's files hold, or will
// hold once the agent stops) and the temporary files of writes under way.
// A league thus measures the same when it completes, while its agents
// still run, and after they have stopped.
func LeagueUsage(dataRoot, leagueID string) Usage {
	var u Usage
	for _, path := range LeagueFiles(dataRoot, leagueID) {
		_ = filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() && d.Name() == ".journal" {
				return filepath.SkipDir
			}
			if err != nil || !d.Type().IsRegular() || atomicfile.IsTemp(d.Name()) {
				return nil
			}
			if info, err := d.Info(); err == nil {
				u.Files++
				u.Bytes += info.Size()
			}
			return nil
		})
	}
	return u
}

// League is a league whose manager's files are under a data root.
type League struct {
	// ID is the league's id.
	ID string
	// Status is the league's status as its files last recorded it.
	Status LeagueStatus
	// Updated is when the manager last saved the league's state.
	Updated time.Time
}

// Leagues returns the leagues whose manager's state is under dataRoot,
// the one saved longest ago first.
func Leagues(dataRoot string) ([]League, error) {
	dir := filepath.Join(dataRoot, "data", "leagues")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []League
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name(), "state.json")
		info, err := os.Stat(path)
		if err != nil {
			continue // not a league's directory, or one not saved yet
		}
		status, err := readStatus(path)
		if err != nil {
			return nil, err
		}
		out = append(out, League{ID: e.Name(), Status: status, Updated: info.ModTime()})
	}
	slices.SortFunc(out, func(x, y League) int { return cmp.Or(x.Updated.Compare(y.Updated), strings.Compare(x.ID, y.ID)) })
	return out, nil
}

// readStatus reads the status of the league's state.json at path, without
// reading the schedule after it (tens of megabytes in a big league): the
// status is one of the first members.
func readStatus(path string) (LeagueStatus, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", fmt.Errorf("manager: %s is not a league's state", path)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", fmt.Errorf("manager: read %s: %w", path, err)
		}
		if t == "status" {
			var s LeagueStatus
			if err := dec.Decode(&s); err != nil {
				return "", fmt.Errorf("manager: read %s: %w", path, err)
			}
			return s, nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", fmt.Errorf("manager: read %s: %w", path, err)
		}
	}
	return "", nil
}

// leagueToRun returns the id of the league a manager configured with
// the league id base runs on dataRoot: the latest league of base's series
// (base, base-2, base-3…), or, when that one has completed and show is
// false, the next one of the series.
func leagueToRun(dataRoot, base string, show bool) (string, error) {
	latest, n := "", 0
	entries, err := os.ReadDir(filepath.Join(dataRoot, "data", "leagues"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	for _, e := range entries {
		k := seriesNumber(base, e.Name())
		if k <= n || !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(dataRoot, "data", "leagues", e.Name(), "state.json")); err == nil {
			latest, n = e.Name(), k
		}
	}
	if latest == "" {
		return base, nil
	}
	if show {
		return latest, nil
	}
	status, err := readStatus(filepath.Join(dataRoot, "data", "leagues", latest, "state.json"))
	if err != nil {
		return "", err
	}
	if status != StatusCompleted {
		return latest, nil
	}
	return base + "-" + strconv.Itoa(n+1), nil
}

// seriesNumber returns the number of id in base's series: 1 for base
// itself, k for base-k (k ≥ 2), 0 for an id of another series.
func seriesNumber(base, id string) int {
	if id == base {
		return 1
	}
	rest, ok := strings.CutPrefix(id, base+"-")
	if !ok {
		return 0
	}
	k, err := strconv.Atoi(rest)
	if err != nil || k < 2 || strconv.Itoa(k) != rest {
		return 0
	}
	return k
}

// PruneLeagues removes, under dataRoot, the files ([LeagueFiles]) of every
// league but the keep saved last, and never those of the league current
// (which counts as one of the keep). It returns the ids of the leagues it
// removed. keep below 1 removes nothing.
func PruneLeagues(dataRoot string, keep int, current string) ([]string, error) {
	if keep < 1 {
		return nil, nil
	}
	leagues, err := Leagues(dataRoot)
	if err != nil {
		return nil, err
	}
	kept := 1 // the current league
	var removed []string
	var errs []error
	for i := len(leagues) - 1; i >= 0; i-- {
		id := leagues[i].ID
		if id == current {
			continue
		}
		if kept < keep {
			kept++
			continue
		}
		for _, path := range LeagueFiles(dataRoot, id) {
			errs = append(errs, os.RemoveAll(path))
		}
		removed = append(removed, id)
	}
	if err := errors.Join(errs...); err != nil {
		return removed, fmt.Errorf("manager: prune leagues: %w", err)
	}
	return removed, nil
}
