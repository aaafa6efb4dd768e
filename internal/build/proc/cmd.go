//go:build unix

package proc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// DefaultGrace is Cmd.Grace when it is zero.
const DefaultGrace = 10 * time.Second

// Cmd is a command none of whose processes outlives this process (see the package
// documentation). Set its fields, then call Start and Wait, or Run, as with exec.Cmd; call
// Wait exactly once after a successful Start.
type Cmd struct {
	Path   string   // the program; CommandContext looks a bare name up in PATH
	Args   []string // the argv, Args[0] included
	Dir    string   // the working directory; "" is this process's
	Env    []string // nil means this process's environment
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Grace is how long the command has to exit after its context is done and its
	// process group got SIGTERM, before every process of the command is killed. It also
	// bounds how long Wait waits for the command's output once it exited
	// (exec.Cmd.WaitDelay). Zero means DefaultGrace.
	Grace time.Duration

	ctx     context.Context
	lookErr error

	mode     mode
	cmd      *exec.Cmd
	status   *bufio.Reader // from the guardian: "started", then the command's status
	statusF  *os.File
	lifeline *os.File // to the guardian; closing it (or dying) makes it kill everything
	lifeOnce sync.Once

	release     chan struct{} // closed by Wait: the starting goroutine may leave its thread
	starterDone chan struct{}
	exited      chan struct{} // closed by Wait once the process is reaped
	cmdExited   chan struct{} // closed once the command itself has exited (Exited)
	cmdOnce     sync.Once
	statusDone  chan struct{} // closed when readStatus has the command's status or EOF (nil: none)
	st          error         // the command's status, from the guardian, once statusDone
	stOK        bool          // the guardian said it
	watchDone   chan struct{} // closed when the context watcher ends (nil: none)
	interrupted atomic.Bool   // the context watcher signalled the command

	mu     sync.Mutex // guards reaped (direct mode: group signals only before the reap)
	reaped bool
	waited bool
}

// CommandContext returns a Cmd that runs name with args. A bare name is looked up in PATH
// as exec.Command does. When ctx is done the command's process group gets SIGTERM, and
// Grace later every process of the command is killed.
func CommandContext(ctx context.Context, name string, args ...string) *Cmd {
	if ctx == nil {
		panic("proc: nil Context")
	}
	e := exec.Command(name, args...)
	return &Cmd{Path: e.Path, Args: e.Args, ctx: ctx, lookErr: e.Err}
}

// Run starts the command and waits for it.
func (c *Cmd) Run() error {
	if err := c.Start(); err != nil {
		return err
	}
	return c.Wait()
}

func (c *Cmd) grace() time.Duration {
	if c.Grace > 0 {
		return c.Grace
	}
	return DefaultGrace
}

// Start starts the command: under a guardian when this process called Main, else directly
// in its own process group. An error that the program cannot be started is reported as
// exec.Cmd.Start reports it (a *fs.PathError with Op "fork/exec").
func (c *Cmd) Start() error {
	if c.cmd != nil {
		return errors.New("proc: already started")
	}
	if c.lookErr != nil {
		return c.lookErr
	}
	if c.ctx != nil {
		if err := c.ctx.Err(); err != nil {
			return err
		}
	}
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	c.mode = currentMode()
	e := &exec.Cmd{
		Dir:       c.Dir,
		Stdin:     c.Stdin,
		Stdout:    c.Stdout,
		Stderr:    c.Stderr,
		WaitDelay: c.grace(),
	}
	var childEnds []*os.File // closed once the child holds its own copies
	if c.mode == modeDirect {
		e.Path, e.Args, e.Env = c.Path, c.Args, env
		e.SysProcAttr = directAttr()
	} else {
		self, err := executable()
		if err != nil {
			return fmt.Errorf("proc: find this program to start a guardian: %w", err)
		}
		statusR, statusW, err := os.Pipe()
		if err != nil {
			return err
		}
		lifeR, lifeW, err := os.Pipe()
		if err != nil {
			statusR.Close()
			statusW.Close()
			return err
		}
		c.statusF, c.status, c.lifeline = statusR, bufio.NewReader(statusR), lifeW
		childEnds = []*os.File{statusW, lifeR}
		e.Path = self
		e.Args = append([]string{guardianArg0, c.Path}, c.Args...)
		e.Env = guardianEnv(env, c.mode)
		e.ExtraFiles = childEnds
		e.SysProcAttr = guardianAttr(c.mode)
	}
	c.cmd = e

	// The parent-death signal goes with the thread that forks, not the process, and Go
	// ends a thread when a goroutine locked to it exits; so fork from a goroutine locked to
	// its thread that stays parked until the process is reaped.
	c.release = make(chan struct{})
	c.starterDone = make(chan struct{})
	started := make(chan error, 1)
	go func() {
		defer close(c.starterDone)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := e.Start()
		started <- err
		if err == nil {
			<-c.release
		}
	}()
	err := <-started
	for _, f := range childEnds {
		f.Close()
	}
	if err != nil {
		<-c.starterDone
		c.closeGuardianPipes()
		return err
	}
	if c.mode != modeDirect {
		if err := c.awaitStarted(); err != nil {
			_ = c.wait()
			return err
		}
	}
	c.exited = make(chan struct{})
	c.cmdExited = make(chan struct{})
	if c.mode != modeDirect {
		c.statusDone = make(chan struct{})
		go c.readStatus()
	}
	if c.ctx != nil && c.ctx.Done() != nil {
		c.watchDone = make(chan struct{})
		go c.watch()
	}
	return nil
}

