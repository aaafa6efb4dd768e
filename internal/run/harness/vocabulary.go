package harness

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/tap"
)

// verb is one word of the journey vocabulary: how it is written, what makes a line of it
// well formed, and what it does. The table below is the one place verbs are known:
// Validate and the runner both read it.
type verb struct {
	syntax string
	check  func(c journeys.Command) error
	run    func(j *journey, ctx context.Context, s journeys.Step, c journeys.Command) error
	// frame names the frame a well-formed command of the verb is about, if any (await
	// frame DIR NAME), for CheckNames.
	frame func(c journeys.Command) (string, bool)
	// role names the driver role whose action a well-formed command sends, if any, for
	// CheckActions.
	role func(c journeys.Command) (string, bool)
}

var vocabulary = map[string]verb{
	"client": {syntax: "client ACTION [key=value …]", check: checkAction, run: (*journey).action, role: actionRole},
	"host":   {syntax: "host ACTION [key=value …]", check: checkAction, run: (*journey).action, role: actionRole},
	"await": {syntax: "await ROLE WHAT [key=value …] [count=N] [where key=value …] | await ROLE WHAT text=T | await frame DIR NAME [count=N] [where KEY=VALUE …]",
		check: checkAwait, run: (*journey).await, frame: framePositional},
	"expect": {syntax: "expect ROLE WHAT [key=value …] [where key=value …] none for=DURATION | expect frame DIR NAME [where KEY=VALUE …] none for=DURATION",
		check: checkExpect, run: (*journey).expect, frame: framePositional},
	"tap":  {syntax: "tap drop | tap block | tap unblock | tap hold DIR | tap release DIR | tap delay DIR D [jitter=J] | tap fragment DIR N [writes=B] | tap redeliver DIR N [after=K] | tap close code=N [reason=TEXT]", check: checkTap, run: (*journey).tap},
	"idle": {syntax: "idle for=DURATION", check: checkIdle, run: (*journey).idle},
	"end":  {syntax: "end expected-refusal", check: checkEnd, run: (*journey).end},
}

