package container

import (
	"context"
	"fmt"
	"os"

	"github.com/gofrs/flock"
	"github.com/moby/moby/client"
)

// Leftover is a build container that Prune found.
type Leftover struct {
	ID, Build, Key string
	State          string // running, exited, ...
	Removed        bool   // false: its build lock is held, the build is still going
}

// Prune removes the build containers (label skewtest=1) whose build lock nobody holds:
// those left by a skewtest process that was killed. A container whose build is still
// running (another process holds its lock) is listed but kept.
func (r *Runner) Prune(ctx context.Context) ([]Leftover, error) {
	cli := r.provider.Client()
	list, err := cli.ContainerList(ctx, client.ContainerListOptions{
		All:     true,
		Filters: make(client.Filters).Add("label", Label+"=1"),
	})
	if err != nil {
		return nil, fmt.Errorf("list build containers: %w", err)
	}
	var out []Leftover
	for _, c := range list.Items {
		l := Leftover{ID: c.ID, Build: c.Labels[BuildLabel], Key: c.Labels[KeyLabel], State: string(c.State)}
		if lockFree(c.Labels[LockLabel]) {
			if _, err := cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err != nil {
				return out, fmt.Errorf("remove build container %.12s: %w", c.ID, err)
			}
			l.Removed = true
		}
		out = append(out, l)
	}
	return out, nil
}

// lockFree reports whether nobody holds the lock file (a missing file is free).
func lockFree(path string) bool {
	if path == "" {
		return true
	}
	if _, err := os.Stat(path); err != nil {
		return true
	}
	l := flock.New(path)
	defer l.Close()
	ok, err := l.TryLock()
	if err != nil || !ok {
		return false
	}
	_ = l.Unlock()
	return true
}
