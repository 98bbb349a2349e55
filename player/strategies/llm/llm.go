package llm

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/agentleague/league/player"
	"github.com/agentleague/league/player/strategies"
)

// Names lists the strategies [ByName] knows: those of
// [strategies.Names], then "llm" ([Gemini]) and "llm_chat" ([Chat]).
func Names() []string {
	return append(strategies.Names(), "llm", "llm_chat")
}

// ByName returns the strategy of the given name: "llm" (a [Gemini]
// configured from the environment, see [GeminiFromEnv]), "llm_chat" (a
// [Chat], see [ChatFromEnv]), or any name [strategies.ByName] knows. r is
// the random source of the strategies that need one (crypto/rand when nil).
func ByName(name string, r io.Reader) (player.Strategy, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "llm":
		return GeminiFromEnv()
	case "llm_chat":
		return ChatFromEnv()
	}
	s, err := strategies.ByName(name, r)
	if err != nil {
		return nil, fmt.Errorf("llm: unknown strategy %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return s, nil
}

// Options are the settings the model strategies share.
type Options struct {
	// SystemPrompt is the system message. Default [DefaultSystemPrompt].
	SystemPrompt string
	// Prompt builds the prompt. Default [Prompt].
	Prompt func(player.ParityCall) string
	// MaxRetries is how many times a call that may succeed later is
	// repeated within the move's deadline. Default [DefaultMaxRetries];
	// negative: never.
	MaxRetries int
	// FreeText, when set, never asks for the structured answer.
	FreeText bool
	// HTTPClient sends the requests. Default: the SDK's; the call's
	// context bounds each request and each wait between retries.
	HTTPClient *http.Client

	unschemed atomic.Bool // the server refused the structured answer's schema
	// the tokens the SDKs reported, over every answer
	promptTokens, answerTokens atomic.Int64
}

// Usage returns the tokens the model's answers reported so far, as the
// SDK gives them: those of the prompts and those of the answers
// (reasoning included). The arena reports them per entry.
func (o *Options) Usage() (prompt, answer int64) {
	return o.promptTokens.Load(), o.answerTokens.Load()
}

// count adds an answer's tokens.
func (o *Options) count(prompt, answer int64) {
	o.promptTokens.Add(prompt)
	o.answerTokens.Add(answer)
}

// retries returns how many times a call is repeated.
func (o *Options) retries() int {
	switch {
	case o.MaxRetries == 0:
		return DefaultMaxRetries
	case o.MaxRetries < 0:
		return 0
	}
	return o.MaxRetries
}

// prompts returns the system prompt and the prompt of call.
func (o *Options) prompts(call player.ParityCall) (system, prompt string) {
	system, build := o.SystemPrompt, o.Prompt
	if system == "" {
		system = DefaultSystemPrompt
	}
	if build == nil {
		build = Prompt
	}
	return system, build(call)
}

// structured reports whether to ask for the structured answer.
func (o *Options) structured() bool { return !o.FreeText && !o.unschemed.Load() }

// DefaultSystemPrompt is the system message (chat completions) or system
// instruction (generate-content) the strategies send by default.
const DefaultSystemPrompt = "You play the Even/Odd game. Answer with one word: even or odd."

// Prompt is the default prompt: the match, the opponent's past choices
// against this player, and the reasoning that makes a prediction useful.
func Prompt(call player.ParityCall) string {
	even, odd := call.History.Against(call.OpponentID).OpponentChoices()
	s := call.History.Stats()
	var b strings.Builder
	fmt.Fprintf(&b, "You are playing the Even/Odd game, match %s against opponent %s.\n", call.MatchID, call.OpponentID)
	b.WriteString("Both players choose \"even\" or \"odd\" at the same time; then a number from 1 to 10 is drawn.\n")
	b.WriteString("Equal choices make a draw (1 point each). Different choices: the one matching the number's parity wins 3 points.\n")
	b.WriteString("So choosing the other parity than the opponent avoids draws and wins half the time.\n")
	fmt.Fprintf(&b, "This opponent chose even %s and odd %s against you.\n", count(even, "time", "times"), count(odd, "time", "times"))
	fmt.Fprintf(&b, "Your record: %s, %s, %s.\n", count(s.Wins, "win", "wins"), count(s.Draws, "draw", "draws"), count(s.Losses, "loss", "losses"))
	b.WriteString("Answer with one word: even or odd.")
	return b.String()
}

// paritySchema is the JSON schema of a structured answer:
// {"parity": "even"} or {"parity": "odd"}.
func paritySchema() map[string]any {
	return map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"parity": map[string]any{"type": "string", "enum": []string{"even", "odd"}}},
		"required":             []string{"parity"},
		"additionalProperties": false,
	}
}

