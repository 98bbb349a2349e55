package referee_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentleague/league/internal/agentkit"
	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/referee"
)

const testLeague = "league_test"

// ---- test manager ----

// testManager is a manager peer: it registers referees and records reports.
type testManager struct {
	URL   string
	token string // the token issued to the referee

	failRegister atomic.Int32 // answer 503 to this many registrations first
	failReports  atomic.Int32 // answer 503 to this many reports first
	refuseReport atomic.Bool  // answer reports with E013 (not retryable)

	mu      sync.Mutex
	meta    leaguesdk.RefereeMeta // of the last referee registered
	players int                   // players registered
	refused int                   // reports refused
	reports []leaguesdk.MatchResultReport
	seen    map[string]bool
	notify  chan struct{}
}

func newTestManager(t testing.TB) *testManager {
	t.Helper()
	m := &testManager{token: leaguesdk.NewToken(), seen: map[string]bool{}, notify: make(chan struct{}, 1)}
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{Sender: func() string { return leaguesdk.LeagueManagerSender }})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodRegisterReferee, Public: true},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.RefereeRegisterRequest) (*leaguesdk.RefereeRegisterResponse, error) {
			m.mu.Lock()
			m.meta = in.RefereeMeta
			m.mu.Unlock()
			return &leaguesdk.RefereeRegisterResponse{
				Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgRefereeRegisterResponse, leaguesdk.LeagueManagerSender,
					m.token, in.ConversationID, time.Now()),
				Status: leaguesdk.StatusAccepted, RefereeID: "REF01", LeagueID: testLeague,
			}, nil
		})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodRegisterPlayer, Public: true},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.LeagueRegisterRequest) (*leaguesdk.LeagueRegisterResponse, error) {
			m.mu.Lock()
			m.players++
			id := fmt.Sprintf("P%02d", m.players)
			m.mu.Unlock()
			return &leaguesdk.LeagueRegisterResponse{
				Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgLeagueRegisterResponse, leaguesdk.LeagueManagerSender,
					leaguesdk.NewToken(), in.ConversationID, time.Now()),
				Status: leaguesdk.StatusAccepted, PlayerID: id, LeagueID: testLeague,
			}, nil
		})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodReportMatchResult},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.MatchResultReport) (*leaguesdk.Ack, error) {
			if _, err := (&tokensOf{m.token}).verify(in.Sender, in.AuthToken); err != nil {
				return nil, err
			}
			if m.refuseReport.Load() {
				m.mu.Lock()
				m.refused++
				m.mu.Unlock()
				return nil, leaguesdk.NewError(leaguesdk.CodeRefereeNotRegistered, "unknown referee")
			}
			m.mu.Lock()
			status := leaguesdk.AckRecorded
			if m.seen[in.MatchID] {
				status = leaguesdk.AckDuplicate
			}
			m.seen[in.MatchID] = true
			m.reports = append(m.reports, *in)
			m.mu.Unlock()
			select {
			case m.notify <- struct{}{}:
			default:
			}
			return &leaguesdk.Ack{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgAck, leaguesdk.LeagueManagerSender, "", in.ConversationID, time.Now()),
				Status: status, Acknowledged: leaguesdk.MsgMatchResultReport, MatchID: in.MatchID}, nil
		})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var probe struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &probe)
		switch {
		case probe.Method == leaguesdk.MethodRegisterReferee && m.failRegister.Add(-1) >= 0,
			probe.Method == leaguesdk.MethodReportMatchResult && m.failReports.Add(-1) >= 0:
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		srv.ServeHTTP(w, r)
	})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	m.URL = ts.URL + "/mcp"
	return m
}

// tokensOf checks the referee's token the way a manager does.
type tokensOf struct{ token string }

func (k *tokensOf) verify(sender, token string) (string, error) {
	var tk agentkit.Tokens
	tk.Bind("REF01", k.token)
	return tk.Verify(sender, token)
}

// Reports returns the reports received so far.
func (m *testManager) Reports() []leaguesdk.MatchResultReport {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]leaguesdk.MatchResultReport(nil), m.reports...)
}

// reportCount returns the number of reports received so far.
func (m *testManager) reportCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.reports)
}

// waitReportCount waits until n reports have arrived, without copying
// them (a benchmark's wait would grow with its reports).
func (m *testManager) waitReportCount(t testing.TB, n int, within time.Duration) {
	t.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	for m.reportCount() < n {
		select {
		case <-m.notify:
		case <-deadline.C:
			t.Fatalf("got %d reports within %s, want %d", m.reportCount(), within, n)
		}
	}
}

