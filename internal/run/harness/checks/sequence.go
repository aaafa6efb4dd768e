package checks

import (
	"fmt"
	"strings"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/results"
)

// run is a stretch of consecutive tapped frames with one label.
type run struct {
	label string
	count int
	step  string
	index int // the first frame's index in the transcript
}

// Sequence returns the tapped frame labels in order, without the frames the journey ignores,
// the frames written during teardown (after the journey ended: they belong to no step), and
// control frames and periodic frames (a contract's keepalives, sent on a timer) the journey
// does not name.
func Sequence(in *Input) []Named {
	// A sealed transcript keeps it for every pairing checked against it (a reference).
	key := sequenceKey{namedKey{in.Host, in.Client, in.Transcript.Kind}, in.Journey}
	return in.Transcript.Derived(key, func() any { return sequence(in) }).([]Named)
}

type sequenceKey struct {
	named   namedKey
	journey *journeys.Journey
}

func sequence(in *Input) []Named {
	ignored := map[string]bool{}
	for _, fl := range in.Journey.Ignore {
		ignored[fl.Dir+" "+fl.Name] = true
	}
	mentioned := map[string]bool{} // control and periodic frames count only where the journey names them
	for _, fl := range in.Journey.Frames {
		mentioned[fl.Name] = true
	}
	var out []Named
	for _, n := range NameFrames(in) {
		switch {
		case ignored[n.Label()], n.Teardown, n.Control != "" && !mentioned[n.Control],
			n.Def != nil && n.Def.Periodic && !mentioned[n.Name]:
		default:
			out = append(out, n)
		}
	}
	return out
}

// SequenceDrift compares the named frame sequence with the journey's expected sequence for
// this pairing and shows the difference as a diff. Each direction is compared on its own:
// a WebSocket orders the frames of one direction, but how the two directions interleave is
// a race between two processes that a tap cannot order. When the journey stalled, only the
// frames seen so far are compared (as a prefix of the expected sequence): the stall is its
// own finding.
func SequenceDrift(in *Input) []results.Finding {
	if len(in.Journey.Frames) == 0 {
		return nil
	}
	seq := Sequence(in)
	want := Expected(in)
	prefix := in.Transcript.Stall != nil || in.Transcript.End != nil || len(in.Transcript.CompletedSteps()) < len(in.Journey.Steps)
	withStep := stepped(in.Journey.Frames)
	same := exactLabel
	if withStep {
		same = lateLabel(in.Journey)
	}
	var details []string
	firstIndex, step := -1, ""
	for _, dir := range []string{contract.ClientToHost, contract.HostToClient} {
		var w []journeys.FrameLine
		for _, fl := range want {
			if fl.Dir == dir {
				w = append(w, fl)
			}
		}
		var got []Named
		var labels []string
		for _, n := range seq {
			if n.Dir == dir {
				got = append(got, n)
				labels = append(labels, frameKey(n, withStep))
			}
		}
		if MatchWith(w, labels, prefix, same) {
			continue
		}
		runs := collapse(got, withStep)
		if prefix {
			w = bestPrefix(w, runs, same)
		}
		diff, first := diff(w, runs, same)
		details = append(details, dir+" frames:\n"+diff)
		if first >= 0 && first < len(runs) && (firstIndex < 0 || runs[first].index < firstIndex) {
			firstIndex, step = runs[first].index, runs[first].step
		}
	}
	if len(details) == 0 {
		return nil
	}
	msg := "frame sequence differs from the journey's expected sequence"
	if step != "" {
		msg += " from step " + step
	}
	return []results.Finding{{Kind: results.SequenceDrift, Step: step, Message: msg, Detail: strings.Join(details, "\n")}}
}

// stepped reports whether the journey's frames section names steps: then a frame matches an
// expected line only in the step the line belongs to.
func stepped(want []journeys.FrameLine) bool {
	for _, w := range want {
		if w.Step != "" {
			return true
		}
	}
	return false
}

// lineKey is what an expected line matches: "H>C Output", or "H>C Output@live-output".
func lineKey(w journeys.FrameLine) string {
	if w.Step == "" {
		return w.Dir + " " + w.Name
	}
	return w.Dir + " " + w.Name + "@" + w.Step
}

// frameKey is what a tapped frame offers to match.
func frameKey(n Named, withStep bool) string {
	if withStep {
		return n.Label() + "@" + n.Step
	}
	return n.Label()
}

func collapse(seq []Named, withStep bool) []run {
	var runs []run
	for _, n := range seq {
		key := frameKey(n, withStep)
		if k := len(runs) - 1; k >= 0 && runs[k].label == key {
			runs[k].count++
			continue
		}
		runs = append(runs, run{label: key, count: 1, step: n.Step, index: n.Index})
	}
	return runs
}

// sameLabel says whether a tapped frame's label ("H>C result", or "H>C result@put" when the
// frames section names steps) matches an expected line's (lineKey).
type sameLabel func(frame, line string) bool

func exactLabel(frame, line string) bool { return frame == line }

// lateLabel matches a frame with a line of its own step or of the step before it: a frame
// that arrived after its step's exchange settled (an asynchronous notification, a second
// acknowledgement) is counted in the next step, and matches its line all the same.
func lateLabel(j *journeys.Journey) sameLabel {
	prev := map[string]string{}
	for i := 1; i < len(j.Steps); i++ {
		prev[j.Steps[i].Name] = j.Steps[i-1].Name
	}
	return func(frame, line string) bool {
		if frame == line {
			return true
		}
		f, l := strings.LastIndexByte(frame, '@'), strings.LastIndexByte(line, '@')
		return f >= 0 && l >= 0 && frame[:f] == line[:l] && prev[frame[f+1:]] == line[l+1:]
	}
}

