package manager_test

import (
	"fmt"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
)

func ExampleComputeStandings() {
	players := []manager.Entrant{{PlayerID: "P01", DisplayName: "Alpha"}, {PlayerID: "P02", DisplayName: "Beta"}, {PlayerID: "P03", DisplayName: "Gamma"}}
	results := []manager.MatchRecord{
		{MatchID: "R1M1", RoundID: 1, PlayerA: "P01", PlayerB: "P02",
			Result: leaguesdk.MatchResult{Status: leaguesdk.ResultWin, Winner: "P02", Score: map[string]int{"P01": 0, "P02": 3}}},
		{MatchID: "R2M1", RoundID: 2, PlayerA: "P03", PlayerB: "P01",
			Result: leaguesdk.MatchResult{Status: leaguesdk.ResultDraw, Score: map[string]int{"P01": 1, "P03": 1}}},
		{MatchID: "R3M1", RoundID: 3, PlayerA: "P02", PlayerB: "P03", // P02 did not answer in time
			Result: leaguesdk.MatchResult{Status: leaguesdk.ResultTechnicalLoss, Winner: "P03", Score: map[string]int{"P02": 0, "P03": 3}}},
	}
	for _, r := range manager.ComputeStandings(players, results, nil) {
		fmt.Printf("%d. %s %-5s played %d  W%d D%d L%d  %d points\n", r.Rank, r.PlayerID, r.DisplayName, r.Played, r.Wins, r.Draws, r.Losses, r.Points)
	}
	// Output:
	// 1. P03 Gamma played 2  W1 D1 L0  4 points
	// 2. P02 Beta  played 2  W1 D0 L1  3 points
	// 3. P01 Alpha played 2  W0 D1 L1  1 points
}
