package checks

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/results"
)

// CommandVersions reports frames that call a command (the channel's calls, read from the
// sender's contract, else the receiver's) without a version both builds speak: a version
// that either build's contract does not list for the command, or no version at all (the
// command encoded implicitly) when the command has more than one version in either
// contract. A command both contracts list with a single version may be sent without one
// (legacy send sites stay safe while every command has one version); a command neither
// contract lists is not a version question (the peer answers it as an unknown command).
// One finding per step, direction, frame, command and version sent, with how often.
func CommandVersions(in *Input) []results.Finding {
	type key struct {
		step, dir, frame, typ, command, sent string
		opcode                               int
	}
	type agg struct {
		count int
		msg   string
	}
	found := map[key]*agg{}
	var order []key
	for _, n := range NameFrames(in) {
		if n.Err != nil || n.Teardown || n.Control != "" || n.Decoded.Value == nil {
			continue
		}
		send, _ := in.sender(n.Dir)
		recv, _ := in.receiver(n.Dir)
		calls := callsOn(n.Path, send, recv)
		if !calls.Calling(n.Name) {
			continue
		}
		v, ok := contract.Resolve(n.Decoded.Value, calls.Command)
		id, isString := v.(string)
		if !ok || !isString || id == "" {
			continue // no command id: the field check's business
		}
		hostVs, hostHas := versionsOf(in.Host, n.Path, id)
		clientVs, clientHas := versionsOf(in.Client, n.Path, id)
		if !hostHas && !clientHas {
			continue
		}
		sent, version, implicit := versionSent(n.Decoded.Value, calls.Version)
		multi := len(hostVs) > 1 || len(clientVs) > 1
		t := in.Transcript
		host, client := "host "+t.Host.Label, t.Kind+" client "+t.Client.Label
		var how string
		switch {
		case implicit && !multi:
			continue
		case implicit:
			how = "without a version (encoded implicitly), but the command has more than one version"
		case version > 0 && slices.Contains(hostVs, version) && slices.Contains(clientVs, version):
			continue
		default:
			var lack []string
			if !slices.Contains(hostVs, version) {
				lack = append(lack, host)
			}
			if !slices.Contains(clientVs, version) {
				lack = append(lack, client)
			}
			verb := " does not speak"
			if len(lack) == 2 {
				verb = " do not speak"
			}
			how = "at version " + sent + ", which " + strings.Join(lack, " and ") + verb
		}
		k := key{step: n.Step, dir: n.Dir, frame: n.Name, command: id, sent: sent}
		if n.Decoded.Type != "" {
			k.typ = n.Decoded.Type
		} else if n.Decoded.HasOpcode {
			k.opcode = n.Decoded.Opcode
		}
		a := found[k]
		if a == nil {
			a = &agg{msg: fmt.Sprintf("%s %s calls %s %s (%s %s; %s %s): send it at a version both builds speak", n.Dir, n.Name, id, how,
				host, speaks(hostVs, hostHas), client, speaks(clientVs, clientHas))}
			found[k] = a
			order = append(order, k)
		}
		a.count++
	}
	var out []results.Finding
	for _, k := range order {
		a := found[k]
		msg := a.msg
		if a.count > 1 {
			msg += fmt.Sprintf(", %d times", a.count)
		}
		out = append(out, results.Finding{Kind: results.CommandVersionMismatch, Step: k.step, Direction: k.dir,
			Frame: &results.Frame{Opcode: k.opcode, Type: k.typ, Name: k.frame}, Message: msg})
	}
	return out
}

// callsOn returns the calls of the channel serving path in the first contract that declares
// them, or nil.
func callsOn(path string, cs ...*contract.Contract) *contract.Calls {
	for _, c := range cs {
		if c == nil {
			continue
		}
		if ch := c.Channel(path); ch != nil && ch.Calls != nil {
			return ch.Calls
		}
	}
	return nil
}

// versionsOf returns the versions contract c lists for command id on the channel serving
// path, and whether it lists the command at all.
func versionsOf(c *contract.Contract, path, id string) ([]int, bool) {
	if c == nil {
		return nil, false
	}
	ch := c.Channel(path)
	if ch == nil {
		return nil, false
	}
	cmd := ch.Command(id)
	if cmd == nil {
		return nil, false
	}
	return cmd.Versions, true
}

// versionSent reads the version a calling frame carries at ptr: its text as sent, the
// version (0 when it is not a positive integer), and implicit when it carries none (no
// pointer, nothing there, or null).
func versionSent(v any, ptr string) (sent string, version int, implicit bool) {
	if ptr == "" {
		return "", 0, true
	}
	at, ok := contract.Resolve(v, ptr)
	if !ok || at == nil {
		return "", 0, true
	}
	b, _ := json.Marshal(at)
	sent = string(b)
	if f, ok := at.(float64); ok && f >= 1 && f == float64(int(f)) {
		return strconv.Itoa(int(f)), int(f), false
	}
	return sent, 0, false
}

// speaks says which versions of a command a build's contract lists: "speaks 1, 2", "does
// not list the command".
func speaks(vs []int, listed bool) string {
	if !listed {
		return "does not list the command"
	}
	s := make([]string, len(vs))
	for i, v := range slices.Sorted(slices.Values(vs)) {
		s[i] = strconv.Itoa(v)
	}
	if len(s) == 1 {
		return "speaks version " + s[0]
	}
	return "speaks versions " + strings.Join(s, ", ")
}
