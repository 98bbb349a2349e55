package strategies

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
)

// APIError is the error of a model's API that answered with an HTTP error
// status: the status, and what the JSON error body says when it says it
// in the shape of either API ({"error":{"message","type","code"}} for chat
// completions, {"error":{"code","message","status"}} for generate
// content). Test for it with [errors.As].
type APIError struct {
	// StatusCode is the HTTP status of the answer.
	StatusCode int
	// Message is the error's message, or the start of the body when it has
	// none.
	Message string
	// Type is the error's type (chat completions) or status (generate
	// content: "INVALID_ARGUMENT"); empty when the body gives none.
	Type string
	// Code is the error's code, as text; empty when the body gives none.
	Code string
}

// Error says what the API answered.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "strategies: the model's API answered HTTP %d", e.StatusCode)
	for _, s := range []string{e.Type, e.Code} {
		if s != "" {
			b.WriteString(" " + s)
		}
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	return b.String()
}

// Temporary reports whether the same call may succeed later: the API was
// busy (429) or failed (5xx), rather than refusing the request.
func (e *APIError) Temporary() bool {
	return e.StatusCode == http.StatusTooManyRequests || e.StatusCode >= 500
}

// apiError reads an error answer.
func apiError(status int, body []byte) *APIError {
	e := &APIError{StatusCode: status}
	var shape struct {
		Error json.RawMessage `json:"error"`
	}
	var detail struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Status  string          `json:"status"`
		Code    json.RawMessage `json:"code"`
	}
	switch {
	case json.Unmarshal(body, &shape) != nil || len(shape.Error) == 0:
		e.Message = clip(strings.TrimSpace(string(body)))
	case json.Unmarshal(shape.Error, &e.Message) == nil: // {"error": "text"}
	case json.Unmarshal(shape.Error, &detail) == nil:
		e.Message, e.Type = detail.Message, detail.Type
		if e.Type == "" {
			e.Type = detail.Status
		}
		if c := strings.Trim(string(detail.Code), `"`); c != "null" {
			e.Code = c
		}
	default:
		e.Message = clip(string(shape.Error))
	}
	return e
}

// postJSON posts body as JSON to url with header and decodes the answer
// into out. An HTTP error status gives an *APIError; ctx bounds the call.
func postJSON(ctx context.Context, client *http.Client, url string, header http.Header, body, out any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("strategies: the model's URL: %w", err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("strategies: calling the model: %w", err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxLLMReply))
	if err != nil {
		return fmt.Errorf("strategies: reading the model's answer: %w", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return apiError(resp.StatusCode, answer)
	}
	if err := json.Unmarshal(answer, out); err != nil {
		return fmt.Errorf("strategies: the model's answer is not JSON (%w): %s", err, clip(string(answer)))
	}
	return nil
}

// thinking matches the reasoning some models write before their answer.
var thinking = regexp.MustCompile(`(?is)<think>.*?</think>`)

// parseAnswer returns the parity of a model's answer: the first even or
// odd word once any <think>…</think> reasoning is taken out.
func parseAnswer(text string) (string, error) {
	p, err := ParseParity(thinking.ReplaceAllString(text, " "))
	return string(p), err
}
