package manager_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// peer is a small third-party agent built on leaguesdk.Server: it accepts
// every notification the manager sends, and start_match as its script
// says. Tests use it to play referees and players that misbehave, or whose
// every move the test decides.
type peer struct {
	URL     string       // its /mcp endpoint
	dialled atomic.Int64 // connections opened to it

	mu      sync.Mutex
	got     map[leaguesdk.MessageType][]json.RawMessage
	tokens  map[string]bool // auth tokens seen on the manager's messages
	onStart func(*leaguesdk.StartMatch) error
	starts  chan *leaguesdk.StartMatch
}

func newPeer(t testing.TB) *peer {
	t.Helper()
	p := &peer{got: map[leaguesdk.MessageType][]json.RawMessage{}, tokens: map[string]bool{},
		starts: make(chan *leaguesdk.StartMatch, 1000)}
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{})
	record := func(m leaguesdk.Message) {
		b, _ := json.Marshal(m)
		p.mu.Lock()
		defer p.mu.Unlock()
		h := m.Header()
		p.got[h.MessageType] = append(p.got[h.MessageType], b)
		p.tokens[h.AuthToken] = true
	}
	ack := func(h *leaguesdk.Envelope) *leaguesdk.Ack {
		return &leaguesdk.Ack{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgAck, "player:peer", "", h.ConversationID, time.Now()),
			Status: leaguesdk.AckOK, Acknowledged: h.MessageType}
	}
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodNotifyRound}, func(_ context.Context, _ *leaguesdk.Request, in *leaguesdk.RoundAnnouncement) (*leaguesdk.Ack, error) {
		record(in)
		return ack(&in.Envelope), nil
	})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodUpdateStandings}, func(_ context.Context, _ *leaguesdk.Request, in *leaguesdk.LeagueStandingsUpdate) (*leaguesdk.Ack, error) {
		record(in)
		return ack(&in.Envelope), nil
	})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodNotifyRoundCompleted}, func(_ context.Context, _ *leaguesdk.Request, in *leaguesdk.RoundCompleted) (*leaguesdk.Ack, error) {
		record(in)
		return ack(&in.Envelope), nil
	})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodNotifyLeagueCompleted}, func(_ context.Context, _ *leaguesdk.Request, in *leaguesdk.LeagueCompleted) (*leaguesdk.Ack, error) {
		record(in)
		return ack(&in.Envelope), nil
	})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodStartMatch}, func(_ context.Context, _ *leaguesdk.Request, in *leaguesdk.StartMatch) (*leaguesdk.StartMatchResponse, error) {
		p.mu.Lock()
		on := p.onStart
		p.mu.Unlock()
		if on != nil {
			if err := on(in); err != nil {
				return nil, err
			}
		}
		record(in)
		p.starts <- in
		return &leaguesdk.StartMatchResponse{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgStartMatchResponse, "referee:peer", "", in.ConversationID, time.Now()),
			MatchID: in.MatchID, Status: leaguesdk.StatusAccepted}, nil
	})
	hs := httptest.NewUnstartedServer(srv)
	hs.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			p.dialled.Add(1)
		}
	}
	hs.Start()
	t.Cleanup(hs.Close)
	p.URL = hs.URL + "/mcp"
	return p
}

// messages returns the messages of type mt the peer received, decoded.
func messages[T any](p *peer, mt leaguesdk.MessageType) []T {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]T, 0, len(p.got[mt]))
	for _, raw := range p.got[mt] {
		var v T
		_ = json.Unmarshal(raw, &v)
		out = append(out, v)
	}
	return out
}

// sawToken reports whether every message the peer received carried token,
// and it received at least one.
func (p *peer) onlyToken(token string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.tokens) == 1 && p.tokens[token]
}

// nextStart waits for the next start_match the peer accepted.
func (p *peer) nextStart(t testing.TB, within time.Duration) *leaguesdk.StartMatch {
	t.Helper()
	select {
	case s := <-p.starts:
		return s
	case <-time.After(within):
		t.Fatalf("no start_match within %s", within)
		return nil
	}
}

// report sends a referee's MATCH_RESULT_REPORT for s, won by winner ("" for a draw).
func report(t testing.TB, mcp, refID, token string, s *leaguesdk.StartMatch, winner string) *rpcReply {
	t.Helper()
	res := leaguesdk.MatchResult{Status: leaguesdk.ResultDraw, Score: map[string]int{s.PlayerAID: 1, s.PlayerBID: 1},
		Details: leaguesdk.MatchDetails{DrawnNumber: 4, Choices: map[string]leaguesdk.Parity{s.PlayerAID: leaguesdk.Even, s.PlayerBID: leaguesdk.Even}}}
	if winner != "" {
		res = leaguesdk.MatchResult{Status: leaguesdk.ResultWin, Winner: leaguesdk.OptionalString(winner),
			Score: map[string]int{s.PlayerAID: 0, s.PlayerBID: 0}}
		res.Score[winner] = 3
	}
	return call(t, mcp, leaguesdk.MethodReportMatchResult, &leaguesdk.MatchResultReport{
		Envelope: env(leaguesdk.MsgMatchResultReport, leaguesdk.RefereeSender(refID), token),
		LeagueID: s.LeagueID, RoundID: s.RoundID, MatchID: s.MatchID, GameType: s.GameType, Result: res})
}

// ackStatus returns the Ack status of a report's reply, failing the test on an error.
func ackStatus(t testing.TB, r *rpcReply) leaguesdk.AckStatus {
	t.Helper()
	var a leaguesdk.Ack
	r.decode(t, &a)
	return a.Status
}