// waitReports waits until n reports have arrived and returns them.
func (m *testManager) waitReports(t testing.TB, n int, within time.Duration) []leaguesdk.MatchResultReport {
	t.Helper()
	m.waitReportCount(t, n, within)
	return m.Reports()
}

// ---- test players ----

// behaviour is how a test player misbehaves (the zero value plays "even"
// promptly and correctly).
type behaviour struct {
	Choice         leaguesdk.Parity // default even
	Decline        bool
	JoinDelay      time.Duration
	MoveDelay      time.Duration
	SilentJoin     bool // never answers invitations
	SilentMove     bool // never answers move calls
	Garbage        bool // answers invitations and moves with bytes that are not JSON
	CrashAfterJoin bool // stops serving once it acknowledged the invitation
	Callback       bool // answers with a bare ack and sends the answer as a request
	CallbackFirst  bool // with Callback: sends the answer first and holds the bare ack until the call is given up
	RequestShaped  bool // answers {"jsonrpc","id","method","params"}
	ChoiceAlias    bool // answers "choice" instead of "parity_choice"
	InvalidMoves   int  // the first N move answers are "EVEN"
	Mover          func(valid []string) string
	ForeignID      string // answers under this player id, not the one it was called with
}

// testPlayer is a player peer serving any player id on one endpoint.
type testPlayer struct {
	b       behaviour
	ts      *httptest.Server
	URL     string
	Referee string // the referee's endpoint, for callbacks
	client  *leaguesdk.Client
	token   string
	wg      sync.WaitGroup

	mu          sync.Mutex
	invitations []leaguesdk.GameInvitation
	parityCalls []leaguesdk.ChooseParityCall
	moveCalls   []leaguesdk.GameMoveCall
	gameErrors  []leaguesdk.GameError
	gameOvers   []leaguesdk.GameOver
	moveAnswers int
	conns       int    // connections accepted
	givenUp     int    // direct replies held until the caller gave the call up (CallbackFirst)
	joinSpans   []span // when each answered invitation arrived and was answered
	moveSpans   []span // the same for parity calls
}

// span is when a call arrived at a test player and when the player
// answered it.
type span struct{ in, out time.Time }

// overlaps reports whether s and o were both in progress at some instant.
func (s span) overlaps(o span) bool { return s.in.Before(o.out) && o.in.Before(s.out) }

// spans returns the recorded invitation and parity-call spans.
func (p *testPlayer) spans() (join, move []span) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]span(nil), p.joinSpans...), append([]span(nil), p.moveSpans...)
}

func newTestPlayer(t testing.TB, b behaviour) *testPlayer {
	t.Helper()
	if b.Choice == "" {
		b.Choice = leaguesdk.Even
	}
	p := &testPlayer{b: b, token: leaguesdk.NewToken(),
		client: leaguesdk.NewClient(leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{MaxRetries: leaguesdk.NoRetries}})}
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{Sender: func() string { return "player:test" }})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodHandleGameInvitation}, p.invitation)
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodChooseParity}, p.chooseParity)
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodMakeMove}, p.makeMove)
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodNotifyGameError},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.GameError) (*leaguesdk.Ack, error) {
			p.mu.Lock()
			p.gameErrors = append(p.gameErrors, *in)
			p.mu.Unlock()
			return p.ack(in.ConversationID), nil
		})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodNotifyMatchResult},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.GameOver) (*leaguesdk.Ack, error) {
			p.mu.Lock()
			p.gameOvers = append(p.gameOvers, *in)
			p.mu.Unlock()
			return p.ack(in.ConversationID), nil
		})
	p.ts = httptest.NewUnstartedServer(p.wire(srv))
	p.ts.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			p.mu.Lock()
			p.conns++
			p.mu.Unlock()
		}
	}
	p.ts.Start()
	p.URL = p.ts.URL + "/mcp"
	t.Cleanup(func() {
		p.ts.Close()
		p.wg.Wait()
		p.client.Close()
	})
	return p
}

// connections returns the number of connections the player accepted.
func (p *testPlayer) connections() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.conns
}

