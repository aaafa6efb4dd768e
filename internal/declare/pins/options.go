package pins

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// Ref is a ref pinned by name, with the reason it is pinned ("the real v1.4.173 release
// client"). Reason may be empty; the pin's reason is then "explicit".
type Ref struct {
	Ref    string `yaml:"ref"`
	Reason string `yaml:"reason"`
}

// Refs turns names (as given with --pins a,b) into Refs with the same reason.
func Refs(reason string, names ...string) []Ref {
	out := make([]Ref, 0, len(names))
	for _, n := range names {
		out = append(out, Ref{Ref: n, Reason: reason})
	}
	return out
}

// Options says which refs to pin. It is also the `pins:` section of skewtest.yaml (see
// docs/subject.md); the zero value pins the newest stable tag.
type Options struct {
	// Refs are explicit refs (tags, branches or hex commit prefixes), pinned first, in
	// order. Each resolves to a commit or Resolve fails with ErrUnknownRef. An explicit
	// ref is pinned even when an Ignore pattern matches it.
	Refs []Ref `yaml:"refs"`
	// Last pins the newest Last stable tags. Validate sets it to 1 when no other rule is
	// given, which is the default rule.
	Last int `yaml:"last"`
	// Window pins every stable tag inside the working tree's protocol window: each
	// side's protocol version is at least the other's minCompatible (see Protocol).
	Window bool `yaml:"window"`
	// Ignore are glob patterns (path.Match syntax, e.g. "v1.4.19?-*") of tags the stable
	// rules (Last, Window) never pin.
	Ignore []string `yaml:"ignore"`

	// Lock, when not nil, is checked: a pinned tag that the lock records at another
	// commit is refused with ErrMovedTag. It is not part of skewtest.yaml.
	Lock *Lock `yaml:"-"`
	// ContractOf, when not nil, reads a tag's contract for the Window rule as every command
	// reads a build's contract (subject.ContractFile: a versions row's contract or overlay
	// included; pins cannot import it). Nil reads the contract the tag's own skewtest.yaml
	// names. It is not part of skewtest.yaml.
	ContractOf func(ctx context.Context, tag string, commit plumbing.Hash) (ContractFile, error) `yaml:"-"`
}

// Validate checks the options and fills the defaults. Errors wrap ErrInvalidOptions.
func (o *Options) Validate() error {
	if o.Last < 0 {
		return fmt.Errorf("%w: last %d stable tags: the count must not be negative", ErrInvalidOptions, o.Last)
	}
	refs := make([]Ref, 0, len(o.Refs))
	for _, r := range o.Refs {
		r.Ref, r.Reason = strings.TrimSpace(r.Ref), strings.TrimSpace(r.Reason)
		if r.Ref == "" {
			return fmt.Errorf("%w: empty ref in the pin list", ErrInvalidOptions)
		}
		refs = append(refs, r)
	}
	o.Refs = refs
	for _, p := range o.Ignore {
		if _, err := path.Match(p, ""); err != nil || strings.TrimSpace(p) == "" {
			return fmt.Errorf("%w: ignore pattern %q is not a glob of tag names like \"v1.4.19?-*\"", ErrInvalidOptions, p)
		}
	}
	if len(o.Refs) == 0 && o.Last == 0 && !o.Window {
		o.Last = 1
	}
	return nil
}

// ignored returns the first Ignore pattern that matches tag, or "".
func (o *Options) ignored(tag string) string {
	for _, p := range o.Ignore {
		if ok, _ := path.Match(p, tag); ok {
			return p
		}
	}
	return ""
}

// Override returns o with the selection rules of flags put in its place: when flags
// names refs, a count or the window, they replace o's Refs, Last and Window as a whole
// (a command line says what to pin now); flags' Ignore patterns are added to o's. Lock
// is taken from flags when set.
func (o Options) Override(flags Options) Options {
	if len(flags.Refs) > 0 || flags.Last > 0 || flags.Window {
		o.Refs, o.Last, o.Window = flags.Refs, flags.Last, flags.Window
	}
	o.Ignore = append(append([]string(nil), o.Ignore...), flags.Ignore...)
	if flags.Lock != nil {
		o.Lock = flags.Lock
	}
	return o
}
