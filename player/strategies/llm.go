package strategies

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"

	"github.com/agentleague/league/player"
)

// The environment variables [LLMFromEnv] reads.
const (
	// EnvLLMEndpoint is the generate-content URL; "{model}" in it is
	// replaced by the model. Default [DefaultLLMEndpoint].
	EnvLLMEndpoint = "LEAGUE_LLM_ENDPOINT"
	// EnvLLMModel is the model name. Required.
	EnvLLMModel = "LEAGUE_LLM_MODEL"
	// EnvLLMAPIKey is the API key, sent in the KeyHeader header. Required.
	EnvLLMAPIKey = "LEAGUE_LLM_API_KEY"
)

// DefaultLLMEndpoint is the generate-content URL used when
// LEAGUE_LLM_ENDPOINT is not set.
const DefaultLLMEndpoint = "https://generativelanguage.googleapis.com/v1beta/models/{model}:generateContent"

// DefaultKeyHeader is the header that carries the API key by default.
const DefaultKeyHeader = "x-goog-api-key"

// LLM is a strategy that asks a language model through Google's
// generate-content API ([Chat] speaks the chat completions API of most other
// servers). It sends a prompt describing the match and the opponent's past
// choices to an HTTP generate-content API — request {"contents":[{"parts":[{"text":
// prompt}]}]}, reply {"candidates":[{"content":{"parts":[{"text": …}]}}]}
// — and answers the first "even" or "odd" word of the reply. A failed call,
// a reply without such a word, or a reply after the context ends is an
// error, and the Agent answers with its fallback instead: an LLM can make
// the player slower to think, never lose by a technical loss.
//
// The fields are read on every call; set them before the LLM is used.
type LLM struct {
	// Endpoint is the generate-content URL; "{model}" is replaced by Model.
	Endpoint string
	// Model is the model name.
	Model string
	// APIKey is sent in the KeyHeader header; it is never logged.
	APIKey string
	// KeyHeader is the header of the API key. Default [DefaultKeyHeader].
	KeyHeader string
	// HTTPClient sends the requests. Default [http.DefaultClient]; the
	// call's context bounds each request.
	HTTPClient *http.Client
	// Prompt builds the prompt. Default Prompt.
	Prompt func(player.ParityCall) string
}

// LLMFromEnv returns an [LLM] configured by LEAGUE_LLM_ENDPOINT (optional),
// LEAGUE_LLM_MODEL and LEAGUE_LLM_API_KEY.
func LLMFromEnv() (*LLM, error) {
	l := &LLM{Endpoint: os.Getenv(EnvLLMEndpoint), Model: os.Getenv(EnvLLMModel), APIKey: os.Getenv(EnvLLMAPIKey)}
	if l.Endpoint == "" {
		l.Endpoint = DefaultLLMEndpoint
	}
	var missing []string
	if l.Model == "" {
		missing = append(missing, EnvLLMModel)
	}
	if l.APIKey == "" {
		missing = append(missing, EnvLLMAPIKey)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("strategies: the llm strategy needs %s in the environment", strings.Join(missing, " and "))
	}
	return l, nil
}

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
	fmt.Fprintf(&b, "This opponent chose even %d times and odd %d times against you.\n", even, odd)
	fmt.Fprintf(&b, "Your record: %d wins, %d draws, %d losses.\n", s.Wins, s.Draws, s.Losses)
	b.WriteString("Answer with one word: even or odd.")
	return b.String()
}

var parityWord = regexp.MustCompile(`(?i)\b(even|odd)\b`)

// ParseParity returns the parity named by the first "even" or "odd" word
// of text, in any case, or an error when there is none.
func ParseParity(text string) (player.Parity, error) {
	m := parityWord.FindStringSubmatch(text)
	if m == nil {
		return "", fmt.Errorf("strategies: no even/odd in the model's reply %q", clip(text))
	}
	return player.Parity(strings.ToLower(m[1])), nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// maxLLMReply bounds the reply read from the API.
const maxLLMReply = 1 << 20

// ChooseParity implements [player.Strategy].
func (l *LLM) ChooseParity(ctx context.Context, call player.ParityCall) (player.Parity, error) {
	prompt := Prompt
	if l.Prompt != nil {
		prompt = l.Prompt
	}
	text, err := l.generate(ctx, prompt(call))
	if err != nil {
		return "", err
	}
	p, err := parseAnswer(text)
	return player.Parity(p), err
}

// generate sends one prompt and returns the text of the first candidate.
func (l *LLM) generate(ctx context.Context, prompt string) (string, error) {
	if l.Endpoint == "" || l.Model == "" {
		return "", errors.New("strategies: LLM needs an Endpoint and a Model")
	}
	header := l.KeyHeader
	if header == "" {
		header = DefaultKeyHeader
	}
	var reply struct {
		Candidates []struct {
			Content struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
	}
	err := postJSON(ctx, l.HTTPClient, strings.ReplaceAll(l.Endpoint, "{model}", l.Model), http.Header{http.CanonicalHeaderKey(header): {l.APIKey}},
		map[string]any{"contents": []map[string]any{{"parts": []map[string]string{{"text": prompt}}}}}, &reply)
	if err != nil {
		return "", err
	}
	if len(reply.Candidates) == 0 {
		return "", errors.New("strategies: the model's answer has no candidates")
	}
	var text strings.Builder
	for _, p := range reply.Candidates[0].Content.Parts {
		text.WriteString(p.Text)
		text.WriteString(" ")
	}
	return text.String(), nil
}
