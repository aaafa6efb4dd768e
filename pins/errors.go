package pins

import "errors"

// Sentinel errors. Errors returned by this package wrap them with the repository and ref
// involved, so test them with errors.Is.
var (
	// ErrNotRepository means the directory is not inside a git repository.
	ErrNotRepository = errors.New("not a git repository")

	// ErrNoStableTag means the default rule (or LastN) found no tag named vX.Y.Z.
	ErrNoStableTag = errors.New("no release tag matching vX.Y.Z")

	// ErrUnknownRef means an explicit ref is not a tag, a branch or a commit of the
	// repository.
	ErrUnknownRef = errors.New("unknown ref")
)

// fetchTagsHint says how to get tags into a checkout that has none.
const fetchTagsHint = "a shallow clone has no tags: fetch full history and tags " +
	"(git fetch --unshallow --tags, or fetch-depth: 0 in CI)"
