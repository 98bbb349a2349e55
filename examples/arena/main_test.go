package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
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
	for _, want := range []string{"300 matches", "95% interval", "vs random", "Head to head", "history", "always_odd"} {
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
	var report struct {
		Matches   int `json:"matches"`
		Standings []struct {
			Name           string                      `json:"name"`
			PointsPerMatch struct{ Low, High float64 } `json:"points_per_match"`
		} `json:"standings"`
	}
	if err := json.Unmarshal([]byte(js.String()), &report); err != nil || report.Matches != 10 || len(report.Standings) != 2 {
		t.Fatalf("JSON %s: %v", js.String(), err)
	}
	if err := run(context.Background(), []string{"-quiet", "-csv", "-rounds", "10", "random", "history"}, &cs, &stderr); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(cs.String())).ReadAll()
	if err != nil || len(rows) != 3 || rows[0][1] != "entry" || rows[0][len(rows[0])-1] == "" {
		t.Fatalf("CSV %q: %v", cs.String(), err)
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
