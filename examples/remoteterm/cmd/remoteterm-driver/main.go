// Command remoteterm-driver runs one role of this build of remoteterm under skewtest's
// driver protocol (docs/driver-protocol.md in the skewtest repository):
//
//	remoteterm-driver host
//	remoteterm-driver client desktop|mobile|session
//
// It reads actions as JSON lines on stdin and writes hello, ready, results and
// observations as JSON lines on stdout; its log goes to stderr. It exits 0 after a stop
// action or at the end of stdin, closing its connections first.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/skewtest/skewtest/driverkit"

	"github.com/skewtest/skewtest/examples/remoteterm/observe"
	"github.com/skewtest/skewtest/examples/remoteterm/release"
	"github.com/skewtest/skewtest/examples/remoteterm/wire"
)

const product = "remoteterm"

// driver is one instance of the driver's role, what every part of it shares: the
// driver's own instance (kit is the *driverkit.Driver) or a lane's (kit is the
// *driverkit.Lane). Each instance builds its own product objects (build).
type driver struct {
	role     string           // driverkit.Host or driverkit.Client
	kind     string           // client kind: desktop, mobile or session; "" for a host
	hostURL  string           // clients: the host's base URL
	hostFrom string           // where hostURL comes from, for messages
	features release.Features // this build's release
	kit      driverkit.Instance
	out      observe.Sink                     // the product's observations, written by kit
	logf     func(format string, args ...any) // the driver's log (stderr)
	// mux is the host's HTTP mux (nil for clients). Handlers mounted on it before the
	// host reports ready are served on the host's URL.
	mux *http.ServeMux
	// decoder is the opcode table of this build's host and desktop decoders: the
	// release's, less the opcodes named in REMOTETERM_DECODER_WITHOUT (a negative control).
	decoder wire.OpcodeSet
}

// lane is the driver for lane l: the same role and build, with the lane's handlers,
// observations and host URL, and a log that names the lane.
func (d *driver) lane(l *driverkit.Lane) *driver {
	ld := *d
	ld.kit, ld.out = l, kitSink{l}
	ld.hostURL, ld.hostFrom = l.HostURL(), "open-lane's hostURL"
	ld.mux = nil
	prefix := fmt.Sprintf("lane %d: ", l.ID())
	ld.logf = func(format string, args ...any) { d.logf(prefix+format, args...) }
	return &ld
}

// part is one role's implementation: it starts after hello (a host reports its URL) and
// closes before the driver exits.
type part interface {
	start(ctx context.Context) (url string, err error)
	close()
}

// build builds one instance of the role on d.kit: the role's part and the session half,
// with their handlers. It is the same for the driver's own instance and for every lane.
func build(d *driver) part {
	var p part = noPart{}
	switch {
	case d.role == driverkit.Host:
		d.mux = http.NewServeMux()
		p = newHostDriver(d)
	case d.kind == "desktop":
		p = newDesktopDriver(d)
	case d.kind == "mobile":
		p = newMobileDriver(d)
	}
	return instance{part: p, closeSession: registerSession(d)}
}

// instance is a built instance: its part, and the session half's close (nil when it
// opened nothing). The session closes first, as it always has.
type instance struct {
	part
	closeSession func()
}

func (in instance) close() {
	if in.closeSession != nil {
		in.closeSession()
	}
	in.part.close()
}

