package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"google.golang.org/genai"

	"github.com/agentleague/league/player"
)

// The environment variables [GeminiFromEnv] reads, the module's own first.
const (
	// EnvGeminiBaseURL is the generate-content API's base URL; it
	// overrides GOOGLE_GEMINI_BASE_URL.
	EnvGeminiBaseURL = "LEAGUE_LLM_BASE_URL"
	// EnvGoogleBaseURL is the base URL Google's Gen AI SDKs read.
	EnvGoogleBaseURL = "GOOGLE_GEMINI_BASE_URL"
	// EnvGeminiModel is the model name. Required.
	EnvGeminiModel = "LEAGUE_LLM_MODEL"
	// EnvGeminiAPIKey is the API key; it overrides GEMINI_API_KEY and
	// GOOGLE_API_KEY.
	EnvGeminiAPIKey = "LEAGUE_LLM_API_KEY"
	// EnvGeminiKey and EnvGoogleAPIKey are the API keys Google's Gen AI
	// SDKs read. One of the three is required.
	EnvGeminiKey    = "GEMINI_API_KEY"
	EnvGoogleAPIKey = "GOOGLE_API_KEY"
)

// Gemini is a strategy that asks a language model through Google's
// generate-content API (the Gemini API), with Google's Gen AI SDK
// (google.golang.org/genai). [Chat] speaks the chat completions API of most
// other servers. It sends the prompt ([Prompt]) with a system instruction
// and asks for a structured answer, {"parity": "even"|"odd"}, by a response
// schema; a server that refuses the schema (HTTP 400) is asked again
// without it, and from then on never with it, and its free text is read
// tolerantly ([ParseParity]). Calls answered 408, 429 or 5xx are retried
// within the move's deadline.
//
// A failed call, an answer without a parity, or an answer after the
// context ends is an error, and the Agent answers with its fallback
// instead. An HTTP error of the API is a [genai.APIError] (test with
// [errors.As]).
//
// Set the fields before the first call; a Gemini must not be copied after.
type Gemini struct {
	// BaseURL is the API's base URL. Default [DefaultGeminiBaseURL].
	BaseURL string
	// Model is the model name ("gemini-2.5-flash"). Required.
	Model string
	// APIKey is sent in the x-goog-api-key header; it is never logged.
	// Required.
	APIKey string
	// Options are the settings both model strategies share; the system
	// prompt is sent as the system instruction.
	Options

	once    sync.Once
	client  *genai.Client
	initErr error
}

// GeminiFromEnv returns a [Gemini] configured from LEAGUE_LLM_MODEL
// (required), the API key of LEAGUE_LLM_API_KEY, GEMINI_API_KEY or
// GOOGLE_API_KEY (one required), and the base URL of LEAGUE_LLM_BASE_URL or
// GOOGLE_GEMINI_BASE_URL (optional: Google's by default).
func GeminiFromEnv() (*Gemini, error) {
	g := &Gemini{}
	g.BaseURL = firstEnv(EnvGeminiBaseURL, EnvGoogleBaseURL)
	g.Model = firstEnv(EnvGeminiModel)
	g.APIKey = firstEnv(EnvGeminiAPIKey, EnvGeminiKey, EnvGoogleAPIKey)
	var missing []string
	if g.Model == "" {
		missing = append(missing, "a model: set "+EnvGeminiModel+" (for example "+EnvGeminiModel+"=gemini-2.5-flash)")
	}
	if g.APIKey == "" {
		missing = append(missing, "an API key: set "+EnvGeminiKey+", "+EnvGoogleAPIKey+" or "+EnvGeminiAPIKey)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("llm: the llm strategy needs %s", strings.Join(missing, ", and "))
	}
	return g, nil
}

func (g *Gemini) init() {
	attempts, initial, maxDelay, jitter := int32(g.retries()+1), 0.25, maxRetryDelay.Seconds(), 0.1
	g.client, g.initErr = genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: g.APIKey, Backend: genai.BackendGeminiAPI, HTTPClient: g.HTTPClient,
		HTTPOptions: genai.HTTPOptions{BaseURL: g.BaseURL, RetryOptions: &genai.HTTPRetryOptions{
			Attempts: &attempts, InitialDelay: &initial, MaxDelay: &maxDelay, Jitter: &jitter}},
	})
}

// DefaultGeminiBaseURL is the base URL of Google's generate-content API,
// the default of [Gemini.BaseURL].
const DefaultGeminiBaseURL = "https://generativelanguage.googleapis.com/"

// Endpoint returns the base URL of the API the strategy calls (default
// [DefaultGeminiBaseURL]), without credentials or query.
func (g *Gemini) Endpoint() string {
	if g.BaseURL == "" {
		return DefaultGeminiBaseURL
	}
	return redactURL(g.BaseURL)
}

// ChooseParity implements [player.Strategy].
func (g *Gemini) ChooseParity(ctx context.Context, call player.ParityCall) (player.Parity, error) {
	if g.Model == "" || g.APIKey == "" {
		return "", fmt.Errorf("llm: Gemini needs a Model (%s) and an APIKey (%s)", EnvGeminiModel, EnvGeminiKey)
	}
	g.once.Do(g.init)
	if g.initErr != nil {
		return "", fmt.Errorf("llm: %w", g.initErr)
	}
	system, prompt := g.prompts(call)
	var zero float32
	cfg := &genai.GenerateContentConfig{SystemInstruction: genai.NewContentFromText(system, genai.RoleUser), Temperature: &zero}
	schemed := g.structured()
	if schemed {
		cfg.ResponseMIMEType, cfg.ResponseSchema = "application/json", &genai.Schema{Type: genai.TypeObject,
			Properties: map[string]*genai.Schema{"parity": {Type: genai.TypeString, Enum: []string{"even", "odd"}}},
			Required:   []string{"parity"}}
	}
	contents := genai.Text(prompt)
	answer, err := g.client.Models.GenerateContent(ctx, g.Model, contents, cfg)
	var apiErr genai.APIError
	if schemed && errors.As(err, &apiErr) && apiErr.Code == http.StatusBadRequest {
		g.unschemed.Store(true) // and never again
		cfg.ResponseMIMEType, cfg.ResponseSchema = "", nil
		answer, err = g.client.Models.GenerateContent(ctx, g.Model, contents, cfg)
	}
	if err != nil {
		hint := ""
		if errors.As(err, &apiErr) && apiErr.Code == http.StatusNotFound {
			hint = fmt.Sprintf(" (the server has no such path or no model %q: check the base URL, %s, and the model, %s)",
				g.Model, EnvGoogleBaseURL, EnvGeminiModel)
		}
		return "", fmt.Errorf("llm: generate content of model %q at %s: %w%s", g.Model, g.Endpoint(), err, hint)
	}
	if u := answer.UsageMetadata; u != nil {
		g.count(int64(u.PromptTokenCount), int64(u.CandidatesTokenCount)+int64(u.ThoughtsTokenCount))
	}
	if len(answer.Candidates) == 0 || answer.Candidates[0].Content == nil {
		return "", errors.New("llm: the model's answer has no candidates")
	}
	var text strings.Builder
	for _, p := range answer.Candidates[0].Content.Parts {
		if p != nil && !p.Thought {
			text.WriteString(p.Text + " ")
		}
	}
	return ParseParity(text.String())
}
