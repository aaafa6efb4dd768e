package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/driver"
	"github.com/skewtest/skewtest/internal/run/harness/tap"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

// peer is one side of a pairing: a driver process of its own (*driver.Driver) or a lane of
// a shared one (*lanePeer).
type peer interface {
	Do(ctx context.Context, action string, args any) (driver.Message, error)
	Hello() driver.Message
	Exited() <-chan struct{}
	ExitErr() error
}

// journey runs one pairing's journey, line by line, through the vocabulary's verbs.
type journey struct {
	p      Pairing
	opts   Options
	rec    *recorder
	host   peer
	client peer
	proxy  *tap.Proxy
	// mark is the transcript's size when the current step started: barriers look at what
	// arrived after it.
	mark mark
	// settled is the transcript's size when the step started or its last barrier or
	// expectation ended: an absence assertion (expect … none) covers what arrived after it.
	settled mark
	// streams reads streams for text barriers, folding cumulative ones as they grow.
	streams checks.StreamReader
	// namer names frames as they arrive for frame barriers: namedFrames are the first
	// namedUpTo frames', named.
	namer       *checks.Namer
	namedFrames []checks.Named
	namedUpTo   int
	// negotiation reads negotiation reports as they arrive, for conditions.
	negotiation checks.NegotiationReader
	// owing says what each step owes before it settles (nil for a reference pairing).
	owing *checks.Owing
	// gaveUp holds the transcript indexes of requests answered once whose answer a step
	// waited for up to the barrier timeout in vain: no later step waits for them again.
	gaveUp map[int]bool
	// held are the directions the tap holds (tap hold DIR); while one is, an action's
	// result may wait on what is held, so it is collected (pending) when the last held
	// direction is released (or at the end of the first step that ends with none held).
	held    map[tap.Direction]bool
	pending []chan error
	// channels is the channel each line's conditions are about, decided from the
	// contracts before the first step (checks.ConditionChannels).
	channels map[int]checks.CondChannel
}

// has evaluates a condition of the journey line at line: from the contracts, except what
// was negotiated ([cap:…]) and the frames a where clause asks for, read from the transcript
// so far.
func (j *journey) has(line int, name string) bool {
	var v bool
	j.rec.view(func(t *transcript.Transcript) {
		in := &checks.Input{Transcript: t, Journey: j.p.Journey, Host: j.p.Host.Contract, Client: j.p.Client.Contract, Channels: j.channels}
		var negotiation func() map[string]bool
		if !usesDriverDecoding(j.p.Host.Contract, j.p.Client.Contract) {
			// Frames named as they arrive (j.named) are only ever appended to.
			negotiation = func() map[string]bool {
				return j.negotiation.Negotiated(in, func() []checks.Named { return j.named(t) })
			}
		}
		v = checks.ConditionsWith(in, negotiation)(line, name)
	})
	return v
}

type mark struct {
	observations int
	frames       int
}

func (j *journey) step(ctx context.Context, s journeys.Step) error {
	j.rec.view(func(t *transcript.Transcript) {
		j.mark = mark{observations: len(t.Observations), frames: len(t.Frames)}
	})
	j.settled = j.mark
	for _, c := range s.Commands {
		if !checks.HoldsAt(j.has, c.Line, c.Conds) {
			continue
		}
		v, ok := vocabulary[c.Verb]
		if !ok {
			// Run validates the journey first, against the same table.
			return fmt.Errorf("%s:%d: unknown verb %q", j.p.Journey.File, c.Line, c.Verb)
		}
		if err := v.run(j, ctx, s, c); err != nil {
			return err // the pairing lets go of what the tap holds (letGo)
		}
	}
	if len(j.held) == 0 {
		if err := j.collect(); err != nil {
			return err
		}
	}
	return j.settleStep(ctx, s)
}

// letGo releases every held direction and collects the actions sent while one was: the
// journey ended (or stopped) with the tap holding.
func (j *journey) letGo() {
	for dir := range j.held {
		j.proxy.Release(dir)
	}
	j.held = nil
	_ = j.collect() // their failures are the transcript's problems already
}

// collect waits for the results of the actions sent while a direction was held, and
// returns the first one's error.
func (j *journey) collect() error {
	var first error
	for _, ch := range j.pending {
		if err := <-ch; err != nil && first == nil {
			first = err
		}
	}
	j.pending = nil
	return first
}

