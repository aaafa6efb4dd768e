package driver

import (
	"errors"
	"io"
	"os"
	"strings"
)

var (
	// ErrExited is matched (errors.Is) by every *ExitError: the driver
	// process is gone.
	ErrExited = errors.New("driver exited")
	// ErrNotHello is returned by WaitReady when the first line from the
	// driver is not a hello message.
	ErrNotHello = errors.New("first message is not hello")
	// ErrStopIgnored is wrapped by Stop's error when the driver did not exit
	// after "stop" and the close of its stdin, and had to be signalled.
	ErrStopIgnored = errors.New("ignored stop")
)

// ExitError reports that a driver process exited. Err is what
// exec.Cmd.Wait returned: nil for exit status 0, else usually an
// *exec.ExitError naming the status or signal.
type ExitError struct {
	Name    string
	Err     error
	LogTail string // the last lines of the driver's stderr log, if any
}

func (e *ExitError) Error() string {
	var b strings.Builder
	b.WriteString(e.Name)
	b.WriteString(" exited: ")
	b.WriteString(e.status())
	if e.LogTail != "" {
		b.WriteString("; log tail:\n")
		b.WriteString(e.LogTail)
	}
	return b.String()
}

func (e *ExitError) status() string {
	if e.Err == nil {
		return "exit status 0"
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

func (e *ExitError) Is(target error) bool { return target == ErrExited }

const (
	tailBytes = 2048
	tailLines = 10
)

// logTail returns up to the last tailLines lines of the file at path,
// reading at most tailBytes.
func logTail(path string) string {
	if path == "" {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(fi.Size()-tailBytes, 0)
	b, err := io.ReadAll(io.NewSectionReader(f, off, fi.Size()-off))
	if err != nil {
		return ""
	}
	s := strings.TrimRight(string(b), "\n")
	lines := strings.Split(s, "\n")
	if off > 0 && len(lines) > 1 {
		lines = lines[1:] // first line is probably cut
	}
	if len(lines) > tailLines {
		lines = lines[len(lines)-tailLines:]
	}
	return strings.Join(lines, "\n")
}
