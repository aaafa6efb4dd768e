// Package scaffold writes what a product needs to become a skewtest subject (skewtest init):
// a commented skewtest.yaml, a contract skeleton, a driver skeleton on the Go driver kit and
// a first journey. The driver is a Go module of its own beside the product's
// (skewtest/driver/go.mod), which replaces the product's module with the checkout's root and,
// with --vendor-kit, skewtest's with a copy of the kit beside it: the build step gives a tag
// cut before the product had a go.mod one, so every tag builds it, without the network. The drivers it writes speak the driver protocol as they are (skewtest
// doctor and skewtest driver check pass them); what runs the product's real code is marked
// TODO, and the first journey fails there until it is written.
package scaffold

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"text/template"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"

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
	// Module is the product's Go module path, which the driver's module requires and
	// replaces with the checkout's root (default: the module of dir's go.mod; none: the
	// driver's module does not require the product). A tag without a go.mod is given one
	// with this path by the build step.
	Module string
	// Kit is the Go driver kit's module (its go.mod and driverkit's sources, by
	// slash-separated path, as example.DriverKit returns them). When set, Write copies it
	// beside the driver (KitDir) and the driver's go.mod replaces skewtest's module with
	// it, so the driver builds without the network (--vendor-kit).
	Kit map[string][]byte
	// GoVersion is the driver module's go directive (default: the kit's, else the go
	// release of the toolchain skewtest was built with).
	GoVersion string
}

// VendorKit reports whether Write copies the driver kit beside the driver.
func (o Options) VendorKit() bool { return len(o.Kit) > 0 }

// DriverModule is the driver's module path: the product's module path (or its name) and
// the driver's folder.
func (o Options) DriverModule() string {
	if o.Module != "" {
		return o.Module + "/skewtest/driver"
	}
	return o.Product + "/skewtest/driver"
}

// Stream reports whether the host serves a byte stream (tcp or tls).
func (o Options) Stream() bool { return o.Transport == "tcp" || o.Transport == "tls" }

// TransportConst is the driver kit's constant for the transport.
func (o Options) TransportConst() string {
	return map[string]string{"ws": "TransportWS", "wss": "TransportWSS", "tcp": "TransportTCP", "tls": "TransportTLS"}[o.Transport]
}

// Files are the paths Write writes, relative to the repository root; with a kit, also the
// kit's files under KitDir.
var Files = []string{"skewtest.yaml", "skewtest/contract.json", "skewtest/journeys/first.txtar", "skewtest/driver/go.mod", "skewtest/driver/main.go"}

// KitDir is where Write copies the driver kit's module (Options.Kit), relative to the
// repository root: inside the driver's module, which a replace points at it.
const KitDir = "skewtest/driver/skewtest-kit"

// kitModule is skewtest's module path, which holds the driver kit.
const kitModule = "github.com/skewtest/skewtest"

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
	if o.Module == "" {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			o.Module = modfile.ModulePath(data)
		}
	}
	if o.Module != "" {
		if err := module.CheckImportPath(o.Module); err != nil {
			return nil, usage.Errorf("init: %w", usage.Optionf("Module", "%q: give the product's Go module path, e.g. example.com/chat", o.Module))
		}
	}
	if o.GoVersion == "" {
		o.GoVersion = goVersion(o.Kit)
	}
	var there []string
	check := slices.Clone(Files)
	if o.VendorKit() {
		check = append(check, KitDir)
	}
	for _, f := range check {
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
	files := map[string][]byte{}
	for i, f := range Files {
		var b bytes.Buffer
		if err := templates[i].Execute(&b, o); err != nil {
			return nil, err
		}
		files[f] = b.Bytes()
	}
	written := slices.Clone(Files)
	var kit []string
	for name, data := range o.Kit {
		if name == "go.mod" {
			data = fmt.Appendf(nil, "// skewtest's driver kit, copied here by skewtest init --vendor-kit: the driver's go.mod\n// replaces skewtest's module with it, so the driver builds without the network.\nmodule %s\n\ngo %s\n", kitModule, goVersion(o.Kit))
		}
		f := path.Join(KitDir, name)
		files[f] = data
		kit = append(kit, f)
	}
	slices.Sort(kit)
	written = append(written, kit...)
	for _, f := range written {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, files[f], 0o644); err != nil {
			return nil, fmt.Errorf("init: %w", err)
		}
	}
	return written, nil
}

var goRelease = regexp.MustCompile(`^go(1\.[0-9]+)`)

// goVersion is the driver module's go directive: the kit's, else the go release (1.N) of
// the toolchain skewtest was built with.
func goVersion(kit map[string][]byte) string {
	if data, ok := kit["go.mod"]; ok {
		if mf, err := modfile.ParseLax("go.mod", data, nil); err == nil && mf.Go != nil {
			return mf.Go.Version
		}
	}
	if m := goRelease.FindStringSubmatch(runtime.Version()); m != nil {
		return m[1]
	}
	return "1.22"
}

var funcs = template.FuncMap{"first": func(ks []string) string { return ks[0] }}

var templates = []*template.Template{
	template.Must(template.New("skewtest.yaml").Funcs(funcs).Parse(yamlText)),
	template.Must(template.New("contract.json").Funcs(funcs).Parse(contractText)),
	template.Must(template.New("first.txtar").Funcs(funcs).Parse(journeyText)),
	template.Must(template.New("go.mod").Funcs(funcs).Parse(modText)),
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
# $SKEWTEST_OUT. The driver is a Go module of its own (skewtest/driver/go.mod), beside the
# product's, so that every tag builds it, and the product's go.mod never requires skewtest.
build:
  steps:
{{- if .Module}}
    # A tag cut before the product had a go.mod: give its checkout the module path that
    # the driver's go.mod replaces with this checkout's root.
    - test -f go.mod || go mod init {{.Module}}
{{- end}}
    # -mod=mod lets the driver's module take this tag's requirements of the product
    # (GOWORK=off: a go.work of the product's does not list the driver's module).
    - cd skewtest/driver && GOWORK=off go build -mod=mod -o "$SKEWTEST_OUT/skewtest-driver" .

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
# them (docs/subject.md, versions), and this file's build steps. skewtest doctor names the
# tags no row covers yet. The fixtures directory (skewtest/fixtures, where skewtest record
# writes) is never laid over them, so recording builds no old tag again.
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

const modText = `// The driver's own module, beside the product's (written by skewtest init; docs/subject.md,
// late adoption): it builds at every tag, with or without a go.mod at the checkout's root,
// and the product's go.mod never requires skewtest.
module {{.DriverModule}}

go {{.GoVersion}}

require github.com/skewtest/skewtest v0.0.0
{{- if .Module}}

// The product, as the checkout's root holds it: whichever tag is being built.
require {{.Module}} v0.0.0

replace {{.Module}} => ../..
{{- end}}
{{if .VendorKit}}
// The driver kit, copied beside this file by skewtest init --vendor-kit: nothing to download.
replace github.com/skewtest/skewtest => ./skewtest-kit
{{- else}}
// The driver kit: point this at a skewtest checkout, or run skewtest init --vendor-kit,
// which copies the kit beside this file and writes this replace for you.
// replace github.com/skewtest/skewtest => /path/to/skewtest
{{- end}}
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
{{- if .Module}}
	// TODO: import your product's packages ({{.Module}}/...): the driver's go.mod
	// replaces {{.Module}} with the checkout's root.
{{- end}}
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
