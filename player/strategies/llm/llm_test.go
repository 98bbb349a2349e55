package llm_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"google.golang.org/genai"

	"github.com/agentleague/league/arena"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/player/playertest"
	"github.com/agentleague/league/player/strategies/llm"
)

// standIn is a local stand-in for a model's API: it answers each request
// with the next status of statuses (200 once they run out), a 200 with
// answer(request), and records what it was sent.
type standIn struct {
	mu       sync.Mutex
	statuses []int
	answer   func(body map[string]any) any
	requests []request
}

// request is what the stand-in was sent.
type request struct {
	path   string
	header http.Header
	body   map[string]any
}

func (s *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	s.mu.Lock()
	s.requests = append(s.requests, request{path: r.URL.Path, header: r.Header.Clone(), body: body})
	status := http.StatusOK
	if len(s.statuses) > 0 {
		status, s.statuses = s.statuses[0], s.statuses[1:]
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if status != http.StatusOK {
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": status, "message": http.StatusText(status), "type": "stand_in"}})
		return
	}
	_ = json.NewEncoder(w).Encode(s.answer(body))
}

func (s *standIn) sent() []request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]request(nil), s.requests...)
}

func serve(t *testing.T, s *standIn) string {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL
}

// chatAnswer is a chat completions answer whose message says text.
func chatAnswer(text string) func(map[string]any) any {
	return func(map[string]any) any {
		return map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "stand-in",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": text}}}}
	}
}

// geminiAnswer is a generate-content answer whose candidate says text.
func geminiAnswer(text string) func(map[string]any) any {
	return func(map[string]any) any {
		return map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model",
			"parts": []any{map[string]any{"text": text}}}}}}
	}
}

// clearEnv unsets every variable the strategies read, so that the
// machine's own do not leak into a test.
func clearEnv(t *testing.T) {
	for _, v := range []string{llm.EnvChatBaseURL, llm.EnvOpenAIBaseURL, llm.EnvOllamaHost, llm.EnvChatModel, llm.EnvChatAPIKey,
		llm.EnvOpenAIAPIKey, llm.EnvGeminiBaseURL, llm.EnvGoogleBaseURL, llm.EnvGeminiModel, llm.EnvGeminiAPIKey,
		llm.EnvGeminiKey, llm.EnvGoogleAPIKey, "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT"} {
		t.Setenv(v, "")
	}
}

func call() player.ParityCall {
	return player.ParityCall{PlayerID: "P01", MatchID: "R1M1", OpponentID: "P02"}
}

// A player configured only with OPENAI_BASE_URL and a model plays a whole
// league (manager, referees, real agents) with the model's answers: the
// stand-in says odd every time, and the player never fell back.
func TestAPlayerConfiguredByOpenAIBaseURLPlaysALeague(t *testing.T) {
	clearEnv(t)
	model := &standIn{answer: chatAnswer(`{"parity":"odd"}`)}
	t.Setenv(llm.EnvOpenAIBaseURL, serve(t, model)+"/v1")
	t.Setenv(llm.EnvChatModel, "stand-in-model")
	s, err := llm.ByName("llm_chat", nil)
	if err != nil {
		t.Fatal(err)
	}
	report, err := arena.Run(t.Context(), arena.Config{League: true, Rounds: 2, MoveTimeout: 5 * time.Second,
		Entries: []arena.Entry{{Name: "model", Strategy: s}, arena.Ready("always_even"), arena.Ready("always_odd")}})
	if err != nil {
		t.Fatal(err)
	}
	st, _ := report.Standing("model")
	if st.Played != 4 || st.Moves != 4 || st.Fallbacks != 0 || st.Flagged || len(report.Warnings) != 0 {
		t.Fatalf("the model's entry: %+v, warnings %q", st, report.Warnings)
	}
	// Odd every time: it beats or loses to always_even, draws always_odd.
	if h, _ := report.HeadToHead("model", "always_odd"); h.PointsPerMatch.Mean != 1 {
		t.Errorf("against always_odd: %.2f points per match, want 1 (draws: the model's odd)", h.PointsPerMatch.Mean)
	}
	reqs := model.sent()
	if len(reqs) != 4 {
		t.Fatalf("the stand-in was called %d times, want 4", len(reqs))
	}
	for _, r := range reqs {
		format, _ := r.body["response_format"].(map[string]any)
		if r.path != "/v1/chat/completions" || r.body["model"] != "stand-in-model" || format["type"] != "json_schema" {
			t.Fatalf("request %s %v", r.path, r.body)
		}
		if auth := r.header.Get("Authorization"); auth != "" {
			t.Errorf("sent Authorization %q without a key", auth)
		}
	}
}

