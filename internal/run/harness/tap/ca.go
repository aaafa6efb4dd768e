package tap

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/skewtest/skewtest/driverkit"
)

// The variables that hand a CA's files to drivers (docs/driver-protocol.md): the driver
// kit's, which reads them.
const (
	EnvTLSCA   = driverkit.EnvTLSCA
	EnvTLSCert = driverkit.EnvTLSCert
	EnvTLSKey  = driverkit.EnvTLSKey
)

// CA is a throwaway certificate authority for products that insist on TLS: it signs one
// certificate for 127.0.0.1 and localhost, which hosts serve and the tap presents to
// clients. Drivers get its files through Env; the tap trusts it alone (WithTLS). It is made
// for one run and lives in a directory of the run's.
type CA struct {
	dir  string
	pool *x509.CertPool
	leaf tls.Certificate
}

// caLife is how long a CA's certificates are valid: a run, with room for clock skew.
const caLife = 48 * time.Hour

// NewCA makes a CA and writes its files into dir (created if need be): ca.pem, host.pem and
// host-key.pem.
func NewCA(dir string) (*CA, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("tls: %w", err)
	}
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("tls: %w", err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "skewtest throwaway CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(caLife),
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true, MaxPathLenZero: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("tls: %w", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, fmt.Errorf("tls: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("tls: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(caLife),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}, DNSNames: []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("tls: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("tls: %w", err)
	}
	ca := &CA{dir: dir, pool: x509.NewCertPool()}
	ca.pool.AddCert(caCert)
	ca.leaf = tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	files := []struct {
		name, kind string
		der        []byte
	}{{"ca.pem", "CERTIFICATE", caDER}, {"host.pem", "CERTIFICATE", der}, {"host-key.pem", "EC PRIVATE KEY", keyDER}}
	for _, f := range files {
		data := pem.EncodeToMemory(&pem.Block{Type: f.kind, Bytes: f.der})
		if err := os.WriteFile(filepath.Join(dir, f.name), data, 0o600); err != nil {
			return nil, fmt.Errorf("tls: %w", err)
		}
	}
	return ca, nil
}

// Env is the environment that hands the CA's files to a driver.
func (ca *CA) Env() []string {
	return []string{
		EnvTLSCA + "=" + filepath.Join(ca.dir, "ca.pem"),
		EnvTLSCert + "=" + filepath.Join(ca.dir, "host.pem"),
		EnvTLSKey + "=" + filepath.Join(ca.dir, "host-key.pem"),
	}
}

// server is the tap's side towards clients: it presents the CA's certificate.
func (ca *CA) server() *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{ca.leaf}, MinVersion: tls.VersionTLS12}
}

// client is the tap's side towards hosts: it trusts the CA alone.
func (ca *CA) client() *tls.Config {
	return &tls.Config{RootCAs: ca.pool, MinVersion: tls.VersionTLS12}
}
