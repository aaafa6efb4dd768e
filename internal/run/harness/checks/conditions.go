package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
)

// condition is one journey condition ([name] or [name:ARG]): how it is written and when it
// holds. The table is the one place conditions are known: validation and evaluation both
// read it.
type condition struct {
	arg   string // the argument's placeholder ("K", "NAME"), "" when it takes none
	holds func(c *condContext, arg string) bool
	check func(arg string) error // what is wrong with an argument, or nil; nil takes any
}

// condContext is what conditions read about a pairing.
type condContext struct {
	in        *Input
	caps      map[string]bool // what was negotiated, read on first use
	capsKnown bool
	// negotiation, when set, finds what was negotiated instead of Negotiated.
	negotiation func() map[string]bool
	// channels is the channel each line's conditions are about (ConditionChannels), and
	// line the line being evaluated.
	channels map[int]CondChannel
	line     int
}

// negotiated is Negotiated(c.in), found the first time a condition needs it: a [kind:K]
// line reads no negotiation.
func (c *condContext) negotiated(name string) bool {
	if !c.capsKnown {
		if c.negotiation != nil {
			c.caps = c.negotiation()
		} else {
			c.caps = Negotiated(c.in)
		}
		c.capsKnown = true
	}
	return c.caps[name]
}

// channel is the channel the current line's conditions are about, and whether one was
// decided (a command condition on a line without one is about every channel). A condition
// asked of no journey line (line 0) is about the contracts' one channel, if they have one.
func (c *condContext) channel() (CondChannel, bool) {
	if ch, ok := c.channels[c.line]; ok {
		return ch, true
	}
	if names := ChannelNames(c.in.Host, c.in.Client); len(names) == 1 {
		return CondChannel{Name: names[0]}, true
	}
	return CondChannel{}, false
}

// gatePath is the path whose gate applies to a frame the host's channel hc knows: the
// line's (CondChannel.Path), else the channel's one path; "" (the gate for every path)
// for a channel of several paths the journey names none of.
func gatePath(ch CondChannel, hc *contract.Channel) string {
	if ch.Path == "" && hc != nil && len(hc.Paths) == 1 {
		return hc.Paths[0]
	}
	return ch.Path
}

var conditions = map[string]condition{
	"kind": {arg: "K", holds: func(c *condContext, k string) bool { return c.in.Transcript.Kind == k }},
	"cap":  {arg: "NAME", holds: func(c *condContext, name string) bool { return c.negotiated(name) }},
	// frame:NAME: both builds know frame NAME on the line's channel (the client for its
	// kind) and, where the host's contract gates it on the channel's path, the contracts say
	// the gate is negotiated (gateExpected): decided from the contracts, never the traffic.
	// frame:NAME where K=V …: also, a frame NAME carrying every K=V was tapped so far.
	"frame": {arg: "NAME [where K=V …]", check: checkFrameArg, holds: func(c *condContext, arg string) bool {
		name, where, _ := FrameArg(arg)
		hf, cf := c.named(c.in.Host, name, ""), c.named(c.in.Client, name, c.in.Transcript.Kind)
		if hf == nil || cf == nil {
			return false
		}
		ch, _ := c.channel()
		hc := c.in.Host.ChannelNamed(ch.Name)
		if g := hf.Gate(gatePath(ch, hc)); g != "" && !gateExpected(hc, c.in.Client.ChannelNamed(ch.Name), c.in.Transcript.Kind, g) {
			return false
		}
		return where == nil || slices.ContainsFunc(NameFrames(c.in), func(n Named) bool {
			return n.Name == name && !n.Teardown && n.Err == nil && n.Carries(where)
		})
	}},
	// client-frame:NAME: the client's contract knows frame NAME on the line's channel for its
	// kind, whatever the host knows (to make an old client try what it would try in the
	// field).
	"client-frame": {arg: "NAME", holds: func(c *condContext, name string) bool {
		return c.named(c.in.Client, name, c.in.Transcript.Kind) != nil
	}},
	// window: each build's protocol version is at least the other's minimum compatible one.
	"window": {holds: func(c *condContext, _ string) bool { return InWindow(c.in) }},
	// command:NAME@V: both builds' contracts declare command NAME at version V, so a client
	// may call that version explicitly.
	"command": {arg: "NAME@V", check: checkCommandArg, holds: func(c *condContext, arg string) bool {
		return c.speaks(c.in.Host, arg) && c.speaks(c.in.Client, arg)
	}},
	// host-command:NAME@V: the host's contract declares command NAME at version V, whatever
	// the client declares (what a probe of that version is answered with).
	"host-command": {arg: "NAME@V", check: checkCommandArg, holds: func(c *condContext, arg string) bool {
		return c.speaks(c.in.Host, arg)
	}},
}