func main() {
	in, out := driverkit.Stdio() // only the kit writes to stdout; stray output goes to stderr
	os.Exit(run(os.Args[1:], in, out, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	role, kind, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "remoteterm-driver: %v\nusage: remoteterm-driver host | client desktop|mobile|session\n", err)
		return 2
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	logger := log.New(stderr, "remoteterm-driver: ", log.LstdFlags|log.Lmicroseconds)
	d := &driver{
		role:     role,
		kind:     kind,
		hostURL:  driverkit.FromEnv().HostURL,
		hostFrom: "SKEWTEST_HOST_URL",
		features: release.Current(),
		logf:     logger.Printf,
	}
	d.features, err = overrideFeatures(d.features, os.Getenv(featuresEnv))
	if err != nil {
		fmt.Fprintf(stderr, "remoteterm-driver: %v\n", err)
		return 2
	}
	d.decoder, err = decoderTable(d.features, os.Getenv(decoderWithoutEnv))
	if err != nil {
		fmt.Fprintf(stderr, "remoteterm-driver: %v\n", err)
		return 2
	}
	kit := driverkit.New(stdin, stdout, driverkit.Hello{Role: role, Kind: kind, Product: product, Version: d.features.Version})
	d.kit, d.out = kit, kitSink{kit}
	own := build(d)
	describe(kit, role, kind)
	// decode names frames as this build's receiving side reads them; it belongs to no lane
	// (every lane is the same build and role).
	kit.Decode(newFrameDecoder(d).decode)
	// Each lane is a fresh instance built the same way: a host lane a host, session daemon
	// and server of its own on its own port; a client lane a client of the lane's host.
	kit.Lanes(func(ctx context.Context, l *driverkit.Lane) (string, error) {
		p := build(d.lane(l))
		l.OnClose(p.close) // also when start fails: close what it opened
		return p.start(ctx)
	})

	// Run writes hello, starts the part (a host reports its URL in ready), and answers
	// actions until stop or the end of stdin; it closes every open lane before it returns.
	runErr := kit.Run(ctx, own.start)
	own.close()
	if runErr != nil {
		logger.Print(runErr)
		return 1
	}
	return 0
}

// kitSink writes the product's observations through the kit, for the driver's own
// instance or a lane's: each observation names itself (What) and is its own data.
type kitSink struct{ kit driverkit.Instance }

func (s kitSink) Observe(o observe.Observation) { s.kit.Observe(o.What(), o) }

// decoderWithoutEnv names opcodes (comma-separated numbers) to remove from this build's
// host and desktop decoders, so a harness can build a negative control: a peer that
// predates an opcode. The mobile client's vendored table is not affected.
const decoderWithoutEnv = "REMOTETERM_DECODER_WITHOUT"

// featuresEnv holds a JSON object of release.Features fields laid over this build's own
// release, so a harness can build a negative control from a real build: a host that stops
// publishing a field ({"publishCwd":false}), skips an echo ({"outputPause":false}), a client
// that sends a gated frame anyway ({"presenceUngated":true}), a daemon that accepts peers
// outside its window ({"sessionMinCompatible":1}), or turn on one of the switches no release
// ships (the README's table: {"pauseIgnored":true}, {"metadataOnResize":true} …). The build's
// contract is not changed: it still says what the release should do.
const featuresEnv = "REMOTETERM_FEATURES"

func overrideFeatures(f release.Features, override string) (release.Features, error) {
	if strings.TrimSpace(override) == "" {
		return f, nil
	}
	dec := json.NewDecoder(strings.NewReader(override))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf("%s: %w", featuresEnv, err)
	}
	return f, nil
}

func decoderTable(f release.Features, without string) (wire.OpcodeSet, error) {
	set := wire.Opcodes(f)
	for _, field := range strings.FieldsFunc(without, func(r rune) bool { return r == ',' || r == ' ' }) {
		n, err := strconv.ParseUint(field, 10, 8)
		if err != nil {
			return set, fmt.Errorf("%s: %q is not an opcode", decoderWithoutEnv, field)
		}
		set = set.Without(wire.Opcode(n))
	}
	return set, nil
}

func parseArgs(args []string) (role, kind string, err error) {
	switch {
	case len(args) == 1 && args[0] == "host":
		return driverkit.Host, "", nil
	case len(args) == 2 && args[0] == "client":
		switch args[1] {
		case "desktop", "mobile", "session":
			return driverkit.Client, args[1], nil
		}
		return "", "", fmt.Errorf("unknown client kind %q", args[1])
	}
	return "", "", fmt.Errorf("bad arguments %q", args)
}

// noPart is a role with nothing of its own to start (the session client, whose actions
// come from registerSession).
type noPart struct{}

func (noPart) start(context.Context) (string, error) { return "", nil }
func (noPart) close()                                {}
