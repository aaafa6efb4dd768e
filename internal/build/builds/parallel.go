package builds

import (
	"context"
	"runtime"

	"golang.org/x/sync/errgroup"
)

// Result is the outcome of one source in BuildAll: an artifact or an error.
type Result struct {
	Source   Source
	Artifact *Artifact
	Err      error
}

// BuildAll builds sources concurrently, at most Parallel at a time (each reported Queued
// first), and returns one Result
// per source in the same order. A failing build does not stop the others; cancelling ctx
// does. Sources with the same content build once (the others wait for the key's lock and
// find it cached).
func (b *Builder) BuildAll(ctx context.Context, repoDir string, sources []Source) []Result {
	results := make([]Result, len(sources))
	limit := b.Parallel
	if limit <= 0 {
		limit = runtime.NumCPU()
	}
	for _, src := range sources {
		if src.Label == "" {
			src.Label = WorktreeLabel
		}
		b.emit(Event{Label: src.Label, State: Queued})
	}
	var g errgroup.Group
	g.SetLimit(limit)
	for i, src := range sources {
		results[i].Source = src
		g.Go(func() error {
			results[i].Artifact, results[i].Err = b.Build(ctx, repoDir, src)
			return nil
		})
	}
	_ = g.Wait()
	return results
}
