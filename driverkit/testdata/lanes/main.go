// Command lanes is the driver of docs/driver-authors.md's section on lanes: minimal's
// counter, built once for the driver's own instance and once more for every lane by the
// same code. As a host, each instance serves HTTP on a port of its own.
package main

import (
	"context"
	"encoding/json"
	"log"
	"net/http"
	"os"
	"sync"

	"github.com/skewtest/skewtest/driverkit"
)

// counter stands in for the product's real code.
type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) add(n int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n += n
	return c.n
}

// build builds one instance of the role on in (the driver, or a lane): a counter of its
// own and its actions. hostURL is where a client instance reaches its host.
func build(in driverkit.Instance, hostURL string) {
	var c counter
	in.Handle("add", func(ctx context.Context, raw json.RawMessage) (any, error) {
		args, err := driverkit.Args[struct {
			N *int `json:"n"`
		}](raw)
		if err != nil {
			return nil, err
		}
		if args.N == nil {
			return nil, driverkit.BadArgs("add needs n")
		}
		total := c.add(*args.N)
		in.Observe("total", map[string]int{"total": total})
		return map[string]int{"total": total}, nil
	})
	in.Handle("host-url", func(context.Context, json.RawMessage) (any, error) {
		return map[string]string{"url": hostURL}, nil
	})
}

// listen starts a host instance's server on 127.0.0.1, port 0; stop closes it.
func listen(ctx context.Context) (url string, stop func(), err error) {
	ln, url, err := driverkit.Listen(ctx)
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: http.NotFoundHandler()}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	return url, func() { _ = srv.Close(); <-done }, nil
}

func main() {
	in, out := driverkit.Stdio() // from here on, only the kit writes to stdout
	log.SetOutput(os.Stderr)     // library logging goes to the driver's log

	env := driverkit.FromEnv()
	d := driverkit.New(in, out, driverkit.Hello{Role: env.Role, Kind: env.Kind, Product: "counter", Version: "v1.0.0"})
	build(d, env.HostURL) // the driver's own instance
	d.Lanes(func(ctx context.Context, l *driverkit.Lane) (string, error) {
		build(l, l.HostURL()) // a fresh instance for the lane
		if env.Role != driverkit.Host {
			return "", nil
		}
		url, stop, err := listen(ctx)
		if err != nil {
			return "", err
		}
		l.OnClose(stop) // at close-lane, or when the driver stops
		return url, nil
	})

	var stop func()
	start := func(ctx context.Context) (url string, err error) {
		if env.Role != driverkit.Host {
			return "", nil
		}
		url, stop, err = listen(ctx)
		return url, err
	}
	err := d.Run(context.Background(), start)
	if stop != nil {
		stop()
	}
	if err != nil {
		log.Print(err)
		os.Exit(1)
	}
}
