package arena_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentleague/league/arena"
)

func writePool(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "field.json")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func readPool(t *testing.T, text string) *arena.Pool {
	t.Helper()
	p, err := arena.ReadPool(writePool(t, text))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const poolText = `{"name": "field", "seed": 7, "opponents": [
	{"strategy": "history", "params": {"prior": 4}, "seed": 11},
	{"strategy": "leaning", "params": {"p_even": 0.7}, "seed": 12},
	{"strategy": "always_odd"}]}`

func TestAPoolHashesItsContentNotItsLayout(t *testing.T) {
	p := readPool(t, poolText)
	same := readPool(t, `{"opponents":[{"seed":11,"params":{"prior":4},"strategy":"history"},
		{"params":{"p_even":0.70},"strategy":"leaning","seed":12},{"strategy":"always_odd"}],"seed":7,"name":"field"}`)
	other := readPool(t, strings.Replace(poolText, `"seed": 12`, `"seed": 13`, 1))
	if p.Hash() != same.Hash() || len(p.Hash()) != 64 {
		t.Errorf("one pool, two hashes: %s and %s", p.Hash(), same.Hash())
	}
	if p.Hash() == other.Hash() {
		t.Error("an opponent's seed changed and the hash did not")
	}
	if p.Name != "field" || readPool(t, `{"opponents":[{"strategy":"random"}]}`).Name != "field" {
		t.Error("a pool without a name is not named after its file")
	}
}

func TestABadPoolIsRefusedWithItsProblems(t *testing.T) {
	for text, want := range map[string]string{
		`{"opponents": []}`: "no opponents",
		`{"opponents": [{"strategy": "random", "url": "http://127.0.0.1:1/mcp"}]}`: "exactly one of strategy, url and league",
		`{"opponents": [{"strategy": "history", "params": {"p_even": 1}}]}`:        `history takes no parameter "p_even"`,
		`{"opponents": [{"strategy": "random"}], "rounds": 3}`:                     `unknown field "rounds"`,
	} {
		_, err := arena.ReadPool(writePool(t, text))
		var pe *arena.PoolError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want a PoolError saying %q", text, err, want)
		}
	}
	if _, err := readPool(t, `{"opponents": [{"strategy": "clairvoyant"}]}`).Entries(nil); err == nil || !strings.Contains(err.Error(), "clairvoyant") {
		t.Errorf("an unknown strategy: %v", err)
	}
}

// A verdict against a pinned pool carries its hash and seed, and reruns
// to the same verdict; the opponents' own seeds are part of it.
func TestAVerdictAgainstAPinnedPoolRerunsExactly(t *testing.T) {
	p := readPool(t, poolText)
	verdict := func(p *arena.Pool) string {
		entries, err := p.Entries(nil)
		if err != nil {
			t.Fatal(err)
		}
		v := compare(t, arena.CompareConfig{Candidate: arena.Ready("history"), Baseline: arena.Ready("random"), Pool: entries,
			PoolRef: p.Ref(), Seed: p.Seed, MaxMatches: 600})
		if v.Pool == nil || v.Pool.SHA256 != p.Hash() || v.Seed != 7 {
			t.Errorf("verdict %+v does not carry the pool's hash and seed", v)
		}
		v.Stable()
		var b strings.Builder
		if err := v.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	first, again := verdict(p), verdict(p)
	if first != again {
		t.Errorf("two runs against one pinned pool differ:\n%s\n%s", first, again)
	}
	if other := verdict(readPool(t, strings.Replace(poolText, `"seed": 12`, `"seed": 13`, 1))); other == first {
		t.Error("another seed of an opponent gave the same verdict")
	}
}
