package pins

import "github.com/skewtest/skewtest/internal/declare/usage"

// Sentinel errors. Errors returned by this package wrap them with the repository and ref
// involved, so test them with errors.Is.
var (
	// ErrNotRepository means the directory is not inside a git repository.
	ErrNotRepository = usage.New("not a git repository")

	// ErrNoStableTag means the default rule (or Last) found no tag named vX.Y.Z.
	ErrNoStableTag = usage.New("no release tag matching vX.Y.Z")

	// ErrUnknownRef means an explicit ref is not a tag, a branch or a commit of the
	// repository.
	ErrUnknownRef = usage.New("unknown ref")

	// ErrInvalidOptions means the pin rules themselves are wrong (a negative count, an
	// empty ref, a malformed ignore pattern).
	ErrInvalidOptions = usage.New("invalid pin rules")

	// ErrNoProtocol means the window rule could not read the working tree's protocol
	// window from its contract.
	ErrNoProtocol = usage.New("no protocol window")

	// ErrMovedTag means a pinned tag points at another commit than the one recorded in
	// the lock file. The error names the tag, both commits and how to accept the move.
	ErrMovedTag = usage.New("tag moved since it was locked")
)

// fetchTagsHint says how to get tags into a checkout that has none.
const fetchTagsHint = "a shallow clone has no tags: fetch full history and tags " +
	"(git fetch --unshallow --tags, or fetch-depth: 0 in CI)"
