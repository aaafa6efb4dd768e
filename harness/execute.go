package harness

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/skewtest/skewtest/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// ExecuteOptions tune a run of a whole plan.
type ExecuteOptions struct {
	// ReportDir receives one directory per pairing (transcript and driver logs).
	ReportDir string
	// Pairing options shared by every pairing; Dir, Repro and Reference are set per pairing.
	Pairing Options
	// Repro returns the command that reruns one pairing.
	Repro func(p Pairing) string
	// Progress receives one line per pairing as it ends (and, with Verbose, as it starts).
	Progress io.Writer
	Verbose  bool
}

type refKey struct{ build, kind, journey string }

func keyOf(b *Build, p Pairing) refKey { return refKey{b.Label, p.Kind, p.Journey.Name} }

// WithReferences returns the plan with the references it needs run first: every pairing is
// checked against its client build's own reference (for published fields), so a reference
// the plan lacks (repro runs one pairing) is added.
func WithReferences(plan []Pairing) []Pairing {
	var refs, rest []Pairing
	have := map[refKey]bool{}
	for _, p := range plan {
		if p.Host == p.Client {
			if !have[keyOf(p.Host, p)] {
				have[keyOf(p.Host, p)] = true
				refs = append(refs, p)
			}
			continue
		}
		rest = append(rest, p)
	}
	for _, p := range rest {
		if k := keyOf(p.Client, p); !have[k] {
			have[k] = true
			refs = append(refs, Pairing{Host: p.Client, Client: p.Client, Kind: p.Kind, Journey: p.Journey})
		}
	}
	return append(refs, rest...)
}

// Execute runs every pairing of the plan in order and records each in run. It stops early
// only when ctx ends; the pairings not run are left out of the run.
func Execute(ctx context.Context, plan []Pairing, run *results.Run, opts ExecuteOptions) {
	progress := opts.Progress
	if progress == nil {
		progress = io.Discard
	}
	refs := map[refKey]*transcript.Transcript{}
	for i, p := range plan {
		if ctx.Err() != nil {
			fmt.Fprintf(progress, "interrupted: %d of %d pairings not run\n", len(plan)-i, len(plan))
			return
		}
		po := opts.Pairing
		name := fmt.Sprintf("%03d-%s-%s-%s-%s", i+1, p.Host.Label, p.Kind, p.Client.Label, p.Journey.Name)
		po.Dir = filepath.Join(opts.ReportDir, "pairings", unsafeName.ReplaceAllString(name, "_"))
		if opts.Repro != nil {
			po.Repro = opts.Repro(p)
		}
		if p.Host != p.Client {
			po.Reference = refs[keyOf(p.Client, p)]
		}
		label := fmt.Sprintf("host %s × %s client %s · %s", p.Host.Label, p.Kind, p.Client.Label, p.Journey.Name)
		if opts.Verbose {
			fmt.Fprintf(progress, "[%d/%d] %s ...\n", i+1, len(plan), label)
		}
		start := time.Now()
		res, t := Run(ctx, p, po)
		if p.Host == p.Client && res.Status != results.StatusError {
			refs[keyOf(p.Host, p)] = t
		}
		if res.Transcript != "" {
			rel, _ := filepath.Rel(opts.ReportDir, filepath.Join(po.Dir, res.Transcript))
			res.Transcript = rel
		}
		run.Pairings = append(run.Pairings, res)
		fmt.Fprintf(progress, "[%d/%d] %-5s %s (%s)\n", i+1, len(plan), res.Status, label, time.Since(start).Round(time.Millisecond))
	}
}
