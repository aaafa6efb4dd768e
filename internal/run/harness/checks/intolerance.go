package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// FutureMarker starts every name the future-peer rewrites add (future.Marker): a finding of
// a check that reads frames and names one is about the rewrite itself, not about what the
// receiver did with it (aboutRewrite).
const FutureMarker = "skewtestFuture"

// Intolerance is the future-peer oracle: fut is the pairing run again with the frames bound
// for the build under test rewritten as a later release may send them (transcript frames with
// Original set), base the same pairing unmodified, and baseFindings, futFindings what the
// checks found in each. Every difference the rewrite made in the receiver's behaviour is an
// intolerant-decoder finding:
//
//   - a finding of the rewritten run that the unmodified run does not have (same kind, step,
//     direction and frame): a refusal, a rejection, data loss, a stall …;
//   - frames the receiver sent back in a step that the unmodified run's receiver did not
//     send there, or did and now does not (compared as sets of names per step: their order
//     and count depend on timing);
//   - a part of the final state the contracts declare that differs.
//
// What the driver of a build that only sent rewritten frames reported as an error is left
// out: that build was not under test, and its bookkeeping of what it sent (bytes to be
// acknowledged, say) no longer matches what arrived. A reference of the build under test
// is therefore rewritten one direction at a time (harness.RunFuture).
//
// Each finding's detail shows the rewrites of the step (and frame) it is about.
func Intolerance(base, fut *Input, baseFindings, futFindings []results.Finding) []results.Finding {
	rewritten := map[string]bool{}
	for _, f := range fut.Transcript.Frames {
		if f.Original != nil {
			rewritten[f.Dir] = true
		}
	}
	if len(rewritten) == 0 {
		return nil
	}
	var out []results.Finding
	seen := map[string]bool{}
	for _, f := range baseFindings {
		seen[findingKey(f)] = true
	}
	// A build that only sent rewritten frames was not under test: what its own driver
	// reports comes from the rewrite (its bookkeeping of what it sent no longer matches what
	// arrived), not from a receiver.
	senderOnly := ""
	switch {
	case rewritten[contract.HostToClient] && !rewritten[contract.ClientToHost]:
		senderOnly = string(transcript.Host)
	case rewritten[contract.ClientToHost] && !rewritten[contract.HostToClient]:
		senderOnly = string(transcript.Client)
	}
	for _, f := range futFindings {
		if seen[findingKey(f)] || aboutRewrite(f) ||
			(senderOnly != "" && f.Kind == results.DriverError && strings.HasPrefix(f.Message, senderOnly+" driver ")) {
			continue
		}
		seen[findingKey(f)] = true
		name := ""
		if f.Frame != nil {
			name = f.Frame.Name
		}
		out = append(out, results.Finding{Kind: results.IntolerantDecoder, Step: f.Step, Direction: f.Direction, Frame: f.Frame,
			Message: fmt.Sprintf("with frames rewritten as a later release may send them: %s: %s", f.Kind, f.Message),
			Detail:  joinDetail(f.Detail, rewrites(fut, f.Step, f.Direction, name))})
	}
	// Frames the receiver sends back.
	for _, dir := range []string{contract.ClientToHost, contract.HostToClient} {
		back := contract.Opposite(dir)
		if !rewritten[dir] {
			continue
		}
		b, r := namesByStep(base, back), namesByStep(fut, back)
		steps := fut.Journey.StepNames()
		for _, step := range comparedSteps(base.Transcript, fut.Transcript, steps) {
			// A frame that crossed into the next step, in either run, is no difference.
			i := slices.Index(steps, step)
			gone, added := absentNear(b[step], r, steps, i), absentNear(r[step], b, steps, i)
			if len(gone) == 0 && len(added) == 0 {
				continue
			}
			var d strings.Builder
			fmt.Fprintf(&d, "%s frames of step %s:\n  unmodified run only: %s\n  rewritten run only:  %s", back, step,
				orNoneList(gone), orNoneList(added))
			out = append(out, results.Finding{Kind: results.IntolerantDecoder, Step: step, Direction: back,
				Message: fmt.Sprintf("with %s frames rewritten as a later release may send them, the receiver answered differently in step %s", dir, step),
				Detail:  joinDetail(d.String(), rewrites(fut, step, dir, ""))})
		}
	}
	// The final state.
	if complete(base) && complete(fut) {
		for _, name := range stateNames(fut) {
			var s *contract.StateSpec
			for _, c := range []*contract.Contract{fut.Host, fut.Client} {
				if s == nil && c != nil {
					s = c.StateNamed(name)
				}
			}
			if s == nil {
				continue
			}
			b, bok := finalValue(base.Transcript, s)
			r, rok := finalValue(fut.Transcript, s)
			if bok == rok && b == r {
				continue
			}
			out = append(out, results.Finding{Kind: results.IntolerantDecoder, Step: lastStep(fut.Transcript), Direction: dirOfRole(s.Role),
				Message: fmt.Sprintf("with frames rewritten as a later release may send them, final state %s (%s) differs", name, s.Role),
				Detail: joinDetail(fmt.Sprintf("unmodified run: %s\nrewritten run:  %s", orNone(b, bok), orNone(r, rok)),
					rewrites(fut, "", dirOfRole(s.Role), ""))})
		}
	}
	return out
}

