// Package coverage says which parts of the builds' contracts a run exercised: frames per
// direction and client kind, fields (JSON pointers), enum values, capabilities and features
// negotiated, and driver actions announced in hello, and which never were. Everything comes
// from the contracts and the transcripts: it knows no product.
//
// A Tally adds pairings as they end; Coverage returns the run's results.Coverage. The fuzz
// campaign steers with the same Tally: Add returns how many parts a case exercised for the
// first time (a case worth keeping), Novel lists them without adding the case, and Missing
// lists what no case reached yet.
package coverage

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/skewtest/skewtest/driverkit"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// Tally accumulates coverage over pairings. It is safe for concurrent use.
type Tally struct {
	mu        sync.Mutex
	items     map[string]*results.CoverageItem
	contracts []spoken
	// kinds are the client kinds seen on each channel (by name): a frame is owed once per
	// kind that used its channel.
	kinds map[string][]string
	// event names the event a journey step belongs to (nil: nothing is attributed); by
	// counts, per event, the parts reached in its steps.
	event func(step string) string
	by    map[string]map[string]int
}

// New returns an empty Tally.
func New() *Tally {
	return &Tally{items: map[string]*results.CoverageItem{}, kinds: map[string][]string{}}
}

// Attribute makes the tally count, for each part reached, the events whose steps reached it
// (By): event names the event of a journey step ("" for none). A campaign learns which of
// its events reach rare parts.
func (t *Tally) Attribute(event func(step string) string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.event, t.by = event, map[string]map[string]int{}
}

// By returns, per event, how many pairings reached each part (by CoverageItem.Key) in one
// of the event's steps, since Attribute.
func (t *Tally) By() map[string]map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string]map[string]int, len(t.by))
	for e, m := range t.by {
		out[e] = maps.Clone(m)
	}
	return out
}

// Add counts what one pairing exercised (its transcript, journey and the two builds'
// contracts; references included) and returns how many parts it exercised that no pairing
// added before had. The parts of both contracts join the tally's universe.
func (t *Tally) Add(in *checks.Input) (newly int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	seen, steps := t.exercised(in)
	for k, it := range seen {
		cur, ok := t.items[k]
		if !ok {
			it := it
			t.items[k] = &it
			cur = t.items[k]
		}
		if cur.Seen == 0 {
			newly++
		}
		cur.Seen++
	}
	if t.event != nil {
		for k, ss := range steps {
			events := map[string]bool{}
			for st := range ss {
				if e := t.event(st); e != "" && !events[e] {
					events[e] = true
					if t.by[e] == nil {
						t.by[e] = map[string]int{}
					}
					t.by[e][k]++
				}
			}
		}
	}
	return newly
}

// Novel lists the parts a pairing exercised that no pairing added to the tally has, in a
// stable order, without adding it (its contracts join the universe): a fuzz campaign keeps
// the cases that reach something new.
func (t *Tally) Novel(in *checks.Input) []results.CoverageItem {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []results.CoverageItem
	seen, _ := t.exercised(in)
	for k, it := range seen {
		if cur, ok := t.items[k]; !ok || cur.Seen == 0 {
			it.Seen = 0
			out = append(out, it)
		}
	}
	results.SortCoverage(out)
	return out
}

