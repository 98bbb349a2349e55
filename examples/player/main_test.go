package main

import (
	"bufio"
	"context"
	"encoding/json"
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
// manager: it registers, says on stderr what it does (registration, a
// match, its result), writes its JSON log under the data root, and returns
// nil when its context ends.
func TestRunRegistersLogsAndStops(t *testing.T) {
	manager, regs := standInManager(t, "P07")

	data := t.TempDir()
	stderr := &syncWriter{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-port", "0", "-league", manager.URL + "/mcp", "-name", "Agent Alpha",
			"-strategy", "history", "-data", data, "-trace"}, stderr)
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
	// A match, as a referee plays it.
	player := (<-regs).PlayerMeta.ContactEndpoint
	c := leaguesdk.NewClient(leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{MaxRetries: leaguesdk.NoRetries}})
	defer c.Close()
	refEnv := func(mt leaguesdk.MessageType) leaguesdk.Envelope {
		return leaguesdk.NewEnvelope(mt, "referee:REF01", leaguesdk.NewToken(), "conv-R1M1", time.Now())
	}
	for _, step := range []struct {
		method string
		msg    leaguesdk.Message
	}{
		{leaguesdk.MethodHandleGameInvitation, &leaguesdk.GameInvitation{Envelope: refEnv(leaguesdk.MsgGameInvitation), LeagueID: "league_test",
			RoundID: 1, MatchID: "R1M1", GameType: leaguesdk.GameEvenOdd, RoleInMatch: leaguesdk.PlayerA, OpponentID: "P02", PlayerID: "P07"}},
		{leaguesdk.MethodChooseParity, &leaguesdk.ChooseParityCall{Envelope: refEnv(leaguesdk.MsgChooseParityCall), MatchID: "R1M1", PlayerID: "P07",
			GameType: leaguesdk.GameEvenOdd, Context: leaguesdk.ParityContext{OpponentID: "P02", RoundID: 1},
			Deadline: leaguesdk.FormatTime(time.Now().Add(10 * time.Second))}},
		{leaguesdk.MethodNotifyMatchResult, &leaguesdk.GameOver{Envelope: refEnv(leaguesdk.MsgGameOver), MatchID: "R1M1", GameType: leaguesdk.GameEvenOdd,
			GameResult: leaguesdk.GameResult{Status: leaguesdk.ResultDraw, DrawnNumber: 4, NumberParity: leaguesdk.Even,
				Choices: map[string]leaguesdk.Parity{"P07": leaguesdk.Even, "P02": leaguesdk.Even}}}},
	} {
		var reply json.RawMessage
		if err := c.Call(ctx, player, step.method, step.msg, &reply); err != nil {
			t.Fatalf("%s: %v", step.method, err)
		}
	}
	stopRun(t, cancel, done)
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
	out := stderr.String()
	for _, want := range []string{"msg=registered", "player_id=P07", "history=" + filepath.Join(data, "data", "players", "league_test", "P07", "history.json"),
		`msg="P07 chose `, ` in R1M1 against P02"`, `msg="P07 drew R1M1 against P02 (even vs even, 4)"`} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q: a person running the player should see what it does:\n%s", want, out)
		}
	}
	// Lines for a person: the wire's ids are at debug, in the file only.
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "conversation_id") || strings.Contains(line, "took=") {
			t.Errorf("stderr line with wire detail: %s", line)
		}
		if strings.Contains(line, "level=INFO") && strings.Contains(line, "R1M1") && len(line) > 160 {
			t.Errorf("stderr line of %d characters: %s", len(line), line)
		}
	}
}

// standInManager serves a manager that accepts every registration under
// playerID and passes the first request on.
func standInManager(t *testing.T, playerID string) (*httptest.Server, <-chan *leaguesdk.LeagueRegisterRequest) {
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{})
	regs := make(chan *leaguesdk.LeagueRegisterRequest, 1)
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodRegisterPlayer},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.LeagueRegisterRequest) (*leaguesdk.LeagueRegisterResponse, error) {
			select {
			case regs <- in:
			default:
			}
			return &leaguesdk.LeagueRegisterResponse{
				Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgLeagueRegisterResponse, leaguesdk.LeagueManagerSender,
					leaguesdk.NewToken(), in.ConversationID, time.Now()),
				Status: leaguesdk.StatusAccepted, PlayerID: playerID, LeagueID: "league_test",
			}, nil
		})
	manager := httptest.NewServer(srv)
	t.Cleanup(manager.Close)
	return manager, regs
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

// TestRunAsksForItsID: with -id the player registers as player:<id>; a
// malformed id is refused before anything starts.
func TestRunAsksForItsID(t *testing.T) {
	manager, regs := standInManager(t, "P03")

	err := run(context.Background(), []string{"-port", "0", "-league", manager.URL + "/mcp", "-id", "P 03", "-data", t.TempDir()}, &syncWriter{})
	if err == nil || !strings.Contains(err.Error(), "Config.ID") {
		t.Fatalf("run with a malformed id = %v, want an error naming ID", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-port", "0", "-league", manager.URL + "/mcp", "-id", "P03", "-data", t.TempDir()}, &syncWriter{})
	}()
	select {
	case reg := <-regs:
		if reg.Sender != "player:P03" {
			t.Errorf("registered as %q, want player:P03", reg.Sender)
		}
	case err := <-done:
		t.Fatalf("run = %v before registering", err)
	case <-time.After(10 * time.Second):
		t.Fatal("no registration")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run = %v", err)
	}
}

// TestAModelStrategyNamesTheModelProgram: this program links no model
// SDK; asked for a model's strategy, it says which program plays it, and
// -h offers the plain strategies only.
func TestAModelStrategyNamesTheModelProgram(t *testing.T) {
	for _, name := range []string{"llm_chat", "llm"} {
		err := run(context.Background(), []string{"-strategy", name, "-data", t.TempDir()}, &syncWriter{})
		if err == nil || !strings.Contains(err.Error(), "examples/modelplayer -strategy "+name) {
			t.Errorf("-strategy %s: %v, want an error naming examples/modelplayer", name, err)
		}
	}
	var stderr strings.Builder
	if err := run(context.Background(), []string{"-h"}, &stderr); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	if h := stderr.String(); !strings.Contains(h, "random | always_even | always_odd | history") || strings.Contains(h, "llm") {
		t.Errorf("-h must list the plain strategies and no model's:\n%s", h)
	}
}

// stopRun cancels run's context and waits, up to 10 s, for run to return
// nil on done.
func stopRun(t *testing.T, cancel context.CancelFunc, done <-chan error) {
	t.Helper()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not stop")
	}
}
