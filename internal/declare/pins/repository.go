package pins

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/go-git/go-git/v5"
)

// Open opens the git repository containing dir (dir may be any directory inside its
// working tree). A directory outside any repository gives an error wrapping
// ErrNotRepository.
func Open(dir string) (*git.Repository, error) {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, &missingDirError{dir}
	}
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, fmt.Errorf("open %s: %w", dir, ErrNotRepository)
	}
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", dir, err)
	}
	return repo, nil
}

// Root returns the root of the working tree of the repository containing dir: where
// skewtest.yaml and skewtest.lock live.
func Root(dir string) (string, error) {
	repo, err := Open(dir)
	if err != nil {
		return "", err
	}
	return root(repo, dir)
}

func root(repo *git.Repository, dir string) (string, error) {
	wt, err := repo.Worktree()
	if err != nil {
		return "", fmt.Errorf("open working tree of %s: %w", dir, err)
	}
	return wt.Filesystem.Root(), nil
}

// missingDirError is a repository directory that does not exist at all. It is an
// ErrNotRepository (errors.Is), said plainly.
type missingDirError struct{ dir string }

func (e *missingDirError) Error() string {
	return fmt.Sprintf("open %s: does not exist: give the directory of the subject's git repository", e.dir)
}

func (e *missingDirError) Is(target error) bool { return target == ErrNotRepository }

// UserMistake marks it as the user's to fix, as ErrNotRepository is (usage.Mistake).
func (*missingDirError) UserMistake() {}
