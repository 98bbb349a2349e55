package arena

import (
	"sync"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/rules"
)

// expecter scores matches by their expected points: the points the
// players' choices were worth on average over every number the referee
// could have drawn, for rules whose only chance is that number
// ([rules.DrawRules]). It keeps the expectation of each pair of choices
// it has seen; the expectation depends on the choices by role only.
type expecter struct {
	draw rules.DrawRules
	mu   sync.Mutex
	seen map[[2]string][2]float64
}

// newExpecter returns the expecter of rules, nil when the rules draw
// more than a number (or nothing): their matches have realised points only.
func newExpecter(r rules.Rules) *expecter {
	d, ok := r.(rules.DrawRules)
	if !ok || d.Numbers() < 1 {
		return nil
	}
	return &expecter{draw: d, seen: map[[2]string][2]float64{}}
}

// expected returns the points PLAYER_A and PLAYER_B (ids) could expect
// from choices, before the draw.
func (e *expecter) expected(ids [2]string, choices map[string]string) ([2]float64, error) {
	key := [2]string{choices[ids[0]], choices[ids[1]]}
	e.mu.Lock()
	v, ok := e.seen[key]
	e.mu.Unlock()
	if ok {
		return v, nil
	}
	n := e.draw.Numbers()
	var sum [2]int
	for k := 1; k <= n; k++ {
		o, err := e.draw.OutcomeFor(ids, choices, k)
		if err != nil {
			return v, err
		}
		for i := range 2 {
			sum[i] += outcomeResult(o, ids[i]).Points()
		}
	}
	v = [2]float64{float64(sum[0]) / float64(n), float64(sum[1]) / float64(n)}
	e.mu.Lock()
	e.seen[key] = v
	e.mu.Unlock()
	return v, nil
}

// outcomeResult is what the rules' outcome is for player id.
func outcomeResult(o rules.Outcome, id string) player.Result {
	switch {
	case o.Status == leaguesdk.ResultDraw:
		return player.Draw
	case o.Winner == id:
		return player.Win
	}
	return player.Loss
}
