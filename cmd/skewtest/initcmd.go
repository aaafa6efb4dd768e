package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/skewtest/skewtest/internal/adopt/example"
	"github.com/skewtest/skewtest/internal/adopt/scaffold"
	"github.com/skewtest/skewtest/internal/build/shell"
)

// cmdInit writes a subject's skeleton into a product repository (scaffold.Write).
func cmdInit(_ context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		repo, kinds string
		o           scaffold.Options
	)
	var vendorKit bool
	fs := newFlagSet("init", stderr, "init [--repo DIR] [--product NAME] [--kind K,...] [--path /P] [--transport ws|wss|tcp|tls] [--module PATH] [--vendor-kit]")
	fs.StringVar(&repo, "repo", ".", "the product's repository")
	fs.StringVar(&o.Product, "product", "", "the product's name (default: the directory's)")
	fs.StringVar(&kinds, "kind", "app", "its client kinds, comma-separated")
	fs.StringVar(&o.Path, "path", "", "the WebSocket path its clients connect to (default /ws); a tcp or tls channel's connections are filed under it (default /main)")
	fs.StringVar(&o.Transport, "transport", "ws", "how its host serves: ws, wss (WebSocket over TLS), tcp or tls (a byte stream of JSON lines)")
	fs.StringVar(&o.Module, "module", "", "the product's Go module path, which the driver's module replaces with the checkout's root and gives a tag without go.mod (default: the repository's go.mod's)")
	fs.BoolVar(&vendorKit, "vendor-kit", false, "copy skewtest's driver kit beside the driver (skewtest/driver/skewtest-kit), so that it builds without the network")
	if _, err := parse(fs, args, exactly(0)); err != nil {
		return err
	}
	if vendorKit {
		kit, err := example.DriverKit()
		if err != nil {
			return fmt.Errorf("init --vendor-kit: %w", err)
		}
		o.Kit = kit
	}
	for _, k := range strings.Split(kinds, ",") {
		o.Kinds = append(o.Kinds, strings.TrimSpace(k))
	}
	written, err := scaffold.Write(repo, o)
	if err != nil {
		return err
	}
	kit := 0
	for _, f := range written {
		if strings.HasPrefix(f, scaffold.KitDir+"/") {
			kit++
			continue
		}
		fmt.Fprintf(stdout, "init: wrote %s\n", f)
	}
	if kit > 0 {
		fmt.Fprintf(stdout, "init: wrote %s/ (the driver kit, %d files)\n", scaffold.KitDir, kit)
	}
	first := "the driver's go.mod replaces skewtest's module with the kit beside it: nothing to download"
	if kit == 0 {
		first = "give the driver its kit: skewtest init --vendor-kit copies it (start again in a clean tree), or\n     " +
			"(cd skewtest/driver && go mod edit -replace github.com/skewtest/skewtest=/path/to/skewtest)"
	}
	fmt.Fprintf(stdout, `init: next:
  1. %s
  2. write the TODOs of skewtest/driver/main.go: your host's handler, your client's connect
  3. name your real frames in skewtest/contract.json (skewtest contract decode tries it on samples)
  4. %s   (each step, and what is left to fix)
`, first, shell.Join([]string{"skewtest", "doctor", "--repo", repo}))
	return nil
}