// exercised returns the parts a pairing exercised, by key, and the steps that reached each;
// t.mu is held.
func (t *Tally) exercised(in *checks.Input) (map[string]results.CoverageItem, map[string]map[string]bool) {
	version := in.Protocol()
	for _, c := range []*contract.Contract{in.Host, in.Client} {
		if at := (spoken{c, version}); c != nil && !slices.Contains(t.contracts, at) {
			t.contracts = append(t.contracts, at)
			t.universe(c, version)
		}
	}
	seen := map[string]results.CoverageItem{}
	steps := map[string]map[string]bool{}
	mark := func(it results.CoverageItem, step string) {
		k := it.Key()
		seen[k] = it
		if t.event != nil && step != "" {
			if steps[k] == nil {
				steps[k] = map[string]bool{}
			}
			steps[k][step] = true
		}
	}
	tr := in.Transcript
	for _, n := range checks.NameFrames(in) {
		if n.Control != "" || n.Err != nil || n.Undecoded || n.Def == nil {
			continue
		}
		ch := channelOf(in, n.Path)
		if ch == "" {
			continue
		}
		kind := tr.Kind
		t.addKind(ch, kind)
		mark(frameItem(ch, n.Dir, n.Name, kind), n.Step)
		if n.Decoded.Value == nil {
			continue
		}
		for _, p := range present(n.Shape().Fields, n.Decoded.Value, "") {
			mark(fieldItem(ch, n.Dir, n.Name, p.ptr), n.Step)
			if p.enum {
				mark(enumItem(ch, n.Dir, n.Name, p.ptr, p.value), n.Step)
			}
		}
	}
	for name := range checks.Negotiated(in) {
		for _, c := range []*contract.Contract{in.Host, in.Client} {
			if c == nil {
				continue
			}
			for i := range c.Channels {
				ch := &c.Channels[i]
				if ch.Capability(name) != nil {
					mark(capItem(ch.Name, "capability", name), "")
				}
				if slices.ContainsFunc(ch.Features, func(f contract.Feature) bool { return f.Name == name }) {
					mark(capItem(ch.Name, "feature", name), "")
				}
			}
		}
	}
	for role, h := range tr.Hello {
		kind := ""
		if role == transcript.Client {
			kind = tr.Kind
		}
		for _, a := range h.Actions {
			if !slices.Contains(protocolActions, a) {
				t.ensure(actionItem(string(role), kind, a))
			}
		}
	}
	for _, a := range tr.Actions {
		kind := ""
		if a.Role == transcript.Client {
			kind = tr.Kind
		}
		mark(actionItem(string(a.Role), kind, a.Name), a.Step)
	}
	t.described(tr, mark)
	return seen, steps
}

// described marks the action pairs and declared bounds a pairing reached, of the actions
// its drivers describe (hello params), and adds every such pair and bound to the universe.
func (t *Tally) described(tr *transcript.Transcript, mark func(results.CoverageItem, string)) {
	who := func(r transcript.Role) string {
		if r == transcript.Client && tr.Kind != "" {
			return "client " + tr.Kind
		}
		return string(r)
	}
	kindOf := func(r transcript.Role) string {
		if r == transcript.Client {
			return tr.Kind
		}
		return ""
	}
	pair := func(a, b string) results.CoverageItem {
		kind := ""
		if strings.HasPrefix(a, "client") || strings.HasPrefix(b, "client") {
			kind = tr.Kind
		}
		return results.CoverageItem{Category: results.CoverActionPair, Item: a + " → " + b, Kind: kind}
	}
	var acts []string
	for _, role := range []transcript.Role{transcript.Host, transcript.Client} {
		h := tr.Hello[role]
		for _, a := range sortedKeys(h.Params) {
			if !slices.Contains(h.Actions, a) {
				continue
			}
			acts = append(acts, who(role)+": "+a)
			for _, p := range h.Params[a] {
				for _, b := range bounds(p) {
					t.ensure(limitItem(who(role), a, p, b, kindOf(role)))
				}
			}
		}
	}
	for _, a := range acts {
		for _, b := range acts {
			t.ensure(pair(a, b))
		}
	}
	// A pair is the actions that start two steps in a row (what follows in a step, a marker
	// or a second write, is the step's own business).
	prev, step := "", ""
	for i, a := range tr.Actions {
		if slices.Contains(protocolActions, a.Name) {
			continue
		}
		if i == 0 || a.Step != step {
			step = a.Step
			cur := who(a.Role) + ": " + a.Name
			if prev != "" {
				mark(pair(prev, cur), a.Step)
			}
			prev = cur
		}
		params := tr.Hello[a.Role].Params[a.Name]
		if len(params) == 0 {
			continue
		}
		// The arguments are read once per action (a text argument runs to megabytes).
		var args map[string]json.RawMessage
		if jsonv1.Unmarshal(a.Args, &args) != nil {
			continue
		}
		for _, p := range params {
			if b, ok := reached(p, args); ok {
				mark(limitItem(who(a.Role), a.Name, p, b, kindOf(a.Role)), a.Step)
			}
		}
	}
}

