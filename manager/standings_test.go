package manager_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
)

// res builds a record: "P01>P02" (P01 beats P02), "P01=P02" (draw),
// "P01!P02" (P02 failed: technical loss, P01 wins), "P01xP02" (both failed),
// "P01?P02" (no status sent: derived from winner P01), "P01~P02" (no status,
// no winner, equal scores: a draw).
func res(spec string) manager.MatchRecord {
	for _, op := range []string{">", "=", "!", "x", "?", "~"} {
		a, b, ok := strings.Cut(spec, op)
		if !ok {
			continue
		}
		r := manager.MatchRecord{MatchID: spec, PlayerA: a, PlayerB: b}
		switch op {
		case ">":
			r.Result = leaguesdk.MatchResult{Status: leaguesdk.ResultWin, Winner: leaguesdk.OptionalString(a), Score: map[string]int{a: 3, b: 0}}
		case "=":
			r.Result = leaguesdk.MatchResult{Status: leaguesdk.ResultDraw, Score: map[string]int{a: 1, b: 1}}
		case "!":
			r.Result = leaguesdk.MatchResult{Status: leaguesdk.ResultTechnicalLoss, Winner: leaguesdk.OptionalString(a), Score: map[string]int{a: 3, b: 0}}
		case "x":
			r.Result = leaguesdk.MatchResult{Status: leaguesdk.ResultTechnicalLoss, Score: map[string]int{a: 0, b: 0}}
		case "?":
			r.Result = leaguesdk.MatchResult{Winner: leaguesdk.OptionalString(a), Score: map[string]int{a: 3, b: 0}}
		case "~":
			r.Result = leaguesdk.MatchResult{Score: map[string]int{a: 1, b: 1}}
		}
		return r
	}
	panic("bad spec " + spec)
}

func entrants(ids ...string) []manager.Entrant {
	out := make([]manager.Entrant, len(ids))
	for i, id := range ids {
		out[i] = manager.Entrant{PlayerID: id}
	}
	return out
}

// table renders rows as "P01 3p 1-0-0 1pl" lines, in rank order.
func table(rows []leaguesdk.StandingRow) string {
	var b strings.Builder
	for i, r := range rows {
		if r.Rank != i+1 {
			fmt.Fprintf(&b, "(rank %d at line %d) ", r.Rank, i+1)
		}
		fmt.Fprintf(&b, "%s %dp %d-%d-%d %dpl\n", r.PlayerID, r.Points, r.Wins, r.Draws, r.Losses, r.Played)
	}
	return b.String()
}

