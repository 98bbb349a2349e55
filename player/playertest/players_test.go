package playertest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// testPlayer is a small player built on leaguesdk.Server. It answers
// every call correctly unless a test breaks it in one way.
type testPlayer struct {
	id    string
	token string
	// ackDelay delays every join acknowledgement.
	ackDelay time.Duration
	// editAck and editChoice change a reply before it is sent.
	editAck, editChoice func(m map[string]any)
	// needInvitation refuses parity calls for matches never announced.
	needInvitation bool
	// singleMatch keeps one current match, the last one invited, and
	// answers every parity call for it.
	singleMatch bool
	// leakState answers get_player_state with the player's token to
	// anyone, as a player must not.
	leakState bool
	invited   chan map[string]bool // one map, passed around as a lock
	current   chan string          // the last match invited, passed the same way
}

func newTestPlayer() *testPlayer {
	p := &testPlayer{id: "P01", token: leaguesdk.NewToken(), invited: make(chan map[string]bool, 1), current: make(chan string, 1)}
	p.invited <- map[string]bool{}
	p.current <- ""
	return p
}

func (p *testPlayer) envelope(t leaguesdk.MessageType, conv string) leaguesdk.Envelope {
	return leaguesdk.NewEnvelope(t, leaguesdk.PlayerSender(p.id), p.token, conv, time.Now())
}

// asMap turns a message into a JSON object a test can edit.
func asMap(msg any) map[string]any {
	b, err := json.Marshal(msg)
	if err != nil {
		panic(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	return m
}

// handler returns the player's JSON-RPC handler.
func (p *testPlayer) handler() http.Handler {
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{
		Name:      "test-player",
		Sender:    func() string { return leaguesdk.PlayerSender(p.id) },
		ErrorType: leaguesdk.MsgGameError,
	})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodHandleGameInvitation},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.GameInvitation) (*map[string]any, error) {
			seen := <-p.invited
			seen[in.MatchID] = true
			p.invited <- seen
			<-p.current
			p.current <- in.MatchID
			if p.ackDelay > 0 {
				select {
				case <-time.After(p.ackDelay):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			m := asMap(&leaguesdk.GameJoinAck{Envelope: p.envelope(leaguesdk.MsgGameJoinAck, in.ConversationID),
				MatchID: in.MatchID, PlayerID: p.id, ArrivalTimestamp: leaguesdk.FormatTime(time.Now()), Accept: true})
			if p.editAck != nil {
				p.editAck(m)
			}
			return &m, nil
		})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodChooseParity},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.ChooseParityCall) (*map[string]any, error) {
			seen := <-p.invited
			known := seen[in.MatchID]
			p.invited <- seen
			if p.needInvitation && !known {
				return nil, leaguesdk.NewError(leaguesdk.CodeMatchNotFound, "no invitation for match %s", in.MatchID)
			}
			m := asMap(&leaguesdk.ChooseParityResponse{Envelope: p.envelope(leaguesdk.MsgChooseParityResponse, in.ConversationID),
				MatchID: in.MatchID, PlayerID: p.id, ParityChoice: leaguesdk.Even})
			if p.singleMatch {
				cur := <-p.current
				p.current <- cur
				m["match_id"] = cur
			}
			if p.editChoice != nil {
				p.editChoice(m)
			}
			return &m, nil
		})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodGetPlayerState},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.StateQuery) (*leaguesdk.StateResponse, error) {
			env := p.envelope(leaguesdk.MsgStateResponse, in.ConversationID)
			if !p.leakState && !leaguesdk.TokensEqual(in.AuthToken, p.token) {
				env.AuthToken = "" // the player's token only to its manager
			}
			return &leaguesdk.StateResponse{Envelope: env,
				State: json.RawMessage(`{"player_id":"` + p.id + `","matches":[]}`)}, nil
		})
	acknowledge[leaguesdk.GameOver](srv, p, leaguesdk.MethodNotifyMatchResult)
	acknowledge[leaguesdk.GameError](srv, p, leaguesdk.MethodNotifyGameError)
	acknowledge[leaguesdk.RoundAnnouncement](srv, p, leaguesdk.MethodNotifyRound)
	acknowledge[leaguesdk.LeagueStandingsUpdate](srv, p, leaguesdk.MethodUpdateStandings)
	acknowledge[leaguesdk.RoundCompleted](srv, p, leaguesdk.MethodNotifyRoundCompleted)
	acknowledge[leaguesdk.LeagueCompleted](srv, p, leaguesdk.MethodNotifyLeagueCompleted)
	return srv
}

