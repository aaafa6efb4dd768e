// Package builds turns versions of a subject into built artifacts: it writes a commit's
// tree from the object database (or copies the working tree with its uncommitted,
// non-ignored files), reads that build's own skewtest.yaml, applies the working tree's
// versions table (overlays, recipes, toolchains), runs the recipe with a Runner (Local
// by default; builds/container for containers) and keeps the result in a
// content-addressed cache.
//
// # The versions table
//
// Version-specific build differences live in one place: the versions table of the working
// tree's skewtest.yaml (Versions). The first row whose semver range covers a pin's tag
// applies to it: its overlay paths of the working tree replace those paths of the old
// checkout (drivers added after the tag was cut; the fixtures directory left out, so that
// recording fixtures changes no old tag's key), its recipe replaces the checkout's
// build.steps, its toolchain names the container runner's image. A tag with no
// skewtest.yaml at all (cut before the subject adopted skewtest) is built with the working
// tree's skewtest.yaml when a row covers it, and refused (a ConfigError saying so)
// otherwise.
//
// # Cache layout
//
//	<CacheDir>/gocache/                   GOCACHE shared by every build of every subject
//	<CacheDir>/builds/<key>/src/          the materialized tree the recipe ran in
//	<CacheDir>/builds/<key>/out/          $SKEWTEST_OUT: the artifacts, drivers' working dir
//	<CacheDir>/builds/<key>/build.log     every step's command line and combined output
//	<CacheDir>/builds/<key>/build.json    the build record (status ok or failed); its
//	                                      modification time is when a build last used it
//	<CacheDir>/builds/.lock-<key>         flock held while building (or pruning) <key>
//	<CacheDir>/builds/.lock-<key>.holder  who holds that lock (pid, command line, since):
//	                                      written once it is taken, removed before it is
//	                                      released; a build that waits names that process.
//	                                      A killed holder's is left behind and blocks nothing
//	<CacheDir>/builds/.staging-<key>-*    a build in progress
//	<CacheDir>/tmp/<key>-*                its TMPDIR and GOTMPDIR, removed when it ends
//
// The key is a SHA-256 over the tree content (a commit's git tree hash, or a digest of the
// working tree's paths, modes and contents), the recipe steps, the toolchain string (the
// Runner's: the host's `go env GOVERSION GOOS/GOARCH`, or the container image's ID) and
// the overlays (their paths and a digest of their content in the working tree). A build is
// made in a staging directory and published with one os.Rename, so a key directory is
// always complete. A build recorded ok is never rebuilt; a failed one is retried by the
// next Build. List and Prune (`skewtest cache ls|prune`) read and trim the cache; Prune
// takes each key's lock first and leaves alone what another process is building. The first
// Build of a Builder removes the staging and temporary directories that killed processes
// left, in the same way.
//
// Recipe steps run under package proc: none of their processes outlives the build, or
// skewtest, even a SIGKILLed one.
//
// Because the staging directory is renamed, $SKEWTEST_OUT and the source directory move
// after the recipe ran: artifacts must be relocatable and must not embed those absolute
// paths (Go binaries are; build with -trimpath to keep the source path out of them too).
package builds
