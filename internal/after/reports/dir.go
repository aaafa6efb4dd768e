package reports

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofrs/flock"
)

// A report directory belongs to one run at a time, and a run starts from an empty
// pairings/ (docs/reference.md, "One run per report directory").
const (
	// LockFile, in the report directory, is locked (flock) by the run that owns the
	// directory and names that run (Claim's owner). It stays when the run ends: it marks
	// the directory as skewtest's, which the working tree's build leaves out
	// (builds.ReportDirMarker, the same name).
	LockFile = ".skewtest-run.lock"
	// PreviousDir keeps the previous run's report when a run starts in a used directory.
	PreviousDir = "previous"
	// PairingsDir holds the pairings' transcripts and driver logs.
	PairingsDir = "pairings"
	// DriversDir holds the logs of driver processes shared by many pairings (lanes).
	DriversDir = "drivers"
)

// outputs are what a run writes into its report directory; only these move to previous/,
// so anything else kept there stays where it is.
var outputs = []string{PairingsDir, DriversDir, ResultsFile, JUnitFile, SummaryFile, HTMLFile}

// ErrDirInUse means another run owns the report directory.
var ErrDirInUse = errors.New("in use by another skewtest run")

// DirError is a report directory that cannot be used: a file, one that cannot be created
// or written, or one another run owns (Err is then ErrDirInUse). The user can fix it.
type DirError struct {
	Dir string
	Msg string
	Err error
}

func (e *DirError) Error() string { return e.Dir + " " + e.Msg }
func (e *DirError) Unwrap() error { return e.Err }

// Claim makes dir one run's: it creates it, locks it (refusing, naming the owner written
// by the run that holds it, when another run holds it), writes owner into the lock file
// (the run's pid, start time and command line), and moves the previous run's reports into
// previous/, replacing an older previous/. Problems the user can fix are *DirError. The
// returned release unlocks the directory; call it once the reports are written. The lock
// dies with the process, so a killed run never leaves the directory locked.
func Claim(dir, owner string) (release func(), err error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, &DirError{Dir: dir, Msg: "is a file, not a directory: give a new or existing directory"}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, &DirError{Dir: dir, Msg: fmt.Sprintf("cannot be created: %v", errors.Unwrap(err)), Err: err}
	}
	path := filepath.Join(dir, LockFile)
	lock := flock.New(path)
	locked, err := lock.TryLock()
	if err != nil {
		return nil, &DirError{Dir: dir, Msg: fmt.Sprintf("is not writable: %v", err), Err: err}
	}
	if !locked {
		data, _ := os.ReadFile(path)
		who := strings.TrimSpace(string(data))
		if who == "" {
			who = "a process that has not said which yet"
		}
		return nil, &DirError{Dir: dir, Err: ErrDirInUse,
			Msg: fmt.Sprintf("is %v (%s); wait for it to end or give another directory", ErrDirInUse, who)}
	}
	release = func() { _ = lock.Unlock() }
	if err := os.WriteFile(path, []byte(owner+"\n"), 0o644); err != nil {
		release()
		return nil, &DirError{Dir: dir, Msg: fmt.Sprintf("is not writable: %v", err), Err: err}
	}
	if err := movePrevious(dir); err != nil {
		release()
		return nil, fmt.Errorf("report directory %s: move the previous report aside: %w", dir, err)
	}
	return release, nil
}

// movePrevious moves the previous run's outputs in dir to dir/previous, replacing an older
// previous/; it does nothing when dir holds none.
func movePrevious(dir string) error {
	var found []string
	for _, name := range outputs {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			found = append(found, name)
		}
	}
	if len(found) == 0 {
		return nil
	}
	prev := filepath.Join(dir, PreviousDir)
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
