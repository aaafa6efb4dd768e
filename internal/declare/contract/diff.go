package contract

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// DiffOptions changes what Diff reports.
type DiffOptions struct {
	// Allowed, when set, is asked about every violation; those it allows are left out (a
	// declared protocol cut, a command version outside the support policy). See Allowing.
	Allowed func(Violation) bool
}

// Diff checks the evolution rules (Rules) from an older contract of a product to a newer
// one, and returns every violation, in the older contract's order: protocol, then per
// channel its paths, framing, frames (each with its fields and gates), capabilities,
// features and commands; then the commands of channels the older contract lacks, and last
// the rules about the newer contract alone (command-versions-gap). Contracts of format
// version 1 and 2 diff alike (they share the model).
//
// A frame is matched per channel (by name, else by a shared path), by its opcode or type in
// each direction it travels; fields by name at every depth. What the newer contract adds is
// compatible: frames (gated or not), optional fields, enum values, capabilities, features,
// commands and command versions (with migration text above version 1), client kinds and
// directions. A gate added on a path where the frame shipped ungated is gate-added, unless
// the older build negotiates it anyway (its clients declare the capability or one the newer
// host infers it from): a capability cannot prove a peer's incapability after the fact.
// When the newer contract's minCompatible is above the older's protocol version the builds
// refuse each other: Diff reports protocol-cut, and of the rules between them no other.
func Diff(older, newer *Contract, opts DiffOptions) []Violation {
	d := &differ{old: older, new: newer, seen: map[string]bool{}, matched: map[int]bool{}}
	if !d.protocol() {
		for i := range older.Channels {
			d.channel(i)
		}
		for j := range newer.Channels {
			if !d.matched[j] {
				d.undocumented(nil, &newer.Channels[j], child("/channels", j))
			}
		}
	}
	d.gaps()
	if opts.Allowed == nil {
		return d.out
	}
	out := d.out[:0]
	for _, v := range d.out {
		if !opts.Allowed(v) {
			out = append(out, v)
		}
	}
	return out
}

type differ struct {
	old, new *Contract
	out      []Violation
	seen     map[string]bool
	matched  map[int]bool // the newer contract's channels an older channel matched
}

// add records a violation of rule at ptr in the contract the rule points into.
func (d *differ) add(rule, ptr, format string, args ...any) {
	r := RuleByID(rule)
	c := d.new
	if r.In == SideOld {
		c = d.old
	}
	v := Violation{Rule: rule, Pointer: ptr, In: r.In, File: c.File(), Line: c.Line(ptr), Message: fmt.Sprintf(format, args...)}
	key := rule + "\x00" + ptr + "\x00" + v.Message
	if d.seen[key] {
		return
	}
	d.seen[key] = true
	d.out = append(d.out, v)
}

// protocol checks the protocol window and reports whether the builds are outside each
// other's window (Protocol.Overlaps), so that no other rule applies between them.
func (d *differ) protocol() (cut bool) {
	o, n := d.old.Protocol, d.new.Protocol
	// A build that declares no version speaks the other's default (Protocol.As).
	ov, nv := o.As(n), n.As(o)
	if ov <= 0 || nv <= 0 {
		return false
	}
	if nv < ov {
		d.add(RuleProtocolLowered, "/protocol/version", "protocol version %d is below the older build's %d", nv, ov)
	}
	if n.Overlaps(o) {
		return false
	}
	ptr, why := "/protocol/minCompatible", fmt.Sprintf("minCompatible %d is above the older build's protocol version %d", n.MinCompatible, ov)
	if o.Version <= 0 {
		why += fmt.Sprintf(" (it declares none; the newer build takes such a peer to speak %d)", ov)
	}
	if n.MinCompatible <= ov {
		ptr, why = "/protocol/version", fmt.Sprintf("protocol version %d is below the older build's minCompatible %d", nv, o.MinCompatible)
	}
	d.add(RuleProtocolCut, ptr, "%s: the builds refuse each other, so no other rule applies between them (allow %s if the cut is deliberate)", why, RuleProtocolCut)
	return true
}

