package agentkit

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// NewLogger returns a logger that writes JSON lines to w, one object per
// record with the fields timestamp (UTC), level, agent_id, message and any
// attributes (message_type, conversation_id and data, when logged with
// [MessageAttrs]). Auth tokens never reach w: attributes named auth_token or
// token are redacted, and token-shaped strings are masked wherever they are.
func NewLogger(w io.Writer, agentID string, level slog.Leveler) *slog.Logger {
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: replaceAttr})
	return slog.New(h).With(slog.String("agent_id", agentID))
}

// replaceAttr renames slog's built-in keys to the log schema and removes
// tokens: the ReplaceAttr of NewLogger's slog.JSONHandler.
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
	return leaguesdk.RedactAttr(groups, a)
}

// MessageAttrs returns the attributes to log a message with: its
// message_type, conversation_id, and the whole message as data (tokens
// redacted by loggers made with [NewLogger]).
func MessageAttrs(m leaguesdk.Message) []slog.Attr {
	h := m.Header()
	return []slog.Attr{
		slog.String("message_type", string(h.MessageType)),
		slog.String("conversation_id", h.ConversationID),
		slog.Any("data", m),
	}
}

// FanOut returns a [slog.Handler] that passes every record to each of handlers.
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
	var errs []error // only the errors: a slice of every handler's nil would cost an allocation per record
	for _, h := range f {
		if h.Enabled(ctx, r.Level) {
			if err := h.Handle(ctx, r.Clone()); err != nil {
				errs = append(errs, err)
			}
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
