// Package driver runs one driver process (one build of the subject in one
// role) and speaks the JSON-lines driver protocol with it
// (docs/driver-protocol.md).
//
// A Driver owns its process and two goroutines: a reader that decodes
// stdout and hands every line to the onMessage callback in order, and a
// waiter that makes the one Wait call for the process. The process runs in
// its own process group under a guardian (package proc): whatever it
// started is killed when it exits, and none of it outlives skewtest, even
// a SIGKILLed one. Call Stop (or cancel the Start context) to end it;
// Exited is closed once the process is reaped and its stdout drained.
package driver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/skewtest/skewtest/internal/build/proc"
)

// Driver is one running driver process.
type Driver struct {
	spec      Spec
	cmd       *proc.Cmd
	pid       int
	onMessage func(Message)

	stdin     *os.File      // our end of the driver's stdin
	stdout    *os.File      // our end of the driver's stdout
	writeSem  chan struct{} // serializes writes to stdin
	stdinOnce sync.Once
	outOnce   sync.Once

	mu        sync.Mutex
	nextID    int
	pending   map[int]chan Message // Do calls waiting for a result, by id
	sawFirst  bool
	hello     Message
	ready     Message
	readyErr  error
	readyDone bool
	readyCh   chan struct{} // closed when ready arrived or cannot arrive

	readerDone chan struct{}
	exited     chan struct{} // closed after Wait returned and the reader ended
	exitErr    *ExitError    // set before exited is closed

	stopOnce sync.Once
	stopErr  error
}

