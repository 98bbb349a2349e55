package player_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
)

func TestRegistrationSendsFullRequestAndRepliesCarryToken(t *testing.T) {
	m := startManager(t, &testManager{})
	a := runAgent(t, player.Config{Name: "Agent Alpha", League: m.URL, Strategy: always(leaguesdk.Odd)})

	regs := m.registrations()
	if len(regs) != 1 {
		t.Fatalf("got %d registrations, want 1", len(regs))
	}
	r := regs[0]
	if r.Sender != "player:agent_alpha" || r.AuthToken != "" || r.PlayerMeta.ProtocolVersion != leaguesdk.ProtocolVersion ||
		r.PlayerMeta.ContactEndpoint != a.Endpoint() || r.PlayerMeta.DisplayName != "Agent Alpha" ||
		r.PlayerMeta.Version != leaguesdk.Version || len(r.PlayerMeta.GameTypes) != 1 || r.PlayerMeta.GameTypes[0] != leaguesdk.GameEvenOdd {
		t.Fatalf("registration request = %+v", r)
	}
	if a.ID() != "P01" || a.LeagueID() != testLeague {
		t.Fatalf("ID = %q, LeagueID = %q", a.ID(), a.LeagueID())
	}

	announce(t, a, "R1M1")
	var ack leaguesdk.GameJoinAck
	call(t, a, leaguesdk.MethodHandleGameInvitation, invitation("R1M1", "P01", "P02", leaguesdk.PlayerA), &ack)
	if err := leaguesdk.Validate(&ack); err != nil {
		t.Fatalf("GAME_JOIN_ACK invalid: %v", err)
	}
	if !ack.Accept || ack.MatchID != "R1M1" || ack.PlayerID != "P01" || ack.Sender != "player:P01" ||
		ack.AuthToken != playerToken || ack.ConversationID != "conv-R1M1" || ack.ArrivalTimestamp == "" {
		t.Fatalf("GAME_JOIN_ACK = %+v", ack)
	}
	var resp leaguesdk.ChooseParityResponse
	call(t, a, leaguesdk.MethodChooseParity, parityCall("R1M1", "P01", "P02", 5*time.Second), &resp)
	if err := leaguesdk.Validate(&resp); err != nil {
		t.Fatalf("CHOOSE_PARITY_RESPONSE invalid: %v", err)
	}
	if resp.ParityChoice != leaguesdk.Odd || resp.AuthToken != playerToken || resp.Sender != "player:P01" || resp.PlayerID != "P01" {
		t.Fatalf("CHOOSE_PARITY_RESPONSE = %+v", resp)
	}
}

