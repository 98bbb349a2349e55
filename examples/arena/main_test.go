package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentleague/league/player"
	"github.com/agentleague/league/player/strategies"
)

func TestTheTableHasIntervalsAndTheProgressLineIsCleared(t *testing.T) {
	var stdout, stderr strings.Builder
	if err := run(context.Background(), []string{"-rounds", "50", "random", "history", "always_even", "always_odd"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	for _, want := range []string{"300 matches", "95% interval", "vs random", "Head to head", "history", "always_odd"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(stderr.String(), "300/300 matches") || !strings.HasSuffix(stderr.String(), "\r\033[K") {
		t.Errorf("progress line %q: want the last count, then the line cleared", stderr.String())
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

func TestAnUnknownStrategyIsAnError(t *testing.T) {
	var stdout, stderr strings.Builder
	if err := run(context.Background(), []string{"random", "clairvoyant"}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "clairvoyant") {
		t.Fatalf("got %v, want an error naming the strategy", err)
	}
}
