package checks

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// lastFrames is how many frames a stall finding shows.
const lastFrames = 6

// Stall reports the barrier a step was waiting on when its time ran out, with what came
// close to meeting it (the near miss: frames of the awaited name whose where failed, and the
// values they carried) and the last frames the tap saw.
func Stall(in *Input) []results.Finding {
	s := in.Transcript.Stall
	if s == nil {
		return nil
	}
	named := NameFrames(in)
	var last []string
	for _, n := range named[max(0, len(named)-lastFrames):] {
		where := "step " + n.Step
		if n.Teardown {
			where = transcript.TeardownStep // as the transcript and the timeline name it
		}
		last = append(last, fmt.Sprintf("#%d %s (%s)", n.Index, n.Label(), where))
	}
	detail := "last frames seen: none"
	if len(last) > 0 {
		detail = "last frames seen:\n  " + strings.Join(last, "\n  ")
	}
	if len(s.NearMiss) > 0 {
		detail = "near miss:\n  " + strings.Join(s.NearMiss, "\n  ") + "\n" + detail
	}
	msg := fmt.Sprintf("%s not reached within %s", s.Barrier, s.Timeout)
	after := ""
	if s.Refused {
		after = " after a frame of the step was refused"
	}
	switch {
	case s.Quiet > 0 && s.Offline:
		msg = fmt.Sprintf("%s not reached: no connection was open and nothing happened for %s%s (given up before the %s timeout)", s.Barrier, s.Quiet, after, s.Timeout)
	case s.Quiet > 0:
		msg = fmt.Sprintf("%s not reached: both drivers and the wire were quiet for %s%s (given up before the %s timeout)", s.Barrier, s.Quiet, after, s.Timeout)
	}
	return []results.Finding{{
		Kind:    results.Stall,
		Step:    s.Step,
		Message: msg,
		Detail:  detail,
	}}
}

// Incomplete reports a journey that did not complete every step; such a pairing never passes.
func Incomplete(in *Input) []results.Finding {
	done := in.Transcript.CompletedSteps()
	all := in.Journey.StepNames()
	if len(done) == len(all) || in.Transcript.End != nil {
		return nil
	}
	missing := all[len(done):]
	if len(done) < len(all) {
		for i, s := range all {
			if i >= len(done) || done[i] != s {
				missing = all[i:]
				break
			}
		}
	}
	return []results.Finding{{
		Kind:    results.IncompleteJourney,
		Step:    missing[0],
		Message: fmt.Sprintf("completed %d of %d steps; stopped at %s", len(done), len(all), missing[0]),
		Detail:  "not run: " + strings.Join(missing[1:], ", "),
	}}
}

// DriverErrors reports what drivers did wrong: invalid output, crashes, failed or unsupported
// actions.
func DriverErrors(in *Input) []results.Finding {
	var out []results.Finding
	for _, p := range in.Transcript.Problems {
		out = append(out, results.Finding{
			Kind:    results.DriverError,
			Step:    p.Step,
			Message: fmt.Sprintf("%s driver: %s", p.Role, p.Message),
			Detail:  p.Detail,
		})
	}
	for _, o := range in.Transcript.Observations {
		if o.What != ErrorObservation {
			continue
		}
		var e struct {
			Message string `json:"message"`
		}
		msg := "reported an error"
		if json.Unmarshal(o.Data, &e) == nil && e.Message != "" {
			msg = "reported an error: " + e.Message
		} else if len(o.Data) > 0 && string(o.Data) != "null" {
			msg = "reported an error: " + string(o.Data)
		}
		out = append(out, results.Finding{Kind: results.DriverError, Step: o.Step,
			Message: fmt.Sprintf("%s driver %s", o.Role, msg)})
	}
	return out
}

// ErrorObservation is the driver protocol's observation of an internal error of the driver or
// the product ({"message": …}); every one is a driver-error finding.
const ErrorObservation = "error"

// Unexpected reports what arrived while the journey asserted that nothing would.
func Unexpected(in *Input) []results.Finding {
	var out []results.Finding
	for _, u := range in.Transcript.Unexpected {
		out = append(out, results.Finding{
			Kind:    results.UnexpectedEvent,
			Step:    u.Step,
			Message: fmt.Sprintf("%s:%d: %s, but it arrived", filepath.Base(in.Journey.File), u.Line, strings.Replace(u.Expect, "expect ", "expected no ", 1)),
			Detail:  "arrived: " + u.Got,
		})
	}
	return out
}
