package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/skewtest/skewtest/reports"
)

// Report directory ownership (docs/reports.md, "The report directory"): one run at a time
// writes a report directory, and a run starts from an empty pairings/.
const (
	// reportLockFile, in the report directory, is locked (flock) by the run that owns it
	// and says which run that is: its pid, start time and command line.
	reportLockFile = ".skewtest-run.lock"
	// previousDir keeps the previous run's report when a run starts in a used directory.
	previousDir = "previous"
	// pairingsDir is where the pairings' transcripts and logs go (harness.Execute).
	pairingsDir = "pairings"
)

// reportOutputs are what a run writes into its report directory; only these move to
// previous/, so anything else a user keeps there stays where it is.
var reportOutputs = []string{pairingsDir, reports.ResultsFile, reports.JUnitFile, reports.SummaryFile, reports.HTMLFile}

// claimReportDir makes dir this run's: it creates it (refusing, as a usage error, a path
// that is a file or cannot be created or written), locks it (refusing, naming the other run,
// when another run holds it) and moves the previous run's report into previous/, replacing
// an older previous/. The returned release unlocks it; call it once the reports are
// written.
func claimReportDir(dir string, command []string) (release func(), err error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, usagef("--report-dir %s is a file, not a directory: give a new or existing directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, usagef("--report-dir %s cannot be created: %v", dir, errors.Unwrap(err))
	}
	path := filepath.Join(dir, reportLockFile)
	lock := flock.New(path)
	locked, err := lock.TryLock()
	if err != nil {
		return nil, usagef("--report-dir %s is not writable: %v", dir, err)
	}
	if !locked {
		owner, _ := os.ReadFile(path)
		who := strings.TrimSpace(string(owner))
		if who == "" {
			who = "another process"
		}
		return nil, usagef("--report-dir %s is in use by another skewtest run (%s); wait for it to end or give another --report-dir", dir, who)
	}
	release = func() { _ = lock.Unlock() }
	who := fmt.Sprintf("pid %d, started %s: skewtest %s\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339), strings.Join(command, " "))
	if err := os.WriteFile(path, []byte(who), 0o644); err != nil {
		release()
		return nil, usagef("--report-dir %s is not writable: %v", dir, err)
	}
	if err := movePrevious(dir); err != nil {
		release()
		return nil, fmt.Errorf("--report-dir %s: move the previous report aside: %w", dir, err)
	}
	return release, nil
}

// movePrevious moves the previous run's outputs in dir to dir/previous, replacing an older
// previous/; it does nothing when dir holds none.
func movePrevious(dir string) error {
	var found []string
	for _, name := range reportOutputs {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			found = append(found, name)
		}
	}
	if len(found) == 0 {
		return nil
	}
	prev := filepath.Join(dir, previousDir)
	if err := os.RemoveAll(prev); err != nil {
		return err
	}
	if err := os.Mkdir(prev, 0o755); err != nil {
		return err
	}
	for _, name := range found {
		if err := os.Rename(filepath.Join(dir, name), filepath.Join(prev, name)); err != nil {
			return err
		}
	}
	return nil
}
