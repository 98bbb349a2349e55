package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/agentleague/league/player"
)

// The environment variables [ChatFromEnv] reads, the module's own first.
const (
	// EnvChatBaseURL is the chat completions API's base URL; it overrides
	// OPENAI_BASE_URL.
	EnvChatBaseURL = "LEAGUE_CHAT_BASE_URL"
	// EnvOpenAIBaseURL is the base URL the OpenAI SDKs and tools read.
	EnvOpenAIBaseURL = "OPENAI_BASE_URL"
	// EnvOllamaHost is where Ollama listens ("127.0.0.1:11434"); it
	// places the default base URL when neither base URL is set.
	EnvOllamaHost = "OLLAMA_HOST"
	// EnvChatModel is the model name. Required.
	EnvChatModel = "LEAGUE_CHAT_MODEL"
	// EnvChatAPIKey is the API key; it overrides OPENAI_API_KEY.
	EnvChatAPIKey = "LEAGUE_CHAT_API_KEY"
	// EnvOpenAIAPIKey is the API key the OpenAI SDKs and tools read.
	// Local servers need none.
	EnvOpenAIAPIKey = "OPENAI_API_KEY"
)

// DefaultChatBaseURL is the base URL of a local Ollama's chat completions
// API, the default when no variable names another.
const DefaultChatBaseURL = "http://localhost:11434/v1"

// DefaultMaxRetries is how many times a strategy repeats a call that the
// server answered 408, 409, 429 or 5xx, or that could not connect, by
// default. Each retry waits (a short back-off, or what the server's
// Retry-After says) within the move's deadline: the call's context ends
// every wait.
const DefaultMaxRetries = 3

// Chat is a strategy that asks a language model through the chat
// completions API that OpenAI defined and most servers speak: Ollama,
// llama.cpp's server, vLLM, LM Studio, OpenAI and many hosted services. It
// calls the API with OpenAI's Go SDK (github.com/openai/openai-go/v3),
// sending a system message and the prompt ([Prompt]), and asks for a
// structured answer, {"parity": "even"|"odd"}, by a JSON schema. A server
// that refuses the schema (HTTP 400) is asked again without it, and from
// then on never with it; its free text is read tolerantly ([ParseParity]).
//
// A failed call, an answer without a parity, or an answer after the
// context ends is an error, and the Agent answers with its fallback
// instead: the model can make the player slower to think, never lose by a
// technical loss. An HTTP error of the API is an *[openai.Error] (test with
// [errors.As]).
//
// Set the fields before the first call; a Chat must not be copied after.
type Chat struct {
	// BaseURL is the API's base URL, to which "/chat/completions" is
	// appended: "http://localhost:11434/v1" (Ollama),
	// "http://localhost:8080/v1" (llama.cpp's server),
	// "http://localhost:8000/v1" (vLLM), "http://localhost:1234/v1" (LM
	// Studio), "https://api.openai.com/v1". Default [DefaultChatBaseURL].
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
	// Options are the settings both model strategies share.
	Options

	once   sync.Once
	client openai.Client
}

// ChatFromEnv returns a [Chat] configured the way users of these servers
// expect:
//
//   - the base URL from LEAGUE_CHAT_BASE_URL, else OPENAI_BASE_URL, else the
//     Ollama of OLLAMA_HOST, else a local Ollama ([DefaultChatBaseURL]);
//   - the model from LEAGUE_CHAT_MODEL, which is required;
//   - the API key, when the server needs one, from LEAGUE_CHAT_API_KEY, else
//     OPENAI_API_KEY.
func ChatFromEnv() (*Chat, error) {
	c := &Chat{}
	c.BaseURL = firstEnv(EnvChatBaseURL, EnvOpenAIBaseURL)
	if c.BaseURL == "" {
		host := firstEnv(EnvOllamaHost)
		c.BaseURL = ollamaBaseURL(host)
	}
	c.Model = firstEnv(EnvChatModel)
	c.APIKey = firstEnv(EnvChatAPIKey, EnvOpenAIAPIKey)
	if c.Model == "" {
		return nil, fmt.Errorf("llm: the llm_chat strategy needs a model: set %s (for example %s=llama3.2); the server is %s",
			EnvChatModel, EnvChatModel, c.BaseURL)
	}
	if c.APIKey == "" && strings.Contains(c.BaseURL, "api.openai.com") {
		return nil, fmt.Errorf("llm: %s needs an API key: set %s or %s", c.BaseURL, EnvOpenAIAPIKey, EnvChatAPIKey)
	}
	return c, nil
}

