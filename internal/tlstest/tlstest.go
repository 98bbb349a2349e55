// Package tlstest makes the certificates the tests of TLS use: a [CA] made
// in the test, and server-and-client certificates it signs for IP
// addresses, written as PEM files where the standalone programs need them.
//
// Shared by the tests of leaguesdk and internal/e2e.
package tlstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// CA is a certificate authority made for one test.
type CA struct {
	Cert *x509.Certificate
	key  *ecdsa.PrivateKey
	// PEM is the [CA] certificate in PEM form.
	PEM []byte
}

// NewCA makes a [CA] named name.
func NewCA(t testing.TB, name string) *CA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &CA{Cert: cert, key: key, PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// Pool returns a pool holding the [CA] alone.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// Leaf is a certificate signed by a [CA], usable by a server and a client.
type Leaf struct {
	// CertPEM and KeyPEM are the certificate and its key in PEM form.
	CertPEM, KeyPEM []byte
	// TLS is the pair, ready for [tls.Config.Certificates].
	TLS tls.Certificate
}

// Issue signs a certificate for name whose SANs are hosts: IP addresses,
// and DNS names for the others (127.0.0.1 when none are given); for server
// and client authentication.
func (ca *CA) Issue(t testing.TB, name string, hosts ...string) *Leaf {
	t.Helper()
	if len(hosts) == 0 {
		hosts = []string{"127.0.0.1"}
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	l := &Leaf{
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}),
	}
	if l.TLS, err = tls.X509KeyPair(l.CertPEM, l.KeyPEM); err != nil {
		t.Fatal(err)
	}
	return l
}

// Files writes the [CA] certificate and the leaf's certificate and key into
// dir as ca.pem, <name>.pem and <name>-key.pem, and returns their paths.
func (ca *CA) Files(t testing.TB, dir, name string, l *Leaf) (caFile, certFile, keyFile string) {
	t.Helper()
	caFile = filepath.Join(dir, "ca.pem")
	certFile = filepath.Join(dir, name+".pem")
	keyFile = filepath.Join(dir, name+"-key.pem")
	for f, b := range map[string][]byte{caFile: ca.PEM, certFile: l.CertPEM, keyFile: l.KeyPEM} {
		if err := os.WriteFile(f, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return caFile, certFile, keyFile
}

// ServerConfig is the server TLS configuration of l; with clientCA set,
// the server requires client certificates signed by clientCA.
func ServerConfig(l *Leaf, clientCA *CA) *tls.Config {
	c := &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{l.TLS}}
	if clientCA != nil {
		c.ClientCAs = clientCA.Pool()
		c.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return c
}

// ClientConfig trusts ca and presents l as the client certificate (none
// when l is nil).
func ClientConfig(ca *CA, l *Leaf) *tls.Config {
	c := &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: ca.Pool()}
	if l != nil {
		c.Certificates = []tls.Certificate{l.TLS}
	}
	return c
}
