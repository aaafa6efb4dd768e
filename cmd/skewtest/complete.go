package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/declare/subject"
	"github.com/skewtest/skewtest/internal/nightly/fuzz"
	"github.com/skewtest/skewtest/results"
)

// completeCommand is the hidden command the completion scripts call back for the lists a
// subject holds: skewtest __complete [--repo DIR] journeys|kinds|refs|generators prints
// them, one a line. Without --repo, the subject is the repository around the current
// directory. The usage text and the completion do not list it.
const completeCommand = "__complete"

// What a value may ask __complete for.
const (
	askJourneys   = "journeys"   // the journeys skewtest.yaml lists, by name
	askKinds      = "kinds"      // the client kinds of its drivers
	askRefs       = "refs"       // worktree, the stable tags newest first, then every other tag
	askGenerators = "generators" // its fuzz generators, by name
)

func cmdComplete(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet(completeCommand, stderr, completeCommand+" [--repo DIR] journeys|kinds|refs|generators")
	repo := fs.String("repo", "", "the subject (default: the repository around the current directory)")
	pos, err := parse(fs, args, exactly(1))
	if err != nil {
		return err
	}
	names, err := subjectNames(ctx, *repo, pos[0])
	if err != nil {
		return err
	}
	for _, n := range names {
		fmt.Fprintln(stdout, n)
	}
	return nil
}

// subjectNames lists what of the subject in repo ("": the repository around the current
// directory) a completion asks for.
func subjectNames(ctx context.Context, repo, what string) ([]string, error) {
	switch what {
	case askJourneys, askKinds, askRefs, askGenerators:
	default:
		return nil, usagef("%s: %q: want %s, %s, %s or %s", completeCommand, what, askJourneys, askKinds, askRefs, askGenerators)
	}
	dir, err := completionRepo(repo)
	if err != nil {
		return nil, err
	}
	if what == askRefs {
		stable, other, err := pins.StableTags(ctx, dir)
		if err != nil {
			return nil, err
		}
		names := []string{results.WorktreeLabel}
		for i := len(stable) - 1; i >= 0; i-- {
			names = append(names, stable[i].Name)
		}
		for _, t := range other {
			names = append(names, t.Ref)
		}
		return names, nil
	}
	s, err := subject.Open(dir)
	if err != nil {
		return nil, err
	}
	cfg, err := s.Config()
	if err != nil {
		return nil, err
	}
	switch what {
	case askKinds:
		return cfg.ClientKinds(), nil
	case askJourneys:
		set, err := journeys.LoadSet(s.Dir, cfg.Journeys)
		return set.Names(), err
	}
	gens, err := fuzz.LoadSet(s.Dir, cfg.Fuzz)
	var names []string
	for _, g := range gens {
		names = append(names, g.Name)
	}
	return names, err
}

// completionRepo is the directory a completion reads the subject from: repo as typed on
// the command line (a leading ~/ is the home directory: the shell has not expanded it), or
// the root of the repository around the current directory.
func completionRepo(repo string) (string, error) {
	if repo == "" {
		return pins.Root(".")
	}
	if rest, ok := strings.CutPrefix(repo, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(home, rest), nil
	}
	return repo, nil
}
