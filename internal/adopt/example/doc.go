// Package example writes an example subject — the bundled reference subject, remoteterm,
// or another listed in the subjects table (internal/bundle) — as a real git repository:
// one commit and tag per release of its history, with the release's untagged intermediate
// commits before it, extra tags that pin selection must ignore, and the working tree's
// uncommitted changes.
//
// A subject's history is data, its directory's history.yaml. Every release is the
// subject's directory with, from that release on, the files of history/<tag>/ laid over
// it; optionally a file holding the release's feature table (featuresFile) and a contract
// derived from a template for those features (contract). A release's commits are made
// before its own, after the previous release's, each dated between the two: ordinary work
// whose set carries over as a release's does (a release that re-applies its commits' sets
// keeps the tree it had without them), and whose tree says it is version <tag>-dev.<n>. A
// commit marked broken also gets brokenFile, a Go file that does not compile, which the
// next commit drops: a ref of the history whose build fails. The working tree is the last
// release plus worktree.set and history/worktree/. Its knownBugs are the release-skew bugs
// the history ships on purpose (Written.KnownBugs): pairings that skewtest must find red,
// with the kinds of finding each must report, which `skewtest demo` runs after the default
// plan.
//
// A subject whose go.mod requires github.com/skewtest/skewtest (for the driver kit, with a
// replace pointing into the skewtest repository) gets the kit written into every tree,
// under third_party/skewtest, and its replace pointed there: each tag builds with nothing
// but its own repository. The Node.js kit comes with it (third_party/skewtest/driverkit/node),
// for the subject's drivers in JavaScript.
//
// The sources come from a skewtest checkout when skewtest runs inside one, else from the
// archive built into the binary (sources.zip, written by `go generate ./internal/adopt/example`).
package example