func TestAnswersEveryWireForm(t *testing.T) {
	m := startManager(t, &testManager{})
	a := runAgent(t, player.Config{League: m.URL})
	announce(t, a, "R1M1")
	inv := invitation("R1M1", "P01", "P02", leaguesdk.PlayerA)
	pc := parityCall("R1M1", "P01", "P02", 5*time.Second)
	toolsCall := func(name string, msg any) map[string]any {
		return map[string]any{"name": name, "arguments": msg}
	}
	tests := []struct {
		name     string
		body     map[string]any
		wantType leaguesdk.MessageType
		tool     bool
	}{
		{"spec method", request(1, "handle_game_invitation", inv), leaguesdk.MsgGameJoinAck, false},
		{"method is the message type", request(2, "GAME_INVITATION", inv), leaguesdk.MsgGameJoinAck, false},
		{"lower-case message type", request(3, "game_invitation", inv), leaguesdk.MsgGameJoinAck, false},
		{"handle_message with params.message", request(4, "handle_message", map[string]any{"message": inv}), leaguesdk.MsgGameJoinAck, false},
		{"mcp_message with params.message", request(5, "mcp_message", map[string]any{"message": pc}), leaguesdk.MsgChooseParityResponse, false},
		{"tools/call", request(6, "tools/call", toolsCall("choose_parity", pc)), leaguesdk.MsgChooseParityResponse, true},
		{"parity_choose alias", request(7, "parity_choose", pc), leaguesdk.MsgChooseParityResponse, false},
		{"string id", request("abc-1", "choose_parity", pc), leaguesdk.MsgChooseParityResponse, false},
		{"zero id", request(0, "choose_parity", pc), leaguesdk.MsgChooseParityResponse, false},
		{"tools/call with zero id", request(0, "tools/call", toolsCall("handle_game_invitation", inv)), leaguesdk.MsgGameJoinAck, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := post(t, a.Endpoint(), tc.body)
			if r.Error != nil {
				t.Fatalf("error reply: %v", r.Error)
			}
			wantID, _ := json.Marshal(tc.body["id"])
			if string(r.ID) != string(wantID) {
				t.Fatalf("id = %s, want %s", r.ID, wantID)
			}
			msg := r.Result
			if tc.tool {
				var tr struct {
					Content []struct {
						Type, Text string
					} `json:"content"`
					StructuredContent json.RawMessage `json:"structuredContent"`
				}
				if err := json.Unmarshal(r.Result, &tr); err != nil || len(tr.Content) != 1 || tr.Content[0].Type != "text" {
					t.Fatalf("tools/call result = %s", r.Result)
				}
				if !json.Valid([]byte(tr.Content[0].Text)) {
					t.Fatalf("content text is not the message: %q", tr.Content[0].Text)
				}
				msg = tr.StructuredContent
			}
			var e leaguesdk.Envelope
			if err := json.Unmarshal(msg, &e); err != nil {
				t.Fatal(err)
			}
			if e.MessageType != tc.wantType || e.Protocol != leaguesdk.Protocol || e.Sender != "player:P01" ||
				e.AuthToken != playerToken || e.ConversationID != "conv-R1M1" {
				t.Fatalf("reply envelope = %+v", e)
			}
			if _, err := leaguesdk.ParseTime(e.Timestamp); err != nil {
				t.Fatalf("timestamp: %v", err)
			}
			if tc.wantType == leaguesdk.MsgChooseParityResponse {
				var resp leaguesdk.ChooseParityResponse
				_ = json.Unmarshal(msg, &resp)
				if !resp.ParityChoice.Valid() {
					t.Fatalf("choice = %q", resp.ParityChoice)
				}
			}
		})
	}
}

func TestHealth(t *testing.T) {
	m := startManager(t, &testManager{})
	a := runAgent(t, player.Config{League: m.URL})
	resp, err := httpGet(strings.TrimSuffix(a.Endpoint(), "/mcp") + "/health")
	if err != nil {
		t.Fatal(err)
	}
	if resp["status"] != "healthy" || resp["agent"] != "player:P01" {
		t.Fatalf("health = %v", resp)
	}
}

