package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/declare/usage"
)

// CondChannel is the contract channel a journey line's conditions are about, decided from
// the journey and the contracts alone (ConditionChannels), never from the traffic.
type CondChannel struct {
	// Name is the channel's name; "" when no contract has a channel.
	Name string
	// Path is the path whose gates apply: the line's own, else the first path of the channel
	// the journey's script names, else "" (a frame's gate for every path, "*").
	Path string
}

// pathKey is the action argument a line names a path with (path=/session): a line names a
// path when its value is a path of a channel of the contracts.
const pathKey = "path"

// channelConditions are the conditions about a channel's frames: a line that carries one
// must have a channel (ConditionChannels).
var channelConditions = []string{"frame", "client-frame"}

// ChannelNames lists the channel names of the contracts, sorted, each once.
func ChannelNames(cs ...*contract.Contract) []string {
	var out []string
	for _, c := range cs {
		if c == nil {
			continue
		}
		for _, ch := range c.Channels {
			if !slices.Contains(out, ch.Name) {
				out = append(out, ch.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// servedBy is the name of the channel of the contracts that serves path, or "".
func servedBy(path string, cs []*contract.Contract) string {
	for _, c := range cs {
		if c == nil {
			continue
		}
		if ch := c.Channel(path); ch != nil {
			return ch.Name
		}
	}
	return ""
}

// namedPath is the path a command names (its path= argument, with a leading slash), and
// whether it names one.
func namedPath(c journeys.Command) (string, bool) {
	p, ok := c.Get(pathKey)
	if !ok || p == "" {
		return "", false
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return p, true
}

// ConditionChannels decides, for every line of j whose conditions are about a channel
// ([frame:…], [client-frame:…], [command:…], [host-command:…]), which channel of the
// contracts cs it is about, by the first rule that applies:
//
//  1. the line names a path (path=/session) that a channel of the contracts serves: that
//     channel (a path= value no contract serves is no wire path: the next rules apply);
//  2. the journey's channel header (channel NAME);
//  3. the contracts have one channel: that one.
//
// A frame condition ([frame:…], [client-frame:…]) on a line none of them decides (several
// channels, no path, no header) is a *journeys.SyntaxError at the line, naming the fix; a
// command condition there is about every channel (a command any of them declares). The
// decision reads no transcript: the same journey and contracts always decide the same.
func ConditionChannels(j *journeys.Journey, cs ...*contract.Contract) (map[int]CondChannel, error) {
	names := ChannelNames(cs...)
	out := map[int]CondChannel{}
	// The first path of each channel the script names, for the gates of lines without one.
	first := map[string]string{}
	for _, s := range j.Steps {
		for _, c := range s.Commands {
			if p, ok := namedPath(c); ok {
				if ch := servedBy(p, cs); ch != "" && first[ch] == "" {
					first[ch] = p
				}
			}
		}
	}
	pick := func(line int, conds []journeys.Cond, path string, hasPath bool) error {
		if !slices.ContainsFunc(conds, aboutChannel) {
			return nil
		}
		switch ch := servedBy(path, cs); {
		case hasPath && ch != "":
			out[line] = CondChannel{Name: ch, Path: path}
		case j.Channel != "":
			out[line] = CondChannel{Name: j.Channel, Path: first[j.Channel]}
		case len(names) == 1:
			out[line] = CondChannel{Name: names[0], Path: first[names[0]]}
		case len(names) == 0:
			out[line] = CondChannel{}
		default:
			for _, c := range conds {
				if key, _, _ := strings.Cut(c.Name, ":"); slices.Contains(channelConditions, key) {
					return &journeys.SyntaxError{File: j.File, Line: line, Msg: ambiguous(c, names)}
				}
			}
			// A command condition without a channel is about every channel (speaks).
		}
		return nil
	}
	for _, s := range j.Steps {
		for _, c := range s.Commands {
			p, ok := namedPath(c)
			if err := pick(c.Line, c.Conds, p, ok); err != nil {
				return nil, err
			}
		}
	}
	for _, fls := range [][]journeys.FrameLine{j.Frames, j.Ignore} {
		for _, fl := range fls {
			if err := pick(fl.Line, fl.Conds, "", false); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// aboutChannel reports whether a condition is about a channel of the contracts.
func aboutChannel(c journeys.Cond) bool {
	key, _, _ := strings.Cut(c.Name, ":")
	return slices.Contains(channelConditions, key) || slices.Contains(commandConditions, key)
}

// ambiguous says that a frame condition's channel cannot be decided, and how to decide it.
func ambiguous(c journeys.Cond, names []string) string {
	var headers []string
	for _, n := range names {
		headers = append(headers, "channel "+n)
	}
	return fmt.Sprintf("condition %s: which channel's frame? The contracts have the channels %s and the line names no path: "+
		"add a channel line to the journey's header (%s)", c, strings.Join(names, ", "), strings.Join(headers, " or "))
}

// CheckChannel checks a journey's channel header against the channels of the contracts
// (those of every build of a run, and of the working tree, whose journeys these are): a
// channel none of them has would make every frame condition false, so it is a
// *journeys.SyntaxError at the header line that lists the channels. Nil without a header
// or a contract with channels.
func CheckChannel(j *journeys.Journey, cs ...*contract.Contract) error {
	names := ChannelNames(cs...)
	if j.Channel == "" || len(names) == 0 || slices.Contains(names, j.Channel) {
		return nil
	}
	hint := ""
	if near := usage.Nearest(j.Channel, names); near != "" {
		hint = fmt.Sprintf(": did you mean channel %s?", near)
	}
	return &journeys.SyntaxError{File: j.File, Line: j.ChannelLine, Msg: fmt.Sprintf(
		"channel %q is no channel of the contracts (they have %s)%s", j.Channel, strings.Join(names, ", "), hint)}
}
