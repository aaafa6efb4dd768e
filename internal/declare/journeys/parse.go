package journeys

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/skewtest/skewtest/internal/declare/contract"
)

// Load reads a journey file.
func Load(path string) (*Journey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	return Parse(path, data)
}

// FileError is a journey file that cannot be read.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return fmt.Sprintf("journey %s: %v", e.Path, e.Err) }
func (e *FileError) Unwrap() error { return e.Err }

// UserMistake marks a journey file that cannot be read as the user's to fix (usage.Mistake).
func (*FileError) UserMistake() {}

// byteOrderMark is UTF-8's byte-order mark, which Windows editors write at the start of a
// text file.
const byteOrderMark = "\ufeff"

// Parse reads a journey file. file names it in errors. A byte-order mark at its start is
// not part of the journey.
func Parse(file string, data []byte) (*Journey, error) {
	data = bytes.TrimPrefix(data, []byte(byteOrderMark))
	ar, err := parseArchive(file, data)
	if err != nil {
		return nil, err
	}
	j := &Journey{Name: strings.TrimSuffix(filepath.Base(file), ".txtar"), File: file}
	if err := j.parseHeader(ar.Comment); err != nil {
		return nil, err
	}
	// Files start after the header; count lines to report file:line.
	line := 1 + bytes.Count(ar.Comment, []byte("\n"))
	seen := map[string]bool{}
	for _, f := range ar.Files {
		line++ // the "-- name --" marker
		if seen[f.Name] {
			return nil, &SyntaxError{file, line - 1, fmt.Sprintf("section %q appears twice", f.Name)}
		}
		seen[f.Name] = true
		var err error
		switch f.Name {
		case "script":
			err = j.parseScript(f.Data, line)
		case "frames":
			err = j.parseFrames(f.Data, line)
		default:
			err = &SyntaxError{file, line - 1, fmt.Sprintf("unknown section %q (want script or frames)", f.Name)}
		}
		if err != nil {
			return nil, err
		}
		line += bytes.Count(f.Data, []byte("\n"))
	}
	if !seen["script"] {
		return nil, &SyntaxError{file, 1, "no -- script -- section"}
	}
	if len(j.Steps) == 0 {
		return nil, &SyntaxError{file, 1, "the script has no step"}
	}
	if len(j.Kinds) == 0 {
		return nil, &SyntaxError{file, 1, "no kind line: say which client kinds the journey drives (kind desktop, kind desktop,mobile or kind *)"}
	}
	return j, nil
}

func (j *Journey) errorf(line int, format string, args ...any) error {
	return &SyntaxError{j.File, line, fmt.Sprintf(format, args...)}
}

func (j *Journey) parseHeader(data []byte) error {
	var desc []string
	for i, text := range Lines(data) {
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
				kinds, err := parseKinds(val)
				if err != nil {
					return j.errorf(n, "%v", err)
				}
				j.Kinds = kinds
			case "timeout", "quiet":
				d, err := time.ParseDuration(val)
				if err != nil || d <= 0 {
					return j.errorf(n, "%s %q is not a positive duration such as 10s", key, val)
				}
				if key == "timeout" {
					j.Timeout = d
				} else {
					j.Quiet = d
				}
			case "settle":
				if val == "none" {
					j.Unsettled = true
					continue
				}
				d, err := time.ParseDuration(val)
				if err != nil || d < 0 {
					return j.errorf(n, "settle %q is not a duration such as 50ms (0 turns the quiet period off; none ends each step without waiting)", val)
				}
				j.Settle = d
				if d == 0 {
					j.Settle = -1
				}
			case "channel":
				if val == "" || strings.ContainsAny(val, " \t") {
					return j.errorf(n, "channel %q: want the name of one channel of the contracts (channel NAME)", val)
				}
				if j.ChannelLine != 0 {
					return j.errorf(n, "a second channel line (the first is line %d): a journey's conditions are about one channel", j.ChannelLine)
				}
				j.Channel, j.ChannelLine = val, n
			default:
				return j.errorf(n, "unknown header line %q (want kind, timeout, quiet, settle or channel, or # comments)", key)
			}
		}
	}
	j.Description = strings.Join(desc, "\n")
	return nil
}

