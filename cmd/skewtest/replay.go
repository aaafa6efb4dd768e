package main

import (
	"context"
	"io"

	"github.com/skewtest/skewtest/internal/after/replay"
	"github.com/skewtest/skewtest/internal/run/harness"
)

// parseReplay parses replay's flags and its saved report's directory (Saved); the caller
// sets Stdout and Stderr.
func parseReplay(args []string, stderr io.Writer) (replay.Config, error) {
	var (
		c        common
		pf       pinFlags
		parallel int
	)
	fs := newFlagSet("replay", stderr, "replay [--repo DIR] [PIN RULES] [--report-dir D] REPORT_DIR")
	fs.StringVar(&c.Repo, "repo", "", "the subject's repository (default: the one the report's results.json names)")
	fs.StringVar(&c.CacheDir, "cache-dir", "", "build cache (default: the user cache directory's skewtest)")
	fs.StringVar(&c.ReportDir, "report-dir", "", "where the replay's reports go (default: REPORT_DIR/replay)")
	fs.StringVar(&c.Runner, "runner", runnerLocal, "where recipes run: local or container")
	pf.registerPins(fs)
	parallel = harness.DefaultParallel()
	fs.Var(countFlag{&parallel, 1, "how many decoder cells are asked at once"}, "j", "ask `N` decoder cells at once (default: two per core)")
	pos, err := parse(fs, args, exactly(1))
	if err != nil {
		return replay.Config{}, err
	}
	if c.Runner != runnerLocal && c.Runner != runnerContainer {
		return replay.Config{}, usagef("--runner %q: want local or container", c.Runner)
	}
	return replay.Config{Saved: pos[0], Repo: c.Repo, ReportDir: c.ReportDir, CacheDir: c.CacheDir,
		Pins: pf.options(), Parallel: parallel, Runner: runnerOf(c.Runner)}, nil
}

// cmdReplay replays a saved report's transcripts into the decoders of the working tree and
// the pins (replay.Run).
func cmdReplay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseReplay(args, stderr)
	if err != nil {
		return err
	}
	c.Stdout, c.Stderr = stdout, stderr
	run, err := replay.Run(ctx, c)
	if err != nil {
		return err
	}
	return &exitError{run.ExitCode()}
}
