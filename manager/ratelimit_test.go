package manager_test

import (
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/agentleague/league/leaguesdk"
)

// TestFloodingAgentIsRateLimitedWhileOthersAreServed floods the manager
// from one registered player and from an anonymous caller on the same
// address: both are answered HTTP 429 with Retry-After and E010, while
// another player's queries, interleaved with the flood, are all served.
func TestFloodingAgentIsRateLimitedWhileOthersAreServed(t *testing.T) {
	cfg := fastConfig(t, t.TempDir())
	cfg.RateLimit = 5 // burst 10
	m := startManager(t, cfg)
	flooder := registerPlayer(t, m.MCP, "Flooder", "http://127.0.0.1:1/mcp", nil)
	quiet := registerPlayer(t, m.MCP, "Quiet", "http://127.0.0.1:2/mcp", nil)

	query := func(sender, token string) *rpcReply {
		return call(t, m.MCP, leaguesdk.MethodLeagueQuery, &leaguesdk.LeagueQuery{
			Envelope: env(leaguesdk.MsgLeagueQuery, sender, token), QueryType: leaguesdk.QueryStandings})
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	limited, quietServed := 0, 0
	var firstLimited *rpcReply
	wg.Go(func() {
		for range 60 {
			r := query(leaguesdk.PlayerSender(flooder.PlayerID), flooder.AuthToken)
			mu.Lock()
			if r.HTTPStatus == http.StatusTooManyRequests {
				limited++
				if firstLimited == nil {
					firstLimited = r
				}
			}
			mu.Unlock()
		}
	})
	wg.Go(func() {
		for range 8 { // within the quiet player's own burst
			r := query(leaguesdk.PlayerSender(quiet.PlayerID), quiet.AuthToken)
			if r.Error != nil {
				t.Errorf("the quiet player was refused during the flood: %d %s", r.HTTPStatus, r.Raw)
				continue
			}
			mu.Lock()
			quietServed++
			mu.Unlock()
		}
	})
	wg.Wait()
	if limited < 40 {
		t.Fatalf("only %d of the flooder's 60 queries were rate limited, want at least 40 (burst 10 at 5/s)", limited)
	}
	if quietServed != 8 {
		t.Fatalf("the quiet player got %d of 8 answers", quietServed)
	}
	if firstLimited.code() != leaguesdk.CodeRateLimited {
		t.Fatalf("a limited query got code %q, want E010: %s", firstLimited.code(), firstLimited.Raw)
	}
	if s, err := strconv.Atoi(firstLimited.Header.Get("Retry-After")); err != nil || s < 1 {
		t.Fatalf("Retry-After = %q, want whole seconds", firstLimited.Header.Get("Retry-After"))
	}

	// Callers that prove no agent share a bucket per address; the
	// registered player on the same address keeps its own.
	anonLimited := 0
	for range 30 {
		if r := query("player:nobody", ""); r.HTTPStatus == http.StatusTooManyRequests {
			anonLimited++
		}
	}
	if anonLimited == 0 {
		t.Fatal("an anonymous flood was never rate limited")
	}
	if r := query(leaguesdk.PlayerSender(quiet.PlayerID), quiet.AuthToken); r.Error != nil {
		t.Fatalf("the quiet player was refused after the anonymous flood: %s", r.Raw)
	}
}

func TestNegativeRateLimitDisablesIt(t *testing.T) {
	cfg := fastConfig(t, t.TempDir())
	cfg.RateLimit = -1
	m := startManager(t, cfg)
	for i := range 50 {
		r := call(t, m.MCP, leaguesdk.MethodLeagueQuery, &leaguesdk.LeagueQuery{
			Envelope: env(leaguesdk.MsgLeagueQuery, "player:nobody", ""), QueryType: leaguesdk.QueryStandings})
		if r.HTTPStatus == http.StatusTooManyRequests {
			t.Fatalf("query %d rate limited with the limit off", i+1)
		}
	}
}
