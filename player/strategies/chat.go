package strategies

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/agentleague/league/player"
)

// The environment variables [ChatFromEnv] reads.
const (
	// EnvChatBaseURL is the chat completions API's base URL. Default
	// [DefaultChatBaseURL].
	EnvChatBaseURL = "LEAGUE_CHAT_BASE_URL"
	// EnvChatModel is the model name. Required.
	EnvChatModel = "LEAGUE_CHAT_MODEL"
	// EnvChatAPIKey is the API key. Optional: local servers need none.
	EnvChatAPIKey = "LEAGUE_CHAT_API_KEY"
)

// DefaultChatBaseURL is the base URL of a local Ollama's chat completions
// API, the default of LEAGUE_CHAT_BASE_URL.
const DefaultChatBaseURL = "http://localhost:11434/v1"

// DefaultSystemPrompt is the system message a [Chat] sends by default.
const DefaultSystemPrompt = "You play the Even/Odd game. Answer with one word: even or odd."

// Chat is a strategy that asks a language model through the chat
// completions API that OpenAI defined and most servers speak: Ollama,
// llama.cpp's server, vLLM, LM Studio, OpenAI and many hosted services.
// It posts {"model", "messages": [system, user], "temperature"} to
// BaseURL + "/chat/completions" and answers the first "even" or "odd" word
// of choices[0].message.content (reasoning between <think> and </think>
// left out). The prompt is the one [LLM] sends ([Prompt]). A failed call, an
// answer without such a word, or an answer after the context ends is an
// error, and the Agent answers with its fallback instead: the model can
// make the player slower to think, never lose by a technical loss.
//
// The fields are read on every call; set them before the Chat is used.
type Chat struct {
	// BaseURL is the API's base URL, to which "/chat/completions" is
	// appended: "http://localhost:11434/v1" (Ollama),
	// "http://localhost:8080/v1" (llama.cpp's server),
	// "https://api.openai.com/v1". Required.
	BaseURL string
	// Model is the model name ("llama3.2", "gpt-4o-mini"). Required.
	Model string
	// APIKey, when set, is sent as "Authorization: Bearer <APIKey>"; it
	// is never logged. Local servers need none.
	APIKey string
	// Temperature is sent as temperature. Default 0: the model's likeliest
	// answer.
	Temperature float64
	// MaxTokens, when positive, is sent as max_tokens. Default: not sent
	// (a reasoning model needs room to think).
	MaxTokens int
	// SystemPrompt is the system message. Default [DefaultSystemPrompt].
	SystemPrompt string
	// HTTPClient sends the requests. Default [http.DefaultClient]; the
	// call's context bounds each request.
	HTTPClient *http.Client
	// Prompt builds the user message. Default [Prompt].
	Prompt func(player.ParityCall) string
}

// ChatFromEnv returns a [Chat] configured by LEAGUE_CHAT_BASE_URL (optional,
// a local Ollama by default), LEAGUE_CHAT_MODEL and LEAGUE_CHAT_API_KEY
// (optional).
func ChatFromEnv() (*Chat, error) {
	c := &Chat{BaseURL: os.Getenv(EnvChatBaseURL), Model: os.Getenv(EnvChatModel), APIKey: os.Getenv(EnvChatAPIKey)}
	if c.BaseURL == "" {
		c.BaseURL = DefaultChatBaseURL
	}
	if c.Model == "" {
		return nil, fmt.Errorf("strategies: the llm_chat strategy needs %s in the environment", EnvChatModel)
	}
	return c, nil
}

// chatMessage is one message of a chat completions request or answer.
type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// chatRequest is the body of a chat completions request.
type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	Temperature float64       `json:"temperature"`
	MaxTokens   int           `json:"max_tokens,omitempty"`
	Stream      bool          `json:"stream"`
}

// chatAnswer is what is read of a chat completions answer. The content is
// a string, or, from some servers, a list of parts.
type chatAnswer struct {
	Choices []struct {
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	} `json:"choices"`
}

// ChooseParity implements [player.Strategy].
func (c *Chat) ChooseParity(ctx context.Context, call player.ParityCall) (player.Parity, error) {
	if c.BaseURL == "" || c.Model == "" {
		return "", errors.New("strategies: Chat needs a BaseURL and a Model")
	}
	prompt, system := Prompt, c.SystemPrompt
	if c.Prompt != nil {
		prompt = c.Prompt
	}
	if system == "" {
		system = DefaultSystemPrompt
	}
	header := http.Header{}
	if c.APIKey != "" {
		header.Set("Authorization", "Bearer "+c.APIKey)
	}
	var answer chatAnswer
	err := postJSON(ctx, c.HTTPClient, strings.TrimSuffix(c.BaseURL, "/")+"/chat/completions", header, chatRequest{
		Model:       c.Model,
		Messages:    []chatMessage{{Role: "system", Content: system}, {Role: "user", Content: prompt(call)}},
		Temperature: c.Temperature, MaxTokens: c.MaxTokens,
	}, &answer)
	if err != nil {
		return "", err
	}
	if len(answer.Choices) == 0 {
		return "", errors.New("strategies: the model's answer has no choices")
	}
	text, err := contentText(answer.Choices[0].Message.Content)
	if err != nil {
		return "", err
	}
	p, err := parseAnswer(text)
	return player.Parity(p), err
}

// contentText returns the text of a message's content: a string, or the
// text parts of a list.
func contentText(raw json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("strategies: the model's message has no text content: %s", clip(string(raw)))
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text + " ")
	}
	return b.String(), nil
}