func (j *Journey) parseScript(data []byte, first int) error {
	names := map[string]int{}
	for i, text := range Lines(data) {
		n := first + i
		t := strings.TrimSpace(text)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		conds, rest, err := parseConds(t)
		if err != nil {
			return j.errorf(n, "%v", err)
		}
		words, err := splitWords(rest)
		if err != nil {
			return j.errorf(n, "%v", err)
		}
		if len(words) == 0 {
			return j.errorf(n, "a condition needs a command after it")
		}
		if words[0] == "step" {
			if len(conds) > 0 {
				return j.errorf(n, "a step cannot be conditional; put the condition on its commands")
			}
			if len(words) != 2 {
				return j.errorf(n, "step needs exactly one name")
			}
			if prev, ok := names[words[1]]; ok {
				return j.errorf(n, "step %q already defined at line %d", words[1], prev)
			}
			names[words[1]] = n
			j.Steps = append(j.Steps, Step{Name: words[1], Line: n})
			continue
		}
		if len(j.Steps) == 0 {
			return j.errorf(n, "command before the first step line")
		}
		c := Command{Line: n, Conds: conds, Verb: words[0]}
		for _, w := range words[1:] {
			if k, v, ok := strings.Cut(w, "="); ok && k != "" && !strings.ContainsAny(k, `"`) {
				val, err := evalValue(v)
				if err != nil {
					return j.errorf(n, "%s: %v", k, err)
				}
				c.Args = append(c.Args, Arg{Key: k, Value: val, Quoted: strings.HasPrefix(v, `"`)})
				continue
			}
			val, err := evalValue(w)
			if err != nil {
				return j.errorf(n, "%v", err)
			}
			c.Args = append(c.Args, Arg{Value: val})
		}
		s := &j.Steps[len(j.Steps)-1]
		s.Commands = append(s.Commands, c)
	}
	return nil
}

func (j *Journey) parseFrames(data []byte, first int) error {
	step := ""
	steps := map[string]int{}
	for i, s := range j.Steps {
		steps[s.Name] = i
	}
	for i, text := range Lines(data) {
		n := first + i
		t := strings.TrimSpace(text)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if name, ok := strings.CutPrefix(t, "step "); ok {
			name = strings.TrimSpace(name)
			at, known := steps[name]
			switch {
			case len(j.Steps) == 0:
				return j.errorf(n, "step lines in frames need the script section first")
			case !known:
				return j.errorf(n, "frames: no step %q in the script", name)
			case step != "" && at < steps[step]:
				return j.errorf(n, "frames: step %q comes before step %q in the script", name, step)
			}
			step = name
			continue
		}
		conds, rest, err := parseConds(t)
		if err != nil {
			return j.errorf(n, "%v", err)
		}
		ignore := false
		if after, ok := strings.CutPrefix(rest, "ignore "); ok {
			ignore, rest = true, strings.TrimSpace(after)
		}
		dir, name, ok := strings.Cut(rest, " ")
		if !ok || (dir != contract.ClientToHost && dir != contract.HostToClient) {
			return j.errorf(n, "frame line %q: want DIRECTION NAME, such as H>C Delta", rest)
		}
		name = strings.TrimSpace(name)
		fl := FrameLine{Line: n, Conds: conds, Dir: dir, Step: step}
		if k := len(name) - 1; k > 0 && strings.ContainsRune("?*+", rune(name[k])) {
			fl.Quant, name = name[k:], name[:k]
		}
		if name == "" || strings.ContainsAny(name, " \t") {
			return j.errorf(n, "frame name %q must be one word", name)
		}
		fl.Name = name
		if ignore {
			fl.Step = ""
			if fl.Quant != "" || len(conds) > 0 {
				return j.errorf(n, "ignore takes a plain frame name without quantifier or condition")
			}
			j.Ignore = append(j.Ignore, fl)
			continue
		}
		j.Frames = append(j.Frames, fl)
	}
	return nil
}

// parseKinds reads a kind line's value: "*" (every kind) or kinds separated by commas.
func parseKinds(val string) ([]string, error) {
	if val == "" {
		return nil, fmt.Errorf("kind needs a client kind (kind desktop), several (kind desktop,mobile) or * (every kind)")
	}
	if val == AnyKind {
		return []string{AnyKind}, nil
	}
	var out []string
	for _, k := range strings.Split(val, ",") {
		k = strings.TrimSpace(k)
		switch {
		case k == "":
			return nil, fmt.Errorf("kind %q has an empty name between commas", val)
		case k == AnyKind:
			return nil, fmt.Errorf("kind %q: * stands alone (every kind)", val)
		case strings.ContainsAny(k, " \t"):
			return nil, fmt.Errorf("kind %q: separate kinds with commas, not blanks (kind desktop,mobile)", val)
		case slices.Contains(out, k):
			return nil, fmt.Errorf("kind %q names %s twice", val, k)
		}
		out = append(out, k)
	}
	return out, nil
}

