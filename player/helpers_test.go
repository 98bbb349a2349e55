package player_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
)

const (
	playerToken  = "tok_0123456789abcdef0123456789abcdef"
	refereeToken = "tok_fedcba9876543210fedcba9876543210"
	testLeague   = "league_test"
)

// testManager is a small league manager built on leaguesdk.Server: it
// accepts (or rejects) registrations and answers league queries.
type testManager struct {
	URL string

	mu       sync.Mutex
	reject   string           // when set, registrations are REJECTED with this reason
	refuse   *leaguesdk.Error // when set, registrations are answered with this protocol error
	regs     []leaguesdk.LeagueRegisterRequest
	queries  []leaguesdk.LeagueQuery
	playerID string
	ids      map[string]string // when set, the id of each display name
	league   string            // the league id it names; testLeague when empty
	token    string            // the token it gives at registration; playerToken when empty
	// beforeReply, when set, runs before each registration is answered,
	// without the manager's lock.
	beforeReply func(*leaguesdk.LeagueRegisterRequest)
}

func (m *testManager) registrations() []leaguesdk.LeagueRegisterRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]leaguesdk.LeagueRegisterRequest(nil), m.regs...)
}

func (m *testManager) handler() http.Handler {
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{Sender: func() string { return leaguesdk.LeagueManagerSender }})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodRegisterPlayer, Public: true},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.LeagueRegisterRequest) (*leaguesdk.LeagueRegisterResponse, error) {
			m.mu.Lock()
			before := m.beforeReply
			m.mu.Unlock()
			if before != nil {
				before(in)
			}
			m.mu.Lock()
			defer m.mu.Unlock()
			m.regs = append(m.regs, *in)
			if m.refuse != nil {
				return nil, m.refuse
			}
			out := &leaguesdk.LeagueRegisterResponse{
				Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgLeagueRegisterResponse, leaguesdk.LeagueManagerSender, cmp.Or(m.token, playerToken), in.ConversationID, time.Now()),
				Status:   leaguesdk.StatusAccepted, PlayerID: m.playerID, LeagueID: cmp.Or(m.league, testLeague),
			}
			if id, ok := m.ids[in.PlayerMeta.DisplayName]; ok {
				out.PlayerID = id
			}
			if m.reject != "" {
				out.Envelope.AuthToken = ""
				out.Status, out.PlayerID, out.Reason = leaguesdk.StatusRejected, "", leaguesdk.OptionalString(m.reject)
			}
			return out, nil
		})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodLeagueQuery},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.LeagueQuery) (*leaguesdk.LeagueQueryResponse, error) {
			m.mu.Lock()
			m.queries = append(m.queries, *in)
			m.mu.Unlock()
			if in.AuthToken != playerToken || in.Sender != leaguesdk.PlayerSender(m.playerID) {
				return nil, leaguesdk.NewError(leaguesdk.CodeAuthTokenInvalid, "token does not belong to %s", in.Sender)
			}
			out := &leaguesdk.LeagueQueryResponse{
				Envelope:  leaguesdk.NewEnvelope(leaguesdk.MsgLeagueQueryResponse, leaguesdk.LeagueManagerSender, playerToken, in.ConversationID, time.Now()),
				QueryType: in.QueryType, Success: true,
			}
			var data any
			switch in.QueryType {
			case leaguesdk.QueryStandings:
				data = leaguesdk.StandingsData{LeagueID: testLeague, Standings: []leaguesdk.StandingRow{
					{Rank: 1, PlayerID: m.playerID, Played: 1, Wins: 1, Points: 3}, {Rank: 2, PlayerID: "P02", Played: 1, Losses: 1}}}
			case leaguesdk.QuerySchedule:
				data = leaguesdk.ScheduleData{LeagueID: testLeague, Matches: []leaguesdk.ScheduleEntry{
					{MatchID: "R1M1", RoundID: 1, GameType: leaguesdk.GameEvenOdd, PlayerAID: m.playerID, PlayerBID: "P02", Status: leaguesdk.MatchPending},
					{MatchID: "R1M2", RoundID: 1, GameType: leaguesdk.GameEvenOdd, PlayerAID: "P03", PlayerBID: "P04", Status: leaguesdk.MatchPending}}}
			case leaguesdk.QueryNextMatch:
				data = leaguesdk.NextMatchData{NextMatch: &leaguesdk.NextMatch{MatchID: "R1M1", RoundID: 1, OpponentID: "P02", Role: leaguesdk.PlayerA}}
			case leaguesdk.QueryPlayerStats:
				data = leaguesdk.PlayerStatsData{PlayerID: in.QueryParams.PlayerID, Rank: 1, Played: 1, Wins: 1, Points: 3}
			default:
				out.Success = false
				out.Error = &leaguesdk.ErrorInfo{ErrorCode: leaguesdk.CodeMissingRequiredField, ErrorDescription: "unknown query"}
				return out, nil
			}
			out.Data, _ = json.Marshal(data)
			return out, nil
		})
	return srv
}

// serveManager serves a test manager on ln until the test ends.
func serveManager(t testing.TB, m *testManager, ln net.Listener) {
	t.Helper()
	if m.playerID == "" {
		m.playerID = "P01"
	}
	m.URL = "http://" + ln.Addr().String() + "/mcp"
	serveHandler(t, ln, m.handler())
}

