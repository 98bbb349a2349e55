package agentkit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

var anyToken = regexp.MustCompile(`tok_[0-9a-f]{32}`)

// fixedNow is the clock of the messages the log tests log.
var fixedNow = time.Date(2025, 1, 15, 10, 15, 5, 0, time.UTC)

// logLines parses every line of out as a JSON object.
func jsonLines(t *testing.T, out []byte) []map[string]any {
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
	log := NewLogger(&buf, "P01", slog.LevelDebug)
	msg := &leaguesdk.ChooseParityCall{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityCall, "referee:REF01", leaguesdk.NewToken(), "conv-r1m1-001", fixedNow),
		MatchID:  "R1M1", PlayerID: "P01", GameType: leaguesdk.GameEvenOdd,
		Context:  leaguesdk.ParityContext{OpponentID: "P02", RoundID: 1},
		Deadline: leaguesdk.FormatTime(fixedNow.Add(30 * time.Second)),
	}
	log.LogAttrs(context.Background(), slog.LevelInfo, "received", MessageAttrs(msg)...)
	log.Debug("plain line", "n", 3)
	lines := jsonLines(t, buf.Bytes())
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
	NewLogger(&quiet, "P01", slog.LevelInfo).Debug("hidden")
	if quiet.Len() != 0 {
		t.Fatalf("debug line at info level: %s", quiet.String())
	}
}

// TestLoggerNeverWritesTokens logs a real token in every way a caller might.
func TestLoggerNeverWritesTokens(t *testing.T) {
	tok := leaguesdk.NewToken()
	var buf bytes.Buffer
	log := NewLogger(&buf, "league_manager", slog.LevelDebug).With("auth_token", tok)
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
	log.LogAttrs(context.Background(), slog.LevelInfo, "message", MessageAttrs(resp)...)
	log.WithGroup("g").Info("grouped", "auth_token", tok, "s", tok)
	out := buf.String()
	lines := jsonLines(t, buf.Bytes())
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
