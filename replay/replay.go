// Package replay asks builds' decoders about traffic other builds recorded: each saved
// transcript's frames, one direction at a time, go to another build's driver through its
// decode action (docs/driver-protocol.md), with no peer process and no tap. It answers "would
// build X decode everything build Y sent in that journey?" for every build of the pin
// rules and every recorded transcript: a decoder matrix over all builds × recorded traffic.
//
// It is a question about decoders, not a verdict on a pairing: a frame a host sends only
// once a capability is negotiated may be refused by an older decoder that would never be
// sent it. A refusal here says the decoder cannot read the frame; whether the pairing ever
// sends it is the run's to say.
package replay

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/skewtest/skewtest/builds"
	"github.com/skewtest/skewtest/harness"
	"github.com/skewtest/skewtest/harness/transcript"
	"github.com/skewtest/skewtest/matrix"
	"github.com/skewtest/skewtest/pins"
	"github.com/skewtest/skewtest/reports"
	"github.com/skewtest/skewtest/results"
	"github.com/skewtest/skewtest/subject"
)

// Config is one replay.
type Config struct {
	// Saved is the report directory whose transcripts are replayed.
	Saved string
	// Repo is the subject's repository (default: the one the saved results.json names);
	// ReportDir receives the replay's reports; CacheDir is the build cache.
	Repo, ReportDir, CacheDir string
	// Pins are the pin rules of the builds to replay into, with the working tree (the
	// subject's skewtest.yaml fills what they leave, as for run).
	Pins pins.Options
	// Runner makes where recipes run (matrix.Config.Runner).
	Runner func(ctx context.Context, log io.Writer) (builds.Runner, func(), error)
	// Parallel is how many cells are asked at once (default: harness.DefaultParallel).
	Parallel int
	// Stdout gets the matrix and the totals; Stderr progress. Nil discards.
	Stdout, Stderr io.Writer
}

