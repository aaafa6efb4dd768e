package checks

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/skewtest/skewtest/internal/declare/contract"
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
			i := slices.IndexFunc(client.Invariants, func(o contract.Invariant) bool { return sameInvariant(o, inv) })
			if i < 0 {
				continue
			}
			if client.Invariants[i].Answered != inv.Answered {
				inv.Answered = "" // a promise only one build makes does not hold between them
			}
			if onChannel == nil {
				onChannel = make([]Named, 0, len(frames))
				for _, n := range frames {
					if n.Err == nil && n.Control == "" && slices.Contains(host.Paths, stripQuery(n.Path)) {
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

// sameInvariant reports whether a and b are one relation, whether or not each says its
// requests are answered once.
func sameInvariant(a, b contract.Invariant) bool {
	a.Answered, b.Answered = "", ""
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

// checkInvariant checks one invariant on a channel's frames in order. Frames after the
// journey ended (Teardown) count only as late answers to requests answered once.
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
		reserved := reservedValues(inv)
		asked := maps.Clone(reserved) // values the requests so far carried, and the reserved ones
		once := newAnswers(inv.Answered == contract.AnsweredOnce)
		for _, n := range frames {
			switch {
			case n.Teardown:
				if slices.Contains(inv.Reply, n.Name) {
					if v, ok := valueAt(n, replyPtr); ok {
						once.answer(n, v, nil)
					}
				}
			case slices.Contains(inv.Request, n.Name):
				if v, ok := valueAt(n, inv.Pointer); ok {
					asked[v] = true
					if !reserved[v] {
						once.ask(n, v)
					}
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
					continue
				}
				once.answer(n, v, func(req, first Named) {
					broke(n, fmt.Sprintf("%s #%d answers %s #%d again: %s #%d answered it (%s %s)", n.Label(), n.Index,
						req.Label(), req.Index, first.Label(), first.Index, replyPtr, v), "")
				})
			}
		}
		for _, req := range once.unanswered() {
			v, _ := valueAt(req, inv.Pointer)
			broke(req, fmt.Sprintf("%s #%d was never answered: no reply (%s) carried its %s %s", req.Label(), req.Index,
				strings.Join(inv.Reply, ", "), inv.Pointer, v), "every request is answered exactly once (answered: once)")
		}
	case contract.InvariantEcho:
		// Requests not answered yet, per connection and direction, oldest first: a peer may
		// send the next before the first is answered.
		type key struct {
			conn int
			dir  string
		}
		pending := map[key][]echoRequest{}
		for i := range frames {
			n := frames[i]
			if n.Teardown {
				continue
			}
			switch {
			case slices.Contains(inv.Request, n.Name):
				k := key{n.Conn, n.Dir}
				v, ok := valueAt(n, inv.Pointer)
				pending[k] = append(pending[k], echoRequest{n: &frames[i], value: v, ok: ok})
			case slices.Contains(inv.Reply, n.Name):
				k := key{n.Conn, contract.Opposite(n.Dir)}
				got, okg := valueAt(n, replyPtr)
				req, rest, matched := answer(pending[k], got, okg)
				pending[k] = rest
				if req.n != nil && !matched {
					broke(n, fmt.Sprintf("%s #%d reports %s %s, but %s #%d asked for %s", n.Label(), n.Index, replyPtr, orMissing(got, okg),
						req.n.Label(), req.n.Index, req.value), "")
				}
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
			if n.Teardown {
				continue
			}
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

// reservedValues are a correlation invariant's Reserved values as comparable text (valueAt's).
func reservedValues(inv contract.Invariant) map[string]bool {
	out := map[string]bool{}
	for _, r := range inv.Reserved {
		b, _ := json.Marshal(r)
		out[string(b)] = true
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

// answers follows the requests of a correlation invariant answered once: each request is
// owed one reply, on its connection, in the other direction, carrying its value. A value
// may be used again once its request is answered.
type answers struct {
	on    bool
	owed  map[answerKey][]Named // requests not answered yet, oldest first
	given map[answerKey][2]Named
}

type answerKey struct {
	conn  int
	dir   string // the request's
	value string
}

func newAnswers(on bool) *answers {
	return &answers{on: on, owed: map[answerKey][]Named{}, given: map[answerKey][2]Named{}}
}

func (a *answers) ask(n Named, v string) {
	if a.on {
		k := answerKey{n.Conn, n.Dir, v}
		a.owed[k] = append(a.owed[k], n)
	}
}

// answer takes reply n carrying v as the answer to the oldest request it can answer; again
// is called when the requests it could answer were all answered already.
func (a *answers) answer(n Named, v string, again func(req, first Named)) {
	if !a.on {
		return
	}
	k := answerKey{n.Conn, contract.Opposite(n.Dir), v}
	if q := a.owed[k]; len(q) > 0 {
		a.given[k] = [2]Named{q[0], n}
		a.owed[k] = q[1:]
		return
	}
	if g, ok := a.given[k]; ok && again != nil {
		again(g[0], g[1])
	}
}

// unanswered lists the requests still owed an answer, in transcript order.
func (a *answers) unanswered() []Named {
	var out []Named
	for _, q := range a.owed {
		out = append(out, q...)
	}
	slices.SortFunc(out, func(x, y Named) int { return x.Index - y.Index })
	return out
}

// echoRequest is an echo invariant's request not answered yet, with its value at the
// invariant's pointer (ok: it has one).
type echoRequest struct {
	n     *Named
	value string
	ok    bool
}

// answer finds the request a reply answers among q, the requests of its connection not
// answered yet, oldest first: the oldest whose value the reply carries (one without a value
// takes any reply). The requests before it were overtaken by a later one, as a peer may
// answer only the last of several; they leave the queue too. A reply that carries no
// pending request's value answers the oldest, wrongly (matched is false). req.n is nil when
// nothing was pending. The order the replies come in is the peers', so the verdict does not
// depend on when the tap saw which.
func answer(q []echoRequest, got string, okg bool) (req echoRequest, rest []echoRequest, matched bool) {
	if len(q) == 0 {
		return echoRequest{}, q, false
	}
	for i, r := range q {
		if !r.ok || (okg && got == r.value) {
			return r, q[i+1:], true
		}
	}
	return q[0], q[1:], false
}
