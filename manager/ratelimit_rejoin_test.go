package manager_test

import (
	"net/http"
	"testing"

	"github.com/agentleague/league/leaguesdk"
)

// TestReturningAgentIsNotHeldUpByAStrangersFlood: an agent started again
// registers with its saved token under the sender it had before
// registration; strangers flooding the manager from the same address
// must not get it refused with 429 (its token proves who it is).
func TestReturningAgentIsNotHeldUpByAStrangersFlood(t *testing.T) {
	cfg := fastConfig(t, t.TempDir())
	cfg.RateLimit = 5 // burst 10
	m := startManager(t, cfg)
	const endpoint = "http://127.0.0.1:1/mcp"
	first := registerPlayer(t, m.MCP, "Returning", endpoint, nil)
	if first.AuthToken == "" {
		t.Fatalf("registration not accepted: %+v", first)
	}
	limited := false
	for range 40 { // strangers on the same address, without a token
		r := call(t, m.MCP, leaguesdk.MethodLeagueQuery, &leaguesdk.LeagueQuery{
			Envelope: env(leaguesdk.MsgLeagueQuery, "player:stranger", ""), QueryType: leaguesdk.QueryStandings})
		limited = limited || r.HTTPStatus == http.StatusTooManyRequests
	}
	if !limited {
		t.Fatal("the strangers' flood was never rate limited")
	}
	again := call(t, m.MCP, leaguesdk.MethodRegisterPlayer, func() *leaguesdk.LeagueRegisterRequest {
		req := playerRegistration("Returning", endpoint)
		req.AuthToken = first.AuthToken
		return req
	}())
	if again.HTTPStatus == http.StatusTooManyRequests {
		t.Fatalf("the returning player's registration was refused with 429 during the strangers' flood: %s", again.Raw)
	}
	var resp leaguesdk.LeagueRegisterResponse
	again.decode(t, &resp)
	if resp.PlayerID != first.PlayerID {
		t.Fatalf("registered again as %q, want %q", resp.PlayerID, first.PlayerID)
	}
}
