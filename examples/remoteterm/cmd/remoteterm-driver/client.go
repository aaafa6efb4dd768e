package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/skewtest/skewtest/driverkit"

	"github.com/skewtest/skewtest/examples/remoteterm/desktop"
	"github.com/skewtest/skewtest/examples/remoteterm/host"
	"github.com/skewtest/skewtest/examples/remoteterm/mobile"
)

// terminalClient is what the desktop and mobile clients have in common.
type terminalClient interface {
	Subscribe(ctx context.Context, path, terminal string, cols, rows int) error
	Input(ctx context.Context, terminal string, data []byte) error
	RequestSnapshot(ctx context.Context, terminal string, scrollbackRows int) error
	Resize(ctx context.Context, terminal string, cols, rows int) error
	Unsubscribe(ctx context.Context, terminal string) error
	Resubscribe(ctx context.Context, terminal string) error
	Close() error
}

// clientDriver runs a terminal client role.
type clientDriver struct {
	d *driver
	c terminalClient
}

func (cd *clientDriver) start(context.Context) (string, error) { return "", nil }

func (cd *clientDriver) close() { _ = cd.c.Close() }

func newDesktopDriver(d *driver) *clientDriver {
	c := desktop.New(desktop.Options{Features: d.features, BaseURL: d.hostURL, Sink: d.out, Logf: d.logf, Opcodes: &d.decoder})
	cd := &clientDriver{d: d, c: c}
	cd.register()
	d.kit.Handle("pause", func(ctx context.Context, raw json.RawMessage) (any, error) {
		args, err := driverkit.Args[struct {
			Terminal string `json:"terminal"`
			Paused   *bool  `json:"paused"`
		}](raw)
		if err != nil {
			return nil, err
		}
		if args.Paused == nil {
			return nil, driverkit.BadArgs("pause needs paused")
		}
		return nil, c.Pause(ctx, terminalName(args.Terminal), *args.Paused)
	})
	return cd
}

func newMobileDriver(d *driver) *clientDriver {
	c := mobile.New(mobile.Options{BaseURL: d.hostURL, Sink: d.out, Logf: d.logf})
	cd := &clientDriver{d: d, c: c}
	cd.register()
	return cd
}

func (cd *clientDriver) register() {
	kit := cd.d.kit
	kit.Handle("subscribe", cd.subscribe)
	kit.Handle("input", cd.input)
	kit.Handle("request-snapshot", cd.requestSnapshot)
	kit.Handle("resize", cd.resize)
	kit.Handle("unsubscribe", cd.unsubscribe)
	kit.Handle("resubscribe", cd.resubscribe)
}

type terminalArgs struct {
	Terminal string `json:"terminal"`
}

// terminalName defaults an empty terminal to the host's default terminal.
func terminalName(t string) string {
	if t == "" {
		return host.DefaultTerminal().Name
	}
	return t
}

func (cd *clientDriver) subscribe(ctx context.Context, raw json.RawMessage) (any, error) {
	args, err := driverkit.Args[struct {
		Path     string `json:"path"`
		Terminal string `json:"terminal"`
		Cols     int    `json:"cols"`
		Rows     int    `json:"rows"`
	}](raw)
	if err != nil {
		return nil, err
	}
	if cd.d.hostURL == "" {
		return nil, fmt.Errorf("subscribe: %s is not set", cd.d.hostFrom)
	}
	if args.Cols <= 0 || args.Rows <= 0 {
		def := host.DefaultTerminal()
		args.Cols, args.Rows = def.Cols, def.Rows
	}
	path := args.Path
	if path != "" && !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	return nil, cd.c.Subscribe(ctx, path, terminalName(args.Terminal), args.Cols, args.Rows)
}

func (cd *clientDriver) input(ctx context.Context, raw json.RawMessage) (any, error) {
	args, err := driverkit.Args[struct {
		Terminal string `json:"terminal"`
		Bytes    []byte `json:"bytes"`
	}](raw)
	if err != nil {
		return nil, err
	}
	return nil, cd.c.Input(ctx, terminalName(args.Terminal), args.Bytes)
}

func (cd *clientDriver) requestSnapshot(ctx context.Context, raw json.RawMessage) (any, error) {
	args, err := driverkit.Args[struct {
		Terminal       string `json:"terminal"`
		ScrollbackRows *int   `json:"scrollbackRows"`
	}](raw)
	if err != nil {
		return nil, err
	}
	rows := -1
	if args.ScrollbackRows != nil {
		if *args.ScrollbackRows < 0 {
			return nil, driverkit.BadArgs("scrollbackRows must not be negative")
		}
		rows = *args.ScrollbackRows
	}
	return nil, cd.c.RequestSnapshot(ctx, terminalName(args.Terminal), rows)
}

func (cd *clientDriver) resize(ctx context.Context, raw json.RawMessage) (any, error) {
	args, err := driverkit.Args[struct {
		Terminal string `json:"terminal"`
		Cols     int    `json:"cols"`
		Rows     int    `json:"rows"`
	}](raw)
	if err != nil {
		return nil, err
	}
	if args.Cols <= 0 || args.Rows <= 0 {
		return nil, driverkit.BadArgs("resize needs positive cols and rows")
	}
	return nil, cd.c.Resize(ctx, terminalName(args.Terminal), args.Cols, args.Rows)
}

func (cd *clientDriver) unsubscribe(ctx context.Context, raw json.RawMessage) (any, error) {
	args, err := driverkit.Args[terminalArgs](raw)
	if err != nil {
		return nil, err
	}
	return nil, cd.c.Unsubscribe(ctx, terminalName(args.Terminal))
}

func (cd *clientDriver) resubscribe(ctx context.Context, raw json.RawMessage) (any, error) {
	args, err := driverkit.Args[terminalArgs](raw)
	if err != nil {
		return nil, err
	}
	return nil, cd.c.Resubscribe(ctx, terminalName(args.Terminal))
}
