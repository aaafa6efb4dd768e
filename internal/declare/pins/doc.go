// Package pins chooses the release refs a subject is tested against, resolves them to
// commits, and checks them against a lock file.
//
// A pin is a release ref (usually a tag) with the commit it resolves to and the reason it
// was chosen. Options holds the rules, which are also the `pins:` section of the working
// tree's skewtest.yaml:
//
//   - explicit refs, each with the reason it is pinned (Refs);
//   - the newest N stable tags (Last; Last 1, the newest stable tag, is the default);
//   - every stable tag inside the working tree's protocol window (Window): each tag's
//     contract is read from the object database, at the path its own skewtest.yaml names;
//   - glob patterns of tags the stable rules never pin (Ignore).
//
// A stable tag is named exactly vX.Y.Z (numeric parts, compared numerically).
// Pre-releases (v1.4.191-rc.1), tags with a foreign prefix (mobile-v9.0.0) and other names
// (v799) are never stable. Resolve explains every tag it did not pin in
// Selection.Skipped.
//
// Tags are read with go-git from the repository's object database; nothing is fetched.
// A shallow clone usually has no tags at all, which is the commonest reason for
// ErrNoStableTag; the error says how to fetch them.
//
// The lock file (LockFile, at the root of the working tree) records the commit of every
// stable tag and pinned tag; Resolve with Options.Lock refuses a pinned tag that now
// points elsewhere (ErrMovedTag), and WriteLock records a move made on purpose.
package pins
