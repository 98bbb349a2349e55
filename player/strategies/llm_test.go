package strategies_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/player/strategies"
)

// fakeLLM is a local stand-in for a generate-content API.
type fakeLLM struct {
	mu      sync.Mutex
	reply   string // the model's text; raw replaces the whole body
	raw     string
	status  int
	delay   time.Duration
	prompts []string
	paths   []string
	keys    []string
}

func (f *fakeLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Contents []struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Contents) != 1 || len(req.Contents[0].Parts) != 1 {
		http.Error(w, "bad request shape", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.prompts = append(f.prompts, req.Contents[0].Parts[0].Text)
	f.paths = append(f.paths, r.URL.Path)
	f.keys = append(f.keys, r.Header.Get("x-goog-api-key"))
	reply, raw, status, delay := f.reply, f.raw, f.status, f.delay
	f.mu.Unlock()
	if canned(w, r, status, raw, delay) {
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"candidates": []any{map[string]any{"content": map[string]any{"parts": []any{map[string]string{"text": reply}}}}},
	})
}

// canned waits delay (less when the request ends first), writes status
// when set, and raw when set; it reports whether the answer is written
// (raw, or the request ended), leaving the stand-in's own answer to write
// otherwise.
func canned(w http.ResponseWriter, r *http.Request, status int, raw string, delay time.Duration) bool {
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return true
		}
	}
	if status != 0 {
		w.WriteHeader(status)
	}
	if raw != "" {
		_, _ = w.Write([]byte(raw))
		return true
	}
	return false
}

func newFake(t *testing.T, f *fakeLLM) *strategies.LLM {
	t.Helper()
	ts := httptest.NewServer(f)
	t.Cleanup(ts.Close)
	return &strategies.LLM{Endpoint: ts.URL + "/v1beta/models/{model}:generateContent", Model: "test-model", APIKey: "secret"}
}

func TestLLMStrategy(t *testing.T) {
	history := player.NewHistory(
		player.MatchRecord{MatchID: "R1M1", OpponentID: "P02", Result: player.Win, OpponentChoice: leaguesdk.Even},
		player.MatchRecord{MatchID: "R2M1", OpponentID: "P03", Result: player.Draw, OpponentChoice: leaguesdk.Odd})
	call := player.ParityCall{MatchID: "R3M1", OpponentID: "P02", History: history}
	tests := []struct {
		name    string
		fake    *fakeLLM
		want    leaguesdk.Parity
		wantErr bool
	}{
		{"one word", &fakeLLM{reply: "odd"}, leaguesdk.Odd, false},
		{"sentence, any case", &fakeLLM{reply: "I would pick EVEN here."}, leaguesdk.Even, false},
		{"first word wins", &fakeLLM{reply: "Odd, not even."}, leaguesdk.Odd, false},
		{"no parity word", &fakeLLM{reply: "uneven oddly"}, "", true},
		{"garbage body", &fakeLLM{raw: "<html>oops"}, "", true},
		{"no candidates", &fakeLLM{raw: `{"candidates":[]}`}, "", true},
		{"server error", &fakeLLM{status: http.StatusInternalServerError, raw: `{"error":"overloaded"}`}, "", true},
		{"slow", &fakeLLM{reply: "even", delay: 5 * time.Second}, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.fake
			l := newFake(t, f)
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			start := time.Now()
			got, err := l.ChooseParity(ctx, call)
			if took := time.Since(start); took > 2*time.Second {
				t.Fatalf("took %v: the context does not bound the call", took)
			}
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("ChooseParity = %q, %v; want %q (error %v)", got, err, tc.want, tc.wantErr)
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if len(f.paths) != 1 || f.paths[0] != "/v1beta/models/test-model:generateContent" || f.keys[0] != "secret" {
				t.Fatalf("request path %v, key %v", f.paths, f.keys)
			}
			if p := f.prompts[0]; !strings.Contains(p, "P02") || !strings.Contains(p, "even 1 times and odd 0 times") {
				t.Fatalf("prompt does not describe the opponent:\n%s", p)
			}
		})
	}
}

func TestLLMFromEnv(t *testing.T) {
	t.Setenv(strategies.EnvLLMEndpoint, "")
	t.Setenv(strategies.EnvLLMModel, "")
	t.Setenv(strategies.EnvLLMAPIKey, "")
	if _, err := strategies.LLMFromEnv(); err == nil || !strings.Contains(err.Error(), strategies.EnvLLMModel) ||
		!strings.Contains(err.Error(), strategies.EnvLLMAPIKey) {
		t.Fatalf("LLMFromEnv without configuration = %v", err)
	}
	t.Setenv(strategies.EnvLLMModel, "m")
	t.Setenv(strategies.EnvLLMAPIKey, "k")
	l, err := strategies.LLMFromEnv()
	if err != nil || l.Endpoint != strategies.DefaultLLMEndpoint || l.Model != "m" || l.APIKey != "k" {
		t.Fatalf("LLMFromEnv = %+v, %v", l, err)
	}
}

// TestLLMFailureFallsBackInAgent: an agent whose model (either API)
// rambles, stalls or fails still answers a valid choice before the
// deadline, with its fallback.
func TestLLMFailureFallsBackInAgent(t *testing.T) {
	models := []player.Strategy{newFake(t, &fakeLLM{reply: "I cannot decide"}), newFake(t, &fakeLLM{reply: "even", delay: 10 * time.Second}),
		newChat(t, &fakeChat{content: "I cannot decide"}, ""), newChat(t, &fakeChat{content: "even", delay: 10 * time.Second}, ""),
		newChat(t, &fakeChat{status: http.StatusInternalServerError, raw: `{"error":{"message":"boom","type":"server_error","code":null}}`}, "")}
	for _, l := range models {
		a, err := player.New(player.Config{Name: "LLM Player", League: "http://127.0.0.1:1/mcp", Strategy: l,
			Fallback: strategies.Always(leaguesdk.Odd)})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(a.Handler())
		c := leaguesdk.NewClient(leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{MaxRetries: leaguesdk.NoRetries}})
		deadline := 800 * time.Millisecond
		pc := &leaguesdk.ChooseParityCall{
			Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityCall, "referee:REF01", "tok_referee0000000000", "", time.Now()),
			MatchID:  "R1M1", PlayerID: "P01", GameType: leaguesdk.GameEvenOdd, Context: leaguesdk.ParityContext{OpponentID: "P02"},
			Deadline: time.Now().Add(deadline).UTC().Format(time.RFC3339Nano),
		}
		start := time.Now()
		var resp leaguesdk.ChooseParityResponse
		err = c.Call(context.Background(), ts.URL+"/mcp", leaguesdk.MethodChooseParity, pc, &resp)
		took := time.Since(start)
		c.Close()
		ts.Close()
		if err != nil || resp.ParityChoice != leaguesdk.Odd || took >= deadline {
			t.Fatalf("reply %q, %v after %v; want the fallback's odd before %v", resp.ParityChoice, err, took, deadline)
		}
	}
}
