package llm_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentleague/league/player/strategies/llm"
)

// The cassette answers what it recorded, whatever the server's address;
// it records no failed answer, and a line cut short by a crash is
// dropped when it is opened again.
func TestACassetteRecordsAnswersAndPlaysThemBack(t *testing.T) {
	clearEnv(t)
	model := &standIn{statuses: []int{http.StatusServiceUnavailable}, answer: chatAnswer(`{"parity":"even"}`)}
	path := filepath.Join(t.TempDir(), "answers.jsonl")
	c, err := llm.OpenCassette(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	chat := func(base string, cas *llm.Cassette) *llm.Chat {
		return llm.WithClient(&llm.Chat{BaseURL: base + "/v1", Model: "stand-in", Options: llm.Options{MaxRetries: -1}}, cas.Client()).(*llm.Chat)
	}
	first := chat(serve(t, model), c)
	if _, err := first.ChooseParity(t.Context(), call()); err == nil {
		t.Fatal("the server's 503 was not an error")
	}
	if p, err := first.ChooseParity(t.Context(), call()); err != nil || p != "even" {
		t.Fatalf("got %q, %v", p, err)
	}
	if c.Asked() != 2 || c.Played() != 0 {
		t.Errorf("asked %d, played %d; want 2 and 0", c.Asked(), c.Played())
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	// A crash cut a line short.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(`{"key":"abc","bo`)
	_ = f.Close()

	again, err := llm.OpenCassette(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	other := &standIn{answer: chatAnswer(`{"parity":"odd"}`)}
	second := chat(serve(t, other), again)
	if p, err := second.ChooseParity(t.Context(), call()); err != nil || p != "even" {
		t.Errorf("played back %q, %v; want the recorded even", p, err)
	}
	if again.Asked() != 0 || again.Played() != 1 || len(other.sent()) != 0 {
		t.Errorf("asked %d, played %d, the server was sent %d; want 0, 1, 0", again.Asked(), again.Played(), len(other.sent()))
	}
	// Another question goes to the model, and is recorded after the
	// dropped line.
	c2 := call()
	c2.MatchID = "R2M1"
	if p, err := second.ChooseParity(t.Context(), c2); err != nil || p != "odd" || again.Asked() != 1 {
		t.Errorf("a new question: %q, %v, asked %d", p, err, again.Asked())
	}
	third, err := llm.OpenCassette(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	if p, err := chat(serve(t, &standIn{answer: chatAnswer("even")}), third).ChooseParity(t.Context(), c2); err != nil || p != "odd" || third.Played() != 1 {
		t.Errorf("the answer recorded after the torn line: %q, %v, played %d", p, err, third.Played())
	}
}
