// Package pins chooses the release refs a subject is tested against and resolves them to
// commits.
//
// A pin is a release ref (usually a tag) with the commit it resolves to and the reason it
// was chosen. The default rule pins the newest stable tag: a tag named exactly vX.Y.Z
// (numeric parts, compared numerically). Pre-releases (v1.4.191-rc.1), tags with a foreign
// prefix (mobile-v9.0.0) and other names (v799) are never stable; Resolve reports each one
// it passed over, with the reason, in Selection.Skipped.
//
// Tags are read with go-git from the repository's object database; nothing is fetched.
// A shallow clone usually has no tags at all, which is the commonest reason for
// ErrNoStableTag.
package pins
