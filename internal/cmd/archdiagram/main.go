// Command archdiagram draws docs/architecture.svg, the picture of docs/architecture.md: the
// module's package groups in the order a run flows, their packages and layers, and the
// imports between the groups, from internal/testkit/coreguard's layer table and the import
// graph go list reads now. Run it from the module's root (make architecture); a docs spec
// fails when the picture in the repository is no longer the one it draws.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/skewtest/skewtest/internal/testkit/coreguard"
)

func main() {
	root := flag.String("root", ".", "the module's root")
	out := flag.String("o", "docs/architecture.svg", "the picture to write")
	flag.Parse()
	if err := draw(*root, *out); err != nil {
		fmt.Fprintln(os.Stderr, "archdiagram:", err)
		os.Exit(1)
	}
}

func draw(root, out string) error {
	g, err := coreguard.LoadGraph(root)
	if err != nil {
		return err
	}
	if problems := coreguard.Check(g, coreguard.Architecture); len(problems) > 0 {
		fmt.Fprintln(os.Stderr, "archdiagram: the layers do not hold (the picture shows the graph as it is):")
		for _, p := range problems {
			fmt.Fprintln(os.Stderr, "  "+p)
		}
	}
	svg, err := coreguard.Diagram(g, coreguard.Architecture)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, svg, 0o644); err != nil {
		return fmt.Errorf("write the picture: %w", err)
	}
	fmt.Println("wrote", out)
	return nil
}