// channel diffs the older contract's channel i with its match in the newer one.
func (d *differ) channel(i int) {
	oc, op := &d.old.Channels[i], child("/channels", i)
	j := d.matchChannel(oc)
	if j < 0 {
		d.add(RuleChannelRemoved, op, "channel %s (%s) is gone: older builds still connect to it", oc.Name, strings.Join(oc.Paths, ", "))
		return
	}
	d.matched[j] = true
	c := &chanDiff{differ: d, oc: oc, nc: &d.new.Channels[j], op: op, np: child("/channels", j)}
	for k, p := range oc.Paths {
		switch {
		case slices.Contains(c.nc.Paths, p):
			c.paths = append(c.paths, p)
		case d.new.Channel(p) == nil:
			d.add(RulePathRemoved, child(op+"/paths", k), "%s: path %s is served by no channel any more: older builds still connect to it", oc.Name, p)
		}
	}
	if oq, nq := oc.QuietFor(), c.nc.QuietFor(); oq > 0 && nq == 0 {
		d.add(RuleQuietShortened, c.np, "%s: quiet was %s and is no longer declared: older peers may leave a connection quiet that long", oc.Name, oc.Quiet)
	} else if oq > 0 && nq < oq {
		d.add(RuleQuietShortened, c.np+"/quiet", "%s: quiet %s is shorter than the older %s: older peers may leave a connection quiet that long", oc.Name, c.nc.Quiet, oc.Quiet)
	}
	c.framing()
	for fi := range oc.Frames {
		c.frame(fi)
	}
	c.vocabulary()
}

// matchChannel returns the index of the newer contract's channel with the same name, else
// the first one serving one of its paths, else -1.
func (d *differ) matchChannel(oc *Channel) int {
	for j := range d.new.Channels {
		if d.new.Channels[j].Name == oc.Name {
			return j
		}
	}
	for _, p := range oc.Paths {
		for j := range d.new.Channels {
			if slices.Contains(d.new.Channels[j].Paths, p) {
				return j
			}
		}
	}
	return -1
}

// chanDiff diffs one channel of the older contract (oc at op) with its match (nc at np).
type chanDiff struct {
	*differ
	oc, nc *Channel
	op, np string
	paths  []string // the older channel's paths the newer one serves too
}

// frame diffs the older channel's frame fi in each direction it travels.
func (c *chanDiff) frame(fi int) {
	f, fp := &c.oc.Frames[fi], child(c.op+"/frames", fi)
	var same []int // the newer frames with the same opcode or type
	for j := range c.nc.Frames {
		if sameKey(f, &c.nc.Frames[j]) {
			same = append(same, j)
		}
	}
	compared := map[int]bool{}
	for _, dir := range directions(f) {
		var travel []int
		for _, j := range same {
			if c.nc.Frames[j].Travels(dir) {
				travel = append(travel, j)
			}
		}
		if len(travel) == 0 {
			c.lost(f, fp, dir, same)
			continue
		}
		c.kinds(f, dir, travel)
		j := pick(f, c.nc.Frames, travel)
		g := &c.nc.Frames[j]
		if g.Name != f.Name {
			if k := c.namedElsewhere(f, dir); k >= 0 {
				c.renumbered(f, dir, k)
			}
		}
		c.gates(f, fi, j, dir)
		if !compared[j] {
			compared[j] = true
			c.compare(f, fp, j)
		}
	}
}

// lost reports a frame that no newer frame with its opcode or type carries in dir.
func (c *chanDiff) lost(f *Frame, fp, dir string, same []int) {
	for _, j := range same {
		if g := &c.nc.Frames[j]; g.Name == f.Name {
			c.add(RuleDirectionChanged, c.framePtr(j)+"/direction", "%s: %s %s no longer travels %s (it travels %s now): older builds still send or expect it that way",
				c.oc.Name, f.Name, key(f), dir, g.Direction)
			return
		}
	}
	if k := c.namedElsewhere(f, dir); k >= 0 {
		c.renumbered(f, dir, k)
		return
	}
	c.add(RuleFrameRemoved, fp, "%s: %s %s %s is gone: older builds still send or expect it (keep it, or cut the protocol)",
		c.oc.Name, dir, f.Name, key(f))
}