// serveHandler serves h on ln until the test ends.
func serveHandler(t testing.TB, ln net.Listener, h http.Handler) {
	t.Helper()
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() { defer close(done); _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close(); <-done })
}

// httpGet fetches a JSON object.
func httpGet(url string) (map[string]any, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var v map[string]any
	err = json.NewDecoder(resp.Body).Decode(&v)
	return v, err
}

func startManager(t testing.TB, m *testManager) *testManager {
	t.Helper()
	serveManager(t, m, listen(t))
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

// rpcReply is a JSON-RPC response as a referee reads it.
type rpcReply struct {
	Status int
	ID     json.RawMessage
	Result json.RawMessage
	Error  *leaguesdk.RPCError
	Raw    []byte
}

// post sends one raw JSON-RPC request body to endpoint.
func post(t testing.TB, endpoint string, body any) rpcReply {
	t.Helper()
	b, ok := body.([]byte)
	if !ok {
		var err error
		if b, err = json.Marshal(body); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := http.Post(endpoint, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := rpcReply{Status: resp.StatusCode, Raw: raw}
	if len(bytes.TrimSpace(raw)) > 0 {
		var v struct {
			ID     json.RawMessage     `json:"id"`
			Result json.RawMessage     `json:"result"`
			Error  *leaguesdk.RPCError `json:"error"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("reply is not JSON: %s", raw)
		}
		r.ID, r.Result, r.Error = v.ID, v.Result, v.Error
	}
	return r
}

// request builds a spec-form JSON-RPC request.
func request(id any, method string, params any) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}
}

func env(t leaguesdk.MessageType, conv string) leaguesdk.Envelope {
	return leaguesdk.NewEnvelope(t, "referee:REF01", refereeToken, conv, time.Now())
}

func invitation(matchID, playerID, opponentID string, role leaguesdk.Role) *leaguesdk.GameInvitation {
	return &leaguesdk.GameInvitation{
		Envelope: env(leaguesdk.MsgGameInvitation, "conv-"+matchID), LeagueID: testLeague, RoundID: 1,
		MatchID: matchID, GameType: leaguesdk.GameEvenOdd, RoleInMatch: role, OpponentID: opponentID, PlayerID: playerID,
	}
}

// parityCall builds a CHOOSE_PARITY_CALL whose deadline is in from now,
// with fractional seconds so that short test deadlines stay exact.
func parityCall(matchID, playerID, opponentID string, in time.Duration) *leaguesdk.ChooseParityCall {
	return &leaguesdk.ChooseParityCall{
		Envelope: env(leaguesdk.MsgChooseParityCall, "conv-"+matchID), MatchID: matchID, PlayerID: playerID,
		GameType: leaguesdk.GameEvenOdd,
		Context:  leaguesdk.ParityContext{OpponentID: opponentID, RoundID: 1, YourStandings: leaguesdk.PlayerRecord{Wins: 1}},
		Deadline: time.Now().Add(in).UTC().Format(time.RFC3339Nano),
	}
}

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

// call sends a message to the agent in the spec form with the project's
// client and decodes the reply into out.
func call(t *testing.T, a *player.Agent, method string, msg, out any) {
	t.Helper()
	c := leaguesdk.NewClient(leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{MaxRetries: leaguesdk.NoRetries}})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Call(ctx, a.Endpoint(), method, msg, out); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

// always returns a strategy that always answers p.
func always(p leaguesdk.Parity) player.Strategy {
	return player.StrategyFunc(func(context.Context, player.ParityCall) (leaguesdk.Parity, error) { return p, nil })
}

// announce sends the ROUND_ANNOUNCEMENT of a manager (with the player's own
// token) naming each match P01 against P02. A player answers a referee's
// calls about those matches with its token, and only about those.
func announce(t *testing.T, a *player.Agent, matchIDs ...string) {
	t.Helper()
	ra := &leaguesdk.RoundAnnouncement{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgRoundAnnouncement, leaguesdk.LeagueManagerSender,
		playerToken, "conv-round", time.Now()), LeagueID: testLeague, RoundID: 1}
	for _, id := range matchIDs {
		ra.Matches = append(ra.Matches, leaguesdk.ScheduledMatch{MatchID: id, GameType: leaguesdk.GameEvenOdd,
			PlayerAID: "P01", PlayerBID: "P02", RefereeEndpoint: "http://127.0.0.1:1/mcp"})
	}
	call(t, a, leaguesdk.MethodNotifyRound, ra, new(leaguesdk.Ack))
}

// managerMessage returns the params of a message of type t from the
// league manager, with the player's token and the test league, and fields.
func managerMessage(t leaguesdk.MessageType, conv string, fields map[string]any) map[string]any {
	m := map[string]any{
		"protocol": leaguesdk.Protocol, "message_type": t, "sender": leaguesdk.LeagueManagerSender,
		"timestamp": leaguesdk.FormatTime(time.Now()), "conversation_id": conv, "auth_token": playerToken,
		"league_id": testLeague,
	}
	maps.Copy(m, fields)
	return m
}