// acknowledge adds a tool that answers a notification with an ACK.
func acknowledge[In any](srv *leaguesdk.Server, p *testPlayer, method string) {
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: method}, func(ctx context.Context, _ *leaguesdk.Request, in *In) (*leaguesdk.Ack, error) {
		env := any(in).(leaguesdk.Message).Header()
		return &leaguesdk.Ack{Envelope: p.envelope(leaguesdk.MsgAck, env.ConversationID), Status: leaguesdk.AckOK,
			Acknowledged: env.MessageType}, nil
	})
}

// serve serves h on a loopback port for the test's lifetime and returns
// the server.
func serve(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// recorded runs h on r and returns what it answered.
func recorded(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec
}

// requestShaped makes a player answer its game calls the way some
// implementations do: as a request naming the reply, not as a result.
func requestShaped(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := recorded(h, r)
		body := rec.Body.Bytes()
		var resp struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		var msg struct {
			MessageType string `json:"message_type"`
		}
		if json.Unmarshal(body, &resp) == nil && json.Unmarshal(resp.Result, &msg) == nil &&
			(msg.MessageType == string(leaguesdk.MsgGameJoinAck) || msg.MessageType == string(leaguesdk.MsgChooseParityResponse)) {
			body, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": resp.ID,
				"method": strings.ToLower(msg.MessageType), "params": resp.Result})
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	})
}

// crashOnUnknownMethod makes a player die where it should answer
// "method not found": the connection drops and the port closes, as when a
// process exits on an unhandled exception.
func crashOnUnknownMethod(t *testing.T, h http.Handler) *httptest.Server {
	var srv *httptest.Server
	srv = serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := recorded(h, r)
		if bytes.Contains(rec.Body.Bytes(), []byte(`"code":-32601`)) {
			srv.Listener.Close()
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close()
			}
			go srv.CloseClientConnections()
			return
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	return srv
}

// sseWithSession makes a player answer the way players built on an MCP SDK
// do: initialize opens a session whose id every later request must carry,
// and replies come as a server-sent event.
func sseWithSession(h http.Handler) http.Handler {
	const session = "session-7f3a"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var req struct {
				Method string `json:"method"`
			}
			_ = json.Unmarshal(body, &req)
			if req.Method == "initialize" {
				w.Header().Set("Mcp-Session-Id", session)
			} else if r.Header.Get("Mcp-Session-Id") != session {
				http.Error(w, "Bad Request: missing session ID", http.StatusBadRequest)
				return
			}
		}
		rec := recorded(h, r)
		if r.Method != http.MethodPost || rec.Body.Len() == 0 {
			w.Header().Set("Content-Type", rec.Header().Get("Content-Type"))
			w.WriteHeader(rec.Code)
			_, _ = w.Write(rec.Body.Bytes())
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(rec.Code)
		_, _ = fmt.Fprintf(w, "event: message\ndata: %s\n\n", rec.Body.Bytes())
	})
}

// specMethodsOnly makes a player that knows the spec methods and nothing
// else: no MCP lifecycle, no other wire form.
func specMethodsOnly(h http.Handler) http.Handler {
	known := map[string]bool{}
	for _, m := range []string{leaguesdk.MethodHandleGameInvitation, leaguesdk.MethodChooseParity, leaguesdk.MethodNotifyMatchResult,
		leaguesdk.MethodNotifyGameError, leaguesdk.MethodNotifyRound, leaguesdk.MethodUpdateStandings,
		leaguesdk.MethodNotifyRoundCompleted, leaguesdk.MethodNotifyLeagueCompleted, leaguesdk.MethodGetPlayerState} {
		known[m] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method *string         `json:"method"`
			}
			if json.Unmarshal(body, &req) == nil && req.Method != nil && !known[*req.Method] {
				if req.ID == nil {
					req.ID = json.RawMessage("null")
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, req.ID)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}
