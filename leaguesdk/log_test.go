package leaguesdk_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

var anyToken = regexp.MustCompile(`tok_[0-9a-f]{32}`)

// logLines parses every line of out as a JSON object.
func logLines(t *testing.T, out []byte) []map[string]any {
	t.Helper()
	var lines []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line %q is not JSON: %v", sc.Text(), err)
		}
		lines = append(lines, m)
	}
	return lines
}

func TestLoggerSchema(t *testing.T) {
	var buf bytes.Buffer
	log := leaguesdk.NewLogger(&buf, "P01", slog.LevelDebug)
	msg := chooseParityCall()
	msg.AuthToken = leaguesdk.NewToken()
	log.LogAttrs(context.Background(), slog.LevelInfo, "received", leaguesdk.MessageAttrs(msg)...)
	log.Debug("plain line", "n", 3)
	lines := logLines(t, buf.Bytes())
	if len(lines) != 2 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines {
		for _, k := range []string{"timestamp", "level", "agent_id", "message"} {
			if _, ok := l[k]; !ok {
				t.Fatalf("line %v lacks %s", l, k)
			}
		}
		if l["agent_id"] != "P01" {
			t.Fatalf("agent_id %v", l["agent_id"])
		}
		ts, _ := l["timestamp"].(string)
		if _, err := time.Parse(time.RFC3339Nano, ts); err != nil || !strings.HasSuffix(ts, "Z") {
			t.Fatalf("timestamp %q", ts)
		}
		if _, ok := l["time"]; ok {
			t.Fatal("slog's time key left in")
		}
		if _, ok := l["msg"]; ok {
			t.Fatal("slog's msg key left in")
		}
	}
	first := lines[0]
	if first["level"] != "INFO" || first["message"] != "received" || first["message_type"] != "CHOOSE_PARITY_CALL" || first["conversation_id"] != "conv-r1m1-001" {
		t.Fatalf("line %v", first)
	}
	data, ok := first["data"].(map[string]any)
	if !ok || data["match_id"] != "R1M1" || data["auth_token"] != leaguesdk.Redacted || data["message_type"] != "CHOOSE_PARITY_CALL" {
		t.Fatalf("data %v", first["data"])
	}
	if lines[1]["level"] != "DEBUG" || lines[1]["n"] != float64(3) {
		t.Fatalf("line %v", lines[1])
	}
	if strings.Contains(buf.String(), msg.AuthToken) || anyToken.Match(buf.Bytes()) {
		t.Fatalf("token in log: %s", buf.String())
	}
	// The level filters.
	var quiet bytes.Buffer
	leaguesdk.NewLogger(&quiet, "P01", slog.LevelInfo).Debug("hidden")
	if quiet.Len() != 0 {
		t.Fatalf("debug line at info level: %s", quiet.String())
	}
}

// TestLoggerNeverWritesTokens logs a real token in every way a caller might.
func TestLoggerNeverWritesTokens(t *testing.T) {
	tok := leaguesdk.NewToken()
	var buf bytes.Buffer
	log := leaguesdk.NewLogger(&buf, "league_manager", slog.LevelDebug).With("auth_token", tok)
	resp := &leaguesdk.LeagueRegisterResponse{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgLeagueRegisterResponse, leaguesdk.LeagueManagerSender, tok, "c", fixedNow),
		Status:   leaguesdk.StatusAccepted, PlayerID: "P01", LeagueID: "league_2025_even_odd",
	}
	log.Info("issued "+tok, "token", tok)
	log.Info("registered", "note", "player P01 got "+tok, "admin_token", tok)
	log.Info("failed", "error", errors.New("bad token "+tok))
	log.Info("raw", "body", json.RawMessage(`{"auth_token":"`+tok+`"}`))
	log.Info("map", "params", map[string]any{"auth_token": tok, "nested": map[string]any{"t": tok}})
	log.Info("value message", "value", *resp)
	log.Info("struct", "header", struct{ Token string }{tok}, "list", []string{tok})
	log.Info("group", slog.Group("peer", slog.String("token", tok), slog.String("endpoint", "http://x/mcp?t="+tok)))
	log.LogAttrs(context.Background(), slog.LevelInfo, "message", leaguesdk.MessageAttrs(resp)...)
	log.WithGroup("g").Info("grouped", "auth_token", tok, "s", tok)
	out := buf.String()
	lines := logLines(t, buf.Bytes())
	if len(lines) != 10 {
		t.Fatalf("%d lines", len(lines))
	}
	if strings.Contains(out, tok) || strings.Contains(out, strings.TrimPrefix(tok, "tok_")) || anyToken.MatchString(out) {
		t.Fatalf("token in log:\n%s", out)
	}
	if !strings.Contains(out, leaguesdk.Redacted) || !strings.Contains(out, `"player_id":"P01"`) {
		t.Fatalf("redaction lost the rest of the line:\n%s", out)
	}
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
}

func TestFanOut(t *testing.T) {
	var a, b bytes.Buffer
	h := leaguesdk.FanOut(
		leaguesdk.NewLogger(&a, "P01", slog.LevelDebug).Handler(),
		slog.NewJSONHandler(&b, &slog.HandlerOptions{Level: slog.LevelWarn}),
	)
	log := slog.New(h).With("k", "v").WithGroup("g")
	log.Debug("only a", "x", 1)
	log.Warn("both", "x", 2)
	if n := len(logLines(t, a.Bytes())); n != 2 {
		t.Fatalf("a has %d lines", n)
	}
	bl := logLines(t, b.Bytes())
	if len(bl) != 1 || bl[0]["k"] != "v" || bl[0]["g"].(map[string]any)["x"] != float64(2) {
		t.Fatalf("b: %s", b.String())
	}
	if !h.Enabled(context.Background(), slog.LevelDebug) {
		t.Fatal("fan-out not enabled at debug")
	}
}

func TestServerAndClientLogs(t *testing.T) {
	var sbuf, cbuf bytes.Buffer
	var mu lockedWriter
	mu.w = &sbuf
	var cw lockedWriter
	cw.w = &cbuf
	p := newTestPeer(t, leaguesdk.ServerConfig{Logger: leaguesdk.NewLogger(&mu, "P01", slog.LevelDebug)})
	c := fastClient(t, leaguesdk.ClientConfig{Logger: leaguesdk.NewLogger(&cw, "REF01", slog.LevelDebug)})
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
		lines := logLines(t, out)
		if len(lines) < 2 {
			t.Fatalf("%s: %d lines", name, len(lines))
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