func (p *testPlayer) ack(conv string) *leaguesdk.Ack {
	return &leaguesdk.Ack{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgAck, "player:test", p.token, conv, time.Now()),
		Status: leaguesdk.AckOK}
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func (p *testPlayer) invitation(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.GameInvitation) (*map[string]any, error) {
	arrived := time.Now()
	p.mu.Lock()
	p.invitations = append(p.invitations, *in)
	p.mu.Unlock()
	if p.b.SilentJoin {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if !sleepCtx(ctx, p.b.JoinDelay) {
		return nil, ctx.Err()
	}
	ack := leaguesdk.GameJoinAck{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgGameJoinAck, leaguesdk.PlayerSender(p.id(in.PlayerID)), p.token, in.ConversationID, time.Now()),
		MatchID:  in.MatchID, PlayerID: p.id(in.PlayerID), ArrivalTimestamp: leaguesdk.FormatTime(time.Now()), Accept: !p.b.Decline,
	}
	if p.b.CrashAfterJoin {
		go p.ts.Close() // waits for this request to be answered, then stops serving
	}
	p.mu.Lock()
	p.joinSpans = append(p.joinSpans, span{arrived, time.Now()})
	p.mu.Unlock()
	if p.b.Callback {
		p.callback(ctx, leaguesdk.MethodGameJoinAck, &ack)
		return &map[string]any{"status": "received", "sender": leaguesdk.PlayerSender(p.id(in.PlayerID))}, nil
	}
	return asMap(&ack), nil
}

// id is the player id the player answers under.
func (p *testPlayer) id(called string) string {
	if p.b.ForeignID != "" {
		return p.b.ForeignID
	}
	return called
}

func (p *testPlayer) nextChoice() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.moveAnswers++
	if p.moveAnswers <= p.b.InvalidMoves {
		return "EVEN"
	}
	return string(p.b.Choice)
}

func (p *testPlayer) chooseParity(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.ChooseParityCall) (*map[string]any, error) {
	arrived := time.Now()
	p.mu.Lock()
	p.parityCalls = append(p.parityCalls, *in)
	p.mu.Unlock()
	if p.b.SilentMove {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if !sleepCtx(ctx, p.b.MoveDelay) {
		return nil, ctx.Err()
	}
	resp := leaguesdk.ChooseParityResponse{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityResponse, leaguesdk.PlayerSender(p.id(in.PlayerID)), p.token, in.ConversationID, time.Now()),
		MatchID:  in.MatchID, PlayerID: p.id(in.PlayerID), ParityChoice: leaguesdk.Parity(p.nextChoice()),
	}
	p.mu.Lock()
	p.moveSpans = append(p.moveSpans, span{arrived, time.Now()})
	p.mu.Unlock()
	if p.b.Callback {
		p.callback(ctx, leaguesdk.MethodChooseParityResponse, &resp)
		return &map[string]any{"status": "received", "sender": leaguesdk.PlayerSender(p.id(in.PlayerID))}, nil
	}
	return asMap(&resp), nil
}

func (p *testPlayer) makeMove(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.GameMoveCall) (*map[string]any, error) {
	p.mu.Lock()
	p.moveCalls = append(p.moveCalls, *in)
	p.mu.Unlock()
	if p.b.SilentMove {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	choice := in.MoveRequest.ValidOptions[0]
	if p.b.Mover != nil {
		choice = p.b.Mover(in.MoveRequest.ValidOptions)
	}
	resp := leaguesdk.GameMoveResponse{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgGameMoveResponse, leaguesdk.PlayerSender(p.id(in.PlayerID)), p.token, in.ConversationID, time.Now()),
		MatchID:  in.MatchID, PlayerID: p.id(in.PlayerID), GameType: in.GameType,
		MoveData: leaguesdk.MoveData{MoveType: in.MoveRequest.MoveType, Choice: choice},
	}
	if p.b.Callback {
		p.callback(ctx, "game_move_response", &resp)
		return &map[string]any{"status": "received", "sender": leaguesdk.PlayerSender(p.id(in.PlayerID))}, nil
	}
	return asMap(&resp), nil
}

// repliedKey is the context key of the channel that wire closes once the
// direct reply of a callback-style player is on the wire.
type repliedKey struct{}

