package session

import (
	"fmt"
	"slices"
)

// CommandVersion is one version of a command: the schemas of its input and output.
type CommandVersion struct {
	Input  Schema
	Output Schema
	// Migration says how a caller moves from the previous version; every version after the
	// first carries one, because a new command version exists only for a breaking change.
	Migration string
}

// Command is one row of the registry.
type Command struct {
	ID       string
	Versions map[int]CommandVersion
}

// Registry is the single validation authority for request inputs and response outputs: one
// table keyed by command id. A release speaks a subset of it (release.CommandVersions).
type Registry map[string]Command

// Commands is remoteterm's command registry: every version of every command any release
// has spoken.
func Commands() Registry {
	str := Field{Type: KindString, Required: true}
	rows := []Command{
		{ID: "ping", Versions: map[int]CommandVersion{
			1: {Input: Schema{"message": {Type: KindString}}, Output: Schema{"message": {Type: KindString}}},
		}},
		{ID: "workspace.open", Versions: map[int]CommandVersion{
			1: {Input: Schema{"path": str}, Output: Schema{"workspaceId": str}},
		}},
		{ID: "review.start", Versions: map[int]CommandVersion{
			1: {Input: Schema{"repo": str}, Output: Schema{"reviewId": str}},
			2: {
				Input:     Schema{"repo": str, "base": str},
				Output:    Schema{"reviewId": str, "base": str},
				Migration: "v2 requires base (the ref the review compares against) and echoes it; v1 callers reviewed against the default branch, so pass base: the repository's default branch",
			},
		}},
		// Spoken only by builds with the reviewComment switch (a compatible change: a new
		// command).
		{ID: "review.comment", Versions: map[int]CommandVersion{
			1: {Input: Schema{"reviewId": str, "body": str}, Output: Schema{"commentId": str}},
		}},
	}
	r := Registry{}
	for _, c := range rows {
		r[c.ID] = c
	}
	return r
}

// Lookup finds one version of a command.
func (r Registry) Lookup(id string, version int) (CommandVersion, bool) {
	c, ok := r[id]
	if !ok {
		return CommandVersion{}, false
	}
	v, ok := c.Versions[version]
	return v, ok
}

// checkSpoken reports a command version that a release claims to speak but the registry
// does not define, so a typo in the release table cannot go unnoticed.
func (r Registry) checkSpoken(spoken map[string][]int) error {
	for _, id := range sortedKeys(spoken) {
		for _, v := range spoken[id] {
			if _, ok := r.Lookup(id, v); !ok {
				return fmt.Errorf("command %s version %d: not in the command registry", id, v)
			}
		}
	}
	return nil
}

// sortedVersions returns a sorted copy.
func sortedVersions(vs []int) []int {
	out := slices.Clone(vs)
	slices.Sort(out)
	return out
}
