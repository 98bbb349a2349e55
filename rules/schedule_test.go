package rules

import (
	"fmt"
	"reflect"
	"testing"
)

// playerIDs returns P01, P02, ... Pn, the ids the manager assigns.
func playerIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("P%02d", i+1)
	}
	return ids
}

func TestRoundRobinFourPlayers(t *testing.T) {
	// The pairs and match ids of the protocol's four-player schedule
	// (004 tables 9 and 16), with PLAYER_A/PLAYER_B balanced: every
	// player is A once or twice in its three matches.
	want := [][]Pairing{
		{
			{MatchID: "R1M1", Round: 1, PlayerA: "P01", PlayerB: "P02"},
			{MatchID: "R1M2", Round: 1, PlayerA: "P03", PlayerB: "P04"},
		},
		{
			{MatchID: "R2M1", Round: 2, PlayerA: "P03", PlayerB: "P01"},
			{MatchID: "R2M2", Round: 2, PlayerA: "P04", PlayerB: "P02"},
		},
		{
			{MatchID: "R3M1", Round: 3, PlayerA: "P01", PlayerB: "P04"},
			{MatchID: "R3M2", Round: 3, PlayerA: "P02", PlayerB: "P03"},
		},
	}
	got := RoundRobin([]string{"P01", "P02", "P03", "P04"})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RoundRobin(P01..P04) =\n%v\nwant\n%v", got, want)
	}
}

func TestRoundRobinSmall(t *testing.T) {
	tests := []struct {
		name    string
		players []string
		want    [][]Pairing
	}{
		{"nil", nil, nil},
		{"empty", []string{}, nil},
		{"one player", []string{"P01"}, nil},
		{"two players", []string{"P01", "P02"}, [][]Pairing{
			{{MatchID: "R1M1", Round: 1, PlayerA: "P01", PlayerB: "P02"}},
		}},
		{"three players", []string{"P01", "P02", "P03"}, [][]Pairing{
			{{MatchID: "R1M1", Round: 1, PlayerA: "P02", PlayerB: "P03"}},
			{{MatchID: "R2M1", Round: 2, PlayerA: "P03", PlayerB: "P01"}},
			{{MatchID: "R3M1", Round: 3, PlayerA: "P01", PlayerB: "P02"}},
		}},
		{"players keep the given order", []string{"b", "a"}, [][]Pairing{
			{{MatchID: "R1M1", Round: 1, PlayerA: "b", PlayerB: "a"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RoundRobin(tt.players); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("RoundRobin(%q) = %v, want %v", tt.players, got, tt.want)
			}
		})
	}
}

func TestRoundRobinDoesNotPanicOnOddIDs(t *testing.T) {
	tests := []struct {
		name    string
		players []string
	}{
		{"empty ids", []string{"", "", ""}},
		{"duplicate ids", []string{"P01", "P01", "P02", "P02"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := len(tt.players)
			rounds := RoundRobin(tt.players)
			total := 0
			for _, round := range rounds {
				total += len(round)
			}
			if total != n*(n-1)/2 {
				t.Errorf("%d matches, want %d", total, n*(n-1)/2)
			}
		})
	}
}

func TestRoundRobinProperties(t *testing.T) {
	for n := 2; n <= 64; n++ {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			players := playerIDs(n)
			rounds := RoundRobin(players)

			wantRounds := n - 1
			if n%2 == 1 {
				wantRounds = n
			}
			if len(rounds) != wantRounds {
				t.Fatalf("%d rounds, want %d", len(rounds), wantRounds)
			}

			index := make(map[string]int, n)
			for i, p := range players {
				index[p] = i
			}
			met := make(map[[2]int]string) // pair -> match id where it met
			asA := make([]int, n)          // matches as PLAYER_A
			asB := make([]int, n)          // matches as PLAYER_B
			byes := make([]int, n)         // rounds sat out
			for r, round := range rounds {
				if len(round) != n/2 {
					t.Errorf("round %d has %d matches, want %d", r+1, len(round), n/2)
				}
				playing := make([]bool, n)
				for k, m := range round {
					if want := fmt.Sprintf("R%dM%d", r+1, k+1); m.MatchID != want {
						t.Errorf("match id %q, want %q", m.MatchID, want)
					}
					if m.Round != r+1 {
						t.Errorf("%s: Round = %d, want %d", m.MatchID, m.Round, r+1)
					}
					a, okA := index[m.PlayerA]
					b, okB := index[m.PlayerB]
					if !okA || !okB || a == b {
						t.Fatalf("%s: bad players %q vs %q", m.MatchID, m.PlayerA, m.PlayerB)
					}
					for _, p := range []int{a, b} {
						if playing[p] {
							t.Errorf("%s: %s plays twice in round %d", m.MatchID, players[p], r+1)
						}
						playing[p] = true
					}
					key := [2]int{min(a, b), max(a, b)}
					if prev, ok := met[key]; ok {
						t.Errorf("%s: %s and %s already met in %s", m.MatchID, players[a], players[b], prev)
					}
					met[key] = m.MatchID
					asA[a]++
					asB[b]++
				}
				idle := 0
				for p, busy := range playing {
					if !busy {
						idle++
						byes[p]++
					}
				}
				if want := n % 2; idle != want {
					t.Errorf("round %d has %d byes, want %d", r+1, idle, want)
				}
			}

			if want := n * (n - 1) / 2; len(met) != want {
				t.Errorf("%d distinct pairs met, want %d", len(met), want)
			}
			for p := range players {
				if d := asA[p] - asB[p]; d < -1 || d > 1 {
					t.Errorf("%s is PLAYER_A %d times and PLAYER_B %d times", players[p], asA[p], asB[p])
				}
				if want := n % 2; byes[p] != want {
					t.Errorf("%s has %d byes, want %d", players[p], byes[p], want)
				}
			}
		})
	}
}

func BenchmarkRoundRobin100(b *testing.B) {
	players := playerIDs(100)
	b.ReportAllocs()
	for b.Loop() {
		RoundRobin(players)
	}
}
