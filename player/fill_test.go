package player_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
)

// TestStandingsAheadOfGameOverIsNoGap: the GAME_OVERs of a player's first
// two matches come late, after the referee gave up waiting for them and
// reported, so the round's standings reach the player first and count a
// match its history does not hold yet. The player is owed that result,
// waits for it, and asks the manager nothing; its history holds the
// referee's records, choices included. With a FillWait shorter than the
// lateness (the control), the same league has the player ask: the
// standings did overtake the GAME_OVERs.
func TestStandingsAheadOfGameOverIsNoGap(t *testing.T) {
	const players = 4
	late := func(fillWait time.Duration) func(*dropGameOvers) {
		return func(d *dropGameOvers) {
			d.late.Store(2)
			d.lateBy, d.fillWait = time.Second, fillWait
		}
	}
	t.Run("waits", func(t *testing.T) {
		g := runGapLeague(t, players, 0, nil, nil, late(10*time.Second))
		p := g.players[0]
		want := g.results(p.ID())
		eventually(t, "the history to be complete", func() bool { return p.History().Len() == len(want) })
		if n := g.queries[0].n.Load(); n != 0 {
			t.Errorf("the player whose GAME_OVERs came late sent %d league queries, want 0", n)
		}
		if ev := g.fills[0].events(); len(ev) != 0 {
			t.Errorf("fills %+v, want none", ev)
		}
		for _, m := range p.History().Matches() {
			if m.Filled || m.MyChoice == "" {
				t.Errorf("%s: filled %v, choice %q: want the referee's record", m.MatchID, m.Filled, m.MyChoice)
			}
		}
	})
	t.Run("control", func(t *testing.T) {
		g := runGapLeague(t, players, 0, nil, nil, late(50*time.Millisecond))
		if g.queries[0].n.Load() == 0 || len(g.fills[0].events()) == 0 {
			t.Fatal("with a FillWait shorter than the GAME_OVERs' lateness the player did not ask: the standings did not overtake them")
		}
		if ev := g.fills[0].events()[0]; ev.Cause != leaguesdk.FillBehind || ev.Missing != 1 || ev.Outcome != "ok" {
			t.Errorf("fill %+v, want cause %s, 1 missing, ok", ev, leaguesdk.FillBehind)
		}
	})
}

// TestFillAsksForItsOwnMatchesOnly: in a league of 200 players, a player
// that really missed a result fills it with one answer the size of its own
// 199 matches, not of the league's 19 900.
func TestFillAsksForItsOwnMatchesOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("a 200-player league")
	}
	const players = 200
	g := startGapLeague(t, players, 1, nil, nil, func(d *dropGameOvers) { d.capacity, d.shared = players/2, true })
	deadline := time.Now().Add(60 * time.Second)
	for len(g.fills[0].events()) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the player that missed a GAME_OVER did not fill its history: %d dropped, history %d, league %+v",
				g.drops.dropped.Load(), g.players[0].History().Len(), g.mgr.Progress())
		}
		time.Sleep(20 * time.Millisecond)
	}
	ev := g.fills[0].events()[0]
	if ev.Cause != leaguesdk.FillBehind || ev.Missing != 1 || ev.Matches != 1 || ev.Outcome != "ok" {
		t.Fatalf("fill %+v, want cause %s, 1 missing, 1 recorded", ev, leaguesdk.FillBehind)
	}
	if ev.Entries != players-1 {
		t.Errorf("the answer held %d of the player's matches, want %d", ev.Entries, players-1)
	}
	// The player's 199 matches as the schedule shows them, every one
	// finished (the largest an entry is): the answer is within twice that.
	id := g.players[0].ID()
	var own []leaguesdk.ScheduleEntry
	for _, e := range g.mgr.Snapshot().Matches {
		if e.PlayerAID == id || e.PlayerBID == id {
			e.Status, e.Result = leaguesdk.MatchFinished, &leaguesdk.MatchResult{Winner: leaguesdk.OptionalString(id), Score: map[string]int{e.PlayerAID: 3, e.PlayerBID: 0},
				Status: leaguesdk.ResultWin, Details: leaguesdk.MatchDetails{DrawnNumber: 7, Reason: "player_A chose odd, drawn number 7"}}
			own = append(own, e)
		}
	}
	b, err := json.Marshal(own)
	if err != nil {
		t.Fatal(err)
	}
	got := g.queries[0].answered.Load()
	if got == 0 || got >= 2*int64(len(b)) {
		t.Fatalf("the fill's answer was %d bytes; the player's %d matches encode in %d", got, len(own), len(b))
	}
	t.Logf("the fill's answer: %d bytes (the player's %d matches: %d bytes)", got, len(own), len(b))
	for i, q := range g.queries[1:] {
		if n := q.n.Load(); n != 0 {
			t.Errorf("player %d, whose history is complete, sent %d league queries", i+1, n)
		}
	}
}

// TestFaultFreeLeagueUnderLoadFillsNothing plays a league while strangers
// and the league's own players ask the manager for the whole schedule as
// fast as it lets them, and goroutines as many as the processors spin:
// no player's history has a gap, so none fills (the FillObserver is told
// of no fill), and every history is complete.
func TestFaultFreeLeagueUnderLoadFillsNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("a league under load")
	}
	const players, strangers = 8, 50
	var limited, served atomic.Int64
	g := runGapLeague(t, players, 0, nil, func(g *gapLeague) {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		defer func() { cancel(); wg.Wait() }()
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for ctx.Err() == nil {
					for i := 0; i < 1_000_000; i++ {
						_ = i * i
					}
				}
			})
		}
		for i := range strangers {
			wg.Go(func() {
				body := []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"league_query","params":{"protocol":"league.v2",`+
					`"message_type":"LEAGUE_QUERY","sender":"player:S%02d","timestamp":"2025-01-15T10:00:00Z","conversation_id":"c",`+
					`"auth_token":"tok_00000000000000000000000000000000","query_type":"GET_SCHEDULE"}}`, i))
				for range 100_000 {
					req, _ := http.NewRequestWithContext(ctx, http.MethodPost, g.mgr.Endpoint(), bytes.NewReader(body))
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode == http.StatusTooManyRequests {
						select {
						case <-ctx.Done():
							return
						case <-time.After(time.Second):
						}
					}
				}
			})
		}
		for _, p := range g.players {
			wg.Go(func() {
				<-p.Registered()
				for range 100_000 {
					_, err := p.Query(ctx, leaguesdk.QuerySchedule, nil)
					switch {
					case ctx.Err() != nil:
						return
					case leaguesdk.CodeOf(err) == leaguesdk.CodeRateLimited:
						limited.Add(1)
					case err == nil:
						served.Add(1)
					}
				}
			})
		}
		select {
		case <-g.mgr.Done():
		case <-time.After(55 * time.Second):
			t.Errorf("the league under load did not complete: %+v", g.mgr.Progress())
		}
	}, func(d *dropGameOvers) { d.fillWait = player.DefaultFillWait })
	for i, p := range g.players {
		want := g.results(p.ID())
		if len(want) != players-1 {
			t.Fatalf("the manager has %d results of %s, want %d", len(want), p.ID(), players-1)
		}
		eventually(t, "the history to be complete", func() bool { return p.History().Len() == len(want) })
		if ev := g.fills[i].events(); len(ev) != 0 {
			t.Errorf("%s filled its history in a league without faults: %+v", p.ID(), ev)
		}
	}
	if served.Load() == 0 {
		t.Error("the players' whole-schedule queries were never answered")
	}
	t.Logf("the players' whole-schedule queries: %d answered, %d refused over the limits", served.Load(), limited.Load())
}
