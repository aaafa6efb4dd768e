//go:build unix

package proc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
)

// mode is how commands are guarded; a guardian gets it in envGuardian.
type mode string

const (
	modeDirect    mode = "off"       // no guardian: the command in its own process group
	modePIDNS     mode = "pidns"     // Linux, as root: the guardian is init of a new PID namespace
	modeUserNS    mode = "userns"    // Linux, not root: the same, inside a new user namespace
	modeSubreaper mode = "subreaper" // Linux without namespaces: the guardian is a child subreaper
	modeGroup     mode = "group"     // macOS and other unix: the guardian kills the command's group
	probePrefix        = "probe:"    // a guardian that sets up its mode and exits
)

func (m mode) probe() bool { return strings.HasPrefix(string(m), probePrefix) }

// base is the mode a probe tries.
func (m mode) base() mode { return mode(strings.TrimPrefix(string(m), probePrefix)) }

// chosen is the mode this process guards its commands with, decided once.
var chosen = sync.OnceValue(func() mode {
	m, notice := chooseMode(os.Getenv(EnvGuard))
	if notice != "" {
		fmt.Fprintln(os.Stderr, "skewtest: "+notice)
	}
	return m
})

var unhookedOnce sync.Once

func currentMode() mode {
	if !hooked.Load() {
		unhookedOnce.Do(func() {
			fmt.Fprintln(os.Stderr, "skewtest: proc.Main was not called in this program: commands run without a guardian, and a SIGKILL of this process may leave their children running")
		})
		return modeDirect
	}
	return chosen()
}

// probe starts a guardian that only sets up mode m and exits, and reports whether it
// could.
func probe(m mode) error {
	self, err := executable()
	if err != nil {
		return err
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer statusR.Close()
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		statusW.Close()
		return err
	}
	defer lifeW.Close()
	var stderr bytes.Buffer
	cmd := &exec.Cmd{
		Path:        self,
		Args:        []string{guardianArg0},
		Env:         append(withoutGuardian(os.Environ()), envGuardian+"="+probePrefix+string(m)),
		ExtraFiles:  []*os.File{statusW, lifeR},
		SysProcAttr: guardianAttr(m),
		Stderr:      &stderr,
	}
	// Started from a thread that lives until the probe is reaped: see Cmd.Start.
	started := make(chan error, 1)
	release, done := make(chan struct{}), make(chan struct{})
	defer func() { close(release); <-done }()
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := cmd.Start()
		started <- err
		if err == nil {
			<-release
		}
	}()
	err = <-started
	statusW.Close()
	lifeR.Close()
	if err != nil {
		return err
	}
	out, _ := io.ReadAll(statusR)
	werr := cmd.Wait()
	if i := bytes.Index(out, []byte("error ")); i >= 0 {
		_, text, _ := strings.Cut(strings.TrimPrefix(string(out[i:]), "error "), " ")
		return errors.New(strings.TrimSpace(text))
	}
	if werr != nil {
		return fmt.Errorf("%w %s", werr, bytes.TrimSpace(stderr.Bytes()))
	}
	return nil
}

// killGroup kills the process group pgid.
func killGroup(pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// Mode says how this process guards the commands it starts: "pidns" or "userns" (Linux: a
// PID namespace, inside a user namespace when not root), "subreaper" (Linux, where
// namespaces are refused), "group" (macOS), or "off" (no guardian: Main was not called,
// or SKEWTEST_GUARD=off). The first call decides, probing the kernel once.
func Mode() string { return string(currentMode()) }
