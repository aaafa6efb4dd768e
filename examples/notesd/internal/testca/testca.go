// Package testca makes a throwaway certificate authority for notesd's specs, as skewtest
// makes one for a run whose channels use TLS (wss or tls): an ECDSA authority and a host
// certificate it signs for 127.0.0.1 and localhost, written as PEM files.
package testca

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
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

// Files are the PEM files of one authority.
type Files struct {
	CA   string // the authority's certificate: what a client trusts
	Cert string // the host's certificate, for 127.0.0.1 and localhost
	Key  string // the host's private key
}

// Env sets the driver kit's variables (SKEWTEST_TLS_CA, _CERT, _KEY) to the files with
// setenv (GinkgoT().Setenv, which undoes it after the spec).
func (f Files) Env(setenv func(key, value string)) {
	setenv(driverkit.EnvTLSCA, f.CA)
	setenv(driverkit.EnvTLSCert, f.Cert)
	setenv(driverkit.EnvTLSKey, f.Key)
}

// Write makes a new authority and host certificate and writes them to dir.
func Write(dir string) (Files, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Files{}, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "notesd spec authority"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return Files{}, fmt.Errorf("authority: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return Files{}, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Files{}, err
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:     []string{"localhost"},
	}, ca, &key.PublicKey, caKey)
	if err != nil {
		return Files{}, fmt.Errorf("host certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return Files{}, err
	}
	f := Files{CA: filepath.Join(dir, "ca.pem"), Cert: filepath.Join(dir, "host.pem"), Key: filepath.Join(dir, "host-key.pem")}
	for _, w := range []struct {
		path, typ string
		der       []byte
	}{{f.CA, "CERTIFICATE", caDER}, {f.Cert, "CERTIFICATE", leafDER}, {f.Key, "PRIVATE KEY", keyDER}} {
		if err := os.WriteFile(w.path, pem.EncodeToMemory(&pem.Block{Type: w.typ, Bytes: w.der}), 0o600); err != nil {
			return Files{}, err
		}
	}
	return f, nil
}
