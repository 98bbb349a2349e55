package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// TestRunRegistersLogsAndStops runs the program against a stand-in
// manager: it registers, writes its JSON log under the data root, and
// returns nil when its context ends.
func TestRunRegistersLogsAndStops(t *testing.T) {
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodRegisterPlayer},
		func(ctx context.Context, in *leaguesdk.LeagueRegisterRequest) (*leaguesdk.LeagueRegisterResponse, error) {
			return &leaguesdk.LeagueRegisterResponse{
				Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgLeagueRegisterResponse, leaguesdk.LeagueManagerSender,
					leaguesdk.NewToken(), in.ConversationID, time.Now()),
				Status: leaguesdk.StatusAccepted, PlayerID: "P07", LeagueID: "league_test",
			}, nil
		})
	manager := httptest.NewServer(srv)
	defer manager.Close()

	data := t.TempDir()
	stderr := &syncWriter{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-port", "0", "-league", manager.URL + "/mcp", "-name", "Agent Alpha",
			"-strategy", "history", "-data", data}, stderr)
	}()
	logFile := filepath.Join(data, "logs", "agents", "P07.log.jsonl")
	deadline := time.Now().Add(10 * time.Second)
	for !hasLine(logFile, "registered") {
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("no registration in %s (run: %v); stderr:\n%s", logFile, <-done, stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not stop")
	}
	raw, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if regexp.MustCompile(`tok_[0-9a-f]{32}`).Match(raw) || !strings.Contains(string(raw), "LEAGUE_REGISTER_RESPONSE") {
		t.Fatalf("the log must trace messages without their tokens:\n%s", raw)
	}
	if !hasLine(logFile, "player serving") {
		t.Fatal("lines logged before registration are missing from the log file")
	}
	if out := stderr.String(); !strings.Contains(out, "msg=registered") || !strings.Contains(out, "player_id=P07") {
		t.Fatalf("stderr lacks the human-readable registration line:\n%s", out)
	}
}

// syncWriter is a strings.Builder safe for concurrent writes.
type syncWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// hasLine reports whether the JSON-lines file holds a record with message msg.
func hasLine(path, msg string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var rec struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Message == msg {
			return true
		}
	}
	return false
}
