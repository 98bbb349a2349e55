package main

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentleague/league/leaguesdk"
)

// The test certificates of the examples: a CA and a certificate it signed
// for 127.0.0.1.
var testTLS = leaguesdk.TLSFiles{
	CertFile: "../testdata/tls/agent.pem",
	KeyFile:  "../testdata/tls/agent-key.pem",
	CAFile:   "../testdata/tls/ca.pem",
}

// TestChecksAnHTTPSPlayer checks a player served over mutual TLS: with -ca
// and a client certificate the run passes; without -ca it fails, naming
// the TLS cause.
func TestChecksAnHTTPSPlayer(t *testing.T) {
	serverTLS, _, err := (leaguesdk.TLSFiles{CertFile: testTLS.CertFile, KeyFile: testTLS.KeyFile, ClientCAFile: testTLS.CAFile}).Configs()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(examplePlayer(t))
	srv.TLS = serverTLS
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ep := srv.URL + "/mcp"

	code, out, errOut := runMain(t, append(fast, "-player", ep, "-ca", testTLS.CAFile, "-tls-cert", testTLS.CertFile, "-tls-key", testTLS.KeyFile)...)
	if code != exitOK {
		t.Fatalf("with -ca and a client certificate: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runMain(t, append(fast, "-player", ep)...)
	if code == exitOK || !strings.Contains(out+errOut, "certificate signed by unknown authority") {
		t.Errorf("without -ca: exit %d, want a failure naming the unknown authority\n%s%s", code, out, errOut)
	}
}

// TestRefusesABadCAFile checks that a -ca file holding no certificate is
// bad usage, said with the flag and the file.
func TestRefusesABadCAFile(t *testing.T) {
	code, _, errOut := runMain(t, "-player", "https://127.0.0.1:1/mcp", "-ca", testTLS.KeyFile)
	if want := "-ca " + testTLS.KeyFile + ": no PEM certificate in the file"; code != exitUsage || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, %q; want exit %d saying %q", code, errOut, exitUsage, want)
	}
}