// A 429, then a 500, then an answer: the call is retried within the move's
// deadline, by both strategies.
func TestBusyServersAreRetriedWithinTheDeadline(t *testing.T) {
	clearEnv(t)
	chat := &standIn{statuses: []int{http.StatusTooManyRequests, http.StatusInternalServerError}, answer: chatAnswer("odd")}
	gem := &standIn{statuses: []int{http.StatusTooManyRequests, http.StatusServiceUnavailable}, answer: geminiAnswer("even")}
	for _, tc := range []struct {
		name     string
		strategy player.Strategy
		model    *standIn
		want     player.Parity
	}{
		{"chat", &llm.Chat{BaseURL: serve(t, chat) + "/v1", Model: "m"}, chat, player.Odd},
		{"gemini", &llm.Gemini{BaseURL: serve(t, gem), Model: "m", APIKey: "k"}, gem, player.Even},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const deadline = 4 * time.Second
			ctx, cancel := context.WithTimeout(t.Context(), deadline)
			defer cancel()
			start := time.Now()
			p, err := tc.strategy.ChooseParity(ctx, call())
			if err != nil || p != tc.want {
				t.Fatalf("got %q, %v; want %q", p, err, tc.want)
			}
			if n := len(tc.model.sent()); n != 3 {
				t.Errorf("%d calls, want 3 (two refused, one answered)", n)
			}
			if took := time.Since(start); took >= deadline {
				t.Errorf("took %v, beyond the deadline", took)
			}
		})
	}
}

// A retry never outlives the move: a server that is always busy makes
// the call fail when the context ends, not later.
func TestRetriesStopAtTheDeadline(t *testing.T) {
	busy := &standIn{statuses: []int{429, 429, 429, 429, 429, 429, 429, 429}}
	c := &llm.Chat{BaseURL: serve(t, busy), Model: "m", Options: llm.Options{MaxRetries: 8}}
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := c.ChooseParity(ctx, call()); err == nil {
		t.Fatal("a busy server gave a parity")
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the call took %v after a 300ms deadline", took)
	}
}

// A server that answers 404 to everything: an error of the SDK's type,
// with the status, and no retry.
func TestAServerAnswering404IsAnErrorAtOnce(t *testing.T) {
	clearEnv(t)
	notFound := func() *standIn { return &standIn{statuses: []int{404, 404, 404, 404, 404, 404}} }
	chat, gem := notFound(), notFound()
	chatURL := serve(t, chat)
	_, err := (&llm.Chat{BaseURL: chatURL + "/v1", Model: "m"}).ChooseParity(t.Context(), call())
	var oerr *openai.Error
	if !errors.As(err, &oerr) || oerr.StatusCode != 404 || len(chat.sent()) != 1 {
		t.Errorf("chat: %v after %d calls, want an *openai.Error 404 after one", err, len(chat.sent()))
	}
	if want := chatURL + "/v1/chat/completions"; err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `model "m"`) {
		t.Errorf("chat: %v, want the URL called, %s, and the model", err, want)
	}
	_, err = (&llm.Gemini{BaseURL: serve(t, gem), Model: "m", APIKey: "k"}).ChooseParity(t.Context(), call())
	var gerr genai.APIError
	if !errors.As(err, &gerr) || gerr.Code != 404 || len(gem.sent()) != 1 {
		t.Errorf("gemini: %v after %d calls, want a genai.APIError 404 after one", err, len(gem.sent()))
	}
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1") || !strings.Contains(err.Error(), `model "m"`) {
		t.Errorf("gemini: %v, want the server called and the model", err)
	}
}

