package strategies_test

import (
	"context"
	"encoding/json"
	"errors"
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

// chatRequest is a chat completions request as the stand-in reads it.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	Temperature *float64 `json:"temperature"`
	Stream      *bool    `json:"stream"`
}

// fakeChat is a local stand-in for a chat completions API (OpenAI's shape,
// as Ollama and llama.cpp's server speak it).
type fakeChat struct {
	mu       sync.Mutex
	content  any    // choices[0].message.content; raw replaces the whole body
	raw      string // the whole body
	status   int
	delay    time.Duration
	requests []chatRequest
	paths    []string
	auth     []string
	types    []string
}

func (f *fakeChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"message":"bad request","type":"invalid_request_error","code":null}}`))
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.paths = append(f.paths, r.URL.Path)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.types = append(f.types, r.Header.Get("Content-Type"))
	content, raw, status, delay := f.content, f.raw, f.status, f.delay
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if canned(w, r, status, raw, delay) {
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
	})
}

func newChat(t *testing.T, f *fakeChat, key string) *strategies.Chat {
	t.Helper()
	ts := httptest.NewServer(f)
	t.Cleanup(ts.Close)
	return &strategies.Chat{BaseURL: ts.URL + "/v1/", Model: "llama3.2", APIKey: key}
}

func TestChatSendsTheChatCompletionsRequest(t *testing.T) {
	for _, key := range []string{"sk-secret", ""} {
		f := &fakeChat{content: "odd"}
		c := newChat(t, f, key)
		h := player.NewHistory(player.MatchRecord{MatchID: "R1M1", OpponentID: "P02", OpponentChoice: leaguesdk.Even, Result: player.Win})
		got, err := c.ChooseParity(context.Background(), player.ParityCall{MatchID: "R2M1", OpponentID: "P02", History: h})
		if err != nil || got != leaguesdk.Odd {
			t.Fatalf("ChooseParity = %q, %v; want odd", got, err)
		}
		f.mu.Lock()
		req, path, auth, ctype := f.requests[0], f.paths[0], f.auth[0], f.types[0]
		f.mu.Unlock()
		wantAuth := ""
		if key != "" {
			wantAuth = "Bearer " + key
		}
		if path != "/v1/chat/completions" || auth != wantAuth || ctype != "application/json" {
			t.Errorf("POST %s with Authorization %q and Content-Type %q; want /v1/chat/completions, %q, application/json", path, auth, ctype, wantAuth)
		}
		if req.Model != "llama3.2" || len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Messages[1].Role != "user" ||
			req.Temperature == nil || *req.Temperature != 0 || req.Stream == nil || *req.Stream {
			t.Errorf("request %+v: want the model, a system and a user message, temperature 0, stream false", req)
		}
		if u := req.Messages[1].Content; !strings.Contains(u, "P02") || !strings.Contains(u, "even 1 times and odd 0 times") {
			t.Errorf("the user message does not describe the opponent:\n%s", u)
		}
	}
}

func TestChatReadsTheAnswer(t *testing.T) {
	tests := []struct {
		name string
		fake *fakeChat
		want leaguesdk.Parity
	}{
		{"one word", &fakeChat{content: "even"}, leaguesdk.Even},
		{"a sentence, any case", &fakeChat{content: "I choose ODD."}, leaguesdk.Odd},
		{"content in parts", &fakeChat{content: []any{map[string]string{"type": "text", "text": "odd"}}}, leaguesdk.Odd},
		{"reasoning left out", &fakeChat{content: "<think>Even is tempting, but the opponent chose even.</think>\nodd"}, leaguesdk.Odd},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := newChat(t, tc.fake, "").ChooseParity(context.Background(), player.ParityCall{})
			if err != nil || got != tc.want {
				t.Fatalf("ChooseParity = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestChatRefusesAnAnswerItCannotUse(t *testing.T) {
	for name, f := range map[string]*fakeChat{
		"no parity word": {content: "I would rather not say"},
		"null content":   {content: nil},
		"no choices":     {raw: `{"choices":[]}`},
		"not JSON":       {raw: "<html>gateway</html>"},
		"truncated":      {raw: `{"choices":[{"message":{"content":"od`},
	} {
		t.Run(name, func(t *testing.T) {
			if got, err := newChat(t, f, "").ChooseParity(context.Background(), player.ParityCall{}); err == nil {
				t.Fatalf("ChooseParity = %q, want an error", got)
			}
		})
	}
}

func TestAModelsErrorAnswerIsAnAPIError(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		body      string
		want      strategies.APIError
		temporary bool
	}{
		{"chat completions, bad key", http.StatusUnauthorized,
			`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			strategies.APIError{StatusCode: 401, Message: "Incorrect API key provided", Type: "invalid_request_error", Code: "invalid_api_key"}, false},
		{"chat completions, unknown model", http.StatusNotFound,
			`{"error":{"message":"model \"llama9\" not found, try pulling it first","type":"api_error","param":null,"code":null}}`,
			strategies.APIError{StatusCode: 404, Message: `model "llama9" not found, try pulling it first`, Type: "api_error"}, false},
		{"rate limited", http.StatusTooManyRequests,
			`{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`,
			strategies.APIError{StatusCode: 429, Message: "Rate limit reached", Type: "requests", Code: "rate_limit_exceeded"}, true},
		{"server error, no JSON", http.StatusBadGateway, "upstream connect error",
			strategies.APIError{StatusCode: 502, Message: "upstream connect error"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newChat(t, &fakeChat{status: tc.status, raw: tc.body}, "k").ChooseParity(context.Background(), player.ParityCall{})
			var e *strategies.APIError
			if !errors.As(err, &e) || *e != tc.want || e.Temporary() != tc.temporary {
				t.Fatalf("got %#v (%v), want %#v, temporary %v", e, err, tc.want, tc.temporary)
			}
		})
	}
	// The generate-content API's error shape.
	_, err := newFake(t, &fakeLLM{status: http.StatusBadRequest,
		raw: `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}`}).
		ChooseParity(context.Background(), player.ParityCall{})
	want := strategies.APIError{StatusCode: 400, Message: "API key not valid. Please pass a valid API key.", Type: "INVALID_ARGUMENT", Code: "400"}
	var e *strategies.APIError
	if !errors.As(err, &e) || *e != want {
		t.Fatalf("generate content: got %#v (%v), want %#v", e, err, want)
	}
}

func TestChatStopsWithItsContext(t *testing.T) {
	c := newChat(t, &fakeChat{content: "even", delay: 5 * time.Second}, "")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := c.ChooseParity(ctx, player.ParityCall{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want the context's deadline", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("took %v: the context does not bound the call", took)
	}
}

func TestChatFromEnv(t *testing.T) {
	t.Setenv(strategies.EnvChatBaseURL, "")
	t.Setenv(strategies.EnvChatModel, "")
	t.Setenv(strategies.EnvChatAPIKey, "")
	if _, err := strategies.ChatFromEnv(); err == nil || !strings.Contains(err.Error(), strategies.EnvChatModel) {
		t.Fatalf("ChatFromEnv without a model = %v", err)
	}
	t.Setenv(strategies.EnvChatModel, "qwen3")
	c, err := strategies.ChatFromEnv()
	if err != nil || c.BaseURL != strategies.DefaultChatBaseURL || c.Model != "qwen3" || c.APIKey != "" {
		t.Fatalf("ChatFromEnv = %+v, %v; want a local Ollama without a key", c, err)
	}
}
