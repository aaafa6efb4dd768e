package contract

import (
	"fmt"
	"slices"
	"strings"
)

// Client kinds decided per frame. A channel that declares its clientKinds says, for every
// frame the host sends on it and every kind, one of three things: the kind knows the frame
// (kinds absent or listing it), the frame is gated (sent only once negotiated), or the host
// never sends it to that kind (never). A frame that says none of them for a kind is
// undecided: the host may send it to a client whose decoder drops it, which is how a new
// opcode reached a mobile client's vendored table unnoticed. Undecided frames are warnings,
// not violations: the contract is valid, and a person should decide.

// WarnFrameKindUndecided is the id of the warning for a frame the host sends whose contract
// decides nothing about it for some of the channel's client kinds.
const WarnFrameKindUndecided = "frame-kind-undecided"

// Warning is something a contract leaves undecided that a person should look at; it breaks
// no rule (Diff) and makes no contract invalid (Parse).
type Warning struct {
	// Rule is the warning's id (WarnFrameKindUndecided).
	Rule string `json:"rule"`
	// Pointer is an RFC 6901 pointer into the contract's model; File and Line place it (empty
	// and 0 for a contract made in Go).
	Pointer string `json:"pointer"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

// String is "file:line: warning: rule: message", or "contract at pointer: warning: …" when
// the file is not known.
func (w Warning) String() string {
	place := fmt.Sprintf("%s:%d", w.File, w.Line)
	if w.File == "" {
		place = "contract at " + orRoot(w.Pointer)
	}
	return place + ": warning: " + w.Rule + ": " + w.Message
}

// Warnings returns what the contract leaves undecided, in its order: the frames the host
// sends on a channel that declares clientKinds that say neither that a kind knows them, nor
// gate them, nor never send them to it.
func Warnings(c *Contract) []Warning {
	var out []Warning
	for i := range c.Channels {
		ch, cp := &c.Channels[i], child("/channels", i)
		for j := range ch.Frames {
			f := &ch.Frames[j]
			undecided := ch.undecided(f)
			if len(undecided) == 0 {
				continue
			}
			fp := child(cp+"/frames", j)
			out = append(out, Warning{Rule: WarnFrameKindUndecided, Pointer: fp, File: c.File(), Line: c.Line(fp),
				Message: fmt.Sprintf(`%s: H>C %s %s says nothing about %s clients: the host may send it to a decoder that drops it. Say which: list the kind in "kinds" (it decodes the frame), gate the frame, or add it to "never" (the host never sends it there)`,
					ch.Name, f.Name, key(f), strings.Join(undecided, ", "))})
		}
	}
	return out
}

// WarningsSince returns the warnings of newer that older does not have (by rule and
// message, which name the channel, the frame and the kinds, not the line): what the newer
// build introduced.
func WarningsSince(older, newer *Contract) []Warning {
	had := map[string]bool{}
	for _, w := range Warnings(older) {
		had[w.Rule+"\x00"+w.Message] = true
	}
	var out []Warning
	for _, w := range Warnings(newer) {
		if !had[w.Rule+"\x00"+w.Message] {
			out = append(out, w)
		}
	}
	return out
}

// undecided lists the channel's client kinds for which frame f, if the host sends it, is
// neither known, gated nor never sent.
func (ch *Channel) undecided(f *Frame) []string {
	if !f.Travels(HostToClient) || len(f.Gates) > 0 {
		return nil
	}
	var out []string
	for _, k := range ch.ClientKinds {
		if !f.KnownBy(k) && !slices.Contains(f.Never, k) {
			out = append(out, k)
		}
	}
	return out
}

// clientKinds checks a channel's clientKinds and what its frames say of kinds: declared
// kinds are named once; once a channel declares them, a frame's kinds and never name
// declared kinds only; never says what the host sends, of a kind that does not know the
// frame.
func (v *validator) clientKinds(ch *Channel, p string) {
	declared := map[string]bool{}
	if v.root.at(p+"/clientKinds") != nil && len(ch.ClientKinds) == 0 {
		v.add(p+"/clientKinds", "clientKinds is empty: list the client kinds that use channel %q, or leave it out", ch.Name)
	}
	for i, k := range ch.ClientKinds {
		switch {
		case k == "":
			v.add(child(p+"/clientKinds", i), "a client kind is empty")
		case declared[k]:
			v.add(child(p+"/clientKinds", i), "client kind %q is listed twice", k)
		}
		declared[k] = true
	}
	kinds := strings.Join(ch.ClientKinds, ", ")
	for j := range ch.Frames {
		f, fp := &ch.Frames[j], child(p+"/frames", j)
		if len(ch.ClientKinds) > 0 {
			for i, k := range f.Kinds {
				if k != "" && !declared[k] {
					v.add(child(fp+"/kinds", i), "kind %q is not one of channel %q's clientKinds (%s): declare it there, or fix the name", k, ch.Name, kinds)
				}
			}
		}
		if len(f.Never) > 0 && !f.Travels(HostToClient) {
			v.add(fp+"/never", "never says which client kinds the host never sends a frame to, and %s travels C>H only: remove it", f.Name)
		}
		for i, k := range f.Never {
			at := child(fp+"/never", i)
			switch {
			case len(ch.ClientKinds) == 0:
				v.add(at, `never names client kinds the channel declares: add "clientKinds" (every kind that uses it) to channel %q`, ch.Name)
			case !declared[k]:
				v.add(at, "kind %q is not one of channel %q's clientKinds (%s): declare it there, or fix the name", k, ch.Name, kinds)
			case slices.Contains(f.Kinds, k):
				v.add(at, "frame %q lists %s in kinds (it decodes the frame) and in never (the host never sends it there): keep one", f.Name, k)
			case slices.Index(f.Never, k) < i:
				v.add(at, "kind %q is listed twice", k)
			}
		}
	}
}