// A model strategy pointed at a server that answers 404 to everything
// plays on its fallback: the arena's report shows every move as a fallback,
// flags the entry and warns.
func TestTheArenaFlagsAModelThatFellBack(t *testing.T) {
	clearEnv(t)
	t.Setenv(llm.EnvChatModel, "m")
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()
	t.Setenv(llm.EnvOpenAIBaseURL, notFound.URL+"/v1")
	report, err := arena.Run(t.Context(), arena.Config{Rounds: 10, MoveTimeout: 5 * time.Second,
		Entries: []arena.Entry{{Name: "model", NewStrategy: func(r io.Reader) (player.Strategy, error) { return llm.ByName("llm_chat", r) }},
			arena.Ready("history")}})
	if err != nil {
		t.Fatal(err)
	}
	st, _ := report.Standing("model")
	if st.Moves != 10 || st.Fallbacks != 10 || !st.Flagged {
		t.Fatalf("the model's entry: moves %d, fallbacks %d, flagged %v", st.Moves, st.Fallbacks, st.Flagged)
	}
	if h, _ := report.Standing("history"); h.Fallbacks != 0 || h.Flagged {
		t.Errorf("history: %+v", h)
	}
	// Why it fell back, with the URL called, is in the warning, the table's
	// legend, the JSON and the CSV.
	url := notFound.URL + "/v1/chat/completions"
	cause := func(s string) bool { return strings.Contains(s, "404 Not Found") && strings.Contains(s, url) }
	if len(report.Warnings) != 1 || !strings.Contains(report.Warnings[0], "model fell back on 10 of its 10 moves") || !cause(report.Warnings[0]) {
		t.Errorf("warnings %q, want the fallbacks with the 404 and %s", report.Warnings, url)
	}
	if !cause(st.FallbackCause) {
		t.Errorf("the model's fallback cause %q lacks the 404 or %s", st.FallbackCause, url)
	}
	var table strings.Builder
	if err := report.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "10 (100 %) !") {
		t.Errorf("the table does not show the fallbacks:\n%s", table.String())
	}
	_, legend, _ := strings.Cut(table.String(), "Intervals are")
	if !strings.Contains(legend, "! model, latest fallback: ") || !cause(legend) {
		t.Errorf("the table's legend does not say why the model fell back:\n%s", legend)
	}
	var js strings.Builder
	if err := report.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var decoded struct {
		Standings []struct {
			Name          string `json:"name"`
			FallbackCause string `json:"fallback_cause"`
		} `json:"standings"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(js.String()), &decoded); err != nil {
		t.Fatal(err)
	}
	for _, s := range decoded.Standings {
		if s.Name == "model" && !cause(s.FallbackCause) {
			t.Errorf("the JSON's fallback_cause of the model: %q", s.FallbackCause)
		}
	}
	if len(decoded.Warnings) != 1 || !cause(decoded.Warnings[0]) {
		t.Errorf("the JSON's warnings: %q", decoded.Warnings)
	}
	var csvOut strings.Builder
	if err := report.WriteCSV(&csvOut); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(csvOut.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(rows[0], "fallback_cause")
	if col < 0 {
		t.Fatalf("the CSV has no fallback_cause column: %q", rows[0])
	}
	for _, row := range rows[1:] {
		if row[1] == "model" && !cause(row[col]) {
			t.Errorf("the CSV's fallback_cause of the model: %q", row[col])
		}
		if row[1] == "history" && row[col] != "" {
			t.Errorf("the CSV's fallback_cause of history: %q", row[col])
		}
	}
}

// A server that refuses the JSON schema is asked again without it, and
// never with it after; its free text is read tolerantly.
func TestAServerWithoutStructuredOutputIsReadAsText(t *testing.T) {
	srv := &standIn{answer: chatAnswer("<think>even? odd?</think>\nI choose ODD.")}
	srv.statuses = []int{http.StatusBadRequest}
	c := &llm.Chat{BaseURL: serve(t, srv), Model: "m", APIKey: "sk-test"}
	for range 2 {
		if p, err := c.ChooseParity(t.Context(), call()); err != nil || p != player.Odd {
			t.Fatalf("got %q, %v", p, err)
		}
	}
	reqs := srv.sent()
	if len(reqs) != 3 || reqs[0].body["response_format"] == nil || reqs[1].body["response_format"] != nil || reqs[2].body["response_format"] != nil {
		t.Fatalf("%d requests; response_format sent: %v", len(reqs), reqs)
	}
	if got := reqs[0].header.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("Authorization %q", got)
	}
	gsrv := &standIn{statuses: []int{http.StatusBadRequest}, answer: geminiAnswer("Even, surely.")}
	g := &llm.Gemini{BaseURL: serve(t, gsrv), Model: "gm", APIKey: "key"}
	if p, err := g.ChooseParity(t.Context(), call()); err != nil || p != player.Even {
		t.Fatalf("gemini: got %q, %v", p, err)
	}
	greqs := gsrv.sent()
	config, _ := greqs[0].body["generationConfig"].(map[string]any)
	if len(greqs) != 2 || config["responseSchema"] == nil || greqs[0].path != "/v1beta/models/gm:generateContent" ||
		greqs[0].header.Get("x-goog-api-key") != "key" {
		t.Fatalf("gemini requests: %+v", greqs)
	}
	if config, _ := greqs[1].body["generationConfig"].(map[string]any); config["responseSchema"] != nil {
		t.Errorf("the schema was sent again after a 400")
	}
}

func TestConfigurationFromTheEnvironment(t *testing.T) {
	t.Run("the model is required, by name", func(t *testing.T) {
		clearEnv(t)
		if _, err := llm.ByName("llm_chat", nil); err == nil || !strings.Contains(err.Error(), "LEAGUE_CHAT_MODEL") {
			t.Errorf("llm_chat: %v", err)
		}
		if _, err := llm.ByName("llm", nil); err == nil || !strings.Contains(err.Error(), "LEAGUE_LLM_MODEL") || !strings.Contains(err.Error(), "GEMINI_API_KEY") {
			t.Errorf("llm: %v", err)
		}
	})
	chat := func(t *testing.T) *llm.Chat {
		t.Helper()
		t.Setenv(llm.EnvChatModel, "m")
		c, err := llm.ChatFromEnv()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, tc := range []struct {
		name      string
		env       map[string]string
		base, key string
	}{
		{"a local Ollama by default", nil, "http://localhost:11434/v1", ""},
		{"OLLAMA_HOST", map[string]string{"OLLAMA_HOST": "gpu-box:11500"}, "http://gpu-box:11500/v1", ""},
		{"OLLAMA_HOST with a port only", map[string]string{"OLLAMA_HOST": ":11500"}, "http://localhost:11500/v1", ""},
		{"OLLAMA_HOST without a port", map[string]string{"OLLAMA_HOST": "https://ollama.example"}, "https://ollama.example:11434/v1", ""},
		{"OPENAI_BASE_URL over OLLAMA_HOST", map[string]string{"OLLAMA_HOST": "gpu-box", "OPENAI_BASE_URL": "http://127.0.0.1:8000/v1", "OPENAI_API_KEY": "sk-1"},
			"http://127.0.0.1:8000/v1", "sk-1"},
		{"the module's names override", map[string]string{"OPENAI_BASE_URL": "http://a/v1", "LEAGUE_CHAT_BASE_URL": "http://b/v1",
			"OPENAI_API_KEY": "sk-1", "LEAGUE_CHAT_API_KEY": "sk-2"}, "http://b/v1", "sk-2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			if c := chat(t); c.BaseURL != tc.base || c.APIKey != tc.key || c.Model != "m" {
				t.Errorf("got %q %q %q", c.BaseURL, c.APIKey, c.Model)
			}
		})
	}
	t.Run("OpenAI needs a key", func(t *testing.T) {
		clearEnv(t)
		t.Setenv(llm.EnvOpenAIBaseURL, "https://api.openai.com/v1")
		t.Setenv(llm.EnvChatModel, "gpt-4o-mini")
		if _, err := llm.ChatFromEnv(); err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("Gemini's keys", func(t *testing.T) {
		clearEnv(t)
		t.Setenv(llm.EnvGeminiModel, "gemini-2.5-flash")
		t.Setenv(llm.EnvGoogleAPIKey, "g")
		t.Setenv(llm.EnvGoogleBaseURL, "http://127.0.0.1:9/")
		g, err := llm.GeminiFromEnv()
		if err != nil || g.APIKey != "g" || g.BaseURL != "http://127.0.0.1:9/" {
			t.Fatalf("%+v, %v", g, err)
		}
		t.Setenv(llm.EnvGeminiKey, "k")
		if g, _ := llm.GeminiFromEnv(); g.APIKey != "k" {
			t.Errorf("GEMINI_API_KEY does not come before GOOGLE_API_KEY: %q", g.APIKey)
		}
	})
}

func TestParseParity(t *testing.T) {
	for text, want := range map[string]player.Parity{
		`{"parity":"even"}`:                  player.Even,
		` {"parity": "ODD"} `:                player.Odd,
		"<think>even is tempting</think>odd": player.Odd,
		"Odd.":                               player.Odd,
		"I'd say even, not odd":              player.Even,
	} {
		if got, err := llm.ParseParity(text); err != nil || got != want {
			t.Errorf("ParseParity(%q) = %q, %v; want %q", text, got, err, want)
		}
	}
	for _, text := range []string{"", "seven", `{"parity":"maybe"}`, "<think>even</think>"} {
		if got, err := llm.ParseParity(text); err == nil {
			t.Errorf("ParseParity(%q) = %q, want an error", text, got)
		}
	}
}

// Neither SDK is linked into a player that uses no model (the player
// package, the plain strategies, examples/player); a player program that
// imports this package (examples/modelplayer) links both.
func TestOnlyTheModelPackageLinksTheSDKs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	deps := func(pkg string) string {
		out, err := exec.Command(goTool, "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		return string(out)
	}
	const openaiSDK, genaiSDK = "github.com/openai/openai-go/v3\n", "google.golang.org/genai\n"
	for _, pkg := range []string{"github.com/agentleague/league/player/strategies", "github.com/agentleague/league/player",
		"github.com/agentleague/league/arena", "github.com/agentleague/league/examples/player"} {
		if d := deps(pkg); strings.Contains(d, openaiSDK) || strings.Contains(d, genaiSDK) {
			t.Errorf("%s links a model SDK", pkg)
		}
	}
	if d := deps("github.com/agentleague/league/examples/modelplayer"); !strings.Contains(d, openaiSDK) || !strings.Contains(d, genaiSDK) {
		t.Errorf("examples/modelplayer, the player program of the model strategies, does not link both SDKs")
	}
}

// A player whose strategy is a model configured only by OPENAI_BASE_URL
// and a model passes the conformance kit, answering with the model's
// choice.
func TestAModelPlayerPassesTheConformanceKit(t *testing.T) {
	clearEnv(t)
	model := &standIn{answer: chatAnswer(`{"parity":"even"}`)}
	t.Setenv(llm.EnvOpenAIBaseURL, serve(t, model)+"/v1")
	t.Setenv(llm.EnvChatModel, "stand-in-model")
	s, err := llm.ChatFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	a, err := player.New(player.Config{Name: "Model Player", League: "http://127.0.0.1:1/mcp", DataRoot: t.TempDir(),
		Strategy: s, NoAgentLog: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	rep := playertest.Run(t, srv.URL+"/mcp", playertest.Options{Timeout: 2 * time.Second, ChoiceDeadline: 3 * time.Second})
	if rep.Failed != 0 {
		t.Errorf("%d checks failed", rep.Failed)
	}
	if d := a.Decisions(); d.Made == 0 || d.Fallbacks != 0 || len(model.sent()) < int(d.Made) {
		t.Errorf("decisions %+v after %d model calls: want every choice the model's", d, len(model.sent()))
	}
}