// awaitStarted reads the guardian's first line: "started PID" or "error ERRNO TEXT".
func (c *Cmd) awaitStarted() error {
	line, err := c.status.ReadString('\n')
	if err != nil {
		return fmt.Errorf("proc: guardian of %s ended before starting it", c.Path)
	}
	word, rest, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
	switch word {
	case "started":
		return nil
	case "error":
		n, text, _ := strings.Cut(rest, " ")
		if errno, err := strconv.Atoi(n); err == nil && errno != 0 {
			return &fs.PathError{Op: "fork/exec", Path: c.Path, Err: syscall.Errno(errno)}
		}
		return fmt.Errorf("proc: guardian of %s: %s", c.Path, text)
	}
	return fmt.Errorf("proc: guardian of %s said %q", c.Path, line)
}

// watch asks the command to stop when the context is done, and kills it Grace later.
func (c *Cmd) watch() {
	defer close(c.watchDone)
	select {
	case <-c.ctx.Done():
	case <-c.exited:
		return
	}
	c.interrupted.Store(true)
	_ = c.Signal(syscall.SIGTERM)
	t := time.NewTimer(c.grace())
	defer t.Stop()
	select {
	case <-t.C:
		_ = c.Kill()
	case <-c.exited:
	}
}

// Exited is closed once the command itself has exited, which can be well before Wait
// returns: a guardian still kills and reaps whatever the command left, and the kernel tears
// down its namespaces (seconds, on a saturated machine), before Wait returns. Judge how
// promptly a command exited by Exited; count on its processes being gone only after Wait.
// Exited is nil before a successful Start.
func (c *Cmd) Exited() <-chan struct{} { return c.cmdExited }

func (c *Cmd) markExited() { c.cmdOnce.Do(func() { close(c.cmdExited) }) }

// PID is the id of the process this one started: the guardian, or the command itself
// when there is none. Use Signal and Kill rather than signalling it.
func (c *Cmd) PID() int {
	if c.cmd == nil || c.cmd.Process == nil {
		return 0
	}
	return c.cmd.Process.Pid
}

// Signal sends sig to the command's process group: through the guardian, which forwards
// SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2. SIGKILL is Kill. After the command
// was reaped it returns os.ErrProcessDone.
func (c *Cmd) Signal(sig syscall.Signal) error {
	if sig == syscall.SIGKILL {
		return c.Kill()
	}
	if c.cmd == nil || c.cmd.Process == nil {
		return errors.New("proc: not started")
	}
	if c.mode == modeDirect {
		return c.signalGroup(sig)
	}
	if !forwarded(sig) {
		return fmt.Errorf("proc: a guardian does not forward %v", sig)
	}
	// os.Process signals through a pidfd where it can: never a reused pid.
	return c.cmd.Process.Signal(sig)
}

// Kill kills every process of the command now.
func (c *Cmd) Kill() error {
	if c.cmd == nil || c.cmd.Process == nil {
		return errors.New("proc: not started")
	}
	switch c.mode {
	case modeDirect:
		return c.signalGroup(syscall.SIGKILL)
	case modePIDNS, modeUserNS:
		// The guardian is the namespace's init: the kernel kills the rest with it.
		c.closeLifeline()
		return c.cmd.Process.Kill()
	default:
		// The guardian kills everything when its lifeline closes, then exits.
		c.closeLifeline()
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.reaped {
			return os.ErrProcessDone
		}
		return nil
	}
}

