package leaguesdk_test

import (
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// testToken is a well-formed token used where a test needs one.
const testToken = "tok_3f9a2c7e5b1d4a6f8e0c2b4d6a8f1e3c"

// fixedNow is the clock of tests that compare encoded messages.
var fixedNow = time.Date(2025, 1, 15, 10, 15, 5, 0, time.UTC)

// chooseParityCall returns the CHOOSE_PARITY_CALL of the seeds' example game.
func chooseParityCall() *leaguesdk.ChooseParityCall {
	return &leaguesdk.ChooseParityCall{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityCall, "referee:REF01", testToken, "conv-r1m1-001", fixedNow),
		MatchID:  "R1M1",
		PlayerID: "P01",
		GameType: leaguesdk.GameEvenOdd,
		Context: leaguesdk.ParityContext{
			OpponentID: "P02",
			RoundID:    1,
		},
		Deadline: leaguesdk.FormatTime(fixedNow.Add(30 * time.Second)),
	}
}