var (
	parityWord = regexp.MustCompile(`(?i)\b(even|odd)\b`)
	// thinking matches the reasoning some models write before their answer.
	thinking = regexp.MustCompile(`(?is)<think>.*?</think>`)
)

// ParseParity reads a model's answer: the parity of a structured answer
// ({"parity": "even"}), or else the first "even" or "odd" word of the text,
// in any case, once any <think>…</think> reasoning is taken out. An answer
// without either is an error.
func ParseParity(text string) (player.Parity, error) {
	text = thinking.ReplaceAllString(text, " ")
	var structured struct {
		Parity string `json:"parity"`
	}
	if json.Unmarshal([]byte(strings.TrimSpace(text)), &structured) == nil {
		if p := player.Parity(strings.ToLower(strings.TrimSpace(structured.Parity))); p.Valid() {
			return p, nil
		}
	}
	m := parityWord.FindStringSubmatch(text)
	if m == nil {
		return "", fmt.Errorf("llm: no even/odd in the model's answer %q", clip(text))
	}
	return player.Parity(strings.ToLower(m[1])), nil
}

// count writes n with the noun's singular (one) or plural (many) form.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// redactURL returns u without its user information and query, which may
// hold credentials.
func redactURL(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return "(an unparsable URL)"
	}
	parsed.User, parsed.RawQuery, parsed.ForceQuery, parsed.Fragment = nil, "", false, ""
	return parsed.String()
}

// firstEnv returns the value of the first of names that is set and not
// empty.
func firstEnv(names ...string) string {
	for _, n := range names {
		if v := strings.TrimSpace(os.Getenv(n)); v != "" {
			return v
		}
	}
	return ""
}

// ollamaBaseURL returns the chat completions URL of the Ollama that
// OLLAMA_HOST names ("127.0.0.1:11434", "http://gpu-box:11434", ":11500"),
// or of a local one when it is not set.
func ollamaBaseURL(host string) string {
	if host == "" {
		return DefaultChatBaseURL
	}
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	u, err := url.Parse(host)
	if err != nil || u.Host == "" {
		return DefaultChatBaseURL
	}
	hostname, port := u.Hostname(), u.Port()
	if hostname == "" {
		hostname = "localhost"
	}
	if port == "" {
		port = "11434"
	}
	u.Host = net.JoinHostPort(hostname, port)
	return strings.TrimSuffix(u.String(), "/") + "/v1"
}

// EnvUsage describes the environment variables of the model strategies,
// for a program's -h.
const EnvUsage = `Language models (strategies llm_chat and llm) are configured by environment variables:
  llm_chat, any chat completions server (Ollama, llama.cpp, vLLM, LM Studio, OpenAI):
    LEAGUE_CHAT_MODEL   the model, required (llama3.2, gpt-4o-mini)
    OPENAI_BASE_URL     the server's base URL (LEAGUE_CHAT_BASE_URL overrides it);
                        default the Ollama of OLLAMA_HOST, else http://localhost:11434/v1
                        (llama.cpp :8080/v1, vLLM :8000/v1 — the manager's default port too —, LM Studio :1234/v1)
    OPENAI_API_KEY      the API key, when the server needs one (LEAGUE_CHAT_API_KEY overrides it)
  llm, Google's generate-content API (Gemini):
    LEAGUE_LLM_MODEL    the model, required (gemini-2.5-flash)
    GEMINI_API_KEY      the API key, required (or GOOGLE_API_KEY; LEAGUE_LLM_API_KEY overrides both)
    GOOGLE_GEMINI_BASE_URL  the API's base URL, optional (LEAGUE_LLM_BASE_URL overrides it)
`
