package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/skewtest/skewtest/internal/build/shell"
)

// newFlagSet makes a command's flag set that reports errors instead of exiting. Given a
// *flagSets for stderr, it hands the flag set to it too: that is how the completion reads a
// command's flags, by asking it for its help (flagsOf).
func newFlagSet(name string, stderr io.Writer, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: skewtest %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	if sets, ok := stderr.(*flagSets); ok {
		sets.made = append(sets.made, fs)
	}
	return fs
}

// flagSets is a writer that discards what is written to it and keeps the flag sets made
// with it as their stderr (newFlagSet), and the positional arguments the last one parsed
// takes (parse).
type flagSets struct {
	made []*flag.FlagSet
	want nargs
}

func (*flagSets) Write(p []byte) (int, error) { return len(p), nil }

// nargs is how many positional arguments a command takes: min to max, no limit when max is
// negative. A command line (driver check's CMD ARGS...) is positional from its first word
// on: what follows it is that program's, flags included.
type nargs struct {
	min, max    int
	commandLine bool
}

// exactly is n positional arguments; anyArgs any number, the command says what it wants.
func exactly(n int) nargs { return nargs{min: n, max: n} }

var (
	anyArgs     = nargs{max: -1}
	commandLine = nargs{max: -1, commandLine: true}
)

// parse is every command's flag parsing. Flags may come before, between and after the
// positional arguments, which it returns in order; "--" ends the flags and what follows it
// is positional, verbatim; a lone "-" (standard input) is positional. A flag's value binds
// to its flag even when it looks like a positional argument (--report-dir D). -h prints the
// command's help (exit 0); a bad flag is one usage error, printed once (by main), with a
// pointer to -h; so is a count of positional arguments outside want.
func parse(fs *flag.FlagSet, args []string, want nargs) ([]string, error) {
	out := fs.Output()
	if sets, ok := out.(*flagSets); ok {
		sets.want = want
	}
	var said bytes.Buffer // the flag package's own complaint: main prints the error once
	fs.SetOutput(&said)
	pos, err := interleave(fs, args, want.commandLine)
	fs.SetOutput(out)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.Usage()
			return nil, &exitError{exitOK}
		}
		return nil, usagef("%s: %v (skewtest %s -h lists its flags)", fs.Name(), err, fs.Name())
	}
	switch n := len(pos); {
	case n >= want.min && (want.max < 0 || n <= want.max):
		return pos, nil
	case want.max == 0:
		hint := ""
		if repo := fs.Lookup("repo"); repo != nil && repo.Value.String() == "" {
			// "run EX --pins v1": the repository is no positional argument.
			hint = fmt.Sprintf(" (the repository is given as --repo %s)", shell.Quote(pos[0]))
		}
		return nil, usagef("%s: unexpected argument %q%s", fs.Name(), pos[0], hint)
	case want.min == want.max:
		return nil, usagef("%s: want %d argument(s), got %d", fs.Name(), want.min, n)
	case want.max < 0:
		return nil, usagef("%s: want at least %d argument(s), got %d", fs.Name(), want.min, n)
	default:
		return nil, usagef("%s: want %d to %d arguments, got %d", fs.Name(), want.min, want.max, n)
	}
}

// interleave runs fs.Parse again after each positional argument, which it collects; after
// "--", or the first positional argument of a command line, the rest are positional.
func interleave(fs *flag.FlagSet, args []string, commandLine bool) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if commandLine || endedAtDash(fs, args[:len(args)-len(rest)]) {
			return append(pos, rest...), nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// endedAtDash says whether the flags one fs.Parse consumed ended with the terminator "--"
// rather than at a positional argument. It walks them as the flag package does, since "--"
// may also be a flag's value (--repo --).
func endedAtDash(fs *flag.FlagSet, consumed []string) bool {
	for i := 0; i < len(consumed); i++ {
		a := consumed[i]
		if a == "--" {
			return true
		}
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
				i++ // its value
			}
		}
	}
	return false
}
