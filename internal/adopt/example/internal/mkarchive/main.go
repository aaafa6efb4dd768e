// Command mkarchive writes the archive of example sources built into skewtest
// (example/sources.zip): every example subject's directory and the driver kit, from the
// repository. `go generate ./internal/adopt/example` runs it; see example/internal/bundle.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/skewtest/skewtest/internal/adopt/example/internal/bundle"
)

func main() {
	root := flag.String("root", "../../..", "the skewtest repository")
	out := flag.String("o", "sources.zip", "the archive to write")
	flag.Parse()
	if err := run(*root, *out); err != nil {
		fmt.Fprintf(os.Stderr, "mkarchive: %v\n", err)
		os.Exit(1)
	}
}

func run(root, out string) error {
	var buf bytes.Buffer
	if err := bundle.Write(&buf, os.DirFS(root)); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".sources-*.zip")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}
