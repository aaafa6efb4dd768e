// Command minimal is the smallest useful driver built on driverkit: the one in
// docs/driver-authors.md, plus two lines (marked) that write to stdout behind the kit's
// back, to show that stray output cannot reach the protocol. Its "product" is a counter;
// as a host it serves HTTP on the port it reports.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"
	"sync"
	"syscall"

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

func main() {
	in, out := driverkit.Stdio() // from here on, only the kit writes to stdout
	log.SetOutput(os.Stderr)     // library logging goes to the driver's log

	env := driverkit.FromEnv()
	d := driverkit.New(in, out, driverkit.Hello{Role: env.Role, Kind: env.Kind, Product: "counter", Version: "v1.0.0"})
	var c counter
	d.Handle("add", func(ctx context.Context, raw json.RawMessage) (any, error) {
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
		d.Observe("total", map[string]int{"total": total})
		return map[string]int{"total": total}, nil
	})
	d.Decode(func(f driverkit.Frame) driverkit.Decoded {
		var m struct {
			Type string `json:"type"`
		}
		if f.Binary || json.Unmarshal(f.Data, &m) != nil || m.Type == "" {
			return driverkit.Decoded{Refused: true, Reason: "not a JSON frame with a type"}
		}
		return driverkit.Decoded{Type: m.Type, Fields: json.RawMessage(f.Data)}
	})

	var srv *http.Server
	start := func(ctx context.Context) (string, error) {
		fmt.Println("stray output: goes to stderr, not to skewtest")     // (not in the docs)
		_, _ = syscall.Write(1, []byte("so does a raw write to fd 1\n")) // (not in the docs)
		if env.Role != driverkit.Host {
			return "", nil
		}
		ln, url, err := driverkit.Listen(ctx)
		if err != nil {
			return "", err
		}
		srv = &http.Server{Handler: http.NotFoundHandler()}
		go func() { _ = srv.Serve(ln) }()
		return url, nil
	}
	err := d.Run(context.Background(), start)
	if srv != nil {
		_ = srv.Close()
	}
	if err != nil {
		log.Print(err)
		os.Exit(1)
	}
}
