package manager_test

import (
	"testing"
	"time"

	"github.com/agentleague/league/manager"
)

// Each round's ROUND_ANNOUNCEMENT and LEAGUE_STANDINGS_UPDATE are encoded
// once, whatever the number of players they go to, and so is the final
// LEAGUE_COMPLETED: 2 encodings a round and 1 at the end, not as many per
// player.
func TestBroadcastsEncodedOncePerRound(t *testing.T) {
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	cfg.MinPlayers = 6
	m := startManager(t, cfg)
	startReferee(t, m.MCP, "Referee Alpha", refereeOptions{capacity: 3})
	startPlayers(t, m.MCP, 6, nil)
	m.waitDone(t, 30*time.Second)
	checkLeague(t, m, dir, cfg.LeagueID, 6)

	rounds := m.Snapshot().TotalRounds
	if rounds != 5 {
		t.Fatalf("%d rounds, want 5", rounds)
	}
	if got, want := manager.SharedEncodes(m.Manager), int64(2*rounds+1); got != want {
		t.Fatalf("%d broadcast encodings for %d rounds of 6 players, want %d", got, rounds, want)
	}
}
