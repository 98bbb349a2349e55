package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// TestRateLimitAndMetrics runs the program with -rate-limit 2: an
// anonymous flood of get_match_state is answered 429, and GET /metrics on
// the referee's own port counts the registration and the refusals.
func TestRateLimitAndMetrics(t *testing.T) {
	endpoint := make(chan string, 1)
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodRegisterReferee},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.RefereeRegisterRequest) (*leaguesdk.RefereeRegisterResponse, error) {
			select {
			case endpoint <- in.RefereeMeta.ContactEndpoint:
			default:
			}
			return &leaguesdk.RefereeRegisterResponse{
				Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgRefereeRegisterResponse, leaguesdk.LeagueManagerSender,
					leaguesdk.NewToken(), in.ConversationID, time.Now()),
				Status: leaguesdk.StatusAccepted, RefereeID: "REF01", LeagueID: "league_test",
			}, nil
		})
	manager := httptest.NewServer(srv)
	defer manager.Close()

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-port", "0", "-league", manager.URL + "/mcp", "-name", "Referee Alpha",
			"-rate-limit", "2", "-data", t.TempDir()}, &syncWriter{})
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("run = %v", err)
			}
		})
	}
	defer stop()
	var mcp string
	select {
	case mcp = <-endpoint:
	case <-time.After(10 * time.Second):
		t.Fatal("the referee did not register")
	}
	base := strings.TrimSuffix(mcp, "/mcp")

	limited := 0
	body := `{"jsonrpc":"2.0","id":1,"method":"get_match_state","params":{"match_id":"R1M1"}}`
	for range 20 {
		resp, err := http.Post(mcp, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests {
			limited++
			if resp.Header.Get("Retry-After") == "" {
				t.Error("a 429 without Retry-After")
			}
		}
	}
	if limited < 10 {
		t.Fatalf("%d of 20 anonymous calls rate limited at 2/s (burst 4), want at least 10", limited)
	}

	// The referee counts its registration once the manager's answer is
	// read, a moment after the manager saw the request: wait for its
	// count itself (a scrape collects the metrics one by one, so the
	// call's latency may show before its count does).
	var text string
	for deadline := time.Now().Add(10 * time.Second); ; {
		resp, err := http.Get(base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		text = string(raw)
		if strings.Contains(text, `league_calls_made_total{method="register_referee"`) || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, want := range []string{
		`league_calls_made_total{method="register_referee",outcome="ok"} 1`,
		`league_calls_served_total{method="get_match_state",outcome="E010"}`,
		`league_rate_limited_total `,
		`league_referee_matches_running 0`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("GET /metrics lacks %q:\n%s", want, text)
		}
	}
	stop()
}