// TestStrategyFailureIsAnsweredInTime pins down deadline safety: whatever
// the strategy does, a valid choice arrives before the deadline — the
// fallback's when it works, a random one when the fallback fails too.
func TestStrategyFailureIsAnsweredInTime(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	strategies := map[string]player.StrategyFunc{
		"error": func(context.Context, player.ParityCall) (leaguesdk.Parity, error) {
			return "", errors.New("no idea")
		},
		"panic": func(context.Context, player.ParityCall) (leaguesdk.Parity, error) {
			panic("strategy bug")
		},
		"invalid value": func(context.Context, player.ParityCall) (leaguesdk.Parity, error) {
			return "EVEN", nil
		},
		"empty value": func(context.Context, player.ParityCall) (leaguesdk.Parity, error) {
			return "", nil
		},
		"blocks and ignores ctx": func(context.Context, player.ParityCall) (leaguesdk.Parity, error) {
			<-release
			return leaguesdk.Even, nil
		},
		"honours ctx but too slowly": func(ctx context.Context, _ player.ParityCall) (leaguesdk.Parity, error) {
			<-ctx.Done()
			time.Sleep(time.Second)
			return leaguesdk.Even, nil
		},
	}
	const deadline = 1500 * time.Millisecond
	for _, fallback := range []string{"working fallback", "failing fallback"} {
		for name, s := range strategies {
			t.Run(fallback+"/"+name, func(t *testing.T) {
				t.Parallel()
				m := startManager(t, &testManager{})
				cfg := player.Config{League: m.URL, Strategy: s, Fallback: always(leaguesdk.Odd)}
				if fallback == "failing fallback" {
					cfg.Fallback = s
				}
				a := runAgent(t, cfg)
				start := time.Now()
				var resp leaguesdk.ChooseParityResponse
				call(t, a, leaguesdk.MethodChooseParity, parityCall("R1M1", "P01", "P02", deadline), &resp)
				took := time.Since(start)
				if took >= deadline {
					t.Fatalf("answered after %v, past the %v deadline", took, deadline)
				}
				if fallback == "working fallback" && resp.ParityChoice != leaguesdk.Odd {
					t.Fatalf("choice = %q, want the fallback's odd", resp.ParityChoice)
				}
				if !resp.ParityChoice.Valid() {
					t.Fatalf("choice = %q", resp.ParityChoice)
				}
			})
		}
	}
}

func TestStrategyContextEndsBeforeDeadline(t *testing.T) {
	m := startManager(t, &testManager{})
	got := make(chan player.ParityCall, 1)
	left := make(chan time.Duration, 1)
	a := runAgent(t, player.Config{League: m.URL, Strategy: player.StrategyFunc(
		func(ctx context.Context, c player.ParityCall) (leaguesdk.Parity, error) {
			d, ok := ctx.Deadline()
			if !ok {
				return "", errors.New("no deadline")
			}
			got <- c
			left <- time.Until(d)
			return leaguesdk.Even, nil
		})})
	call(t, a, leaguesdk.MethodHandleGameInvitation, invitation("R2M1", "P01", "P03", leaguesdk.PlayerB), new(leaguesdk.GameJoinAck))
	var resp leaguesdk.ChooseParityResponse
	call(t, a, leaguesdk.MethodChooseParity, parityCall("R2M1", "P01", "P03", 4*time.Second), &resp)
	if resp.ParityChoice != leaguesdk.Even {
		t.Fatalf("choice = %q", resp.ParityChoice)
	}
	c := <-got
	// Margin = min(2 s, 4 s / 4) = 1 s: the context ends about 3 s from now.
	if l := <-left; l > 3100*time.Millisecond || l < 2*time.Second {
		t.Fatalf("strategy context ends in %v, want about 3 s", l)
	}
	if c.MatchID != "R2M1" || c.OpponentID != "P03" || c.Role != leaguesdk.PlayerB || c.RoundID != 1 || c.LeagueID != testLeague ||
		c.PlayerID != "P01" || c.GameType != leaguesdk.GameEvenOdd || c.Standings.Wins != 1 || time.Until(c.Deadline) > 4*time.Second {
		t.Fatalf("ParityCall = %+v", c)
	}
}

func TestParityCallWithoutDeadlineUsesChoiceTimeout(t *testing.T) {
	m := startManager(t, &testManager{})
	const timeout = time.Second
	a := runAgent(t, player.Config{League: m.URL, ChoiceTimeout: timeout, Fallback: always(leaguesdk.Odd),
		Strategy: player.StrategyFunc(func(ctx context.Context, c player.ParityCall) (leaguesdk.Parity, error) {
			<-ctx.Done()
			return "", ctx.Err()
		})})
	pc := parityCall("R1M1", "P01", "P02", 0)
	pc.Deadline = ""
	start := time.Now()
	var resp leaguesdk.ChooseParityResponse
	call(t, a, leaguesdk.MethodChooseParity, pc, &resp)
	if took := time.Since(start); took >= timeout || resp.ParityChoice != leaguesdk.Odd {
		t.Fatalf("answered %q after %v", resp.ParityChoice, took)
	}
}

