package strategies

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/agentleague/league/player"
)

// Names lists the strategies [ByName] knows, in the order the example
// program documents them.
func Names() []string {
	return []string{"random", "always_even", "always_odd", "history"}
}

// ByName returns the strategy of the given name: "random", "always_even",
// "always_odd" or "history" (an [OpponentModel] with the default prior). r
// is the random source of the strategies that need one (crypto/rand when
// nil). The strategies that ask a language model, "llm" and "llm_chat", are
// in package github.com/agentleague/league/player/strategies/llm, whose
// ByName knows these names too.
func ByName(name string, r io.Reader) (player.Strategy, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "random":
		return player.Random(r), nil
	case "always_even", "even":
		return Always(player.Even), nil
	case "always_odd", "odd":
		return Always(player.Odd), nil
	case "history":
		return NewOpponentModel(0, r), nil
	case "llm", "llm_chat":
		return nil, fmt.Errorf("strategies: %q asks a language model: it is in package github.com/agentleague/league/player/strategies/llm (llm.ByName)", name)
	}
	return nil, fmt.Errorf("strategies: unknown strategy %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Always returns the strategy that always answers p. It is predictable on
// purpose: a test opponent, and the easiest prey of an [OpponentModel].
func Always(p player.Parity) player.Strategy {
	return player.StrategyFunc(func(context.Context, player.ParityCall) (player.Parity, error) {
		return p, nil
	})
}

// Leaning returns the strategy that chooses even with probability pEven
// (clamped to 0..1) and odd otherwise, drawing from r (crypto/rand when
// nil): an opponent with a habit, for an arena's pool.
func Leaning(pEven float64, r io.Reader) player.Strategy {
	if r == nil {
		r = rand.Reader
	}
	pEven = min(1, max(0, pEven))
	var mu sync.Mutex
	return player.StrategyFunc(func(context.Context, player.ParityCall) (player.Parity, error) {
		var b [8]byte
		mu.Lock()
		_, err := io.ReadFull(r, b[:])
		mu.Unlock()
		if err != nil {
			return "", err
		}
		if float64(binary.LittleEndian.Uint64(b[:])>>11)/(1<<53) < pEven {
			return player.Even, nil
		}
		return player.Odd, nil
	})
}
