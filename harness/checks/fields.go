package checks

import (
	"fmt"
	"sort"

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

// published lists the JSON frames a host published, by name, in order.
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
		for k, v := range n.Decoded.JSON {
			o.fields[k] = class(v)
		}
		out[n.Name] = append(out[n.Name], o)
	}
	return out
}

// PublishedFieldRemoved compares, occurrence by occurrence, the JSON frames the host published
// with those the client build's own host published in its reference pairing: a field that
// old clients saw and that is now missing, or that changed its value class, breaks them with
// no codec change. Fields the host adds are fine.
func PublishedFieldRemoved(in *Input) []results.Finding {
	ref := in.Reference
	t := in.Transcript
	if ref == nil || t.Host.Label == t.Client.Label {
		return nil
	}
	was := published(&Input{Transcript: ref, Journey: in.Journey, Host: in.Client, Client: in.Client})
	now := published(in)
	names := make([]string, 0, len(was))
	for n := range was {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []results.Finding
	for _, name := range names {
		for i, old := range was[name] {
			if i >= len(now[name]) {
				break // a missing frame is the sequence check's business
			}
			cur := now[name][i]
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
					msg = fmt.Sprintf("H>C %s #%d (step %s) no longer carries %s (%s), which %s's own host published there", name, i+1, cur.step, k, oldClass, t.Client.Label)
				case curClass != oldClass:
					msg = fmt.Sprintf("H>C %s #%d (step %s): %s is now %s; %s's own host published %s", name, i+1, cur.step, k, curClass, t.Client.Label, oldClass)
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
