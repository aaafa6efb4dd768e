// Command notesd-driver runs one role of this build of notesd under skewtest's driver
// protocol (docs/driver-protocol.md in the skewtest repository), with skewtest's driver
// kit:
//
//	notesd-driver host [--transport ws|wss|tcp|tls]
//	notesd-driver client cli|sync
//
// The host listens on 127.0.0.1, port 0, on the transport given (ws by default) and reports
// its URL in ready: WebSocket at /rpc (ws, or wss over TLS), or JSON-RPC one record per line
// on a TCP stream (tcp, or tls over TLS); wss and tls use the certificate skewtest hands
// over (SKEWTEST_TLS_CERT, SKEWTEST_TLS_KEY). A client dials the scheme of
// SKEWTEST_HOST_URL the same way (trusting SKEWTEST_TLS_CA for wss:// and tls://).
//
// It reads actions as JSON lines on stdin and writes hello, ready, results and
// observations as JSON lines on stdout; its log (and jrpc2's) goes to stderr. It exits 0
// after a stop action or at the end of stdin, closing its connections first.
//
// NOTESD_FEATURES='{"pushUngated":true}' lays fields of release.Features over this build's
// release, to make negative controls (see the subject's README).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"slices"
	"strings"

	"github.com/skewtest/skewtest/driverkit"

	"github.com/skewtest/skewtest/examples/notesd/release"
)

const product = "notesd"

// featuresEnv names the negative-control switch.
const featuresEnv = "NOTESD_FEATURES"

// role is one role's implementation: it registers its actions, starts after hello (a host
// listens and reports its URL) and closes before the driver exits.
type role interface {
	register(d *driverkit.Driver)
	start(ctx context.Context) (url string, err error)
	close()
}

func main() {
	in, out := driverkit.Stdio() // from here on stdout is the protocol's alone
	os.Exit(run(os.Args[1:], in, out, os.Stderr))
}

func run(args []string, in io.Reader, out, stderr io.Writer) int {
	logger := log.New(stderr, "notesd-driver: ", log.LstdFlags|log.Lmicroseconds)
	usage := func(err error) int {
		fmt.Fprintf(stderr, "notesd-driver: %v\nusage: notesd-driver host [--transport %s] | client cli|sync\n",
			err, strings.Join(transports, "|"))
		return 2
	}
	features, err := release.Override(release.Current(), os.Getenv(featuresEnv))
	if err != nil {
		return usage(fmt.Errorf("%s: %w", featuresEnv, err))
	}
	env := driverkit.FromEnv()
	hello := driverkit.Hello{Product: product, Version: features.Version}
	transport := driverkit.TransportWS
	switch {
	case len(args) >= 1 && args[0] == driverkit.Host:
		hello.Role = driverkit.Host
		if transport, err = hostFlags(args[1:]); err != nil {
			return usage(err)
		}
	case len(args) == 2 && args[0] == driverkit.Client:
		hello.Role, hello.Kind = driverkit.Client, args[1]
	default:
		return usage(fmt.Errorf("bad arguments %q", args))
	}
	d := driverkit.New(in, out, hello)
	var r role
	if hello.Role == driverkit.Host {
		r = newHost(features, transport, d, logger.Printf)
	} else if r, err = newClient(hello.Kind, features, env.HostURL, d, logger.Printf); err != nil {
		return usage(err)
	}
	if v := os.Getenv(featuresEnv); v != "" {
		logger.Printf("%s=%s: release %+v", featuresEnv, v, features)
	}
	r.register(d)
	// decode names frames as this build's receiving side reads them (decode.go).
	d.Decode(frameDecoder{role: hello.Role, kind: hello.Kind, features: features}.decode)
	err = d.Run(context.Background(), r.start)
	r.close()
	if err != nil {
		logger.Printf("%v", err)
		return 1
	}
	return 0
}

// hostFlags reads the host's arguments: --transport ws|wss|tcp|tls (or -transport, or
// --transport=…), ws when absent.
func hostFlags(args []string) (transport string, err error) {
	fs := flag.NewFlagSet("host", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // usage says it
	fs.StringVar(&transport, "transport", driverkit.TransportWS, "")
	if err := fs.Parse(args); err != nil {
		return "", fmt.Errorf("host: %w", err)
	}
	if fs.NArg() > 0 {
		return "", fmt.Errorf("host: bad arguments %q", fs.Args())
	}
	if !slices.Contains(transports, transport) {
		return "", fmt.Errorf("host: transport %q: want %s", transport, strings.Join(transports, ", "))
	}
	return transport, nil
}