func TestComputeStandings(t *testing.T) {
	h2h := []manager.Tiebreaker{manager.TiebreakPoints, manager.TiebreakHeadToHead, manager.TiebreakPlayerID}
	tests := []struct {
		name        string
		players     []string
		results     []string
		tiebreakers []manager.Tiebreaker
		want        string
	}{
		{"no results: player id order", []string{"P02", "P01", "P03"}, nil, nil,
			"P01 0p 0-0-0 0pl\nP02 0p 0-0-0 0pl\nP03 0p 0-0-0 0pl\n"},
		{"win 3, draw 1, loss 0", []string{"P01", "P02", "P03"}, []string{"P01>P02", "P02=P03", "P03>P01"}, nil,
			"P03 4p 1-1-0 2pl\nP01 3p 1-0-1 2pl\nP02 1p 0-1-1 2pl\n"},
		{"technical loss: offender 0, opponent 3", []string{"P01", "P02"}, []string{"P01!P02"}, nil,
			"P01 3p 1-0-0 1pl\nP02 0p 0-0-1 1pl\n"},
		{"both failed: both 0, both played", []string{"P01", "P02"}, []string{"P01xP02"}, nil,
			"P01 0p 0-0-1 1pl\nP02 0p 0-0-1 1pl\n"},
		{"status derived when absent", []string{"P01", "P02", "P03"}, []string{"P02?P01", "P01~P03"}, nil,
			"P02 3p 1-0-0 1pl\nP01 1p 0-1-1 2pl\nP03 1p 0-1-0 1pl\n"},
		{"equal points: more wins first", []string{"P01", "P02", "P03", "P04", "P05", "P06"},
			// P01: three draws, 3 points; P02: one win, 3 points.
			[]string{"P01=P03", "P01=P04", "P01=P05", "P02>P06"}, nil,
			"P02 3p 1-0-0 1pl\nP01 3p 0-3-0 3pl\nP03 1p 0-1-0 1pl\nP04 1p 0-1-0 1pl\nP05 1p 0-1-0 1pl\nP06 0p 0-0-1 1pl\n"},
		{"equal wins: more draws first", []string{"P01", "P02", "P03", "P04"},
			[]string{"P01>P03", "P02>P04", "P02=P03"}, []manager.Tiebreaker{manager.TiebreakWins, manager.TiebreakDraws},
			"P02 4p 1-1-0 2pl\nP01 3p 1-0-0 1pl\nP03 1p 0-1-1 2pl\nP04 0p 0-0-1 1pl\n"},
		{"all equal: player id", []string{"P04", "P03", "P02", "P01"},
			[]string{"P02>P01", "P01>P03", "P01=P04", "P04>P02", "P03>P04", "P02=P03"}, nil,
			"P01 4p 1-1-1 3pl\nP02 4p 1-1-1 3pl\nP03 4p 1-1-1 3pl\nP04 4p 1-1-1 3pl\n"},
		{"player id decides last, numerically", []string{"P10", "P9", "P100"}, nil, nil,
			"P9 0p 0-0-0 0pl\nP10 0p 0-0-0 0pl\nP100 0p 0-0-0 0pl\n"},
		{"head-to-head decides between two tied players", []string{"P01", "P02", "P03", "P04"},
			// P01 and P02 have 6 points each; P02 beat P01.
			[]string{"P02>P01", "P01>P03", "P01>P04", "P03>P02", "P02>P04", "P03=P04"}, h2h,
			"P02 6p 2-0-1 3pl\nP01 6p 2-0-1 3pl\nP03 4p 1-1-1 3pl\nP04 1p 0-1-2 3pl\n"},
		{"same results without head-to-head: player id", []string{"P01", "P02", "P03", "P04"},
			[]string{"P02>P01", "P01>P03", "P01>P04", "P03>P02", "P02>P04", "P03=P04"}, nil,
			"P01 6p 2-0-1 3pl\nP02 6p 2-0-1 3pl\nP03 4p 1-1-1 3pl\nP04 1p 0-1-2 3pl\n"},
		{"head-to-head in a cycle: player id", []string{"P01", "P02", "P03"},
			[]string{"P02>P01", "P01>P03", "P03>P02"}, h2h,
			"P01 3p 1-0-1 2pl\nP02 3p 1-0-1 2pl\nP03 3p 1-0-1 2pl\n"},
		{"head-to-head among the tied only", []string{"P01", "P02", "P03", "P04"},
			// P01 and P03 tie on 6 points; P03 beat P01, although P01 has the better record elsewhere.
			[]string{"P03>P01", "P01>P02", "P01>P04", "P03>P02", "P04>P03", "P02=P04"}, h2h,
			"P03 6p 2-0-1 3pl\nP01 6p 2-0-1 3pl\nP04 4p 1-1-1 3pl\nP02 1p 0-1-2 3pl\n"},
		{"head-to-head not in the tiebreakers: player id", []string{"P01", "P02"}, []string{"P02=P01"}, nil,
			"P01 1p 0-1-0 1pl\nP02 1p 0-1-0 1pl\n"},
		{"wins before points when so configured", []string{"P01", "P02", "P03"},
			[]string{"P01=P02", "P01=P03", "P02>P03"}, []manager.Tiebreaker{manager.TiebreakWins, manager.TiebreakPoints},
			"P02 4p 1-1-0 2pl\nP01 2p 0-2-0 2pl\nP03 1p 0-1-1 2pl\n"},
		{"results of unknown players count for the known only", []string{"P01"}, []string{"P01>P99"}, nil,
			"P01 3p 1-0-0 1pl\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var records []manager.MatchRecord
			for _, r := range tt.results {
				records = append(records, res(r))
			}
			got := table(manager.ComputeStandings(entrants(tt.players...), records, tt.tiebreakers))
			if got != tt.want {
				t.Errorf("got\n%swant\n%s", got, tt.want)
			}
		})
	}
}