func verbNames() string {
	var names []string
	for n := range vocabulary {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// Validate checks a journey against the vocabulary before anything runs, so a typo is a
// configuration error with file:line (exit 2), never a half-run pairing.
func Validate(j *journeys.Journey) error {
	bad := func(line int, err error) error {
		return &journeys.SyntaxError{File: j.File, Line: line, Msg: err.Error()}
	}
	conds := func(line int, cs []journeys.Cond) error {
		for _, c := range cs {
			if err := checks.CheckCondition(c); err != nil {
				return bad(line, err)
			}
		}
		return nil
	}
	if err := j.EachConds(conds); err != nil {
		return err
	}
	for _, s := range j.Steps {
		for _, c := range s.Commands {
			v, ok := vocabulary[c.Verb]
			if !ok {
				return bad(c.Line, fmt.Errorf("unknown verb %q (want %s)", c.Verb, verbNames()))
			}
			if err := v.check(c); err != nil {
				return bad(c.Line, fmt.Errorf("%v (%s)", err, v.syntax))
			}
		}
	}
	return nil
}

// framePositional is the NAME of "await frame DIR NAME" and "expect frame DIR NAME none".
func framePositional(c journeys.Command) (string, bool) {
	c, _ = splitWhere(c)
	if pos := c.Positional(); len(pos) >= 3 && pos[0] == "frame" {
		return pos[2], true
	}
	return "", false
}

// splitWhere takes a command's where clause out of it: the key=value words after the word
// where, up to the next positional word (expect's none). It returns the command without the
// clause, and the clause (nil without one; empty when where is followed by no key=value).
func splitWhere(c journeys.Command) (journeys.Command, []journeys.Arg) {
	var head, where []journeys.Arg
	in := false
	for _, a := range c.Args {
		switch {
		case a.Key == "" && a.Value == checks.WhereWord && where == nil:
			in, where = true, []journeys.Arg{}
		case in && a.Key != "":
			where = append(where, a)
		default:
			in = false
			head = append(head, a)
		}
	}
	c.Args = head
	return c, where
}

// whereOf is a command's where clause as checks read it.
func whereOf(args []journeys.Arg) []checks.Where {
	var out []checks.Where
	for _, a := range args {
		out = append(out, checks.Where{Key: a.Key, Value: a.Value})
	}
	return out
}

// onlyKeys refuses a key of c that is not in known: a key the verb does not know would
// otherwise mean nothing, silently. The message lists the keys it knows, and where the line
// is about a frame, how to match what the frame carries.
func onlyKeys(c journeys.Command, known ...string) error {
	for _, a := range c.Args {
		if a.Key == "" || slices.Contains(known, a.Key) {
			continue
		}
		knows := "no key=value words"
		if len(known) > 0 {
			knows = strings.Join(known, "=, ") + "="
		}
		pos := c.Positional()
		hint := ""
		if len(pos) >= 3 && pos[0] == "frame" {
			hint = fmt.Sprintf("; to match what the frame carries, write %s %s %s %s where %s=%s", c.Verb, pos[0], pos[1], pos[2], a.Key, a.Value)
		}
		return fmt.Errorf("%s %s does not know the key %s (it knows %s)%s", c.Verb, strings.Join(pos, " "), a.Key, knows, hint)
	}
	return nil
}

// checkWhere checks a where clause: at least one KEY=VALUE, and pointers that are pointers.
func checkWhere(where []journeys.Arg) error {
	if where == nil {
		return nil
	}
	if len(where) == 0 {
		return errors.New("where needs KEY=VALUE words after it (a header field such as qos=1, or a JSON pointer such as /params/seq=2)")
	}
	for _, w := range where {
		if err := checks.CheckWhereKey(w.Key); err != nil {
			return err
		}
	}
	return nil
}

// actionRole is the role of "client ACTION" and "host ACTION".
func actionRole(c journeys.Command) (string, bool) { return c.Verb, true }

// frameConditions are the conditions whose argument is a frame name.
var frameConditions = []string{"frame", "client-frame"}

// CheckNames checks the frame names a journey uses (in [frame:NAME] conditions, await and
// expect frame, and its frames section) against the frames the contracts of a run's builds
// declare, before anything runs: a name no contract knows is a typo, a configuration error
// at the journey's file:line, never a finding on every pairing. known lists the frame
// names (FrameNames); whose says whose contracts they are, for the message. A journey must
// pass Validate first.
func CheckNames(j *journeys.Journey, known []string, whose string) error {
	unknown := func(line int, name string) error {
		hint := ""
		if near := usage.Nearest(name, known); near != "" {
			hint = fmt.Sprintf(": did you mean %q?", near)
		}
		return &journeys.SyntaxError{File: j.File, Line: line, Msg: fmt.Sprintf(
			"frame %q is in no contract of %s%s (they know %s)", name, whose, hint, strings.Join(known, ", "))}
	}
	conds := func(line int, cs []journeys.Cond) error {
		for _, c := range cs {
			key, arg, _ := strings.Cut(c.Name, ":")
			if name, _, _ := checks.FrameArg(arg); slices.Contains(frameConditions, key) && !slices.Contains(known, name) {
				return unknown(line, name)
			}
		}
		return nil
	}
	if err := j.EachConds(conds); err != nil {
		return err
	}
	for _, s := range j.Steps {
		for _, c := range s.Commands {
			if v := vocabulary[c.Verb]; v.frame != nil {
				if name, ok := v.frame(c); ok && !slices.Contains(known, name) {
					return unknown(c.Line, name)
				}
			}
		}
	}
	for _, fls := range [][]journeys.FrameLine{j.Frames, j.Ignore} {
		for _, fl := range fls {
			if !slices.Contains(known, fl.Name) {
				return unknown(fl.Line, fl.Name)
			}
		}
	}
	return nil
}

// CheckWhere checks the bare keys of a journey's where clauses (await frame, expect frame,
// [frame:NAME where …]) against the header and binary payload fields the contracts of a run's
// builds declare for the frame (keys lists them by frame name: WhereKeys), before anything
// runs: a key no contract declares would never match, a configuration error at the journey's
// file:line that lists the keys it could mean. Pointers (/…) are not checked against the
// contracts: a JSON payload may carry fields its contract does not list. A journey must pass
// Validate and CheckNames first.
func CheckWhere(j *journeys.Journey, keys func(frame string) []string, whose string) error {
	check := func(line int, frame string, where []checks.Where) error {
		for _, w := range where {
			if strings.HasPrefix(w.Key, "/") {
				continue
			}
			known := keys(frame)
			if slices.Contains(known, w.Key) {
				continue
			}
			fields := "no header or binary payload fields"
			if len(known) > 0 {
				fields = "the fields " + strings.Join(known, ", ")
			}
			hint := ""
			if near := usage.Nearest(w.Key, known); near != "" {
				hint = fmt.Sprintf(": did you mean %s=%s?", near, w.Value)
			}
			return &journeys.SyntaxError{File: j.File, Line: line, Msg: fmt.Sprintf(
				"where %s: frame %s has no field %s in the contracts of %s%s (they give it %s; a JSON or protobuf payload field is named by its pointer, where /%s=%s)",
				w, frame, w.Key, whose, hint, fields, w.Key, w.Value)}
		}
		return nil
	}
	conds := func(line int, cs []journeys.Cond) error {
		for _, c := range cs {
			if key, arg, _ := strings.Cut(c.Name, ":"); key == "frame" {
				if name, where, err := checks.FrameArg(arg); err == nil {
					if err := check(line, name, where); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	if err := j.EachConds(conds); err != nil {
		return err
	}
	for _, s := range j.Steps {
		for _, c := range s.Commands {
			if v := vocabulary[c.Verb]; v.frame != nil {
				if name, ok := v.frame(c); ok {
					_, where := splitWhere(c)
					if err := check(c.Line, name, whereOf(where)); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// CheckCommands checks the command ids a journey's command conditions name
// ([command:NAME@V], [host-command:NAME@V]) against the commands the contracts of a run's
// builds declare (CommandNames), before anything runs: a command no contract declares is a
// typo that would make the condition never hold, a configuration error at the journey's
// file:line. whose says whose contracts they are, for the message. A journey must pass
// Validate first.
func CheckCommands(j *journeys.Journey, known []string, whose string) error {
	conds := func(line int, cs []journeys.Cond) error {
		for _, c := range cs {
			name, ok := checks.CommandArg(c.Name)
			if !ok || slices.Contains(known, name) {
				continue
			}
			hint := ""
			if near := usage.Nearest(name, known); near != "" {
				hint = fmt.Sprintf(": did you mean %q?", near)
			}
			return &journeys.SyntaxError{File: j.File, Line: line, Msg: fmt.Sprintf(
				"command %q is in no contract of %s%s (they declare %s)", name, whose, hint, declared(known))}
		}
		return nil
	}
	return j.EachConds(conds)
}

// CheckChannels checks, before anything runs, that the contracts of a run's builds (and of
// the working tree, whose journeys these are) decide the channel of every frame condition
// of a journey (checks.ConditionChannels: the line's path, the journey's channel header,
// or the contracts' one channel), and that its channel header names one of their channels:
// a condition is decided from the contracts, never false for want of a connection. A
// journey must pass Validate first.
func CheckChannels(j *journeys.Journey, bs ...*Build) error {
	var cs []*contract.Contract
	for _, b := range bs {
		if b != nil && b.Contract != nil {
			cs = append(cs, b.Contract)
		}
	}
	if err := checks.CheckChannel(j, cs...); err != nil {
		return err
	}
	_, err := checks.ConditionChannels(j, cs...)
	return err
}

// declared lists names for a message, or says there are none.
func declared(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// CheckActions checks the actions a journey sends to drivers of one role ("host" or
// "client") against the actions a driver announced in its hello (a driver that announces
// none is not checked). The drivers of the build whose journeys these are (the working
// tree) define the journeys' actions, so an action its driver does not know is a typo: a
// configuration error at the journey's file:line, which names the driver. A line with
// conditions is not checked: it may name an action only some kinds or builds have, for
// the pairings where its conditions hold (where they hold and the driver lacks it, the
// driver's unsupported-action answer is a driver-error finding).
func CheckActions(j *journeys.Journey, role, driverName string, announced []string) error {
	if len(announced) == 0 {
		return nil
	}
	for _, s := range j.Steps {
		for _, c := range s.Commands {
			v := vocabulary[c.Verb]
			if v.role == nil {
				continue
			}
			if r, ok := v.role(c); !ok || r != role || len(c.Args) == 0 || len(c.Conds) > 0 {
				continue
			}
			if name := c.Args[0].Value; !slices.Contains(announced, name) {
				return &journeys.SyntaxError{File: j.File, Line: c.Line, Msg: fmt.Sprintf(
					"%s action %q: the %s driver does not announce it in its hello (it announces %s)",
					role, name, driverName, strings.Join(announced, ", "))}
			}
		}
	}
	return nil
}

func checkAction(c journeys.Command) error {
	if len(c.Args) == 0 || c.Args[0].Key != "" {
		return fmt.Errorf("%s needs an action name", c.Verb)
	}
	return nil
}

func checkAwait(c journeys.Command) error {
	c, where := splitWhere(c)
	if err := checkWhere(where); err != nil {
		return err
	}
	pos := c.Positional()
	if n, ok := c.Get("count"); ok {
		if v, err := strconv.Atoi(n); err != nil || v < 1 {
			return fmt.Errorf("count=%s is not a positive number (count= is how many to wait for; to match a field named count, write where count=%s)", n, n)
		}
	}
	if len(pos) > 0 && pos[0] == "frame" {
		if err := onlyKeys(c, "count"); err != nil {
			return err
		}
	}
	switch {
	case len(pos) < 2:
		return errors.New("await needs a role and what to wait for")
	case pos[0] == "frame" && (len(pos) != 3 || (pos[1] != contract.ClientToHost && pos[1] != contract.HostToClient)):
		return errors.New("await frame needs a direction and a name")
	case pos[0] != "frame" && pos[0] != "host" && pos[0] != "client":
		return fmt.Errorf("await %s: want host, client or frame", pos[0])
	case pos[0] != "frame" && len(pos) != 2:
		return fmt.Errorf("await %s takes one thing to wait for, then key=value words", pos[0])
	}
	if _, hasText := c.Get("text"); hasText {
		if _, hasCount := c.Get("count"); hasCount {
			return errors.New("text= and count= do not go together")
		}
	}
	return nil
}

func checkExpect(c journeys.Command) error {
	c, where := splitWhere(c)
	if err := checkWhere(where); err != nil {
		return err
	}
	pos := c.Positional()
	if len(pos) > 0 && pos[0] == "frame" {
		if err := onlyKeys(c, "for"); err != nil {
			return err
		}
	}
	switch {
	case len(pos) == 0 || pos[len(pos)-1] != "none":
		return errors.New("expect asserts an absence: it ends with none and a for=DURATION")
	case pos[0] == "frame" && (len(pos) != 4 || (pos[1] != contract.ClientToHost && pos[1] != contract.HostToClient)):
		return errors.New("expect frame needs a direction and a name")
	case pos[0] != "frame" && pos[0] != "host" && pos[0] != "client":
		return fmt.Errorf("expect %s: want host, client or frame", pos[0])
	case pos[0] != "frame" && len(pos) != 3:
		return fmt.Errorf("expect %s takes one thing that must not happen, then key=value words", pos[0])
	}
	v, ok := c.Get("for")
	if !ok {
		return errors.New("expect needs for=DURATION: how long nothing may arrive")
	}
	if d, err := time.ParseDuration(v); err != nil || d <= 0 {
		return fmt.Errorf("expect for=%s is not a positive duration such as 300ms", v)
	}
	return nil
}

func checkTap(c journeys.Command) error {
	pos := c.Positional()
	if len(pos) == 1 && pos[0] == "close" {
		return checkTapClose(c)
	}
	if len(pos) > 0 && pos[0] == "delay" {
		return checkTapDelay(c)
	}
	if len(pos) > 0 && pos[0] == "fragment" {
		return checkTapFragment(c)
	}
	if len(pos) > 0 && pos[0] == "redeliver" {
		return checkTapRedeliver(c)
	}
	if len(pos) > 0 && (pos[0] == "hold" || pos[0] == "release") {
		if len(pos) != 2 || len(c.Args) != 2 || (pos[1] != string(tap.ClientToHost) && pos[1] != string(tap.HostToClient)) {
			return fmt.Errorf("tap %s takes a direction and nothing else: tap %s C>H or tap %s H>C", pos[0], pos[0], pos[0])
		}
		return nil
	}
	if len(pos) != 1 || len(c.Args) != 1 || !slices.Contains([]string{"drop", "block", "unblock"}, pos[0]) {
		return errors.New("tap takes one of drop, block, unblock, hold DIR, release DIR, delay DIR D [jitter=J], fragment DIR N [writes=B], redeliver DIR N [after=K] or close code=N [reason=TEXT]")
	}
	return nil
}

// tapDirCommand checks the shape of tap VERB DIR VALUE [KEY=…]: a direction, one value, and
// no key but the one keyArg names (usage is the error for a wrong shape).
func tapDirCommand(c journeys.Command, keyArg, usage string) error {
	pos := c.Positional()
	if len(pos) != 3 || (pos[1] != string(tap.ClientToHost) && pos[1] != string(tap.HostToClient)) {
		return errors.New(usage)
	}
	key, _, _ := strings.Cut(keyArg, "=")
	for _, a := range c.Args {
		if a.Key != "" && a.Key != key {
			return fmt.Errorf("tap %s takes %s, not %s", pos[0], keyArg, a.Key)
		}
	}
	return nil
}

// maxTapDelay bounds tap delay's latency and jitter: longer belongs to idle and hold.
const maxTapDelay = 10 * time.Second

// checkTapDelay checks tap delay DIR D [jitter=J]: a direction and durations from 0 to
// maxTapDelay.
func checkTapDelay(c journeys.Command) error {
	if err := tapDirCommand(c, "jitter=D", "tap delay takes a direction and a duration: tap delay H>C 50ms [jitter=20ms] (0 ends it)"); err != nil {
		return err
	}
	pos := c.Positional()
	durations := []string{pos[2]}
	if j, ok := c.Get("jitter"); ok {
		durations = append(durations, j)
	}
	for _, v := range durations {
		if d, err := time.ParseDuration(v); err != nil || d < 0 || d > maxTapDelay {
			return fmt.Errorf("tap delay %s is not a duration from 0 to %s, such as 50ms", v, maxTapDelay)
		}
	}
	return nil
}

// tapDelay reads tap delay's latency and jitter (checkTapDelay checked them).
func tapDelay(c journeys.Command) (d, jitter time.Duration) {
	d, _ = time.ParseDuration(c.Positional()[2])
	if j, ok := c.Get("jitter"); ok {
		jitter, _ = time.ParseDuration(j)
	}
	return d, jitter
}

// checkTapFragment checks tap fragment DIR N [writes=B]: a direction, a frame size and a
// transport write size that are whole numbers from 0.
func checkTapFragment(c journeys.Command) error {
	if err := tapDirCommand(c, "writes=B", "tap fragment takes a direction and a frame size in bytes: tap fragment H>C 7 [writes=3] (0 ends it)"); err != nil {
		return err
	}
	pos := c.Positional()
	sizes := []string{pos[2]}
	if w, ok := c.Get("writes"); ok {
		sizes = append(sizes, w)
	}
	for _, v := range sizes {
		if n, err := strconv.Atoi(v); err != nil || n < 0 {
			return fmt.Errorf("tap fragment %s is not a size in bytes (0 or more)", v)
		}
	}
	return nil
}

// tapFragment reads tap fragment's sizes (checkTapFragment checked them).
func tapFragment(c journeys.Command) (size, writes int) {
	size, _ = strconv.Atoi(c.Positional()[2])
	if w, ok := c.Get("writes"); ok {
		writes, _ = strconv.Atoi(w)
	}
	return size, writes
}

// checkTapRedeliver checks tap redeliver DIR N [after=K]: a direction and counts from 1 (N)
// and 0 (K).
func checkTapRedeliver(c journeys.Command) error {
	if err := tapDirCommand(c, "after=K", "tap redeliver takes a direction and how many messages: tap redeliver H>C 2 [after=1]"); err != nil {
		return err
	}
	pos := c.Positional()
	if n, err := strconv.Atoi(pos[2]); err != nil || n < 1 {
		return fmt.Errorf("tap redeliver %s is not a count of messages (1 or more)", pos[2])
	}
	if v, ok := c.Get("after"); ok {
		if k, err := strconv.Atoi(v); err != nil || k < 0 {
			return fmt.Errorf("tap redeliver after=%s is not a count of messages (0 or more)", v)
		}
	}
	return nil
}

// checkTapClose checks tap close code=N [reason=TEXT]: a close code a peer may send (1000 to
// 1003, 1007 to 1014, 3000 to 4999) and a reason that fits a close frame (123 bytes).
func checkTapClose(c journeys.Command) error {
	for _, a := range c.Args {
		if a.Key != "" && a.Key != "code" && a.Key != "reason" {
			return fmt.Errorf("tap close takes code=N and reason=TEXT, not %s", a.Key)
		}
	}
	v, ok := c.Get("code")
	if !ok {
		return errors.New("tap close needs code=N: the close code both peers get, such as 1012 or 4000")
	}
	if _, err := closeCode(v); err != nil {
		return err
	}
	if r, _ := c.Get("reason"); len(r) > 123 {
		return fmt.Errorf("tap close reason is %d bytes: a close frame carries at most 123", len(r))
	}
	return nil
}

// closeCode parses a close code a peer may send in a close frame (RFC 6455 7.4).
func closeCode(v string) (int, error) {
	n, err := strconv.Atoi(v)
	switch {
	case err != nil:
		return 0, fmt.Errorf("tap close code=%s is not a number", v)
	case n >= 1000 && n <= 1003, n >= 1007 && n <= 1014, n >= 3000 && n <= 4999:
		return n, nil
	}
	return 0, fmt.Errorf("tap close code=%d is not one a peer may send: 1000 to 1003, 1007 to 1014, or 3000 to 4999", n)
}

func checkIdle(c journeys.Command) error {
	v, ok := c.Get("for")
	if !ok || len(c.Args) != 1 {
		return errors.New("idle needs for=DURATION and nothing else")
	}
	if d, err := time.ParseDuration(v); err != nil || d <= 0 {
		return fmt.Errorf("idle for=%s is not a positive duration such as 2s", v)
	}
	return nil
}

func checkEnd(c journeys.Command) error {
	if pos := c.Positional(); len(pos) != 1 || pos[0] != "expected-refusal" {
		return errors.New("end knows only expected-refusal")
	}
	return onlyKeys(c)
}

// framesSection is how PartialNames names a line of the frames section.
const framesSection = "frames section"

// PartialNames warns, before anything is built, of the frames a journey waits for that the
// contracts of some of a run's builds do not declare: an await frame, or a line of its frames
// section that must appear, with no frame condition on that name. In a pairing with such a
// build the barrier waits until it times out (a stall), or the frame is missing from the
// sequence, on every run. Each warning is "FILE:LINE: …", naming the builds that lack the
// frame and the two fixes. Builds without a contract are left out; a name no build declares
// is CheckNames' error.
func PartialNames(j *journeys.Journey, bs []*Build) []string {
	var withContract []*Build
	declared := map[*Build][]string{}
	for _, b := range bs {
		if b.Contract != nil {
			withContract = append(withContract, b)
			declared[b] = FrameNames(b)
		}
	}
	guarded := func(conds []journeys.Cond, name string) bool {
		for _, c := range conds {
			key, arg, _ := strings.Cut(c.Name, ":")
			if n, _, _ := checks.FrameArg(arg); !c.Not && strings.HasSuffix(key, "frame") && n == name {
				return true
			}
		}
		return false
	}
	var out []string
	warn := func(line int, what, name string) {
		var lack, have []string
		for _, b := range withContract {
			if slices.Contains(declared[b], name) {
				have = append(have, b.Label)
			} else {
				lack = append(lack, b.Label)
			}
		}
		if len(lack) == 0 || len(have) == 0 {
			return
		}
		verb, fails := "do", "wait until the barrier times out (a stall)"
		if len(lack) == 1 {
			verb = "does"
		}
		if what == framesSection {
			fails = "lack it in the sequence (sequence-drift)"
		}
		out = append(out, fmt.Sprintf("%s:%d: %s: %s is declared only by the contracts of %s; %s %s not declare it, so their pairings %s on every run. "+
			"Put the line under [frame:%s] (it then runs only where the pairing's contracts declare the frame), or, if those builds do send it, "+
			"give them a contract that declares it with a versions: row in skewtest.yaml (docs/subject.md)",
			j.File, line, what, name, strings.Join(have, ", "), strings.Join(lack, ", "), verb, fails, name))
	}
	for _, s := range j.Steps {
		for _, c := range s.Commands {
			if c.Verb != "await" {
				continue // an expect frame … none holds wherever the frame is unknown
			}
			if v := vocabulary[c.Verb]; v.frame != nil {
				if name, ok := v.frame(c); ok && !guarded(c.Conds, name) {
					warn(c.Line, describe(c), name)
				}
			}
		}
	}
	for _, fl := range j.Frames {
		if (fl.Quant == "" || fl.Quant == "+") && !guarded(fl.Conds, fl.Name) {
			warn(fl.Line, framesSection, fl.Name)
		}
	}
	return out
}