func TestDeadlineAlreadyPassedIsAnsweredAtOnce(t *testing.T) {
	m := startManager(t, &testManager{})
	var called atomic.Bool
	a := runAgent(t, player.Config{League: m.URL, Strategy: player.StrategyFunc(
		func(ctx context.Context, c player.ParityCall) (leaguesdk.Parity, error) {
			called.Store(true)
			return leaguesdk.Even, nil
		})})
	var resp leaguesdk.ChooseParityResponse
	call(t, a, leaguesdk.MethodChooseParity, parityCall("R1M1", "P01", "P02", -time.Second), &resp)
	if !resp.ParityChoice.Valid() || called.Load() {
		t.Fatalf("choice %q, strategy called %v", resp.ParityChoice, called.Load())
	}
}

func TestTwoMatchesAtOnce(t *testing.T) {
	m := startManager(t, &testManager{})
	inside := make(chan string, 2)
	both := make(chan struct{})
	a := runAgent(t, player.Config{League: m.URL, Strategy: player.StrategyFunc(
		func(ctx context.Context, c player.ParityCall) (leaguesdk.Parity, error) {
			inside <- c.MatchID
			select { // answer only when both matches are being decided
			case <-both:
			case <-ctx.Done():
				return "", ctx.Err()
			}
			if c.OpponentID == "P02" {
				return leaguesdk.Even, nil
			}
			return leaguesdk.Odd, nil
		}), Fallback: player.StrategyFunc(func(context.Context, player.ParityCall) (leaguesdk.Parity, error) {
		return "", errors.New("fallback must not be needed")
	})})
	go func() { <-inside; <-inside; close(both) }()
	type answer struct {
		resp leaguesdk.ChooseParityResponse
		err  error
	}
	results := make(chan answer, 2)
	for _, opp := range []string{"P02", "P03"} {
		go func() {
			c := leaguesdk.NewClient(leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{MaxRetries: leaguesdk.NoRetries}})
			defer c.Close()
			var r answer
			r.err = c.Call(context.Background(), a.Endpoint(), leaguesdk.MethodChooseParity,
				parityCall("R1M-"+opp, "P01", opp, 5*time.Second), &r.resp)
			results <- r
		}()
	}
	// An invitation is answered at once while both choices are pending.
	call(t, a, leaguesdk.MethodHandleGameInvitation, invitation("R1M9", "P01", "P04", leaguesdk.PlayerA), new(leaguesdk.GameJoinAck))
	for range 2 {
		r := <-results
		if r.err != nil {
			t.Fatal(r.err)
		}
		want := leaguesdk.Odd
		if r.resp.MatchID == "R1M-P02" {
			want = leaguesdk.Even
		}
		if r.resp.ParityChoice != want {
			t.Fatalf("%s: choice %q, want %q", r.resp.MatchID, r.resp.ParityChoice, want)
		}
	}
}

func TestJoinAckIsImmediateWhileStrategyBlocks(t *testing.T) {
	m := startManager(t, &testManager{})
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	a := runAgent(t, player.Config{League: m.URL, Strategy: player.StrategyFunc(
		func(context.Context, player.ParityCall) (leaguesdk.Parity, error) {
			<-release
			return leaguesdk.Even, nil
		})})
	go func() {
		c := leaguesdk.NewClient(leaguesdk.ClientConfig{})
		defer c.Close()
		_ = c.Call(context.Background(), a.Endpoint(), leaguesdk.MethodChooseParity, parityCall("R1M1", "P01", "P02", 2*time.Second), nil)
	}()
	start := time.Now()
	var ack leaguesdk.GameJoinAck
	call(t, a, leaguesdk.MethodHandleGameInvitation, invitation("R1M2", "P01", "P03", leaguesdk.PlayerA), &ack)
	if took := time.Since(start); !ack.Accept || took > time.Second {
		t.Fatalf("ack %+v after %v", ack, took)
	}
}

