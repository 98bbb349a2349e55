package main

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// The test certificates of the examples: a CA and a certificate it signed
// for 127.0.0.1.
var testTLS = leaguesdk.TLSFiles{
	CertFile: "../testdata/tls/agent.pem",
	KeyFile:  "../testdata/tls/agent-key.pem",
	CAFile:   "../testdata/tls/ca.pem",
}

// TestServesHTTPSWithMutualTLS runs the manager with -tls-cert, -tls-key
// and -client-ca: it advertises an https:// endpoint, serves a client
// holding a certificate of the CA and refuses one without.
func TestServesHTTPSWithMutualTLS(t *testing.T) {
	out := &syncWriter{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, []string{"-port", "0", "-data", t.TempDir(), "-min-players", "-1", "-registration-window", "-1s",
			"-tls-cert", testTLS.CertFile, "-tls-key", testTLS.KeyFile, "-ca", testTLS.CAFile, "-client-ca", testTLS.CAFile}, out)
	}()
	re := regexp.MustCompile(`listening on (https://127\.0\.0\.1:\d+)/mcp`)
	waitFor(t, "the listening line", func() bool { return re.MatchString(out.String()) })
	base := re.FindStringSubmatch(out.String())[1]

	_, clientTLS, err := testTLS.Configs()
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: clientTLS}}
	defer client.CloseIdleConnections()
	resp, err := client.Get(base + "/health")
	if err != nil {
		t.Fatalf("GET /health over mutual TLS: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /health over mutual TLS: %s", resp.Status)
	}

	bareTLS := clientTLS.Clone()
	bareTLS.Certificates = nil
	bare := &http.Client{Transport: &http.Transport{TLSClientConfig: bareTLS}}
	defer bare.CloseIdleConnections()
	if resp, err := bare.Get(base + "/health"); err == nil {
		resp.Body.Close()
		t.Errorf("a client without a certificate was served: %s", resp.Status)
	}

	cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("run did not return")
	}
}

// TestRefusesBadTLSFiles checks the messages of TLS files that cannot be
// used: each names the flag and the file.
func TestRefusesBadTLSFiles(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-ca", testTLS.KeyFile}, "-ca " + testTLS.KeyFile + ": no PEM certificate in the file"},
		{[]string{"-ca", "no-such-ca.pem"}, "-ca no-such-ca.pem: open no-such-ca.pem"},
		{[]string{"-tls-cert", testTLS.CertFile}, "-tls-cert and -tls-key go together"},
		{[]string{"-client-ca", testTLS.CAFile}, "-client-ca needs -tls-cert"},
		{[]string{"-tls-cert", testTLS.CAFile, "-tls-key", testTLS.KeyFile}, "-tls-cert " + testTLS.CAFile},
	} {
		err := run(context.Background(), append(c.args, "-port", "0", "-data", t.TempDir()), &syncWriter{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("run %v: %v, want an error saying %q", c.args, err, c.want)
		}
	}
}
