package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player/strategies/llm"
)

// clearEnv unsets every variable the model strategies read, so that the
// machine's own do not leak into a test.
func clearEnv(t *testing.T) {
	for _, v := range []string{llm.EnvChatBaseURL, llm.EnvOpenAIBaseURL, llm.EnvOllamaHost, llm.EnvChatModel, llm.EnvChatAPIKey,
		llm.EnvOpenAIAPIKey, llm.EnvGeminiBaseURL, llm.EnvGoogleBaseURL, llm.EnvGeminiModel, llm.EnvGeminiAPIKey,
		llm.EnvGeminiKey, llm.EnvGoogleAPIKey} {
		t.Setenv(v, "")
	}
}

func TestHelpListsTheModelsVariables(t *testing.T) {
	var stderr strings.Builder
	_ = run(context.Background(), []string{"-h"}, &stderr)
	for _, v := range []string{"OPENAI_BASE_URL", "OPENAI_API_KEY", "OLLAMA_HOST", "LEAGUE_CHAT_MODEL", "LEAGUE_LLM_MODEL", "GEMINI_API_KEY",
		"-strategy", "llm_chat", "examples/player"} {
		if !strings.Contains(stderr.String(), v) {
			t.Errorf("-h does not name %s:\n%s", v, stderr.String())
		}
	}
}

func TestAModelWithoutItsModelIsAnErrorNamingTheVariable(t *testing.T) {
	clearEnv(t)
	for strategy, variable := range map[string]string{"llm_chat": "LEAGUE_CHAT_MODEL", "llm": "LEAGUE_LLM_MODEL"} {
		err := run(context.Background(), []string{"-strategy", strategy, "-data", t.TempDir()}, &strings.Builder{})
		if err == nil || !strings.Contains(err.Error(), variable) {
			t.Errorf("-strategy %s: %v, want an error naming %s", strategy, err, variable)
		}
	}
}

// TestTheModelChooses runs the program, configured only by
// OPENAI_BASE_URL and the model's name, against a stand-in chat
// completions server that always says odd: the player serves without
// registering, answers each call with the model's choice, and stops
// cleanly.
func TestTheModelChooses(t *testing.T) {
	clearEnv(t)
	var asked atomic.Int32
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string `json:"model"`
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "stand-in-model" {
			http.Error(w, "not a chat completion of stand-in-model", http.StatusNotFound)
			return
		}
		asked.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": `{"parity":"odd"}`}}}})
	}))
	t.Cleanup(model.Close)
	t.Setenv(llm.EnvOpenAIBaseURL, model.URL+"/v1")
	t.Setenv(llm.EnvChatModel, "stand-in-model")

	// The program's stderr, read line by line: the endpoint it serves on,
	// then, until it ends, whether it fell back.
	r, w := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-port", "0", "-name", "Agent Llama", "-data", t.TempDir(), "-no-register"}, w)
		w.Close()
	}()
	lines := bufio.NewScanner(r)
	serving := regexp.MustCompile(`msg="player serving" .*endpoint=(\S+)`)
	var endpoint string
	for endpoint == "" && lines.Scan() {
		if m := serving.FindStringSubmatch(lines.Text()); m != nil {
			endpoint = m[1]
		}
	}
	if endpoint == "" {
		t.Fatalf("the player does not serve: run = %v", <-done)
	}
	fellBack := make(chan []string, 1)
	go func() {
		var fb []string
		for lines.Scan() {
			if strings.Contains(lines.Text(), "fallback") {
				fb = append(fb, lines.Text())
			}
		}
		fellBack <- fb
	}()
	c := leaguesdk.NewClient(leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{MaxRetries: leaguesdk.NoRetries}})
	defer c.Close()
	const calls = 3
	for i := range calls {
		env := leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityCall, "referee:REF01", leaguesdk.NewToken(), "conv-R1M1", time.Now())
		reply, err := leaguesdk.Call[leaguesdk.ChooseParityResponse](ctx, c, endpoint, &leaguesdk.ChooseParityCall{Envelope: env,
			MatchID: "R1M1", PlayerID: "P09", GameType: leaguesdk.GameEvenOdd, Context: leaguesdk.ParityContext{OpponentID: "P02", RoundID: leaguesdk.RoundID(i + 1)},
			Deadline: leaguesdk.FormatTime(time.Now().Add(10 * time.Second))})
		if err != nil {
			t.Fatal(err)
		}
		if reply.ParityChoice != leaguesdk.Odd {
			t.Fatalf("call %d answered %q; the model says odd every time", i, reply.ParityChoice)
		}
	}
	if n := asked.Load(); n != calls {
		t.Errorf("the model was asked %d times for %d calls", n, calls)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not stop")
	}
	if fb := <-fellBack; len(fb) > 0 {
		t.Errorf("the player fell back:\n%s", strings.Join(fb, "\n"))
	}
}