// TestComputeStandingsInvariants checks, over whole round-robins, that the
// table accounts for every result: the points add up, every player played
// n-1 matches, and the order respects points.
func TestComputeStandingsInvariants(t *testing.T) {
	for n := 2; n <= 12; n++ {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprintf("P%02d", i+1)
		}
		var records []manager.MatchRecord
		wantPoints := 0
		for k, round := range manager.RoundRobin(ids) {
			for j, p := range round {
				op := []string{">", "=", "!", "x"}[(k+j+n)%4]
				records = append(records, res(p.PlayerA+op+p.PlayerB))
				wantPoints += map[string]int{">": 3, "=": 2, "!": 3, "x": 0}[op]
			}
		}
		for _, tb := range [][]manager.Tiebreaker{nil, {manager.TiebreakPoints, manager.TiebreakHeadToHead}} {
			rows := manager.ComputeStandings(entrants(ids...), records, tb)
			points := 0
			for i, r := range rows {
				points += r.Points
				if r.Played != n-1 || r.Wins+r.Draws+r.Losses != n-1 || r.Points != 3*r.Wins+r.Draws {
					t.Errorf("n=%d: row %+v does not add up", n, r)
				}
				if i > 0 && rows[i-1].Points < r.Points {
					t.Errorf("n=%d: %s above %s with fewer points", n, rows[i-1].PlayerID, r.PlayerID)
				}
			}
			if points != wantPoints {
				t.Errorf("n=%d: %d points in the table, want %d", n, points, wantPoints)
			}
		}
	}
}

// TestTiebreakersOverHTTP plays a four-player league whose results leave
// P01 and P02 level on points, wins and draws, P02 having beaten P01: the
// default order puts P01 first, head-to-head puts P02 first — in the
// standings a player queries, in LEAGUE_COMPLETED and in the champion.
func TestTiebreakersOverHTTP(t *testing.T) {
	// R1: P01–P02, P03–P04; R2: P03–P01, P04–P02; R3: P01–P04, P02–P03.
	winners := map[string]string{"R1M1": "P02", "R1M2": "", "R2M1": "P01", "R2M2": "P02", "R3M1": "P01", "R3M2": "P03"}
	for _, tt := range []struct {
		name        string
		tiebreakers []manager.Tiebreaker
		first       string
	}{
		{"default", nil, "P01"},
		{"head to head", []manager.Tiebreaker{manager.TiebreakPoints, manager.TiebreakHeadToHead, manager.TiebreakPlayerID}, "P02"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := fastConfig(t, t.TempDir())
			cfg.MinPlayers = 4
			cfg.Tiebreakers = tt.tiebreakers
			m := startManager(t, cfg)
			ref := newPeer(t)
			tok := registerReferee(t, m.MCP, "Scripted", ref.URL, 2, nil).AuthToken
			scriptedReport(t, ref, m.MCP, "REF01", tok, 0, func(s *leaguesdk.StartMatch) string { return winners[s.MatchID] })
			var players []*peer
			var tokens []string
			for i := range 4 {
				p := newPeer(t)
				players = append(players, p)
				tokens = append(tokens, registerPlayer(t, m.MCP, fmt.Sprintf("Agent %d", i+1), p.URL, nil).AuthToken)
			}
			m.waitDone(t, 10*time.Second)
			var resp leaguesdk.LeagueQueryResponse
			call(t, m.MCP, leaguesdk.MethodLeagueQuery, &leaguesdk.LeagueQuery{Envelope: env(leaguesdk.MsgLeagueQuery, "player:P04", tokens[3]),
				QueryType: leaguesdk.QueryStandings}).decode(t, &resp)
			var data leaguesdk.StandingsData
			if err := resp.DecodeData(&data); err != nil {
				t.Fatal(err)
			}
			got := table(data.Standings)
			want := map[string]string{
				"P01": "P01 6p 2-0-1 3pl\nP02 6p 2-0-1 3pl\nP03 4p 1-1-1 3pl\nP04 1p 0-1-2 3pl\n",
				"P02": "P02 6p 2-0-1 3pl\nP01 6p 2-0-1 3pl\nP03 4p 1-1-1 3pl\nP04 1p 0-1-2 3pl\n",
			}[tt.first]
			if got != want {
				t.Errorf("GET_STANDINGS\n%swant\n%s", got, want)
			}
			fin := messages[leaguesdk.LeagueCompleted](players[0], leaguesdk.MsgLeagueCompleted)
			if len(fin) != 1 || fin[0].Champion == nil || fin[0].Champion.PlayerID != tt.first || table(fin[0].FinalStandings) != want {
				t.Errorf("LEAGUE_COMPLETED %+v", fin)
			}
			if c := m.Champion(); c == nil || c.PlayerID != tt.first || c.Points != 6 {
				t.Errorf("champion %+v, want %s", c, tt.first)
			}
		})
	}
}
