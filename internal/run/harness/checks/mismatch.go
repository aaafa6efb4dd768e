package checks

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// FieldMismatch holds every decoded payload, in both directions, to the receiving build's
// contract: a required field missing, a value of the wrong type, an enum value the receiver
// does not know, at any depth (by JSON pointer). Unknown fields are never a finding:
// receivers strip them. It also reports what a product itself says it rejected (the
// driver protocol's "rejected" observation, and the observations the contracts declare
// under rejections): a frame its receiver refused for its shape.
func FieldMismatch(in *Input) []results.Finding {
	type key struct{ dir, name, ptr, rule string }
	type agg struct {
		first FieldProblemAt
		count int
	}
	found := map[key]*agg{}
	var order []key
	for _, n := range NameFrames(in) {
		if !n.Known || n.Def == nil || n.Err != nil || n.Teardown {
			continue
		}
		// The frame as the two builds speak it: its shape at the protocol version they
		// negotiated (fields and variants of other versions left out).
		def := n.Shape()
		if len(def.Fields) == 0 {
			continue
		}
		value := n.Decoded.Value
		if def.Payload == contract.PayloadBinary && !n.Decoded.Driver {
			value = def.BinaryValue(n.Decoded.Payload)
		}
		if value == nil {
			continue
		}
		for _, p := range def.CheckFields(value) {
			k := key{n.Dir, n.Name, p.Pointer, p.Rule}
			a := found[k]
			if a == nil {
				a = &agg{first: FieldProblemAt{FieldProblem: p, Step: n.Step, Index: n.Index}}
				found[k] = a
				order = append(order, k)
			}
			a.count++
		}
	}
	var out []results.Finding
	for _, k := range order {
		a := found[k]
		receiver := in.Transcript.Kind + " client " + in.Transcript.Client.Label
		if k.dir == contract.ClientToHost {
			receiver = "host " + in.Transcript.Host.Label
		}
		msg := fmt.Sprintf("%s %s: %s for %s", k.dir, k.name, a.first.String(), receiver)
		if a.count > 1 {
			msg += fmt.Sprintf(" (%d frames)", a.count)
		}
		out = append(out, results.Finding{Kind: results.FieldMismatch, Step: a.first.Step, Direction: k.dir,
			Frame: &results.Frame{Name: k.name}, Message: msg,
			Detail: fmt.Sprintf("frame #%d, pointer %s\nsent:    %s\nallowed: %s", a.first.Index, pointerOrRoot(k.ptr), gotText(a.first.Got, k.rule), a.first.Want)})
	}
	return append(out, rejections(in)...)
}

// FieldProblemAt is a field problem of one tapped frame.
type FieldProblemAt struct {
	contract.FieldProblem
	Step  string
	Index int
}

func pointerOrRoot(p string) string {
	if p == "" {
		return "(the payload)"
	}
	return p
}

func gotText(v any, rule string) string {
	if rule == "required" {
		return "(missing)"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// RejectedObservation is the driver protocol's observation of a frame the product refused
// for its shape (not its decoder): {"direction", "type"|"opcode"|"frame", "reason", "pointer"}.
const RejectedObservation = "rejected"

// rejections turns what products said they rejected into findings.
func rejections(in *Input) []results.Finding {
	decls := []contract.Match{{Observation: RejectedObservation}}
	for _, c := range []*contract.Contract{in.Host, in.Client} {
		if c != nil {
			decls = append(decls, c.Rejections...)
		}
	}
	var out []results.Finding
	for _, o := range in.Transcript.Observations {
		matched := false
		for _, m := range decls {
			matched = matched || matches(m, o)
		}
		if !matched {
			continue
		}
		var r struct {
			Direction string `json:"direction"`
			Type      string `json:"type"`
			Opcode    int    `json:"opcode"`
			Frame     string `json:"frame"`
			Reason    string `json:"reason"`
			Message   string `json:"message"`
			Pointer   string `json:"pointer"`
		}
		_ = json.Unmarshal(o.Data, &r)
		if r.Direction == "" {
			r.Direction = contract.HostToClient
			if o.Role == transcript.Host {
				r.Direction = contract.ClientToHost
			}
		}
		name := r.Frame
		if name == "" {
			name = frameName(in, r.Direction, r.Opcode, r.Type)
		}
		why := strings.TrimSpace(r.Reason + " " + r.Message)
		if why == "" {
			why = string(o.Data)
		}
		msg := fmt.Sprintf("the %s rejected %s %s: %s", o.Role, r.Direction, name, why)
		if r.Pointer != "" {
			msg += " (at " + r.Pointer + ")"
		}
		out = append(out, results.Finding{Kind: results.FieldMismatch, Step: o.Step, Direction: r.Direction,
			Frame: &results.Frame{Opcode: r.Opcode, Type: r.Type, Name: name}, Message: msg})
	}
	sort.SliceStable(out, func(i, j int) bool { return stepIndex(in, out[i].Step) < stepIndex(in, out[j].Step) })
	return out
}
