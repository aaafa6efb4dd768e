package checks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/skewtest/skewtest/contract"
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

// published lists the JSON frames a host published, keyed by name and step, in order.
func published(in *Input) map[string][]occurrence {
	out := map[string][]occurrence{}
	for _, n := range NameFrames(in) {
		if n.Dir != "H>C" || n.Err != nil || n.Decoded.JSON == nil {
			continue
		}
		if n.Decoded.Binary && (n.Def == nil || n.Def.Payload != "json") {
			continue
		}
		o := occurrence{name: n.Name, step: n.Step, fields: map[string]string{}}
		flatten("", n.Decoded.JSON, o.fields)
		if n.Def != nil && len(n.Def.Fields) > 0 {
			// The receiver's contract lists what it reads: only those fields count (an
			// object keyed by names, such as a capability echo, is judged elsewhere).
			want := map[string]bool{}
			listed("", n.Def.Fields, want)
			for ptr := range o.fields {
				if !want[ptr] {
					delete(o.fields, ptr)
				}
			}
		}
		out[n.Name+"@"+n.Step] = append(out[n.Name+"@"+n.Step], o)
	}
	return out
}

// PublishedFieldRemoved compares, occurrence by occurrence (the n-th frame of a name in one
// step), the JSON frames the host published with those the client build's own host published
// in its reference pairing: a field that the older client saw and that is now missing, or
// that changed its value class, breaks it with no codec change. Fields the host adds are
// fine, and so is an older host that lacks fields a newer client's host added: tolerating
// that is the newer client's decoder's job, which the decoder check covers.
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
	sort.Slice(names, func(i, j int) bool {
		_, si, _ := strings.Cut(names[i], "@")
		_, sj, _ := strings.Cut(names[j], "@")
		if a, b := stepIndex(in, si), stepIndex(in, sj); a != b {
			return a < b
		}
		return names[i] < names[j]
	})
	var out []results.Finding
	for _, key := range names {
		name, _, _ := strings.Cut(key, "@")
		for i, old := range was[key] {
			if i >= len(now[key]) {
				break // a missing frame is the sequence check's business
			}
			cur := now[key][i]
			keys := make([]string, 0, len(old.fields))
			for k := range old.fields {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				oldClass := old.fields[k]
				curClass, ok := cur.fields[k]
				var msg string
				switch {
				case !ok:
					msg = fmt.Sprintf("H>C %s #%d of step %s no longer carries %s (%s), which %s's own host published there", name, i+1, cur.step, k, oldClass, t.Client.Label)
				case curClass != oldClass:
					msg = fmt.Sprintf("H>C %s #%d of step %s: %s is now %s; %s's own host published %s", name, i+1, cur.step, k, curClass, t.Client.Label, oldClass)
				default:
					continue
				}
				out = append(out, results.Finding{Kind: results.PublishedFieldRemoved, Step: cur.step, Direction: "H>C",
					Frame: &results.Frame{Name: name}, Message: msg})
			}
		}
	}
	return out
}
