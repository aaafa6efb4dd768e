package infer

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/skewtest/skewtest/internal/after/samples"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// Comparison is where a contract and recorded traffic disagree.
type Comparison struct {
	Recordings, Messages int
	// Unread are the recorded frames the contract cannot read (samples.Decode), grouped by
	// what is wrong.
	Unread []Group
	// NeverFrames, NeverFields and NeverValues are what the contract declares that the
	// traffic never showed: frames per direction ("H>C WriteUnavailable (opcode 17)"),
	// fields of frames it did show ("C>H Ack /bytes"), enum values of fields it did carry
	// (`C>H presence /visibility = "hidden"`).
	NeverFrames, NeverFields, NeverValues []string
	// Broken are the recorded values that break the contract's fields (required, type,
	// enum), grouped by frame, pointer and rule.
	Broken []Group
	// Unlisted are the fields the traffic carries where the contract lists an object's
	// fields but not these: allowed (receivers ignore them), not a disagreement.
	Unlisted []Group
}

// Group is one kind of disagreement and how many frames show it, with the first.
type Group struct {
	What  string
	Count int
	First string // the recording and frame of the first, with the detail
}

// Disagree reports whether the contract and the traffic disagree: a frame the contract
// cannot read, something it declares that the traffic never showed, or a value that breaks
// its fields.
func (c *Comparison) Disagree() bool {
	return len(c.Unread)+len(c.NeverFrames)+len(c.NeverFields)+len(c.NeverValues)+len(c.Broken) > 0
}

// frameKey is a frame of the contract in one direction.
type frameKey struct {
	def *contract.Frame
	dir string
}

// Against compares a contract with recorded traffic: each recording's frames are read with
// c as the pairing's receiver would read them (samples.Decode, with the recording's client
// kind), and what the contract declares is matched with what the frames carried.
func Against(c *contract.Contract, recs []Recording) *Comparison {
	cmp := &Comparison{Recordings: len(recs)}
	var all []transcript.Frame
	for _, r := range recs {
		all = append(all, r.T.Frames...)
	}
	c = samples.OneChannel(c, all) // a byte stream recorded without a path is its one channel's
	unread, broken, unlisted := groups{}, groups{}, groups{}
	seen := map[frameKey]bool{}
	fieldsSeen := map[frameKey]map[string]bool{}
	valuesSeen := map[frameKey]map[string]map[string]bool{}
	for _, r := range recs {
		fs := frames(r.T)
		t, un := samples.Decode(c, fs, r.T.Kind)
		for _, f := range fs {
			if f.Control == "" {
				cmp.Messages++
			}
		}
		paths := map[int]string{}
		for _, f := range fs {
			paths[f.Index] = f.Path
		}
		for _, u := range un {
			var idx int
			fmt.Sscanf(u, "#%d", &idx)
			_, what, _ := strings.Cut(u, " ")
			unread.add(paths[idx]+" "+what, r.Path+" "+u)
		}
		for _, n := range checks.NameFrames(&checks.Input{Transcript: t, Host: c, Client: c}) {
			if n.Control != "" || n.Err != nil || !n.Known || n.Def == nil {
				continue
			}
			k := frameKey{n.Def, n.Dir}
			seen[k] = true
			if fieldsSeen[k] == nil {
				fieldsSeen[k], valuesSeen[k] = map[string]bool{}, map[string]map[string]bool{}
			}
			label := n.Dir + " " + n.Def.Name
			naming := namingKeys(c, n.Path, n.Binary)
			walkFields(n.Decoded.Value, n.Def.Fields, "", fieldsSeen[k], valuesSeen[k], func(ptr string) {
				if !naming[ptr] {
					unlisted.add(label+" "+ptr, fmt.Sprintf("%s #%d", r.Path, n.Index))
				}
			})
			for _, p := range n.Def.CheckFields(n.Decoded.Value) {
				ptr := p.Pointer
				if ptr == "" {
					ptr = "the frame"
				}
				broken.add(fmt.Sprintf("%s %s: %s", label, ptr, p.Rule), fmt.Sprintf("%s #%d: %s", r.Path, n.Index, p))
			}
		}
	}
	cmp.Unread, cmp.Broken, cmp.Unlisted = unread.list(), broken.list(), unlisted.list()
	for i := range c.Channels {
		ch := &c.Channels[i]
		for j := range ch.Frames {
			def := &ch.Frames[j]
			for _, dir := range contract.Directions {
				if !def.Travels(dir) {
					continue
				}
				k := frameKey{def, dir}
				name := dir + " " + def.Name
				if !seen[k] {
					cmp.NeverFrames = append(cmp.NeverFrames, fmt.Sprintf("%s: %s (%s)", ch.Name, name, defKey(def)))
					continue
				}
				declared(def.Fields, "", func(ptr string, fd contract.Field) {
					if !fieldsSeen[k][ptr] {
						cmp.NeverFields = append(cmp.NeverFields, fmt.Sprintf("%s: %s %s", ch.Name, name, ptr))
						return
					}
					for _, e := range fd.Enum {
						if v := jsonText(e); !valuesSeen[k][ptr][v] {
							cmp.NeverValues = append(cmp.NeverValues, fmt.Sprintf("%s: %s %s = %s", ch.Name, name, ptr, v))
						}
					}
				})
			}
		}
	}
	return cmp
}

