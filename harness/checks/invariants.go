package checks

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/skewtest/skewtest/contract"
	"github.com/skewtest/skewtest/results"
)

// Invariants checks the relations the contracts declare between frames (correlation, echo,
// order; see contract.Invariant) on every pairing. Each broken relation is a finding that
// names both frames. A relation holds between two builds when both contracts declare it: a
// newer release's new promise is not one an older peer ever made.
func Invariants(in *Input) []results.Finding {
	var out []results.Finding
	frames := NameFrames(in)
	for _, ch := range usedChannels(in) {
		host, client := channelNamed(in.Host, ch.Name), channelNamed(in.Client, ch.Name)
		if host == nil || client == nil {
			continue
		}
		var onChannel []Named // the channel's frames, gathered for its first invariant
		for _, inv := range host.Invariants {
			if !slices.ContainsFunc(client.Invariants, func(o contract.Invariant) bool { return sameInvariant(o, inv) }) {
				continue
			}
			if onChannel == nil {
				onChannel = make([]Named, 0, len(frames))
				for _, n := range frames {
					if !n.Teardown && n.Err == nil && n.Control == "" && slices.Contains(host.Paths, stripQuery(n.Path)) {
						onChannel = append(onChannel, n)
					}
				}
			}
			out = append(out, checkInvariant(inv, onChannel)...)
		}
	}
	return out
}

func channelNamed(c *contract.Contract, name string) *contract.Channel {
	if c == nil {
		return nil
	}
	return c.ChannelNamed(name)
}

func sameInvariant(a, b contract.Invariant) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func stripQuery(p string) string {
	for i := range p {
		if p[i] == '?' {
			return p[:i]
		}
	}
	return p
}

func checkInvariant(inv contract.Invariant, frames []Named) []results.Finding {
	replyPtr := inv.ReplyPointer
	if replyPtr == "" {
		replyPtr = inv.Pointer
	}
	var out []results.Finding
	broke := func(at Named, msg, detail string) {
		if inv.Message != "" {
			msg += " (" + inv.Message + ")"
		}
		out = append(out, results.Finding{Kind: results.InvariantViolation, Step: at.Step, Direction: at.Dir,
			Frame: &results.Frame{Name: at.Name}, Message: msg, Detail: detail})
	}
	switch inv.Kind {
	case contract.InvariantCorrelation:
		asked := map[string]bool{} // values the requests so far carried, and the reserved ones
		for _, r := range inv.Reserved {
			b, _ := json.Marshal(r)
			asked[string(b)] = true
		}
		for _, n := range frames {
			switch {
			case slices.Contains(inv.Request, n.Name):
				if v, ok := valueAt(n, inv.Pointer); ok {
					asked[v] = true
				}
			case slices.Contains(inv.Reply, n.Name):
				v, ok := valueAt(n, replyPtr)
				if !ok {
					broke(n, fmt.Sprintf("%s #%d answers no request: it has no %s", n.Label(), n.Index, replyPtr), "")
					continue
				}
				if !asked[v] {
					broke(n, fmt.Sprintf("%s #%d answers %s %s, which no earlier request carried", n.Label(), n.Index, replyPtr, v),
						fmt.Sprintf("requests (%v) seen before it carried %s: %s", inv.Request, inv.Pointer, keysOf(asked)))
				}
			}
		}
	case contract.InvariantEcho:
		var last *Named
		for i := range frames {
			n := frames[i]
			switch {
			case slices.Contains(inv.Request, n.Name):
				last = &frames[i]
			case slices.Contains(inv.Reply, n.Name) && last != nil && last.Dir != n.Dir:
				want, okw := valueAt(*last, inv.Pointer)
				got, okg := valueAt(n, replyPtr)
				if okw && (!okg || got != want) {
					broke(n, fmt.Sprintf("%s #%d reports %s %s, but %s #%d asked for %s", n.Label(), n.Index, replyPtr, orMissing(got, okg),
						last.Label(), last.Index, want), "")
				}
				last = nil // a request is answered once; a later reply echoes a later request
			}
		}
	case contract.InvariantOrder:
		type key struct {
			conn int
			dir  string
		}
		open := map[key]*Named{}
		for i := range frames {
			n := frames[i]
			k := key{n.Conn, n.Dir}
			switch n.Name {
			case inv.Start:
				if o := open[k]; o != nil {
					broke(n, fmt.Sprintf("%s #%d starts again before %s #%d ended with %s", n.Label(), n.Index, o.Label(), o.Index, inv.End), "")
				}
				open[k] = &frames[i]
			case inv.End:
				if open[k] == nil {
					broke(n, fmt.Sprintf("%s #%d ends what no %s started", n.Label(), n.Index, inv.Start), "")
				}
				open[k] = nil
			case inv.Chunk:
				if inv.Chunk != "" && open[k] == nil {
					broke(n, fmt.Sprintf("%s #%d comes outside a %s … %s", n.Label(), n.Index, inv.Start, inv.End), "")
				}
			}
		}
	}
	return out
}

// valueAt reads a frame's value at a pointer, as comparable text.
func valueAt(n Named, ptr string) (string, bool) {
	if n.Decoded.Value == nil {
		return "", false
	}
	v, ok := contract.Resolve(n.Decoded.Value, ptr)
	if !ok {
		return "", false
	}
	b, _ := json.Marshal(v)
	return string(b), true
}

func orMissing(v string, ok bool) string {
	if !ok {
		return "nothing"
	}
	return v
}

func keysOf(m map[string]bool) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	if len(ks) == 0 {
		return "none"
	}
	return fmt.Sprint(ks)
}
