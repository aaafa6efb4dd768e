package checks

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// Differential is the differential oracle for frames: in a skew pairing, each step's frames
// of each direction must fit what one of the two builds does with its own peer — the host
// build's reference (host × host) or the client build's (client × client), less the frames a
// capability gates that this pairing did not negotiate: every frame the pairing sent in the
// step appears in that reference's step, in the same order (a subsequence). A frame the
// host also sends to its own clients is therefore no drift (the receiver's decoder is judged
// by the refusal check); a frame neither build sends there, or frames in an order neither
// shows, are. Frames a reference has and the pairing lacks are not drift by themselves: a
// peer may rightly skip work its counterpart made unneeded, and what is lost is the data-loss
// and stall checks' business. Consecutive frames of one name compare as one (their count
// depends on timing and chunking). A step in which a reference sent a frame gated on a
// capability this pairing did not negotiate is a downgrade: the sender may put other frames
// in that frame's place, so that reference does not judge the step's frames of that direction
// (negotiation explains the difference). Steps after a stall are not compared.
//
// Frames are taken in the step that caused them (see attribution), and a frame may still
// cross a step boundary: one that arrives after the step's exchange settled (an asynchronous
// notification, a second acknowledgement) lands in the next step, in this pairing or in a
// reference. So a step's frames are compared with what the reference shows in that step and
// the two next to it (the steps before and after, in order): a frame the reference shows in
// either of the two steps it could have been counted in fits, however late it arrived, and the
// verdict does not depend on when it did. A frame neither reference shows there, or an order
// neither shows, is still drift. Nor does it depend on which of two crossing requests the
// sender answered first: the replies to a request the peer sent beside other frames of the
// step are held to their order among themselves only (crossingAnswers).
func Differential(in *Input) []results.Finding {
	t := in.Transcript
	// Peers that meet their protocol window and are outside it meet only to refuse: no
	// reference shows that, and the window check judges it. A journey that never reaches a
	// handshake is compared whatever the windows say.
	if in.Reference == nil || in.HostReference == nil || t.Host.Label == t.Client.Label || t.End != nil || refusing(in) {
		return nil
	}
	negotiated := Negotiated(in)
	got, _ := stepFrames(in, nil)
	steps := in.Journey.StepNames()
	type reference struct {
		name       string
		frames     map[stepDir][]string
		downgraded map[stepDir]bool
		done       []string // the steps the reference completed: it judges only those
		stopped    string   // where it stopped, when it did not complete the journey
	}
	ref := func(name string, ri *Input) reference {
		frames, down := stepFrames(ri, negotiated)
		done := ri.Transcript.CompletedSteps()
		return reference{name, frames, down, done, stoppedAt(ri.Transcript, steps, done)}
	}
	refs := []reference{
		ref("host "+t.Host.Label+" × its own client", &Input{Transcript: in.HostReference, Journey: in.Journey, Host: in.Host, Client: in.Host}),
		ref("client "+t.Client.Label+" × its own host", &Input{Transcript: in.Reference, Journey: in.Journey, Host: in.Client, Client: in.Client}),
	}
	stalled := ""
	if t.Stall != nil {
		stalled = t.Stall.Step
	}
	var details, unjudged []string
	firstStep, firstUnjudged := "", ""
	incomplete := map[string]bool{} // the references that stopped before a step they were asked to judge
	completed := t.CompletedSteps()
	for i, step := range steps {
		if !slices.Contains(completed, step) && step != stalled {
			break
		}
		for _, dir := range []string{contract.ClientToHost, contract.HostToClient} {
			k := stepDir{step, dir}
			runs := collapseNames(got[k])
			crossing := crossingAnswers(in, got[stepDir{step, contract.Opposite(dir)}])
			ok, short := len(runs) == 0, false // no frames fit any reference
			for _, r := range refs {
				if ok {
					break
				}
				if !slices.Contains(r.done, step) {
					// A reference that stopped before this step shows nothing it could be
					// compared with: its silence is not what the build does.
					short = true
					incomplete[r.name+" stopped at step "+r.stopped] = true
					continue
				}
				if r.downgraded[k] || fits(runs, collapseNames(window(r.frames, steps, i, dir)), crossing) {
					ok = true
					break
				}
			}
			if ok {
				continue
			}
			if short {
				if firstUnjudged == "" {
					firstUnjudged = step
				}
				unjudged = append(unjudged, fmt.Sprintf("step %s, %s frames: %s", step, dir, runsString(runs)))
				continue
			}
			if firstStep == "" {
				firstStep = step
			}
			var b strings.Builder
			fmt.Fprintf(&b, "step %s, %s frames:\n  this pairing:  %s\n", step, dir, runsString(runs))
			for _, r := range refs {
				fmt.Fprintf(&b, "  %s: %s%s\n", r.name, runsString(collapseNames(r.frames[k])), besides(r.frames, steps, i, dir))
			}
			details = append(details, strings.TrimRight(b.String(), "\n"))
		}
		if step == stalled {
			break
		}
	}
	var out []results.Finding
	if len(details) > 0 {
		out = append(out, results.Finding{Kind: results.SequenceDrift, Step: firstStep,
			Message: "frames differ from both builds' references from step " + firstStep + " (no negotiated capability explains it)",
			Detail:  strings.Join(details, "\n")})
	}
	if len(unjudged) > 0 {
		why := slices.Sorted(maps.Keys(incomplete))
		out = append(out, results.Finding{Kind: results.IncompleteReference, Step: firstUnjudged,
			Message: fmt.Sprintf("frames from step %s not compared: the references are incomplete (%s; their own findings say why)", firstUnjudged, strings.Join(why, ", ")),
			Detail:  "frames no complete reference shows:\n  " + strings.Join(unjudged, "\n  ")})
	}
	return out
}

