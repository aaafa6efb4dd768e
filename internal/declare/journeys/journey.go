// Package journeys parses journey files: a script of steps (actions sent to drivers, barriers
// to wait for) and a golden section with the expected named frame sequence. It knows nothing
// of processes or sockets: the harness gives the verbs their meaning.
//
// A journey file is a txtar archive (see docs/journeys.md):
//
//	# comment lines describe the journey
//	kind desktop            (or: kind desktop,mobile — or: kind * for every kind)
//	timeout 10s
//	-- script --
//	step subscribe
//	client subscribe path=/terminal.multiplex terminal=t1 cols=120 rows=40
//	await client rendered-snapshot
//	-- frames --
//	ignore C>H Ack
//	C>H Subscribe
//	H>C SnapshotChunk+
//	[frame:OutputSpan] H>C OutputSpan
package journeys

import (
	"fmt"
	"slices"
	"time"
)

// Journey is one parsed journey file.
type Journey struct {
	Name        string
	File        string // file name used in errors and reports
	Description string
	// Kinds are the client kinds the journey drives: names, or AnyKind alone.
	Kinds   []string
	Timeout time.Duration // default barrier timeout; 0 means the harness default
	// Quiet is how long nothing may happen before a barrier is given up as a stall (fast
	// stalls); 0 means the harness default.
	Quiet time.Duration
	// Settle is how long no frame may cross the tap before a step that met its barriers has
	// settled; 0 means the harness default, negative turns the quiet period off (settle 0).
	Settle time.Duration
	// Unsettled (settle none) ends every step but the last as soon as its commands returned:
	// nothing is waited for (no quiet period, no reply, no frame the references owe), so
	// what a step caused may still be on its way when the next one acts. It is a schedule
	// a campaign draws to find races; a gate's journey does not use it.
	Unsettled bool
	// Channel is the contract channel the journey's conditions are about (channel NAME), and
	// ChannelLine the header line that names it; "" when the header has no channel line
	// (the contracts' one channel, or a line's own path, says it).
	Channel     string
	ChannelLine int
	Steps       []Step
	Frames      []FrameLine // expected named frame sequence
	Ignore      []FrameLine // frames left out of the sequence, with the reason in a comment
	// Listed says the journey comes from the subject's journeys list (LoadSet), so its name
	// alone finds it again (a repro line names it); otherwise its File does.
	Listed bool
}

// AnyKind, as a journey's only kind, means it drives every client kind.
const AnyKind = "*"

// Drives reports whether the journey drives clients of kind.
func (j *Journey) Drives(kind string) bool {
	return slices.Contains(j.Kinds, AnyKind) || slices.Contains(j.Kinds, kind)
}

// Step is a named group of commands; it ends when its last barrier is reached.
type Step struct {
	Name     string
	Line     int
	Commands []Command
}

// Command is one script line: a verb and its arguments, under conditions.
type Command struct {
	Line  int
	Conds []Cond
	Verb  string // first word: client, host, await, tap, expect …
	Args  []Arg
}

// Arg is a word of a command: positional (Key "") or key=value.
type Arg struct {
	Key   string
	Value string
	// Quoted says the value was written as a string expression ("2", "a"+"b"*3): an
	// action sends it as a string even where it reads as a number or a boolean.
	Quoted bool
}

// Cond is a condition on the pairing, written [name] or [!name].
type Cond struct {
	Not  bool
	Name string // e.g. "frame:Delta", "cap:push", "kind:mobile"
}

func (c Cond) String() string {
	if c.Not {
		return "[!" + c.Name + "]"
	}
	return "[" + c.Name + "]"
}

// FrameLine is one line of the frames golden: direction, name and a quantifier.
type FrameLine struct {
	Line  int
	Conds []Cond
	Dir   string // "C>H" or "H>C"
	Name  string
	Quant string // "", "?", "*" or "+"
	// Step is the script step the frame belongs to (the frames section's last "step NAME"
	// line), or "" when the section names no steps.
	Step string
}

func (f FrameLine) String() string { return f.Dir + " " + f.Name + f.Quant }

// SyntaxError is a problem in a journey file, at a line.
type SyntaxError struct {
	File string
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// UserMistake marks a syntax error as the user's to fix (usage.Mistake).
func (*SyntaxError) UserMistake() {}

// Get returns the value of key=value, and whether it was given.
func (c Command) Get(key string) (string, bool) {
	for _, a := range c.Args {
		if a.Key == key {
			return a.Value, true
		}
	}
	return "", false
}

// Positional returns the positional words after the verb.
func (c Command) Positional() []string {
	var out []string
	for _, a := range c.Args {
		if a.Key == "" {
			out = append(out, a.Value)
		}
	}
	return out
}

// Holds reports whether every condition holds, given a lookup of condition names.
func Holds(conds []Cond, has func(name string) bool) bool {
	for _, c := range conds {
		if has(c.Name) == c.Not {
			return false
		}
	}
	return true
}

// EachConds calls f with the line and the conditions of every line that may carry them:
// each step's commands in order, then the frames lines, then the ignore lines. It stops at
// the first error f returns, and returns it. Every check of a journey's conditions walks
// them this way, so none forgets a kind of line.
func (j *Journey) EachConds(f func(line int, conds []Cond) error) error {
	for _, s := range j.Steps {
		for _, c := range s.Commands {
			if err := f(c.Line, c.Conds); err != nil {
				return err
			}
		}
	}
	for _, fls := range [][]FrameLine{j.Frames, j.Ignore} {
		for _, fl := range fls {
			if err := f(fl.Line, fl.Conds); err != nil {
				return err
			}
		}
	}
	return nil
}

// StepNames lists the journey's step names in order.
func (j *Journey) StepNames() []string {
	out := make([]string, len(j.Steps))
	for i, s := range j.Steps {
		out[i] = s.Name
	}
	return out
}
