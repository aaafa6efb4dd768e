// Package shelltest pastes a printed command line into a real shell, for specs that check
// what the line runs: the command it names is a stand-in on PATH that writes down the words
// it was given, and nothing else the line holds may run.
package shelltest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Pasted is what a line did when it was run.
type Pasted struct {
	// Runs are the stand-in's runs, each its argv (its name first), in the order they ran.
	Runs [][]string
	// Stray are the files that appeared in the line's working directory: a payload such as
	// $(touch MARKER) that ran.
	Stray []string
}

// standIn records its arguments NUL-terminated, one file per run.
const standIn = `#!/bin/sh
n=$(ls "$SHELLTEST_RUNS" | wc -l)
for a in "$@"; do printf '%s\0' "$a"; done > "$SHELLTEST_RUNS/$((n + 1))"
`

// Paste runs line with sh -c in a new working directory under dir, with a stand-in for the
// command name first on PATH (the rest of PATH stays, so a payload that should not run
// could: touch, id). It is an error when sh fails.
func Paste(dir, name, line string) (Pasted, error) {
	bin, runs, work := filepath.Join(dir, "bin"), filepath.Join(dir, "runs"), filepath.Join(dir, "work")
	for _, d := range []string{bin, runs, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return Pasted{}, err
		}
	}
	if err := os.WriteFile(filepath.Join(bin, name), []byte(standIn), 0o755); err != nil {
		return Pasted{}, err
	}
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "SHELLTEST_RUNS="+runs)
	if out, err := cmd.CombinedOutput(); err != nil {
		return Pasted{}, fmt.Errorf("sh -c %q: %w: %s", line, err, out)
	}
	var p Pasted
	for i := 1; ; i++ {
		data, err := os.ReadFile(filepath.Join(runs, fmt.Sprint(i)))
		if os.IsNotExist(err) {
			break
		}
		if err != nil {
			return Pasted{}, err
		}
		argv := []string{name}
		if len(data) > 0 {
			argv = append(argv, strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")...)
		}
		p.Runs = append(p.Runs, argv)
	}
	stray, err := os.ReadDir(work)
	if err != nil {
		return Pasted{}, err
	}
	for _, e := range stray {
		p.Stray = append(p.Stray, e.Name())
	}
	return p, nil
}
