// Package decoders asks builds' decoders about traffic other builds recorded: a recorded
// transcript's frames, one direction at a time, go to a build's driver through its decode
// action (docs/driver-protocol.md), with no peer process and no tap. Each question is a
// Cell: one direction of one recording into one build's receiving driver. replay asks every
// build of the pin rules about every transcript of a report; run's fixture tier asks the
// working tree about the committed recordings of older releases (package fixtures).
//
// It is a question about decoders, not a verdict on a pairing: a frame a host sends only
// once a capability is negotiated may be refused by an older decoder that would never be
// sent it.
package decoders

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// Directions are the two directions of a recording, in the order cells are made.
var Directions = contract.Directions

// Recording is a recorded pairing whose frames are asked about: its transcript and how
// findings name it.
type Recording struct {
	// From names the recording in findings: a pairing's label, a fixture's path.
	From string
	// Host and Client are the labels of the builds that recorded it; Kind and Journey the
	// client kind and the journey.
	Host, Client, Kind, Journey string
	T                           *transcript.Transcript
}

// RecordingOf is the recording of a report's pairing p, whose transcript is t.
func RecordingOf(p *results.Pairing, t *transcript.Transcript) Recording {
	return Recording{From: p.Label(), Host: p.Host, Client: p.Client, Kind: p.ClientKind, Journey: p.Journey, T: t}
}

// Cell is one question: the frames one direction of a recording carried, into build Into's
// receiving driver (its host for C>H, its client of the recording's kind for H>C).
type Cell struct {
	From   Recording
	Dir    string
	Frames []transcript.Frame
	Into   *harness.Build
}

// Role is the receiving driver's role.
func (c Cell) Role() transcript.Role {
	if c.Dir == contract.ClientToHost {
		return transcript.Host
	}
	return transcript.Client
}

// kind is the receiving driver's client kind ("" for a host).
func (c Cell) kind() string {
	if c.Dir == contract.ClientToHost {
		return ""
	}
	return c.From.Kind
}

// Recorder is the label of the build that received the cell's frames when they were
// recorded.
func (c Cell) Recorder() string {
	if c.Dir == contract.ClientToHost {
		return c.From.Host
	}
	return c.From.Client
}

