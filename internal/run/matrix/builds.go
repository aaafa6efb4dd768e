package matrix

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/results"
)

// FromArtifact turns a built artifact into a harness build. Its contract is the one read
// before building (d, from git objects or the user's working tree, named as the user
// knows it), else the build's copy; every "./" driver must be in the build's output: one
// that is not is a usage error naming its skewtest.yaml line (the recipe and the argv
// disagree, which only the configuration can fix).
func FromArtifact(a *builds.Artifact, d *harness.Build) (*harness.Build, error) {
	b := &harness.Build{Label: a.Label, Revision: a.Revision, Dir: a.Dir, Host: a.Config.Drivers.Host, Clients: a.Config.Drivers.Clients,
		Env: slices.Clone(a.Config.Drivers.Env), Transport: a.Config.Transport(),
		DriverAt: func(kind string) string { return fmt.Sprintf("%s:%d", builds.ConfigFile, a.Config.DriverLine(kind)) }}
	if d != nil {
		b.Journeys, b.DriverAt = d.Journeys, d.DriverAt
		if d.Err != nil {
			return nil, d.Err
		}
		b.Contract, b.ContractFrom = d.Contract, d.ContractFrom
	}
	if b.Contract == nil {
		// The checkout is the build's tree: a protobuf codec's .proto files are its own.
		c, err := contract.Load(a.ContractPath(), contract.WithSources(contract.ProtoSources{Tree: os.DirFS(a.SrcDir)}))
		if err != nil {
			return nil, fmt.Errorf("%s: contract: %w", a.Label, err)
		}
		b.Contract = c
	}
	drivers := map[string][]string{"": b.Host}
	for k, argv := range b.Clients {
		drivers[k] = argv
	}
	for _, k := range slices.Sorted(maps.Keys(drivers)) {
		argv := drivers[k]
		if len(argv) == 0 || !strings.HasPrefix(argv[0], "./") {
			continue
		}
		if _, err := os.Stat(filepath.Join(a.Dir, filepath.FromSlash(argv[0]))); err != nil {
			role := "host driver"
			if k != "" {
				role = k + " client driver"
			}
			return nil, usage.Errorf("%s: the %s %q (%s) is not in the build's output: the recipe must write it to $SKEWTEST_OUT, or fix its argv there",
				a.Label, role, argv[0], b.DriverAt(k))
		}
	}
	return b, nil
}

// BuildAll builds every source of the subject in repo, in parallel. A source that cannot
// be built or read (its recipe fails, its toolchain is missing, its contract is unreadable)
// is recorded (status error, with its log) and returned as a Build with Err set, carrying
// the log's last lines, so its pairings become errors while every other pairing still
// runs; the failure and the log's tail are written to progress. A configuration error (a
// bad skewtest.yaml, or a driver it declares that the build did not write) is returned as
// the error, as is a cancelled ctx: nothing can run.
// Per-build progress lines are the Builder's (Builder.Log, Builder.Progress).
func BuildAll(ctx context.Context, b *builds.Builder, repo string, srcs []builds.Source, described []*harness.Build, progress io.Writer) ([]*harness.Build, []results.Build, error) {
	var out []*harness.Build
	var recs []results.Build
	for _, r := range b.BuildAll(ctx, repo, srcs) {
		var d *harness.Build
		for _, x := range described {
			if x.Label == r.Source.Label {
				d = x
			}
		}
		rec := results.Build{Label: r.Source.Label, Revision: revision(r.Source)}
		if d != nil {
			rec.Contract = d.ContractFrom
		}
		var ce *builds.ConfigError
		switch {
		case errors.As(r.Err, &ce):
			return nil, nil, r.Err
		case ctx.Err() != nil:
			return nil, nil, fmt.Errorf("build %s: %w", r.Source.Label, ctx.Err())
		}
		a, err := r.Artifact, r.Err
		if err == nil {
			var built *harness.Build
			if built, err = FromArtifact(a, d); err == nil {
				rec.Revision, rec.Status, rec.Dir, rec.Log, rec.Dirty = a.Revision, "built", a.Dir, a.LogPath, a.Dirty
				if tr := built.Transport; tr.Scheme != "" && tr.Scheme != "ws" {
					rec.Transport = tr.String()
				}
				if a.Cached {
					rec.Status = "cached"
				}
				out = append(out, built)
				recs = append(recs, rec)
				continue
			}
			if errors.As(err, new(*usage.Error)) {
				// Found once built, like an action a driver does not announce at its hello:
				// a mistake in the configuration stops the run (exit 2), as a bad
				// skewtest.yaml does, rather than erroring the build's pairings (exit 3,
				// which reads as "try again").
				return nil, nil, err
			}
			rec.Revision, rec.Dir, rec.Log = a.Revision, a.Dir, a.LogPath
		}
		// This build cannot be used: its pairings become errors.
		rec.Status, rec.Error = "error", err.Error()
		var be *builds.BuildError
		if errors.As(err, &be) {
			rec.Log = be.LogPath
			if be.Tail != "" {
				err = fmt.Errorf("%w\nlast lines of the build log:\n%s", err, indent(be.Tail))
			}
		}
		fmt.Fprintf(progress, "%v\n", err)
		out = append(out, &harness.Build{Label: r.Source.Label, Revision: rec.Revision, Err: err})
		recs = append(recs, rec)
	}
	return out, recs, nil
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

func revision(s builds.Source) string {
	if s.IsWorktree() {
		return builds.WorktreeLabel
	}
	return s.Commit.String()
}