// namedElsewhere returns the newer frame called like f that travels in dir under another
// opcode or type, or -1.
func (c *chanDiff) namedElsewhere(f *Frame, dir string) int {
	for j := range c.nc.Frames {
		if g := &c.nc.Frames[j]; g.Name == f.Name && g.Travels(dir) && !sameKey(f, g) {
			return j
		}
	}
	return -1
}

func (c *chanDiff) renumbered(f *Frame, dir string, j int) {
	g := &c.nc.Frames[j]
	field := "/opcode"
	if !g.ByOpcode() {
		field = "/type"
	}
	c.add(RuleOpcodeRenumbered, c.framePtr(j)+field, "%s: %s %s was %s and is now %s: opcodes and types are permanent (add a new frame instead)",
		c.oc.Name, dir, f.Name, key(f), key(g))
}

// kinds reports the client kinds that knew f in dir and know none of the newer frames.
func (c *chanDiff) kinds(f *Frame, dir string, travel []int) {
	at := c.framePtr(travel[0]) + "/kinds"
	if len(f.Kinds) == 0 {
		var now []string
		for _, j := range travel {
			if len(c.nc.Frames[j].Kinds) == 0 {
				return
			}
			now = append(now, c.nc.Frames[j].Kinds...)
		}
		c.add(RuleFrameKindRemoved, at, "%s: %s %s %s was known to every client kind, now only to %s",
			c.oc.Name, dir, f.Name, key(f), strings.Join(now, ", "))
		return
	}
	for _, k := range f.Kinds {
		if !slices.ContainsFunc(travel, func(j int) bool { return c.nc.Frames[j].KnownBy(k) }) {
			c.add(RuleFrameKindRemoved, at, "%s: %s %s %s was known to %s clients; it no longer is",
				c.oc.Name, dir, f.Name, key(f), k)
		}
	}
}

// pick returns the newer frame (of travel) to compare f with: of those known to f's kinds,
// the most like f (its name and gates, then its name), else the first. Version 1 files may
// list a frame twice for the same kinds; each then finds its twin.
func pick(f *Frame, frames []Frame, travel []int) int {
	var known []int
	for _, j := range travel {
		g := &frames[j]
		if (len(f.Kinds) == 0 && len(g.Kinds) == 0) || slices.ContainsFunc(f.Kinds, g.KnownBy) {
			known = append(known, j)
		}
	}
	if len(known) == 0 {
		return travel[0]
	}
	for _, like := range []func(g *Frame) bool{
		func(g *Frame) bool { return g.Name == f.Name && maps.Equal(g.Gates, f.Gates) },
		func(g *Frame) bool { return g.Name == f.Name },
	} {
		for _, j := range known {
			if like(&frames[j]) {
				return j
			}
		}
	}
	return known[0]
}

