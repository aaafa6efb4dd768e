package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/skewtest/skewtest/internal/adopt/scaffold"
	"github.com/skewtest/skewtest/internal/build/shell"
)

// cmdInit writes a subject's skeleton into a product repository (scaffold.Write).
func cmdInit(_ context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		repo, kinds string
		o           scaffold.Options
	)
	fs := newFlagSet("init", stderr, "init [--repo DIR] [--product NAME] [--kind K,...] [--path /P] [--transport ws|wss|tcp|tls]")
	fs.StringVar(&repo, "repo", ".", "the product's repository")
	fs.StringVar(&o.Product, "product", "", "the product's name (default: the directory's)")
	fs.StringVar(&kinds, "kind", "app", "its client kinds, comma-separated")
	fs.StringVar(&o.Path, "path", "", "the WebSocket path its clients connect to (default /ws); a tcp or tls channel's connections are filed under it (default /main)")
	fs.StringVar(&o.Transport, "transport", "ws", "how its host serves: ws, wss (WebSocket over TLS), tcp or tls (a byte stream of JSON lines)")
	if _, err := parse(fs, args, exactly(0)); err != nil {
		return err
	}
	for _, k := range strings.Split(kinds, ",") {
		o.Kinds = append(o.Kinds, strings.TrimSpace(k))
	}
	written, err := scaffold.Write(repo, o)
	if err != nil {
		return err
	}
	for _, f := range written {
		fmt.Fprintf(stdout, "init: wrote %s\n", f)
	}
	fmt.Fprintf(stdout, `init: next:
  1. go get github.com/skewtest/skewtest/driverkit   (the driver's one dependency)
  2. write the TODOs of skewtest/driver/main.go: your host's handler, your client's connect
  3. name your real frames in skewtest/contract.json (skewtest contract decode tries it on samples)
  4. %s   (each step, and what is left to fix)
`, shell.Join([]string{"skewtest", "doctor", "--repo", repo}))
	return nil
}
