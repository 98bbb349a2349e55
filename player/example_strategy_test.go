package player_test

import (
	"context"
	"fmt"

	"github.com/agentleague/league/player"
)

// rolewise is a strategy written with package player alone: it reads every
// field of the ParityCall (the role and the record included) and the
// league table, and names no other package of the module.
type rolewise struct{ leader string }

func (s *rolewise) ChooseParity(_ context.Context, c player.ParityCall) (player.Parity, error) {
	var role player.Role = c.Role
	var record player.PlayerRecord = c.Standings
	switch {
	case c.OpponentID == s.leader:
		return c.History.Against(c.OpponentID).OpponentMostly(), nil // "" falls back
	case role == player.PlayerA && record.Wins >= record.Losses:
		return player.Even, nil
	}
	return player.Odd, nil
}

// ObserveStandings keeps the leader of the table.
func (s *rolewise) ObserveStandings(_ context.Context, _ int, table []player.StandingRow) {
	for _, row := range table {
		if row.Rank == 1 {
			s.leader = row.PlayerID
		}
	}
}

// A strategy needs package player only: ParityCall's Role and Standings,
// and the rows a StandingsObserver is given, are player's types.
func Example_strategyWithPlayerOnly() {
	s := &rolewise{}
	s.ObserveStandings(context.Background(), 1, []player.StandingRow{{Rank: 1, PlayerID: "P02"}, {Rank: 2, PlayerID: "P01"}})
	call := player.ParityCall{PlayerID: "P01", OpponentID: "P03", Role: player.PlayerA,
		Standings: player.PlayerRecord{Wins: 2, Losses: 1}}
	p, _ := s.ChooseParity(context.Background(), call)
	fmt.Println(s.leader, p)
	call.Role = player.PlayerB
	p, _ = s.ChooseParity(context.Background(), call)
	fmt.Println(p)
	// Output:
	// P02 even
	// odd
}