// gates reports, per path, a gate removed or changed between f and the newer frame j.
func (c *chanDiff) gates(f *Frame, fi, j int, dir string) {
	g := &c.nc.Frames[j]
	type change struct{ rule, ptr, was, is string }
	var order []change
	paths := map[change][]string{}
	for _, p := range c.paths {
		was, wasAt := gateOn(c.oc, f, child(c.op+"/frames", fi), c.op, p, dir)
		is, isAt := gateOn(c.nc, g, c.framePtr(j), c.np, p, dir)
		var ch change
		switch {
		case was == is:
			continue
		case was == "":
			if c.negotiates(f, dir, is) {
				continue
			}
			ch = change{RuleGateAdded, isAt, was, is}
		case is == "":
			ch = change{RuleGateRemoved, wasAt, was, is}
		default:
			ch = change{RuleGateChanged, isAt, was, is}
		}
		if paths[ch] == nil {
			order = append(order, ch)
		}
		paths[ch] = append(paths[ch], p)
	}
	for _, ch := range order {
		on := strings.Join(paths[ch], ", ")
		switch ch.rule {
		case RuleGateRemoved:
			c.add(ch.rule, ch.ptr, "%s: %s %s %s was sent on %s only once %s was negotiated, and now without it: older receivers get it unnegotiated",
				c.oc.Name, dir, f.Name, key(f), on, ch.was)
		case RuleGateAdded:
			c.add(ch.rule, ch.ptr, "%s: %s %s %s shipped ungated on %s and is now sent there only once %s is negotiated, which %s: a capability cannot prove a peer's incapability after the fact, so the gate reads the older builds as incapable and downgrades them (gate a frame where it is new; allow %s when the fallback is lossless for them)",
				c.oc.Name, dir, f.Name, key(f), on, ch.is, c.neverNegotiated(f, dir, ch.is), RuleGateAdded)
		default:
			c.add(ch.rule, ch.ptr, "%s: %s %s %s on %s was gated by %s and now by %s: older peers negotiate %s",
				c.oc.Name, dir, f.Name, key(f), on, ch.was, ch.is, ch.was)
		}
	}
}

// negotiates reports whether the older build negotiates gate, a capability or feature that
// the newer contract gates frame f (of the older channel) by in dir: then the newer build
// still sends it the frame, and adding the gate downgrades no older peer. For a frame the
// host sends, every client kind of the older contract that knows the frame declares the
// capability, or one the newer host infers it from (impliedBy); a feature is the newer
// host's own to advertise. For a frame the client sends, the older host echoes the
// capability, or knows the feature.
func (c *chanDiff) negotiates(f *Frame, dir, gate string) bool {
	capab := c.nc.Capability(gate)
	switch {
	case capab == nil && dir == HostToClient:
		return true
	case capab == nil:
		return slices.ContainsFunc(c.oc.Features, func(ft Feature) bool { return ft.Name == gate })
	case dir == ClientToHost:
		o := c.oc.Capability(gate)
		return o != nil && o.Echoed
	}
	return len(c.undeclared(f, capab)) == 0
}

// undeclared lists the client kinds of the older contract that know f and declare neither
// the capability nor one the newer host infers it from ("" for every kind).
func (c *chanDiff) undeclared(f *Frame, capab *Capability) []string {
	var out []string
	for _, k := range c.knowers(f) {
		if !c.declares(k, capab.Name) && !slices.ContainsFunc(capab.ImpliedBy, func(n string) bool { return c.declares(k, n) }) {
			out = append(out, k)
		}
	}
	return out
}

// neverNegotiated says which older peers do not negotiate gate (for a gate-added message).
func (c *chanDiff) neverNegotiated(f *Frame, dir, gate string) string {
	capab := c.nc.Capability(gate)
	switch {
	case capab == nil:
		return "older hosts do not advertise"
	case dir == ClientToHost:
		return "older hosts do not echo"
	}
	kinds := c.undeclared(f, capab)
	if len(kinds) == 1 && kinds[0] == "" {
		return "not every older client declares"
	}
	return "older " + strings.Join(kinds, ", ") + " clients do not declare"
}

// knowers are the client kinds of the older contract that know f: its kinds, else the
// channel's clientKinds, else "" (every kind: a capability every kind declares).
func (c *chanDiff) knowers(f *Frame) []string {
	switch {
	case len(f.Kinds) > 0:
		return f.Kinds
	case len(c.oc.ClientKinds) > 0:
		return c.oc.ClientKinds
	}
	return []string{""}
}

// declares reports whether a client of kind declares the capability called name in the
// older contract ("": every kind does).
func (c *chanDiff) declares(kind, name string) bool {
	return slices.ContainsFunc(c.oc.Capabilities, func(cp Capability) bool { return cp.Name == name && cp.DeclaredByKind(kind) })
}

