package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/internal/dashboard/headless"
	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
)

// TestDashboardFollowsALiveLeague opens the manager's page in headless
// Chromium before any player has registered and keeps that one page open
// while a league of four players runs: without a reload, it must come to
// show every registered player, every match finished, the final standings
// and, at the end, the champion.
func TestDashboardFollowsALiveLeague(t *testing.T) {
	browser := headless.ForTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)

	l := newLeague(t, 4)
	l.addReferees(2)

	page, err := browser.Open(ctx, l.base())
	if err != nil {
		t.Fatal(err)
	}
	must := func(expr string) {
		t.Helper()
		page.Expect(ctx, t, expr)
	}
	must(`document.body.dataset.status === "REGISTERING"`)
	must(`document.querySelectorAll("#referees tbody tr[data-referee-id]").length === 2`)
	// Each agent carries a badge of its lifecycle state.
	must(`document.querySelectorAll('#referees tbody tr[data-referee-id] .badge.state[data-state="REGISTERED"]').length === 2`)

	strategies := []player.Strategy{
		player.Random(nil),
		player.StrategyFunc(func(context.Context, player.ParityCall) (leaguesdk.Parity, error) { return leaguesdk.Even, nil }),
		player.StrategyFunc(func(context.Context, player.ParityCall) (leaguesdk.Parity, error) { return leaguesdk.Odd, nil }),
		player.Random(nil),
	}
	var agents []*player.Agent
	for i, s := range strategies {
		agents = append(agents, l.addPlayer(fmt.Sprintf("Browser Player %d", i+1), s))
	}
	for _, a := range agents {
		l.await(a.Registered(), "a player to register")
	}
	l.await(l.mgr.Done(), "the league to complete")
	// At the top: every match done, at the rate the league went.
	must(`/^6 of 6 matches done · [0-9.]+ matches\/s$/.test(document.getElementById("progress").innerText)`)

	for _, a := range agents {
		id := a.ID()
		must(fmt.Sprintf(`document.querySelector('#players tr[data-player-id=%q]')`, id))
		must(fmt.Sprintf(`document.querySelector('#standings tr[data-player-id=%q]')`, id))
	}
	champ := l.mgr.Champion()
	if champ == nil {
		t.Fatal("the league completed without a champion")
	}
	must(fmt.Sprintf(`document.getElementById("champion").dataset.playerId === %q && !document.getElementById("champion").hidden`, champ.PlayerID))
	must(`document.body.dataset.status === "COMPLETED"`)
	must(`document.querySelectorAll('#players tbody .badge.state[data-state="SHUTDOWN"]').length === 4`)
	must(`document.querySelectorAll('#schedule [data-match-id][data-status="FINISHED"]').length === 6`)

	var text string
	if err := page.Eval(ctx, `document.getElementById("champion").innerText`, &text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, champ.PlayerID) {
		t.Errorf("the champion banner reads %q, want it to name %s", text, champ.PlayerID)
	}
	if problems := page.Problems(); len(problems) > 0 {
		t.Errorf("the page reported problems:\n%s", strings.Join(problems, "\n"))
	}
}
