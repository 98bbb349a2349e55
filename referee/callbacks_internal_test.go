package referee

import (
	"testing"

	"github.com/agentleague/league/leaguesdk"
)

// answer is a CHOOSE_PARITY_RESPONSE callback from sender with player_id id.
func answer(sender, id string) reply {
	r := &leaguesdk.ChooseParityResponse{MatchID: "R1M1", PlayerID: id, ParityChoice: leaguesdk.Odd}
	r.Sender = sender
	return moveReply(r)
}

func TestHubMatchesCallbacks(t *testing.T) {
	players := [2]string{"P01", "P02"}
	k := waitKey{"R1M1", kindMove}
	var h hub

	if got, _ := h.deliver(k, answer("", "P01")); got != notAwaited {
		t.Fatalf("nothing awaited: %d", got)
	}
	// A callback handed over ends the direct call of its wait.
	var stopped [2]int
	a := h.expect(k, players, 0, "", nil, func() { stopped[0]++ })
	b := h.expect(k, players, 1, "", nil, func() { stopped[1]++ })

	// By player_id, and by sender when player_id is missing.
	if got, _ := h.deliver(k, answer("", "P02")); got != delivered || len(b.ch) != 1 {
		t.Fatalf("by player_id: %d", got)
	}
	if stopped != [2]int{0, 1} {
		t.Fatalf("calls stopped %v, want only P02's", stopped)
	}
	if got, _ := h.deliver(k, answer("", "P02")); got != notAwaited || stopped != [2]int{0, 1} {
		t.Fatalf("a second answer while one waits: %d, calls stopped %v", got, stopped)
	}
	<-b.ch
	if got, _ := h.deliver(k, answer("player:P01", "")); got != delivered || len(a.ch) != 1 {
		t.Fatalf("by sender: %d", got)
	}
	<-a.ch

	// An unknown id while both are awaited is held, then claimed once a
	// direct reply shows who answers under it.
	if got, _ := h.deliver(k, answer("player:agent_x", "")); got != held {
		t.Fatalf("unknown id: %d, want held", got)
	}
	h.learn(k, b, "agent_x")
	if len(b.ch) != 1 || len(a.ch) != 0 || stopped != [2]int{1, 2} {
		t.Fatalf("held callback not handed to the player that answers as agent_x (calls stopped %v)", stopped)
	}
	<-b.ch

	// With one player awaited, an unknown id goes to it; an id of the
	// other player of the match does not.
	h.done(k, a)
	if got, _ := h.deliver(k, answer("", "P01")); got != notAwaited {
		t.Fatalf("the other player's id: %d", got)
	}
	if got, _ := h.deliver(k, answer("", "someone")); got != delivered || len(b.ch) != 1 {
		t.Fatalf("unknown id, one awaited: %d", got)
	}
	h.done(k, b)
	if len(h.waits) != 0 || len(h.orphans) != 0 {
		t.Fatalf("hub keeps %d waits, %d orphan lists", len(h.waits), len(h.orphans))
	}
}
