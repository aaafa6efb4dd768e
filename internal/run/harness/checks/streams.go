package checks

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

// Item is one value an endpoint of a declared stream carried.
type Item struct {
	Value []byte
	ID    string
	Step  string
	// From is where Value starts in a cumulative stream's accumulated value (the endpoint's
	// From pointer); 0: Value is the whole.
	From int
}

// stream is a declared stream with both ends resolved for this pairing: the sending role's
// build says where it reports what it sent, the receiving role's build where it reports what
// it delivered, so an observation renamed between releases is read right on each side.
type stream struct {
	name            string
	compare         string
	sent, delivered contract.Endpoint
}

// contractOf returns the contract of the build playing role.
func (in *Input) contractOf(role string) *contract.Contract {
	if role == contract.RoleHost {
		return in.Host
	}
	return in.Client
}

// Streams returns the streams either contract declares, each end from the contract of the
// build playing that end's role (else the other contract's declaration), in declaration
// order, host contract's first.
func Streams(in *Input) []stream {
	var out []stream
	seen := map[string]bool{}
	for _, c := range []*contract.Contract{in.Host, in.Client} {
		if c == nil {
			continue
		}
		for _, decl := range c.Streams {
			if seen[decl.Name] || !decl.AppliesTo(in.Transcript.Kind) {
				continue
			}
			seen[decl.Name] = true
			s := stream{name: decl.Name, compare: decl.Compare, sent: decl.Sent, delivered: decl.Delivered}
			if own := in.contractOf(decl.Sent.Role).Stream(decl.Name); own != nil {
				s.sent = own.Sent
			}
			if own := in.contractOf(decl.Delivered.Role).Stream(decl.Name); own != nil {
				s.delivered = own.Delivered
			}
			out = append(out, s)
		}
	}
	return out
}

// Values lists what an endpoint carried, in order: its observations' values, or the
// successful actions' arguments (what the journey made a driver send).
func Values(t *transcript.Transcript, e contract.Endpoint) []Item {
	var out []Item
	forEachValue(t, e, 0, true, func(_ int, items []Item) { out = append(out, items...) })
	return out
}

// forEachValue calls f with the items of every observation (or successful action) of
// endpoint e from position from on, and with the position after it. With keep, an
// observation's items are derived once and kept on it (observedItems), for a reader that
// comes back to them; without, they are decoded for f alone and kept by nobody but f (a
// fold, which reads each value once and keeps only what it accumulates: a terminal's
// whole-screen snapshots, kept decoded beside their text, would weigh megabytes each).
func forEachValue(t *transcript.Transcript, e contract.Endpoint, from int, keep bool, f func(next int, items []Item)) {
	role := transcript.Role(e.Role)
	if len(e.Actions) > 0 {
		for i := from; i < len(t.Actions); i++ {
			if a := t.Actions[i]; a.Role == role && a.OK && e.Carries(a.Name, true) {
				v, ok := decodeJSON(a.Args)
				f(i+1, itemsOf(v, ok, a.Step, e))
			}
		}
		return
	}
	key := keyOf(e)
	for i := from; i < len(t.Observations); i++ {
		if o := t.Observations[i]; o.Role == role && e.Carries(o.What, false) {
			if keep {
				f(i+1, observedItems(o, e, key))
				continue
			}
			v, ok := o.Value()
			f(i+1, itemsOf(v, ok, o.Step, e))
		}
	}
}

// itemsKey names what itemsOf reads of an observation for an endpoint: the items of one
// observation are derived once per endpoint (transcript.Observation.Derive).
type itemsKey struct {
	pointer, encoding, id, each, from, where string
}

func keyOf(e contract.Endpoint) itemsKey {
	k := itemsKey{pointer: e.ValuePointer(), encoding: e.Encoding, id: e.ID, each: e.Each, from: e.From}
	if len(e.Where) > 0 {
		k.where = fmt.Sprintf("%#v", e.Where) // maps print with their keys sorted, and types
	}
	return k
}