// namingKeys are the pointers whose values name the JSON frames of a path's messages (a
// discriminator, a pointer): a frame carries them, whether its fields list them or not.
func namingKeys(c *contract.Contract, path string, binary bool) map[string]bool {
	out := map[string]bool{}
	if ch := c.Channel(path); ch != nil {
		if codec := ch.Codec(binary); codec != nil && codec.JSON != nil {
			if codec.JSON.Discriminator != "" {
				out["/"+escapeToken(codec.JSON.Discriminator)] = true
			}
			if codec.JSON.Pointer != "" {
				out[codec.JSON.Pointer] = true
			}
		}
	}
	return out
}

func defKey(f *contract.Frame) string {
	if f.ByOpcode() {
		return fmt.Sprintf("opcode %d", f.Opcode)
	}
	return fmt.Sprintf("type %q", f.Type)
}

// walkFields marks the fields of fields that v carries (pointers, /* for array items) and
// the values they took, and calls unlisted for each key of an object whose fields the
// contract lists that is not one of them.
func walkFields(v any, fields map[string]contract.Field, ptr string, seen map[string]bool, values map[string]map[string]bool, unlisted func(string)) {
	obj, ok := v.(map[string]any)
	if !ok || len(fields) == 0 {
		return
	}
	for k, fv := range obj {
		p := ptr + "/" + escapeToken(k)
		fd, ok := fields[k]
		if !ok {
			unlisted(p)
			continue
		}
		seenValue(fv, &fd, p, seen, values, unlisted)
	}
}

func seenValue(v any, fd *contract.Field, p string, seen map[string]bool, values map[string]map[string]bool, unlisted func(string)) {
	seen[p] = true
	if len(fd.Enum) > 0 {
		if values[p] == nil {
			values[p] = map[string]bool{}
		}
		values[p][jsonText(v)] = true
	}
	walkFields(v, fd.Fields, p, seen, values, unlisted)
	if arr, ok := v.([]any); ok && fd.Items != nil {
		for _, e := range arr {
			seenValue(e, fd.Items, p+"/*", seen, values, unlisted)
		}
	}
}

// declared calls f for every field of fields, depth first by name (array items: /*).
func declared(fields map[string]contract.Field, ptr string, f func(string, contract.Field)) {
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fd := fields[k]
		p := ptr + "/" + escapeToken(k)
		f(p, fd)
		declared(fd.Fields, p, f)
		for it, ip := fd.Items, p+"/*"; it != nil; it, ip = it.Items, ip+"/*" {
			f(ip, *it)
			declared(it.Fields, ip, f)
		}
	}
}

// jsonText is a value as JSON text, numbers as encoding/json writes float64s: the enum
// value 1 and the recorded 1 read the same.
func jsonText(v any) string {
	switch n := v.(type) {
	case int:
		v = float64(n)
	case int64:
		v = float64(n)
	case uint64:
		v = float64(n)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// groups counts disagreements by what they are, keeping the first of each.
type groups map[string]*Group

func (g groups) add(what, first string) {
	if x := g[what]; x != nil {
		x.Count++
		return
	}
	g[what] = &Group{What: what, Count: 1, First: first}
}

func (g groups) list() []Group {
	out := make([]Group, 0, len(g))
	for _, x := range g {
		out = append(out, *x)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].What < out[j].What })
	return out
}

// Write writes the comparison, one section per kind of disagreement, and a last line that
// says whether they disagree.
func (c *Comparison) Write(w io.Writer) error {
	var b strings.Builder
	section := func(title string, n int, lines []string) {
		if n == 0 {
			return
		}
		fmt.Fprintf(&b, "%s (%d):\n", title, n)
		for _, l := range lines {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	grouped := func(gs []Group) []string {
		out := make([]string, len(gs))
		for i, g := range gs {
			out[i] = fmt.Sprintf("%s: %s; first %s", g.What, results.Plural(g.Count, "frame"), g.First)
		}
		return out
	}
	section("traffic the contract cannot read", len(c.Unread), grouped(c.Unread))
	section("frames the contract declares that the traffic never showed", len(c.NeverFrames), c.NeverFrames)
	section("fields the contract declares that the traffic never carried", len(c.NeverFields), c.NeverFields)
	section("enum values the contract declares that the traffic never carried", len(c.NeverValues), c.NeverValues)
	section("values that break the contract's fields", len(c.Broken), grouped(c.Broken))
	section("fields the traffic carries that the contract does not list (allowed: not a disagreement)", len(c.Unlisted), grouped(c.Unlisted))
	verdict := "the contract and the traffic agree"
	if c.Disagree() {
		verdict = fmt.Sprintf("the contract and the traffic disagree: %d unread, %d never shown, %d broken",
			len(c.Unread), len(c.NeverFrames)+len(c.NeverFields)+len(c.NeverValues), len(c.Broken))
	}
	fmt.Fprintf(&b, "%s (%s in %s)\n", verdict, results.Plural(c.Messages, "message"), results.Plural(c.Recordings, "recording"))
	_, err := io.WriteString(w, b.String())
	return err
}
