package infer

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/skewtest/skewtest/results"
)

// Report writes the draft's companion report: that it is a draft, what it was drafted from,
// every guess with the frames that support it, and whether the draft reads every recorded
// frame.
func (r *Result) Report(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "DRAFT contract inferred from %s in %s of %s: review every guess before use\n",
		results.Plural(r.Messages, "message"), results.Plural(r.Recordings, "recording"), strings.Join(r.Builds, ", "))
	b.WriteString("not inferred: the protocol window, capabilities, features, gates, negotiation, client kinds, commands, invariants\n")
	for _, ch := range r.channels {
		fmt.Fprintf(&b, "\nchannel %s: %s (%s)\n", ch.Name, strings.Join(ch.Paths, ", "), results.Plural(ch.messages, "message"))
		for _, c := range []struct {
			what string
			c    *codec
		}{{"text", ch.Text}, {"binary", ch.Binary}} {
			if c.c == nil {
				continue
			}
			kind := "JSON"
			if c.c.Header != nil {
				kind = "a fixed header found by byte statistics"
			}
			fmt.Fprintf(&b, "  %s messages (%d): %s\n", c.what, c.c.messages, kind)
			for _, s := range c.c.how {
				fmt.Fprintf(&b, "    %s\n", s)
			}
		}
		b.WriteString("  frames:\n")
		for _, f := range ch.Frames {
			what := ""
			if f.Opcode != nil {
				what = fmt.Sprintf(" (opcode %d)", *f.Opcode)
			}
			fmt.Fprintf(&b, "    %s %s%s: %s; payload %s: %s", f.Direction, f.Name, what, results.Plural(f.count, "frame"), f.Payload, f.payload)
			if len(f.kinds) > 0 {
				fmt.Fprintf(&b, "; seen with %s", kinds(f.kinds))
			}
			b.WriteString("\n")
			for _, l := range flatten(f.Fields, "") {
				fmt.Fprintf(&b, "      %s: %s\n", l.pointer, l.f.describe())
			}
		}
	}
	b.WriteString("\n")
	if len(r.Unread) == 0 {
		fmt.Fprintf(&b, "the draft reads every frame of the %s it was drafted from\n", results.Plural(r.Messages, "message"))
	} else {
		fmt.Fprintf(&b, "the draft does not read %s it was drafted from (a shape these guesses do not cover):\n", results.Plural(len(r.Unread), "frame"))
		for _, u := range r.Unread {
			fmt.Fprintf(&b, "  %s\n", u)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// describe is a field's guesses with their support.
func (f *field) describe() string {
	var parts []string
	if f.Type != "" {
		parts = append(parts, f.Type)
	} else {
		parts = append(parts, "of several types")
	}
	switch {
	case f.item:
		parts = append(parts, results.Plural(f.present, "item"))
	case f.Required:
		parts = append(parts, fmt.Sprintf("required (%d of %d)", f.present, f.of))
	default:
		parts = append(parts, fmt.Sprintf("optional (%d of %d)", f.present, f.of))
	}
	if len(f.Enum) > 0 {
		vs := make([]string, len(f.Enum))
		for i, e := range f.Enum {
			vs[i] = fmt.Sprintf("%s ×%d", strconv.Quote(e), f.counts[e])
		}
		parts = append(parts, "enum "+strings.Join(vs, ", "))
	}
	switch {
	case f.manyKeys:
		parts = append(parts, fmt.Sprintf("a map (more than %d keys): its keys not listed", maxKeys))
	case f.mapLike:
		parts = append(parts, "a map (its keys vary, its values are alike): none of its keys required")
	}
	return strings.Join(parts, ", ")
}

// kinds is "desktop ×30, mobile ×10".
func kinds(m map[string]int) string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for i, k := range ks {
		ks[i] = fmt.Sprintf("%s clients ×%d", k, m[k])
	}
	return strings.Join(ks, ", ")
}
