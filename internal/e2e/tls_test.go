package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentleague/league/internal/tlstest"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/referee"
)

// syncBuffer is a log sink that tests read while agents write.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// tlsLeague is a league whose every agent serves HTTPS with a certificate
// of ca; with mutual set, every agent also requires client certificates
// signed by ca and presents its own.
type tlsLeague struct {
	*league
	ca     *tlstest.CA
	mutual bool
}

// serverTLS and clientTLS are the two configurations of an agent holding
// leaf.
func (l *tlsLeague) serverTLS(leaf *tlstest.Leaf) *tls.Config {
	if l.mutual {
		return tlstest.ServerConfig(leaf, l.ca)
	}
	return tlstest.ServerConfig(leaf, nil)
}

func (l *tlsLeague) clientTLS(leaf *tlstest.Leaf) *tls.Config {
	return tlstest.ClientConfig(l.ca, leaf)
}

func newTLSLeague(t *testing.T, minPlayers int, mutual bool) *tlsLeague {
	t.Helper()
	l := &tlsLeague{ca: tlstest.NewCA(t, "League Test CA"), mutual: mutual}
	leaf := l.ca.Issue(t, "league manager")
	l.league = newLeagueWith(t, minPlayers, func(cfg *manager.Config) {
		cfg.TLS, cfg.ClientTLS = l.serverTLS(leaf), l.clientTLS(leaf)
	})
	return l
}

func (l *tlsLeague) url() string { return "https://" + l.ln.Addr().String() + "/mcp" }

func (l *tlsLeague) addReferee(name string, log *slog.Logger) *referee.Referee {
	l.t.Helper()
	leaf := l.ca.Issue(l.t, name)
	ref, err := referee.New(referee.Config{
		Name:        name,
		League:      l.url(),
		Listener:    listen(l.t),
		TLS:         l.serverTLS(leaf),
		ClientTLS:   l.clientTLS(leaf),
		DataRoot:    l.data,
		JoinTimeout: 2 * time.Second,
		MoveTimeout: 3 * time.Second,
		RetryDelay:  50 * time.Millisecond,
		Logger:      log,
	})
	if err != nil {
		l.t.Fatal(err)
	}
	l.run(name, ref.Run)
	l.await(ref.Registered(), name+" to register")
	return ref
}

// newPlayer makes a player serving with server and calling with client.
func (l *tlsLeague) newPlayer(name string, server, client *tls.Config) *player.Agent {
	l.t.Helper()
	p, err := player.New(player.Config{
		Name:          name,
		League:        l.url(),
		Listener:      listen(l.t),
		TLS:           server,
		ClientTLS:     client,
		DataRoot:      l.data,
		RegisterRetry: 50 * time.Millisecond,
	})
	if err != nil {
		l.t.Fatal(err)
	}
	return p
}

func (l *tlsLeague) addPlayer(name string) *player.Agent {
	leaf := l.ca.Issue(l.t, name)
	p := l.newPlayer(name, l.serverTLS(leaf), l.clientTLS(leaf))
	l.run(name, p.Run)
	return p
}

// checkHTTPSOnly checks that every endpoint the manager knows is https://
// and that the manager refuses plain HTTP.
func (l *tlsLeague) checkHTTPSOnly() {
	l.t.Helper()
	snap := l.mgr.Snapshot()
	if !strings.HasPrefix(l.mgr.Endpoint(), "https://") {
		l.t.Errorf("the manager advertises %s, want an https:// endpoint", l.mgr.Endpoint())
	}
	for _, r := range snap.Referees {
		if !strings.HasPrefix(r.Endpoint, "https://") {
			l.t.Errorf("referee %s advertises %s, want https://", r.RefereeID, r.Endpoint)
		}
	}
	for _, p := range snap.Players {
		if !strings.HasPrefix(p.Endpoint, "https://") {
			l.t.Errorf("player %s advertises %s, want https://", p.PlayerID, p.Endpoint)
		}
	}
	resp, err := http.Post("http://"+l.ln.Addr().String()+"/mcp", "application/json", strings.NewReader(`{}`))
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			l.t.Errorf("a plain HTTP request to the manager got %s, want the TLS server's 400", resp.Status)
		}
	}
}

