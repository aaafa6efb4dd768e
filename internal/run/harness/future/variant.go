package future

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

// The rules a variant follows, by their stable ids (only ever added).
const (
	RuleOptionalField  = "optional-field"
	RuleNestedField    = "nested-field"
	RuleFeatureKey     = "feature-key"
	RuleCapabilityKey  = "capability-key"
	RuleCommandVersion = "command-version"
)

// Rules lists every rule, in the order variants of one frame are listed.
var Rules = []string{RuleOptionalField, RuleNestedField, RuleFeatureKey, RuleCapabilityKey, RuleCommandVersion}

// Marker starts every name a variant adds: a check can tell what the rewrite added from what
// the receiver did with it.
const Marker = "skewtestFuture"

// Variant is one future form of a frame.
type Variant struct {
	Rule string
	// Pointer is the RFC 6901 pointer of the object the variant adds to ("" the frame).
	Pointer string
	// What says what was added: `added optional field /skewtestFutureK3 = "x"`.
	What string
	// Data is the whole message as the future sender writes it.
	Data []byte
}

// Frame is one message to rewrite and what its sender's contract says of it.
type Frame struct {
	Sender *contract.Contract // the sending build's contract
	Path   string             // the connection's request path
	Dir    string             // contract.HostToClient or contract.ClientToHost
	Kind   string             // the client kind of the pairing
	// Version is the protocol version the pairing negotiated (0: none declared): the frame
	// is decoded, and its fields listed, as its shape at that version (contract.Frame.At).
	Version int
	Binary  bool
	Data    []byte
}

// Variants returns every future form of f that the rules allow, one per place a rule applies,
// in a stable order (by rule, then pointer); rng picks the names and values added. It returns
// nil for a frame that cannot carry one (see the package documentation).
func Variants(rng *rand.Rand, f Frame) []Variant {
	o, es := edits(f)
	var out []Variant
	for _, e := range es {
		if o.proto != nil {
			body, what := addUnknown(rng, o.proto, o.body)
			if data := o.wrap(body); data != nil {
				out = append(out, Variant{Rule: e.rule, What: what, Data: data})
			}
			continue
		}
		c := deepCopy(o.obj).(map[string]any)
		what := e.apply(rng, at(c, e.ptr))
		if data := o.rebuild(c); data != nil {
			out = append(out, Variant{Rule: e.rule, Pointer: e.ptr, What: what, Data: data})
		}
	}
	return out
}

// All returns f with every variant of Variants applied at once (the frame as a later release
// that made every allowed change would send it), limited to rules (nil: every rule). Rule
// and Pointer are those of the first change, What lists them all. It reports false when no
// rule applies.
func All(rng *rand.Rand, f Frame, rules []string) (Variant, bool) {
	o, es := edits(f)
	if rules != nil {
		es = slices.DeleteFunc(es, func(e edit) bool { return !slices.Contains(rules, e.rule) })
	}
	if len(es) == 0 {
		return Variant{}, false
	}
	if o.proto != nil {
		vs := Variants(rng, f)
		if len(vs) == 0 {
			return Variant{}, false
		}
		vs[0].What = vs[0].Rule + ": " + vs[0].What
		return vs[0], true
	}
	c := deepCopy(o.obj).(map[string]any)
	var whats []string
	for _, e := range es {
		whats = append(whats, e.rule+": "+e.apply(rng, at(c, e.ptr)))
	}
	data := o.rebuild(c)
	if data == nil {
		return Variant{}, false
	}
	return Variant{Rule: es[0].rule, Pointer: es[0].ptr, What: strings.Join(whats, "; "), Data: data}, true
}

// edit is one change a rule allows at one place of a frame.
type edit struct {
	rule, ptr string
	apply     func(rng *rand.Rand, v map[string]any) string
}

