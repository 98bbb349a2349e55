package leaguesdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/agentleague/league/internal/agentkit"
	"github.com/agentleague/league/internal/redact"
	"github.com/agentleague/league/leaguesdk"
)

// jsonLineCount returns the number of lines of out, each of which must be
// a JSON object.
func jsonLineCount(t *testing.T, out []byte) int {
	t.Helper()
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	for _, l := range lines {
		if len(l) == 0 || l[0] != '{' || !json.Valid(l) {
			t.Fatalf("log line %q is not a JSON object", l)
		}
	}
	return len(lines)
}

func TestRedactHelpers(t *testing.T) {
	tok := leaguesdk.NewToken()
	if got := leaguesdk.RedactTokens("a " + tok + " b tok-ref01-abc123"); got != "a [REDACTED] b [REDACTED]" {
		t.Fatalf("RedactTokens: %q", got)
	}
	if got := leaguesdk.RedactTokens("token bucket"); got != "token bucket" {
		t.Fatalf("RedactTokens changed %q", got)
	}
	// RedactAttr in a handler of the caller's own.
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: leaguesdk.RedactAttr}))
	log.Info("x", "auth_token", tok, "other", "see "+tok)
	if strings.Contains(buf.String(), tok) {
		t.Fatalf("text handler: %s", buf.String())
	}
	// A raw message is masked in a copy: the caller's bytes stay as they were.
	raw := json.RawMessage(`{"note":"` + tok + `","match_id":"R1M1"}`)
	before := string(raw)
	got := leaguesdk.RedactAttr(nil, slog.Any("message", raw))
	if string(raw) != before {
		t.Fatalf("RedactAttr changed the caller's message to %s", raw)
	}
	if s := string(got.Value.Any().(json.RawMessage)); s != `{"note":"[REDACTED]","match_id":"R1M1"}` {
		t.Fatalf("RedactAttr(raw message) = %s", s)
	}
	// Any other value is logged as its JSON, masked.
	got = leaguesdk.RedactAttr(nil, slog.Any("details", map[string]string{"hint": "use " + tok}))
	if s := string(got.Value.Any().(json.RawMessage)); s != `{"hint":"use [REDACTED]"}` {
		t.Fatalf("RedactAttr(map) = %s", s)
	}
	if leaguesdk.Redacted != redact.Mask {
		t.Fatalf("Redacted is %q, the masking writes %q", leaguesdk.Redacted, redact.Mask)
	}
}

func TestServerAndClientLogs(t *testing.T) {
	var sbuf, cbuf bytes.Buffer
	var mu lockedWriter
	mu.w = &sbuf
	var cw lockedWriter
	cw.w = &cbuf
	p := newTestPeer(t, leaguesdk.ServerConfig{Logger: agentkit.NewLogger(&mu, "P01", slog.LevelDebug)})
	c := fastClient(t, leaguesdk.ClientConfig{Logger: agentkit.NewLogger(&cw, "REF01", slog.LevelDebug)})
	call := chooseParityCall()
	call.AuthToken = leaguesdk.NewToken()
	if err := c.Call(context.Background(), p.ts.URL+"/mcp", leaguesdk.MethodChooseParity, call, nil); err != nil {
		t.Fatal(err)
	}
	bad := chooseParityCall()
	bad.AuthToken = leaguesdk.NewToken()
	bad.Protocol = "league.v1"
	_ = c.Call(context.Background(), p.ts.URL+"/mcp", leaguesdk.MethodChooseParity, bad, nil)
	_, _ = p.rpc(t, `{"jsonrpc":"2.0","id":1,"method":"fail","params":{"mode":"panic"}}`)
	for name, out := range map[string][]byte{"server": mu.bytes(), "client": cw.bytes()} {
		if n := jsonLineCount(t, out); n < 2 {
			t.Fatalf("%s: %d lines", name, n)
		}
		if strings.Contains(string(out), call.AuthToken) || strings.Contains(string(out), bad.AuthToken) {
			t.Fatalf("%s log has a token:\n%s", name, out)
		}
	}
	s := string(mu.bytes())
	if !strings.Contains(s, `"message":"request served"`) || !strings.Contains(s, `"message":"request refused"`) || !strings.Contains(s, `"message":"handler panic"`) {
		t.Fatalf("server log:\n%s", s)
	}
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func (l *lockedWriter) bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]byte(nil), l.w.Bytes()...)
}