// signalGroup signals the process group of a command started directly, which is safe
// until it is reaped: Wait marks it reaped before it reaps it.
func (c *Cmd) signalGroup(sig syscall.Signal) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reaped {
		return os.ErrProcessDone
	}
	err := syscall.Kill(-c.cmd.Process.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

func (c *Cmd) closeLifeline() {
	c.lifeOnce.Do(func() {
		if c.lifeline != nil {
			c.lifeline.Close()
		}
	})
}

func (c *Cmd) closeGuardianPipes() {
	c.closeLifeline()
	if c.statusF != nil {
		c.statusF.Close()
	}
}

// Wait waits for the command to exit and for its output to be copied, and returns its
// error: nil, an *ExitError naming the command's (not the guardian's) exit status or
// signal, the context's error if the command was stopped because the context was done
// and exited 0 anyway, or an error copying its output. When Wait returns, every process
// of the command is gone (see the package documentation for the limits without a PID
// namespace).
func (c *Cmd) Wait() error {
	if c.cmd == nil || c.exited == nil {
		return errors.New("proc: not started")
	}
	if c.waited {
		return errors.New("proc: Wait was already called")
	}
	c.waited = true
	err := c.wait()
	close(c.exited)
	if c.watchDone != nil {
		<-c.watchDone
	}
	if err == nil && c.interrupted.Load() {
		err = c.ctx.Err()
	}
	return err
}

// wait reaps the process and turns its status into the command's.
func (c *Cmd) wait() error {
	pid := c.cmd.Process.Pid
	peeked := false
	if c.mode == modeDirect {
		// Wait for the exit without reaping: while the leader is a zombie its pid, and so
		// its group's id, cannot be reused, and what is left of the group can be killed.
		if peeked = awaitExit(pid); peeked {
			c.markExited()
			c.mu.Lock()
			killGroup(pid)
			c.reaped = true
			c.mu.Unlock()
		}
	}
	err := c.cmd.Wait()
	c.mu.Lock()
	if c.mode == modeDirect && !peeked {
		killGroup(pid) // where the platform cannot wait without reaping: as soon as possible
	}
	c.reaped = true
	c.mu.Unlock()
	close(c.release)
	<-c.starterDone
	if c.cmdExited != nil { // nil when the guardian did not start the command
		defer c.markExited()
	}
	if c.mode != modeDirect {
		c.closeLifeline()
		if c.statusDone != nil {
			<-c.statusDone // the guardian is gone: its status pipe is at EOF
		}
		st, ok := c.st, c.stOK
		c.statusF.Close()
		var ee *exec.ExitError
		switch {
		case ok && (err == nil || errors.As(err, &ee)):
			return st // the command's own status
		case errors.As(err, &ee):
			// The guardian was killed (Kill, or its parent-death signal) before it could
			// say: the whole namespace went with it.
			return exitErrorOf(ee.ProcessState)
		case err == nil:
			return fmt.Errorf("proc: guardian of %s ended without the command's status", c.Path)
		}
		return err
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return exitErrorOf(ee.ProcessState)
	}
	return err
}

// readStatus reads the guardian's line after "started", "exit N" or "signal N", which it
// writes as soon as it reaped the command, into st and stOK; Exited is closed then.
func (c *Cmd) readStatus() {
	defer close(c.statusDone)
	line, err := c.status.ReadString('\n')
	if err != nil {
		return // the guardian ended without saying (killed); Wait closes Exited
	}
	c.st, c.stOK = parseStatus(strings.TrimSpace(line))
	if c.stOK {
		c.markExited()
	}
}

// parseStatus parses a guardian's status line, "exit N" or "signal N".
func parseStatus(line string) (error, bool) {
	word, n, _ := strings.Cut(line, " ")
	v, err := strconv.Atoi(n)
	if err != nil {
		return nil, false
	}
	switch word {
	case "exit":
		if v == 0 {
			return nil, true
		}
		return &ExitError{Code: v}, true
	case "signal":
		return &ExitError{Code: -1, Signal: syscall.Signal(v)}, true
	}
	return nil, false
}

// ExitError reports a command that did not exit with status 0: its own status, not its
// guardian's. Its text is os.ProcessState's ("exit status 3", "signal: killed").
type ExitError struct {
	Code   int            // the exit status; -1 when a signal killed it
	Signal syscall.Signal // the signal that killed it; 0 when it exited
}

func (e *ExitError) Error() string {
	if e.Signal != 0 {
		return "signal: " + e.Signal.String()
	}
	return "exit status " + strconv.Itoa(e.Code)
}

func exitErrorOf(ps *os.ProcessState) error {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return &ExitError{Code: -1, Signal: ws.Signal()}
	}
	if ps.ExitCode() == 0 {
		return nil
	}
	return &ExitError{Code: ps.ExitCode()}
}
