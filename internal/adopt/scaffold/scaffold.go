// Package scaffold writes what a product needs to become a skewtest subject (skewtest init):
// a commented skewtest.yaml, a contract skeleton, a driver skeleton on the Go driver kit and
// a first journey. The drivers it writes speak the driver protocol as they are (skewtest
// doctor and skewtest driver check pass them); what runs the product's real code is marked
// TODO, and the first journey fails there until it is written.
package scaffold

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/usage"
)

// Options say what to write.
type Options struct {
	// Product names the product (default: the directory's name).
	Product string
	// Kinds are the client kinds (default: one, "app").
	Kinds []string
	// Path is the WebSocket path clients connect to (default "/ws"); a tcp or tls channel's
	// connections are filed under it (default "/main").
	Path string
	// Transport is how the host serves: ws (the default), wss, tcp or tls (docs/subject.md,
	// channels). A byte stream carries one JSON value per line.
	Transport string
}

// Stream reports whether the host serves a byte stream (tcp or tls).
func (o Options) Stream() bool { return o.Transport == "tcp" || o.Transport == "tls" }

// TransportConst is the driver kit's constant for the transport.
func (o Options) TransportConst() string {
	return map[string]string{"ws": "TransportWS", "wss": "TransportWSS", "tcp": "TransportTCP", "tls": "TransportTLS"}[o.Transport]
}

// Files are the paths Write writes, relative to the repository root.
var Files = []string{"skewtest.yaml", "skewtest/contract.json", "skewtest/journeys/first.txtar", "skewtest/driver/main.go"}

var name = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

// Write writes Files into dir, the root of the product's repository. It writes nothing when
// one of them exists already (it names them), or when an option is not usable: both are
// usage errors.
func Write(dir string, o Options) ([]string, error) {
	if o.Product == "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		o.Product = filepath.Base(abs)
	}
	if len(o.Kinds) == 0 {
		o.Kinds = []string{"app"}
	}
	if o.Transport == "" {
		o.Transport = "ws"
	}
	if !slices.Contains(builds.Transports, o.Transport) {
		return nil, usage.Errorf("init: %w", usage.Optionf("Transport", "%q: want %s", o.Transport, strings.Join(builds.Transports, ", ")))
	}
	if o.Path == "" {
		o.Path = "/ws"
		if o.Stream() {
			o.Path = "/main"
		}
	}
	if !name.MatchString(o.Product) {
		return nil, usage.Errorf("init: product %q: give a name of letters, digits, - and _ (Product, --product)", o.Product)
	}
	for _, k := range o.Kinds {
		if !name.MatchString(k) {
			return nil, usage.Errorf("init: client kind %q: give names of letters, digits, - and _ (Kinds, --kind)", k)
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(o.Kinds)))) != len(o.Kinds) {
		return nil, usage.Errorf("init: %w", usage.Optionf("Kinds", "names a kind twice"))
	}
	if !strings.HasPrefix(o.Path, "/") {
		return nil, usage.Errorf("init: %w", usage.Optionf("Path", "%q: give the WebSocket path clients connect to, starting with /", o.Path))
	}
	var there []string
	for _, f := range Files {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			there = append(there, f)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	if len(there) > 0 {
		return nil, usage.Errorf("init: %s already exist(s) in %s: init writes nothing over them (skewtest doctor checks a subject that has them)",
			strings.Join(there, ", "), dir)
	}
	for i, f := range Files {
		var b bytes.Buffer
		if err := templates[i].Execute(&b, o); err != nil {
			return nil, err
		}
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			return nil, fmt.Errorf("init: %w", err)
		}
	}
	return Files, nil
}

var funcs = template.FuncMap{"first": func(ks []string) string { return ks[0] }}

var templates = []*template.Template{
	template.Must(template.New("skewtest.yaml").Funcs(funcs).Parse(yamlText)),
	template.Must(template.New("contract.json").Funcs(funcs).Parse(contractText)),
	template.Must(template.New("first.txtar").Funcs(funcs).Parse(journeyText)),
	template.Must(template.New("main.go").Funcs(funcs).Parse(driverText)),
}

const yamlText = `# skewtest.yaml: how skewtest builds and drives {{.Product}} (docs/subject.md). Written by
# skewtest init; skewtest doctor checks it, step by step.
product: {{.Product}}

# The wire contract: the frames host and clients exchange, and how to tell them apart
# (docs/contract.md). Each build reads its own; a tag cut before it existed is given one
# through a versions: row below.
contract: skewtest/contract.json

# Shell commands run at the root of each build's checkout: they write the drivers to
# $SKEWTEST_OUT. The driver imports github.com/skewtest/skewtest/driverkit: add it to your
# module (go get github.com/skewtest/skewtest/driverkit).
build:
  steps:
    - go build -o "$SKEWTEST_OUT/skewtest-driver" ./skewtest/driver

# The drivers: one per role, run from the build's output directory (docs/driver-authors.md).
drivers:
  host: ["./skewtest-driver", "host"]
  clients:
{{- range .Kinds}}
    {{.}}: ["./skewtest-driver", "client", "{{.}}"]
{{- end}}

# The journeys a run covers (docs/journeys.md).
journeys: ["skewtest/journeys/*.txtar"]
{{- if ne .Transport "ws"}}

# How the host serves the contract's channel (docs/subject.md, channels).
{{- if .Stream}} skewtest's tap
# cuts the byte stream into messages at each newline: one JSON value per line.
{{- end}}
channels:
  main:
    transport: {{.Transport}}
{{- if .Stream}}
    framing: lines
{{- end}}
{{- end}}

# Which releases to pair the working tree with: by default the newest stable vX.Y.Z tag.
# pins:
#   last: 3

# Tags cut before this file existed: build them with the working tree's drivers laid over
# them (docs/subject.md, versions). skewtest doctor names the tags no row covers yet.
# versions:
#   - range: "<v1.0.0"
#     overlay: [skewtest]
`

