// Command skewtest-driver runs wirelib's real code for skewtest, as the host or as a
// client (docs/driver-authors.md). skewtest init wrote the skeleton; the host's handler, the
// client's actions and the decoder below are what the library's user wrote on top of it.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"log"
	"net"
	"os"
	"sync"
	"time"

	"example.com/wirelib"
	"github.com/skewtest/skewtest/driverkit"
)

func main() {
	in, out := driverkit.Stdio() // from here on, only the kit writes to stdout
	log.SetOutput(os.Stderr)     // logs go to the driver's log, never to stdout

	env := driverkit.FromEnv()
	d := driverkit.New(in, out, driverkit.Hello{Role: env.Role, Kind: env.Kind, Product: "wirelib", Version: version()})
	if env.Role == driverkit.Client {
		var mu sync.Mutex
		var client *wirelib.Client
		d.Handle("connect", func(ctx context.Context, raw json.RawMessage) (any, error) {
			c, err := driverkit.Dial(ctx, env.HostURL)
			if err != nil {
				return nil, driverkit.Failed(err)
			}
			cl, err := wirelib.Open(c, env.Kind)
			if errors.Is(err, wirelib.ErrProtocol) {
				// The host speaks another protocol: this client refuses it, as in the field.
				d.Observe("session", map[string]any{"event": "refused-peer", "error": err.Error()})
				return nil, nil
			}
			if err != nil {
				return nil, driverkit.Failed(err)
			}
			mu.Lock()
			client = cl
			mu.Unlock()
			d.Observe("session", map[string]any{"event": "welcomed", "host": cl.Host})
			return nil, nil
		})
		d.Handle("ping", func(ctx context.Context, raw json.RawMessage) (any, error) {
			args, err := driverkit.Args[struct {
				Bytes []byte `json:"bytes"`
			}](raw)
			if err != nil {
				return nil, err
			}
			mu.Lock()
			cl := client
			mu.Unlock()
			if cl == nil {
				return nil, driverkit.Failed(errors.New("ping before connect"))
			}
			echo, err := cl.Ping(args.Bytes)
			if err != nil {
				return nil, driverkit.Failed(err)
			}
			d.Observe("pong", map[string]any{"bytes": echo})
			return nil, nil
		})
	}
	// Decode names a frame with this build's own parser, for replay and the fixture tier.
	d.Decode(func(f driverkit.Frame) driverkit.Decoded {
		fr, err := wirelib.Parse(f.Data)
		if err != nil {
			return driverkit.Decoded{Refused: true, Reason: err.Error()}
		}
		return driverkit.Decoded{Type: frameName(fr.Type), Opcode: int(fr.Type)}
	})

	var ln net.Listener
	start := func(ctx context.Context) (string, error) {
		if env.Role != driverkit.Host {
			return "", nil
		}
		var url string
		var err error
		if ln, url, err = driverkit.ListenOn(ctx, driverkit.TransportTCP); err != nil {
			return "", err
		}
		host := &wirelib.Host{Keepalive: 100 * time.Millisecond, OnHello: func(name string) {
			d.Observe("session", map[string]any{"event": "hello", "client": name})
		}}
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go func() {
					if err := host.Serve(c); errors.Is(err, wirelib.ErrProtocol) {
						d.Observe("session", map[string]any{"event": "refused-peer", "error": err.Error()})
					}
				}()
			}
		}()
		return url, nil
	}
	err := d.Run(context.Background(), start)
	if ln != nil {
		_ = ln.Close()
	}
	if err != nil {
		log.Print(err)
		os.Exit(1)
	}
}

// frameName is the contract's name of a frame type.
func frameName(t byte) string {
	switch t {
	case wirelib.Hello:
		return "Hello"
	case wirelib.Welcome:
		return "Welcome"
	case wirelib.Ping:
		return "Ping"
	case wirelib.Pong:
		return "Pong"
	case wirelib.Keepalive:
		return "Keepalive"
	}
	return "unknown"
}

// version is this build's release: the library's own.
func version() string { return wirelib.Version }
