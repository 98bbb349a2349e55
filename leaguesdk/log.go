package leaguesdk

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"regexp"
	"time"
)

// NewLogger returns a logger that writes JSON lines to w, one object per
// record with the fields timestamp (UTC), level, agent_id, message and any
// attributes (message_type, conversation_id and data, when logged with
// MessageAttrs). Auth tokens never reach w: attributes named auth_token or
// token are redacted, and token-shaped strings are masked wherever they are.
func NewLogger(w io.Writer, agentID string, level slog.Leveler) *slog.Logger {
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: replaceAttr})
	return slog.New(h).With(slog.String("agent_id", agentID))
}

var tokenPattern = regexp.MustCompile(`tok[_-][A-Za-z0-9_-]{6,}`)

// Redacted is the text that stands for a token in logs.
const Redacted = "[REDACTED]"

// RedactTokens masks every token-shaped substring of s.
func RedactTokens(s string) string {
	return tokenPattern.ReplaceAllString(s, Redacted)
}

// replaceAttr renames slog's built-in keys to the log schema and removes tokens.
func replaceAttr(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 {
		switch a.Key {
		case slog.TimeKey:
			if t, ok := a.Value.Any().(time.Time); ok {
				return slog.String("timestamp", t.UTC().Format(time.RFC3339Nano))
			}
			a.Key = "timestamp"
			return a
		case slog.MessageKey:
			a.Key = "message"
		}
	}
	return RedactAttr(groups, a)
}

// RedactAttr is a slog ReplaceAttr function that removes auth tokens from
// an attribute: attributes named auth_token, token or admin_token are
// replaced, token-shaped strings (the log message too) are masked, and any
// other value that holds a token (a message, a map, a struct) is logged as
// its JSON with the token masked. Use it in handlers other than NewLogger's.
func RedactAttr(_ []string, a slog.Attr) slog.Attr {
	switch a.Key {
	case "auth_token", "token", "admin_token":
		return slog.String(a.Key, Redacted)
	}
	switch a.Value.Kind() {
	case slog.KindString:
		if s := a.Value.String(); tokenPattern.MatchString(s) {
			return slog.String(a.Key, RedactTokens(s))
		}
	case slog.KindAny:
		switch v := a.Value.Any().(type) {
		case error:
			return slog.String(a.Key, RedactTokens(v.Error()))
		case json.RawMessage:
			return slog.Any(a.Key, json.RawMessage(RedactTokens(string(v))))
		default:
			// Any other value (a message, a map, a struct, a slice) is
			// logged as its JSON, with tokens masked.
			b, err := json.Marshal(v)
			if err != nil || !tokenPattern.Match(b) {
				return a
			}
			return slog.Any(a.Key, json.RawMessage(RedactTokens(string(b))))
		}
	}
	return a
}

// MessageAttrs returns the attributes to log a message with: its
// message_type, conversation_id, and the whole message as data (tokens
// redacted by loggers made with NewLogger).
func MessageAttrs(m Message) []slog.Attr {
	h := m.Header()
	return []slog.Attr{
		slog.String("message_type", string(h.MessageType)),
		slog.String("conversation_id", h.ConversationID),
		slog.Any("data", m),
	}
}

// FanOut returns a slog.Handler that passes every record to each of handlers.
func FanOut(handlers ...slog.Handler) slog.Handler { return fanOut(handlers) }

type fanOut []slog.Handler

func (f fanOut) Enabled(ctx context.Context, l slog.Level) bool {
	for _, h := range f {
		if h.Enabled(ctx, l) {
			return true
		}
	}
	return false
}

func (f fanOut) Handle(ctx context.Context, r slog.Record) error {
	var errs []error
	for _, h := range f {
		if h.Enabled(ctx, r.Level) {
			errs = append(errs, h.Handle(ctx, r.Clone()))
		}
	}
	return errors.Join(errs...)
}

func (f fanOut) WithAttrs(attrs []slog.Attr) slog.Handler {
	out := make(fanOut, len(f))
	for i, h := range f {
		out[i] = h.WithAttrs(attrs)
	}
	return out
}

func (f fanOut) WithGroup(name string) slog.Handler {
	out := make(fanOut, len(f))
	for i, h := range f {
		out[i] = h.WithGroup(name)
	}
	return out
}
