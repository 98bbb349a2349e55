package leaguesdk_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/internal/tlstest"
	"github.com/agentleague/league/leaguesdk"
)

// TestClientTLSConfig calls an HTTPS server: trusted through
// ClientConfig.TLSConfig the call succeeds; with the system roots alone it
// fails with an *Error naming the endpoint and the TLS cause.
func TestClientTLSConfig(t *testing.T) {
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: "echo"}, func(ctx context.Context, _ *leaguesdk.Request, in *map[string]any) (*map[string]any, error) {
		return in, nil
	})
	ts := httptest.NewTLSServer(srv)
	defer ts.Close()
	endpoint := ts.URL + "/mcp"
	roots := x509.NewCertPool()
	roots.AddCert(ts.Certificate())

	c := leaguesdk.NewClient(leaguesdk.ClientConfig{TLSConfig: &tls.Config{RootCAs: roots}})
	defer c.Close()
	var out map[string]any
	if err := c.Call(t.Context(), endpoint, "echo", map[string]any{"x": "y"}, &out); err != nil || out["x"] != "y" {
		t.Fatalf("call over TLS: %v, %v", out, err)
	}

	// Retries are on: a certificate that does not verify is not retried.
	untrusting := leaguesdk.NewClient(leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{MaxRetries: 3, Delay: time.Second},
		Timeout: 5 * time.Second})
	defer untrusting.Close()
	err := untrusting.Call(t.Context(), endpoint, "echo", map[string]any{}, nil)
	var e *leaguesdk.Error
	if !errors.As(err, &e) || e.Endpoint != endpoint || !strings.Contains(err.Error(), "x509: certificate signed by unknown authority") {
		t.Errorf("call to an untrusted server: %v; want an *Error naming %s and the x509 cause", err, endpoint)
	}
	if e != nil && (e.Attempt != 1 || e.Retryable()) {
		t.Errorf("a certificate that does not verify was retried or is retryable: attempt %d, code %q", e.Attempt, e.Code)
	}
}

// TestTLSPeerNames: a server at 127.0.0.1 whose certificate names only
// pod.league.test (no IP), as a pod's certificate made before its address
// is known. The usual check refuses it; with TLSFiles.PeerNames naming it
// the call succeeds; a certificate naming another name, or naming the
// right name but signed by a CA outside -ca, is still refused, and so is
// a peer called by a DNS name its certificate does not name.
func TestTLSPeerNames(t *testing.T) {
	ca, other := tlstest.NewCA(t, "league CA"), tlstest.NewCA(t, "other CA")
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, ca.PEM, 0o600); err != nil {
		t.Fatal(err)
	}

	byName := false
	call := func(serverCert tls.Certificate, files leaguesdk.TLSFiles) error {
		t.Helper()
		srv := leaguesdk.NewServer(leaguesdk.ServerConfig{})
		leaguesdk.Handle(srv, leaguesdk.Tool{Name: "echo"}, func(ctx context.Context, _ *leaguesdk.Request, in *map[string]any) (*map[string]any, error) {
			return in, nil
		})
		ts := httptest.NewUnstartedServer(srv)
		ts.TLS = &tls.Config{Certificates: []tls.Certificate{serverCert}}
		ts.StartTLS()
		defer ts.Close()
		_, client, err := files.Configs()
		if err != nil {
			t.Fatalf("Configs: %v", err)
		}
		c := leaguesdk.NewClient(leaguesdk.ClientConfig{TLSConfig: client, Retry: leaguesdk.RetryPolicy{MaxRetries: leaguesdk.NoRetries}, Timeout: 5 * time.Second})
		defer c.Close()
		url := ts.URL
		if byName {
			url = strings.Replace(url, "127.0.0.1", "localhost", 1)
		}
		return c.Call(t.Context(), url+"/mcp", "echo", map[string]any{}, nil)
	}
	pod := ca.Issue(t, "pod", "pod.league.test").TLS
	if err := call(pod, leaguesdk.TLSFiles{CAFile: caFile}); err == nil || !strings.Contains(err.Error(), "127.0.0.1") {
		t.Errorf("usual check of a certificate without the IP: %v; want refused", err)
	}
	if err := call(pod, leaguesdk.TLSFiles{CAFile: caFile, PeerNames: []string{"other.test", "pod.league.test"}}); err != nil {
		t.Errorf("with PeerNames naming the certificate: %v", err)
	}
	if err := call(ca.Issue(t, "else", "else.league.test").TLS, leaguesdk.TLSFiles{CAFile: caFile, PeerNames: []string{"pod.league.test"}}); err == nil || !strings.Contains(err.Error(), "-tls-peer-name") {
		t.Errorf("a certificate naming another name: %v; want refused naming -tls-peer-name", err)
	}
	if err := call(other.Issue(t, "pod", "pod.league.test").TLS, leaguesdk.TLSFiles{CAFile: caFile, PeerNames: []string{"pod.league.test"}}); err == nil || !strings.Contains(err.Error(), "unknown authority") {
		t.Errorf("a certificate of another CA: %v; want refused, unknown authority", err)
	}
	byName = true // called by a DNS name, the usual check applies
	if err := call(pod, leaguesdk.TLSFiles{CAFile: caFile, PeerNames: []string{"pod.league.test"}}); err == nil || !strings.Contains(err.Error(), "localhost") {
		t.Errorf("a peer called by name, certificate naming another: %v; want refused naming localhost", err)
	}
	if _, _, err := (leaguesdk.TLSFiles{PeerNames: []string{"pod.league.test"}}).Configs(); err == nil || !strings.Contains(err.Error(), "needs -ca") {
		t.Errorf("PeerNames without CAFile: %v; want refused", err)
	}
}