// aboutRewrite reports whether a finding judges what the rewrite added rather than what the
// receiver did: a check that reads the frames (capabilities echoed, invariants between
// frames, fields published) naming an added name. What a receiver reports (a refusal that
// names the added key) is never about the rewrite.
func aboutRewrite(f results.Finding) bool {
	switch f.Kind {
	case results.CapabilityMismatch, results.InvariantViolation, results.PublishedFieldRemoved:
		return strings.Contains(f.Message+f.Detail, FutureMarker)
	}
	return false
}

// comparedSteps are the steps whose frames both runs can be compared on: those both
// completed, and the step where the rewritten run stopped (what the receiver did there is the
// difference). Steps after it did not run.
func comparedSteps(base, fut *transcript.Transcript, steps []string) []string {
	bdone, fdone := base.CompletedSteps(), fut.CompletedSteps()
	var out []string
	for _, step := range steps {
		if !slices.Contains(bdone, step) {
			break
		}
		out = append(out, step)
		if !slices.Contains(fdone, step) {
			break
		}
	}
	return out
}

// complete reports whether a pairing ran every step of its journey.
func complete(in *Input) bool {
	t := in.Transcript
	return t.Stall == nil && t.End == nil && len(t.CompletedSteps()) == len(in.Journey.Steps)
}

func findingKey(f results.Finding) string {
	k := string(f.Kind) + "|" + f.Step + "|" + f.Direction
	if f.Frame != nil {
		k += "|" + f.Frame.Name
	}
	return k
}

// namesByStep is the set of frame names sent in dir, per step.
func namesByStep(in *Input, dir string) map[string][]string {
	out := map[string][]string{}
	for _, n := range Sequence(in) {
		if n.Dir == dir && !slices.Contains(out[n.Step], n.Name) {
			out[n.Step] = append(out[n.Step], n.Name)
		}
	}
	return out
}

// absentNear lists the names that other has in none of step i and the steps next to it.
func absentNear(names []string, other map[string][]string, steps []string, i int) []string {
	var out []string
	for _, x := range names {
		found := false
		for j := max(i-1, 0); j <= i+1 && j < len(steps) && !found; j++ {
			found = slices.Contains(other[steps[j]], x)
		}
		if !found {
			out = append(out, x)
		}
	}
	return out
}

func orNoneList(s []string) string {
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, ", ")
}

// maxRewrites bounds the rewrites a finding shows.
const maxRewrites = 5

// rewrites lists the rewritten frames of a step ("" any, and every step when the step had
// none) travelling in dir ("" any), those of the named frame first, as evidence.
func rewrites(in *Input, step, dir, name string) string {
	var first, rest []string
	for _, n := range Sequence(in) {
		if n.Original == nil || (step != "" && n.Step != step) || (dir != "" && n.Dir != dir) {
			continue
		}
		line := fmt.Sprintf("  #%d %s (step %s): %s\n    sent:      %s\n    rewritten: %s", n.Index, n.Label(), n.Step, n.Rewrite,
			clip(printable(n.Original)), clip(printable(n.Data)))
		if name != "" && n.Name == name {
			first = append(first, line)
		} else {
			rest = append(rest, line)
		}
	}
	all := append(first, rest...)
	if len(all) == 0 {
		if step != "" { // the step had none: what was rewritten before it made the difference
			return rewrites(in, "", dir, name)
		}
		return ""
	}
	more := ""
	if len(all) > maxRewrites {
		more = fmt.Sprintf("\n  … and %d more", len(all)-maxRewrites)
		all = all[:maxRewrites]
	}
	return "rewrites:\n" + strings.Join(all, "\n") + more
}

// printable shows a frame's bytes: text as is, bytes below space as \xNN.
func printable(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		if c < 0x20 || c == 0x7f {
			fmt.Fprintf(&s, `\x%02x`, c)
		} else {
			s.WriteByte(c)
		}
	}
	return s.String()
}

func joinDetail(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "\n")
}
