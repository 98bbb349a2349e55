package manager_test

import (
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/player"
)

// fromAnotherHost is an HTTP client whose connections come from 127.0.0.2:
// to a manager listening on 127.0.0.1 it stands for an agent on another
// host (the whole of 127.0.0.0/8 is loopback, so the test needs no network
// of its own).
func fromAnotherHost(t *testing.T) *http.Client {
	t.Helper()
	probe, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("127.0.0.2 is not usable here: %v", err)
	}
	probe.Close()
	tr := &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}, Timeout: 5 * time.Second}).DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// TestALoopbackEndpointFromAnotherHostIsWarnedAbout: a player whose
// registration comes from another address than the manager's own, and
// that advertises a loopback endpoint (its default, http://127.0.0.1:…),
// is warned about when it registers: the manager cannot reach it there. A
// player on the manager's host, with the same kind of endpoint, is not;
// nor is an agent whose endpoint is the address it came from.
func TestALoopbackEndpointFromAnotherHostIsWarnedAbout(t *testing.T) {
	cfg := fastConfig(t, t.TempDir())
	m := startManager(t, cfg)
	elsewhere := fromAnotherHost(t)

	start := func(name string, client *http.Client, endpoint string) *player.Agent {
		t.Helper()
		var ln net.Listener
		if endpoint != "" {
			var err error
			if ln, err = net.Listen("tcp", endpoint); err != nil {
				t.Fatal(err)
			}
		} else {
			ln = listen(t)
		}
		a, err := player.New(player.Config{Name: name, League: m.MCP, Listener: ln, DataRoot: t.TempDir(), HTTPClient: client,
			RegisterRetry: 50 * time.Millisecond, ShutdownGrace: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(runAgent(t, a.Run))
		select {
		case <-a.Registered():
		case <-time.After(10 * time.Second):
			t.Fatalf("%s did not register", name)
		}
		return a
	}
	here := start("Here", nil, "")
	away := start("Away", elsewhere, "")
	own := start("Own address", elsewhere, "127.0.0.2:0")

	warnings := map[string]string{}
	for _, e := range m.Events.all() {
		if e.Kind == manager.EventWarning && strings.Contains(e.Message, "loopback") {
			warnings[e.AgentID] = e.Message
		}
	}
	msg, ok := warnings[away.ID()]
	if !ok {
		t.Fatalf("no warning about %s, which registered http://127.0.0.1:… from 127.0.0.2; events:\n%s", away.ID(), m.Events.tail(10))
	}
	for _, want := range []string{away.ID(), "Away", "from 127.0.0.2", "http://127.0.0.1:", "cannot reach it"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the warning lacks %q: %s", want, msg)
		}
	}
	for _, a := range []*player.Agent{here, own} {
		if w, ok := warnings[a.ID()]; ok {
			t.Errorf("%s was warned about: %s", a.ID(), w)
		}
	}
	if len(warnings) != 1 {
		t.Errorf("%d loopback warnings, want 1: %v", len(warnings), warnings)
	}
}