// Cells are the questions of r's directions dirs (nil: both) into build b: its host gets
// the C>H frames, its client of the recording's kind the H>C ones (when it has that kind).
// Control frames, and messages the tap rewrote on the way, are not asked about.
func Cells(r Recording, b *harness.Build, dirs ...string) []Cell {
	if dirs == nil {
		dirs = Directions
	}
	var out []Cell
	for _, dir := range dirs {
		c := Cell{From: r, Dir: dir, Into: b}
		if dir == contract.HostToClient {
			if _, ok := b.Clients[r.Kind]; !ok {
				continue
			}
		}
		for _, f := range r.T.Frames {
			if f.Dir == dir && f.Control == "" && f.Original == nil {
				c.Frames = append(c.Frames, f)
			}
		}
		if len(c.Frames) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// Answer is what a cell's receiving driver said of its frames.
type Answer struct {
	Cell
	// Decoded is each frame's answer by its Index; a frame the driver did not answer has
	// none.
	Decoded map[int]transcript.DriverDecode
	// Err is why the driver could not be asked (it did not start, or broke).
	Err      error
	Duration time.Duration
}

// Refusals are the answer's decoder-refusal findings, a frame each: what the driver
// refused, or did not answer.
func (a Answer) Refusals() []results.Finding {
	var out []results.Finding
	for _, f := range a.Frames {
		d, ok := a.Decoded[f.Index]
		switch {
		case !ok:
			out = append(out, a.finding(results.DecoderRefusal, f, "refused", "no answer from its decoder"))
		case d.Refused:
			out = append(out, a.finding(results.DecoderRefusal, f, "refused", d.Reason))
		}
	}
	return out
}

// Mismatches are the answer's field-mismatch findings against recorder, the answer of the
// build that received the frames when they were recorded (the same frames): a frame both
// decoders read as the same frame, with a field both name but read differently. A frame
// either refused, or that they split or name differently, is compared no further (a
// refusal is its own finding).
func (a Answer) Mismatches(recorder Answer) []results.Finding {
	var out []results.Finding
	for _, f := range a.Frames {
		mine, ok1 := a.Decoded[f.Index]
		theirs, ok2 := recorder.Decoded[f.Index]
		if !ok1 || !ok2 || mine.Refused || theirs.Refused || len(mine.Frames) != len(theirs.Frames) {
			continue
		}
		for i := range mine.Frames {
			m, t := mine.Frames[i], theirs.Frames[i]
			if m.Type != t.Type || m.Opcode != t.Opcode {
				break
			}
			for _, d := range fieldDiffs(m.Fields, t.Fields) {
				out = append(out, a.finding(results.FieldMismatch, f, "reads",
					fmt.Sprintf("%s.%s as %s where %s (which received it) read %s", frameName(m), d.name, d.mine, recorder.Into.Label, d.theirs)))
			}
		}
	}
	return out
}

// finding is a finding about frame f of the cell, named as the recording named it and
// placed where it sat in the recorded transcript.
func (a Answer) finding(kind results.Kind, f transcript.Frame, verb, what string) results.Finding {
	name := "frame"
	var fr *results.Frame
	if len(f.Read) > 0 && f.Read[0].Name != "" {
		name = f.Read[0].Name
		fr = &results.Frame{Name: name}
		if f.Read[0].Opcode != nil {
			fr.Opcode = *f.Read[0].Opcode
		}
	}
	who := fmt.Sprintf("host %s", a.Into.Label)
	if a.Role() == transcript.Client {
		who = fmt.Sprintf("%s client %s", a.From.Kind, a.Into.Label)
	}
	msg := fmt.Sprintf("%s refused %s %s (message %d of %s): %s", who, f.Dir, name, f.Index, a.From.From, what)
	if verb != "refused" {
		msg = fmt.Sprintf("%s reads %s %s (message %d of %s): %s", who, f.Dir, name, f.Index, a.From.From, what)
	}
	return checks.Bound([]results.Finding{{Kind: kind, Step: f.Step, Direction: f.Dir, Frame: fr, Message: msg}})[0]
}

func frameName(d transcript.DecodedFrame) string {
	if d.Type != "" {
		return d.Type
	}
	return fmt.Sprintf("opcode %d", d.Opcode)
}

type fieldDiff struct{ name, mine, theirs string }

// fieldDiffs are the top-level fields of two decoded JSON objects that both name and hold
// different values, in name order. What is not an object on either side is not compared.
func fieldDiffs(mine, theirs json.RawMessage) []fieldDiff {
	var m, t map[string]json.RawMessage
	if json.Unmarshal(mine, &m) != nil || json.Unmarshal(theirs, &t) != nil {
		return nil
	}
	var out []fieldDiff
	for name, mv := range m {
		tv, ok := t[name]
		if !ok || bytes.Equal(mv, tv) {
			continue
		}
		var a, b any
		if json.Unmarshal(mv, &a) == nil && json.Unmarshal(tv, &b) == nil && reflect.DeepEqual(a, b) {
			continue
		}
		out = append(out, fieldDiff{name: name, mine: clip(mv), theirs: clip(tv)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// clip keeps a value's JSON text short enough for a finding's line.
func clip(v json.RawMessage) string {
	const max = 60
	if len(v) <= max {
		return string(v)
	}
	return string(v[:max]) + "…"
}

// Asker asks cells, keeping one decode driver per build, role and kind across them; Stop
// stops the drivers.
type Asker struct {
	// LogDir receives each driver's log (DRIVER.log).
	LogDir string
	// Parallel is how many cells are asked at once (default: harness.DefaultParallel).
	Parallel int

	mu      sync.Mutex
	drivers map[string]*started
}

// started is a decode driver started once, or why it could not be, and what it answered
// so far: decode is pure (docs/driver-protocol.md), so the same frame gets the same answer
// and is asked once (recordings repeat most of their frames).
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

// Ask asks every cell, Parallel at a time, and returns the answers in cells' order. Once
// ctx is done, a cell not yet asked is answered with ctx's error, never started.
func (k *Asker) Ask(ctx context.Context, cells []Cell) []Answer {
	parallel := k.Parallel
	if parallel < 1 {
		parallel = harness.DefaultParallel()
	}
	out := make([]Answer, len(cells))
	var g errgroup.Group
	g.SetLimit(parallel)
	for i, c := range cells {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				out[i] = Answer{Cell: c, Err: err}
				return nil
			}
			out[i] = k.ask(ctx, c)
			return nil
		})
	}
	_ = g.Wait() // no cell returns an error: each answer carries its own
	return out
}

func (k *Asker) ask(ctx context.Context, c Cell) Answer {
	a := Answer{Cell: c}
	start := time.Now()
	defer func() { a.Duration = time.Since(start) }()
	d, err := k.driver(ctx, c)
	if err == nil {
		a.Decoded, err = d.decode(ctx, c.Frames)
	}
	a.Err = err
	return a
}

func (k *Asker) driver(ctx context.Context, c Cell) (*started, error) {
	key := c.Into.Label + "/" + string(c.Role()) + "/" + c.kind()
	k.mu.Lock()
	if k.drivers == nil {
		k.drivers = map[string]*started{}
	}
	s := k.drivers[key]
	if s == nil {
		s = &started{}
		k.drivers[key] = s
	}
	k.mu.Unlock()
	s.once.Do(func() {
		name := c.Into.Label + "-" + string(c.Role())
		if c.kind() != "" {
			name += "-" + c.kind()
		}
		s.d, s.err = harness.StartDecodeDriver(ctx, c.Into, c.Role(), c.kind(), filepath.Join(k.LogDir, name+".log"))
	})
	if s.err != nil {
		return nil, s.err
	}
	return s, nil
}

// Stop stops every driver the asker started.
func (k *Asker) Stop(ctx context.Context) {
	k.mu.Lock()
	defer k.mu.Unlock()
	keys := make([]string, 0, len(k.drivers))
	for key := range k.drivers {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	for _, key := range keys {
		if s := k.drivers[key]; s.d != nil {
			s.d.Stop(ctx)
		}
	}
}