// Start starts the driver process described by spec. Every line the driver
// writes to stdout is decoded and passed to onMessage (which may be nil),
// in order, from one goroutine, until Exited is closed.
//
// When ctx is done the process group gets SIGTERM, and SIGKILL
// spec.StopGrace later. The caller must Stop the driver or cancel ctx.
func Start(ctx context.Context, spec Spec, onMessage func(Message)) (*Driver, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if onMessage == nil {
		onMessage = func(Message) {}
	}
	var files []*os.File // closed on return: the child holds its own copies
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	var stderr *os.File
	if spec.LogPath != "" {
		f, err := os.Create(spec.LogPath)
		if err != nil {
			return nil, fmt.Errorf("start %s: %w", spec.Name, err)
		}
		files = append(files, f)
		stderr = f
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: stdin pipe: %w", spec.Name, err)
	}
	files = append(files, inR)
	outR, outW, err := os.Pipe()
	if err != nil {
		inW.Close()
		return nil, fmt.Errorf("start %s: stdout pipe: %w", spec.Name, err)
	}
	files = append(files, outW)
	growPipe(inW)
	growPipe(outR)

	cmd := proc.CommandContext(ctx, spec.program(), spec.Argv[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = append(os.Environ(), spec.Env...)
	cmd.Stdin, cmd.Stdout = inR, outW
	if stderr != nil {
		cmd.Stderr = stderr
	}
	cmd.Grace = spec.StopGrace
	if err := cmd.Start(); err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("start %s: %w", spec.Name, err)
	}

	d := &Driver{
		spec:       spec,
		cmd:        cmd,
		pid:        cmd.PID(),
		onMessage:  onMessage,
		stdin:      inW,
		stdout:     outR,
		writeSem:   make(chan struct{}, 1),
		pending:    make(map[int]chan Message),
		readyCh:    make(chan struct{}),
		readerDone: make(chan struct{}),
		exited:     make(chan struct{}),
	}
	go d.read()
	go d.wait()
	return d, nil
}

// PID returns the id of the process skewtest started for the driver: its
// guardian (see package proc), or the driver itself where there is none.
func (d *Driver) PID() int { return d.pid }

// Exited is closed once the process has been reaped and its stdout read to
// the end; onMessage is not called after that.
func (d *Driver) Exited() <-chan struct{} { return d.exited }

// ProcessExited is closed once the driver process itself has exited, which can be well
// before Exited: its guardian still kills and reaps what it left, and on a saturated machine
// that takes seconds. Judge how promptly a driver exited by it; read ExitErr after Exited.
func (d *Driver) ProcessExited() <-chan struct{} { return d.cmd.Exited() }

// ExitErr returns nil while the process runs or if it exited with status 0,
// and otherwise an *ExitError naming the status or signal.
func (d *Driver) ExitErr() error {
	select {
	case <-d.exited:
		if d.exitErr.Err == nil {
			return nil
		}
		return d.exitErr
	default:
		return nil
	}
}

// Hello returns the driver's hello message, once WaitReady has succeeded.
func (d *Driver) Hello() Message {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.hello
}

// WaitReady waits for hello and then ready, and returns the ready message.
// It fails if the first line is not hello (ErrNotHello), if the process
// exits first (an *ExitError with the tail of its log), or when ctx is
// done; if ctx has no deadline it waits at most spec.ReadyTimeout.
func (d *Driver) WaitReady(ctx context.Context) (Message, error) {
	ctx, cancel := withDefaultTimeout(ctx, d.spec.ReadyTimeout)
	defer cancel()
	select {
	case <-d.readyCh:
		d.mu.Lock()
		defer d.mu.Unlock()
		return d.ready, d.readyErr
	case <-ctx.Done():
		return Message{}, fmt.Errorf("%s: wait for ready: %w", d.spec.Name, context.Cause(ctx))
	}
}

// Do sends an action and waits for its result. A result with ok=false is
// returned together with its *ActionError. Do fails if the process exits
// before the result (the error wraps an *ExitError) or when ctx is done;
// if ctx has no deadline it waits at most spec.ActionTimeout. A nil args
// is sent as {}.
func (d *Driver) Do(ctx context.Context, action string, args any) (Message, error) {
	return d.DoLane(ctx, 0, action, args)
}

// DoLane is Do for an action of lane (docs/driver-protocol.md, Lanes); lane 0 is the
// driver's own instance, as Do.
func (d *Driver) DoLane(ctx context.Context, lane int, action string, args any) (Message, error) {
	ctx, cancel := withDefaultTimeout(ctx, d.spec.ActionTimeout)
	defer cancel()
	id, ch, err := d.send(ctx, lane, action, args, true)
	if err != nil {
		return Message{}, err
	}
	defer d.forget(id)
	select {
	case m := <-ch:
		return m, resultErr(m)
	case <-d.exited:
		select {
		case m := <-ch: // the result came just before the end
			return m, resultErr(m)
		default:
		}
		return Message{}, fmt.Errorf("action %q (id %d): no result: %w", action, id, d.exitErr)
	case <-ctx.Done():
		return Message{}, fmt.Errorf("%s: action %q (id %d): no result: %w", d.spec.Name, action, id, context.Cause(ctx))
	}
}

// Send sends an action without waiting for its result, which still reaches
// onMessage. It returns the action's id.
func (d *Driver) Send(action string, args any) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d.spec.ActionTimeout)
	defer cancel()
	id, _, err := d.send(ctx, 0, action, args, false)
	return id, err
}

// Stop ends the driver and reaps it. It sends the stop action, closes
// stdin and waits spec.StopGrace for the driver process to exit; then sends
// SIGTERM to the process group and waits spec.StopGrace again; then kills
// every process of the driver (SIGKILL). Once the driver process exited,
// Stop waits for its guardian to kill and reap what it left however long
// that takes (seconds on a saturated machine), without counting it against
// the driver. When ctx is done it goes straight to the kill. It returns nil if the driver
// exited by itself with status 0, an *ExitError for another status, and an
// error wrapping ErrStopIgnored if it had to be signalled. Stop is
// idempotent: later calls wait for the first and return its result.
func (d *Driver) Stop(ctx context.Context) error {
	d.stopOnce.Do(func() { d.stopErr = d.stop(ctx) })
	return d.stopErr
}

