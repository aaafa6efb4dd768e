package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/skewtest/skewtest/harness/checks"
	"github.com/skewtest/skewtest/harness/driver"
	"github.com/skewtest/skewtest/harness/tap"
	"github.com/skewtest/skewtest/harness/transcript"
	"github.com/skewtest/skewtest/journeys"
)

// journey runs one pairing's journey: the vocabulary of journey scripts lives here.
type journey struct {
	p      Pairing
	opts   Options
	rec    *recorder
	host   *driver.Driver
	client *driver.Driver
	proxy  *tap.Proxy
	has    func(cond string) bool
	// mark is the transcript's size when the current step started: "await ROLE WHAT" waits
	// for an observation after it.
	mark mark
}

type mark struct {
	observations int
	frames       int
}

// verbs maps a script verb to its implementation.
func (j *journey) verbs() map[string]func(ctx context.Context, s journeys.Step, c journeys.Command) error {
	return map[string]func(ctx context.Context, s journeys.Step, c journeys.Command) error{
		"client": j.action,
		"host":   j.action,
		"await":  j.await,
		"tap":    j.tap,
		"end":    j.end,
	}
}

func (j *journey) step(ctx context.Context, s journeys.Step) error {
	j.rec.view(func(t *transcript.Transcript) {
		j.mark = mark{observations: len(t.Observations), frames: len(t.Frames)}
	})
	verbs := j.verbs()
	for _, c := range s.Commands {
		if !journeys.Holds(c.Conds, j.has) {
			continue
		}
		f, ok := verbs[c.Verb]
		if !ok {
			// Run validates the journey first; this is a verb Validate knows and this file does not.
			return fmt.Errorf("%s:%d: verb %q has no implementation", j.p.Journey.File, c.Line, c.Verb)
		}
		if err := f(ctx, s, c); err != nil {
			return err
		}
	}
	return nil
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

func (j *journey) driverFor(role string) (*driver.Driver, transcript.Role) {
	if role == "host" {
		return j.host, transcript.Host
	}
	return j.client, transcript.Client
}

// actionArgs turns key=value words into a driver action's arguments: text=… becomes the
// base64 "bytes" field, integers become numbers, true/false booleans, a JSON object or
// array is sent as it is.
func actionArgs(c journeys.Command) map[string]any {
	args := map[string]any{}
	for _, a := range c.Args[1:] {
		switch {
		case a.Key == "text":
			args["bytes"] = []byte(a.Value)
		case a.Key == "":
		default:
			if n, err := strconv.ParseInt(a.Value, 10, 64); err == nil {
				args[a.Key] = n
			} else if (strings.HasPrefix(a.Value, "{") || strings.HasPrefix(a.Value, "[")) && json.Valid([]byte(a.Value)) {
				args[a.Key] = json.RawMessage(a.Value)
			} else if b, err := strconv.ParseBool(a.Value); err == nil {
				args[a.Key] = b
			} else {
				args[a.Key] = a.Value
			}
		}
	}
	return args
}

// action: client ACTION key=value … / host ACTION key=value …
func (j *journey) action(ctx context.Context, s journeys.Step, c journeys.Command) error {
	name := c.Args[0].Value
	d, role := j.driverFor(c.Verb)
	args := actionArgs(c)
	raw, _ := json.Marshal(args)
	actx, cancel := context.WithTimeout(ctx, j.timeout())
	defer cancel()
	_, err := d.Do(actx, name, args)
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

// await ROLE WHAT [text=…]: a barrier. Without text it waits for a new observation WHAT from
// ROLE in this step. "await host input text=X" waits until the input that reached the
// process contains X; "await client screen text=X" until the client's screen contains X;
// "await frame DIR NAME" until the tap sees that frame in this step.
func (j *journey) await(ctx context.Context, s journeys.Step, c journeys.Command) error {
	pos := c.Positional()
	text, hasText := c.Get("text")
	desc := "await " + strings.Join(pos, " ")
	if hasText {
		desc += " text=" + strconv.Quote(text)
	}
	var cond func(t *transcript.Transcript) bool
	switch {
	case pos[0] == "frame":
		label := pos[1] + " " + pos[2]
		from := j.mark.frames
		cond = func(t *transcript.Transcript) bool {
			in := &checks.Input{Transcript: &transcript.Transcript{Kind: t.Kind, Frames: t.Frames[from:], Conns: t.Conns},
				Journey: j.p.Journey, Host: j.p.Host.Contract, Client: j.p.Client.Contract}
			for _, n := range checks.NameFrames(in) {
				if n.Label() == label {
					return true
				}
			}
			return false
		}
	default: // host or client (Validate refused anything else)
		role := transcript.Role(pos[0])
		what := pos[1]
		switch {
		case what == "screen" && hasText:
			cond = func(t *transcript.Transcript) bool {
				for i := len(t.Observations) - 1; i >= 0; i-- {
					o := t.Observations[i]
					if o.Role == role && (o.What == "rendered-output" || o.What == "rendered-snapshot") {
						return bytes.Contains(checks.Bytes(o.Data, "screen"), []byte(text))
					}
				}
				return false
			}
		case hasText:
			cond = func(t *transcript.Transcript) bool {
				var all []byte
				for _, o := range t.Observed(role, what) {
					all = append(all, checks.Bytes(o.Data, "bytes")...)
				}
				return bytes.Contains(all, []byte(text))
			}
		default:
			from := j.mark.observations
			var want []journeys.Arg
			for _, a := range c.Args {
				if a.Key != "" {
					want = append(want, a)
					desc += " " + a.Key + "=" + a.Value
				}
			}
			cond = func(t *transcript.Transcript) bool {
				for _, o := range t.Observations[from:] {
					if o.Role == role && o.What == what && fieldsMatch(o.Data, want) {
						return true
					}
				}
				return false
			}
		}
	}
	return j.wait(ctx, s, desc, cond)
}

// fieldsMatch reports whether an observation's data has every key=value (values compared as
// text: strings as they are, other JSON values as written).
func fieldsMatch(data json.RawMessage, want []journeys.Arg) bool {
	if len(want) == 0 {
		return true
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return false
	}
	for _, a := range want {
		raw, ok := m[a.Key]
		if !ok {
			return false
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
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

// wait blocks until cond holds, a driver exits, the barrier times out or ctx ends. It wakes
// on every change to the transcript; it never polls on a timer.
func (j *journey) wait(ctx context.Context, s journeys.Step, desc string, cond func(t *transcript.Transcript) bool) error {
	timeout := j.timeout()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		var ok bool
		changed := j.rec.view(func(t *transcript.Transcript) { ok = cond(t) })
		if ok {
			return nil
		}
		select {
		case <-changed:
		case <-timer.C:
			j.rec.update(func(t *transcript.Transcript, _ string) {
				t.Stall = &transcript.Stall{Step: s.Name, Barrier: desc, Timeout: timeout}
			})
			return errAbort
		case <-j.host.Exited():
			j.rec.problem(transcript.Host, fmt.Sprintf("exited during step %s: %v", s.Name, j.host.ExitErr()), "")
			return errAbort
		case <-j.client.Exited():
			j.rec.problem(transcript.Client, fmt.Sprintf("exited during step %s: %v", s.Name, j.client.ExitErr()), "")
			return errAbort
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// tap drop: cut the transport between client and host.
func (j *journey) tap(ctx context.Context, s journeys.Step, c journeys.Command) error {
	j.proxy.Drop()
	return nil
}
