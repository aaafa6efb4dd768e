package checks

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// refusalKey identifies one refused frame kind; the tap and the receiving driver often see
// the same refusal in different steps (the driver reports it a little later).
type refusalKey struct {
	dir    string
	opcode int
	typ    string
}

// DecoderRefusal reports frames the receiver's real decoder refused or dropped (its driver
// says so) and frames outside the receiver's contract, one finding per direction, frame and
// step.
func DecoderRefusal(in *Input) []results.Finding {
	type agg struct {
		name, how string
		step      string // where it was first seen
		count     int
		silent    bool
		seen      bool // the tap saw it outside the contract
		reported  bool // the driver reported it
	}
	found := map[refusalKey]*agg{}
	var order []refusalKey
	get := func(k refusalKey, name, step string) *agg {
		a, ok := found[k]
		if !ok {
			a = &agg{name: name, step: step}
			found[k] = a
			order = append(order, k)
		}
		return a
	}
	for _, n := range NameFrames(in) {
		if n.Known || n.Teardown {
			continue
		}
		k := refusalKey{dir: n.Dir}
		switch {
		case n.Err != nil && n.Decoded.Driver:
			k.typ = "refused"
		case n.Err != nil:
			k.typ = "malformed"
		case n.Decoded.Type != "":
			k.typ = n.Decoded.Type
		default:
			k.opcode = n.Decoded.Opcode
		}
		a := get(k, n.Name, n.Step)
		a.count++
		a.seen = true
		if n.Err != nil {
			a.how = n.Err.Error()
		}
	}
	for _, o := range in.Transcript.Observations {
		if o.What != "refused" {
			continue
		}
		var r struct {
			Direction string `json:"direction"`
			Opcode    int    `json:"opcode"`
			Type      string `json:"type"`
			Reason    string `json:"reason"`
			Silent    bool   `json:"silent"`
		}
		if err := json.Unmarshal(o.Data, &r); err != nil {
			continue // DriverErrors reports observations that do not parse
		}
		if r.Direction == "" {
			r.Direction = contract.HostToClient
			if o.Role == transcript.Host {
				r.Direction = contract.ClientToHost
			}
		}
		k := refusalKey{dir: r.Direction, opcode: r.Opcode, typ: r.Type}
		a := get(k, frameName(in, r.Direction, r.Opcode, r.Type), o.Step)
		a.reported = true
		a.silent = a.silent || r.Silent
		if r.Reason != "" {
			a.how = r.Reason
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		return stepIndex(in, found[order[i]].step) < stepIndex(in, found[order[j]].step)
	})
	var out []results.Finding
	for _, k := range order {
		a := found[k]
		receiver := in.Transcript.Kind + " client " + in.Transcript.Client.Label
		if k.dir == contract.ClientToHost {
			receiver = "host " + in.Transcript.Host.Label
		}
		what := a.name
		if k.opcode != 0 && a.name != fmt.Sprintf("Opcode%d", k.opcode) {
			what = fmt.Sprintf("%s (opcode %d)", a.name, k.opcode)
		}
		var msg string
		switch {
		case a.reported && a.silent:
			msg = fmt.Sprintf("%s silently dropped %s %s", receiver, k.dir, what)
		case a.reported:
			msg = fmt.Sprintf("%s refused %s %s", receiver, k.dir, what)
		default:
			msg = fmt.Sprintf("%s %s is not in the contract of %s", k.dir, what, receiver)
		}
		if a.count > 1 {
			msg += fmt.Sprintf(" (%d frames)", a.count)
		}
		if a.how != "" {
			msg += ": " + a.how
		}
		f := results.Finding{Kind: results.DecoderRefusal, Step: a.step, Direction: k.dir, Message: msg,
			Frame: &results.Frame{Opcode: k.opcode, Type: k.typ, Name: a.name}}
		out = append(out, f)
	}
	return out
}

func frameName(in *Input, dir string, opcode int, typ string) string {
	p := path(in.Transcript)
	recv, kind := in.receiver(dir)
	send, sendKind := in.sender(dir)
	for _, side := range []struct {
		c    *contract.Contract
		kind string
	}{{recv, kind}, {send, sendKind}} {
		if side.c == nil {
			continue
		}
		ch := side.c.Channel(p)
		if ch == nil {
			continue
		}
		if opcode != 0 {
			if f := ch.Opcode(opcode, "", side.kind); f != nil {
				return f.Name
			}
		} else if f := ch.Type(typ, "", side.kind); f != nil {
			return f.Name
		}
	}
	if opcode != 0 {
		return fmt.Sprintf("Opcode%d", opcode)
	}
	return typ
}

func stepIndex(in *Input, step string) int {
	for i, s := range in.Journey.Steps {
		if s.Name == step {
			return i
		}
	}
	return len(in.Journey.Steps)
}
