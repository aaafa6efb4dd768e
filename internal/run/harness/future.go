package harness

import (
	"context"
	"path/filepath"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/future"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// FutureOptions say how the future-peer pass rewrites a pairing.
type FutureOptions struct {
	// Seed drives the rewrites (future.Config.Seed).
	Seed int64
	// Under is the label of the build under test: frames bound for it are rewritten as a
	// later release of their sender may send them. Empty: results.WorktreeLabel.
	Under string
	// Rules limits the rewrite rules (nil: every rule, future.Rules).
	Rules []string
	// Dir, when set (contract.HostToClient or contract.ClientToHost), rewrites only the frames
	// travelling that way.
	Dir string
	// One gives each frame one variant, picked by the seed, instead of every variant at once
	// (future.Config.One): a campaign that wants each rule on its own.
	One bool
	// Only, when set, picks the pairings that get the pass among those it Involves (a
	// campaign's seeded sample of packs); nil: every one.
	Only func(p Pairing) bool
}

// Runs reports whether the pass runs on p: it Involves p, and Only, if set, picks it.
func (fo FutureOptions) Runs(p Pairing) bool {
	return fo.Involves(p) && (fo.Only == nil || fo.Only(p))
}

func (fo FutureOptions) under() string {
	if fo.Under == "" {
		return results.WorktreeLabel
	}
	return fo.Under
}

// Involves reports whether the future-peer pass has anything to rewrite in p: one of its
// builds is the build under test.
func (fo FutureOptions) Involves(p Pairing) bool {
	return p.Host.Label == fo.under() || p.Client.Label == fo.under()
}

// Rewriter returns the tap rewriter of the future-peer pass for p: frames whose receiver is
// the build under test are rewritten from their sender's contract. It returns nil when
// neither build of p is under test.
func (fo FutureOptions) Rewriter(p Pairing) *future.Rewriter {
	senders := map[string]*contract.Contract{}
	if p.Client.Label == fo.under() && p.Host.Contract != nil && fo.Dir != contract.ClientToHost {
		senders[contract.HostToClient] = p.Host.Contract
	}
	if p.Host.Label == fo.under() && p.Client.Contract != nil && fo.Dir != contract.HostToClient {
		senders[contract.ClientToHost] = p.Client.Contract
	}
	if len(senders) == 0 {
		return nil
	}
	version := 0
	if p.Host.Contract != nil && p.Client.Contract != nil {
		version = contract.Negotiated(p.Host.Contract.Protocol, p.Client.Contract.Protocol.Client(p.Kind))
	}
	return future.New(future.Config{Seed: fo.Seed, Kind: p.Kind, Version: version, Senders: senders, Rules: fo.Rules, One: fo.One})
}

// RunFuture is the future-peer pass of one pairing: it runs p again with the frames bound for
// the build under test rewritten as a later release may send them (FutureOptions.Rewriter),
// and compares it with base and baseT, the result and transcript of p run unmodified with the
// same opts (checks.Intolerance). The returned result is marked Future; its findings are
// intolerant-decoder findings only. It returns nil when p does not involve the build under
// test or base could not be tested. The run's files go in opts.Dir.
//
// When both builds are under test (a reference), each direction is rewritten in a run of its
// own (opts.Dir/C_H and opts.Dir/H_C), so each run has one receiver under test and one
// sender; the result joins both runs' findings, and links the transcript of the first run
// that failed (else the first).
//
// The fuzz campaign calls it per case with the case's pairing and unmodified run.
func RunFuture(ctx context.Context, p Pairing, opts Options, base *results.Pairing, baseT *transcript.Transcript,
	fo FutureOptions) (*results.Pairing, *transcript.Transcript) {
	if fo.Rewriter(p) == nil || base == nil || baseT == nil || base.Status == results.StatusError {
		return nil, nil
	}
	if fo.Dir != "" || p.Host.Label != p.Client.Label {
		return runFuture(ctx, p, opts, base, baseT, fo)
	}
	var res *results.Pairing
	var t *transcript.Transcript
	root := opts.Dir
	for _, dir := range []string{contract.ClientToHost, contract.HostToClient} {
		fo.Dir = dir
		opts.Dir = filepath.Join(root, unsafeName.ReplaceAllString(dir, "_"))
		r, rt := runFuture(ctx, p, opts, base, baseT, fo)
		r.Transcript = relTo(root, opts.Dir, r.Transcript)
		for k, l := range r.Logs {
			r.Logs[k] = relTo(root, opts.Dir, l)
		}
		if res == nil {
			res, t = r, rt
			continue
		}
		res.Findings = append(res.Findings, r.Findings...)
		res.Logs = append(res.Logs, r.Logs...)
		res.Duration += r.Duration
		if worse(r.Status, res.Status) {
			logs, findings, d := res.Logs, res.Findings, res.Duration
			res, t = r, rt
			res.Logs, res.Findings, res.Duration = logs, findings, d
		}
	}
	return res, t
}

// worse reports whether status a outranks b: error, then fail, then the rest.
func worse(a, b results.Status) bool {
	rank := func(s results.Status) int {
		switch s {
		case results.StatusError:
			return 2
		case results.StatusFail:
			return 1
		}
		return 0
	}
	return rank(a) > rank(b)
}

func runFuture(ctx context.Context, p Pairing, opts Options, base *results.Pairing, baseT *transcript.Transcript,
	fo FutureOptions) (*results.Pairing, *transcript.Transcript) {
	opts.Rewriter = fo.Rewriter(p)
	check := opts.Checks
	if check == nil {
		check = checks.Run
	}
	opts.Checks = func(in *checks.Input) []results.Finding {
		fut := check(in)
		baseIn := *in
		baseIn.Transcript = baseT
		return append([]results.Finding{}, checks.Intolerance(&baseIn, in, base.Findings, fut)...)
	}
	res, t := Run(ctx, p, opts)
	res.Future = true
	return res, t
}

// futureDir is where a pairing's future-peer run keeps its transcript and logs, inside the
// pairing's own directory.
func futureDir(dir string) string { return filepath.Join(dir, "future") }
