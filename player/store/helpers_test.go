package store_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
	pstore "github.com/agentleague/league/player/store"
)

const (
	playerToken  = "tok_0123456789abcdef0123456789abcdef"
	refereeToken = "tok_fedcba9876543210fedcba9876543210"
	testLeague   = "league_test"
)

// testManager is a small league manager built on leaguesdk.Server: it
// accepts registrations, giving each display name its id.
type testManager struct {
	URL string
	ids map[string]string // when set, the id of each display name; P01 otherwise
}

func (m *testManager) handler() http.Handler {
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{Sender: func() string { return leaguesdk.LeagueManagerSender }})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodRegisterPlayer, Public: true},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.LeagueRegisterRequest) (*leaguesdk.LeagueRegisterResponse, error) {
			out := &leaguesdk.LeagueRegisterResponse{
				Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgLeagueRegisterResponse, leaguesdk.LeagueManagerSender, playerToken, in.ConversationID, time.Now()),
				Status:   leaguesdk.StatusAccepted, PlayerID: cmp.Or(m.ids[in.PlayerMeta.DisplayName], "P01"), LeagueID: testLeague,
			}
			return out, nil
		})
	return srv
}

// startManager serves a test manager on a loopback port until the test
// ends.
func startManager(t testing.TB, m *testManager) *testManager {
	t.Helper()
	ln := listen(t)
	m.URL = "http://" + ln.Addr().String() + "/mcp"
	hs := &http.Server{Handler: m.handler(), ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() { defer close(done); _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close(); <-done })
	return m
}

// listen listens on a port of loopback the system picks.
func listen(t testing.TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// testLogger writes the agent's log to the test's log.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(string(bytes.TrimRight(p, "\n")))
	return len(p), nil
}

// runAgent starts an agent on a loopback port against the manager at
// cfg.League, waits for its registration and stops it at the end of the test.
func runAgent(t testing.TB, cfg player.Config) *player.Agent {
	t.Helper()
	a, stopped, _ := startAgent(t, cfg)
	select {
	case <-a.Registered():
	case err := <-stopped:
		t.Fatalf("agent stopped before registering: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("agent did not register")
	}
	return a
}

// startAgent starts an agent and returns it, the channel on which Run's
// result arrives when Run returns by itself, and a function that stops the
// agent and checks that Run returns nil (or a rejection). The agent is
// stopped at the end of the test at the latest.
func startAgent(t testing.TB, cfg player.Config) (*player.Agent, <-chan error, func()) {
	t.Helper()
	if cfg.Name == "" {
		cfg.Name = "Agent Alpha"
	}
	if cfg.DataRoot == "" {
		cfg.DataRoot = t.TempDir()
	}
	if cfg.Logger == nil {
		cfg.Logger = testLogger(t)
	}
	if cfg.Listener == nil {
		cfg.Listener = listen(t)
	}
	a, err := player.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan error, 1)
	out := make(chan error, 1)
	go func() { err := a.Run(ctx); res <- err; out <- err }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-res:
				if err != nil && !errors.As(err, new(*leaguesdk.RejectedError)) {
					t.Errorf("Run returned %v after a clean stop", err)
				}
			case <-time.After(10 * time.Second):
				t.Error("Run did not return after its context ended")
			}
		})
	}
	t.Cleanup(stop)
	return a, out, stop
}

// gameOver is the GAME_OVER of matchID that winner won (a draw when
// winner is empty), the number drawn and the choices.
func gameOver(matchID, winner string, drawn int, choices map[string]leaguesdk.Parity) *leaguesdk.GameOver {
	status := leaguesdk.ResultWin
	if winner == "" {
		status = leaguesdk.ResultDraw
	}
	return &leaguesdk.GameOver{
		Envelope: env(leaguesdk.MsgGameOver, "conv-"+matchID), MatchID: matchID, GameType: leaguesdk.GameEvenOdd,
		GameResult: leaguesdk.GameResult{Status: status, WinnerPlayerID: leaguesdk.OptionalString(winner), DrawnNumber: drawn,
			NumberParity: leaguesdk.ParityOf(drawn), Choices: choices},
	}
}

func env(t leaguesdk.MessageType, conv string) leaguesdk.Envelope {
	return leaguesdk.NewEnvelope(t, "referee:REF01", refereeToken, conv, time.Now())
}

// lineup returns the display names and ids of n players, "Player 1"/P01…
func lineup(n int) (names []string, ids map[string]string) {
	ids = map[string]string{}
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("Player %d", i)
		names = append(names, name)
		ids[name] = fmt.Sprintf("P%02d", i)
	}
	return names, ids
}

// startLineup starts a test manager that registers the n players of
// lineup(n) under their ids.
func startLineup(t *testing.T, n int) (m *testManager, names []string, ids map[string]string) {
	names, ids = lineup(n)
	return startManager(t, &testManager{ids: ids}), names, ids
}

// openStore opens a Store on dataRoot and closes it at the end of the
// test, after the agents started later have stopped.
func openStore(t *testing.T, open func() (*pstore.Store, error)) *pstore.Store {
	t.Helper()
	s, err := open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("closing the store: %v", err)
		}
	})
	return s
}

// won is the GAME_OVER of match, won by player me with even.
func won(match, me string) *leaguesdk.GameOver {
	return gameOver(match, me, 2, map[string]leaguesdk.Parity{me: leaguesdk.Even, "X99": leaguesdk.Odd})
}

// sendGameOver sends a GAME_OVER to endpoint and reports whether it was
// acknowledged.
func sendGameOver(c *leaguesdk.Client, endpoint string, over *leaguesdk.GameOver) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var ack leaguesdk.Ack
	if err := c.Call(ctx, endpoint, leaguesdk.MethodNotifyMatchResult, over, &ack); err != nil {
		return err
	}
	if ack.Status != leaguesdk.AckOK {
		return fmt.Errorf("ack status %q", ack.Status)
	}
	return nil
}

func newClient(t *testing.T) *leaguesdk.Client {
	c := leaguesdk.NewClient(leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{MaxRetries: leaguesdk.NoRetries}})
	t.Cleanup(c.Close)
	return c
}

// readHistoryFile returns the match ids of a player's history.json.
func readHistoryFile(t *testing.T, dataRoot, id string) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dataRoot, "data", "players", testLeague, id, "history.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		PlayerID string `json:"player_id"`
		Matches  []struct {
			MatchID string `json:"match_id"`
			Attempt int    `json:"attempt"`
			Result  string `json:"result"`
		} `json:"matches"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range f.Matches {
		out = append(out, fmt.Sprintf("%s/%d/%s", m.MatchID, m.Attempt, m.Result))
	}
	return out
}

// journalLines returns the records of a journal file as player id/match id.
func journalLines(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The records end at the zeros reserved after them.
	raw, _, _ = bytes.Cut(raw, []byte{0})
	var out []string
	for line := range strings.Lines(string(raw)) {
		var r struct {
			PlayerID string `json:"player_id"`
			MatchID  string `json:"match_id"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("journal line %q: %v", line, err)
		}
		out = append(out, r.PlayerID+"/"+r.MatchID)
	}
	return out
}
