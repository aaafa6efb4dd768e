package contract

import (
	"maps"
	"slices"
	"strings"
	"time"
)

// parseV2 reads and validates a version 2 document and loads the files it refers to.
func parseV2(root *node, read func(string) ([]byte, error), sources func() ProtoSources) (*Contract, []error) {
	var c Contract
	if err := decodeStrict(root, "", &c); err != nil {
		return nil, []error{err}
	}
	v := validator{root: root, read: read, sources: sources}
	v.contract(&c)
	if len(v.problems) > 0 {
		return nil, v.problems
	}
	return &c, nil
}

// validator collects the problems of a version 2 contract.
type validator struct {
	root     *node
	read     func(string) ([]byte, error)
	sources  func() ProtoSources // where a protobuf codec's .proto files are
	problems []error
}

func (v *validator) add(ptr, format string, args ...any) {
	v.problems = append(v.problems, bad(ptr, format, args...))
}

func (v *validator) contract(c *Contract) {
	if c.Protocol.Version > 0 && c.Protocol.MinCompatible > c.Protocol.Version {
		v.add("/protocol/minCompatible", "minCompatible %d is above version %d", c.Protocol.MinCompatible, c.Protocol.Version)
	}
	if o := c.Protocol.Omitted; v.root.at("/protocol/omitted") != nil && (o < 1 || o > c.Protocol.Version) {
		v.add("/protocol/omitted", "omitted %d is not a protocol version from 1 to this build's %d: it is the version a peer that declares none speaks", o, c.Protocol.Version)
	}
	for _, k := range slices.Sorted(maps.Keys(c.Protocol.Kinds)) {
		if kv := c.Protocol.Kinds[k]; kv < 1 || kv > c.Protocol.Version {
			v.add(child("/protocol/kinds", k), "kinds %s: %d is not a protocol version from 1 to this build's %d: it is the version this build's %s clients speak", k, kv, c.Protocol.Version, k)
		}
	}
	names, paths := map[string]bool{}, map[string]string{}
	for i := range c.Channels {
		ch := &c.Channels[i]
		p := child("/channels", i)
		if ch.Name == "" {
			v.add(p, "a channel needs a name")
		} else if names[ch.Name] {
			v.add(p+"/name", "two channels are called %q: channel names are unique", ch.Name)
		}
		names[ch.Name] = true
		if len(ch.Paths) == 0 {
			v.add(p, "channel %q needs at least one path", ch.Name)
		}
		for j, path := range ch.Paths {
			switch {
			case !strings.HasPrefix(path, "/"):
				v.add(child(p+"/paths", j), "path %q does not start with /", path)
			case paths[path] != "":
				v.add(child(p+"/paths", j), "path %s is served by channel %q too: a path belongs to one channel", path, paths[path])
			}
			paths[path] = ch.Name
		}
		v.channel(ch, p)
	}
	v.product(c)
}

func (v *validator) channel(ch *Channel, p string) {
	if ch.Quiet != "" {
		if d, err := time.ParseDuration(ch.Quiet); err != nil || d <= 0 {
			v.add(p+"/quiet", "quiet %q is not a positive duration such as \"30s\"", ch.Quiet)
		}
	}
	if ch.Text == nil && ch.Binary == nil {
		v.add(p, `channel %q has no codec: give "text", "binary" or both`, ch.Name)
	}
	if ch.Text != nil {
		v.codec(ch.Text, p+"/text")
	}
	if ch.Binary != nil {
		v.codec(ch.Binary, p+"/binary")
	}
	for j := range ch.Frames {
		v.frame(ch, &ch.Frames[j], child(p+"/frames", j))
	}
	v.duplicates(ch, p)
	capNames := map[string]bool{}
	for j, c := range ch.Capabilities {
		cp := child(p+"/capabilities", j)
		if c.Name == "" {
			v.add(cp, "a capability needs a name")
		} else if capNames[c.Name] {
			v.add(cp+"/name", "capability %q is listed twice", c.Name)
		}
		capNames[c.Name] = true
	}
	for j, n := range ch.Negotiation {
		v.negotiation(ch, n, child(p+"/negotiation", j))
	}
	if ch.Scope != nil {
		v.pointer(ch.Scope.Pointer, p+"/scope/pointer", true)
	}
	for j, f := range ch.Features {
		fp := child(p+"/features", j)
		if f.Name == "" {
			v.add(fp, "a feature needs a name")
		}
		for k, name := range f.Frames {
			if ch.Named(name, "", "") == nil {
				v.add(child(fp+"/frames", k), "feature %q gates frame %q, which the channel does not list", f.Name, name)
			}
		}
	}
	for j := range ch.Commands {
		v.command(&ch.Commands[j], child(p+"/commands", j))
	}
	if ch.Calls != nil {
		v.calls(ch, p+"/calls")
	}
	v.clientKinds(ch, p)
	for j, inv := range ch.Invariants {
		v.invariant(ch, inv, child(p+"/invariants", j))
	}
}

