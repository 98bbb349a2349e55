package strategies_test

import (
	"bytes"
	"context"
	"fmt"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/player/strategies"
)

// ExampleByName picks strategies by the names a command line or a
// configuration file gives, and asks each for a choice.
func ExampleByName() {
	call := player.ParityCall{PlayerID: "P01", MatchID: "R1M1", OpponentID: "P02", GameType: leaguesdk.GameEvenOdd}
	for _, name := range []string{"always_even", "odd"} {
		s, err := strategies.ByName(name, nil)
		if err != nil {
			fmt.Println(err)
			continue
		}
		choice, err := s.ChooseParity(context.Background(), call)
		fmt.Println(name, "->", choice, err)
	}
	if _, err := strategies.ByName("coin_flip", nil); err != nil {
		fmt.Println(err)
	}
	// Output:
	// always_even -> even <nil>
	// odd -> odd <nil>
	// strategies: unknown strategy "coin_flip" (known: random, always_even, always_odd, history)
}

// ExampleAlways answers every call with the same parity, whoever the
// opponent and whatever the history.
func ExampleAlways() {
	s := strategies.Always(player.Odd)
	for _, opponent := range []string{"P02", "P03"} {
		choice, _ := s.ChooseParity(context.Background(), player.ParityCall{PlayerID: "P01", OpponentID: opponent})
		fmt.Println(opponent, choice)
	}
	// Output:
	// P02 odd
	// P03 odd
}

// ExampleNewOpponentModel predicts an opponent from the player's history
// and picks the other parity. With no history to go on, the tie is broken
// by the random source, here a fixed one so the output is repeatable.
func ExampleNewOpponentModel() {
	// Seven bytes of zero and one of one, twice: the first tie-break reads
	// an even number (even), the second an odd one (odd).
	seed := bytes.NewReader([]byte{0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0})
	m := strategies.NewOpponentModel(0, seed)
	ctx := context.Background()

	// P02 chose even in three of its four matches against us.
	h := player.NewHistory(
		player.MatchRecord{MatchID: "R1M1", OpponentID: "P02", MyChoice: player.Odd, OpponentChoice: player.Even, DrawnNumber: 3, Result: player.Win},
		player.MatchRecord{MatchID: "R2M1", OpponentID: "P02", MyChoice: player.Odd, OpponentChoice: player.Even, DrawnNumber: 4, Result: player.Loss},
		player.MatchRecord{MatchID: "R3M1", OpponentID: "P02", MyChoice: player.Even, OpponentChoice: player.Odd, DrawnNumber: 8, Result: player.Win},
		player.MatchRecord{MatchID: "R4M1", OpponentID: "P02", MyChoice: player.Odd, OpponentChoice: player.Even, DrawnNumber: 5, Result: player.Win},
	)
	fmt.Printf("P(P02 chooses even) = %.2f\n", m.PredictEven(h, "P02"))
	c, _ := m.ChooseParity(ctx, player.ParityCall{OpponentID: "P02", History: h})
	fmt.Println("against P02:", c)

	// Nothing known: a tie, broken by the random source.
	c1, _ := m.ChooseParity(ctx, player.ParityCall{OpponentID: "P09"})
	c2, _ := m.ChooseParity(ctx, player.ParityCall{OpponentID: "P09"})
	fmt.Println("against an unknown player:", c1, c2)
	// Output:
	// P(P02 chooses even) = 0.72
	// against P02: odd
	// against an unknown player: even odd
}
