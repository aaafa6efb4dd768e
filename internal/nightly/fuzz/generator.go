// Package fuzz generates journeys from a seed: a subject's generator files describe, in the
// journey vocabulary, a setup, a pool of event templates with argument generators, and the
// final barriers; a case is one concrete journey drawn from them. It shrinks a failing case
// to a smaller one that still fails. It knows no product and runs nothing: the caller gives
// it a way to run a case.
//
// A generator file is a txtar archive (see docs/fuzz.md):
//
//	# comment lines describe the generator
//	kind desktop
//	timeout 10s
//	events 1..6
//	-- setup --
//	client subscribe path=/p id=s1
//	await client ready
//	-- event plain weight=3 --
//	host emit text={utf8 1..5000 as=out}
//	await client view text={tail out 64}
//	-- finish --
//	client close id=s1
//	-- frames --
//	ignore C>H Ping
package fuzz

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/skewtest/skewtest/internal/declare/journeys"
)

// Generator is one parsed generator file.
type Generator struct {
	Name string
	File string
	// Header holds the header lines a case's journey repeats (kind, timeout, quiet, channel).
	Header []string
	// Kinds are the client kinds of the kind line, as written.
	Kinds string
	// MinEvents and MaxEvents bound how many events a case draws (events MIN..MAX).
	MinEvents, MaxEvents int
	// Pack is how many of its cases share one journey (pack N), 0 when the file does not
	// say: cases of a few small frames amortise a pairing's start over many more cases
	// than cases that move megabytes.
	Pack   int
	Setup  *Section
	Events []*Section
	Finish *Section
	// Frames is the frames section, copied into every case as it is.
	Frames string
	// Description is the header's comment lines.
	Description string
}

// Section is a setup, event or finish section: lines of journey script whose argument
// values may hold generators.
type Section struct {
	Name   string // the event's name; "setup" or "finish"
	Weight int
	// Differential marks an event whose effects the contract allows a peer to refuse (an
	// idle past the declared quiet, after which either peer may close): a case that draws
	// it is judged only against the references, so a finding either build shows with
	// itself does not count (option differential).
	Differential bool
	Line         int // the section marker's line
	Lines        []*Line
}

// Line is one script line of a section.
type Line struct {
	N     int
	Words []Word
	// Step is set for a "step NAME" line (setup and finish only), and is NextStep for an
	// event's bare "step" line.
	Step string
}

// NextStep is the Step of an event's bare "step" line: the event goes on in a step of its
// own once the one before has ended (its replies in, and what the references owe, as any
// step), named after the event's step with its number (e2-resize.2).
const NextStep = "+"

// Word is one blank-separated word: literal text and generator calls, with an optional
// key (key=value words).
type Word struct {
	Key   string // "" for a positional word
	Parts []Part
}

// Part is literal text or one generator call.
type Part struct {
	Lit  string
	Call *Call
}