// observedItems is itemsOf an observation for endpoint e (named by key), derived once per
// observation and endpoint: callers must not modify the items or their values.
func observedItems(o transcript.Observation, e contract.Endpoint, key itemsKey) []Item {
	return o.Derive(key, func() any {
		v, ok := o.Value()
		return itemsOf(v, ok, o.Step, e)
	}).([]Item)
}

// lastWhole is the position of the last observation (or successful action) of endpoint e
// that carries a whole value (an item with From 0), found from the end; 0 when none does.
func lastWhole(t *transcript.Transcript, e contract.Endpoint) int {
	role := transcript.Role(e.Role)
	whole := func(items []Item) bool {
		return slices.ContainsFunc(items, func(it Item) bool { return it.From == 0 })
	}
	if len(e.Actions) > 0 {
		for i := len(t.Actions) - 1; i >= 0; i-- {
			if a := t.Actions[i]; a.Role == role && a.OK && e.Carries(a.Name, true) {
				if v, ok := decodeJSON(a.Args); whole(itemsOf(v, ok, a.Step, e)) {
					return i
				}
			}
		}
		return 0
	}
	for i := len(t.Observations) - 1; i >= 0; i-- {
		if o := t.Observations[i]; o.Role == role && e.Carries(o.What, false) {
			if v, ok := o.Value(); whole(itemsOf(v, ok, o.Step, e)) {
				return i // read by a fold, which decodes it again and keeps no copy
			}
		}
	}
	return 0
}

func decodeJSON(data json.RawMessage) (any, bool) {
	var v any
	if jsonv1.Unmarshal(data, &v) != nil {
		return nil, false
	}
	return v, true
}

// itemsOf is what one observation's data (or one action's arguments), decoded, carries on
// endpoint e.
func itemsOf(v any, ok bool, step string, e contract.Endpoint) []Item {
	if !ok || !whereMatches(v, e.Where) {
		return nil
	}
	item := func(v any) Item {
		it := Item{Step: step}
		if x, ok := contract.Resolve(v, e.ValuePointer()); ok {
			it.Value = encoded(x, e.Encoding)
		}
		if e.ID != "" {
			if id, ok := contract.Resolve(v, e.ID); ok {
				it.ID = string(encoded(id, contract.EncodingJSON))
			}
		}
		if e.From != "" {
			if n, ok := contract.Resolve(v, e.From); ok {
				if f, ok := n.(float64); ok && f > 0 {
					it.From = int(f)
				}
			}
		}
		return it
	}
	if e.Each != "" {
		if arr, ok := contract.Resolve(v, e.Each); ok {
			if list, ok := arr.([]any); ok {
				out := make([]Item, 0, len(list))
				for _, el := range list {
					out = append(out, item(el))
				}
				return out
			}
		}
	}
	return []Item{item(v)}
}

// fold is a cumulative stream's delivered end read so far: the accumulated value (each value
// replaces what came before from its From byte on) and the step of the last value. A
// barrier keeps one per stream and reads only what arrived since its last look.
type fold struct {
	e     contract.Endpoint
	next  int // the next observation (or action) to read
	value []byte
	step  string
	any   bool // a value arrived
	// reads counts advances; edits are the values that replaced part of the accumulated one
	// (From inside it), each with the advance that read it, so a search knows which bytes
	// it has looked at are still there.
	reads int
	edits []edit
}

type edit struct{ read, from int }