func (d *Driver) stop(ctx context.Context) error {
	select {
	case <-d.exited:
		return d.ExitErr()
	default:
	}
	grace := d.spec.StopGrace
	wctx, cancel := context.WithTimeout(ctx, grace)
	_, _, _ = d.send(wctx, 0, "stop", nil, false) // it may have closed stdin already
	cancel()
	d.closeStdin()
	// The grace is for the driver process itself: its guardian may take seconds more to
	// tear down what it left on a saturated machine (proc.Cmd.Exited), which is not the
	// driver ignoring stop.
	if d.awaitCommand(ctx, grace) {
		return d.ExitErr()
	}
	if ctx.Err() == nil {
		_ = d.cmd.Signal(syscall.SIGTERM)
		if d.awaitCommand(ctx, grace) {
			return fmt.Errorf("%s: %w; terminated by SIGTERM (%s)", d.spec.Name, ErrStopIgnored, d.exitErr.status())
		}
	}
	_ = d.cmd.Kill()
	<-d.exited
	if ctx.Err() != nil {
		return fmt.Errorf("stop %s: %w; killed", d.spec.Name, context.Cause(ctx))
	}
	return fmt.Errorf("%s: %w and SIGTERM; killed", d.spec.Name, ErrStopIgnored)
}

// awaitCommand waits up to grace for the driver process itself to exit, and
// then for Exited; false if it did not exit in time or ctx is done. Once it
// exited the rest is its guardian's teardown, which is not bounded by grace;
// when ctx is done first everything is killed and it returns true.
func (d *Driver) awaitCommand(ctx context.Context, grace time.Duration) bool {
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-d.cmd.Exited():
	case <-d.exited:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
	select {
	case <-d.exited:
	case <-ctx.Done():
		_ = d.cmd.Kill()
		<-d.exited
	}
	return true
}

// send writes one action line, registering for its result if wantResult.
func (d *Driver) send(ctx context.Context, lane int, action string, args any, wantResult bool) (int, chan Message, error) {
	if args == nil {
		args = struct{}{}
	}
	d.mu.Lock()
	d.nextID++
	id := d.nextID
	var ch chan Message
	if wantResult {
		ch = make(chan Message, 1)
		d.pending[id] = ch
	}
	d.mu.Unlock()

	line, err := request{ID: id, Lane: lane, Action: action, Args: args}.encode()
	if err != nil {
		d.forget(id)
		return 0, nil, fmt.Errorf("%s: action %q: encode args: %w", d.spec.Name, action, err)
	}
	select {
	case <-d.exited:
		d.forget(id)
		return 0, nil, fmt.Errorf("action %q (id %d): %w", action, id, d.exitErr)
	default:
	}
	if err := d.write(ctx, append(line, '\n')); err != nil {
		d.forget(id)
		// EPIPE: the driver closed its stdin; it is probably exiting (judged as Stop
		// judges it: by the driver process, not its guardian's teardown).
		if errors.Is(err, syscall.EPIPE) && d.awaitCommand(ctx, d.spec.StopGrace) ||
			isClosed(d.exited) {
			return 0, nil, fmt.Errorf("action %q (id %d): %w", action, id, d.exitErr)
		}
		return 0, nil, fmt.Errorf("%s: write action %q (id %d): %w", d.spec.Name, action, id, err)
	}
	return id, ch, nil
}

func (d *Driver) forget(id int) {
	d.mu.Lock()
	delete(d.pending, id)
	d.mu.Unlock()
}

// past is a write deadline that has passed: setting it unblocks a write.
var past = time.Unix(1, 0)

// write writes b to stdin, one writer at a time, giving up when ctx is done.
func (d *Driver) write(ctx context.Context, b []byte) error {
	select {
	case d.writeSem <- struct{}{}:
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	defer func() { <-d.writeSem }()
	if err := d.stdin.SetWriteDeadline(time.Time{}); err != nil {
		return err
	}
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		_ = d.stdin.SetWriteDeadline(past)
		close(fired)
	})
	_, err := d.stdin.Write(b)
	if !stop() {
		<-fired // so that it cannot touch the next write's deadline
	}
	if errors.Is(err, os.ErrDeadlineExceeded) && ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}

