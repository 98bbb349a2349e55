package leaguesdk_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// A table encoded once and addressed to two players: only the envelopes
// are encoded per recipient. Each addressed message is passed to
// Client.Call as its params.
func ExampleEncodeShared() {
	table, err := leaguesdk.EncodeShared(&leaguesdk.LeagueStandingsUpdate{LeagueID: "league_2025_even_odd", RoundID: 1,
		Standings: []leaguesdk.StandingRow{{Rank: 1, PlayerID: "P01", Played: 1, Wins: 1, Points: 3}}})
	if err != nil {
		panic(err)
	}
	now := time.Date(2025, 1, 15, 10, 30, 0, 0, time.UTC)
	for _, token := range []string{"tok_p01", "tok_p02"} {
		env := leaguesdk.NewEnvelope(table.Type(), leaguesdk.LeagueManagerSender, token, "conv-"+token, now)
		b, _ := json.Marshal(table.To(env))
		fmt.Println(string(b))
	}
	// Output:
	// {"protocol":"league.v2","message_type":"LEAGUE_STANDINGS_UPDATE","sender":"league_manager","timestamp":"2025-01-15T10:30:00Z","conversation_id":"conv-tok_p01","auth_token":"tok_p01","league_id":"league_2025_even_odd","round_id":1,"standings":[{"rank":1,"player_id":"P01","played":1,"wins":1,"draws":0,"losses":0,"points":3}]}
	// {"protocol":"league.v2","message_type":"LEAGUE_STANDINGS_UPDATE","sender":"league_manager","timestamp":"2025-01-15T10:30:00Z","conversation_id":"conv-tok_p02","auth_token":"tok_p02","league_id":"league_2025_even_odd","round_id":1,"standings":[{"rank":1,"player_id":"P01","played":1,"wins":1,"draws":0,"losses":0,"points":3}]}
}