// advance reads what t has beyond the fold's position. A fold that has read nothing starts
// at the last whole value (From 0): what came before it does not count.
func (f *fold) advance(t *transcript.Transcript) {
	if f.next == 0 {
		f.next = lastWhole(t, f.e)
	}
	f.reads++
	forEachValue(t, f.e, f.next, false, func(next int, items []Item) {
		f.next = next
		for _, it := range items {
			from := min(it.From, len(f.value)) // a value past the end continues it
			switch {
			case from == 0 && len(f.value) > 0:
				f.edits = append(f.edits, edit{read: f.reads, from: 0})
				fallthrough
			case from == 0:
				// A whole value replaces the accumulated one: it becomes the fold's own (the
				// fold read it decoded for itself), capped so that what is appended later
				// never writes into it.
				f.value = it.Value[:len(it.Value):len(it.Value)]
			case from < len(f.value):
				f.edits = append(f.edits, edit{read: f.reads, from: from})
				// A copy: values handed out before must not change under their holders.
				f.value = append(append(make([]byte, 0, from+len(it.Value)), f.value[:from]...), it.Value...)
			default:
				f.value = append(f.value, it.Value...)
			}
			f.step, f.any = it.Step, true
		}
	})
}

// encoded turns a value into the bytes a stream compares: base64 strings decoded (the driver
// protocol's exact bytes), text strings as they are, anything else as its JSON text.
func encoded(v any, encoding string) []byte {
	if v == nil && encoding != contract.EncodingJSON {
		return nil // no bytes (Go encodes an empty []byte as null)
	}
	s, isString := v.(string)
	switch {
	case isString && (encoding == "" || encoding == contract.EncodingBase64):
		if b, err := base64.StdEncoding.DecodeString(s); err == nil {
			return b
		}
		return []byte(s)
	case isString && encoding == contract.EncodingText:
		return []byte(s)
	}
	b, _ := json.Marshal(v)
	return b
}

// StreamText is what a role reported on the stream called what, as bytes to search (await
// ROLE WHAT text=T): the accumulated value for a cumulative stream's delivered end, else every
// value concatenated. When no declared stream has that name and an end of that role, what is
// read as an observation name whose /bytes values are concatenated.
func StreamText(in *Input, role transcript.Role, what string) []byte {
	return new(StreamReader).Text(in, role, what)
}

// StreamReader reads streams as StreamText does, for one pairing's transcript as it grows: it
// keeps each cumulative stream's fold, so a barrier that reads again on every change of the
// transcript decodes only what arrived since.
type StreamReader struct {
	folds map[string]*fold
	sent  map[string]*sentSoFar
	// texts are the values of the ends Text joins (every end but a cumulative stream's
	// delivered one), read as they grow, by role, name and end.
	texts map[textKey]*sentSoFar
}

type textKey struct {
	role      transcript.Role
	what      string
	delivered int // 1: the stream's delivered end, 0: its sending end, -1: observations what
}

// sentSoFar is what a stream's sending end has carried so far, read as it grows.
type sentSoFar struct {
	next   int // the next observation (or action) to read
	items  []Item
	joined []byte
}

// sentOf is what stream s has sent in t so far: its items and, for a stream that compares
// bytes (bytes, cumulative), their values joined (else nil). It reads only what t has
// gained since the last call (the transcript only grows); callers must not modify what it
// returns.
func (r *StreamReader) sentOf(t *transcript.Transcript, s stream) ([]Item, []byte) {
	ss := r.sent[s.name]
	if ss == nil {
		if r.sent == nil {
			r.sent = map[string]*sentSoFar{}
		}
		ss = &sentSoFar{}
		r.sent[s.name] = ss
	}
	// Only the streams that compare bytes read the values joined: a stream compared value
	// by value (each, set) would keep a second copy of everything it sent (a terminal's
	// every whole-screen snapshot).
	join := s.compare == contract.CompareBytes || s.compare == contract.CompareCumulative
	forEachValue(t, s.sent, ss.next, true, func(next int, items []Item) {
		ss.next = next
		ss.items = append(ss.items, items...)
		for _, it := range items {
			if join {
				ss.joined = append(ss.joined, it.Value...)
			}
		}
	})
	return ss.items, ss.joined
}