// CloseStdin closes the driver's stdin, as Stop does after the stop action: a driver must
// then exit promptly (docs/driver-protocol.md). It does not wait.
func (d *Driver) CloseStdin() { d.closeStdin() }

func (d *Driver) closeStdin() {
	d.stdinOnce.Do(func() { d.stdin.Close() })
}

func (d *Driver) closeStdout() {
	d.outOnce.Do(func() { d.stdout.Close() })
}

// pipeSize is the capacity asked for the driver's stdin and stdout pipes: a terminal's
// observations and inputs run to megabytes a line, and through Linux's default 64 KiB pipe
// each such line is a few dozen writes that block and reads that wake the reader, for the
// driver and for skewtest alike. 1 MiB is Linux's default pipe-max-size; elsewhere pipes keep
// their size (growPipe).
const pipeSize = 1 << 20

// readBuffer is the driver reader's buffer: a line that fits is decoded where it was read
// (terminal observations run to a few hundred KB), a longer one is gathered first.
const readBuffer = 256 << 10

// read is the one reader of stdout. It ends at EOF.
func (d *Driver) read() {
	defer close(d.readerDone)
	br := bufio.NewReaderSize(d.stdout, readBuffer)
	first := true
	var long []byte // a longer line, gathered (kept: the next long line reuses it)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(line) > 0 {
			line = bytes.TrimSuffix(line, []byte("\n"))
			line = bytes.TrimSuffix(line, []byte("\r"))
			d.deliver(decodeLine(line, time.Now(), first)) // the message does not keep line's bytes
			first = false
		}
		if err != nil {
			return
		}
	}
}

// deliver hands m to onMessage, then to whoever waits for it.
func (d *Driver) deliver(m Message) {
	d.onMessage(m)

	d.mu.Lock()
	defer d.mu.Unlock()
	first := !d.sawFirst
	d.sawFirst = true
	switch {
	case first && m.Type != TypeHello:
		d.readyFailed(fmt.Errorf("%s: wait for ready: %w: %q", d.spec.Name, ErrNotHello, m.Line))
	case first:
		d.hello = m
	case m.Type == TypeReady && !d.readyDone:
		d.ready = m
		d.readyDone = true
		close(d.readyCh)
	}
	if m.Type == TypeResult {
		if ch, ok := d.pending[m.ID]; ok {
			delete(d.pending, m.ID)
			ch <- m // buffered, never blocks
		}
	}
}

// readyFailed records why ready cannot come. d.mu is held.
func (d *Driver) readyFailed(err error) {
	if d.readyDone {
		return
	}
	d.readyErr = err
	d.readyDone = true
	close(d.readyCh)
}

// wait is the one waiter of the process.
func (d *Driver) wait() {
	// When Wait returns, whatever the driver started is gone too.
	err := d.cmd.Wait()

	// stdout reaches EOF once every holder is gone. Where a process can
	// escape its guardian (macOS: one that left the group) it could keep it
	// open, so do not wait for it forever.
	t := time.NewTimer(d.spec.StopGrace)
	select {
	case <-d.readerDone:
	case <-t.C:
		d.closeStdout()
		<-d.readerDone
	}
	t.Stop()
	d.closeStdout()
	d.closeStdin()

	exitErr := &ExitError{Name: d.spec.Name, Err: err, LogTail: logTail(d.spec.LogPath)}
	d.mu.Lock()
	d.exitErr = exitErr
	d.readyFailed(fmt.Errorf("wait for ready: %w", exitErr))
	d.mu.Unlock()
	close(d.exited)
}

// withDefaultTimeout bounds ctx by d unless it has a deadline already.
func withDefaultTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, d)
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func resultErr(m Message) error {
	if m.OK {
		return nil
	}
	if m.Error != nil {
		return m.Error
	}
	return &ActionError{Code: CodeFailed, Message: "result not ok, without an error"}
}