// stoppedAt names where a reference that did not complete the journey stopped: the stalled
// step, the step it ended on, or the first step it did not complete.
func stoppedAt(t *transcript.Transcript, steps, done []string) string {
	switch {
	case t.Stall != nil:
		return t.Stall.Step
	case t.End != nil:
		return t.End.Step
	}
	for _, s := range steps {
		if !slices.Contains(done, s) {
			return s
		}
	}
	return ""
}

// Owing says what each step of a skew pairing owes before its exchange has settled: the
// frames both builds' references show in the step, less the frames gated on capabilities the
// pairing did not negotiate (a frame may rightly be skipped, so this is what to wait for,
// within a bound, not a verdict). It reads each reference once per negotiated set.
type Owing struct {
	in     *Input
	byCaps map[string]*owingRefs
}

// owingRefs are both references' frames by step and direction, for one negotiated set: the
// host build's reference first, then the client build's.
type owingRefs struct {
	frames     [2]map[stepDir][]string
	downgraded [2]map[stepDir]bool
}

// NewOwing returns what the pairing in owes, nil when it is a reference or a reference is
// missing (in.Transcript need only carry the build labels).
func NewOwing(in *Input) *Owing {
	t := in.Transcript
	if in.Reference == nil || in.HostReference == nil || t.Host.Label == t.Client.Label {
		return nil
	}
	return &Owing{in: in, byCaps: map[string]*owingRefs{}}
}

// refs reads both references for what was negotiated, once per negotiated set.
func (o *Owing) refs(negotiated map[string]bool) *owingRefs {
	var caps []string
	for c, ok := range negotiated {
		if ok {
			caps = append(caps, c)
		}
	}
	slices.Sort(caps)
	key := strings.Join(caps, "\x00")
	refs, ok := o.byCaps[key]
	if !ok {
		in := o.in
		refs = &owingRefs{}
		refs.frames[0], refs.downgraded[0] = stepFrames(&Input{Transcript: in.HostReference, Journey: in.Journey, Host: in.Host, Client: in.Host}, negotiated)
		refs.frames[1], refs.downgraded[1] = stepFrames(&Input{Transcript: in.Reference, Journey: in.Journey, Host: in.Client, Client: in.Client}, negotiated)
		o.byCaps[key] = refs
	}
	return refs
}