// gateOn is the capability or feature that gates frame f (at fp) of ch (at cp) on path in
// dir, and the pointer that says so: its gate for the path, else for "*", else (a frame the
// client sends) the feature listing it, as the capability check reads gates.
func gateOn(ch *Channel, f *Frame, fp, cp, path, dir string) (string, string) {
	if g := f.Gates[path]; g != "" {
		return g, child(fp+"/gates", path)
	}
	if g := f.Gates["*"]; g != "" {
		return g, child(fp+"/gates", "*")
	}
	if dir == ClientToHost {
		for i, ft := range ch.Features {
			if k := slices.Index(ft.Frames, f.Name); k >= 0 {
				return ft.Name, child(child(cp+"/features", i)+"/frames", k)
			}
		}
	}
	return "", ""
}

// compare diffs what a frame says beyond its name and direction: its name, payload and
// fields, as the two builds speak it with each other: at the older build's protocol version
// (a field or variant of later versions is not part of what an older peer sees; see Shape).
func (c *chanDiff) compare(f *Frame, fp string, j int) {
	g, gp := &c.nc.Frames[j], c.framePtr(j)
	what := fmt.Sprintf("%s: %s %s", c.oc.Name, f.Name, key(f))
	if g.Name != f.Name {
		c.add(RuleFrameRenamed, gp+"/name", "%s is now called %s: frame names are permanent (features, negotiation, invariants and journeys name frames)", what, g.Name)
	}
	version := Negotiated(c.old.Protocol, c.new.Protocol)
	os, ns := f.Shape(version), g.Shape(version)
	if os.Payload != "" && ns.Payload != "" && os.Payload != ns.Payload {
		c.add(RulePayloadChanged, gp+ns.PayloadAt, "%s: payload %s is now %s", what, os.Payload, ns.Payload)
	}
	c.fields(what, "", os.Fields, ns.Fields, fp+os.FieldsAt, gp+ns.FieldsAt)
}

// fields diffs two sets of fields at the same place; at names it for messages ("size.").
func (c *chanDiff) fields(what, at string, of, nf map[string]Field, op, np string) {
	for _, name := range sortedKeys(of) {
		n, ok := nf[name]
		if !ok {
			req := "optional"
			if of[name].Required {
				req = "required"
			}
			c.add(RuleFieldRemoved, child(op, name), "%s: %s field %s is gone: older builds still send or read it", what, req, at+name)
			continue
		}
		c.field(what, at+name, of[name], n, child(op, name), child(np, name))
	}
	for _, name := range sortedKeys(nf) {
		if _, ok := of[name]; !ok && nf[name].Required {
			c.add(RuleFieldRequiredAdded, child(np, name), "%s: new field %s is required: older senders do not send it (add it as optional, or since: the protocol version that brought it; if the older side's contract is one a versions: row of skewtest.yaml lays over old tags, give those tags the contract they speak there)", what, at+name)
		}
	}
}

// field diffs one field (named name in messages) and what it holds.
func (c *chanDiff) field(what, name string, o, n Field, op, np string) {
	switch {
	case !o.Required && n.Required:
		c.add(RuleFieldMadeRequired, np+"/required", "%s: field %s was optional and is now required: older senders may leave it out", what, name)
	case o.Required && !n.Required:
		c.add(RuleFieldMadeOptional, np, "%s: field %s was required and is now optional: newer senders may leave out what older receivers require", what, name)
	}
	if o.Type != n.Type {
		c.add(RuleTypeChanged, np+"/type", "%s: field %s was %s and is now %s", what, name, typeName(o.Type), typeName(n.Type))
	}
	if len(n.Enum) > 0 {
		var lost []any
		for _, e := range o.Enum {
			if !inEnum(e, n.Enum) {
				lost = append(lost, e)
			}
		}
		switch {
		case len(o.Enum) == 0:
			c.add(RuleEnumNarrowed, np+"/enum", "%s: field %s took any value and now only %s: older senders may send others", what, name, values(n.Enum))
		case len(lost) > 0:
			c.add(RuleEnumNarrowed, np+"/enum", "%s: field %s no longer takes %s: older senders may still send it", what, name, values(lost))
		}
	}
	if was, is := layout(o), layout(n); was != is {
		c.add(RuleFieldLayoutChanged, np, "%s: binary field %s was %s and is now %s", what, name, orUnplaced(was), orUnplaced(is))
	}
	c.fields(what, name+".", o.Fields, n.Fields, op+"/fields", np+"/fields")
	if o.Items != nil || n.Items != nil {
		var oi, ni Field
		if o.Items != nil {
			oi = *o.Items
		}
		if n.Items != nil {
			ni = *n.Items
		}
		c.field(what, name+"[]", oi, ni, op+"/items", np+"/items")
	}
}

