package leaguesdk

import (
	"encoding/json"
	"log/slog"

	wirejson "github.com/agentleague/league/internal/json"
	"github.com/agentleague/league/internal/redact"
)

// Redacted is the text that stands for a token in logs.
const Redacted = "[REDACTED]"

// RedactTokens masks every token-shaped substring of s: "tok", then "_"
// or "-", then six or more ASCII letters, digits, "_" or "-" (what the
// regular expression tok[_-][A-Za-z0-9_-]{6,} matches). It returns s
// itself when s holds no token.
func RedactTokens(s string) string { return redact.String(s) }

// RedactAttr is a slog ReplaceAttr function that removes auth tokens from
// an attribute: attributes named auth_token, token or admin_token are
// replaced, token-shaped strings (the log message too) are masked, and any
// other value that holds a token (a message, a map, a struct) is logged as
// its JSON with the token masked. Use it as the ReplaceAttr of a handler.
func RedactAttr(_ []string, a slog.Attr) slog.Attr {
	switch a.Key {
	case "auth_token", "token", "admin_token":
		return slog.String(a.Key, Redacted)
	}
	switch a.Value.Kind() {
	case slog.KindString:
		if s := a.Value.String(); redact.Has(s) {
			return slog.String(a.Key, RedactTokens(s))
		}
	case slog.KindAny:
		switch v := a.Value.Any().(type) {
		case error:
			return slog.String(a.Key, RedactTokens(v.Error()))
		case json.RawMessage:
			if !redact.Has(v) {
				return a
			}
			return slog.Any(a.Key, json.RawMessage(redact.Append(nil, v)))
		default:
			// Any other value (a message, a map, a struct, a slice) is
			// logged as its JSON, with tokens masked.
			b, err := wirejson.Marshal(v)
			if err != nil || !redact.Has(b) {
				return a
			}
			return slog.Any(a.Key, json.RawMessage(redact.Append(b[:0], b)))
		}
	}
	return a
}