// bound is a value a described parameter owes coverage: a size or number at a declared
// bound, or an enum value.
type bound struct {
	n     int
	enum  string
	label string
}

// bounds lists a parameter's declared bounds: Min and Max (when Max is set), just below, at
// and just above each limit, and each enum value.
func bounds(p driverkit.Param) []bound {
	if p.Type == driverkit.Enum {
		var out []bound
		for _, v := range p.Values {
			out = append(out, bound{enum: v, label: "= " + v})
		}
		return out
	}
	if p.Type != driverkit.Text && p.Type != driverkit.Int {
		return nil
	}
	labels := map[int][]string{}
	var ns []int
	add := func(n int, l string) {
		if _, ok := labels[n]; !ok {
			ns = append(ns, n)
		}
		if !slices.Contains(labels[n], l) {
			labels[n] = append(labels[n], l)
		}
	}
	if p.Max != 0 {
		add(p.Min, "min")
		add(p.Max, "max")
	}
	for _, l := range p.Limits {
		add(l-1, "limit-1")
		add(l, "limit")
		add(l+1, "limit+1")
	}
	slices.Sort(ns)
	unit := ""
	if p.Type == driverkit.Text {
		unit = " bytes"
	}
	out := make([]bound, 0, len(ns))
	for _, n := range ns {
		out = append(out, bound{n: n, label: fmt.Sprintf("%d%s (%s)", n, unit, strings.Join(labels[n], ", "))})
	}
	return out
}

// reached says which of p's bounds an action's arguments reached: a text's length in bytes
// (text travels as base64 "bytes"), an integer's value, an enum's value.
func reached(p driverkit.Param, args map[string]json.RawMessage) (bound, bool) {
	var n int
	switch p.Type {
	case driverkit.Enum:
		var v string
		if json.Unmarshal(args[p.Name], &v) != nil {
			return bound{}, false
		}
		for _, b := range bounds(p) {
			if b.enum == v {
				return b, true
			}
		}
		return bound{}, false
	case driverkit.Text:
		var s string
		if l, ok := base64Len(args["bytes"]); p.Name == "text" && ok {
			n = l
			break
		}
		switch {
		case json.Unmarshal(args[p.Name], &s) == nil:
			n = len(s)
		default:
			return bound{}, false
		}
	case driverkit.Int:
		if json.Unmarshal(args[p.Name], &n) != nil {
			return bound{}, false
		}
	default:
		return bound{}, false
	}
	for _, b := range bounds(p) {
		if b.enum == "" && b.n == n {
			return b, true
		}
	}
	return bound{}, false
}

// base64Len is the length of the bytes a JSON string of standard base64 (as encoding/json
// writes a []byte) holds, without decoding them; ok is false when raw is not such a string.
func base64Len(raw json.RawMessage) (int, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return 0, false
	}
	s := raw[1 : len(raw)-1]
	if len(s)%4 != 0 {
		return 0, false
	}
	for _, c := range s {
		if !isBase64(c) {
			return 0, false
		}
	}
	n := len(s) / 4 * 3
	switch {
	case len(s) > 0 && s[len(s)-1] == '=' && s[len(s)-2] == '=':
		n -= 2
	case len(s) > 0 && s[len(s)-1] == '=':
		n--
	}
	return n, true
}

func isBase64(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '='
}

