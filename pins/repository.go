package pins

import (
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5"
)

// Open opens the git repository containing dir (dir may be any directory inside its
// working tree). A directory outside any repository gives an error wrapping
// ErrNotRepository.
func Open(dir string) (*git.Repository, error) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, fmt.Errorf("open %s: %w", dir, ErrNotRepository)
	}
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", dir, err)
	}
	return repo, nil
}
