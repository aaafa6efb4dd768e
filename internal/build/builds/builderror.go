package builds

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
)

// BuildError is a build whose recipe failed or timed out. The CLI reports it as an
// infrastructure error (exit status 3), with Tail.
type BuildError struct {
	Label   string // the build's label
	LogPath string // the kept build.log
	Tail    string // its last lines (up to TailLines)
	Err     error  // the failing step and its exit status
}

// TailLines is how many lines of the build log BuildError.Tail keeps.
const TailLines = 30

func (e *BuildError) Error() string {
	return fmt.Sprintf("build %s: %v (log: %s)", e.Label, e.Err, e.LogPath)
}

func (e *BuildError) Unwrap() error { return e.Err }

// logTail returns the last n lines of a file, reading at most its last 64 KiB.
func logTail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const window = 64 << 10
	if info, err := f.Stat(); err == nil && info.Size() > window {
		if _, err := f.Seek(-window, io.SeekEnd); err != nil {
			return ""
		}
	}
	data, _ := io.ReadAll(f)
	data = bytes.TrimRight(data, "\n")
	lines := strings.Split(string(data), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
