package reports

import (
	"path/filepath"

	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// Saved is a report directory a run left, read again: by recheck, replay and record.
type Saved struct {
	Dir string
	Run *results.Run
}

// OpenSaved reads the results.json of the report directory dir. A directory without a
// readable one is the user's mistake (a usage error naming dir).
func OpenSaved(dir string) (*Saved, error) {
	run, err := results.Load(filepath.Join(dir, ResultsFile))
	if err != nil {
		return nil, usage.Errorf("%s: %w", dir, err)
	}
	return &Saved{Dir: dir, Run: run}, nil
}

// Transcript loads the transcript at path, as the saved results.json names it (relative
// to the report directory). One that cannot be read is the user's mistake too.
func (s *Saved) Transcript(path string) (*transcript.Transcript, error) {
	t, err := transcript.Load(filepath.Join(s.Dir, path))
	if err != nil {
		return nil, usage.Errorf("%s: %w", s.Dir, err)
	}
	return t, nil
}
