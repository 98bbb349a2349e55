package agentkit

import (
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