// TestAModelAnswering404IsNamedWithItsURL runs the program against a
// stand-in server that answers 404 to everything: its first line names the
// model and the server, each fallback's warning carries the 404 with the
// URL called, and its last line says every choice was the fallback's.
func TestAModelAnswering404IsNamedWithItsURL(t *testing.T) {
	clearEnv(t)
	model := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(model.Close)
	t.Setenv(llm.EnvOpenAIBaseURL, model.URL+"/v1")
	t.Setenv(llm.EnvChatModel, "no-such-model")

	r, w := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-port", "0", "-data", t.TempDir(), "-no-register"}, w)
		w.Close()
	}()
	lines := bufio.NewScanner(r)
	serving := regexp.MustCompile(`msg="player serving" .*endpoint=(\S+)`)
	var endpoint string
	var before []string
	for endpoint == "" && lines.Scan() {
		before = append(before, lines.Text())
		if m := serving.FindStringSubmatch(lines.Text()); m != nil {
			endpoint = m[1]
		}
	}
	if endpoint == "" {
		t.Fatalf("the player does not serve: run = %v", <-done)
	}
	rest := make(chan []string, 1)
	go func() {
		var out []string
		for lines.Scan() {
			out = append(out, lines.Text())
		}
		rest <- out
	}()
	c := leaguesdk.NewClient(leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{MaxRetries: leaguesdk.NoRetries}})
	defer c.Close()
	const calls = 2
	for i := range calls {
		env := leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityCall, "referee:REF01", leaguesdk.NewToken(), "conv-R1M1", time.Now())
		if _, err := leaguesdk.Call[leaguesdk.ChooseParityResponse](ctx, c, endpoint, &leaguesdk.ChooseParityCall{Envelope: env,
			MatchID: "R1M1", PlayerID: "P09", GameType: leaguesdk.GameEvenOdd, Context: leaguesdk.ParityContext{OpponentID: "P02", RoundID: leaguesdk.RoundID(i + 1)},
			Deadline: leaguesdk.FormatTime(time.Now().Add(10 * time.Second))}); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not stop")
	}
	after := <-rest
	all := strings.Join(append(before, after...), "\n")

	url := model.URL + "/v1/chat/completions"
	var starting string
	for _, line := range before {
		if strings.Contains(line, `msg=starting`) {
			starting = line
		}
	}
	if !strings.Contains(starting, "model=no-such-model") || !strings.Contains(starting, "server="+url) {
		t.Errorf("the start line does not name the model and its server %s: %q", url, starting)
	}
	warned := 0
	for _, line := range after {
		if strings.Contains(line, "answered with the fallback") {
			warned++
			if !strings.Contains(line, "404 Not Found") || !strings.Contains(line, url) {
				t.Errorf("the fallback's warning lacks the 404 or the URL %s: %s", url, line)
			}
		}
	}
	if warned != calls {
		t.Errorf("%d fallback warnings for %d calls:\n%s", warned, calls, all)
	}
	if len(after) == 0 {
		t.Fatal("nothing logged after the calls")
	}
	last := after[len(after)-1]
	if !strings.Contains(last, "every choice was the fallback's") || !strings.Contains(last, "choices=2") || !strings.Contains(last, "404 Not Found") {
		t.Errorf("the last line does not say every choice was the fallback's: %q\n%s", last, all)
	}
}
