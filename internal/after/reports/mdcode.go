package reports

import "strings"

// mdCode writes s as Markdown code that a CommonMark reader gives back as s exactly (a
// repro line to copy), with the separator that goes after a label such as "Repro:". A line
// without line endings is a code span, fenced by a backtick run longer than any in s (so a
// backtick in a label cannot end it early) and padded with a space where CommonMark would
// take one off or a backtick would join the fence. A code span reads a line ending as a
// space, so s with one is a fenced code block on lines of its own, each indented by indent
// (the list item it belongs to). A lone carriage return still reads as a line ending there.
func mdCode(s, indent string) string {
	run := longestRun(s, '`')
	if !strings.ContainsAny(s, "\r\n") {
		fence := strings.Repeat("`", run+1)
		pad := ""
		if s != "" && (s[0] == '`' || s[len(s)-1] == '`' ||
			s[0] == ' ' && s[len(s)-1] == ' ' && strings.Trim(s, " ") != "") {
			pad = " "
		}
		return " " + fence + pad + s + pad + fence
	}
	fence := strings.Repeat("`", max(3, run+1))
	body := strings.ReplaceAll(s, "\n", "\n"+indent)
	return "\n\n" + indent + fence + "\n" + indent + body + "\n" + indent + fence
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] != c {
			n = 0
			continue
		}
		n++
		longest = max(longest, n)
	}
	return longest
}
