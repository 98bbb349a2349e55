package player_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
)

// readSignal is a listener whose connections close arrived once a first
// request's bytes have been read from one of them.
type readSignal struct {
	net.Listener
	once    sync.Once
	arrived chan struct{}
}

func (l *readSignal) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &signalConn{Conn: c, l: l}, nil
}

type signalConn struct {
	net.Conn
	l *readSignal
}

func (c *signalConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.l.once.Do(func() { close(c.l.arrived) })
	}
	return n, err
}

// lines is a log that a test reads back, line by line.
type lines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Split(strings.TrimSpace(l.buf.String()), "\n")
}

// TestARoundAnnouncedBeforeTheRegistrationReplyIsReadAfterIt: a manager
// starts the league when the last player registers, and its first round's
// announcement may reach that player before the reply to its
// registration. The player reads it once registered, with the id and token
// the reply gives: it logs that it registered, then the match the round
// gives it — not a round without a match for a player without an id.
func TestARoundAnnouncedBeforeTheRegistrationReplyIsReadAfterIt(t *testing.T) {
	m := &testManager{playerID: "P04"}
	ln := &readSignal{Listener: listen(t), arrived: make(chan struct{})}
	endpoint := "http://" + ln.Addr().String() + "/mcp"
	acked := make(chan error, 1)
	m.beforeReply = func(in *leaguesdk.LeagueRegisterRequest) {
		ra := &leaguesdk.RoundAnnouncement{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgRoundAnnouncement, leaguesdk.LeagueManagerSender,
			playerToken, "conv-round-1", time.Now()), LeagueID: testLeague, RoundID: 1,
			Matches: []leaguesdk.ScheduledMatch{{MatchID: "R1M2", GameType: leaguesdk.GameEvenOdd, PlayerAID: "P03", PlayerBID: "P04",
				RefereeEndpoint: "http://127.0.0.1:1/mcp"}}}
		go func() {
			c := leaguesdk.NewClient(leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{MaxRetries: leaguesdk.NoRetries}})
			defer c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := leaguesdk.Call[leaguesdk.Ack](ctx, c, in.PlayerMeta.ContactEndpoint, ra)
			acked <- err
		}()
		select { // the announcement has reached the player; now the reply goes
		case <-ln.arrived:
		case <-time.After(10 * time.Second):
			t.Error("the announcement did not reach the player")
		}
	}
	startManager(t, m)
	log := &lines{}
	runAgent(t, player.Config{League: m.URL, Listener: ln, Endpoint: endpoint,
		Logger: slog.New(slog.NewTextHandler(log, nil))})
	if err := <-acked; err != nil {
		t.Fatalf("the announcement was not acknowledged: %v", err)
	}
	registered, round := -1, -1
	for i, line := range log.all() {
		switch {
		case strings.Contains(line, "msg=registered") && strings.Contains(line, "player_id=P04"):
			registered = i
		case strings.Contains(line, "round 1:"):
			round = i
			if !strings.Contains(line, "round 1: P04 plays R1M2 against P03") {
				t.Errorf("the round is read as %q, want P04's match", line)
			}
		}
	}
	if registered < 0 || round < 0 || round < registered {
		t.Errorf("registered on line %d, the round on line %d: want the registration first\n%s", registered, round, strings.Join(log.all(), "\n"))
	}
}