func (c *Chat) init() {
	base := c.BaseURL
	if base == "" {
		base = DefaultChatBaseURL
	}
	opts := []option.RequestOption{option.WithBaseURL(strings.TrimSuffix(base, "/") + "/"),
		option.WithMaxRetries(c.retries()), option.WithMaxRetryDelay(maxRetryDelay)}
	if c.APIKey != "" {
		opts = append(opts, option.WithAPIKey(c.APIKey))
	}
	if c.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(c.HTTPClient))
	}
	c.client = openai.NewClient(opts...)
}

// maxRetryDelay bounds a wait between two tries: a server that asks for
// longer is not retried.
const maxRetryDelay = 5 * time.Second

// ChooseParity implements [player.Strategy].
func (c *Chat) ChooseParity(ctx context.Context, call player.ParityCall) (player.Parity, error) {
	if c.Model == "" {
		return "", fmt.Errorf("llm: Chat needs a Model (%s)", EnvChatModel)
	}
	c.once.Do(c.init)
	system, prompt := c.prompts(call)
	params := openai.ChatCompletionNewParams{
		Model:       shared.ChatModel(c.Model),
		Messages:    []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(system), openai.UserMessage(prompt)},
		Temperature: openai.Float(c.Temperature),
	}
	if c.MaxTokens > 0 {
		params.MaxTokens = openai.Int(int64(c.MaxTokens))
	}
	schemed := c.structured()
	if schemed {
		params.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "parity", Strict: openai.Bool(true), Schema: paritySchema()}}}
	}
	answer, err := c.client.Chat.Completions.New(ctx, params)
	var apiErr *openai.Error
	if schemed && errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusBadRequest {
		c.unschemed.Store(true) // and never again
		params.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{}
		answer, err = c.client.Chat.Completions.New(ctx, params)
	}
	if err != nil {
		return "", c.callError(err)
	}
	c.count(answer.Usage.PromptTokens, answer.Usage.CompletionTokens)
	if len(answer.Choices) == 0 {
		return "", errors.New("llm: the model's answer has no choices")
	}
	return ParseParity(messageText(answer.Choices[0].Message))
}

// Endpoint returns the URL of the chat completions API the strategy
// calls: the base URL (default [DefaultChatBaseURL]) and
// "/chat/completions", without credentials or query.
func (c *Chat) Endpoint() string {
	base := c.BaseURL
	if base == "" {
		base = DefaultChatBaseURL
	}
	return redactURL(strings.TrimSuffix(base, "/") + "/chat/completions")
}

// callError is the error of a failed call: what was called, where, and,
// for an HTTP 404, what is likely wrong.
func (c *Chat) callError(err error) error {
	where := c.Endpoint()
	var apiErr *openai.Error
	if errors.As(err, &apiErr) && apiErr.Request != nil && apiErr.Request.URL != nil {
		where = redactURL(apiErr.Request.URL.String())
	}
	hint := ""
	if apiErr != nil && apiErr.StatusCode == http.StatusNotFound {
		hint = fmt.Sprintf(" (the server has no such path or no model %q: check the base URL, %s, which ends in /v1 for most servers, and the model, %s)",
			c.Model, EnvOpenAIBaseURL, EnvChatModel)
	}
	return fmt.Errorf("llm: chat completions of model %q at %s: %w%s", c.Model, where, err, hint)
}

// messageText returns the text of a message: its content, or the text of
// its parts when a server sends the content as a list of parts.
func messageText(m openai.ChatCompletionMessage) string {
	if m.Content != "" {
		return m.Content
	}
	var raw struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal([]byte(m.RawJSON()), &raw)
	var b strings.Builder
	for _, part := range raw.Content {
		b.WriteString(part.Text + " ")
	}
	return b.String()
}
