package manager_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/player"
)

// TestLeagueUsageIsOneFigure: what a league's files take is the same when
// the league completes, while its referee still holds its journal of
// transcripts, and once every agent has stopped and the journal is gone.
func TestLeagueUsageIsOneFigure(t *testing.T) {
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	cfg.MinPlayers = 4
	m := startManager(t, cfg)
	_, stopReferee := startReferee(t, m.MCP, "Referee Alpha", refereeOptions{dataRoot: dir})
	var stops []func()
	for i := range 4 {
		a, err := player.New(player.Config{
			Name: fmt.Sprintf("Agent %d", i+1), League: m.MCP, Listener: listen(t), DataRoot: dir, Strategy: always(leaguesdk.Even),
			SafetyMargin: 100 * time.Millisecond, RegisterRetry: 50 * time.Millisecond, ShutdownGrace: time.Second,
		})
		if err != nil {
			t.Fatal(err)
		}
		stops = append(stops, runAgent(t, a.Run))
	}
	m.waitDone(t, 30*time.Second)
	atCompletion := manager.LeagueUsage(dir, cfg.LeagueID)
	stopReferee()
	for _, stop := range stops {
		stop()
	}
	m.Stop()
	atRest := manager.LeagueUsage(dir, cfg.LeagueID)
	if atCompletion != atRest {
		t.Errorf("the league's files take %s when it completes and %s once its agents have stopped", atCompletion, atRest)
	}

	// What a running agent keeps beside them does not count either way: a
	// journal, and the temporary file of a write under way.
	for _, path := range []string{
		filepath.Join(dir, "data", "matches", cfg.LeagueID, ".journal", "instance.jsonl"),
		filepath.Join(dir, "data", "leagues", cfg.LeagueID, ".standings.json.tmp-12345"),
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(`{"record":1}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if u := manager.LeagueUsage(dir, cfg.LeagueID); u != atRest {
		t.Errorf("with a journal and a write under way the league's files take %s, want %s", u, atRest)
	}
}