// invariant checks one invariant's shape: correlation and echo name request and reply frames
// and the pointers that must agree; order names a start, an end and optionally a chunk.
func (v *validator) invariant(ch *Channel, inv Invariant, p string) {
	known := func(name, at string) {
		if ch.Named(name, "", "") == nil {
			v.add(at, "channel %q has no frame called %q", ch.Name, name)
		}
	}
	switch inv.Kind {
	case InvariantCorrelation, InvariantEcho:
		if len(inv.Request) == 0 || len(inv.Reply) == 0 {
			v.add(p, `a %s invariant names its "request" and "reply" frames`, inv.Kind)
		}
		// A list may name frames of other releases (a contract generated per release keeps
		// one invariant): at least one of each list must be this channel's.
		for _, l := range []struct {
			names []string
			at    string
		}{{inv.Request, "/request"}, {inv.Reply, "/reply"}} {
			if len(l.names) > 0 && !slices.ContainsFunc(l.names, func(n string) bool { return ch.Named(n, "", "") != nil }) {
				v.add(p+l.at, "channel %q has none of the frames %q", ch.Name, l.names)
			}
		}
		v.pointer(inv.Pointer, p+"/pointer", true)
		v.pointer(inv.ReplyPointer, p+"/replyPointer", false)
		if inv.Start+inv.End+inv.Chunk != "" {
			v.add(p, "start, end and chunk belong to an order invariant")
		}
		if inv.Kind == InvariantEcho && len(inv.Reserved) > 0 {
			v.add(p+"/reserved", "reserved values belong to a correlation invariant")
		}
		switch {
		case inv.Answered == "":
		case inv.Kind == InvariantEcho:
			v.add(p+"/answered", "answered belongs to a correlation invariant")
		case inv.Answered != AnsweredOnce:
			v.add(p+"/answered", "answered is %q (every request answered exactly once), not %q", AnsweredOnce, inv.Answered)
		}
	case InvariantOrder:
		if len(inv.Reserved) > 0 {
			v.add(p+"/reserved", "reserved values belong to a correlation invariant")
		}
		if inv.Answered != "" {
			v.add(p+"/answered", "answered belongs to a correlation invariant")
		}
		if inv.Start == "" || inv.End == "" {
			v.add(p, `an order invariant names its "start" and "end" frames (and optionally "chunk")`)
		}
		for _, n := range []struct{ name, at string }{{inv.Start, "/start"}, {inv.End, "/end"}, {inv.Chunk, "/chunk"}} {
			if n.name != "" {
				known(n.name, p+n.at)
			}
		}
		if len(inv.Request)+len(inv.Reply) > 0 || inv.Pointer != "" || inv.ReplyPointer != "" {
			v.add(p, "request, reply and pointers belong to correlation and echo invariants")
		}
	default:
		v.add(p+"/kind", "invariant kind %q is not correlation, echo or order", inv.Kind)
	}
}

func (v *validator) negotiation(ch *Channel, n Negotiation, p string) {
	switch {
	case (n.Observation == "") == (n.Frame == ""):
		v.add(p, `a negotiation names an "observation" of the client driver or a "frame", exactly one`)
	case n.Frame != "":
		if n.Dir != HostToClient && n.Dir != ClientToHost {
			v.add(p+"/dir", `a negotiation frame needs "dir": "H>C" or "C>H", got %q`, n.Dir)
		} else if ch.Named(n.Frame, n.Dir, "") == nil {
			v.add(p+"/frame", "channel %q has no %s frame called %q", ch.Name, n.Dir, n.Frame)
		}
		if n.Where != nil {
			v.add(p+"/where", `"where" filters observations; a frame is chosen by its name`)
		}
	case n.Dir != "":
		v.add(p+"/dir", `"dir" belongs to a negotiation frame; an observation comes from the client driver`)
	}
	for k, val := range n.Where {
		switch val.(type) {
		case string, float64, bool, nil:
		default:
			v.add(child(p+"/where", k), "a where value is a string, number, boolean or null, got %s", jsonClass(val))
		}
	}
	v.pointer(n.Pointer, p+"/pointer", false)
}
