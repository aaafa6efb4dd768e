package checks

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/results"
)

// occurrence is one published JSON frame: its name, where it appeared and its fields.
type occurrence struct {
	name   string
	step   string
	fields map[string]string // key -> value class
}

// class is a JSON value's class: string, number, boolean, object, array or null.
func class(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return "null"
}

// flatten records every field of an object, at any depth of nested objects, by JSON
// pointer, with its value class (arrays are one field: their elements come and go).
func flatten(prefix string, obj map[string]any, out map[string]string) {
	for k, v := range obj {
		ptr := prefix + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
		out[ptr] = class(v)
		if m, ok := v.(map[string]any); ok {
			flatten(ptr, m, out)
		}
	}
}

// listed records the pointers of a contract's fields, at any depth of nested fields.
func listed(prefix string, fields map[string]contract.Field, out map[string]bool) {
	for k, f := range fields {
		ptr := prefix + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
		out[ptr] = true
		listed(ptr, f.Fields, out)
	}
}

// published lists the JSON frames a host published, by name and step, in order.
func published(in *Input) map[string]map[string][]occurrence {
	out := map[string]map[string][]occurrence{}
	for _, n := range NameFrames(in) {
		if n.Dir != contract.HostToClient || n.Err != nil || n.Decoded.JSON == nil || n.Teardown {
			continue
		}
		if n.Decoded.Binary && (n.Def == nil || n.Def.Payload != "json") {
			continue
		}
		o := occurrence{name: n.Name, step: n.Step, fields: map[string]string{}}
		flatten("", n.Decoded.JSON, o.fields)
		if def := n.Shape(); def != nil && len(def.Fields) > 0 {
			// The receiver's contract lists what it reads: only those fields count (an
			// object keyed by names, such as a capability echo, is judged elsewhere).
			want := map[string]bool{}
			listed("", def.Fields, want)
			for ptr := range o.fields {
				if !want[ptr] {
					delete(o.fields, ptr)
				}
			}
		}
		if out[n.Name] == nil {
			out[n.Name] = map[string][]occurrence{}
		}
		out[n.Name][n.Step] = append(out[n.Name][n.Step], o)
	}
	return out
}

// PublishedFieldRemoved compares, occurrence by occurrence (the n-th frame of a name in one
// step), the JSON frames the host published with those the client build's own host published
// in its reference pairing: a field that the older client saw and that is now missing, or
// that changed its value class, breaks it with no codec change. Fields the host adds are
// fine, and so is an older host that lacks fields a newer client's host added: tolerating
// that is the newer client's decoder's job, which the decoder check covers.
//
// A frame may cross a step boundary (it arrived after its step settled), in this pairing or
// in the reference, so a field is missing only when no frame of the name in the step or the
// steps next to it carries it: the verdict does not depend on where such a frame landed. A
// step with no frame of the name anywhere near is the sequence check's business.
func PublishedFieldRemoved(in *Input) []results.Finding {
	ref := in.Reference
	t := in.Transcript
	if ref == nil || t.Host.Label == t.Client.Label || !in.ClientOlder {
		return nil
	}
	was := published(&Input{Transcript: ref, Journey: in.Journey, Host: in.Client, Client: in.Client})
	now := published(in)
	names := make([]string, 0, len(was))
	for n := range was {
		names = append(names, n)
	}
	sort.Strings(names)
	steps := in.Journey.StepNames()
	type found struct {
		step int
		f    results.Finding
	}
	var out []found
	for _, name := range names {
		for k, step := range steps {
			var near []occurrence // this pairing's frames of the name in the step and next to it
			for j := max(k-1, 0); j <= k+1 && j < len(steps); j++ {
				near = append(near, now[name][steps[j]]...)
			}
			if len(near) == 0 {
				continue
			}
			for i, old := range was[name][step] {
				cur := near[0]
				if i < len(now[name][step]) {
					cur = now[name][step][i]
				}
				keys := make([]string, 0, len(old.fields))
				for k := range old.fields {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, key := range keys {
					oldClass := old.fields[key]
					if curClass, ok := cur.fields[key]; ok && curClass == oldClass {
						continue
					}
					if slices.ContainsFunc(near, func(o occurrence) bool { return o.fields[key] == oldClass }) {
						continue // a frame of the name next to it carries the field: it crossed
					}
					var msg string
					if curClass, ok := cur.fields[key]; !ok {
						msg = fmt.Sprintf("H>C %s #%d of step %s no longer carries %s (%s), which %s's own host published there", name, i+1, cur.step, key, oldClass, t.Client.Label)
					} else {
						msg = fmt.Sprintf("H>C %s #%d of step %s: %s is now %s; %s's own host published %s", name, i+1, cur.step, key, curClass, t.Client.Label, oldClass)
					}
					out = append(out, found{stepIndex(in, cur.step), results.Finding{Kind: results.PublishedFieldRemoved, Step: cur.step, Direction: contract.HostToClient,
						Frame: &results.Frame{Name: name}, Message: msg}})
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].step < out[j].step })
	fs := make([]results.Finding, len(out))
	for i, f := range out {
		fs[i] = f.f
	}
	return fs
}