// callback sends msg to the referee as a request of its own, once the
// direct reply to the call being served (ctx) has been written in full
// and flushed: the referee reads the bare acknowledgement first and the
// answer later, as from a player that answers by callback.
func (p *testPlayer) callback(ctx context.Context, method string, msg leaguesdk.Message) {
	replied, _ := ctx.Value(repliedKey{}).(chan struct{})
	p.wg.Go(func() {
		if replied != nil {
			<-replied // closed by wire whatever becomes of the reply
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_, _ = leaguesdk.CallWith[json.RawMessage](ctx, p.client, p.Referee, msg, leaguesdk.CallOptions{Method: method, Retry: leaguesdk.Once()})
	})
}

func asMap(msg any) *map[string]any {
	b, _ := json.Marshal(msg)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return &m
}

// wire applies the wire-level misbehaviours around the player's server.
func (p *testPlayer) wire(srv http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		// Routed by message type, so that the client's other wire forms
		// meet the same behaviour.
		invitation := bytes.Contains(body, []byte(`"GAME_INVITATION"`))
		game := invitation || bytes.Contains(body, []byte(`"CHOOSE_PARITY_CALL"`)) ||
			bytes.Contains(body, []byte(`"GAME_MOVE_CALL"`))
		if game && p.b.CallbackFirst {
			p.holdReplyAfterCallback(w, r, srv)
			return
		}
		if game && p.b.Callback {
			p.replyBeforeCallback(w, r, srv)
			return
		}
		if !game || !(p.b.Garbage || p.b.RequestShaped || p.b.ChoiceAlias) {
			srv.ServeHTTP(w, r)
			return
		}
		if p.b.Garbage {
			if invitation {
				p.mu.Lock()
				p.invitations = append(p.invitations, leaguesdk.GameInvitation{})
				p.mu.Unlock()
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc": "2.0", "result": {oops this is not json`))
			return
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, r)
		out := rec.Body.Bytes()
		if p.b.ChoiceAlias {
			out = bytes.ReplaceAll(out, []byte(`"parity_choice"`), []byte(`"choice"`))
			out = bytes.ReplaceAll(out, []byte(`"accept"`), []byte(`"accepted"`))
		}
		if p.b.RequestShaped {
			var resp struct {
				Result json.RawMessage `json:"result"`
			}
			_ = json.Unmarshal(out, &resp)
			method := leaguesdk.MethodGameJoinAck
			if !invitation {
				method = leaguesdk.MethodChooseParityResponse
			}
			out, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": resp.Result})
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	})
}

// replyBeforeCallback serves r and writes the complete direct reply, with
// its length, and flushes it before it lets the callback the handler
// prepared go out.
func (p *testPlayer) replyBeforeCallback(w http.ResponseWriter, r *http.Request, srv http.Handler) {
	replied := make(chan struct{})
	defer close(replied)
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), repliedKey{}, replied)))
	maps.Copy(w.Header(), rec.Header())
	w.Header().Set("Content-Length", strconv.Itoa(rec.Body.Len()))
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
	_ = http.NewResponseController(w).Flush()
}

// holdReplyAfterCallback serves r, whose handler sends its callback at
// once, and holds the direct reply until the caller gives the call up (or
// 20 s pass): a player whose callback overtakes its reply. It counts the
// calls given up.
func (p *testPlayer) holdReplyAfterCallback(w http.ResponseWriter, r *http.Request, srv http.Handler) {
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, r)
	hold := time.NewTimer(20 * time.Second)
	defer hold.Stop()
	select {
	case <-r.Context().Done():
		p.mu.Lock()
		p.givenUp++
		p.mu.Unlock()
		return
	case <-hold.C:
	}
	maps.Copy(w.Header(), rec.Header())
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

func (p *testPlayer) givenUpCalls() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.givenUp
}

func (p *testPlayer) counts() (invitations, parity, moves, gameErrors, gameOvers int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.invitations), len(p.parityCalls), len(p.moveCalls), len(p.gameErrors), len(p.gameOvers)
}

func (p *testPlayer) GameErrors() []leaguesdk.GameError {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]leaguesdk.GameError(nil), p.gameErrors...)
}

func (p *testPlayer) GameOvers() []leaguesdk.GameOver {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]leaguesdk.GameOver(nil), p.gameOvers...)
}

// ---- referee under test ----

type env struct {
	mgr      *testManager
	ref      *referee.Referee
	URL      string
	dataRoot string
	client   *leaguesdk.Client
	cancel   context.CancelFunc
	done     chan error
}

// fastConfig returns the short timeouts the tests use: short enough that
// a test runs in well under a second, long enough that a player that
// answers at once is never late on a busy machine.
func fastConfig(mgr *testManager, dataRoot string) referee.Config {
	return referee.Config{
		Name: "Test Referee", League: mgr.URL, DataRoot: dataRoot,
		JoinTimeout: time.Second, MoveTimeout: time.Second,
		RetryDelay: 10 * time.Millisecond, GameOverTimeout: time.Second,
		ReportTimeout: 500 * time.Millisecond, RegisterRetry: 20 * time.Millisecond,
		ShutdownGrace: 3 * time.Second, MaxConcurrentMatches: 4,
		Logger: testLogger(),
	}
}

