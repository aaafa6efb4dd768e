package driverkit

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
)

// Transports a host serves on: the scheme of the URL it reports in ready, and of the URL a
// client gets in SKEWTEST_HOST_URL. The skewtest.yaml of the host's build declares which
// transport a channel uses (docs/subject.md); WebSocket is the default.
const (
	TransportWS  = "ws"  // WebSocket
	TransportWSS = "wss" // WebSocket over TLS
	TransportTCP = "tcp" // a plain TCP byte stream
	TransportTLS = "tls" // a TCP byte stream over TLS
)

// The files of skewtest's throwaway certificate authority, named by the environment of every
// driver of a run in which some channel uses TLS (wss or tls): PEM files.
const (
	EnvTLSCA   = "SKEWTEST_TLS_CA"   // the authority's certificate: what a client trusts
	EnvTLSCert = "SKEWTEST_TLS_CERT" // a host's certificate, for 127.0.0.1 and localhost
	EnvTLSKey  = "SKEWTEST_TLS_KEY"  // its private key
)

// Listen listens on 127.0.0.1, port 0, and returns the listener with the base URL a host
// reports in ready, ws://127.0.0.1:PORT, the port read back from the listener. Hand the
// listener to the product's server (http.Server.Serve, or whatever the library takes); a
// library that insists on binding its own address must report the port it actually got.
func Listen(ctx context.Context) (net.Listener, string, error) {
	return ListenOn(ctx, TransportWS)
}

// ListenOn is Listen for a transport: it returns the listener and the URL to report,
// SCHEME://127.0.0.1:PORT. For wss and tls the listener is a TLS one, with the certificate
// skewtest hands the host (ServerTLS); accepted connections are then plaintext to the
// product. For tcp and tls the product reads and writes the accepted net.Conn itself.
func ListenOn(ctx context.Context, transport string) (net.Listener, string, error) {
	var conf *tls.Config
	switch transport {
	case TransportWS, TransportTCP:
	case TransportWSS, TransportTLS:
		var err error
		if conf, err = ServerTLS(); err != nil {
			return nil, "", err
		}
	default:
		return nil, "", fmt.Errorf("transport %q: want %s, %s, %s or %s", transport, TransportWS, TransportWSS, TransportTCP, TransportTLS)
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", fmt.Errorf("listen on 127.0.0.1:0: %w", err)
	}
	u := transport + "://" + ln.Addr().String()
	if conf != nil {
		ln = tls.NewListener(ln, conf)
	}
	return ln, u, nil
}

// Dial connects a client to a tcp:// or tls:// base URL (SKEWTEST_HOST_URL, or a lane's
// HostURL); a tls:// connection trusts skewtest's authority (ClientTLS). WebSocket URLs are
// the product's WebSocket library's to dial (with ClientTLS for wss://).
func Dial(ctx context.Context, base string) (net.Conn, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("host URL %q: %w", base, err)
	}
	switch u.Scheme {
	case TransportTCP:
		return (&net.Dialer{}).DialContext(ctx, "tcp", u.Host)
	case TransportTLS:
		conf, err := ClientTLS()
		if err != nil {
			return nil, err
		}
		return (&tls.Dialer{Config: conf}).DialContext(ctx, "tcp", u.Host)
	}
	return nil, fmt.Errorf("host URL %q: Dial takes %s:// or %s://", base, TransportTCP, TransportTLS)
}

// ServerTLS is the TLS configuration of a host serving wss or tls: the certificate and key
// skewtest made for this run (SKEWTEST_TLS_CERT, SKEWTEST_TLS_KEY).
func ServerTLS() (*tls.Config, error) {
	cert, key := os.Getenv(EnvTLSCert), os.Getenv(EnvTLSKey)
	if cert == "" || key == "" {
		return nil, errNoTLS
	}
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		return nil, fmt.Errorf("the host certificate skewtest handed over: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, nil
}

// ClientTLS is the TLS configuration of a client reaching a wss:// or tls:// URL: it trusts
// skewtest's authority (SKEWTEST_TLS_CA) and nothing else.
func ClientTLS() (*tls.Config, error) {
	path := os.Getenv(EnvTLSCA)
	if path == "" {
		return nil, errNoTLS
	}
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("the certificate authority skewtest handed over: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("the certificate authority skewtest handed over (%s) holds no PEM certificate", path)
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}

var errNoTLS = errors.New("no TLS files from skewtest (" + EnvTLSCA + ", " + EnvTLSCert + ", " + EnvTLSKey +
	"): skewtest hands them over when the host's skewtest.yaml gives a channel the wss or tls transport")
