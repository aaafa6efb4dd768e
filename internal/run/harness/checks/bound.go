package checks

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/skewtest/skewtest/results"
)

// The bounds of what a finding says (Bound): a finding is read by a person, in a terminal,
// a summary or a report, and the whole value it quotes is in the pairing's transcript.
const (
	// LineBound is the most bytes a line of a finding's message or detail keeps.
	LineBound = 400
	// DetailLines is the most lines a finding's detail keeps.
	DetailLines = 60
)

// Bound cuts every finding's message and detail to the bounds above, in place, and returns
// fs. A line longer than LineBound keeps its start and end around a note of what was cut
// ("…[99,651 of 100,051 bytes cut: the whole value is in the transcript]…"); a detail of
// more than DetailLines lines keeps its first and last lines around a note of how many were
// cut. Cuts fall between UTF-8 code points. A bounded finding is bounded again unchanged, so
// findings compared across passes (the future-peer pass, recheck) keep their keys.
func Bound(fs []results.Finding) []results.Finding {
	for i := range fs {
		fs[i].Message = boundLines(fs[i].Message, 1<<30)
		fs[i].Detail = boundLines(fs[i].Detail, DetailLines)
	}
	return fs
}

// The shares of a cut line: its start and its end, with the note between them (under 90
// bytes), so that a cut line is within LineBound.
const (
	headBound = 230
	tailBound = 70
)

func boundLines(s string, most int) string {
	if len(s) <= LineBound && !strings.Contains(s, "\n") {
		return s
	}
	lines := strings.Split(s, "\n")
	if len(lines) > most {
		head, tail := most-most/10-1, most/10
		note := fmt.Sprintf("…[%s of %s lines cut: the whole evidence is in the transcript]…", thousands(len(lines)-head-tail), thousands(len(lines)))
		lines = append(append(lines[:head:head], note), lines[len(lines)-tail:]...)
	}
	for i, l := range lines {
		lines[i] = boundLine(l)
	}
	return strings.Join(lines, "\n")
}

func boundLine(l string) string {
	if len(l) <= LineBound {
		return l
	}
	head := l[:runeStart(l, headBound)]
	tail := l[runeStart(l, len(l)-tailBound):]
	cut := len(l) - len(head) - len(tail)
	return head + fmt.Sprintf("…[%s of %s bytes cut: the whole value is in the transcript]…", thousands(cut), thousands(len(l))) + tail
}

// runeStart is the start of the code point at or before byte i of s.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// thousands writes n with commas: 100,051.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