// Run builds the working tree and the pins, replays every saved transcript into each of
// them, and writes the reports: one cell (a results pairing with Replay set) per transcript,
// direction and receiving build, failing with a decoder-refusal finding per frame the
// receiving decoder refused.
func Run(ctx context.Context, c Config) (*results.Run, error) {
	if c.Stdout == nil {
		c.Stdout = io.Discard
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
	saved, err := reports.Load(filepath.Join(c.Saved, reports.ResultsFile))
	if err != nil {
		return nil, subject.Usagef("%s: %v", c.Saved, err)
	}
	if c.Repo == "" {
		c.Repo = saved.Repo
	}
	if c.ReportDir == "" {
		c.ReportDir = filepath.Join(c.Saved, "replay")
	}
	run := &results.Run{SchemaVersion: results.SchemaVersion, Tool: "skewtest", Repo: c.Repo, Seed: saved.Seed, Started: time.Now()}
	mc := matrix.Config{Repo: c.Repo, ReportDir: c.ReportDir, CacheDir: c.CacheDir, Pins: c.Pins, Runner: c.Runner,
		Stdout: c.Stdout, Stderr: c.Stderr, Command: []string{"replay"}, Seed: saved.Seed}
	if err := mc.Defaults(); err != nil {
		return nil, err
	}
	release, err := matrix.ClaimReportDir(c.ReportDir, mc.Command)
	if err != nil {
		return nil, err
	}
	defer release()
	built, _, err := matrix.Prepare(ctx, &mc, run)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(c.ReportDir, reports.DriversDir), 0o755); err != nil {
		return nil, err
	}
	r := &replayer{dir: c.ReportDir, parallel: c.Parallel, drivers: map[string]*started{}}
	if r.parallel < 1 {
		r.parallel = harness.DefaultParallel()
	}
	defer r.stop(ctx)
	for _, p := range saved.Pairings {
		if p.Future || p.Transcript == "" {
			continue
		}
		t, err := transcript.Load(filepath.Join(c.Saved, p.Transcript))
		if err != nil {
			return nil, subject.Usagef("%s: %v", c.Saved, err)
		}
		var cells []cell
		for _, b := range built {
			cells = append(cells, r.cells(p, t, b)...)
		}
		run.Pairings = append(run.Pairings, r.replayAll(ctx, cells)...)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	run.Finished = time.Now()
	if err := reports.Write(c.ReportDir, run); err != nil {
		return nil, fmt.Errorf("write reports: %w", err)
	}
	summarize(c.Stdout, run)
	return run, nil
}

// cell is one replay: the frames one direction of a recorded pairing carried, into build
// b's receiving driver.
type cell struct {
	from   *results.Pairing
	dir    string
	frames []transcript.Frame
	into   *harness.Build
	role   transcript.Role
	kind   string
}

// cells are the replays of t's two directions into build b: its host gets the C>H frames,
// its client of the pairing's kind the H>C ones (when it has that kind).
func (r *replayer) cells(p *results.Pairing, t *transcript.Transcript, b *harness.Build) []cell {
	var out []cell
	for _, dir := range []string{"H>C", "C>H"} {
		c := cell{from: p, dir: dir, into: b, role: transcript.Client, kind: p.ClientKind}
		if dir == "C>H" {
			c.role, c.kind = transcript.Host, ""
		} else if _, ok := b.Clients[p.ClientKind]; !ok {
			continue
		}
		for _, f := range t.Frames {
			if f.Dir == dir && f.Control == "" && f.Original == nil {
				c.frames = append(c.frames, f)
			}
		}
		if len(c.frames) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// replayer keeps one decode driver per build, role and kind across the cells.
type replayer struct {
	dir      string
	parallel int
	mu       sync.Mutex
	drivers  map[string]*started
}

// started is a decode driver started once, or why it could not be, and what it answered
// so far: decode is pure (docs/driver-protocol.md), so the same frame gets the same answer
// and is asked once (a matrix's transcripts repeat most of their frames).
type started struct {
	once sync.Once
	d    *harness.DecodeDriver
	err  error

	mu      sync.Mutex
	answers map[frameKey]transcript.DriverDecode
}

// frameKey is what a decoder is asked about a frame.
type frameKey struct {
	dir, path, data string
	binary          bool
}

func keyOf(f transcript.Frame) frameKey {
	return frameKey{dir: f.Dir, path: f.Path, data: string(f.Data), binary: f.Binary}
}

// decode answers frames from what the driver answered before, and asks it about the rest.
func (s *started) decode(ctx context.Context, frames []transcript.Frame) (map[int]transcript.DriverDecode, error) {
	out := map[int]transcript.DriverDecode{}
	var ask []transcript.Frame
	s.mu.Lock()
	for _, f := range frames {
		if a, ok := s.answers[keyOf(f)]; ok {
			out[f.Index] = a
		} else {
			ask = append(ask, f)
		}
	}
	s.mu.Unlock()
	if len(ask) == 0 {
		return out, nil
	}
	got, err := s.d.Decode(ctx, ask)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.answers == nil {
		s.answers = map[frameKey]transcript.DriverDecode{}
	}
	for _, f := range ask {
		if a, ok := got[f.Index]; ok {
			out[f.Index] = a
			s.answers[keyOf(f)] = a
		}
	}
	return out, nil
}

// replayAll replays cells, parallel at a time, and returns their results in cells' order.
func (r *replayer) replayAll(ctx context.Context, cells []cell) []*results.Pairing {
	out := make([]*results.Pairing, len(cells))
	sem := make(chan struct{}, r.parallel)
	var wg sync.WaitGroup
	for i, c := range cells {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i] = r.replay(ctx, c)
		}()
	}
	wg.Wait()
	return out
}

func (r *replayer) driver(ctx context.Context, c cell) (*started, error) {
	key := c.into.Label + "/" + string(c.role) + "/" + c.kind
	r.mu.Lock()
	s := r.drivers[key]
	if s == nil {
		s = &started{}
		r.drivers[key] = s
	}
	r.mu.Unlock()
	s.once.Do(func() {
		log := filepath.Join(r.dir, reports.DriversDir, fmt.Sprintf("%s-%s%s.log", c.into.Label, c.role, suffix(c.kind)))
		s.d, s.err = harness.StartDecodeDriver(ctx, c.into, c.role, c.kind, log)
	})
	if s.err != nil {
		return nil, s.err
	}
	return s, nil
}

func suffix(kind string) string {
	if kind == "" {
		return ""
	}
	return "-" + kind
}

func (r *replayer) stop(ctx context.Context) {
	for _, s := range r.drivers {
		if s.d != nil {
			s.d.Stop(ctx)
		}
	}
}

// replay sends the cell's frames to its driver and judges its answers.
func (r *replayer) replay(ctx context.Context, c cell) *results.Pairing {
	host, client, recorded := c.into.Label, c.from.Client, c.from.Host
	if c.dir == "H>C" {
		host, client, recorded = c.from.Host, c.into.Label, c.from.Client
	}
	p := &results.Pairing{Host: host, Client: client, ClientKind: c.from.ClientKind, Journey: c.from.Journey,
		Replay: &results.Replay{From: c.from.Label(), Direction: c.dir, Frames: len(c.frames), Recorded: recorded}}
	start := time.Now()
	defer func() { p.Duration = time.Since(start) }()
	d, err := r.driver(ctx, c)
	if err != nil {
		p.Status, p.Error = results.StatusError, err.Error()
		return p
	}
	answers, err := d.decode(ctx, c.frames)
	if err != nil {
		p.Status, p.Error = results.StatusError, err.Error()
		return p
	}
	who := fmt.Sprintf("%s %s", c.role, c.into.Label)
	if c.role == transcript.Client {
		who = fmt.Sprintf("%s client %s", c.kind, c.into.Label)
	}
	for _, f := range c.frames {
		a, ok := answers[f.Index]
		switch {
		case !ok:
			p.Findings = append(p.Findings, refusal(f, c, who, "no answer from its decoder"))
		case a.Refused:
			p.Findings = append(p.Findings, refusal(f, c, who, a.Reason))
		}
	}
	p.Status = results.StatusPass
	if len(p.Findings) > 0 {
		p.Status = results.StatusFail
	}
	return p
}

// refusal is a frame the receiving decoder refused, named as the recording named it and
// placed where it sat in the recorded transcript.
func refusal(f transcript.Frame, c cell, who, reason string) results.Finding {
	name := "frame"
	var fr *results.Frame
	if len(f.Read) > 0 && f.Read[0].Name != "" {
		name = f.Read[0].Name
		fr = &results.Frame{Name: name}
		if f.Read[0].Opcode != nil {
			fr.Opcode = *f.Read[0].Opcode
		}
	}
	return results.Finding{Kind: results.DecoderRefusal, Step: f.Step, Direction: f.Dir, Frame: fr,
		Message: fmt.Sprintf("%s refused %s %s (message %d of %s): %s", who, f.Dir, name, f.Index, c.from.Label(), reason)}
}

// summarize writes a line per cell that refused something, and the totals.
func summarize(w io.Writer, run *results.Run) {
	refused, cells := 0, len(run.Pairings)
	var lines []string
	for _, p := range run.Pairings {
		switch p.Status {
		case results.StatusFail:
			refused++
			lines = append(lines, fmt.Sprintf("%s: %s into %s: %s", p.Replay.From, p.Replay.Direction, p.Label(), matrix.Plural(len(p.Findings), "frame")+" refused"))
		case results.StatusError:
			lines = append(lines, fmt.Sprintf("%s: %s into %s: error: %s", p.Replay.From, p.Replay.Direction, p.Label(), p.Error))
		}
	}
	sort.Strings(lines)
	for _, l := range slices.Compact(lines) {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintf(w, "replay: %s, %d with refusals\n", matrix.Plural(cells, "decoder cell"), refused)
}