// testLogger logs to the file REFEREE_TEST_LOG names, if set.
func testLogger() *slog.Logger {
	if path := os.Getenv("REFEREE_TEST_LOG"); path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			panic(err)
		}
		return slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug, ReplaceAttr: leaguesdk.RedactAttr}))
	}
	return nil
}

// startReferee runs a referee against mgr until the test ends.
func startReferee(t testing.TB, mgr *testManager, mod func(*referee.Config)) *env {
	t.Helper()
	dir := t.TempDir()
	cfg := fastConfig(mgr, dir)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Listener = ln
	if mod != nil {
		mod(&cfg)
	}
	ref, err := referee.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	e := &env{mgr: mgr, ref: ref, URL: "http://" + ln.Addr().String() + "/mcp", dataRoot: dir, cancel: cancel,
		done: make(chan error, 1), client: leaguesdk.NewClient(leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{MaxRetries: leaguesdk.NoRetries}})}
	go func() { e.done <- ref.Run(ctx) }()
	t.Cleanup(func() {
		e.stop(t)
		e.client.Close()
	})
	select {
	case <-ref.Registered():
	case err := <-e.done:
		t.Fatalf("Run ended before registration: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("referee did not register")
	}
	return e
}

// stop ends Run and waits for it.
func (e *env) stop(t testing.TB) error {
	t.Helper()
	e.cancel()
	select {
	case err, ok := <-e.done:
		if ok {
			close(e.done)
		}
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
	}
	return nil
}

// tight sets the deadlines of tests that wait for players who never
// answer: 200 ms to join, 300 ms to choose.
func tight(c *referee.Config) {
	c.JoinTimeout, c.MoveTimeout = 200*time.Millisecond, 300*time.Millisecond
}

var matchSeq atomic.Int64

// match returns a start_match request between two players.
func (e *env) match(a, b *testPlayer, idA, idB string) *leaguesdk.StartMatch {
	a.Referee, b.Referee = e.URL, e.URL
	id := fmt.Sprintf("R1M%d", matchSeq.Add(1))
	return &leaguesdk.StartMatch{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgStartMatch, leaguesdk.LeagueManagerSender, e.mgr.token, "", time.Now()),
		LeagueID: testLeague, RoundID: 1, MatchID: id, GameType: leaguesdk.GameEvenOdd,
		PlayerAID: idA, PlayerBID: idB, PlayerAEndpoint: a.URL, PlayerBEndpoint: b.URL,
		Standings: map[string]leaguesdk.PlayerRecord{idA: {Wins: 2, Losses: 1}, idB: {Draws: 1}},
	}
}

// start sends start_match and returns the referee's answer.
func (e *env) start(t testing.TB, req *leaguesdk.StartMatch) (*leaguesdk.StartMatchResponse, error) {
	t.Helper()
	// Generous: with -race on two cores, 200 matches started at once keep
	// the machine busy while the last assignments are answered.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := leaguesdk.CallWith[leaguesdk.StartMatchResponse](ctx, e.client, e.URL, req, leaguesdk.CallOptions{Retry: leaguesdk.Once()})
	if resp == nil {
		resp = &leaguesdk.StartMatchResponse{}
	}
	return resp, err
}

// play starts a match and waits for its report.
func (e *env) play(t *testing.T, req *leaguesdk.StartMatch) leaguesdk.MatchResultReport {
	t.Helper()
	before := len(e.mgr.Reports())
	resp, err := e.start(t, req)
	if err != nil {
		t.Fatalf("start_match: %v", err)
	}
	if resp.Status != leaguesdk.StatusAccepted || resp.MatchID != req.MatchID {
		t.Fatalf("start_match answered %+v", resp)
	}
	reps := e.mgr.waitReports(t, before+1, 10*time.Second)
	for _, r := range reps[before:] {
		if r.MatchID == req.MatchID {
			return r
		}
	}
	t.Fatalf("no report for %s", req.MatchID)
	return leaguesdk.MatchResultReport{}
}

// draws returns a random source that makes EvenOdd draw the given numbers
// in turn, cycling.
func draws(nums ...int) io.Reader {
	b := make([]byte, len(nums))
	for i, n := range nums {
		b[i] = byte(n - 1)
	}
	return &cycleReader{b: b}
}

type cycleReader struct {
	mu sync.Mutex
	b  []byte
	i  int
}

func (c *cycleReader) Read(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range p {
		p[k] = c.b[c.i%len(c.b)]
		c.i++
	}
	return len(p), nil
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
