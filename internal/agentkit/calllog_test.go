package agentkit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/internal/agentkit"
	"github.com/agentleague/league/leaguesdk"
)

// logLines returns the JSON lines of the log file at path.
func logLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// callOnce serves one GAME_OVER through a Server whose middleware logs on a
// logger at level, and returns the log lines.
func callOnce(t *testing.T, level slog.Level) []map[string]any {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agent.log.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	log := agentkit.NewLogger(f, "player:P01", level)
	var order []string
	mark := func(next leaguesdk.HandlerFunc) leaguesdk.HandlerFunc {
		return func(ctx context.Context, req *leaguesdk.Request) (any, error) {
			order = append(order, "inner")
			return next(ctx, req)
		}
	}
	s := leaguesdk.NewServer(leaguesdk.ServerConfig{Middleware: []leaguesdk.Middleware{agentkit.LogCalls(log), mark}})
	leaguesdk.Handle(s, leaguesdk.Tool{Name: leaguesdk.MethodNotifyMatchResult},
		func(_ context.Context, _ *leaguesdk.Request, in *leaguesdk.GameOver) (*leaguesdk.Ack, error) {
			order = append(order, "handler")
			return &leaguesdk.Ack{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgAck, "player:P01", "tok_secret_123456", in.ConversationID, time.Now()),
				Status: leaguesdk.AckOK, Acknowledged: leaguesdk.MsgGameOver, MatchID: in.MatchID}, nil
		})
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	msg := leaguesdk.GameOver{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgGameOver, "referee:REF01", "tok_secret_123456", "conv-7", time.Now()),
		MatchID: "R1M1", GameType: leaguesdk.GameEvenOdd,
		GameResult: leaguesdk.GameResult{Status: leaguesdk.ResultWin, WinnerPlayerID: leaguesdk.OptionalString("P01"), DrawnNumber: 8, NumberParity: leaguesdk.Even,
			Choices: map[string]leaguesdk.Parity{"P01": leaguesdk.Even, "P02": leaguesdk.Odd}, Reason: "secret-reason-text"}}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": leaguesdk.MethodNotifyMatchResult, "params": msg})
	resp, err := http.Post(ts.URL+"/mcp", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var reply struct {
		Error json.RawMessage `json:"error"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&reply)
	resp.Body.Close()
	if reply.Error != nil {
		t.Fatalf("call refused: %s", reply.Error)
	}
	if strings.Join(order, ",") != "inner,handler" {
		t.Fatalf("ran %v", order)
	}
	return logLines(t, path)
}

func TestLogCallsInfoLineCarriesIDsNotTheMessage(t *testing.T) {
	lines := callOnce(t, slog.LevelInfo)
	if len(lines) != 1 {
		t.Fatalf("%d lines at info, want 1: %v", len(lines), lines)
	}
	l := lines[0]
	for k, want := range map[string]string{"message": "served", "level": "INFO", "tool": leaguesdk.MethodNotifyMatchResult,
		"message_type": "GAME_OVER", "sender": "referee:REF01", "conversation_id": "conv-7", "outcome": "ok"} {
		if l[k] != want {
			t.Errorf("%s = %v, want %q", k, l[k], want)
		}
	}
	raw, _ := json.Marshal(l)
	for _, body := range []string{"secret-reason-text", "R1M1", "tok_secret", `"data"`} {
		if strings.Contains(string(raw), body) {
			t.Errorf("info line carries %s: %s", body, raw)
		}
	}
}

func TestLogCallsDebugLinesCarryWholeMessagesRedacted(t *testing.T) {
	lines := callOnce(t, slog.LevelDebug)
	var got []string
	for _, l := range lines {
		got = append(got, l["message"].(string))
	}
	if strings.Join(got, ",") != "received,served,sent" {
		t.Fatalf("lines %v, want received, served, sent", got)
	}
	received, _ := json.Marshal(lines[0]["data"])
	sent, _ := json.Marshal(lines[2]["data"])
	if !strings.Contains(string(received), "secret-reason-text") || !strings.Contains(string(sent), `"acknowledged":"GAME_OVER"`) {
		t.Fatalf("debug lines without the whole messages: %s / %s", received, sent)
	}
	if strings.Contains(string(received)+string(sent), "tok_secret") {
		t.Fatal("a token reached the log")
	}
}

func TestLogOutcomeGoesOnTheCallsLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.log.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	log := agentkit.NewLogger(f, "player:P01", slog.LevelInfo)
	late := make(chan context.Context, 1)
	s := leaguesdk.NewServer(leaguesdk.ServerConfig{Middleware: []leaguesdk.Middleware{agentkit.LogCalls(log)}})
	leaguesdk.Handle(s, leaguesdk.Tool{Name: leaguesdk.MethodNotifyMatchResult},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.GameOver) (*leaguesdk.Ack, error) {
			agentkit.LogOutcome(ctx, log, "match over", slog.String("match_id", in.MatchID), slog.String("result", "WIN"))
			agentkit.LogOutcome(ctx, log, "second outcome", slog.Int("n", 2))
			late <- ctx
			return &leaguesdk.Ack{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgAck, "player:P01", "", in.ConversationID, time.Now()),
				Status: leaguesdk.AckOK, Acknowledged: leaguesdk.MsgGameOver, MatchID: in.MatchID}, nil
		})
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	msg := leaguesdk.GameOver{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgGameOver, "referee:REF01", "", "conv-9", time.Now()),
		MatchID: "R2M3", GameType: leaguesdk.GameEvenOdd,
		GameResult: leaguesdk.GameResult{Status: leaguesdk.ResultWin, WinnerPlayerID: leaguesdk.OptionalString("P01"), DrawnNumber: 8, NumberParity: leaguesdk.Even,
			Choices: map[string]leaguesdk.Parity{"P01": leaguesdk.Even, "P02": leaguesdk.Odd}}}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": leaguesdk.MethodNotifyMatchResult, "params": msg})
	resp, err := http.Post(ts.URL+"/mcp", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	// Said with the call's context once the call is answered: its line is
	// written, so this one stands alone. So does one said outside any call.
	agentkit.LogOutcome(<-late, log, "after the reply", slog.Int("n", 3))
	agentkit.LogOutcome(context.Background(), log, "outside a call", slog.Int("n", 4))

	lines := logLines(t, path)
	var got []string
	for _, l := range lines {
		got = append(got, l["message"].(string))
	}
	if strings.Join(got, ",") != "second outcome,match over,after the reply,outside a call" {
		t.Fatalf("lines %v", got)
	}
	call := lines[1]
	for k, want := range map[string]any{"match_id": "R2M3", "result": "WIN", "tool": leaguesdk.MethodNotifyMatchResult,
		"message_type": "GAME_OVER", "sender": "referee:REF01", "conversation_id": "conv-9", "outcome": "ok", "agent_id": "player:P01"} {
		if call[k] != want {
			t.Errorf("call line %s = %v, want %v", k, call[k], want)
		}
	}
	if _, ok := call["took"]; !ok {
		t.Errorf("call line without took: %v", call)
	}
	for i, l := range []map[string]any{lines[0], lines[2], lines[3]} {
		if _, ok := l["tool"]; ok || l["n"] != float64([]int{2, 3, 4}[i]) {
			t.Errorf("line of its own %v", l)
		}
	}
}