// Step lists, per direction, the names of the frames step owes, given what was negotiated.
func (o *Owing) Step(step string, negotiated map[string]bool) map[string][]string {
	if o == nil {
		return nil
	}
	refs := o.refs(negotiated)
	out := map[string][]string{}
	for _, dir := range []string{contract.ClientToHost, contract.HostToClient} {
		for _, name := range refs.frames[0][stepDir{step, dir}] {
			if slices.Contains(refs.frames[1][stepDir{step, dir}], name) && !slices.Contains(out[dir], name) {
				out[dir] = append(out[dir], name)
			}
		}
	}
	return out
}

// Shown lists, per direction, the names of the frames either reference shows in step, given
// what was negotiated: every frame the step may carry, once each has arrived. decided is
// false where that cannot be known: o is nil (no references), or a reference left a frame of
// the step out because this pairing did not negotiate its capability (its sender may put
// other frames in that one's place).
func (o *Owing) Shown(step string, negotiated map[string]bool) (shown map[string][]string, decided bool) {
	if o == nil {
		return nil, false
	}
	refs := o.refs(negotiated)
	shown = map[string][]string{}
	for _, dir := range []string{contract.ClientToHost, contract.HostToClient} {
		k := stepDir{step, dir}
		for r := range refs.frames {
			if refs.downgraded[r][k] {
				return nil, false
			}
			for _, name := range refs.frames[r][k] {
				if !slices.Contains(shown[dir], name) {
					shown[dir] = append(shown[dir], name)
				}
			}
		}
	}
	return shown, true
}

// refusing reports whether the pairing's peers meet their protocol window outside it (as
// the window check judges: the journey meets the window, or a refusal was reported).
func refusing(in *Input) bool {
	return !InWindow(in) && (exercisesWindow(in.Journey) || len(refusals(in)) > 0)
}

type stepDir struct{ step, dir string }

// stepFrames groups the names of the sequence's frames by step and direction. With
// negotiated set, a frame gated on a capability outside it is left out (the reference
// negotiated it, the pairing being judged did not), and its step and direction are reported
// as downgraded.
func stepFrames(in *Input, negotiated map[string]bool) (map[stepDir][]string, map[stepDir]bool) {
	out := map[stepDir][]string{}
	downgraded := map[stepDir]bool{}
	for _, n := range Sequence(in) {
		if negotiated != nil && gatedOut(in, n, negotiated) {
			downgraded[stepDir{n.Step, n.Dir}] = true
			continue
		}
		k := stepDir{n.Step, n.Dir}
		out[k] = append(out[k], n.Name)
	}
	return out, downgraded
}

// window is what a reference shows in step i and the steps next to it, in order: the
// frames a pairing's step i may hold, one that crossed the boundary either way included.
func window(frames map[stepDir][]string, steps []string, i int, dir string) []string {
	var out []string
	for j := max(i-1, 0); j <= i+1 && j < len(steps); j++ {
		out = append(out, frames[stepDir{steps[j], dir}]...)
	}
	return out
}