// Text is StreamText(in, role, what), reading only what in.Transcript has gained since the
// last call (the transcript only grows). Callers must not modify what it returns. But for a
// cumulative stream's delivered end (whose values replace one another), what it returns
// later begins with what it returned before.
func (r *StreamReader) Text(in *Input, role transcript.Role, what string) []byte {
	if f := r.fold(in, role, what); f != nil {
		f.advance(in.Transcript)
		return f.value
	}
	for _, s := range Streams(in) {
		if s.name != what {
			continue
		}
		for _, end := range []struct {
			e         contract.Endpoint
			delivered int
		}{{s.delivered, 1}, {s.sent, 0}} {
			if end.e.Role != string(role) {
				continue
			}
			return r.joined(in.Transcript, textKey{role, what, end.delivered}, end.e)
		}
	}
	return r.joined(in.Transcript, textKey{role, what, -1}, contract.Endpoint{Role: string(role), Observations: []string{what}})
}

// joined is the values endpoint e carried in t, joined, read from where the last call for
// key ended.
func (r *StreamReader) joined(t *transcript.Transcript, key textKey, e contract.Endpoint) []byte {
	ss := r.texts[key]
	if ss == nil {
		if r.texts == nil {
			r.texts = map[textKey]*sentSoFar{}
		}
		ss = &sentSoFar{}
		r.texts[key] = ss
	}
	forEachValue(t, e, ss.next, true, func(next int, items []Item) {
		ss.next = next
		for _, it := range items {
			ss.joined = append(ss.joined, it.Value...)
		}
	})
	return ss.joined
}

// fold is the reader's fold of stream what when role is the delivered end of a cumulative
// stream of that name (the first end of role, as Text reads them), else nil.
func (r *StreamReader) fold(in *Input, role transcript.Role, what string) *fold {
	for _, s := range Streams(in) {
		if s.name != what {
			continue
		}
		if s.delivered.Role != string(role) || s.compare != contract.CompareCumulative {
			return nil
		}
		return r.foldOf(s)
	}
	return nil
}

// foldOf is the reader's fold of cumulative stream s, made on first use. A fold read from
// wherever the reader started ends where a fold read afresh ends: a whole value (From 0)
// replaces everything before it.
func (r *StreamReader) foldOf(s stream) *fold {
	f := r.folds[s.name]
	if f == nil {
		if r.folds == nil {
			r.folds = map[string]*fold{}
		}
		f = &fold{e: s.delivered}
		r.folds[s.name] = f
	}
	return f
}

// Search is one barrier's look for text in a stream (Contains): how far it has looked, so
// the next look at a cumulative stream reads only what arrived since (and what replaced
// bytes it had looked at).
type Search struct {
	Text    []byte
	read    int // the fold's advance at the last look
	checked int // the bytes looked at then, found without Text
}

// Contains reports whether Text(in, role, what) holds s.Text. Called again with the same s
// as the transcript grows, it searches a cumulative stream's new bytes only (with the
// len(s.Text)-1 bytes before them), so a barrier over a megabyte screen costs what arrived.
func (r *StreamReader) Contains(in *Input, role transcript.Role, what string, s *Search) bool {
	f := r.fold(in, role, what)
	if f == nil {
		// Only grows: the bytes looked at before are still there.
		text := r.Text(in, role, what)
		if bytes.Contains(text[max(0, min(s.checked, len(text))-len(s.Text)+1):], s.Text) {
			return true
		}
		s.checked = len(text)
		return false
	}
	f.advance(in.Transcript)
	start := s.checked
	for _, e := range f.edits {
		if e.read > s.read {
			start = min(start, e.from)
		}
	}
	s.read = f.reads
	if bytes.Contains(f.value[max(0, min(start, len(f.value))-len(s.Text)+1):], s.Text) {
		return true
	}
	s.checked = len(f.value)
	return false
}

func join(items []Item) []byte {
	var b bytes.Buffer
	for _, it := range items {
		b.Write(it.Value)
	}
	return b.Bytes()
}
