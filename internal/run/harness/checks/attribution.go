package checks

import (
	"slices"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

// A frame belongs to the step that caused it, not to the step that happened to be running
// when it arrived. The tap records the arrival step; the attribution moves a frame back to
// an earlier step where the contracts say what caused it, on its connection (and stream,
// for a header with a stream field):
//
//   - a correlation invariant's reply goes with the request it answers (the latest request on
//     the connection that carried its id);
//   - an echo invariant's reply goes with the request it answers (the oldest request not
//     answered yet whose value it carries, see answer);
//   - an order invariant's chunk and end go with the start they belong to.
//
// Everything else stays in the step it arrived in; the comparisons of steps (the
// differential oracle, the golden sequence, published fields) tolerate a frame that crossed
// into the next step (see Differential). Reference transcripts are attributed the same way.

// attribution follows the frames of a pairing in order and knows what caused each.
type attribution struct {
	steps map[string]int // step name → position in the journey
	// rules are the invariants of both contracts, per channel name, each once.
	rules map[string][]contract.Invariant
	// requests are the correlated requests seen, by connection, channel and id.
	requests map[corrKey]*Request
	// asked lists the correlated requests of each step in order, for Unanswered.
	asked map[string][]*Request
	// echoes are the echo requests not answered yet, by connection, channel, rule and stream.
	echoes map[causeKey][]echoRequest
	// open is the step of the start of a sequence still open, by connection, direction,
	// channel, rule and stream.
	open map[causeKey]string
}

type corrKey struct {
	conn    int
	channel string
	value   string
}

type causeKey struct {
	conn    int
	dir     string
	channel string
	rule    int
	stream  uint32
}

// Request is a correlated request frame (a correlation invariant's request that carries an
// id) and whether a reply answered it yet.
type Request struct {
	Index    int // the frame's index in the transcript
	Conn     int
	Dir      string
	Name     string
	Step     string
	Answered bool
	// Once is set when an invariant says the request is answered exactly once
	// (contract.AnsweredOnce): the journey owes it its answer before it ends.
	Once bool
}

func newAttribution(in *Input) *attribution {
	a := &attribution{steps: map[string]int{}, rules: map[string][]contract.Invariant{},
		requests: map[corrKey]*Request{}, asked: map[string][]*Request{}, echoes: map[causeKey][]echoRequest{}, open: map[causeKey]string{}}
	if in.Journey != nil {
		for i, s := range in.Journey.Steps {
			a.steps[s.Name] = i
		}
	}
	for _, c := range []*contract.Contract{in.Host, in.Client} {
		if c == nil {
			continue
		}
		for _, ch := range c.Channels {
			for _, inv := range ch.Invariants {
				if !slices.ContainsFunc(a.rules[ch.Name], func(o contract.Invariant) bool { return sameInvariant(o, inv) }) {
					a.rules[ch.Name] = append(a.rules[ch.Name], inv)
				}
			}
		}
	}
	return a
}

// attribute sets n.Step to the step that caused the frame (n.Arrived keeps the step it
// arrived in when they differ). ch is the frame's channel.
func (a *attribution) attribute(n *Named, ch *contract.Channel) {
	if ch == nil || n.Err != nil || n.Teardown || n.Control != "" {
		return
	}
	var stream uint32
	if n.Decoded.HasStream {
		stream = n.Decoded.Stream
	}
	cause := ""
	for i, inv := range a.rules[ch.Name] {
		switch inv.Kind {
		case contract.InvariantCorrelation:
			if slices.Contains(inv.Request, n.Name) {
				if v, ok := valueAt(*n, inv.Pointer); ok {
					r := &Request{Index: n.Index, Conn: n.Conn, Dir: n.Dir, Name: n.Name, Step: n.Step,
						Once: inv.Answered == contract.AnsweredOnce && !reservedValues(inv)[v]}
					a.requests[corrKey{n.Conn, ch.Name, v}] = r
					a.asked[n.Step] = append(a.asked[n.Step], r)
				}
			} else if slices.Contains(inv.Reply, n.Name) {
				ptr := inv.ReplyPointer
				if ptr == "" {
					ptr = inv.Pointer
				}
				if v, ok := valueAt(*n, ptr); ok {
					if r := a.requests[corrKey{n.Conn, ch.Name, v}]; r != nil && r.Dir != n.Dir {
						r.Answered = true
						cause = r.Step
					}
				}
			}
		case contract.InvariantEcho:
			k := causeKey{conn: n.Conn, channel: ch.Name, rule: i, stream: stream}
			switch {
			case slices.Contains(inv.Request, n.Name):
				k.dir = n.Dir
				v, ok := valueAt(*n, inv.Pointer)
				a.echoes[k] = append(a.echoes[k], echoRequest{n: n, value: v, ok: ok})
			case slices.Contains(inv.Reply, n.Name):
				k.dir = contract.Opposite(n.Dir)
				ptr := inv.ReplyPointer
				if ptr == "" {
					ptr = inv.Pointer
				}
				got, okg := valueAt(*n, ptr)
				var req echoRequest
				req, a.echoes[k], _ = answer(a.echoes[k], got, okg)
				if req.n != nil {
					cause = req.n.Step
				}
			}
		case contract.InvariantOrder:
			k := causeKey{conn: n.Conn, dir: n.Dir, channel: ch.Name, rule: i, stream: stream}
			switch n.Name {
			case inv.Start:
				a.open[k] = n.Step
			case inv.Chunk:
				if s, ok := a.open[k]; ok && inv.Chunk != "" {
					cause = s
				}
			case inv.End:
				if s, ok := a.open[k]; ok {
					cause = s
					delete(a.open, k)
				}
			}
		}
	}
	if cause == "" || cause == n.Step {
		return
	}
	// A cause only ever moves a frame back, to a step that ran before the one it arrived in.
	if at, ok := a.steps[n.Step]; ok {
		if c, ok := a.steps[cause]; !ok || c >= at {
			return
		}
	}
	n.Arrived, n.Step = n.Step, cause
}

// unanswered lists the correlated requests of step that no reply answered yet; with last
// (the journey's last step), also those of every step answered once (Request.Once).
func (a *attribution) unanswered(step string, last bool) []Request {
	var out []Request
	for _, r := range a.asked[step] {
		if !r.Answered {
			out = append(out, *r)
		}
	}
	if !last {
		return out // a step's settle reads this on every frame: only the last reads them all
	}
	for s, rs := range a.asked {
		for _, r := range rs {
			if s != step && !r.Answered && r.Once {
				out = append(out, *r)
			}
		}
	}
	slices.SortFunc(out, func(x, y Request) int { return x.Index - y.Index })
	return out
}

// Unanswered lists the correlated requests attributed to step (requests of a correlation
// invariant that carry an id) that no reply in named answers. named must be every frame of
// the transcript in order, as NameFrames or a Namer names them.
func Unanswered(in *Input, named []Named, step string, last bool) []Request {
	a := newAttribution(in)
	for i := range named {
		n := named[i]
		a.attribute(&n, channelFor(in.Host, in.Client, n.Path))
	}
	return a.unanswered(step, last)
}
