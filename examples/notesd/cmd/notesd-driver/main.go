// Command notesd-driver runs one role of this build of notesd under skewtest's driver
// protocol (docs/driver-protocol.md in the skewtest repository), with skewtest's driver
// kit:
//
//	notesd-driver host
//	notesd-driver client cli|sync
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
	"fmt"
	"io"
	"log"
	"os"

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
		fmt.Fprintf(stderr, "notesd-driver: %v\nusage: notesd-driver host | client cli|sync\n", err)
		return 2
	}
	features, err := release.Override(release.Current(), os.Getenv(featuresEnv))
	if err != nil {
		return usage(fmt.Errorf("%s: %w", featuresEnv, err))
	}
	env := driverkit.FromEnv()
	hello := driverkit.Hello{Product: product, Version: features.Version}
	switch {
	case len(args) == 1 && args[0] == driverkit.Host:
		hello.Role = driverkit.Host
	case len(args) == 2 && args[0] == driverkit.Client:
		hello.Role, hello.Kind = driverkit.Client, args[1]
	default:
		return usage(fmt.Errorf("bad arguments %q", args))
	}
	d := driverkit.New(in, out, hello)
	var r role
	if hello.Role == driverkit.Host {
		r = newHost(features, d, logger.Printf)
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
