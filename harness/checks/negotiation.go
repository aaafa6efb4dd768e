package checks

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/skewtest/skewtest/contract"
	"github.com/skewtest/skewtest/harness/transcript"
)

// Negotiated returns what this pairing negotiated: the names found, at the end of the
// journey, where the contracts say negotiation is reported (each channel's negotiation
// sources: a client observation or a frame, and a JSON pointer). Each source counts with its
// latest report.
func Negotiated(in *Input) map[string]bool { return negotiatedIn(Echoes(in), nil) }

// negotiatedIn merges the latest report of each source; with scope set, only the reports
// for that sub-channel.
func negotiatedIn(echoes []Echo, scope *string) map[string]bool {
	latest := map[string]Echo{}
	for _, e := range echoes {
		switch {
		case scope == nil && e.Latest:
			latest[e.Source+"\x00"+e.Scope] = e
		case scope != nil && e.Scope == *scope:
			latest[e.Source] = e
		}
	}
	out := map[string]bool{}
	for _, e := range latest {
		for n := range e.Names {
			out[n] = true
		}
	}
	return out
}

// Echo is one report of what was negotiated: from which source, in which step, which names,
// and for which sub-channel.
type Echo struct {
	Source string // the observation or frame name
	Step   string
	Names  map[string]bool
	Scope  string // the value at the channel's scope pointer, "" without a scope
	Latest bool   // the last report of its source (and scope)
}

// Echoes lists every negotiation report of the pairing, in transcript order. The sources are
// the client contract's declarations for the channels the journey used (else the host's).
func Echoes(in *Input) []Echo {
	// A sealed transcript keeps them for every check and pairing that reads it.
	return in.Transcript.Derived(echoesKey{in.Host, in.Client}, func() any { return echoes(in) }).([]Echo)
}

type echoesKey struct{ host, client *contract.Contract }

func echoes(in *Input) []Echo {
	var out []Echo
	for _, ch := range usedChannels(in) {
		for _, src := range ch.Negotiation {
			var found []Echo
			if src.Observation != "" {
				for _, o := range in.Transcript.Observations {
					if o.Role != transcript.Client || o.What != src.Observation {
						continue
					}
					data, ok := o.Value()
					if !ok || !whereMatches(data, src.Where) {
						continue
					}
					found = append(found, echoAt(src.Observation, o.Step, data, src.Pointer, ch.Scope))
				}
			} else {
				for _, n := range NameFrames(in) {
					if n.Name != src.Frame || n.Dir != src.Dir || n.Decoded.Value == nil {
						continue
					}
					if _, ok := contract.Resolve(n.Decoded.Value, src.Pointer); !ok {
						continue
					}
					found = append(found, echoAt(src.Frame, n.Step, n.Decoded.Value, src.Pointer, ch.Scope))
				}
			}
			last := map[string]int{}
			for i, e := range found {
				last[e.Scope] = i
			}
			for i := range found {
				found[i].Latest = last[found[i].Scope] == i
			}
			out = append(out, found...)
		}
	}
	return out
}

func echoAt(source, step string, data any, ptr string, scope *contract.Scope) Echo {
	e := Echo{Source: source, Step: step, Names: map[string]bool{}}
	v, _ := contract.Resolve(data, ptr)
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if truthy(x) {
				e.Names[k] = true
			}
		}
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok {
				e.Names[s] = true
			}
		}
	}
	if scope != nil {
		e.Scope = scopeValue(data, scope.Pointer)
	}
	return e
}

// scopeValue reads a sub-channel's name at ptr as text.
func scopeValue(data any, ptr string) string {
	v, ok := contract.Resolve(data, ptr)
	if !ok || v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case float64:
		return v != 0
	case string:
		return v != ""
	}
	return true
}

// usedChannels returns the client contract's channels for every path the journey's
// connections used (the host's where the client has none), once each.
func usedChannels(in *Input) []*contract.Channel {
	var out []*contract.Channel
	seen := map[string]bool{}
	add := func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		if ch := channelFor(in.Client, in.Host, p); ch != nil && !slices.Contains(out, ch) {
			out = append(out, ch)
		}
	}
	for _, c := range in.Transcript.Conns {
		add(c.Path)
	}
	for _, f := range in.Transcript.Frames {
		add(f.Path)
	}
	return out
}

// whereMatches reports whether an observation's data (decoded) has every top-level value of
// where (compared as JSON values; a where value's text matches a string field too).
func whereMatches(data any, where map[string]any) bool {
	if len(where) == 0 {
		return true
	}
	m, ok := data.(map[string]any)
	if !ok {
		return false
	}
	for k, want := range where {
		got, ok := m[k]
		if !ok {
			return false
		}
		gs, gok := got.(string)
		ws, wok := want.(string)
		if gok && wok {
			if gs != ws {
				return false
			}
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			return false
		}
	}
	return true
}