// protocolActions are the driver protocol's own actions, which skewtest sends itself (every
// driver stops; a decode action answers the harness; a campaign opens and closes lanes): no
// journey is owed them.
var protocolActions = []string{"stop", "decode", "open-lane", "close-lane"}

// Coverage returns what the tally holds, in a stable order.
func (t *Tally) Coverage() *results.Coverage {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := &results.Coverage{Items: make([]results.CoverageItem, 0, len(t.items))}
	for _, it := range t.items {
		out.Items = append(out.Items, *it)
	}
	results.SortCoverage(out.Items)
	return out
}

// Missing lists the parts no pairing exercised yet, of the categories given (none: every
// category), in a stable order: what a fuzz campaign should aim its next cases at.
func (t *Tally) Missing(categories ...string) []results.CoverageItem {
	var out []results.CoverageItem
	for _, it := range t.Coverage().Items {
		if it.Seen == 0 && (len(categories) == 0 || slices.Contains(categories, it.Category)) {
			out = append(out, it)
		}
	}
	return out
}

// spoken is a contract at a negotiated protocol version: a part of the universe.
type spoken struct {
	c       *contract.Contract
	version int
}

// universe adds every part of c that a pairing speaking protocol version (0: none declared)
// can exercise to the tally, unseen: each frame's fields are its shape's at that version
// (contract.Frame.At), so a field "until: 4" is owed only by pairings that speak 4 or less.
func (t *Tally) universe(c *contract.Contract, version int) {
	for i := range c.Channels {
		ch := &c.Channels[i]
		for j := range ch.Frames {
			f := &ch.Frames[j]
			for _, dir := range dirs(f) {
				for _, kind := range t.kinds[ch.Name] {
					if f.KnownBy(kind) {
						t.ensure(frameItem(ch.Name, dir, f.Name, kind))
					}
				}
				if len(t.kinds[ch.Name]) == 0 {
					t.ensure(frameItem(ch.Name, dir, f.Name, ""))
				}
				for _, p := range pointers(f.At(version).Fields, "") {
					t.ensure(fieldItem(ch.Name, dir, f.Name, p.ptr))
					for _, v := range p.enum {
						t.ensure(enumItem(ch.Name, dir, f.Name, p.ptr, v))
					}
				}
			}
		}
		for _, cp := range ch.Capabilities {
			if cp.Echoed { // one the host does not echo is never seen negotiated
				t.ensure(capItem(ch.Name, "capability", cp.Name))
			}
		}
		for _, fe := range ch.Features {
			t.ensure(capItem(ch.Name, "feature", fe.Name))
		}
	}
}

// addKind records that kind used channel ch: its frames are owed per kind from now on (the
// kind-less placeholders give way).
func (t *Tally) addKind(ch, kind string) {
	if kind == "" || slices.Contains(t.kinds[ch], kind) {
		return
	}
	t.kinds[ch] = append(t.kinds[ch], kind)
	for _, sp := range t.contracts {
		c := sp.c.ChannelNamed(ch)
		if c == nil {
			continue
		}
		for j := range c.Frames {
			f := &c.Frames[j]
			for _, dir := range dirs(f) {
				if it, ok := t.items[frameItem(ch, dir, f.Name, "").Key()]; ok && it.Seen == 0 {
					delete(t.items, it.Key())
				}
				if f.KnownBy(kind) {
					t.ensure(frameItem(ch, dir, f.Name, kind))
				}
			}
		}
	}
}

func (t *Tally) ensure(it results.CoverageItem) {
	if _, ok := t.items[it.Key()]; !ok {
		t.items[it.Key()] = &it
	}
}

func dirs(f *contract.Frame) []string {
	if f.Direction == contract.Both {
		return []string{contract.HostToClient, contract.ClientToHost}
	}
	return []string{f.Direction}
}

func channelOf(in *checks.Input, path string) string {
	for _, c := range []*contract.Contract{in.Host, in.Client} {
		if c == nil {
			continue
		}
		if ch := c.Channel(path); ch != nil {
			return ch.Name
		}
	}
	return ""
}