func TestLeagueOverTLSWithAnImpostor(t *testing.T) {
	l := newTLSLeague(t, 4, false)
	var refLog syncBuffer
	l.addReferee("Referee Alpha", slog.New(slog.NewTextHandler(&refLog, nil)))
	good := []*player.Agent{l.addPlayer("Alpha"), l.addPlayer("Beta"), l.addPlayer("Gamma")}
	// The impostor's certificate is signed by a CA nobody trusts: it
	// registers (it trusts the league's CA), but no referee can reach it.
	rogue := tlstest.NewCA(t, "Rogue CA")
	impostor := l.newPlayer("Impostor", tlstest.ServerConfig(rogue.Issue(t, "impostor"), nil), l.clientTLS(nil))
	l.run("Impostor", impostor.Run)
	l.await(l.mgr.Done(), "the league to complete")

	l.checkHTTPSOnly()
	for _, p := range good {
		if n := p.History().Stats().TotalMatches; n != 3 {
			t.Errorf("%s played %d matches over TLS, want 3", p.ID(), n)
		}
	}
	if n := impostor.History().Stats().TotalMatches; n != 0 {
		t.Errorf("the impostor took part in %d matches, want none", n)
	}
	logged := refLog.String()
	if !strings.Contains(logged, impostor.Endpoint()) || !strings.Contains(logged, "x509: certificate signed by unknown authority") {
		t.Errorf("the referee's log does not name the impostor's endpoint %s and the TLS cause:\n%s", impostor.Endpoint(), logged)
	}
	if played := len(l.mgr.Results()); played != 6 {
		t.Errorf("%d matches finished, want 6", played)
	}
}

func TestLeagueOverMutualTLS(t *testing.T) {
	l := newTLSLeague(t, 3, true)
	l.addReferee("Referee Alpha", nil)
	l.addReferee("Referee Beta", nil)

	// A player whose client certificate comes from another CA is refused
	// at the handshake, with an error naming the manager and the cause;
	// the manager goes on serving the others.
	rogue := tlstest.NewCA(t, "Rogue CA")
	stranger := l.newPlayer("Stranger", nil, tlstest.ClientConfig(l.ca, rogue.Issue(t, "stranger")))
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	began := time.Now()
	err := stranger.Register(ctx)
	t.Logf("refused after %s: %v", time.Since(began), err)
	if err == nil {
		t.Fatal("a player with a client certificate of another CA registered under mutual TLS")
	}
	if msg := err.Error(); !strings.Contains(msg, l.url()) || !strings.Contains(msg, "tls: ") {
		t.Errorf("the refused registration's error does not name the endpoint %s and the TLS cause: %v", l.url(), err)
	}

	// A client with no certificate at all is refused too.
	bare := &http.Client{Transport: &http.Transport{TLSClientConfig: tlstest.ClientConfig(l.ca, nil)}}
	defer bare.CloseIdleConnections()
	resp, err := bare.Post(l.url(), "application/json", strings.NewReader(`{}`))
	if err == nil {
		resp.Body.Close()
		t.Errorf("a client without a certificate was served under mutual TLS: %s", resp.Status)
	} else if !strings.Contains(err.Error(), "certificate") {
		t.Errorf("the refusal does not say a certificate is required: %v", err)
	}

	players := []*player.Agent{l.addPlayer("Alpha"), l.addPlayer("Beta"), l.addPlayer("Gamma")}
	l.await(l.mgr.Done(), "the league to complete")
	l.checkHTTPSOnly()
	for _, p := range players {
		if n := p.History().Stats().TotalMatches; n != 2 {
			t.Errorf("%s played %d matches under mutual TLS, want 2", p.ID(), n)
		}
	}
	if n := len(l.mgr.Snapshot().Players); n != 3 {
		t.Errorf("the manager has %d players, want 3: the stranger must not be one", n)
	}
}
