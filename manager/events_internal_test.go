package manager

import (
	"encoding/json"
	"testing"

	wirejson "github.com/agentleague/league/internal/json"
	"github.com/agentleague/league/leaguesdk"
)

// A league log line's details are the event's fields that are set, as the
// map of them that the log was written from before: same members, same
// order, same bytes.
func TestEventDetailsAreTheMapOfTheSetFields(t *testing.T) {
	res := &leaguesdk.MatchResult{Status: leaguesdk.ResultWin, Winner: "P02", Score: map[string]int{"P01": 0, "P02": 3},
		Details: leaguesdk.MatchDetails{DrawnNumber: 3, Reason: "P02 chose odd <3>"}}
	for name, e := range map[string]Event{
		"match result": {Kind: EventMatchResult, RoundID: 2, MatchID: "R2M1", PlayerA: "P01", PlayerB: "P02", RefereeID: "REF01",
			Result: res, Message: "R2M1: P02 beats P01"},
		"registration": {Kind: EventPlayerRegistered, AgentID: "P01", DisplayName: "Alpha & co", Endpoint: "http://127.0.0.1:9/mcp", Message: "P01 registered"},
		"state":        {Kind: EventAgentState, AgentID: "P01", Transition: &Transition{AgentID: "P01", To: StateActive, Trigger: "registered"}, Message: "P01 → ACTIVE"},
		"completed":    {Kind: EventLeagueCompleted, Champion: &leaguesdk.Champion{PlayerID: "P02", Points: 9}, Message: "done"},
		"bare":         {Kind: EventWarning, Message: ""},
	} {
		old := map[string]any{"message": e.Message}
		for k, v := range map[string]any{"round_id": e.RoundID, "match_id": e.MatchID, "agent_id": e.AgentID,
			"display_name": e.DisplayName, "endpoint": e.Endpoint, "player_A_id": e.PlayerA, "player_B_id": e.PlayerB,
			"referee_id": e.RefereeID} {
			if v != "" && v != 0 {
				old[k] = v
			}
		}
		if e.Result != nil {
			old["result"] = e.Result
		}
		if e.Champion != nil {
			old["champion"] = e.Champion
		}
		if e.Transition != nil {
			old["from"], old["to"], old["trigger"] = e.Transition.From, e.Transition.To, e.Transition.Trigger
		}
		want, _ := json.Marshal(old)
		got, err := wirejson.Marshal(eventDetailsOf(&e))
		if err != nil || string(got) != string(want) {
			t.Errorf("%s: details %s, %v\nwant %s", name, got, err, want)
		}
	}
}