// SyntaxError is a problem in a generator file, at a line.
type SyntaxError struct {
	File string
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// FileError is a generator file that cannot be read.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return fmt.Sprintf("generator %s: %v", e.Path, e.Err) }
func (e *FileError) Unwrap() error { return e.Err }

// Load reads a generator file.
func Load(path string) (*Generator, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	return Parse(path, data)
}

// Default bounds of how many events a case draws.
const (
	DefaultMinEvents = 1
	DefaultMaxEvents = 4
)

// Parse reads a generator file; file names it in errors.
func Parse(file string, data []byte) (*Generator, error) {
	ar := txtar.Parse(data)
	g := &Generator{Name: strings.TrimSuffix(filepath.Base(file), ".txtar"), File: file,
		MinEvents: DefaultMinEvents, MaxEvents: DefaultMaxEvents}
	if err := g.parseHeader(ar.Comment); err != nil {
		return nil, err
	}
	line := 1 + bytes.Count(ar.Comment, []byte("\n"))
	names := map[string]int{}
	for _, f := range ar.Files {
		line++
		marker := line - 1
		fields := strings.Fields(f.Name)
		var err error
		switch {
		case len(fields) == 0:
			err = g.errorf(marker, "empty section name")
		case fields[0] == "setup" || fields[0] == "finish":
			if len(fields) != 1 {
				err = g.errorf(marker, "%s takes no options", fields[0])
				break
			}
			if (fields[0] == "setup" && g.Setup != nil) || (fields[0] == "finish" && g.Finish != nil) {
				err = g.errorf(marker, "section %q appears twice", fields[0])
				break
			}
			var s *Section
			s, err = g.parseSection(fields[0], 1, marker, f.Data, line, true)
			if fields[0] == "setup" {
				g.Setup = s
			} else {
				g.Finish = s
			}
		case fields[0] == "event":
			if len(fields) < 2 {
				err = g.errorf(marker, "event needs a name: -- event NAME [weight=W] [differential] --")
				break
			}
			name, weight, differential := fields[1], 1, false
			if prev, ok := names[name]; ok {
				err = g.errorf(marker, "event %q already defined at line %d", name, prev)
				break
			}
			if !validName(name) {
				err = g.errorf(marker, "event name %q: use letters, digits, '-' and '_'", name)
				break
			}
			names[name] = marker
			for _, o := range fields[2:] {
				if o == "differential" {
					differential = true
					continue
				}
				v, ok := strings.CutPrefix(o, "weight=")
				n, aerr := strconv.Atoi(v)
				if !ok || aerr != nil || n < 1 {
					err = g.errorf(marker, "event option %q: want weight=W, a positive number, or differential", o)
					break
				}
				weight = n
			}
			if err != nil {
				break
			}
			var s *Section
			if s, err = g.parseSection(name, weight, marker, f.Data, line, false); err == nil {
				s.Differential = differential
				g.Events = append(g.Events, s)
			}
		case fields[0] == "frames":
			if g.Frames != "" {
				err = g.errorf(marker, "section %q appears twice", "frames")
			}
			g.Frames = string(f.Data)
		default:
			err = g.errorf(marker, "unknown section %q (want setup, event NAME [weight=W] [differential], finish or frames)", f.Name)
		}
		if err != nil {
			return nil, err
		}
		line += bytes.Count(f.Data, []byte("\n"))
	}
	switch {
	case len(g.Events) == 0 && g.MaxEvents > 0:
		return nil, g.errorf(1, "no -- event NAME -- section: a generator needs at least one event (or events 0..0: every case is the setup and finish alone)")
	case len(g.Events) > 0 && g.MaxEvents == 0:
		return nil, g.errorf(1, "events 0..0 draws no event, yet the generator has event sections")
	}
	if g.Kinds == "" {
		return nil, g.errorf(1, "no kind line: say which client kinds the cases drive (kind desktop, kind desktop,mobile or kind *)")
	}
	return g, nil
}

func validName(s string) bool {
	for _, r := range s {
		if !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return s != ""
}

func (g *Generator) errorf(line int, format string, args ...any) error {
	return &SyntaxError{g.File, line, fmt.Sprintf(format, args...)}
}

func (g *Generator) parseHeader(data []byte) error {
	var desc []string
	for i, text := range journeys.Lines(data) {
		n := i + 1
		t := strings.TrimSpace(text)
		switch {
		case t == "":
		case strings.HasPrefix(t, "#"):
			desc = append(desc, strings.TrimSpace(strings.TrimPrefix(t, "#")))
		default:
			key, val, _ := strings.Cut(t, " ")
			val = strings.TrimSpace(val)
			switch key {
			case "kind":
				if val == "" {
					return g.errorf(n, "kind needs a client kind (kind desktop), several (kind desktop,mobile) or * (every kind)")
				}
				g.Kinds = val
				g.Header = append(g.Header, t)
			case "timeout", "quiet", "channel":
				g.Header = append(g.Header, t) // the journey parser checks the value
			case "events":
				lo, hi, err := parseRange(val)
				if err != nil || lo < 0 || hi > 1000 {
					return g.errorf(n, "events %q: want MIN..MAX, such as events 1..6 (at most 1000)", val)
				}
				g.MinEvents, g.MaxEvents = lo, hi
			case "pack":
				p, err := strconv.Atoi(val)
				if err != nil || p < 1 || p > 1000 {
					return g.errorf(n, "pack %q: want how many cases share a journey, such as pack 32 (1 to 1000)", val)
				}
				g.Pack = p
			default:
				return g.errorf(n, "unknown header line %q (want kind, timeout, quiet, channel, events or pack, or # comments)", key)
			}
		}
	}
	g.Description = strings.Join(desc, "\n")
	return nil
}

// parseSection reads a section's script lines; step lines are allowed in setup and finish.
func (g *Generator) parseSection(name string, weight, marker int, data []byte, first int, steps bool) (*Section, error) {
	s := &Section{Name: name, Weight: weight, Line: marker}
	bound := map[string]bool{}
	if g.Setup != nil {
		for _, l := range g.Setup.Lines {
			for _, b := range l.binds() {
				bound[b] = true
			}
		}
	}
	for i, text := range journeys.Lines(data) {
		n := first + i
		t := strings.TrimSpace(text)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if t == "step" {
			if steps {
				return nil, g.errorf(n, "step needs a name in setup and finish: step NAME")
			}
			if len(s.Lines) == 0 {
				return nil, g.errorf(n, "a bare step line goes on with the event in a step of its own: it needs a line before it")
			}
			s.Lines = append(s.Lines, &Line{N: n, Step: NextStep})
			continue
		}
		if rest, ok := strings.CutPrefix(t, "step "); ok {
			if !steps {
				return nil, g.errorf(n, "an event's steps are named after it: a bare step line starts its next one; step NAME goes in setup and finish only")
			}
			if !validName(strings.TrimSpace(rest)) {
				return nil, g.errorf(n, "step name %q: use letters, digits, '-' and '_'", strings.TrimSpace(rest))
			}
			s.Lines = append(s.Lines, &Line{N: n, Step: strings.TrimSpace(rest)})
			continue
		}
		l, err := parseLine(t)
		if err != nil {
			return nil, g.errorf(n, "%v", err)
		}
		l.N = n
		for _, w := range l.Words {
			for _, p := range w.Parts {
				if p.Call == nil {
					continue
				}
				if ref := p.Call.Ref; ref != "" && !bound[ref] {
					return nil, g.errorf(n, "{%s %s …}: no value bound as=%s earlier in this section or in setup", p.Call.Name, ref, ref)
				}
				if p.Call.As != "" {
					bound[p.Call.As] = true
				}
			}
		}
		s.Lines = append(s.Lines, l)
	}
	return s, nil
}

func (l *Line) binds() []string {
	var out []string
	for _, w := range l.Words {
		for _, p := range w.Parts {
			if p.Call != nil && p.Call.As != "" {
				out = append(out, p.Call.As)
			}
		}
	}
	return out
}

// parseLine splits a script line into words; blanks inside double quotes or inside a
// generator's braces do not split.
func parseLine(t string) (*Line, error) {
	l := &Line{}
	var cur strings.Builder
	flush := func() error {
		if cur.Len() == 0 {
			return nil
		}
		w, err := parseWord(cur.String())
		if err != nil {
			return err
		}
		l.Words = append(l.Words, w)
		cur.Reset()
		return nil
	}
	inQuote, esc := false, false
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case esc:
			esc = false
		case inQuote && c == '\\':
			esc = true
		case c == '"':
			inQuote = !inQuote
		case !inQuote && c == '{' && isCallStart(t[i:]):
			end := strings.IndexByte(t[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("unclosed generator %q", t[i:])
			}
			cur.WriteString(t[i : i+end+1])
			i += end
			continue
		case !inQuote && (c == ' ' || c == '\t'):
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		}
		cur.WriteByte(c)
	}
	if inQuote {
		return nil, fmt.Errorf("unterminated string")
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return l, nil
}

// isCallStart reports whether s starts a generator call: "{" and a generator's name, then a
// blank or "}". Anything else (a JSON object) is literal text.
func isCallStart(s string) bool {
	name := s[1:]
	if i := strings.IndexAny(name, " \t}"); i >= 0 {
		name = name[:i]
	} else {
		return false
	}
	_, ok := argGenerators[name]
	return ok
}

func parseWord(w string) (Word, error) {
	var word Word
	if k, v, ok := strings.Cut(w, "="); ok && k != "" && !strings.ContainsAny(k, `"{[`) {
		word.Key, w = k, v
	}
	for w != "" {
		i := strings.IndexByte(w, '{')
		for i >= 0 && !isCallStart(w[i:]) {
			j := strings.IndexByte(w[i+1:], '{')
			if j < 0 {
				i = -1
				break
			}
			i += 1 + j
		}
		if i < 0 {
			word.Parts = append(word.Parts, Part{Lit: w})
			break
		}
		if i > 0 {
			word.Parts = append(word.Parts, Part{Lit: w[:i]})
		}
		end := strings.IndexByte(w[i:], '}')
		c, err := parseCall(w[i+1 : i+end])
		if err != nil {
			return Word{}, err
		}
		word.Parts = append(word.Parts, Part{Call: c})
		w = w[i+end+1:]
	}
	return word, nil
}

// parseRange reads "A..B" (or "A", meaning A..A) with A <= B.
func parseRange(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "..")
	if !ok {
		b = a
	}
	lo, err := strconv.Atoi(a)
	if err != nil {
		return 0, 0, fmt.Errorf("%q is not a number", a)
	}
	hi, err := strconv.Atoi(b)
	if err != nil {
		return 0, 0, fmt.Errorf("%q is not a number", b)
	}
	if lo > hi {
		return 0, 0, fmt.Errorf("%d..%d: the first bound is larger", lo, hi)
	}
	return lo, hi, nil
}

// LoadSet reads the generator files matched by patterns (files or globs, slash-separated,
// relative to root), in the order listed. A pattern that matches nothing is an error, as
// are two generators with one name.
func LoadSet(root string, patterns []string) ([]*Generator, error) {
	var out []*Generator
	seen := map[string]string{}
	for _, p := range patterns {
		full := filepath.Join(root, filepath.FromSlash(p))
		matches, err := filepath.Glob(full)
		if err != nil {
			return nil, fmt.Errorf("fuzz pattern %q: %w", p, err)
		}
		if len(matches) == 0 {
			return nil, &FileError{Path: full, Err: fmt.Errorf("fuzz pattern %q matches no file", p)}
		}
		for _, m := range matches {
			if prev, ok := seen[filepath.Base(m)]; ok {
				if prev == m {
					continue
				}
				return nil, &FileError{Path: m, Err: fmt.Errorf("generator name %q is taken by %s", strings.TrimSuffix(filepath.Base(m), ".txtar"), prev)}
			}
			seen[filepath.Base(m)] = m
			g, err := Load(m)
			if err != nil {
				return nil, err
			}
			out = append(out, g)
		}
	}
	return out, nil
}

// Largest is the most bytes one value of the generator's cases can hold, read from its text
// alone: a text generator's upper bound ({ascii A..B}, {utf8 A..B}, {bytes A..B} and
// {edge A..B …} draw up to B bytes, {size N ±D} up to 3N+D, {tail NAME N} N), a literal
// string as written ("x"*65536), a word's parts added up. A number, a pick or a name
// ({int}, {one}, {fresh}, {len}) is a few bytes, and a drawn idle or delay moves none. It
// is how a campaign tells cases that move megabytes from cases of a few small frames
// before any runs.
func (g *Generator) Largest() int {
	most := 0
	for _, s := range append([]*Section{g.Setup, g.Finish}, g.Events...) {
		if s == nil {
			continue
		}
		for _, l := range s.Lines {
			for _, w := range l.Words {
				most = max(most, w.largest())
			}
		}
	}
	return most
}

// largest is the most bytes the word's value can hold (Generator.Largest).
func (w Word) largest() int {
	n := 0
	for _, p := range w.Parts {
		switch {
		case p.Call == nil:
			n += litLen(p.Lit)
		case p.Call.gen.text:
			n += p.Call.Hi
		default:
			// A number of at most 20 digits, one of the words listed, or a prefix and a count.
			n += len(strings.Join(p.Call.Args, " ")) + 20
		}
	}
	return n
}

// litLen is how many bytes literal text holds once read as a journey string expression
// ("ab"*3+"c" is 7), without making them; text that is no such expression is as long as it
// is written.
func litLen(lit string) int {
	rest := strings.TrimSuffix(strings.TrimPrefix(lit, "+"), "+")
	n := 0
	for rest != "" {
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return max(n, len(lit))
		}
		s, _ := strconv.Unquote(q)
		rest = rest[len(q):]
		times := 1
		if r, ok := strings.CutPrefix(rest, "*"); ok {
			end := strings.IndexByte(r, '+')
			if end < 0 {
				end = len(r)
			}
			if times, err = strconv.Atoi(r[:end]); err != nil || times < 0 {
				return max(n, len(lit))
			}
			rest = r[end:]
		}
		n += len(s) * times
		rest = strings.TrimPrefix(rest, "+")
	}
	return n
}