// besides says what a reference shows in the steps next to step i, for a drift's detail.
func besides(frames map[stepDir][]string, steps []string, i int, dir string) string {
	var parts []string
	for _, j := range []int{i - 1, i + 1} {
		if j < 0 || j >= len(steps) {
			continue
		}
		if r := collapseNames(frames[stepDir{steps[j], dir}]); len(r) > 0 {
			parts = append(parts, steps[j]+": "+runsString(r))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (next to it, " + strings.Join(parts, "; ") + ")"
}

// collapseNames collapses consecutive frames of one name into one.
func collapseNames(names []string) []string {
	var out []string
	for _, n := range names {
		if len(out) > 0 && out[len(out)-1] == n {
			continue
		}
		out = append(out, n)
	}
	return out
}

// gatedOut says a reference's frame is gated (in its sender's contract) on a capability
// that is not in negotiated.
func gatedOut(in *Input, n Named, negotiated map[string]bool) bool {
	send, kind := in.sender(n.Dir)
	if send == nil || n.Err != nil {
		return false
	}
	ch := send.Channel(n.Path)
	if ch == nil {
		return false
	}
	def := ch.Named(n.Name, n.Dir, kind)
	if def == nil {
		return false
	}
	g := gateOf(ch, def, n)
	return g != "" && !negotiated[g]
}

// gateOf is the capability (or session feature) that gates a frame on its path.
func gateOf(ch *contract.Channel, def *contract.Frame, n Named) string {
	if g := def.Gate(n.Path); g != "" {
		return g
	}
	if n.Dir == contract.ClientToHost {
		return ch.FeatureOf(def.Name)
	}
	return ""
}

// crossed says which frames of a step are held to their presence, or to their order among
// themselves only, because the peer sent them as answers to requests that crossed other
// frames (crossingAnswers).
type crossed struct {
	free   map[string]bool // answers to several requests of one kind: presence only
	groups [][]string      // the answers to one request, ordered among themselves only
}

// crossingAnswers reads the correlation and echo invariants of either build's contract for
// the replies whose place among a step's frames is the sender's timing: requests are the
// names of the frames the peer sent in the step. An invariant's replies are placed by timing
// when the peer sent one of its requests beside other frames: a peer that sends two requests
// before either is answered may get the answers in either order (the sender answers each
// when it is done with it; nothing in a contract says it answers in the order they came).
// The answers to one request keep their order among themselves; a reply whose request is
// the only frame the peer sent in the step keeps its place.
func crossingAnswers(in *Input, requests []string) crossed {
	var out crossed
	for _, c := range []*contract.Contract{in.Host, in.Client} {
		if c == nil {
			continue
		}
		for _, ch := range c.Channels {
			for _, inv := range ch.Invariants {
				if inv.Kind != contract.InvariantCorrelation && inv.Kind != contract.InvariantEcho {
					continue
				}
				asked, other := 0, false
				for _, r := range requests {
					if slices.Contains(inv.Request, r) {
						asked++
					} else {
						other = true
					}
				}
				switch {
				case asked == 0 || !other:
				case asked == 1:
					out.groups = append(out.groups, inv.Reply)
				default:
					if out.free == nil {
						out.free = map[string]bool{}
					}
					for _, r := range inv.Reply {
						out.free[r] = true
					}
				}
			}
		}
	}
	return out
}

// fits reports whether a step's frames (runs of one name collapsed) fit what a reference
// shows around the step: every name is one the reference shows there, and the frames are in
// an order the reference shows (got is ref with frames left out). A name sent at several
// moments (in two or more runs, in the step or in the reference's window: an acknowledgement,
// a notification a peer pushes on its own) interleaves with the rest as the two processes'
// timing has it, so it is held to its presence, not to its place; so is an answer to a request
// that crossed other frames (crossing), whose order is held only among the answers to that
// request.
func fits(got, ref []string, crossing crossed) bool {
	floating := map[string]bool{}
	for n := range crossing.free {
		floating[n] = true
	}
	for _, runs := range [][]string{got, ref} {
		seen := map[string]bool{}
		for _, n := range runs {
			floating[n] = floating[n] || seen[n]
			seen[n] = true
		}
	}
	grouped := map[string]bool{}
	for _, g := range crossing.groups {
		for _, n := range g {
			grouped[n] = true
		}
	}
	// only is names (the floating left out) of the names in keep.
	only := func(names []string, keep func(string) bool) []string {
		var out []string
		for _, n := range names {
			if !floating[n] && keep(n) {
				out = append(out, n)
			}
		}
		return collapseNames(out)
	}
	for _, n := range got {
		if !slices.Contains(ref, n) {
			return false
		}
	}
	for _, g := range crossing.groups {
		in := func(n string) bool { return slices.Contains(g, n) }
		if !isSubsequence(only(got, in), only(ref, in)) {
			return false
		}
	}
	rest := func(n string) bool { return !grouped[n] }
	return isSubsequence(only(got, rest), only(ref, rest))
}

// isSubsequence reports whether got is ref with some frames left out.
func isSubsequence(got, ref []string) bool {
	i := 0
	for _, r := range ref {
		if i < len(got) && got[i] == r {
			i++
		}
	}
	return i == len(got)
}

func runsString(r []string) string {
	if len(r) == 0 {
		return "(none)"
	}
	return strings.Join(r, ", ")
}

// FinalState is the differential oracle for what each side reports at the end: every part of
// the final state the contracts declare (state: the last matching observation of a role, at
// a pointer) must equal what the host build's reference or the client build's reports. A
// value neither reference shows is data loss, with both references in the evidence. Pairings
// outside the protocol window, and journeys that did not complete, are not compared.
func FinalState(in *Input) []results.Finding {
	t := in.Transcript
	if in.Reference == nil || in.HostReference == nil || t.Host.Label == t.Client.Label || refusing(in) ||
		t.End != nil || t.Stall != nil || len(t.CompletedSteps()) < len(in.Journey.Steps) {
		return nil
	}
	var out []results.Finding
	for _, name := range stateNames(in) {
		spec := func(prefer *contract.Contract) *contract.StateSpec {
			for _, c := range []*contract.Contract{prefer, in.Host, in.Client} {
				if s := c.StateNamed(name); s != nil {
					return s
				}
			}
			return nil
		}
		own := spec(in.contractOf(roleOfState(in, name)))
		got, ok := finalValue(t, own)
		if !ok {
			continue
		}
		h, hok := finalValue(in.HostReference, spec(in.Host))
		c, cok := finalValue(in.Reference, spec(in.Client))
		if (hok && h == got) || (cok && c == got) {
			continue
		}
		out = append(out, results.Finding{Kind: results.DataLoss, Step: lastStep(t), Direction: dirOfRole(own.Role),
			Message: fmt.Sprintf("final state %s (%s) differs from both builds' references", name, own.Role),
			Detail: fmt.Sprintf("this pairing:                %s\nhost %s × its own client: %s\nclient %s × its own host: %s",
				clip(got), t.Host.Label, orNone(h, hok), t.Client.Label, orNone(c, cok))})
	}
	return out
}

// stateNames lists the state parts either contract declares, host contract's first.
func stateNames(in *Input) []string {
	var out []string
	for _, c := range []*contract.Contract{in.Host, in.Client} {
		if c == nil {
			continue
		}
		for _, s := range c.State {
			if !slices.Contains(out, s.Name) {
				out = append(out, s.Name)
			}
		}
	}
	return out
}

func roleOfState(in *Input, name string) string {
	for _, c := range []*contract.Contract{in.Host, in.Client} {
		if s := c.StateNamed(name); s != nil {
			return s.Role
		}
	}
	return contract.RoleClient
}

// finalValue is a state part's last reported value, as JSON text.
func finalValue(t *transcript.Transcript, s *contract.StateSpec) (string, bool) {
	if s == nil {
		return "", false
	}
	m := contract.Match{Role: s.Role, Observation: s.Observation, Where: s.Where}
	var last *transcript.Observation
	for i := range t.Observations {
		if o := &t.Observations[i]; !o.Teardown && matches(m, *o) {
			last = o
		}
	}
	if last == nil {
		return "", false
	}
	v, ok := last.Value()
	if !ok {
		return "", false
	}
	if s.Pointer != "" {
		if v, ok = contract.Resolve(v, s.Pointer); !ok {
			return "", false
		}
	}
	b, _ := json.Marshal(v)
	return string(b), true
}

func dirOfRole(role string) string {
	if role == contract.RoleHost {
		return contract.ClientToHost
	}
	return contract.HostToClient
}

func lastStep(t *transcript.Transcript) string {
	if n := len(t.Steps); n > 0 {
		return t.Steps[n-1].Name
	}
	return ""
}

func orNone(v string, ok bool) string {
	if !ok {
		return "(not reported)"
	}
	return clip(v)
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
