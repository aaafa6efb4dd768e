package skewtest

import (
	"io"
	"time"

	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/run/matrix"
)

// Config is one run of the compatibility matrix: `skewtest run`. Left empty, each field
// takes the command's default.
type Config struct {
	// Repo is the product's repository: a git repository with a skewtest.yaml.
	Repo string
	// ReportDir receives results.json, the other reports and the transcripts.
	ReportDir string
	// CacheDir is the build cache (the user's cache directory when empty).
	CacheDir string

	// Pins are the pin rules; the working tree's skewtest.yaml fills what they leave.
	Pins Pins
	// Matrix is "default" (each pin with the working tree both ways) or "full".
	Matrix string
	// Kinds and Journeys narrow the plan (default: every kind, every journey listed).
	Kinds, Journeys []string
	// Host and Client, when set, run the journeys on exactly that pair of builds (as
	// `skewtest repro` does): refs, or "worktree".
	Host, Client string
	// Env holds LABEL:KEY=VALUE settings for one build's drivers.
	Env []string
	// FuturePeers runs the future-peer pass after the pairings of the working tree.
	FuturePeers bool
	// PlanOnly prints the plan and builds nothing; Run then returns a nil run.
	PlanOnly bool

	// Parallel is how many pairings run at once (two per core when 0; a campaign in lanes of
	// shared drivers then runs thirty-two light pairings a core, a heavy one counting as four:
	// docs/fuzz.md, Throughput).
	Parallel int
	// Shard is "K/N": run shard K of N of the plan ("" for all of it).
	Shard string
	// Retries reruns a failing pairing; LastFailed runs only what failed in ReportDir's
	// previous results.json.
	Retries    int
	LastFailed bool
	// Timeout, Quiet and Settle override the journeys' waits; a negative Quiet or Settle
	// turns it off.
	Timeout, Quiet, Settle time.Duration
	// Seed drives every random choice (0: a new one, printed).
	Seed int64
	// Verbose prints each build and pairing as it goes.
	Verbose bool

	// Command names this run in what it prints, and to another run that finds its report
	// directory taken (default: "skewtest run").
	Command []string
	// Stdout gets the plan, the matrix and the reports' place; Stderr progress and
	// warnings. Nil discards.
	Stdout, Stderr io.Writer
}

// Pins says which release refs to pair against: the `pins:` section of skewtest.yaml. The
// zero value leaves it to skewtest.yaml, else the newest stable tag.
type Pins struct {
	// Refs are explicit refs (tags, branches or commit prefixes), pinned first, in order.
	Refs []Pin
	// Last pins the newest Last stable vX.Y.Z tags.
	Last int
	// Window pins every stable tag inside the working tree's protocol window.
	Window bool
	// Ignore are glob patterns (path.Match syntax) of tags Last and Window never pin.
	Ignore []string
}

// Pin is a ref pinned by name, with the reason it is pinned ("explicit" when empty).
type Pin struct {
	Ref, Reason string
}

func (p Pins) options() pins.Options {
	o := pins.Options{Last: p.Last, Window: p.Window, Ignore: p.Ignore}
	for _, r := range p.Refs {
		o.Refs = append(o.Refs, pins.Ref{Ref: r.Ref, Reason: r.Reason})
	}
	return o
}

// matrix is c as the internal run takes it.
func (c Config) matrix() matrix.Config {
	return matrix.Config{
		Repo: c.Repo, ReportDir: c.ReportDir, CacheDir: c.CacheDir,
		Pins: c.Pins.options(), Matrix: c.Matrix, Kinds: c.Kinds, Journeys: c.Journeys,
		Host: c.Host, Client: c.Client, Env: c.Env, FuturePeers: c.FuturePeers, PlanOnly: c.PlanOnly,
		Parallel: c.Parallel, Shard: c.Shard, Retries: c.Retries, LastFailed: c.LastFailed,
		Timeout: c.Timeout, Quiet: c.Quiet, Settle: c.Settle, Seed: c.Seed, Verbose: c.Verbose,
		Command: c.Command, Stdout: c.Stdout, Stderr: c.Stderr,
	}
}