// FrameArg splits a frame condition's argument, NAME or NAME where K=V …, into the frame's
// name and its where clause (nil without one).
func FrameArg(arg string) (name string, where []Where, err error) {
	words := strings.Fields(arg)
	if len(words) == 0 {
		return "", nil, fmt.Errorf("want a frame name")
	}
	name = words[0]
	if len(words) == 1 {
		return name, nil, nil
	}
	if words[1] != WhereWord || len(words) == 2 {
		return name, nil, fmt.Errorf("after the frame name, want where and KEY=VALUE words, not %q", strings.Join(words[1:], " "))
	}
	where, err = ParseWhere(words[2:])
	if err == nil {
		for _, w := range where {
			if err = CheckWhereKey(w.Key); err != nil {
				break
			}
		}
	}
	return name, where, err
}

func checkFrameArg(arg string) error {
	_, _, err := FrameArg(arg)
	return err
}

// ConditionSyntax lists the conditions as written, for messages.
func ConditionSyntax() string {
	var forms []string
	for name, c := range conditions {
		if c.arg != "" {
			name += ":" + c.arg
		}
		forms = append(forms, name)
	}
	slices.Sort(forms)
	return strings.Join(forms, ", ")
}

// CheckCondition says what is wrong with a condition's name, or nil.
func CheckCondition(c journeys.Cond) error {
	key, arg, hasArg := strings.Cut(c.Name, ":")
	def, ok := conditions[key]
	switch {
	case !ok:
		return fmt.Errorf("unknown condition %s (want %s)", c, ConditionSyntax())
	case def.arg != "" && (!hasArg || arg == ""):
		return fmt.Errorf("condition %s needs an argument: [%s:%s]", c, key, def.arg)
	case def.arg == "" && hasArg:
		return fmt.Errorf("condition %s takes no argument: [%s]", c, key)
	case def.check != nil:
		if err := def.check(arg); err != nil {
			return fmt.Errorf("condition %s: %v: [%s:%s]", c, err, key, def.arg)
		}
	}
	return nil
}

// Conditions evaluates the conditions of a journey line for this pairing (see the
// conditions table): has(line, name).
func Conditions(in *Input) func(line int, name string) bool { return ConditionsWith(in, nil) }

// ConditionsWith is Conditions with what was negotiated found by negotiation (a running
// journey's NegotiationReader), when not nil. The channel of each line is in.Channels, else
// decided here (ConditionChannels); a line whose channel cannot be decided has no frame
// condition that holds, but a journey that runs was checked for those first (the harness's
// CheckChannels).
func ConditionsWith(in *Input, negotiation func() map[string]bool) func(line int, name string) bool {
	c := &condContext{in: in, negotiation: negotiation, channels: in.Channels}
	if c.channels == nil && in.Journey != nil {
		c.channels, _ = ConditionChannels(in.Journey, in.Host, in.Client)
	}
	return func(line int, name string) bool {
		key, arg, _ := strings.Cut(name, ":")
		def, ok := conditions[key]
		c.line = line
		return ok && def.holds(c, arg)
	}
}

// HoldsAt reports whether every condition of the journey line at line holds, by has
// (Conditions).
func HoldsAt(has func(line int, name string) bool, line int, conds []journeys.Cond) bool {
	return journeys.Holds(conds, func(name string) bool { return has(line, name) })
}

// Expected returns the journey's expected frame sequence for this pairing.
func Expected(in *Input) []journeys.FrameLine {
	has := Conditions(in)
	var out []journeys.FrameLine
	for _, fl := range in.Journey.Frames {
		if HoldsAt(has, fl.Line, fl.Conds) {
			out = append(out, fl)
		}
	}
	return out
}