func TestRegistrationWaitsForManager(t *testing.T) {
	// The manager's port is open from the start, but while it is "down"
	// every connection is dropped unanswered, as by a process not yet
	// serving; then it comes up on the same address.
	ln := listen(t)
	m := &testManager{playerID: "P01"}
	m.URL = "http://" + ln.Addr().String() + "/mcp"
	var down atomic.Bool
	var refused atomic.Int32
	down.Store(true)
	up := m.handler()
	serveHandler(t, ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			refused.Add(1)
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		up.ServeHTTP(w, r)
	}))
	a, stopped, _ := startAgent(t, player.Config{League: m.URL, RegisterRetry: 20 * time.Millisecond})
	for deadline := time.Now().Add(5 * time.Second); refused.Load() < 3; {
		select {
		case <-a.Registered():
			t.Fatal("registered without a manager")
		case err := <-stopped:
			t.Fatalf("Run gave up while the manager was down: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d registration attempts in 5 s", refused.Load())
		}
	}
	down.Store(false)
	select {
	case <-a.Registered():
	case err := <-stopped:
		t.Fatalf("Run stopped: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("not registered after the manager came up")
	}
	if a.ID() != "P01" || len(m.registrations()) != 1 {
		t.Fatalf("ID %q after %d registrations", a.ID(), len(m.registrations()))
	}
}

func TestRejectedRegistrationStopsRun(t *testing.T) {
	tests := []struct {
		name     string
		m        *testManager
		wantCode leaguesdk.Code
		reason   string
	}{
		{"REJECTED", &testManager{reject: "league is full"}, "", "league is full"},
		{"protocol error", &testManager{refuse: leaguesdk.NewError(leaguesdk.CodeProtocolVersionMismatch, "too old")},
			leaguesdk.CodeProtocolVersionMismatch, "too old"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := startManager(t, tc.m)
			_, stopped, _ := startAgent(t, player.Config{League: m.URL, RegisterRetry: 20 * time.Millisecond})
			select {
			case err := <-stopped:
				var rej *leaguesdk.RejectedError
				if !errors.As(err, &rej) || rej.Code != tc.wantCode || !strings.Contains(rej.Reason, tc.reason) {
					t.Fatalf("Run = %v, want a rejection %q", err, tc.reason)
				}
				if !strings.Contains(err.Error(), tc.reason) {
					t.Fatalf("error %q does not say why", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Run did not stop after the rejection")
			}
			if n := len(m.registrations()); n != 1 {
				t.Fatalf("%d registration attempts, want 1", n)
			}
		})
	}
}

func TestRegistrationReplyReadTolerantly(t *testing.T) {
	// A manager of another implementation: REGISTERED, no token, no league id.
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodRegisterPlayer},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.LeagueRegisterRequest) (*map[string]any, error) {
			return &map[string]any{"status": "REGISTERED", "player_id": "alpha_7"}, nil
		})
	ln := listen(t)
	serveHandler(t, ln, srv)
	a := runAgent(t, player.Config{League: "http://" + ln.Addr().String() + "/mcp"})
	if a.ID() != "alpha_7" {
		t.Fatalf("ID = %q", a.ID())
	}
	var resp leaguesdk.ChooseParityResponse
	call(t, a, leaguesdk.MethodChooseParity, parityCall("R1M1", "alpha_7", "P02", 5*time.Second), &resp)
	if resp.Sender != "player:alpha_7" || resp.AuthToken != "" || !resp.ParityChoice.Valid() {
		t.Fatalf("reply = %+v", resp)
	}
}

