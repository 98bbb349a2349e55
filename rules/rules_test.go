package rules_test

import (
	"crypto/rand"
	"io"
	"testing"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/rules"
)

// playEvenOdd plays one even/odd game through the rules.
func playEvenOdd(t testing.TB, a, b string, rnd io.Reader) rules.Outcome {
	t.Helper()
	g, err := rules.EvenOdd{}.NewGame([2]string{"P01", "P02"}, rnd)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(g.Pending()); n != 2 {
		t.Fatalf("even/odd waits for %d moves, want both at once", n)
	}
	if err := g.Apply("P01", a); err != nil {
		t.Fatal(err)
	}
	if g.Over() {
		t.Fatal("over after one choice")
	}
	if p := g.Pending(); len(p) != 1 || p[0].PlayerID != "P02" {
		t.Fatalf("pending %+v", p)
	}
	if err := g.Apply("P02", b); err != nil {
		t.Fatal(err)
	}
	if !g.Over() || len(g.Pending()) != 0 {
		t.Fatal("not over after both choices")
	}
	return g.Outcome()
}

// TestEvenOddOutcomeTable is table 7 of the exercise.
func TestEvenOddOutcomeTable(t *testing.T) {
	for _, tc := range []struct {
		a, b   string
		number int
		status leaguesdk.ResultStatus
		winner string
	}{
		{"even", "odd", 8, leaguesdk.ResultWin, "P01"},
		{"even", "odd", 7, leaguesdk.ResultWin, "P02"},
		{"odd", "odd", 4, leaguesdk.ResultDraw, ""},
		{"even", "even", 3, leaguesdk.ResultDraw, ""},
		{"odd", "even", 10, leaguesdk.ResultWin, "P02"},
		{"odd", "even", 1, leaguesdk.ResultWin, "P01"},
	} {
		o := playEvenOdd(t, tc.a, tc.b, draws(tc.number))
		if o.Status != tc.status || o.Winner != tc.winner || o.DrawnNumber != tc.number ||
			o.NumberParity != leaguesdk.ParityOf(tc.number) || o.Choices["P01"] != tc.a || o.Choices["P02"] != tc.b || o.Reason == "" {
			t.Errorf("%s/%s with %d: %+v, want %s %q", tc.a, tc.b, tc.number, o, tc.status, tc.winner)
		}
	}
}

func TestEvenOddRejectsInvalidChoices(t *testing.T) {
	g, err := rules.EvenOdd{}.NewGame([2]string{"P01", "P02"}, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"EVEN", "Odd", "", "1", " even"} {
		if code := leaguesdk.CodeOf(g.Apply("P01", c)); code != leaguesdk.CodeInvalidParityChoice {
			t.Errorf("choice %q: code %q, want E004", c, code)
		}
	}
	if code := leaguesdk.CodeOf(g.Apply("P07", "even")); code != leaguesdk.CodeOutOfTurn {
		t.Errorf("stranger: %q, want E007", code)
	}
	if err := g.Apply("P01", "even"); err != nil {
		t.Fatal(err)
	}
	if code := leaguesdk.CodeOf(g.Apply("P01", "odd")); code != leaguesdk.CodeOutOfTurn {
		t.Errorf("second choice: %q, want E007", code)
	}
	if _, err := (rules.EvenOdd{}).NewGame([2]string{"P01", "P01"}, rand.Reader); err == nil {
		t.Error("a player against itself was accepted")
	}
}

// TestDrawIsUniform draws 100 000 numbers from the real crypto source
// through the rules and checks them with a chi-square test (9 degrees of
// freedom; 27.88 is the 0.999 quantile, so a fair source fails 1 run in 1000).
func TestDrawIsUniform(t *testing.T) {
	const n = 100_000
	var counts [11]int
	for range n {
		g, err := rules.EvenOdd{}.NewGame([2]string{"A", "B"}, rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		_ = g.Apply("A", "even")
		_ = g.Apply("B", "odd")
		d := g.Outcome().DrawnNumber
		if d < 1 || d > 10 {
			t.Fatalf("drawn %d", d)
		}
		counts[d]++
	}
	expected := float64(n) / 10
	chi2 := 0.0
	for d := 1; d <= 10; d++ {
		diff := float64(counts[d]) - expected
		chi2 += diff * diff / expected
	}
	t.Logf("counts %v, chi-square %.2f", counts[1:], chi2)
	if chi2 >= 27.88 {
		t.Fatalf("chi-square %.2f ≥ 27.88: draws are not uniform (%v)", chi2, counts[1:])
	}
}

func TestDrawNumberRejectsBiasedBytes(t *testing.T) {
	// 250..255 would favour 1..6; they are skipped.
	n, err := rules.DrawNumber(&cycleReader{b: []byte{255, 250, 9}}, 10)
	if err != nil || n != 10 {
		t.Fatalf("DrawNumber = %d, %v; want 10", n, err)
	}
	if _, err := rules.DrawNumber(&cycleReader{b: []byte{255}}, 10); err == nil {
		t.Fatal("a source of only rejected bytes was accepted")
	}
	g, _ := rules.EvenOdd{}.NewGame([2]string{"A", "B"}, io.LimitReader(rand.Reader, 0))
	_ = g.Apply("A", "even")
	if err := g.Apply("B", "odd"); err == nil || leaguesdk.CodeOf(err) != "" {
		t.Fatalf("failing random source: %v, want a non-protocol error", err)
	}
	if g.Over() || len(g.Pending()) != 1 {
		t.Fatal("a failed draw changed the game")
	}
}

// OutcomeFor gives, for every number, the outcome a game drawing that
// number gives (DrawNumber maps the byte n-1 to n), and refuses what Apply
// refuses.
func TestEvenOddOutcomeForAgreesWithThePlayedGame(t *testing.T) {
	var draw rules.DrawRules = rules.EvenOdd{}
	if draw.Numbers() != 10 {
		t.Fatalf("Numbers() = %d, want 10", draw.Numbers())
	}
	players := [2]string{"P01", "P02"}
	for _, a := range []string{"even", "odd"} {
		for _, b := range []string{"even", "odd"} {
			for n := 1; n <= 10; n++ {
				played := playEvenOdd(t, a, b, bytesReader(byte(n-1)))
				got, err := draw.OutcomeFor(players, map[string]string{"P01": a, "P02": b}, n)
				if err != nil || got.Status != played.Status || got.Winner != played.Winner || got.DrawnNumber != n || got.Reason != played.Reason {
					t.Errorf("%s/%s, %d: OutcomeFor %+v (%v), the game %+v", a, b, n, got, err, played)
				}
			}
		}
	}
	if _, err := draw.OutcomeFor(players, map[string]string{"P01": "even", "P02": "seven"}, 3); err == nil {
		t.Error("an invalid choice was scored")
	}
	if _, err := draw.OutcomeFor(players, map[string]string{"P01": "even", "P02": "odd"}, 11); err == nil {
		t.Error("a number out of 1..10 was scored")
	}
}

type byteReader byte

func (b byteReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

func bytesReader(b byte) io.Reader { return byteReader(b) }
