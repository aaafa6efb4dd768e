// Package builds turns versions of a subject into built artifacts: it writes a commit's
// tree from the object database (or copies the working tree with its uncommitted,
// non-ignored files), reads that build's own skewtest.yaml, runs its recipe and keeps the
// result in a content-addressed cache.
//
// # Cache layout
//
//	<CacheDir>/gocache/                 GOCACHE shared by every build of every subject
//	<CacheDir>/builds/<key>/src/        the materialized tree the recipe ran in
//	<CacheDir>/builds/<key>/out/        $SKEWTEST_OUT: the artifacts, drivers' working dir
//	<CacheDir>/builds/<key>/build.log   every step's command line and combined output
//	<CacheDir>/builds/<key>/build.json  the build record (status ok or failed)
//	<CacheDir>/builds/.lock-<key>       flock held while building <key>
//	<CacheDir>/builds/.staging-<key>-*  a build in progress
//
// The key is a SHA-256 over the tree content (a commit's git tree hash, or a digest of the
// working tree's paths, modes and contents), the recipe steps and the toolchain string.
// A build is made in a staging directory and published with one os.Rename, so a key
// directory is always complete. A build recorded ok is never rebuilt.
//
// Because the staging directory is renamed, $SKEWTEST_OUT and the source directory move
// after the recipe ran: artifacts must be relocatable and must not embed those absolute
// paths (Go binaries are; build with -trimpath to keep the source path out of them too).
package builds
