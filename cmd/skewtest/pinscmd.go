package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/declare/subject"
)

// pinFlags are the pin-rule flags of run, build and pins. Given, they replace the
// working tree's pins section (refs, last, window); --ignore adds patterns to it.
type pinFlags struct {
	Pins   []string
	Last   int
	Window bool
	Ignore []string
}

func (p *pinFlags) registerPins(fs *flag.FlagSet) {
	fs.Var(listFlag{&p.Pins}, "pins", "refs to pin, comma-separated: tags, branches or commits (default: skewtest.yaml's pins section, else the newest stable vX.Y.Z tag)")
	fs.Var(countFlag{&p.Last, 1, "how many of the newest stable tags to pin"}, "last", "pin the last `N` stable tags")
	fs.BoolVar(&p.Window, "window", false, "pin every stable tag inside the working tree's protocol window")
	fs.Var(listFlag{&p.Ignore}, "ignore", "glob of tags the stable rules never pin, e.g. 'v1.4.19?-*' (repeatable, comma-separated)")
}

func (p *pinFlags) options() pins.Options {
	return pins.Options{Refs: pins.Refs("explicit (--pins)", p.Pins...), Last: p.Last, Window: p.Window, Ignore: p.Ignore}
}

// selectPins opens the subject in repo and resolves the pins in force
// (subject.Subject.SelectPins).
func selectPins(ctx context.Context, repo string, flags pins.Options, warn io.Writer) (pins.Selection, error) {
	s, err := subject.Open(repo)
	if err != nil {
		return pins.Selection{}, err
	}
	return s.SelectPins(ctx, flags, warn)
}

func parsePins(args []string, stderr io.Writer) (repo string, lock bool, flags pinFlags, err error) {
	if len(args) > 0 && args[0] == "lock" {
		lock, args = true, args[1:]
	} else if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		if err = didYouMean("pins", args[0], subcommands("pins")); err != nil {
			return
		}
	}
	name := "pins"
	if lock {
		name = "pins lock"
	}
	fs := newFlagSet(name, stderr, name+" --repo DIR [--pins REF,...] [--last N] [--window] [--ignore GLOB]")
	fs.StringVar(&repo, "repo", "", "the subject's git repository (required)")
	flags.registerPins(fs)
	if _, err = parse(fs, args, exactly(0)); err != nil {
		return
	}
	if repo == "" {
		err = usagef("--repo is required")
	}
	return
}

// cmdPins prints the resolved pins and why every other tag was skipped; `pins lock`
// writes the lock file.
func cmdPins(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	repo, lock, flags, err := parsePins(args, stderr)
	if err != nil {
		return err
	}
	if lock {
		return lockPins(ctx, repo, flags.options(), stdout)
	}
	sel, err := selectPins(ctx, repo, flags.options(), stderr)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PIN\tCOMMIT\tREASON")
	for _, p := range sel.Pins {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", p.Ref, p.Commit, p.Reason)
	}
	if len(sel.Pins) == 0 {
		fmt.Fprintln(tw, "(none)\t\tno tag matches the rules: only the working tree is tested")
	}
	if len(sel.Skipped) > 0 {
		fmt.Fprintln(tw, "\nSKIPPED\tWHY")
		for _, s := range sel.Skipped {
			fmt.Fprintf(tw, "%s\t%s\n", s.Ref, s.Why)
		}
	}
	return tw.Flush()
}

// lockPins records the pins in force, and every stable tag, in the lock file.
func lockPins(ctx context.Context, repo string, flags pins.Options, stdout io.Writer) error {
	s, err := subject.Open(repo)
	if err != nil {
		return err
	}
	opts, err := s.PinRules(flags)
	if err != nil {
		return err
	}
	sel, err := pins.Resolve(ctx, repo, opts) // no lock check: this is how a move is accepted
	if err != nil {
		return err
	}
	l, changes, err := pins.WriteLock(ctx, repo, sel)
	var le *pins.LockError
	if errors.As(err, &le) {
		// A lock that cannot be read is not rewritten: it may be the only record of where
		// the tags pointed. Say how to get a readable one back.
		return fmt.Errorf("%w\n  pins lock rewrites only a lock it can read: fix line %d, or restore the file (git checkout -- %s), or delete it and run skewtest pins lock again to record every tag where it points now", err, le.Line, pins.LockFile)
	}
	if err != nil {
		return err
	}
	for _, c := range changes {
		fmt.Fprintln(stdout, c)
	}
	fmt.Fprintf(stdout, "wrote %s: %d tags, %d changed\n", l.Path, len(l.Tags), len(changes))
	return nil
}