// edits lists the changes the rules allow in f, in the order Variants lists them, with the
// opened frame they apply to.
func edits(f Frame) (*opened, []edit) {
	o, ok := open(f)
	if !ok {
		return nil, nil
	}
	if o.proto != nil {
		// A protobuf message takes a field number it does not define (an unknown field,
		// which receivers keep or skip) at its top level.
		return o, []edit{{RuleOptionalField, "", nil}}
	}
	ch := f.Sender.Channel(f.Path)
	fields := map[string]contract.Field{}
	if o.def != nil {
		fields = o.def.Fields
	}
	obj := o.obj
	// optional-field: a new key at the top.
	out := []edit{{RuleOptionalField, "", func(rng *rand.Rand, v map[string]any) string { return addField(rng, v, fields, "") }}}
	// nested-field: inside objects the contract lists fields for.
	for _, s := range structs(obj, fields, "") {
		out = append(out, edit{RuleNestedField, s.ptr, func(rng *rand.Rand, v map[string]any) string { return addField(rng, v, s.fields, s.ptr) }})
	}
	// Maps of names the channel declares.
	for _, m := range maps(obj, "") {
		keys := m.keys()
		switch {
		case f.Dir == contract.HostToClient && overlaps(keys, featureNames(ch)):
			out = append(out, edit{RuleFeatureKey, m.ptr, func(rng *rand.Rand, v map[string]any) string { return addKey(rng, v, m.ptr, "Feature") }})
		case f.Dir == contract.ClientToHost && overlaps(keys, capabilityNames(ch)):
			out = append(out, edit{RuleCapabilityKey, m.ptr, func(rng *rand.Rand, v map[string]any) string { return addKey(rng, v, m.ptr, "Capability") }})
		case overlaps(keys, commandIDs(ch)) && versionLists(m.obj):
			out = append(out, edit{RuleCommandVersion, m.ptr, func(_ *rand.Rand, v map[string]any) string { return addVersions(v, m.ptr) }})
		}
	}
	slices.SortStableFunc(out, func(a, b edit) int {
		if d := slices.Index(Rules, a.rule) - slices.Index(Rules, b.rule); d != 0 {
			return d
		}
		return strings.Compare(a.ptr, b.ptr)
	})
	return o, out
}

// opened is a frame taken apart for rewriting: a JSON object (with the bytes before it, a
// binary header) or a protobuf message, and how to put a rewritten one back in the message.
type opened struct {
	prefix []byte         // bytes before the JSON object (a binary header)
	obj    map[string]any // the JSON object (nil for protobuf)
	def    *contract.Frame
	proto  protoreflect.MessageDescriptor // set for a protobuf message
	body   []byte                         // the protobuf message's bytes
	wrap   func([]byte) []byte            // the batch item back into a message
}

// rebuild returns the whole message for a rewritten object.
func (o *opened) rebuild(v map[string]any) []byte {
	return o.wrap(encode(o.prefix, v))
}

// open takes f apart, when f can carry an added field.
func open(f Frame) (*opened, bool) {
	if f.Sender == nil {
		return nil, false
	}
	ch := f.Sender.Channel(f.Path)
	if ch == nil {
		return nil, false
	}
	c := ch.Codec(f.Binary)
	if c == nil || c.Stream || c.Driver {
		return nil, false
	}
	if c.Header != nil && slices.ContainsFunc(c.Header.Fields, func(h contract.HeaderField) bool { return h.Name == contract.FieldLength }) {
		return nil, false
	}
	body, wrap, ok := unwrap(c.Batch, f.Data)
	if !ok {
		return nil, false
	}
	ps := ch.NewStream(f.Dir).At(f.Version).Feed(f.Binary, f.Data)
	if len(ps) != 1 || ps[0].Err != nil {
		return nil, false
	}
	d := ps[0].Decoded
	def := ch.Lookup(d, f.Dir, f.Kind).At(f.Version)
	if def != nil && def.Counted {
		return nil, false // its size is counted by both peers: grown in transit, it is not a later release's
	}
	if c.Protobuf != nil {
		md := c.Protobuf.Descriptor(f.Dir)
		if md == nil {
			return nil, false
		}
		return &opened{def: def, proto: md, body: body, wrap: wrap}, true
	}
	if c.Header != nil && (def == nil || def.Payload != contract.PayloadJSON) {
		return nil, false // a text payload may look like JSON by chance
	}
	if !bytes.HasSuffix(body, d.Payload) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(d.Payload))
	dec.UseNumber()
	var obj map[string]any
	if dec.Decode(&obj) != nil || obj == nil || dec.More() {
		return nil, false
	}
	return &opened{prefix: body[:len(body)-len(d.Payload)], obj: obj, def: def, wrap: wrap}, true
}

