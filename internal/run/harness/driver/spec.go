package driver

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Default timeouts, used when the corresponding Spec field is zero.
const (
	DefaultStopGrace     = 3 * time.Second
	DefaultReadyTimeout  = 30 * time.Second
	DefaultActionTimeout = 30 * time.Second
)

// Spec says how to start one driver process.
type Spec struct {
	// Argv is the command. A relative argv[0] that contains a slash
	// ("./driver", "bin/driver") is resolved against Dir; a bare name is
	// looked up in PATH.
	Argv []string
	// Dir is the working directory: the build's output directory.
	Dir string
	// Env is extra environment (SKEWTEST_*), appended to os.Environ().
	Env []string
	// LogPath receives the driver's stderr; it is created or truncated.
	// Empty discards stderr.
	LogPath string
	// Name names the driver in errors, e.g. "host v1.4.173".
	Name string
	// StopGrace is how long Stop waits after "stop" and closing stdin for
	// the driver process to exit (not for its guardian's teardown) before
	// SIGTERM to the process group, and again before SIGKILL. It is
	// also the cmd.WaitDelay after the Start context is done.
	// Default DefaultStopGrace.
	StopGrace time.Duration
	// ReadyTimeout bounds WaitReady when its context has no deadline.
	// Default DefaultReadyTimeout.
	ReadyTimeout time.Duration
	// ActionTimeout bounds Do, and the write of Send, when the context has
	// no deadline. Default DefaultActionTimeout.
	ActionTimeout time.Duration
}

// Validate checks the spec and fills defaults.
func (s *Spec) Validate() error {
	if len(s.Argv) == 0 || s.Argv[0] == "" {
		return errors.New("driver spec: empty argv")
	}
	if s.Name == "" {
		s.Name = s.Argv[0]
	}
	if s.StopGrace < 0 || s.ReadyTimeout < 0 || s.ActionTimeout < 0 {
		return fmt.Errorf("driver spec %s: negative timeout", s.Name)
	}
	if s.StopGrace == 0 {
		s.StopGrace = DefaultStopGrace
	}
	if s.ReadyTimeout == 0 {
		s.ReadyTimeout = DefaultReadyTimeout
	}
	if s.ActionTimeout == 0 {
		s.ActionTimeout = DefaultActionTimeout
	}
	return nil
}

// program returns argv[0] resolved against Dir when it is a relative path.
func (s *Spec) program() string {
	p := s.Argv[0]
	if s.Dir != "" && !filepath.IsAbs(p) && strings.ContainsRune(p, '/') {
		return filepath.Join(s.Dir, p)
	}
	return p
}
