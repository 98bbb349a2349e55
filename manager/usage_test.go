package manager_test

import (
	"fmt"
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
}
