package leaguesdk

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
)

// TLSFiles names the PEM files of an agent's TLS setup, as the standalone
// programs take them on their command line (-tls-cert, -tls-key, -ca,
// -client-ca). The zero value means plain HTTP with the system roots.
type TLSFiles struct {
	// CertFile and KeyFile hold the agent's certificate (chain) and its
	// private key. Set both or neither. With them the agent serves HTTPS
	// only, and presents the same certificate as its client certificate
	// when a peer asks for one (mutual TLS).
	CertFile, KeyFile string
	// CAFile holds the certificates of CAs trusted, beside the system
	// roots, for the https:// endpoints the agent calls.
	CAFile string
	// ClientCAFile, when set, makes the server require a client
	// certificate signed by one of the CAs it holds (mutual TLS). It needs
	// CertFile and KeyFile.
	ClientCAFile string
	// PeerNames, when set, changes how the certificate of a peer called at
	// an IP address (https://10.1.2.3:8001/mcp) is checked: its chain must
	// still lead to a CA of CAFile, and it must name one of PeerNames (a
	// DNS name in its subjectAltName) instead of the IP. Peers called by a
	// DNS name are checked against that name, as always. This is for pods
	// whose addresses are known only once they start (see
	// docs/operating-a-league.md). Empty means the usual check everywhere.
	// It needs CAFile: only the league's own CA may vouch for a name.
	PeerNames []string
}

// RegisterFlags defines -tls-cert, -tls-key, -ca, -client-ca and
// -tls-peer-name on fs, storing into f.
func (f *TLSFiles) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&f.CertFile, "tls-cert", "", "PEM certificate: serve HTTPS only (with -tls-key); also the client certificate under mutual TLS")
	fs.StringVar(&f.KeyFile, "tls-key", "", "PEM private key of -tls-cert")
	fs.StringVar(&f.CAFile, "ca", "", "PEM CA certificates trusted for https:// endpoints, beside the system roots")
	fs.StringVar(&f.ClientCAFile, "client-ca", "", "PEM CA certificates: require client certificates signed by them (mutual TLS; needs -tls-cert)")
	fs.Func("tls-peer-name", "`NAME`s (comma-separated) a peer called at an IP address must name instead of the IP, its chain leading to -ca (needs -ca)", func(v string) error {
		f.PeerNames = nil
		for n := range strings.SplitSeq(v, ",") {
			if n = strings.TrimSpace(n); n != "" {
				f.PeerNames = append(f.PeerNames, n)
			}
		}
		return nil
	})
}

// Configs loads the files. server is the configuration to serve with (nil
// without CertFile); client is the configuration of calls to https://
// endpoints (nil when no file concerns it, meaning the defaults). Errors
// name the flag and the file.
func (f TLSFiles) Configs() (server, client *tls.Config, err error) {
	if (f.CertFile == "") != (f.KeyFile == "") {
		return nil, nil, errors.New("-tls-cert and -tls-key go together: set both or neither")
	}
	if f.ClientCAFile != "" && f.CertFile == "" {
		return nil, nil, errors.New("-client-ca needs -tls-cert and -tls-key: mutual TLS is a property of an HTTPS server")
	}
	if len(f.PeerNames) > 0 && f.CAFile == "" {
		return nil, nil, errors.New("-tls-peer-name needs -ca: only the league's own CA may vouch for a peer's name")
	}
	var cert *tls.Certificate
	if f.CertFile != "" {
		c, err := tls.LoadX509KeyPair(f.CertFile, f.KeyFile)
		if err != nil {
			return nil, nil, fmt.Errorf("-tls-cert %s / -tls-key %s: %w", f.CertFile, f.KeyFile, err)
		}
		cert = &c
		server = &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{c}}
	}
	if f.ClientCAFile != "" {
		pool, err := loadPool("-client-ca", f.ClientCAFile, x509.NewCertPool())
		if err != nil {
			return nil, nil, err
		}
		server.ClientCAs = pool
		server.ClientAuth = tls.RequireAndVerifyClientCert
	}
	if f.CAFile != "" || cert != nil || len(f.PeerNames) > 0 {
		client = &tls.Config{MinVersion: tls.VersionTLS12}
		if cert != nil {
			client.Certificates = []tls.Certificate{*cert}
		}
	}
	if f.CAFile != "" {
		roots, err := x509.SystemCertPool()
		if err != nil {
			roots = x509.NewCertPool()
		}
		if client.RootCAs, err = loadPool("-ca", f.CAFile, roots); err != nil {
			return nil, nil, err
		}
		if len(f.PeerNames) > 0 {
			pool := x509.NewCertPool()
			if pool, err = loadPool("-ca", f.CAFile, pool); err != nil {
				return nil, nil, err
			}
			client.InsecureSkipVerify = true // replaced by verifyPeer, which always verifies
			client.VerifyConnection = verifyPeer(client.RootCAs, pool, f.PeerNames)
		}
	}
	return server, client, nil
}

// verifyPeer checks a server's certificate: against the name called with
// roots (the usual check), or, when the peer was called at an IP address
// (no server name in the handshake), against names with the chain leading
// to leagueCAs only.
func verifyPeer(roots, leagueCAs *x509.CertPool, names []string) func(tls.ConnectionState) error {
	return func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("tls: the server presented no certificate")
		}
		leaf := cs.PeerCertificates[0]
		inter := x509.NewCertPool()
		for _, c := range cs.PeerCertificates[1:] {
			inter.AddCert(c)
		}
		opts := x509.VerifyOptions{Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
		if cs.ServerName != "" {
			opts.Roots, opts.DNSName = roots, cs.ServerName
			_, err := leaf.Verify(opts)
			return err
		}
		opts.Roots = leagueCAs
		var err error
		for _, n := range names {
			opts.DNSName = n
			if _, err = leaf.Verify(opts); err == nil {
				return nil
			}
		}
		return fmt.Errorf("peer called at an IP address, checked against -tls-peer-name %s: %w", strings.Join(names, ","), err)
	}
}

func loadPool(flagName, file string, pool *x509.CertPool) (*x509.CertPool, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", flagName, file, err)
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s %s: no PEM certificate in the file", flagName, file)
	}
	return pool, nil
}
