package checks

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
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
	var r NegotiationReader
	return r.Echoes(in, func() []Named { return NameFrames(in) })
}

// NegotiationReader finds a pairing's negotiation reports as its transcript grows, reading
// each observation and named frame once: a journey's conditions ask after every event, and
// reading the whole transcript each time made a long journey quadratic. A zero reader is
// ready; use one per transcript, whose observations and frames are only ever appended.
type NegotiationReader struct {
	paths   map[string]bool
	conns   int // Conns read for the channels used
	frames  int // Frames read for the channels used
	sources []*echoSource
}

// echoSource is one negotiation source of a used channel, and what of it is read so far.
type echoSource struct {
	ch     *contract.Channel
	src    contract.Negotiation
	obs    int // observations read
	named  int // named frames read
	found  []Echo
	latest []Echo // found, with Latest set (nil when found grew since)
}

// Echoes returns every negotiation report so far, as Echoes does; named returns the
// transcript's frames named so far, in order (only ever appended to between calls), and is
// called only when a source is a frame.
func (r *NegotiationReader) Echoes(in *Input, named func() []Named) []Echo {
	t := in.Transcript
	for ; r.conns < len(t.Conns); r.conns++ {
		r.use(in, t.Conns[r.conns].Path)
	}
	for ; r.frames < len(t.Frames); r.frames++ {
		r.use(in, t.Frames[r.frames].Path)
	}
	var out []Echo
	for _, s := range r.sources {
		n := len(s.found)
		if s.src.Observation != "" {
			for ; s.obs < len(t.Observations); s.obs++ {
				o := t.Observations[s.obs]
				if o.Role != transcript.Client || o.What != s.src.Observation {
					continue
				}
				data, ok := o.Value()
				if !ok || !whereMatches(data, s.src.Where) {
					continue
				}
				s.found = append(s.found, echoAt(s.src.Observation, o.Step, data, s.src.Pointer, s.ch.Scope))
			}
		} else {
			named := named()
			for ; s.named < len(named); s.named++ {
				n := named[s.named]
				if n.Name != s.src.Frame || n.Dir != s.src.Dir || n.Decoded.Value == nil {
					continue
				}
				if _, ok := contract.Resolve(n.Decoded.Value, s.src.Pointer); !ok {
					continue
				}
				s.found = append(s.found, echoAt(s.src.Frame, n.Step, n.Decoded.Value, s.src.Pointer, s.ch.Scope))
			}
		}
		if s.latest == nil || len(s.found) != n {
			s.latest = slices.Clone(s.found)
			last := map[string]int{}
			for i, e := range s.latest {
				last[e.Scope] = i
			}
			for i := range s.latest {
				s.latest[i].Latest = last[s.latest[i].Scope] == i
			}
		}
		out = append(out, s.latest...)
	}
	return out
}

// Negotiated is Negotiated(in) from what the reader has read (Echoes).
func (r *NegotiationReader) Negotiated(in *Input, named func() []Named) map[string]bool {
	return negotiatedIn(r.Echoes(in, named), nil)
}

// use adds the sources of the channel that serves path, the first time a path is seen (the
// client contract's channel, else the host's: usedChannels).
func (r *NegotiationReader) use(in *Input, p string) {
	if r.paths[p] {
		return
	}
	if r.paths == nil {
		r.paths = map[string]bool{}
	}
	r.paths[p] = true
	ch := channelFor(in.Client, in.Host, p)
	if ch == nil || slices.ContainsFunc(r.sources, func(s *echoSource) bool { return s.ch == ch }) {
		return
	}
	for _, src := range ch.Negotiation {
		r.sources = append(r.sources, &echoSource{ch: ch, src: src})
	}
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
