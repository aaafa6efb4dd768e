package matrix

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/skewtest/skewtest/internal/build/builds"
)

// buildProgress shows the builds' progress: on a terminal, one live line per build,
// redrawn as events arrive and every tick; elsewhere (CI), plain lines, one per event
// (step lines only with -v). Text written through it (Write) goes above the live lines.
type buildProgress struct {
	w       io.Writer
	tty     bool
	verbose bool
	width   func() int

	mu     sync.Mutex
	labels []string // in the order first seen
	rows   map[string]builds.Event
	since  map[string]time.Time // when each build's current state began
	drawn  int                  // live lines on screen
	closed bool

	stop chan struct{}
	done chan struct{}
}

// newBuildProgress renders to w, live when w is a terminal.
func newBuildProgress(w io.Writer, verbose bool) *buildProgress {
	f, ok := w.(*os.File)
	tty := ok && term.IsTerminal(int(f.Fd())) && os.Getenv("TERM") != "dumb"
	width := func() int { return 100 }
	if tty {
		width = func() int {
			if c, _, err := term.GetSize(int(f.Fd())); err == nil && c > 20 {
				return c
			}
			return 100
		}
	}
	return startProgress(w, tty, verbose, width, 200*time.Millisecond)
}

// startProgress is newBuildProgress with its terminal detection made: tick > 0 redraws
// the live lines that often (their times move on) until Close.
func startProgress(w io.Writer, tty, verbose bool, width func() int, tick time.Duration) *buildProgress {
	p := &buildProgress{w: w, tty: tty, verbose: verbose, width: width,
		rows: map[string]builds.Event{}, since: map[string]time.Time{},
		stop: make(chan struct{}), done: make(chan struct{})}
	if !tty || tick <= 0 {
		close(p.done)
		return p
	}
	go func() {
		defer close(p.done)
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.mu.Lock()
				p.redraw()
				p.mu.Unlock()
			}
		}
	}()
	return p
}

// Event is the Builder's Progress hook.
func (p *buildProgress) Event(e builds.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	if _, ok := p.rows[e.Label]; !ok {
		p.labels = append(p.labels, e.Label)
	}
	if old, ok := p.rows[e.Label]; !ok || old.State != e.State || old.Step != e.Step {
		p.since[e.Label] = time.Now()
	}
	p.rows[e.Label] = e
	if p.tty {
		p.redraw()
		return
	}
	if e.State == builds.Queued || (e.State == builds.Running && !p.verbose) {
		return
	}
	fmt.Fprintln(p.w, e)
}

// Write prints text above the live lines.
func (p *buildProgress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	n, err := p.w.Write(b)
	if !p.closed {
		p.redraw()
	}
	return n, err
}

// Close stops the ticker and leaves the final lines on screen.
func (p *buildProgress) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.mu.Unlock()
	close(p.stop)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		p.redraw()
		p.drawn = 0 // the final lines stay
	}
}

// clear moves the cursor to the top of the live lines and erases them.
func (p *buildProgress) clear() {
	if !p.tty || p.drawn == 0 {
		return
	}
	fmt.Fprintf(p.w, "\x1b[%dA\x1b[J", p.drawn)
	p.drawn = 0
}

func (p *buildProgress) redraw() {
	if !p.tty {
		return
	}
	p.clear()
	width := p.width()
	labelWidth := 0
	for _, l := range p.labels {
		labelWidth = max(labelWidth, len(l))
	}
	var b strings.Builder
	for _, l := range p.labels {
		line := p.line(p.rows[l], labelWidth)
		if r := []rune(line); len(r) > width-1 {
			line = string(r[:width-2]) + "…"
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	io.WriteString(p.w, b.String())
	p.drawn = len(p.labels)
}

var spinner = []rune("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")

// line is one build's live line.
func (p *buildProgress) line(e builds.Event, labelWidth int) string {
	took := time.Since(p.since[e.Label])
	mark := string(spinner[int(took/(100*time.Millisecond))%len(spinner)])
	var what string
	switch e.State {
	case builds.Queued:
		mark, what, took = "·", "queued", 0
	case builds.Waiting:
		what = "waiting for another build of the same key, " + e.HeldBy()
	case builds.Materializing:
		what = "writing the tree"
	case builds.Running:
		what = fmt.Sprintf("step %d/%d %s", e.Step, e.Steps, e.Command)
		took = e.Elapsed + time.Since(p.since[e.Label])
	case builds.Cached:
		mark, what, took = "·", "cached", 0
	case builds.Built:
		mark, what, took = "✓", "built", e.Elapsed
	case builds.Failed:
		mark, what, took = "✗", "failed, log: "+e.LogPath, e.Elapsed
	}
	t := ""
	if took > 0 {
		t = fmt.Sprintf(" %5.1fs", took.Seconds())
	}
	return fmt.Sprintf("  %s %-*s%s  %s", mark, labelWidth, e.Label, t, what)
}