// unwrap returns the one frame a message of batch kind carries, and how to put a rewritten
// frame back; false for a message of several frames, or a batch kind it cannot rebuild.
func unwrap(batch string, data []byte) ([]byte, func([]byte) []byte, bool) {
	same := func(b []byte) []byte { return b }
	switch batch {
	case "", contract.BatchNone:
		return data, same, true
	case contract.BatchNewline:
		line := bytes.TrimRight(data, "\r\n")
		if bytes.ContainsAny(line, "\n") {
			return nil, nil, false
		}
		tail := data[len(line):]
		return line, func(b []byte) []byte { return append(b, tail...) }, true
	case contract.BatchVarint:
		n, k := binary.Uvarint(data)
		if k <= 0 || uint64(len(data)-k) != n {
			return nil, nil, false
		}
		return data[k:], func(b []byte) []byte { return append(binary.AppendUvarint(nil, uint64(len(b))), b...) }, true
	case contract.BatchU16BE:
		if len(data) < 2 || int(binary.BigEndian.Uint16(data)) != len(data)-2 {
			return nil, nil, false
		}
		return data[2:], func(b []byte) []byte {
			if len(b) > 0xffff {
				return nil
			}
			return append(binary.BigEndian.AppendUint16(nil, uint16(len(b))), b...)
		}, true
	case contract.BatchU32BE:
		if len(data) < 4 || int(binary.BigEndian.Uint32(data)) != len(data)-4 {
			return nil, nil, false
		}
		return data[4:], func(b []byte) []byte { return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...) }, true
	case contract.BatchU16LE:
		if len(data) < 2 || int(binary.LittleEndian.Uint16(data)) != len(data)-2 {
			return nil, nil, false
		}
		return data[2:], func(b []byte) []byte {
			if len(b) > 0xffff {
				return nil
			}
			return append(binary.LittleEndian.AppendUint16(nil, uint16(len(b))), b...)
		}, true
	case contract.BatchU32LE:
		if len(data) < 4 || int(binary.LittleEndian.Uint32(data)) != len(data)-4 {
			return nil, nil, false
		}
		return data[4:], func(b []byte) []byte { return append(binary.LittleEndian.AppendUint32(nil, uint32(len(b))), b...) }, true
	}
	return nil, nil, false
}

// addUnknown appends a field the message does not define to a protobuf message: a field
// number above those it uses, of a random wire type.
func addUnknown(rng *rand.Rand, md protoreflect.MessageDescriptor, body []byte) ([]byte, string) {
	top := 0
	for i := range md.Fields().Len() {
		top = max(top, int(md.Fields().Get(i).Number()))
	}
	n := protowire.Number(top + 1 + rng.IntN(64))
	for md.Fields().ByNumber(n) != nil || md.ReservedRanges().Has(n) || md.ExtensionRanges().Has(n) ||
		(n >= protowire.FirstReservedNumber && n <= protowire.LastReservedNumber) {
		n++
	}
	out := slices.Clone(body)
	switch rng.IntN(3) {
	case 0:
		v := uint64(rng.IntN(1 << 20))
		out = protowire.AppendVarint(protowire.AppendTag(out, n, protowire.VarintType), v)
		return out, fmt.Sprintf("added unknown field %d (varint %d)", n, v)
	case 1:
		v := fmt.Sprintf("future-%d", rng.IntN(1000))
		out = protowire.AppendBytes(protowire.AppendTag(out, n, protowire.BytesType), []byte(v))
		return out, fmt.Sprintf("added unknown field %d (bytes %q)", n, v)
	}
	v := rng.Uint32()
	out = protowire.AppendFixed32(protowire.AppendTag(out, n, protowire.Fixed32Type), v)
	return out, fmt.Sprintf("added unknown field %d (fixed32 %d)", n, v)
}