func TestStopBeforeRegistrationIsClean(t *testing.T) {
	ln := listen(t)
	addr := ln.Addr().String()
	ln.Close()
	a, err := player.New(player.Config{Name: "x", League: "http://" + addr + "/mcp", Addr: "127.0.0.1:0", RegisterRetry: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := a.Run(ctx); err != nil {
		t.Fatalf("Run = %v, want nil after a stop while waiting for the manager", err)
	}
	if err := a.Run(context.Background()); err == nil {
		t.Fatal("second Run succeeded")
	}
}

func TestNewValidatesConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  player.Config
		want string
	}{
		{"no name", player.Config{League: "http://127.0.0.1:8000/mcp"}, "Name"},
		{"no league", player.Config{Name: "a"}, "League"},
		{"bad league", player.Config{Name: "a", League: "127.0.0.1:8000"}, "League"},
		{"bad endpoint", player.Config{Name: "a", League: "http://x/mcp", Endpoint: "ftp://x"}, "Endpoint"},
		{"negative margin", player.Config{Name: "a", League: "http://x/mcp", SafetyMargin: -1}, "SafetyMargin"},
		{"empty game type", player.Config{Name: "a", League: "http://x/mcp", GameTypes: []string{""}}, "GameTypes"},
		{"id with a space", player.Config{Name: "a", League: "http://x/mcp", ID: "P 01"}, "Config.ID"},
		{"id with a colon", player.Config{Name: "a", League: "http://x/mcp", ID: "player:P01"}, "Config.ID"},
		{"id as a path", player.Config{Name: "a", League: "http://x/mcp", ID: "../P01"}, "Config.ID"},
		{"id too long", player.Config{Name: "a", League: "http://x/mcp", ID: strings.Repeat("P", 65)}, "Config.ID"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := player.New(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New = %v, want an error naming %s", err, tc.want)
			}
		})
	}
	a, err := player.New(player.Config{Name: "a", League: "http://x/mcp", Endpoint: "http://player.example:9000/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Endpoint() != "http://player.example:9000/mcp" {
		t.Fatalf("Endpoint = %q", a.Endpoint())
	}
}

func TestUnspecifiedListenAddressAdvertisesLoopback(t *testing.T) {
	m := startManager(t, &testManager{})
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Skip(err)
	}
	a := runAgent(t, player.Config{League: m.URL, Listener: ln})
	if !strings.HasPrefix(a.Endpoint(), "http://127.0.0.1:") {
		t.Fatalf("Endpoint = %q", a.Endpoint())
	}
}

// TestHandlerMountedInOwnServer: the agent's handler served by the
// author's own mux, registered with Register.
func TestHandlerMountedInOwnServer(t *testing.T) {
	m := startManager(t, &testManager{})
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	defer ts.Close()
	a, err := player.New(player.Config{Name: "Mounted", League: m.URL, Endpoint: ts.URL + "/player/mcp",
		DataRoot: t.TempDir(), Strategy: always(leaguesdk.Even)})
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("/player/", a.Handler())
	if err := a.Register(context.Background()); err != nil {
		t.Fatal(err)
	}
	if regs := m.registrations(); len(regs) != 1 || regs[0].PlayerMeta.ContactEndpoint != ts.URL+"/player/mcp" {
		t.Fatalf("registrations = %+v", regs)
	}
	announce(t, a, "R1M1")
	var resp leaguesdk.ChooseParityResponse
	call(t, a, leaguesdk.MethodChooseParity, parityCall("R1M1", "P01", "P02", 5*time.Second), &resp)
	if resp.ParityChoice != leaguesdk.Even || resp.AuthToken != playerToken {
		t.Fatalf("reply = %+v", resp)
	}
	// Without an endpoint there is nothing to advertise.
	b, err := player.New(player.Config{Name: "Nowhere", League: m.URL})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Register(context.Background()); err == nil || !strings.Contains(err.Error(), "Endpoint") {
		t.Fatalf("Register without an endpoint = %v", err)
	}
}
