package harness

import (
	"fmt"
	"strings"

	"github.com/skewtest/skewtest/journeys"
)

// conditions a journey may use (see checks.Conditions); a name before ":" or a bare name.
var conditions = map[string]bool{"kind": true, "cap": true, "frame": true, "client-frame": true, "window": true}

// Validate checks a journey against the harness's vocabulary before anything runs, so a
// typo is a configuration error with file:line (exit 2), never a half-run pairing.
func Validate(j *journeys.Journey) error {
	bad := func(line int, format string, args ...any) error {
		return &journeys.SyntaxError{File: j.File, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	checkConds := func(line int, conds []journeys.Cond) error {
		for _, c := range conds {
			key, _, _ := strings.Cut(c.Name, ":")
			if !conditions[key] {
				return bad(line, "unknown condition %s (want kind:K, cap:NAME, frame:NAME, client-frame:NAME or window)", c)
			}
		}
		return nil
	}
	for _, s := range j.Steps {
		for _, c := range s.Commands {
			if err := checkConds(c.Line, c.Conds); err != nil {
				return err
			}
			pos := c.Positional()
			switch c.Verb {
			case "client", "host":
				if len(c.Args) == 0 || c.Args[0].Key != "" {
					return bad(c.Line, "%s needs an action name (%s subscribe …)", c.Verb, c.Verb)
				}
			case "await":
				switch {
				case len(pos) < 2:
					return bad(c.Line, "await needs a role and what to wait for (await client rendered-snapshot)")
				case pos[0] == "frame" && (len(pos) != 3 || (pos[1] != "C>H" && pos[1] != "H>C")):
					return bad(c.Line, "await frame needs a direction and a name (await frame C>H Unsubscribe)")
				case pos[0] != "frame" && pos[0] != "host" && pos[0] != "client":
					return bad(c.Line, "await %s: want host, client or frame", pos[0])
				}
			case "tap":
				if len(pos) != 1 || pos[0] != "drop" {
					return bad(c.Line, "tap knows only: tap drop")
				}
			case "end":
				if len(pos) != 1 || pos[0] != "expected-refusal" {
					return bad(c.Line, "end knows only: end expected-refusal")
				}
			default:
				return bad(c.Line, "unknown verb %q (want client, host, await, tap or end)", c.Verb)
			}
		}
	}
	for _, fl := range j.Frames {
		if err := checkConds(fl.Line, fl.Conds); err != nil {
			return err
		}
	}
	return nil
}
