package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/agentleague/league/arena"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/player/strategies"
)

// TestTheTableHasIntervalsAndTheProgressHasNoControlCharactersInAFile
// runs the arena with its stderr a file, as "2> err.txt" or a CI log make
// it: the progress is plain lines, the last one the final count, without
// a carriage return or an escape sequence.
func TestTheTableHasIntervalsAndTheProgressHasNoControlCharactersInAFile(t *testing.T) {
	var stdout strings.Builder
	f, err := os.Create(filepath.Join(t.TempDir(), "err.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := run(context.Background(), []string{"-rounds", "50", "random", "history", "always_even", "always_odd"}, &stdout, f); err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	for _, want := range []string{"300 matches", "realised/match", "expected/match", "95% interval", "differ", "vs random",
		"Head to head: expected points", "history", "always_odd", "Expected points are"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	stderr := string(b)
	if i := strings.IndexFunc(stderr, func(r rune) bool { return r != '\n' && unicode.IsControl(r) }); i >= 0 {
		t.Errorf("the progress written to a file holds the control character %q: %q", stderr[i], stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if !strings.HasSuffix(stderr, "\n") || !strings.HasPrefix(lines[len(lines)-1], "arena: 300/300 matches, ") {
		t.Errorf("progress %q: want the final count on a line of its own, last", stderr)
	}
}

// On a terminal the progress is one line rewritten in place, and cleared
// at the end.
func TestTheProgressOnATerminalIsRewrittenAndCleared(t *testing.T) {
	var w strings.Builder
	p := &progressLine{w: &w, terminal: true}
	p.show(arena.Progress{Played: 10, Total: 20, Elapsed: time.Second})
	p.show(arena.Progress{Played: 20, Total: 20, Elapsed: 2 * time.Second})
	p.clear()
	if got, want := w.String(), "\r10/20 matches  10 matches/s  \r20/20 matches  10 matches/s  \r\033[K"; got != want {
		t.Errorf("progress %q, want %q", got, want)
	}
	if isTerminal(&w) {
		t.Error("a strings.Builder is taken for a terminal")
	}
}

func TestJSONAndCSV(t *testing.T) {
	var js, cs, stderr strings.Builder
	if err := run(context.Background(), []string{"-quiet", "-json", "-rounds", "10", "random", "history"}, &js, &stderr); err != nil {
		t.Fatal(err)
	}
	type estimate struct{ Mean, Low, High float64 }
	var report struct {
		Matches   int `json:"matches"`
		Standings []struct {
			Name           string    `json:"name"`
			PointsPerMatch estimate  `json:"points_per_match"`
			Expected       *estimate `json:"expected_points_per_match"`
			DifferRate     *estimate `json:"differ_rate"`
			Against        []struct {
				Expected *estimate `json:"expected_points_per_match"`
			} `json:"against"`
		} `json:"standings"`
	}
	if err := json.Unmarshal([]byte(js.String()), &report); err != nil || report.Matches != 10 || len(report.Standings) != 2 {
		t.Fatalf("JSON %s: %v", js.String(), err)
	}
	for _, s := range report.Standings {
		if s.Expected == nil || s.DifferRate == nil || s.Expected.Low > s.Expected.Mean || s.Expected.Mean > s.Expected.High ||
			s.PointsPerMatch.Low > s.PointsPerMatch.Mean || len(s.Against) != 1 || s.Against[0].Expected == nil {
			t.Errorf("JSON standing %+v: want realised and expected points with intervals, a differ rate, expected head to head", s)
		}
	}
	if err := run(context.Background(), []string{"-quiet", "-csv", "-rounds", "10", "random", "history"}, &cs, &stderr); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(cs.String())).ReadAll()
	if err != nil || len(rows) != 3 || rows[0][1] != "entry" || rows[0][len(rows[0])-1] == "" {
		t.Fatalf("CSV %q: %v", cs.String(), err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, h := range []string{"points_per_match", "ci_low", "expected_points_per_match", "expected_ci_low", "expected_ci_high", "differ_rate", "differ_ci_high"} {
		k, ok := col[h]
		if !ok {
			t.Errorf("CSV lacks the column %s: %q", h, rows[0])
			continue
		}
		for _, r := range rows[1:] {
			if r[k] == "" {
				t.Errorf("CSV row %q: no %s", r, h)
			}
		}
	}
	if stderr.Len() != 0 {
		t.Errorf("-quiet printed %q", stderr.String())
	}
}

func TestAPlayerAtAURLJoins(t *testing.T) {
	p, err := player.New(player.Config{Name: "Agent Remote", League: "http://127.0.0.1/mcp", Strategy: strategies.NewOpponentModel(0, nil), NoAgentLog: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	srv := httptest.NewServer(p.Handler())
	defer srv.Close()
	var stdout, stderr strings.Builder
	if err := run(context.Background(), []string{"-quiet", "-rounds", "10", "-player", srv.URL + "/mcp", "random", "always_even"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), srv.URL+"/mcp") || !strings.Contains(stdout.String(), "1 over HTTP") {
		t.Errorf("the table does not show the player at the URL:\n%s", stdout.String())
	}
	if n := p.History().Len(); n != 20 {
		t.Errorf("the player at the URL recorded %d matches, want 20", n)
	}
}

// A player at a URL given as name=URL is named so in the report.
func TestAPlayerAtAURLTakesTheNameGiven(t *testing.T) {
	p, err := player.New(player.Config{Name: "Agent Remote", League: "http://127.0.0.1/mcp", Strategy: strategies.NewOpponentModel(0, nil), NoAgentLog: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	srv := httptest.NewServer(p.Handler())
	defer srv.Close()
	var stdout, stderr strings.Builder
	if err := run(context.Background(), []string{"-quiet", "-json", "-rounds", "5", "-player", "mine=" + srv.URL + "/mcp", "random", "always_even"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	var report struct {
		Standings []struct{ Name, URL string } `json:"standings"`
	}
	if err := json.Unmarshal([]byte(stdout.String()), &report); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range report.Standings {
		if s.URL == srv.URL+"/mcp" {
			found = true
			if s.Name != "mine" {
				t.Errorf("the player at %s is named %q, want mine", s.URL, s.Name)
			}
		}
	}
	if !found {
		t.Errorf("no standing of the player at the URL: %+v", report.Standings)
	}
	if n := p.History().Len(); n != 10 {
		t.Errorf("the player at the URL recorded %d matches, want 10", n)
	}
}

func TestAnUnknownStrategyIsAnError(t *testing.T) {
	var stdout, stderr strings.Builder
	if err := run(context.Background(), []string{"random", "clairvoyant"}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "clairvoyant") {
		t.Fatalf("got %v, want an error naming the strategy", err)
	}
}

func TestConflictingOutputFlagsAreRefused(t *testing.T) {
	var stdout, stderr strings.Builder
	err := run(context.Background(), []string{"-json", "-csv", "random", "history"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "-json and -csv") {
		t.Fatalf("got %v, want an error naming both flags", err)
	}
	if stdout.Len() != 0 {
		t.Errorf("printed a report anyway: %q", stdout.String())
	}
}

// A model strategy whose server answers 404 to everything played on its
// fallback: the report shows its fallbacks in every format, stderr warns,
// and -strict makes it an error.
func TestAModelThatFellBackIsFlagged(t *testing.T) {
	for _, v := range []string{"LEAGUE_CHAT_BASE_URL", "OLLAMA_HOST", "OPENAI_API_KEY", "LEAGUE_CHAT_API_KEY"} {
		t.Setenv(v, "")
	}
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()
	t.Setenv("OPENAI_BASE_URL", notFound.URL+"/v1")
	t.Setenv("LEAGUE_CHAT_MODEL", "misaddressed")
	args := []string{"-quiet", "-rounds", "10", "llm_chat", "history"}

	var table, stderr strings.Builder
	if err := run(context.Background(), args, &table, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "fallbacks") || !strings.Contains(table.String(), "10 (100 %) !") {
		t.Errorf("the table does not show the fallbacks:\n%s", table.String())
	}
	if !strings.Contains(stderr.String(), "warning: llm_chat fell back on 10 of its 10 moves") {
		t.Errorf("stderr %q: want a warning", stderr.String())
	}
	// Why: the 404 and the URL called, in the table's legend and in the
	// warning of every format.
	url := notFound.URL + "/v1/chat/completions"
	why := func(s string) bool { return strings.Contains(s, "404 Not Found") && strings.Contains(s, url) }
	if _, legend, _ := strings.Cut(table.String(), "Intervals are"); !why(legend) {
		t.Errorf("the table's legend does not say why llm_chat fell back:\n%s", legend)
	}
	for _, format := range []string{"-json", "-csv"} {
		var out, errs strings.Builder
		if err := run(context.Background(), append([]string{format}, args...), &out, &errs); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(errs.String(), "warning: llm_chat fell back") || !why(errs.String()) {
			t.Errorf("%s: the warning on stderr does not say why: %q", format, errs.String())
		}
	}

	var js strings.Builder
	if err := run(context.Background(), append([]string{"-json"}, args...), &js, &stderr); err != nil {
		t.Fatal(err)
	}
	var report struct {
		Standings []struct {
			Name      string `json:"name"`
			Moves     int    `json:"moves"`
			Fallbacks int    `json:"fallbacks"`
			Flagged   bool   `json:"flagged"`
		} `json:"standings"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(js.String()), &report); err != nil || len(report.Warnings) != 1 || !why(report.Warnings[0]) {
		t.Fatalf("JSON %s: %v", js.String(), err)
	}
	for _, s := range report.Standings {
		if want := s.Name == "llm_chat"; s.Flagged != want || (s.Fallbacks == 10) != want || s.Moves != 10 {
			t.Errorf("JSON standing %+v", s)
		}
	}

	var cs strings.Builder
	if err := run(context.Background(), append([]string{"-csv"}, args...), &cs, &stderr); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(cs.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, r := range rows[1:] {
		if r[col["entry"]] == "llm_chat" && (r[col["fallbacks"]] != "10" || r[col["moves"]] != "10" || r[col["flagged"]] != "true" || !why(r[col["fallback_cause"]])) {
			t.Errorf("CSV row %q", r)
		}
	}

	stderr.Reset()
	err = run(context.Background(), append([]string{"-strict"}, args...), &table, &stderr)
	if err == nil || !strings.Contains(err.Error(), "-strict") || !strings.Contains(stderr.String(), "warning:") {
		t.Errorf("-strict: %v, stderr %q", err, stderr.String())
	}
}

func TestHelpListsTheModelsVariables(t *testing.T) {
	var stdout, stderr strings.Builder
	_ = run(context.Background(), []string{"-h"}, &stdout, &stderr)
	for _, v := range []string{"OPENAI_BASE_URL", "OPENAI_API_KEY", "OLLAMA_HOST", "LEAGUE_CHAT_MODEL", "GEMINI_API_KEY", "-strict", "llm_chat"} {
		if !strings.Contains(stderr.String(), v) {
			t.Errorf("-h does not name %s", v)
		}
	}
}

func TestACandidateIsComparedWithABaselineAgainstAPool(t *testing.T) {
	var stdout, stderr strings.Builder
	if err := run(context.Background(), []string{"-quiet", "-candidate", "history", "-baseline", "random", "always_even", "always_odd", "random"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(stdout.String(), "\n", 2)[0]
	if !strings.HasPrefix(first, "history vs random against 3 opponents: +0.") || !strings.HasSuffix(first, "matches each: better (α = β = 0.05, δ = 0.01)") {
		t.Errorf("verdict line %q", first)
	}
	var js strings.Builder
	if err := run(context.Background(), []string{"-quiet", "-json", "-delta", "0.02", "-candidate", "random", "-baseline", "history", "always_even", "always_odd"}, &js, &stderr); err != nil {
		t.Fatal(err)
	}
	var v struct {
		Result    string   `json:"result"`
		Measure   string   `json:"measure"`
		Delta     float64  `json:"delta"`
		Matches   int      `json:"matches"`
		Opponents []string `json:"opponents"`
	}
	if err := json.Unmarshal([]byte(js.String()), &v); err != nil || v.Result != "not better" || v.Measure != "expected_points" ||
		v.Delta != 0.02 || v.Matches == 0 || len(v.Opponents) != 2 {
		t.Errorf("JSON verdict %s: %+v, %v", js.String(), v, err)
	}
}

func TestAComparisonWithoutAPoolIsRefused(t *testing.T) {
	var stdout, stderr strings.Builder
	err := run(context.Background(), []string{"-candidate", "history", "-baseline", "random"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "needs a pool") || !strings.Contains(err.Error(), "head-to-head") {
		t.Fatalf("got %v, want the refusal with its reason", err)
	}
	if err := run(context.Background(), []string{"-candidate", "history", "random"}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "-baseline") {
		t.Errorf("a candidate without a baseline: %v", err)
	}
}

func TestAPinnedPoolGoesIntoTheReportWithItsHashAndSeed(t *testing.T) {
	path := t.TempDir() + "/field.json"
	if err := os.WriteFile(path, []byte(`{"seed": 7, "opponents": [{"strategy": "leaning", "params": {"p_even": 0.8}, "seed": 3}, {"strategy": "always_odd"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var js, stderr strings.Builder
	if err := run(context.Background(), []string{"-quiet", "-json", "-rounds", "20", "-pool", path, "history"}, &js, &stderr); err != nil {
		t.Fatal(err)
	}
	var report struct {
		Seed uint64 `json:"seed"`
		Pool struct {
			Name   string `json:"name"`
			SHA256 string `json:"sha256"`
		} `json:"pool"`
		Standings []struct{ Name string } `json:"standings"`
	}
	if err := json.Unmarshal([]byte(js.String()), &report); err != nil || report.Seed != 7 || report.Pool.Name != "field" ||
		len(report.Pool.SHA256) != 64 || len(report.Standings) != 3 {
		t.Errorf("report %s: %+v, %v", js.String(), report, err)
	}
	var text strings.Builder
	if err := run(context.Background(), []string{"-quiet", "-pool", path, "-candidate", "history", "-baseline", "random"}, &text, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "pinned pool field, sha256 "+report.Pool.SHA256) || !strings.Contains(text.String(), "seed 7") {
		t.Errorf("the verdict does not carry the pool:\n%s", text.String())
	}
}

func TestAStrategyReplaysASeatOfARecordedLeague(t *testing.T) {
	root := t.TempDir()
	var stdout, stderr strings.Builder
	if _, err := arena.Run(context.Background(), arena.Config{Rounds: 1, League: true, DataRoot: root, MoveTimeout: 5 * time.Second,
		Entries: []arena.Entry{arena.Ready("always_even"), arena.Ready("always_odd"), arena.Ready("random"), arena.Ready("history")}}); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), []string{"-replay", root + "/league_1", "-seat", "P02", "always_odd"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(stdout.String(), "\n", 2)[0]
	if !regexp.MustCompile(`^with always_odd you would have had (\d+) points, rank (\d) of 4 \(the seat had (\d+), rank (\d)\)$`).MatchString(first) ||
		!strings.Contains(stdout.String(), "0 with another result") {
		t.Errorf("replay:\n%s", stdout.String())
	}
	if err := run(context.Background(), []string{"-replay", root + "/league_1", "history"}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "-seat") {
		t.Errorf("a replay without a seat: %v", err)
	}
}

// A model strategy against a stand-in model server, with a cassette: the
// first run asks the model and records its answers, the second asks it
// nothing and prints the same report, tokens included.
func TestACassetteReplaysTheModelsAnswers(t *testing.T) {
	for _, v := range []string{"LEAGUE_CHAT_BASE_URL", "OLLAMA_HOST", "OPENAI_API_KEY", "LEAGUE_CHAT_API_KEY"} {
		t.Setenv(v, "")
	}
	var requests atomic.Int64
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		body, _ := io.ReadAll(r.Body)
		// An answer that follows the question: odd when the prompt
		// counts more even choices than odd ones.
		answer := "even"
		if m := regexp.MustCompile(`chose even (\d+) times and odd (\d+) times`).FindSubmatch(body); m != nil && atoi(m[1]) > atoi(m[2]) {
			answer = "odd"
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "stand-in",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": answer}}},
			"usage":   map[string]any{"prompt_tokens": 120, "completion_tokens": 2, "total_tokens": 122}})
	}))
	defer model.Close()
	t.Setenv("OPENAI_BASE_URL", model.URL+"/v1")
	t.Setenv("LEAGUE_CHAT_MODEL", "stand-in")
	cassette := filepath.Join(t.TempDir(), "answers.jsonl")
	args := []string{"-quiet", "-stable", "-cassette", cassette, "-rounds", "15", "llm_chat", "always_even", "history"}
	var first, second, stderr strings.Builder
	if err := run(context.Background(), args, &first, &stderr); err != nil {
		t.Fatal(err)
	}
	asked := requests.Load()
	if asked != 30 {
		t.Fatalf("the first run asked the model %d times, want 30 (one a move)", asked)
	}
	if !strings.Contains(first.String(), "tokens in/out") || !strings.Contains(first.String(), "3600/60") {
		t.Errorf("the report does not give the model's tokens:\n%s", first.String())
	}
	if err := run(context.Background(), args, &second, &stderr); err != nil {
		t.Fatal(err)
	}
	if n := requests.Load() - asked; n != 0 {
		t.Errorf("the second run asked the model %d times, want 0", n)
	}
	if first.String() != second.String() {
		t.Errorf("the reports differ:\n%s\n%s", first.String(), second.String())
	}
}

func atoi(b []byte) int { n, _ := strconv.Atoi(string(b)); return n }