// Match reports whether labels match the expected lines (with ?, * and + quantifiers).
// With prefix set, labels need only match a prefix of the expected sequence.
func Match(want []journeys.FrameLine, labels []string, prefix bool) bool {
	return MatchWith(want, labels, prefix, exactLabel)
}

// MatchWith is Match with a label comparison of the caller's.
func MatchWith(want []journeys.FrameLine, labels []string, prefix bool, sameAs sameLabel) bool {
	type key struct{ i, j int }
	memo := map[key]bool{}
	var m func(i, j int) bool
	m = func(i, j int) bool {
		k := key{i, j}
		if v, ok := memo[k]; ok {
			return v
		}
		var ok bool
		switch {
		case i == len(labels):
			ok = prefix || restOptional(want[j:])
		case j == len(want):
			ok = false
		default:
			w := want[j]
			same := sameAs(labels[i], lineKey(w))
			switch w.Quant {
			case "":
				ok = same && m(i+1, j+1)
			case "?":
				ok = (same && m(i+1, j+1)) || m(i, j+1)
			case "*":
				ok = (same && m(i+1, j)) || m(i, j+1)
			case "+":
				ok = same && (m(i+1, j) || m(i+1, j+1))
			}
		}
		memo[k] = ok
		return ok
	}
	return m(0, 0)
}

func restOptional(want []journeys.FrameLine) bool {
	for _, w := range want {
		if w.Quant == "" || w.Quant == "+" {
			return false
		}
	}
	return true
}

// bestPrefix cuts the expected lines of a journey that did not finish to the shortest prefix
// that explains the most of what was seen, so the diff does not list every frame the
// unfinished steps would have sent.
func bestPrefix(want []journeys.FrameLine, runs []run, same sameLabel) []journeys.FrameLine {
	best, cut := -1, len(want)
	for k := 0; k <= len(want); k++ {
		if n := lcsLen(spans(want[:k]), runs, same); n > best {
			best, cut = n, k
		}
	}
	return want[:cut]
}

func lcsLen(exp []span, runs []run, same sameLabel) int {
	prev := make([]int, len(runs)+1)
	for i := len(exp) - 1; i >= 0; i-- {
		cur := make([]int, len(runs)+1)
		for j := len(runs) - 1; j >= 0; j-- {
			if exp[i].fits(runs[j], same) {
				cur[j] = prev[j+1] + 1
			} else {
				cur[j] = max(prev[j], cur[j+1])
			}
		}
		prev = cur
	}
	return prev[0]
}

// span is a stretch of consecutive expected lines with one label, as counts: min and max
// occurrences (max < 0: unbounded).
type span struct {
	label    string
	min, max int
}

func (s span) String() string {
	label, step, _ := strings.Cut(s.label, "@")
	var q string
	switch {
	case s.min == s.max && s.min == 1:
	case s.min == s.max:
		q = fmt.Sprintf(" ×%d", s.min)
	case s.max < 0 && s.min == 0:
		q = "*"
	case s.max < 0 && s.min == 1:
		q = "+"
	case s.max < 0:
		q = fmt.Sprintf(" ×%d+", s.min)
	case s.min == 0 && s.max == 1:
		q = "?"
	default:
		q = fmt.Sprintf(" ×%d..%d", s.min, s.max)
	}
	if step != "" {
		return label + q + "  [" + step + "]"
	}
	return label + q
}

func (s span) fits(r run, same sameLabel) bool {
	return same(r.label, s.label) && r.count >= s.min && (s.max < 0 || r.count <= s.max)
}

// spans merges consecutive expected lines with the same label.
func spans(want []journeys.FrameLine) []span {
	var out []span
	for _, w := range want {
		lo, hi := 1, 1
		switch w.Quant {
		case "?":
			lo = 0
		case "*":
			lo, hi = 0, -1
		case "+":
			hi = -1
		}
		label := lineKey(w)
		if k := len(out) - 1; k >= 0 && out[k].label == label {
			out[k].min += lo
			if out[k].max >= 0 && hi >= 0 {
				out[k].max += hi
			} else {
				out[k].max = -1
			}
			continue
		}
		out = append(out, span{label, lo, hi})
	}
	return out
}

// Diff renders expected lines against tapped runs, LCS-aligned: "  " both, "- " expected but
// not seen, "+ " seen but not expected. Consecutive frames of one name are compared as a
// run with a count. It returns the index of the first run that is not where it was expected
// (or -1).
func Diff(want []journeys.FrameLine, runs []run) (string, int) { return diff(want, runs, exactLabel) }

func diff(want []journeys.FrameLine, runs []run, same sameLabel) (string, int) {
	exp := spans(want)
	n, m := len(exp), len(runs)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if exp[i].fits(runs[j], same) {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var b strings.Builder
	first := -1
	show := func(r run) string {
		label, step, _ := strings.Cut(r.label, "@")
		if r.count > 1 {
			label = fmt.Sprintf("%s ×%d", label, r.count)
		}
		if step == "" {
			step = r.step
		}
		return label + "  [" + step + "]"
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && exp[i].fits(runs[j], same):
			fmt.Fprintf(&b, "  %s\n", show(runs[j]))
			i, j = i+1, j+1
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			fmt.Fprintf(&b, "+ %s\n", show(runs[j]))
			if first < 0 {
				first = j
			}
			j++
		default:
			if exp[i].min > 0 {
				fmt.Fprintf(&b, "- %s\n", exp[i])
				if first < 0 {
					first = min(j, m-1)
				}
			}
			i++
		}
	}
	return strings.TrimRight(b.String(), "\n"), first
}
