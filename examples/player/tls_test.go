package main

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
)

// The test certificates of the examples: a CA and a certificate it signed
// for 127.0.0.1.
var testTLS = leaguesdk.TLSFiles{
	CertFile: "../testdata/tls/agent.pem",
	KeyFile:  "../testdata/tls/agent-key.pem",
	CAFile:   "../testdata/tls/ca.pem",
}

// TestServesHTTPS runs the player with -tls-cert, -tls-key and -ca
// against a manager on HTTPS: it registers an https:// endpoint, where it
// answers a client that trusts the CA.
func TestServesHTTPS(t *testing.T) {
	serverTLS, clientTLS, err := testTLS.Configs()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := manager.New(manager.Config{Listener: ln, TLS: serverTLS, ClientTLS: clientTLS, DataRoot: t.TempDir(),
		MinPlayers: -1, RegistrationWindow: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	mgrDone := make(chan error, 1)
	go func() { mgrDone <- mgr.Run(ctx) }()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-port", "0", "-league", "https://" + ln.Addr().String() + "/mcp", "-name", "Agent Alpha",
			"-data", t.TempDir(), "-tls-cert", testTLS.CertFile, "-tls-key", testTLS.KeyFile, "-ca", testTLS.CAFile}, &syncWriter{})
	}()
	defer func() {
		cancel()
		for _, c := range []chan error{done, mgrDone} {
			if err := <-c; err != nil {
				t.Errorf("run: %v", err)
			}
		}
	}()
	var endpoint string
	for deadline := time.Now().Add(10 * time.Second); endpoint == ""; time.Sleep(10 * time.Millisecond) {
		if refs := mgr.Snapshot().Players; len(refs) > 0 {
			endpoint = refs[0].Endpoint
		} else if time.Now().After(deadline) {
			t.Fatal("the player did not register with the manager over TLS")
		}
	}
	if !strings.HasPrefix(endpoint, "https://127.0.0.1:") {
		t.Fatalf("the player registered %s, want an https:// endpoint", endpoint)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: clientTLS}}
	defer client.CloseIdleConnections()
	resp, err := client.Get(strings.TrimSuffix(endpoint, "/mcp") + "/health")
	if err != nil {
		t.Fatalf("GET /health over TLS: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /health over TLS: %s", resp.Status)
	}
}

// TestRefusesABadCAFile checks that a -ca file holding no certificate
// stops the program with a message naming the flag and the file.
func TestRefusesABadCAFile(t *testing.T) {
	err := run(context.Background(), []string{"-port", "0", "-data", t.TempDir(), "-ca", testTLS.KeyFile}, &syncWriter{})
	if want := "-ca " + testTLS.KeyFile + ": no PEM certificate in the file"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("run: %v, want an error saying %q", err, want)
	}
}

// TestRefusesPeerNamesWithoutCA checks that -tls-peer-name alone, which
// would let a system root vouch for a league name, stops the program.
func TestRefusesPeerNamesWithoutCA(t *testing.T) {
	err := run(context.Background(), []string{"-port", "0", "-data", t.TempDir(), "-tls-peer-name", "league-manager.agent-league.svc"}, &syncWriter{})
	if want := "-tls-peer-name needs -ca"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("run: %v, want an error saying %q", err, want)
	}
}
