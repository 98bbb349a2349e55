package leaguesdk

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"os"
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
}

// RegisterFlags defines -tls-cert, -tls-key, -ca and -client-ca on fs,
// storing into f.
func (f *TLSFiles) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&f.CertFile, "tls-cert", "", "PEM certificate: serve HTTPS only (with -tls-key); also the client certificate under mutual TLS")
	fs.StringVar(&f.KeyFile, "tls-key", "", "PEM private key of -tls-cert")
	fs.StringVar(&f.CAFile, "ca", "", "PEM CA certificates trusted for https:// endpoints, beside the system roots")
	fs.StringVar(&f.ClientCAFile, "client-ca", "", "PEM CA certificates: require client certificates signed by them (mutual TLS; needs -tls-cert)")
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
	if f.CAFile != "" || cert != nil {
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
	}
	return server, client, nil
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