func encode(prefix []byte, v any) []byte {
	var b bytes.Buffer
	b.Write(prefix)
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // a value decoded from JSON encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// structObj is an object of the value whose fields the contract lists.
type structObj struct {
	ptr    string
	fields map[string]contract.Field
}

// structs lists the objects inside v (not v itself) whose fields the contract lists, by
// pointer.
func structs(v map[string]any, fields map[string]contract.Field, ptr string) []structObj {
	var out []structObj
	for _, name := range sortedKeys(fields) {
		fd := fields[name]
		out = append(out, structsIn(v[name], &fd, child(ptr, name))...)
	}
	return out
}

func structsIn(v any, fd *contract.Field, ptr string) []structObj {
	var out []structObj
	switch v := v.(type) {
	case map[string]any:
		if len(fd.Fields) > 0 {
			out = append(out, structObj{ptr, fd.Fields})
			out = append(out, structs(v, fd.Fields, ptr)...)
		}
	case []any:
		if fd.Items != nil {
			for i, e := range v {
				out = append(out, structsIn(e, fd.Items, child(ptr, strconv.Itoa(i)))...)
			}
		}
	}
	return out
}

// mapObj is a non-empty object anywhere in the value.
type mapObj struct {
	ptr string
	obj map[string]any
}

func (m mapObj) keys() []string { return sortedKeys(m.obj) }

func maps(v map[string]any, ptr string) []mapObj {
	var out []mapObj
	for _, k := range sortedKeys(v) {
		out = append(out, mapsIn(v[k], child(ptr, k))...)
	}
	return out
}

func mapsIn(v any, ptr string) []mapObj {
	var out []mapObj
	switch v := v.(type) {
	case map[string]any:
		if len(v) > 0 {
			out = append(out, mapObj{ptr, v})
		}
		out = append(out, maps(v, ptr)...)
	case []any:
		for i, e := range v {
			out = append(out, mapsIn(e, child(ptr, strconv.Itoa(i)))...)
		}
	}
	return out
}

func featureNames(ch *contract.Channel) []string {
	var out []string
	for _, f := range ch.Features {
		out = append(out, f.Name)
	}
	return out
}

func capabilityNames(ch *contract.Channel) []string {
	var out []string
	for _, c := range ch.Capabilities {
		out = append(out, c.Name)
	}
	return out
}

func commandIDs(ch *contract.Channel) []string {
	var out []string
	for _, c := range ch.Commands {
		out = append(out, c.ID)
	}
	return out
}

func overlaps(keys, names []string) bool {
	return slices.ContainsFunc(keys, func(k string) bool { return slices.Contains(names, k) })
}

// versionLists reports whether every value of obj is a list of integers.
func versionLists(obj map[string]any) bool {
	for _, v := range obj {
		arr, ok := v.([]any)
		if !ok {
			return false
		}
		for _, e := range arr {
			if _, ok := integer(e); !ok {
				return false
			}
		}
	}
	return true
}

func integer(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

// addField adds a new optional field with a value of a random type to v.
func addField(rng *rand.Rand, v map[string]any, fields map[string]contract.Field, ptr string) string {
	name := freshName(rng, v, fields, "")
	val := randomValue(rng)
	v[name] = val
	return fmt.Sprintf("added optional field %s = %s", child(ptr, name), show(val))
}

// addKey adds a new name to a map of names, valued like its first entry.
func addKey(rng *rand.Rand, v map[string]any, ptr, what string) string {
	name := freshName(rng, v, nil, what)
	first := sortedKeys(v)[0]
	v[name] = deepCopy(v[first])
	return fmt.Sprintf("added %s key %s = %s", strings.ToLower(what), child(ptr, name), show(v[name]))
}

// addVersions gives every command a version above those it lists, and adds a new command.
func addVersions(v map[string]any, ptr string) string {
	var parts []string
	for _, id := range sortedKeys(v) {
		arr := v[id].([]any)
		top := int64(0)
		for _, e := range arr {
			n, _ := integer(e)
			top = max(top, n)
		}
		v[id] = append(slices.Clone(arr), json.Number(strconv.FormatInt(top+1, 10)))
		parts = append(parts, fmt.Sprintf("%s v%d", id, top+1))
	}
	name := Marker + "Command"
	v[name] = []any{json.Number("1")}
	return fmt.Sprintf("added command versions at %s: %s, and command %s v1", orRoot(ptr), strings.Join(parts, ", "), name)
}

func freshName(rng *rand.Rand, v map[string]any, fields map[string]contract.Field, what string) string {
	for {
		name := fmt.Sprintf("%s%s%03x", Marker, what, rng.IntN(0x1000))
		if _, taken := v[name]; taken {
			continue
		}
		if _, taken := fields[name]; taken {
			continue
		}
		return name
	}
}

// randomValue is a JSON value of a random type: what a new optional field may hold.
func randomValue(rng *rand.Rand) any {
	switch rng.IntN(6) {
	case 0:
		return fmt.Sprintf("future-%d", rng.IntN(1000))
	case 1:
		return json.Number(strconv.Itoa(rng.IntN(1 << 20)))
	case 2:
		return rng.IntN(2) == 1
	case 3:
		return map[string]any{Marker + "Inner": json.Number(strconv.Itoa(rng.IntN(100)))}
	case 4:
		return []any{json.Number("1"), "two"}
	}
	return json.Number(strconv.FormatFloat(float64(rng.IntN(1000))/8, 'f', -1, 64))
}

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(v))
		for k, e := range v {
			c[k] = deepCopy(e)
		}
		return c
	case []any:
		c := make([]any, len(v))
		for i, e := range v {
			c[i] = deepCopy(e)
		}
		return c
	}
	return v
}

// at returns the object at ptr inside v ("" is v), or nil.
func at(v map[string]any, ptr string) map[string]any {
	if ptr == "" {
		return v
	}
	var cur any = v
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = unescape.Replace(tok)
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	m, _ := cur.(map[string]any)
	return m
}

// escape and unescape are RFC 6901's pointer token rules (read-only once built).
var (
	escape   = strings.NewReplacer("~", "~0", "/", "~1")
	unescape = strings.NewReplacer("~1", "/", "~0", "~")
)

func child(ptr, name string) string {
	if !strings.ContainsAny(name, "~/") {
		return ptr + "/" + name
	}
	return ptr + "/" + escape.Replace(name)
}

func orRoot(ptr string) string {
	if ptr == "" {
		return "the frame"
	}
	return ptr
}
