package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/skewtest/skewtest/driverkit"

	"github.com/skewtest/skewtest/examples/remoteterm/host"
)

// hostDriver runs the host role: remoteterm's host on 127.0.0.1, port 0.
type hostDriver struct {
	d    *driver
	h    *host.Host
	srv  *http.Server
	done sync.WaitGroup
}

func newHostDriver(d *driver) *hostDriver {
	hd := &hostDriver{d: d}
	d.kit.Handle("emit-output", hd.emitOutput)
	d.kit.Handle("emit-transformed", hd.emitTransformed)
	d.kit.Handle("set-writable", hd.setWritable)
	d.kit.Handle("set-cwd", hd.setCwd)
	return hd
}

// start starts the host on 127.0.0.1, port 0, and returns the URL it got. The host is
// kept (for close) only once it serves.
func (hd *hostDriver) start(ctx context.Context) (string, error) {
	h := host.New(host.Options{Features: hd.d.features, Sink: hd.d.out, Logf: hd.d.logf, Opcodes: &hd.d.decoder})
	h.Register(hd.d.mux)
	ln, url, err := driverkit.Listen(ctx)
	if err != nil {
		h.Close()
		return "", err
	}
	hd.h = h
	hd.srv = &http.Server{Handler: hd.d.mux, ReadHeaderTimeout: 10 * time.Second}
	hd.done.Add(1)
	go func() {
		defer hd.done.Done()
		if err := hd.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			hd.d.logf("serve: %v", err)
		}
	}()
	return url, nil
}

// close ends the host's connections, then the server, and waits for both.
func (hd *hostDriver) close() {
	if hd.h == nil {
		return
	}
	hd.h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hd.srv.Shutdown(ctx); err != nil {
		hd.d.logf("shutdown: %v", err)
		_ = hd.srv.Close()
	}
	hd.done.Wait()
}

func (hd *hostDriver) terminal(name string) (*host.Terminal, error) {
	if name == "" {
		name = host.DefaultTerminal().Name
	}
	t, ok := hd.h.Terminal(name)
	if !ok {
		return nil, driverkit.BadArgs("no terminal %q", name)
	}
	return t, nil
}

func (hd *hostDriver) emitOutput(_ context.Context, raw json.RawMessage) (any, error) {
	args, err := driverkit.Args[struct {
		Terminal string `json:"terminal"`
		Bytes    []byte `json:"bytes"`
	}](raw)
	if err != nil {
		return nil, err
	}
	t, err := hd.terminal(args.Terminal)
	if err != nil {
		return nil, err
	}
	e := t.Emit(args.Bytes)
	return map[string]uint64{"seq": e.RawEnd}, nil
}

func (hd *hostDriver) emitTransformed(_ context.Context, raw json.RawMessage) (any, error) {
	args, err := driverkit.Args[struct {
		Terminal  string  `json:"terminal"`
		Bytes     []byte  `json:"bytes"`
		RawLength *uint64 `json:"rawLength"`
	}](raw)
	if err != nil {
		return nil, err
	}
	if args.RawLength == nil {
		return nil, driverkit.BadArgs("emit-transformed needs rawLength")
	}
	t, err := hd.terminal(args.Terminal)
	if err != nil {
		return nil, err
	}
	// A release before OutputSpan (v1.4.147) has no transformed runs: its runtime writes
	// the displayed bytes as ordinary output, so that is what this driver makes it do.
	if !hd.d.features.OutputSpan {
		e := t.Emit(args.Bytes)
		return map[string]uint64{"seq": e.RawEnd}, nil
	}
	e := t.EmitTransformed(args.Bytes, *args.RawLength)
	return map[string]uint64{"seq": e.RawEnd}, nil
}

// setCwd makes the terminal's process change directory: the host sends Metadata {cwd} on
// every stream of it (an action beyond driver protocol version 1's list).
func (hd *hostDriver) setCwd(_ context.Context, raw json.RawMessage) (any, error) {
	args, err := driverkit.Args[struct {
		Terminal string `json:"terminal"`
		Cwd      string `json:"cwd"`
	}](raw)
	if err != nil {
		return nil, err
	}
	if args.Cwd == "" {
		return nil, driverkit.BadArgs("set-cwd needs cwd")
	}
	t, err := hd.terminal(args.Terminal)
	if err != nil {
		return nil, err
	}
	t.SetCwd(args.Cwd)
	return nil, nil
}

// setWritable makes the terminal accept or refuse input (an action beyond driver protocol
// version 1's list, for the WriteUnavailable journey).
func (hd *hostDriver) setWritable(_ context.Context, raw json.RawMessage) (any, error) {
	args, err := driverkit.Args[struct {
		Terminal string `json:"terminal"`
		Writable *bool  `json:"writable"`
	}](raw)
	if err != nil {
		return nil, err
	}
	if args.Writable == nil {
		return nil, driverkit.BadArgs("set-writable needs writable")
	}
	t, err := hd.terminal(args.Terminal)
	if err != nil {
		return nil, err
	}
	t.SetWritable(*args.Writable)
	return nil, nil
}
