package agentkit_test

import (
	"bytes"
	"context"
	"encoding/json"
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
	for line := range strings.Lines(string(raw)) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// logFile returns a logger at level writing to a file of its own, and the
// file's path.
func logFile(t *testing.T, level slog.Level) (*slog.Logger, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agent.log.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return agentkit.NewLogger(f, "player:P01", level), path
}

// gameOver is a GAME_OVER of match matchID in conversation conv, carrying
// token and reason.
func gameOver(token, conv, matchID, reason string) leaguesdk.GameOver {
	return leaguesdk.GameOver{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgGameOver, "referee:REF01", token, conv, time.Now()),
		MatchID: matchID, GameType: leaguesdk.GameEvenOdd,
		GameResult: leaguesdk.GameResult{Status: leaguesdk.ResultWin, WinnerPlayerID: leaguesdk.OptionalString("P01"), DrawnNumber: 8, NumberParity: leaguesdk.Even,
			Choices: map[string]leaguesdk.Parity{"P01": leaguesdk.Even, "P02": leaguesdk.Odd}, Reason: reason}}
}

// serveGameOver serves msg through a Server with middleware mw whose
// GAME_OVER handler runs do and acknowledges with the message's token, and
// fails t when the call is refused.
func serveGameOver(t *testing.T, mw []leaguesdk.Middleware, msg leaguesdk.GameOver, do func(ctx context.Context, in *leaguesdk.GameOver)) {
	t.Helper()
	if refused := serveGameOverWith(t, mw, msg, func(ctx context.Context, in *leaguesdk.GameOver) error { do(ctx, in); return nil }); refused != nil {
		t.Fatalf("call refused: %s", refused)
	}
}

// serveGameOverWith serves msg as serveGameOver does, the call refused
// with the error do returns, and returns the reply's error member (nil
// when the call was answered).
func serveGameOverWith(t *testing.T, mw []leaguesdk.Middleware, msg leaguesdk.GameOver, do func(ctx context.Context, in *leaguesdk.GameOver) error) json.RawMessage {
	t.Helper()
	s := leaguesdk.NewServer(leaguesdk.ServerConfig{Middleware: mw})
	leaguesdk.Handle(s, leaguesdk.Tool{Name: leaguesdk.MethodNotifyMatchResult},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.GameOver) (*leaguesdk.Ack, error) {
			if err := do(ctx, in); err != nil {
				return nil, err
			}
			return &leaguesdk.Ack{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgAck, "player:P01", in.AuthToken, in.ConversationID, time.Now()),
				Status: leaguesdk.AckOK, Acknowledged: leaguesdk.MsgGameOver, MatchID: in.MatchID}, nil
		})
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
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
	return reply.Error
}

// callOnce serves one GAME_OVER through a Server whose middleware logs on a
// logger at level, and returns the log lines.
func callOnce(t *testing.T, level slog.Level) []map[string]any {
	t.Helper()
	log, path := logFile(t, level)
	var order []string
	mark := func(next leaguesdk.HandlerFunc) leaguesdk.HandlerFunc {
		return func(ctx context.Context, req *leaguesdk.Request) (any, error) {
			order = append(order, "inner")
			return next(ctx, req)
		}
	}
	serveGameOver(t, []leaguesdk.Middleware{agentkit.LogCalls(log), mark}, gameOver("tok_secret_123456", "conv-7", "R1M1", "secret-reason-text"),
		func(context.Context, *leaguesdk.GameOver) { order = append(order, "handler") })
	if strings.Join(order, ",") != "inner,handler" {
		t.Fatalf("ran %v", order)
	}
	return logLines(t, path)
}

// A call whose handler says nothing is logged at debug only: at info an
// agent writes a line per match (what handlers say), not one per call.
func TestLogCallsPlainCallOnlyAtDebug(t *testing.T) {
	if lines := callOnce(t, slog.LevelInfo); len(lines) != 0 {
		t.Fatalf("%d lines at info, want none: %v", len(lines), lines)
	}
	lines := callOnce(t, slog.LevelDebug)
	if len(lines) != 3 || lines[1]["message"] != "served" || lines[1]["level"] != "DEBUG" {
		t.Fatalf("at debug, want received, served (DEBUG), sent: %v", lines)
	}
}

func TestLogCallsRefusedCallInfoLineCarriesIDsNotTheMessage(t *testing.T) {
	log, path := logFile(t, slog.LevelInfo)
	refused := serveGameOverWith(t, []leaguesdk.Middleware{agentkit.LogCalls(log)}, gameOver("tok_secret_123456", "conv-7", "R1M1", "secret-reason-text"),
		func(context.Context, *leaguesdk.GameOver) error {
			return &leaguesdk.Error{Code: leaguesdk.CodeMatchNotFound, Message: "no such match"}
		})
	if refused == nil {
		t.Fatal("the call was answered")
	}
	lines := logLines(t, path)
	if len(lines) != 1 {
		t.Fatalf("%d lines at info, want 1: %v", len(lines), lines)
	}
	l := lines[0]
	for k, want := range map[string]string{"message": "served", "level": "INFO", "tool": leaguesdk.MethodNotifyMatchResult,
		"message_type": "GAME_OVER", "sender": "referee:REF01", "conversation_id": "conv-7", "outcome": string(leaguesdk.CodeMatchNotFound)} {
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
	log, path := logFile(t, slog.LevelInfo)
	late := make(chan context.Context, 1)
	serveGameOver(t, []leaguesdk.Middleware{agentkit.LogCalls(log)}, gameOver("", "conv-9", "R2M3", ""),
		func(ctx context.Context, in *leaguesdk.GameOver) {
			agentkit.LogOutcome(ctx, log, "match over", slog.String("match_id", in.MatchID), slog.String("result", "WIN"))
			agentkit.LogOutcome(ctx, log, "second outcome", slog.Int("n", 2))
			late <- ctx
		})
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
