package manager_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentleague/league/internal/atomicfile"
	"github.com/agentleague/league/referee"
)

// TestKillManagerDuringABurstOfReports runs examples/manager as a process
// in a league of 16 players whose four referees play a round's eight
// matches at once, so their reports reach the manager together, and kills
// the manager with SIGKILL while they arrive. After the restart the league
// completes with every match recorded exactly once, and every result the
// killed manager acknowledged (a referee's transcript says "reported") is
// the one recorded: acknowledged means durable.
func TestKillManagerDuringABurstOfReports(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a manager process")
	}
	t.Parallel()
	c := startCrashLeagueOf(t, 16, "league_burst", "2s")
	var roots []string
	for i := range 4 {
		root := t.TempDir()
		roots = append(roots, root)
		startReferee(t, c.p.endpoint, fmt.Sprintf("Referee %d", i+1), refereeOptions{capacity: 4, dataRoot: root})
	}
	startPlayers(t, c.p.endpoint, 16, nil)

	for _, killAt := range []int{13, 45} { // inside rounds 2 and 6
		waitFor(t, 60*time.Second, fmt.Sprintf("%d results", killAt), func() bool {
			s, ok := c.p.state(t)
			return ok && finished(s) >= killAt
		})
		c.restart()
	}
	_, records := c.completed()

	recorded := map[string]string{}
	for _, r := range records {
		recorded[r.MatchID] = fmt.Sprint(r.Result.Status, r.Result.Winner)
	}
	acknowledged := map[string][]string{} // match → results acknowledged to a referee
	for _, root := range roots {
		names, err := filepath.Glob(filepath.Join(root, "data", "matches", c.id, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			var tr referee.Transcript
			if err := atomicfile.ReadJSON(name, &tr); err != nil {
				t.Fatal(err)
			}
			if tr.Reported && tr.Result != nil {
				acknowledged[tr.MatchID] = append(acknowledged[tr.MatchID], fmt.Sprint(tr.Result.Status, tr.Result.Winner))
			}
		}
	}
	if len(acknowledged) != len(records) {
		t.Errorf("%d matches acknowledged to a referee, %d recorded", len(acknowledged), len(records))
	}
	for match, results := range acknowledged {
		got, ok := recorded[match]
		if !ok {
			t.Errorf("%s: acknowledged (%v) but not recorded", match, results)
			continue
		}
		// A match played twice (its referee was thought lost) may have
		// been acknowledged twice, the second time as a duplicate; the
		// result recorded is one of those acknowledged.
		if !slices.Contains(results, got) {
			t.Errorf("%s: %s recorded, %v acknowledged", match, got, results)
		}
	}
}
