package strategies_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/player/strategies"
)

// tally counts the outcomes of simulated games.
type tally struct{ wins, draws, losses int }

func (t tally) points() int { return 3*t.wins + t.draws }

// simulate plays games of s against an opponent that picks even with
// probability pEven, with the referee's rules inline: a number from 1 to 10
// is drawn; equal choices draw; otherwise the choice matching the number's
// parity wins. The player's history grows as the Agent's would; the
// strategy sees its last window matches, which keeps the simulation linear.
func simulate(t *testing.T, s player.Strategy, pEven float64, games int, rng *rand.Rand) tally {
	const window = 100
	t.Helper()
	var records []player.MatchRecord
	var out tally
	for i := range games {
		call := player.ParityCall{MatchID: fmt.Sprintf("M%d", i), OpponentID: "P02", GameType: leaguesdk.GameEvenOdd,
			History: player.NewHistory(records[max(0, len(records)-window):]...)}
		mine, err := s.ChooseParity(context.Background(), call)
		if err != nil || !mine.Valid() {
			t.Fatalf("game %d: choice %q, %v", i, mine, err)
		}
		opp := leaguesdk.Odd
		if rng.Float64() < pEven {
			opp = leaguesdk.Even
		}
		n := rng.IntN(10) + 1
		rec := player.MatchRecord{MatchID: call.MatchID, OpponentID: "P02", MyChoice: mine, OpponentChoice: opp, DrawnNumber: n}
		switch {
		case mine == opp:
			rec.Result = player.Draw
			out.draws++
		case mine == leaguesdk.ParityOf(n):
			rec.Result = player.Win
			out.wins++
		default:
			rec.Result = player.Loss
			out.losses++
		}
		records = append(records, rec)
	}
	return out
}

// TestOpponentModelBeatsRandomAgainstBiasedOpponent: against an opponent
// that picks even 80% of the time, picking odd avoids the draw 80% of the
// time. Among decisive games each side still wins half (the number is
// random), so the gain shows in fewer draws and more points per game:
// about 1.4 for the model against 1.25 for random play.
func TestOpponentModelBeatsRandomAgainstBiasedOpponent(t *testing.T) {
	const games = 2000
	model := simulate(t, strategies.NewOpponentModel(0, rand.NewChaCha8([32]byte{1})), 0.8, games, rand.New(rand.NewPCG(1, 2)))
	random := simulate(t, player.Random(rand.NewChaCha8([32]byte{2})), 0.8, games, rand.New(rand.NewPCG(1, 2)))
	t.Logf("model:  %+v, %.3f points/game", model, float64(model.points())/games)
	t.Logf("random: %+v, %.3f points/game", random, float64(random.points())/games)
	if perGame := float64(model.points()) / games; perGame < 1.33 {
		t.Errorf("model earns %.3f points a game, want ≥ 1.33 (expected ≈ 1.4)", perGame)
	}
	if model.points() < random.points()+100 {
		t.Errorf("model %d points, random %d: want the model clearly ahead", model.points(), random.points())
	}
	if model.draws > games/4 || model.wins <= random.wins {
		t.Errorf("model drew %d and won %d of %d games; random won %d", model.draws, model.wins, games, random.wins)
	}
}

func TestOpponentModelNeverDrawsAgainstConstantOpponent(t *testing.T) {
	for _, p := range []float64{0, 1} {
		got := simulate(t, strategies.NewOpponentModel(0, rand.NewChaCha8([32]byte{3})), p, 200, rand.New(rand.NewPCG(3, 4)))
		if got.draws > 2 {
			t.Errorf("opponent even with p=%v: %d draws in 200 games, want the model to stop drawing at once", p, got.draws)
		}
	}
}

func TestOpponentModelPrediction(t *testing.T) {
	rec := func(opp string, c leaguesdk.Parity) player.MatchRecord {
		return player.MatchRecord{OpponentID: opp, OpponentChoice: c}
	}
	m := strategies.NewOpponentModel(2, nil)
	tests := []struct {
		name      string
		h         player.History
		opp       string
		wantAbove bool // PredictEven > 0.5
		wantEqual bool // PredictEven == 0.5
	}{
		{"no history", player.NewHistory(), "P02", false, true},
		{"opponent chose even", player.NewHistory(rec("P02", "even"), rec("P02", "even"), rec("P02", "odd")), "P02", true, false},
		{"opponent chose odd", player.NewHistory(rec("P02", "odd"), rec("P02", "odd")), "P02", false, false},
		{"unknown opponent follows the league's tendency",
			player.NewHistory(rec("P03", "even"), rec("P04", "even"), rec("P05", "even")), "P02", true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := m.PredictEven(tc.h, tc.opp)
			if tc.wantEqual && p != 0.5 || !tc.wantEqual && (p > 0.5) != tc.wantAbove {
				t.Fatalf("PredictEven = %v", p)
			}
			choice, err := m.ChooseParity(context.Background(), player.ParityCall{OpponentID: tc.opp, History: tc.h})
			if err != nil || !choice.Valid() {
				t.Fatalf("choice %q, %v", choice, err)
			}
			if !tc.wantEqual && (choice == leaguesdk.Odd) != tc.wantAbove {
				t.Fatalf("choice %q does not oppose the prediction %v", choice, p)
			}
		})
	}
}

func TestByName(t *testing.T) {
	for _, name := range strategies.Names() {
		s, err := strategies.ByName(name, nil)
		if err != nil || s == nil {
			t.Fatalf("ByName(%q) = %v, %v", name, s, err)
		}
	}
	for name, want := range map[string]leaguesdk.Parity{"always_even": leaguesdk.Even, "always_odd": leaguesdk.Odd} {
		s, _ := strategies.ByName(name, nil)
		if got, _ := s.ChooseParity(context.Background(), player.ParityCall{}); got != want {
			t.Fatalf("%s chose %q", name, got)
		}
	}
	if _, err := strategies.ByName("clairvoyant", nil); err == nil {
		t.Fatal("unknown name accepted")
	}
	// The model strategies are in a package of their own, which the
	// error points to.
	for _, name := range []string{"llm", "llm_chat"} {
		if _, err := strategies.ByName(name, nil); err == nil || !strings.Contains(err.Error(), "player/strategies/llm") {
			t.Errorf("ByName(%q): %v, want an error naming the llm package", name, err)
		}
	}
}

func TestLeaningChoosesEvenAsOftenAsAsked(t *testing.T) {
	for _, p := range []float64{0, 0.3, 1} {
		s := strategies.Leaning(p, nil)
		even := 0
		for range 2000 {
			c, err := s.ChooseParity(context.Background(), player.ParityCall{})
			if err != nil {
				t.Fatal(err)
			}
			if c == player.Even {
				even++
			}
		}
		if got := float64(even) / 2000; got < p-0.05 || got > p+0.05 {
			t.Errorf("Leaning(%.1f) chose even %.3f of the time", p, got)
		}
	}
}