// settleStep waits, once a step's commands are done, until the step's exchange has settled,
// so that what the step caused is counted in it: every request of the step that the
// contracts correlate with a reply has its reply (on a connection still open), a skew
// pairing has sent the frames both builds' references send in the step (checks.Owing), in
// the journey's last step every declared stream has delivered what it sent (waited for
// while anything happens, up to the barrier timeout), and no frame has crossed the tap for
// the settle period (0: no quiet period). The quiet period is kept only where the step's
// frames may still come late: it is not waited for once every frame the step may carry has
// arrived, where that is known (in a skew pairing, every frame either build's reference
// shows in the step, less frames gated on a capability this pairing did not negotiate,
// unless such a frame was left out; in a reference pairing, the frames a frames section
// with steps gives it, no ? or * line among them) and no declared stream is still
// delivering. It waits at most
// DefaultSettleBound (or the barrier timeout, if shorter); a step that does not settle by
// then goes on, and what it lacks is the checks' business. Frames that arrive later are
// counted in the next step, which the checks tolerate (and replies are taken back to their
// request's step whenever they come).
func (j *journey) settleStep(ctx context.Context, s journeys.Step) error {
	period := j.settlePeriod()
	var bound, long, quiet, still, explained *time.Timer
	defer func() {
		for _, t := range []*time.Timer{bound, long, quiet, still, explained} {
			if t != nil {
				t.Stop()
			}
		}
	}()
	// owed is what the step must carry before it settles; shown, when decided, is every
	// frame it may carry: once all of those have arrived (and no declared stream is still
	// delivering), no frame of the step is still on its way, and the quiet period is not
	// waited for.
	var owed, shown map[string][]string
	owedKnown, decided := false, false
	last := len(j.p.Journey.Steps) > 0 && j.p.Journey.Steps[len(j.p.Journey.Steps)-1].Name == s.Name
	if j.p.Journey.Unsettled && !last {
		// settle none: the next step acts while this one's frames may still be on their way
		// (a schedule a campaign draws). The last step still settles: what is still on its
		// way at the end would read as lost.
		return nil
	}
	refused := false // a frame of the step was refused: see below
	for {
		settled, left, lagging := false, time.Duration(0), false
		var pending []checks.Request
		changed := j.rec.view(func(t *transcript.Transcript) {
			defer func() {
				if !settled && !refused {
					refused = j.refusedInStep(t)
				}
			}()
			in := &checks.Input{Transcript: t, Journey: j.p.Journey, Host: j.p.Host.Contract, Client: j.p.Client.Contract,
				Streams: &j.streams, Channels: j.channels} // the data-loss check below continues the journey's folds
			named := j.named(t)
			if pending = j.unanswered(in, t, named, s.Name, last); len(pending) > 0 {
				return
			}
			if !owedKnown {
				negotiated := j.negotiated(in, t)
				owed, owedKnown = j.owing.Step(s.Name, negotiated), true
				shown, decided = j.owing.Shown(s.Name, negotiated)
				if j.owing == nil {
					// No references to learn from (a reference pairing itself): the step owes
					// what its journey's frames section says it carries.
					owed = journeyOwes(in, s.Name)
					shown, decided = journeyShows(in, s.Name)
				}
			}
			// The step's frames arrived after it started (a cause never moves a frame forward).
			since, _ := slices.BinarySearchFunc(named, j.mark.frames+1, func(n checks.Named, index int) int { return n.Index - index })
			if !arrived(named[since:], s.Name, owed) {
				return
			}
			// The journey's end: what the declared streams sent has arrived (a value still
			// on its way at the end would be data loss that depends on how busy the machine
			// is).
			if last && len(checks.DataLoss(in)) > 0 {
				lagging = true
				return
			}
			if left = period - time.Since(j.rec.lastFrame); left <= 0 {
				settled = true
				return
			}
			// Everything the step may carry is in: no quiet period. A declared stream still
			// delivering (sent, not yet delivered) has frames on their way.
			settled = decided && arrived(named[since:], s.Name, shown) && (last || len(checks.DataLoss(in)) == 0)
		})
		if settled {
			return nil
		}
		if bound == nil {
			bound = time.NewTimer(min(DefaultSettleBound, j.timeout()))
		}
		// An answer the contracts say every request gets is waited for up to the barrier
		// timeout, not the settle bound: its absence is a finding, so how late it may come
		// must not depend on how busy the machine is.
		boundC := bound.C
		answerOwed := slices.ContainsFunc(pending, func(r checks.Request) bool { return r.Once })
		if answerOwed || lagging {
			if long == nil {
				long = time.NewTimer(j.timeout())
			}
			boundC = long.C
		}
		// A stream still behind at the end is waited for while anything still happens; once
		// nothing has for the quiet period (fast stalls), what it lacks is lost.
		var stillC <-chan time.Time
		if lagging && j.quiet() > 0 {
			if still == nil {
				still = time.NewTimer(j.quiet())
			} else {
				still.Reset(j.quiet())
			}
			stillC = still.C
		}
		// A frame of the step was refused: the pairing fails on it whatever comes next, and
		// it explains what the step lacks (the reply or frame the refused one would have
		// caused), so the step gives up on it once nothing has happened for the shorter
		// quiet a refusal leaves a barrier, not at the bound or the barrier timeout.
		var explainedC <-chan time.Time
		if refused && j.quiet() > 0 {
			active, _ := j.rec.activity()
			wait := max(0, refusedQuiet(j.quiet())-time.Since(active))
			if explained == nil {
				explained = time.NewTimer(wait)
			} else {
				explained.Reset(wait)
			}
			explainedC = explained.C
		}
		var hushed <-chan time.Time
		if left > 0 {
			if quiet == nil {
				quiet = time.NewTimer(left)
			} else {
				quiet.Reset(left)
			}
			hushed = quiet.C
		}
		giveUp := func() error {
			if answerOwed {
				if j.gaveUp == nil {
					j.gaveUp = map[int]bool{}
				}
				for _, r := range pending {
					if r.Once {
						j.gaveUp[r.Index] = true
					}
				}
			}
			return nil
		}
		select {
		case <-changed:
		case <-hushed:
		case <-stillC:
			return nil
		case <-explainedC:
			if active, _ := j.rec.activity(); time.Since(active) >= refusedQuiet(j.quiet()) {
				return giveUp()
			}
		case <-boundC:
			return giveUp()
		case <-j.host.Exited():
			return nil // the next step's first wait, or the teardown, reports it
		case <-j.client.Exited():
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// arrived reports whether every frame of want (names by direction) has arrived in step, among
// named.
func arrived(named []checks.Named, step string, want map[string][]string) bool {
	for dir, names := range want {
		for _, name := range names {
			if !slices.ContainsFunc(named, func(n checks.Named) bool {
				return n.Step == step && n.Dir == dir && n.Name == name && !n.Teardown
			}) {
				return false
			}
		}
	}
	return true
}

// journeyShows lists, per direction, every frame the journey's frames section gives step (its
// conditions decided as they stand); decided is false when the section cannot say what the
// step may carry: it has no lines, a line belongs to no step (a sequence without steps), or
// a line of step may or may not come (? and *).
func journeyShows(in *checks.Input, step string) (shown map[string][]string, decided bool) {
	if len(in.Journey.Frames) == 0 || slices.ContainsFunc(in.Journey.Frames, func(fl journeys.FrameLine) bool { return fl.Step == "" }) {
		return nil, false
	}
	shown = map[string][]string{}
	for _, fl := range checks.Expected(in) {
		if fl.Step != step {
			continue
		}
		if fl.Quant == "?" || fl.Quant == "*" {
			return nil, false
		}
		if !slices.Contains(shown[fl.Dir], fl.Name) {
			shown[fl.Dir] = append(shown[fl.Dir], fl.Name)
		}
	}
	return shown, true
}

// journeyOwes lists, per direction, the frames the journey's frames section says step
// carries for this pairing (its conditions decided as they stand, optional lines left out).
func journeyOwes(in *checks.Input, step string) map[string][]string {
	var owed map[string][]string
	for _, fl := range checks.Expected(in) {
		if fl.Step != step || (fl.Quant != "" && fl.Quant != "+") {
			continue
		}
		if owed == nil {
			owed = map[string][]string{}
		}
		if !slices.Contains(owed[fl.Dir], fl.Name) {
			owed[fl.Dir] = append(owed[fl.Dir], fl.Name)
		}
	}
	return owed
}

// unanswered lists the correlated requests of step that still wait for their reply on a
// connection that is still open. In the journey's last step (last), a request of any step
// answered once (Request.Once) still waits: the journey owes it its answer, unless a step
// already waited for it up to the barrier timeout.
func (j *journey) unanswered(in *checks.Input, t *transcript.Transcript, named []checks.Named, step string, last bool) []checks.Request {
	var pending []checks.Request
	if j.namer != nil && !usesDriverDecoding(j.p.Host.Contract, j.p.Client.Contract) {
		pending = j.namer.Unanswered(step, last)
	} else {
		pending = checks.Unanswered(in, named, step, last)
	}
	if len(pending) == 0 {
		return nil
	}
	closed := map[int]bool{}
	for _, c := range t.Conns {
		if c.Event != tap.EventOpen {
			closed[c.Conn] = true
		}
	}
	return slices.DeleteFunc(pending, func(r checks.Request) bool { return closed[r.Conn] || j.gaveUp[r.Index] })
}

// negotiated is what the pairing negotiated so far.
func (j *journey) negotiated(in *checks.Input, t *transcript.Transcript) map[string]bool {
	if usesDriverDecoding(j.p.Host.Contract, j.p.Client.Contract) {
		return checks.Negotiated(in)
	}
	return j.negotiation.Negotiated(in, func() []checks.Named { return j.named(t) })
}

// settlePeriod is how long no frame may cross the tap before a step has settled; 0 turns the
// quiet period off (a step still waits for its replies and for what the references owe).
func (j *journey) settlePeriod() time.Duration {
	switch {
	case j.opts.Settle < 0:
		return 0
	case j.opts.Settle > 0:
		return j.opts.Settle
	case j.p.Journey.Settle < 0:
		return 0
	case j.p.Journey.Settle > 0:
		return j.p.Journey.Settle
	}
	return DefaultSettle
}

func (j *journey) timeout() time.Duration {
	switch {
	case j.opts.Timeout > 0:
		return j.opts.Timeout
	case j.p.Journey.Timeout > 0:
		return j.p.Journey.Timeout
	}
	return DefaultTimeout
}

func (j *journey) driverFor(role string) (peer, transcript.Role) {
	if role == "host" {
		return j.host, transcript.Host
	}
	return j.client, transcript.Client
}

// actionArgs turns key=value words into a driver action's arguments: text=… becomes the
// base64 "bytes" field, integers become numbers and true/false booleans unless quoted, a
// JSON object or array is sent as it is (quoted too: a fuzz case writes one with generated
// parts as a quoted string).
func actionArgs(c journeys.Command) map[string]any {
	args := map[string]any{}
	for _, a := range c.Args[1:] {
		switch {
		case a.Key == "text":
			args["bytes"] = []byte(a.Value)
		case a.Key == "":
		default:
			if n, err := strconv.ParseInt(a.Value, 10, 64); err == nil && !a.Quoted {
				args[a.Key] = n
			} else if (strings.HasPrefix(a.Value, "{") || strings.HasPrefix(a.Value, "[")) && json.Valid([]byte(a.Value)) {
				args[a.Key] = json.RawMessage(a.Value)
			} else if b, err := strconv.ParseBool(a.Value); err == nil && !a.Quoted {
				args[a.Key] = b
			} else {
				args[a.Key] = a.Value
			}
		}
	}
	return args
}

// action: client ACTION key=value … / host ACTION key=value …
//
// While the tap holds a direction, the action's result is not waited for: a product whose
// action waits for its peer's answer would wait on what the tap holds. It is collected
// when the last held direction is released.
func (j *journey) action(ctx context.Context, s journeys.Step, c journeys.Command) error {
	if len(j.held) == 0 {
		return j.do(ctx, s, c)
	}
	ch := make(chan error, 1)
	go func() { ch <- j.do(ctx, s, c) }()
	j.pending = append(j.pending, ch)
	return nil
}

// do sends an action and waits for its result.
func (j *journey) do(ctx context.Context, s journeys.Step, c journeys.Command) error {
	name := c.Args[0].Value
	d, role := j.driverFor(c.Verb)
	raw, _ := json.Marshal(actionArgs(c))
	actx, cancel := context.WithTimeout(ctx, j.timeout())
	defer cancel()
	_, err := d.Do(actx, name, driver.Encoded(raw))
	a := transcript.Action{Role: role, Name: name, Args: raw, Step: s.Name, OK: err == nil}
	var ae *driver.ActionError
	switch {
	case err == nil:
	case errors.As(err, &ae):
		a.ErrorCode, a.Error = ae.Code, ae.Message
	default:
		a.Error = err.Error()
	}
	j.rec.update(func(t *transcript.Transcript, _ string) { t.Actions = append(t.Actions, a) })
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	switch {
	case ae != nil && ae.Code == "unsupported-action":
		j.rec.problem(role, fmt.Sprintf("does not support action %q, which step %s needs (%s)", name, s.Name, ae.Message),
			"the driver announced: "+strings.Join(d.Hello().Actions, ", "))
	case ae != nil:
		j.rec.problem(role, fmt.Sprintf("action %q failed (%s): %s", name, ae.Code, ae.Message), "")
	default:
		j.rec.problem(role, fmt.Sprintf("action %q: %v", name, err), "")
	}
	return errAbort
}

// await is a barrier:
//
//	await frame DIR NAME [count=N]     the tap saw N frames DIR NAME during this step (default 1)
//	await ROLE WHAT text=T             what ROLE reported as WHAT contains T (checks.StreamReader)
//	await ROLE WHAT [k=v …] [count=N]  ROLE made N observations WHAT with every k=v in this step
func (j *journey) await(ctx context.Context, s journeys.Step, c journeys.Command) error {
	desc := describe(c)
	c, whereArgs := splitWhere(c)
	where := whereOf(whereArgs)
	pos := c.Positional()
	count := 1
	if n, ok := c.Get("count"); ok {
		count, _ = strconv.Atoi(n) // Validate checked it
	}
	var cond func(t *transcript.Transcript) bool
	var near func(t *transcript.Transcript) []string // what came close, for a stall
	switch text, hasText := c.Get("text"); {
	case pos[0] == "frame":
		// Frames of this step: a reply to an earlier step's request that arrives now is
		// that step's, and does not meet this step's barrier.
		label := pos[1] + " " + pos[2]
		from := j.mark.frames
		cond = func(t *transcript.Transcript) bool {
			n := 0
			for _, f := range j.named(t) {
				if f.Index > from && f.Step == s.Name && f.Label() == label && f.Carries(where) {
					n++
				}
			}
			return n >= count
		}
		near = func(t *transcript.Transcript) []string {
			return frameNearMiss(j.named(t), s.Name, pos[1], pos[2], where, count, from)
		}
	case hasText:
		role, what := transcript.Role(pos[0]), pos[1]
		search := &checks.Search{Text: []byte(text)}
		cond = func(t *transcript.Transcript) bool {
			in := &checks.Input{Transcript: t, Journey: j.p.Journey, Host: j.p.Host.Contract, Client: j.p.Client.Contract}
			return j.streams.Contains(in, role, what, search)
		}
	default:
		role, what := transcript.Role(pos[0]), pos[1]
		from := j.mark.observations
		var want []journeys.Arg
		for _, a := range c.Args {
			if a.Key != "" && a.Key != "count" {
				want = append(want, a)
			}
		}
		want = append(want, whereArgs...)
		_, hasCount := c.Get("count")
		var clash error
		cond = func(t *transcript.Transcript) bool {
			n := 0
			for _, o := range t.Observations[from:] {
				if o.Role != role || o.What != what {
					continue
				}
				if hasCount && clash == nil && hasField(o, "count") {
					clash = &usage.Error{Err: &journeys.SyntaxError{File: j.p.Journey.File, Line: c.Line, Msg: fmt.Sprintf(
						"%s: the %s driver's %s observations carry a field named count, and count= is how many observations to wait for: write where count=… to match the field",
						desc, role, what)}}
					return true
				}
				if fieldsMatch(o, want) {
					n++
				}
			}
			return n >= count
		}
		near = func(t *transcript.Transcript) []string {
			return observationNearMiss(t.Observations[from:], role, what, want, count)
		}
		if err := j.wait(ctx, s, desc, cond, near); err != nil || clash == nil {
			return err
		}
		return clash
	}
	return j.wait(ctx, s, desc, cond, near)
}

// describe is a command as a stall names it: its words, values quoted.
func describe(c journeys.Command) string {
	desc := c.Verb
	for _, a := range c.Args {
		if a.Key == "" {
			desc += " " + a.Value
		} else {
			desc += " " + a.Key + "=" + strconv.Quote(a.Value)
		}
	}
	return desc
}

// hasField reports whether an observation's data has a top-level field called key.
func hasField(o transcript.Observation, key string) bool {
	v, _ := o.Value()
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, has := m[key]
	return has
}

// settle moves the start of the next absence assertion to now.
func (j *journey) settle() {
	j.rec.view(func(t *transcript.Transcript) {
		j.settled = mark{observations: len(t.Observations), frames: len(t.Frames)}
	})
}

// expect asserts an absence: from the end of the step's last barrier (or the step's start)
// until DURATION from now, no frame DIR NAME (expect frame DIR NAME
// none for=D) or no observation WHAT of ROLE with every k=v (expect ROLE WHAT k=v none
// for=D) may arrive. What arrives is recorded as unexpected (a finding); the journey goes on.
func (j *journey) expect(ctx context.Context, s journeys.Step, c journeys.Command) error {
	c, whereArgs := splitWhere(c)
	where := whereOf(whereArgs)
	pos := c.Positional()
	v, _ := c.Get("for")
	d, _ := time.ParseDuration(v) // Validate checked it
	desc := "expect " + strings.Join(pos[:len(pos)-1], " ")
	for _, w := range where {
		desc += " where " + w.String()
	}
	desc += " for " + v
	var seen func(t *transcript.Transcript) (string, bool)
	defer j.settle()
	if pos[0] == "frame" {
		label := pos[1] + " " + pos[2]
		from := j.settled.frames
		seen = func(t *transcript.Transcript) (string, bool) {
			for _, f := range j.named(t) {
				if f.Index > from && f.Step == s.Name && f.Label() == label && f.Carries(where) {
					return fmt.Sprintf("#%d %s", f.Index, f.Label()), true
				}
			}
			return "", false
		}
	} else {
		role, what := transcript.Role(pos[0]), pos[1]
		var want []journeys.Arg
		for _, a := range c.Args {
			if a.Key != "" && a.Key != "for" {
				want = append(want, a)
			}
		}
		want = append(want, whereArgs...)
		from := j.settled.observations
		seen = func(t *transcript.Transcript) (string, bool) {
			for _, o := range t.Observations[from:] {
				if o.Role == role && o.What == what && fieldsMatch(o, want) {
					return fmt.Sprintf("%s %s %s", o.Role, o.What, truncate(string(o.Data), 200)), true
				}
			}
			return "", false
		}
	}
	var got string
	arrived, err := j.watch(ctx, s, d, func(t *transcript.Transcript) bool {
		var ok bool
		got, ok = seen(t)
		return ok
	})
	if err != nil || !arrived {
		return err
	}
	j.rec.update(func(t *transcript.Transcript, _ string) {
		t.Unexpected = append(t.Unexpected, transcript.Unexpected{Step: s.Name, Line: c.Line, Expect: desc, Got: got})
	})
	return nil
}

// watch waits up to d for cond to hold (cond nil: for d), waking on every change to the
// transcript; it reports whether cond held. A driver that exits ends the journey.
func (j *journey) watch(ctx context.Context, s journeys.Step, d time.Duration, cond func(t *transcript.Transcript) bool) (bool, error) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		var ok bool
		changed := j.rec.view(func(t *transcript.Transcript) { ok = cond != nil && cond(t) })
		if ok {
			return true, nil
		}
		select {
		case <-changed:
		case <-timer.C:
			return false, nil
		case <-j.host.Exited():
			return false, j.exited(transcript.Host, j.host, s)
		case <-j.client.Exited():
			return false, j.exited(transcript.Client, j.client, s)
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// named names the transcript's frames with the pairing's contracts: each frame once, as it
// arrives (a barrier wakes on every frame), except where receiving drivers name frames, whose
// answers come later: then all of them again.
func (j *journey) named(t *transcript.Transcript) []checks.Named {
	in := &checks.Input{Transcript: t, Journey: j.p.Journey, Host: j.p.Host.Contract, Client: j.p.Client.Contract}
	if usesDriverDecoding(j.p.Host.Contract, j.p.Client.Contract) {
		return checks.NameFrames(in)
	}
	if j.namer == nil {
		j.namer = checks.NewNamer(in)
	}
	for ; j.namedUpTo < len(t.Frames); j.namedUpTo++ {
		j.namedFrames = append(j.namedFrames, j.namer.Name(t.Frames[j.namedUpTo])...)
	}
	return j.namedFrames
}

// fieldsMatch reports whether an observation's data has every key=value (values compared as
// text: strings as they are, other JSON values as encoding/json writes them: compactly,
// object keys sorted).
func fieldsMatch(o transcript.Observation, want []journeys.Arg) bool {
	if len(want) == 0 {
		return true
	}
	v, _ := o.Value()
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for _, a := range want {
		x, ok := m[a.Key]
		if !ok {
			return false
		}
		s, isString := x.(string)
		if !isString {
			raw, _ := json.Marshal(x)
			s = string(raw)
		}
		if s != a.Value {
			return false
		}
	}
	return true
}

// end expected-refusal: the journey ends here on purpose; the remaining steps are not run and
// do not count as incomplete. The window check judges whether the refusal was right.
func (j *journey) end(ctx context.Context, s journeys.Step, c journeys.Command) error {
	j.rec.update(func(t *transcript.Transcript, _ string) {
		t.End = &transcript.End{Step: s.Name, Reason: "expected-refusal"}
	})
	return errEnd
}

// wait blocks until cond holds, a driver exits, the barrier times out, nothing has happened
// for the quiet period (a fast stall: nothing is left that could meet the barrier), or ctx
// ends. It wakes on every change to the transcript; it never polls on a timer. A stall
// records what near (nil: nothing) says came close to meeting the barrier.
func (j *journey) wait(ctx context.Context, s journeys.Step, desc string, cond func(t *transcript.Transcript) bool,
	near func(t *transcript.Transcript) []string) error {
	timeout, quiet := j.timeout(), j.quiet()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var hush *time.Timer // fires when the quiet period may have passed
	if quiet > 0 && quiet < timeout {
		hush = time.NewTimer(quiet)
		defer hush.Stop()
	}
	refused := false // a frame of this step was refused: the barrier waits RefusedQuiet
	stall := func(quiet time.Duration, offline bool) error {
		j.rec.update(func(t *transcript.Transcript, _ string) {
			t.Stall = &transcript.Stall{Step: s.Name, Barrier: desc, Timeout: timeout, Quiet: quiet, Offline: offline, Refused: refused}
			if near != nil {
				t.Stall.NearMiss = near(t)
			}
		})
		return errAbort
	}
	for {
		var ok bool
		changed := j.rec.view(func(t *transcript.Transcript) {
			if ok = cond(t); !ok && hush != nil && !refused && j.refusedInStep(t) {
				// The pairing fails on the refusal whatever comes next, and it explains a
				// value that does not arrive: a much shorter quiet gives the barrier up.
				refused, quiet = true, refusedQuiet(quiet)
				hush.Reset(quiet)
			}
		})
		if ok {
			j.settle()
			return nil
		}
		var hushed <-chan time.Time
		if hush != nil {
			hushed = hush.C
		}
		select {
		case <-changed:
		case <-timer.C:
			return stall(0, false)
		case <-hushed:
			active, open := j.rec.activity()
			if left := quiet - time.Since(active); left > 0 {
				hush.Reset(left) // something happened meanwhile: wait for quiet from then
				continue
			}
			return stall(quiet, open == 0)
		case <-j.host.Exited():
			return j.exited(transcript.Host, j.host, s)
		case <-j.client.Exited():
			return j.exited(transcript.Client, j.client, s)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// refusedQuiet is how long nothing may happen during a barrier, once a frame of the step was
// refused, before the barrier is given up as a stall: an eighth of quiet. The pairing fails
// on the refusal whatever happens next (a decoder-refusal finding), and the refusal explains
// a value that does not come, so waiting the whole quiet period would change no verdict;
// a product that recovers (a resync after the refusal) still has the eighth, renewed by
// every frame, observation and connection event, to do so.
func refusedQuiet(quiet time.Duration) time.Duration { return quiet / 8 }

// refusedInStep reports whether the receiver of a frame of the current step reported that
// its real decoder refused or dropped it (a refused observation: a decoder-refusal finding,
// see checks.DecoderRefusal). Only the receiver's own report counts: a frame the tap reads
// as outside the receiver's contract is a finding too, but the receiver may not have got to
// it yet, nor to the frames after it, and on a busy machine what they cause comes late. A
// future-peer pass has none.
func (j *journey) refusedInStep(t *transcript.Transcript) bool {
	if j.opts.Rewriter != nil {
		// A future-peer pass: a refusal of what the rewrite added may be tolerated
		// (checks.Intolerance), so it explains nothing and fails nothing.
		return false
	}
	for _, o := range t.Observations[min(j.mark.observations, len(t.Observations)):] {
		if o.What == "refused" {
			return true
		}
	}
	return false
}

// quiet is how long nothing may happen during a barrier before it is given up as a stall
// (fast stalls); 0 turns them off.
func (j *journey) quiet() time.Duration {
	switch {
	case j.opts.Quiet < 0:
		return 0
	case j.opts.Quiet > 0:
		return j.opts.Quiet
	case j.p.Journey.Quiet > 0:
		return j.p.Journey.Quiet
	}
	return DefaultQuiet
}

func (j *journey) exited(role transcript.Role, d peer, s journeys.Step) error {
	j.rec.problem(role, fmt.Sprintf("exited during step %s: %v", s.Name, d.ExitErr()), "")
	return errAbort
}

// tap drop | block | unblock | hold DIR | release DIR | delay DIR D | fragment DIR N |
// redeliver DIR N | close: cut the transport between client and host (the client sees a real
// network close), with block keep it cut until unblock, with hold stop reading in one
// direction (a slow reader: the sender backs up) until release, with delay make one
// direction's messages late (latency and jitter), with fragment send them as continuation
// frames, with redeliver deliver a connection's last messages again after a reconnect, or
// with close end it with a close frame of a chosen code and reason to both peers.
func (j *journey) tap(ctx context.Context, s journeys.Step, c journeys.Command) error {
	switch pos := c.Positional(); pos[0] {
	case "hold":
		if j.held == nil {
			j.held = map[tap.Direction]bool{}
		}
		j.held[tap.Direction(pos[1])] = true
		j.proxy.Hold(tap.Direction(pos[1]))
	case "release":
		delete(j.held, tap.Direction(pos[1]))
		j.proxy.Release(tap.Direction(pos[1]))
		if len(j.held) == 0 {
			return j.collect()
		}
	case "delay":
		d, jitter := tapDelay(c)
		j.proxy.Delay(tap.Direction(pos[1]), d, jitter)
	case "fragment":
		size, writes := tapFragment(c)
		j.proxy.Fragment(tap.Direction(pos[1]), size, writes)
	case "redeliver":
		n, _ := strconv.Atoi(pos[2]) // Validate checked them
		after := 0
		if v, ok := c.Get("after"); ok {
			after, _ = strconv.Atoi(v)
		}
		j.proxy.Redeliver(tap.Direction(pos[1]), n, after)
	case "drop":
		j.proxy.Drop()
	case "close":
		v, _ := c.Get("code")
		code, _ := closeCode(v) // Validate checked it
		reason, _ := c.Get("reason")
		j.proxy.CloseWith(code, reason)
	case "block":
		j.proxy.Block()
	case "unblock":
		j.proxy.Unblock()
	}
	return nil
}

// idle for=DURATION: hold the journey still, so keepalives and idle timeouts happen (or do
// not). Time is what this verb waits for; a driver that exits meanwhile ends the journey.
func (j *journey) idle(ctx context.Context, s journeys.Step, c journeys.Command) error {
	v, _ := c.Get("for")
	d, _ := time.ParseDuration(v) // Validate checked it
	_, err := j.watch(ctx, s, d, nil)
	return err
}
