package rules_test

import (
	"bytes"
	"fmt"
	"log"
	"strings"

	"github.com/agentleague/league/rules"
)

// One even/odd game played through the rules alone: both players choose,
// then the number is drawn (here from a fixed source, so that the output
// is known; a referee uses crypto/rand).
func ExampleEvenOdd() {
	game, err := rules.EvenOdd{}.NewGame([2]string{"P01", "P02"}, bytes.NewReader([]byte{2})) // draws 3
	if err != nil {
		log.Fatal(err)
	}
	_ = game.Apply("P01", "even")
	_ = game.Apply("P02", "odd")
	fmt.Println(game.Over(), game.Outcome().Reason)
	// Output:
	// true P02 chose odd, number was 3 (odd)
}

// The rounds of a four-player league: every pair meets once, nobody plays
// twice in a round.
func ExampleRoundRobin() {
	for _, round := range rules.RoundRobin([]string{"P01", "P02", "P03", "P04"}) {
		var line []string
		for _, m := range round {
			line = append(line, m.MatchID+" "+m.PlayerA+"-"+m.PlayerB)
		}
		fmt.Println(strings.Join(line, "  "))
	}
	// Output:
	// R1M1 P01-P02  R1M2 P03-P04
	// R2M1 P03-P01  R2M2 P04-P02
	// R3M1 P01-P04  R3M2 P02-P03
}
