package harness

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/skewtest/skewtest/builds"
	"github.com/skewtest/skewtest/contract"
	"github.com/skewtest/skewtest/results"
)

// FromArtifact turns a built artifact into a harness build, reading its contract.
func FromArtifact(a *builds.Artifact) (*Build, error) {
	b := &Build{Label: a.Label, Revision: a.Revision, Dir: a.Dir, Host: a.Config.Drivers.Host, Clients: a.Config.Drivers.Clients}
	c, err := contract.Load(a.ContractPath())
	if err != nil {
		return nil, fmt.Errorf("%s: contract: %w", a.Label, err)
	}
	b.Contract = c
	return b, nil
}

// BuildAll builds every source of the subject in repo, in parallel. A source that fails to
// build is recorded (status error, with its log) and returned as a Build with Err set, so its
// pairings become errors while every other pairing still runs. A configuration error
// (a bad skewtest.yaml or contract) is returned as the error: nothing can run.
func BuildAll(ctx context.Context, b *builds.Builder, repo string, srcs []builds.Source, progress io.Writer) ([]*Build, []results.Build, error) {
	var out []*Build
	var recs []results.Build
	for _, r := range b.BuildAll(ctx, repo, srcs) {
		rec := results.Build{Label: r.Source.Label, Revision: revision(r.Source)}
		var ce *builds.ConfigError
		var be *builds.BuildError
		switch {
		case errors.As(r.Err, &ce):
			return nil, nil, r.Err
		case errors.As(r.Err, &be):
			rec.Status, rec.Log, rec.Error = "error", be.LogPath, be.Error()
			fmt.Fprintf(progress, "%v\n%s\n", be, be.Tail)
			out = append(out, &Build{Label: r.Source.Label, Revision: rec.Revision, Err: be})
			recs = append(recs, rec)
			continue
		case r.Err != nil:
			return nil, nil, r.Err
		}
		a := r.Artifact
		hb, err := FromArtifact(a)
		if err != nil {
			return nil, nil, err
		}
		rec.Revision, rec.Status, rec.Dir, rec.Log = a.Revision, "built", a.Dir, a.LogPath
		if a.Cached {
			rec.Status = "cached"
		}
		fmt.Fprintf(progress, "build %s: %s\n", a.Label, rec.Status)
		out = append(out, hb)
		recs = append(recs, rec)
	}
	return out, recs, nil
}

func revision(s builds.Source) string {
	if s.IsWorktree() {
		return builds.WorktreeLabel
	}
	return s.Commit.String()
}