const contractText = `{
  "contractVersion": 2,
  "product": "{{.Product}}",
  "protocol": {"version": 1, "minCompatible": 1},
  "channels": [
    {
      "name": "main",
      "paths": ["{{.Path}}"],
      "text": {"json": {"discriminator": "type"}},
      "frames": [
        {"type": "hello", "name": "hello", "direction": "C>H", "payload": "json",
         "fields": {"type": {"type": "string", "required": true}}},
        {"type": "welcome", "name": "welcome", "direction": "H>C", "payload": "json",
         "fields": {"type": {"type": "string", "required": true}}}
      ]
    }
  ]
}
`

const journeyText = `# first: a client connects and says hello; the host welcomes it. Written by skewtest init:
# it fails at "client connect" until the driver's connect runs your client's real code
# (skewtest/driver/main.go, TODO), and the contract names your real frames.
kind *
timeout 10s

-- script --
step connect
client connect
await frame C>H hello
await frame H>C welcome
`

const driverText = `// Command skewtest-driver runs {{.Product}}'s real code for skewtest, as the host or as a
// client (docs/driver-authors.md). Written by skewtest init: it speaks the driver protocol as
// it is (skewtest driver check passes it); the parts marked TODO call your product.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"log"
{{- if .Stream}}
	"net"
{{- else}}
	"net/http"
{{- end}}
	"os"

	"github.com/skewtest/skewtest/driverkit"
)

func main() {
	in, out := driverkit.Stdio() // from here on, only the kit writes to stdout
	log.SetOutput(os.Stderr)     // logs go to the driver's log, never to stdout

	env := driverkit.FromEnv()
	d := driverkit.New(in, out, driverkit.Hello{Role: env.Role, Kind: env.Kind, Product: "{{.Product}}", Version: version()})
	if env.Role == driverkit.Client {
		d.Handle("connect", func(ctx context.Context, raw json.RawMessage) (any, error) {
{{- if .Stream}}
			// TODO: connect with your client's real code (driverkit.Dial(ctx, env.HostURL)
			// gives the {{.Transport}} connection), say hello, and report what happened with
			// d.Observe.
{{- else}}
			// TODO: connect to env.HostURL + "{{.Path}}" with your client's real code, say
			// hello, and report what happened with d.Observe.
{{- end}}
			return nil, driverkit.Failed(errors.New("connect is not written yet: skewtest/driver/main.go"))
		})
	}
	// Decode names a frame with this build's real decoder, for replay and the fixture tier
	// (docs/driver-protocol.md, decode). TODO: call your decoder.
	d.Decode(func(f driverkit.Frame) driverkit.Decoded {
		var m struct {
			Type string ` + "`json:\"type\"`" + `
		}
		if f.Binary || json.Unmarshal(f.Data, &m) != nil || m.Type == "" {
			return driverkit.Decoded{Refused: true, Reason: "not a JSON frame with a type"}
		}
		return driverkit.Decoded{Type: m.Type, Fields: json.RawMessage(f.Data)}
	})
{{if .Stream}}
	var ln net.Listener
	start := func(ctx context.Context) (string, error) {
		if env.Role != driverkit.Host {
			return "", nil
		}
		var url string
		var err error
		if ln, url, err = driverkit.ListenOn(ctx, driverkit.{{.TransportConst}}); err != nil {
			return "", err
		}
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				// TODO: serve your host's real connection on c (one JSON value per line).
				c.Close()
			}
		}()
		return url, nil
	}
	err := d.Run(context.Background(), start)
	if ln != nil {
		_ = ln.Close()
	}
{{- else}}
	var srv *http.Server
	start := func(ctx context.Context) (string, error) {
		if env.Role != driverkit.Host {
			return "", nil
		}
		ln, url, err := driverkit.{{if eq .Transport "ws"}}Listen(ctx){{else}}ListenOn(ctx, driverkit.{{.TransportConst}}){{end}}
		if err != nil {
			return "", err
		}
		// TODO: serve your host's real handler on {{.Path}}.
		srv = &http.Server{Handler: http.NotFoundHandler()}
		go func() { _ = srv.Serve(ln) }()
		return url, nil
	}
	err := d.Run(context.Background(), start)
	if srv != nil {
		_ = srv.Close()
	}
{{- end}}
	if err != nil {
		log.Print(err)
		os.Exit(1)
	}
}

// version is this build's release. TODO: your product's version.
func version() string { return "v0.0.0" }
`
