package leaguesdk_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// TestClientTLSConfig calls an HTTPS server: trusted through
// ClientConfig.TLSConfig the call succeeds; with the system roots alone it
// fails with an *Error naming the endpoint and the TLS cause.
func TestClientTLSConfig(t *testing.T) {
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: "echo"}, func(ctx context.Context, in *map[string]any) (*map[string]any, error) {
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

	untrusting := leaguesdk.NewClient(leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{MaxRetries: leaguesdk.NoRetries},
		Timeout: 5 * time.Second})
	defer untrusting.Close()
	err := untrusting.Call(t.Context(), endpoint, "echo", map[string]any{}, nil)
	var e *leaguesdk.Error
	if !errors.As(err, &e) || e.Endpoint != endpoint || !strings.Contains(err.Error(), "x509: certificate signed by unknown authority") {
		t.Errorf("call to an untrusted server: %v; want an *Error naming %s and the x509 cause", err, endpoint)
	}
}