func frameItem(ch, dir, name, kind string) results.CoverageItem {
	item := dir + " " + name
	if kind != "" {
		item += " (" + kind + ")"
	}
	return results.CoverageItem{Category: results.CoverFrame, Item: item, Channel: ch, Dir: dir, Frame: name, Kind: kind}
}

func fieldItem(ch, dir, name, ptr string) results.CoverageItem {
	return results.CoverageItem{Category: results.CoverField, Item: dir + " " + name + " " + ptr, Channel: ch, Dir: dir, Frame: name, Pointer: ptr}
}

func enumItem(ch, dir, name, ptr, value string) results.CoverageItem {
	return results.CoverageItem{Category: results.CoverEnum, Item: dir + " " + name + " " + ptr + " = " + value, Channel: ch,
		Dir: dir, Frame: name, Pointer: ptr, Value: value}
}

func capItem(ch, what, name string) results.CoverageItem {
	return results.CoverageItem{Category: results.CoverCapability, Item: ch + " " + what + " " + name, Channel: ch, Value: name}
}

func limitItem(who, action string, p driverkit.Param, b bound, kind string) results.CoverageItem {
	return results.CoverageItem{Category: results.CoverLimit, Item: who + ": " + action + " " + p.Name + " " + b.label, Kind: kind,
		Value: action}
}

func actionItem(role, kind, action string) results.CoverageItem {
	who := role
	if kind != "" {
		who += " " + kind
	}
	return results.CoverageItem{Category: results.CoverAction, Item: who + ": " + action, Kind: kind, Value: action}
}

// pointer is one field of a contract: its pointer ("/*" for array elements) and enum values
// as JSON text.
type pointer struct {
	ptr  string
	enum []string
}

func pointers(fields map[string]contract.Field, ptr string) []pointer {
	var out []pointer
	for _, name := range sortedKeys(fields) {
		fd := fields[name]
		out = append(out, fieldPointers(&fd, child(ptr, name))...)
	}
	return out
}

func fieldPointers(fd *contract.Field, ptr string) []pointer {
	p := pointer{ptr: ptr}
	for _, v := range fd.Enum {
		p.enum = append(p.enum, jsonText(v))
	}
	out := []pointer{p}
	out = append(out, pointers(fd.Fields, ptr)...)
	if fd.Items != nil {
		out = append(out, fieldPointers(fd.Items, ptr+"/*")...)
	}
	return out
}

// seenField is a field present in a value, and its value as JSON text when it has an enum.
type seenField struct {
	ptr   string
	enum  bool
	value string
}

func present(fields map[string]contract.Field, v any, ptr string) []seenField {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	var out []seenField
	for _, name := range sortedKeys(fields) {
		val, ok := obj[name]
		if !ok {
			continue
		}
		fd := fields[name]
		out = append(out, presentField(&fd, val, child(ptr, name))...)
	}
	return out
}

func presentField(fd *contract.Field, v any, ptr string) []seenField {
	text := jsonText(v)
	// A value outside the enum is the field check's business, not a part of the contract.
	inEnum := slices.ContainsFunc(fd.Enum, func(e any) bool { return jsonText(e) == text })
	out := []seenField{{ptr: ptr, enum: inEnum, value: text}}
	out = append(out, present(fd.Fields, v, ptr)...)
	if arr, ok := v.([]any); ok && fd.Items != nil {
		for _, e := range arr {
			out = append(out, presentField(fd.Items, e, ptr+"/*")...)
		}
	}
	return out
}

// jsonText is a JSON value as canonical text: numbers without a trailing .0.
func jsonText(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// escape is RFC 6901's pointer token rule (read-only once built).
var escape = strings.NewReplacer("~", "~0", "/", "~1")

func child(ptr, name string) string {
	if !strings.ContainsAny(name, "~/") {
		return ptr + "/" + name
	}
	return ptr + "/" + escape.Replace(name)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