// vocabulary diffs what the channel negotiates and calls: capabilities, features and
// command versions are never removed, and a command version the newer build adds carries
// migration text.
func (c *chanDiff) vocabulary() {
	for k, cp := range c.oc.Capabilities {
		if c.nc.Capability(cp.Name) == nil {
			c.add(RuleCapabilityRemoved, child(c.op+"/capabilities", k), "%s: capability %s is gone: older clients still declare it and older hosts still echo it", c.oc.Name, cp.Name)
		}
	}
	for k, ft := range c.oc.Features {
		if !slices.ContainsFunc(c.nc.Features, func(n Feature) bool { return n.Name == ft.Name }) {
			c.add(RuleFeatureRemoved, child(c.op+"/features", k), "%s: feature %s is gone: older builds still advertise or look for it", c.oc.Name, ft.Name)
		}
	}
	for k, cmd := range c.oc.Commands {
		i := slices.IndexFunc(c.nc.Commands, func(n Command) bool { return n.ID == cmd.ID })
		for vi, v := range cmd.Versions {
			switch {
			case i < 0:
				c.add(RuleCommandVersionDropped, child(child(c.op+"/commands", k)+"/versions", vi), "%s: command %s version %d is gone (the command is gone): older peers still call it", c.oc.Name, cmd.ID, v)
			case !slices.Contains(c.nc.Commands[i].Versions, v):
				c.add(RuleCommandVersionDropped, child(child(c.op+"/commands", k)+"/versions", vi), "%s: command %s version %d is gone: older peers still call it", c.oc.Name, cmd.ID, v)
			}
		}
	}
	c.undocumented(c.oc, c.nc, c.np)
}

func (c *chanDiff) framePtr(j int) string { return child(c.np+"/frames", j) }

// sameKey reports whether two frames have the same opcode, or the same type.
func sameKey(a, b *Frame) bool {
	if a.ByOpcode() != b.ByOpcode() {
		return false
	}
	if a.ByOpcode() {
		return a.Opcode == b.Opcode
	}
	return a.Type == b.Type
}

// key is how a frame is named on the wire: "(opcode 15)", `(type "hello")`.
func key(f *Frame) string {
	if f.ByOpcode() {
		return fmt.Sprintf("(opcode %d)", f.Opcode)
	}
	return fmt.Sprintf("(type %q)", f.Type)
}

// directions are the directions a frame travels in.
func directions(f *Frame) []string {
	if f.Direction == Both {
		return []string{HostToClient, ClientToHost}
	}
	return []string{f.Direction}
}

func typeName(t string) string {
	if t == "" {
		return "of any type"
	}
	return typeText(t)
}

// values lists enum values: "a", 2, null.
func values(enum []any) string {
	return strings.TrimPrefix(enumText(enum), "one of ")
}

// layout says where a binary payload field is read: "u32le at byte 4", "" for JSON fields.
func layout(f Field) string {
	if f.Offset == nil && f.Encoding == "" {
		return ""
	}
	s := f.Encoding
	if f.Offset != nil {
		s += fmt.Sprintf(" at byte %d", *f.Offset)
	}
	if f.Mask != 0 || f.Shift != 0 {
		s += fmt.Sprintf(" mask %#x shift %d", f.Mask, f.Shift)
	}
	return strings.TrimSpace(s)
}

func orUnplaced(s string) string {
	if s == "" {
		return "not placed by offset"
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
