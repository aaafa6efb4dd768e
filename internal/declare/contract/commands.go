package contract

import (
	"slices"
	"strconv"
	"strings"
)

// Calls says which frames of a channel call commands and where such a frame carries the
// command's id and version, so that a check can tell which version a request was sent at
// (harness/checks CommandVersions).
type Calls struct {
	// Frames names the frames that call a command (a request).
	Frames []string `json:"frames"`
	// Command is a JSON pointer to the command's id in such a frame.
	Command string `json:"command"`
	// Version is a JSON pointer to the version the frame calls; a frame without a value
	// there calls the command implicitly (no version). Empty: no frame carries one.
	Version string `json:"version,omitempty"`
}

// Calling reports whether the frame called name calls a command.
func (c *Calls) Calling(name string) bool {
	return c != nil && slices.Contains(c.Frames, name)
}

// Command returns the channel's command with that id, or nil.
func (ch *Channel) Command(id string) *Command {
	for i := range ch.Commands {
		if ch.Commands[i].ID == id {
			return &ch.Commands[i]
		}
	}
	return nil
}

// MigrationOf is the migration text of version v ("" when there is none).
func (c *Command) MigrationOf(v int) string {
	return strings.TrimSpace(c.Migration[strconv.Itoa(v)])
}

// Gaps returns the versions between the command's oldest and newest that it does not list:
// versions are contiguous (a peer picks the highest version both sides speak, so every
// version in between must still have its handler).
func (c *Command) Gaps() []int {
	if len(c.Versions) == 0 {
		return nil
	}
	lo, hi := slices.Min(c.Versions), slices.Max(c.Versions)
	var out []int
	for v := lo + 1; v < hi; v++ {
		if !slices.Contains(c.Versions, v) {
			out = append(out, v)
		}
	}
	return out
}

// command checks one command: an id, versions from 1 listed once, and migration texts keyed
// by a version the command lists, none empty.
func (v *validator) command(c *Command, p string) {
	if c.ID == "" {
		v.add(p, "a command needs an id")
	}
	seen := map[int]bool{}
	for i, ver := range c.Versions {
		switch {
		case ver < 1:
			v.add(child(p+"/versions", i), "command %q: version %d is not a version: versions count from 1", c.ID, ver)
		case seen[ver]:
			v.add(child(p+"/versions", i), "command %q lists version %d twice", c.ID, ver)
		}
		seen[ver] = true
	}
	for _, k := range sortedKeys(c.Migration) {
		at := child(p+"/migration", k)
		n, err := strconv.Atoi(k)
		switch {
		case err != nil || strconv.Itoa(n) != k:
			v.add(at, `command %q: migration key %q is not a version: key each text by the version it migrates to ("2": "…")`, c.ID, k)
		case !seen[n]:
			v.add(at, "command %q has migration text for version %d, which it does not list (versions %s): list the version or remove the text", c.ID, n, versionList(c.Versions))
		case strings.TrimSpace(c.Migration[k]) == "":
			v.add(at, "command %q: the migration text of version %d is empty: say how a caller moves to it from version %d", c.ID, n, n-1)
		}
	}
}

// calls checks a channel's calls: frames of the channel, a pointer to the command, and a
// valid version pointer when there is one.
func (v *validator) calls(ch *Channel, p string) {
	c := ch.Calls
	if len(c.Frames) == 0 {
		v.add(p, `calls names the frames that call a command: "frames": ["request"]`)
	}
	for i, name := range c.Frames {
		if ch.Named(name, "", "") == nil {
			v.add(child(p+"/frames", i), "channel %q has no frame called %q", ch.Name, name)
		}
	}
	if c.Command == "" {
		v.add(p, `calls needs "command": a JSON pointer to the command id in a calling frame, such as /command`)
	} else {
		v.pointer(c.Command, p+"/command", true)
	}
	v.pointer(c.Version, p+"/version", false)
}

// versionList is "1, 2, 4".
func versionList(vs []int) string {
	s := make([]string, len(vs))
	for i, v := range slices.Sorted(slices.Values(vs)) {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ", ")
}

// undocumented checks that every version above 1 that the newer channel nc (at np) adds to a
// command carries migration text, against the older channel oc it matches (nil: a channel
// the older contract does not have, whose every version is new).
func (d *differ) undocumented(oc *Channel, nc *Channel, np string) {
	for k := range nc.Commands {
		cmd := &nc.Commands[k]
		var was []int
		if oc != nil {
			if o := oc.Command(cmd.ID); o != nil {
				was = o.Versions
			}
		}
		for vi, ver := range cmd.Versions {
			if ver <= 1 || slices.Contains(was, ver) || cmd.MigrationOf(ver) != "" {
				continue
			}
			d.add(RuleCommandVersionUndocumented, child(child(np+"/commands", k)+"/versions", vi),
				`%s: command %s version %d is new and has no migration text: a new version exists only for a breaking change, so say how a caller moves to it from version %d (add "migration": {"%d": "…"} to the command)`,
				nc.Name, cmd.ID, ver, ver-1, ver)
		}
	}
}

// gaps checks that every command of the newer contract lists contiguous versions: a
// contract-level rule, checked on the newer contract whatever the older one says.
func (d *differ) gaps() {
	for j := range d.new.Channels {
		nc, np := &d.new.Channels[j], child("/channels", j)
		for k := range nc.Commands {
			cmd := &nc.Commands[k]
			gaps := cmd.Gaps()
			if len(gaps) == 0 {
				continue
			}
			missing := make([]string, len(gaps))
			for i, g := range gaps {
				missing[i] = strconv.Itoa(g)
			}
			d.add(RuleCommandVersionsGap, child(np+"/commands", k)+"/versions",
				"%s: command %s lists versions %s, without %s: versions are contiguous (a peer picks the highest version both sides speak, and every version from the oldest to the newest keeps its handler while a newer one is supported): list %s again, or give a new version the next number",
				nc.Name, cmd.ID, versionList(cmd.Versions), strings.Join(missing, ", "), strings.Join(missing, ", "))
		}
	}
}
