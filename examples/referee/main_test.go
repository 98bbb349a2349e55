package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
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
// manager: it registers, writes its JSON log and the games registry under
// the data root, and returns nil when its context ends.
func TestRunRegistersLogsAndStops(t *testing.T) {
	var mu sync.Mutex
	var meta leaguesdk.RefereeMeta
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodRegisterReferee},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.RefereeRegisterRequest) (*leaguesdk.RefereeRegisterResponse, error) {
			mu.Lock()
			meta = in.RefereeMeta
			mu.Unlock()
			return &leaguesdk.RefereeRegisterResponse{
				Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgRefereeRegisterResponse, leaguesdk.LeagueManagerSender,
					leaguesdk.NewToken(), in.ConversationID, time.Now()),
				Status: leaguesdk.StatusAccepted, RefereeID: "REF03", LeagueID: "league_test",
			}, nil
		})
	manager := httptest.NewServer(srv)
	defer manager.Close()

	data := t.TempDir()
	stderr := &syncWriter{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-port", "0", "-league", manager.URL + "/mcp", "-name", "Referee Alpha",
			"-max-concurrent", "5", "-data", data}, stderr)
	}()
	logFile := filepath.Join(data, "logs", "agents", "REF03.log.jsonl")
	deadline := time.Now().Add(10 * time.Second)
	for !hasLine(logFile, "registered") {
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("no registration in %s (run: %v); stderr:\n%s", logFile, <-done, stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	if meta.DisplayName != "Referee Alpha" || meta.MaxConcurrentMatches != 5 || len(meta.GameTypes) != 1 ||
		!strings.HasPrefix(meta.ContactEndpoint, "http://127.0.0.1:") {
		t.Errorf("registered as %+v", meta)
	}
	mu.Unlock()
	if _, err := os.Stat(filepath.Join(data, "config", "games", "games_registry.json")); err != nil {
		t.Errorf("games registry: %v", err)
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
	if raw, err := os.ReadFile(logFile); err != nil || regexp.MustCompile(`tok_[0-9a-f]{32}`).Match(raw) {
		t.Errorf("the log file must hold no token (read: %v):\n%s", err, raw)
	}
	if !strings.Contains(stderr.String(), "registered") {
		t.Errorf("stderr has no registration line:\n%s", stderr)
	}
}

func TestRunRejectsBadFlags(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-help"}, &out); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-help: %v", err)
	}
	if !strings.Contains(out.String(), "-move-timeout") {
		t.Fatalf("usage lacks -move-timeout:\n%s", out.String())
	}
	if err := run(context.Background(), []string{"-league", "not a url"}, &out); err == nil {
		t.Fatal("a bad -league was accepted")
	}
}

func hasLine(path, text string) bool {
	b, err := os.ReadFile(path)
	return err == nil && bytes.Contains(b, []byte(text))
}

type syncWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *syncWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(b)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}
