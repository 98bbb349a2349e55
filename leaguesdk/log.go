package leaguesdk

import (
	"encoding/json"
	"log/slog"
	"regexp"
	"strings"
)

var tokenPattern = regexp.MustCompile(`tok[_-][A-Za-z0-9_-]{6,}`)

// Redacted is the text that stands for a token in logs.
const Redacted = "[REDACTED]"

// RedactTokens masks every token-shaped substring of s.
func RedactTokens(s string) string {
	if !strings.Contains(s, "tok") { // what every token starts with: most text has none
		return s
	}
	return tokenPattern.ReplaceAllString(s, Redacted)
}

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