// Lines splits data into lines without their "\n" (or "\r\n"); a last line without a
// newline counts, an empty data has none.
func Lines(data []byte) []string {
	out := make([]string, 0, bytes.Count(data, []byte("\n"))+1)
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		out = append(out, string(bytes.TrimSuffix(line, []byte("\r"))))
	}
	return out
}

// parseConds strips leading [cond] [!cond] words.
func parseConds(t string) ([]Cond, string, error) {
	var conds []Cond
	for strings.HasPrefix(t, "[") {
		end := strings.IndexByte(t, ']')
		if end < 0 {
			return nil, "", fmt.Errorf("unclosed condition %q", t)
		}
		name := strings.TrimSpace(t[1:end])
		c := Cond{}
		if strings.HasPrefix(name, "!") {
			c.Not, name = true, strings.TrimSpace(name[1:])
		}
		if name == "" {
			return nil, "", fmt.Errorf("empty condition []")
		}
		c.Name = name
		conds = append(conds, c)
		t = strings.TrimSpace(t[end+1:])
	}
	return conds, t, nil
}

// splitWords splits a line on blanks, keeping double-quoted strings (with Go escapes) whole.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inQuote, esc, have := false, false, false
	for _, r := range s {
		switch {
		case esc:
			cur.WriteRune(r)
			esc = false
		case inQuote && r == '\\':
			cur.WriteRune(r)
			esc = true
		case r == '"':
			cur.WriteRune(r)
			inQuote = !inQuote
			have = true
		case !inQuote && (r == ' ' || r == '\t'):
			if have {
				words = append(words, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if inQuote {
		return nil, fmt.Errorf("unterminated string")
	}
	if have {
		words = append(words, cur.String())
	}
	return words, nil
}

// evalValue turns a written value into its text. A value is a bare word, or one or more
// parts joined by +, each a Go-quoted string optionally repeated with *N:
//
//	text="HEAD"+"x"*65536+"TAIL\r\n"
func evalValue(v string) (string, error) {
	if !strings.HasPrefix(v, `"`) {
		return v, nil
	}
	var out strings.Builder
	rest := v
	for rest != "" {
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return "", fmt.Errorf("bad string %s: %v", rest, err)
		}
		s, _ := strconv.Unquote(q)
		rest = rest[len(q):]
		times := 1
		if strings.HasPrefix(rest, "*") {
			end := strings.IndexByte(rest, '+')
			if end < 0 {
				end = len(rest)
			}
			n, err := strconv.Atoi(rest[1:end])
			if err != nil || n < 0 || n > 64<<20 {
				return "", fmt.Errorf("repeat count %q is not a number up to %d", rest[1:end], 64<<20)
			}
			times, rest = n, rest[end:]
		}
		out.WriteString(strings.Repeat(s, times))
		if rest == "" {
			break
		}
		if !strings.HasPrefix(rest, "+") {
			return "", fmt.Errorf("want + or the end after a string, found %q", rest)
		}
		rest = rest[1:]
		if !strings.HasPrefix(rest, `"`) {
			return "", fmt.Errorf("want a quoted string after +, found %q", rest)
		}
	}
	return out.String(), nil
}

// parseArchive splits a journey file into its sections. txtar.Parse panics on a marker line
// without a name ("-- --", found by FuzzParse): such a line is a syntax error at its line.
func parseArchive(file string, data []byte) (ar *txtar.Archive, err error) {
	for i, l := range bytes.Split(data, []byte("\n")) {
		if string(bytes.TrimSuffix(l, []byte("\r"))) == "-- --" {
			return nil, &SyntaxError{file, i + 1, `a section marker without a name (want -- script -- or -- frames --)`}
		}
	}
	defer func() {
		if r := recover(); r != nil { // another line txtar cannot read: an error, never a crash
			ar, err = nil, &SyntaxError{file, 1, fmt.Sprintf("cannot split the file into sections: %v", r)}
		}
	}()
	return txtar.Parse(data), nil
}
