package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/testkit/testlabels"
	"github.com/skewtest/skewtest/results"
)

// The future-peer pass and contract coverage on the reference subject: frames bound for the
// working tree rewritten as a later release may send them find a decoder that refuses unknown
// fields (a switch of the working tree's session client) and nothing without it; every run
// says which parts of the contracts it exercised and which it never did.
var _ = Describe("future peers and contract coverage on the reference subject", Ordered, Label(testlabels.E2E, testlabels.Slow), func() {
	var repo, cache string
	BeforeAll(func() {
		repo = referenceHistory()
		cache = sharedCache
	})

	const strict = `worktree:REMOTETERM_FEATURES={"strictSessionDecoder":true}`

	// run runs skewtest run on the session journey (the default plan: the working tree and
	// the newest release both ways, and their references) and returns the exit code, the
	// output, results.json and summary.md.
	run := func(ctx SpecContext, extra ...string) (int, string, *results.Run, string) {
		dir := GinkgoT().TempDir()
		args := append([]string{"run", "--repo", repo, "--cache-dir", cache, "--report-dir", dir, "--seed", "42",
			"--kind", "session", "--journey", "session"}, extra...)
		var stdout, stderr bytes.Buffer
		code := exitCode(dispatch(ctx, args, &stdout, &stderr), &stderr)
		GinkgoWriter.Printf("skewtest %s -> %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
		data, err := os.ReadFile(filepath.Join(dir, "results.json"))
		Expect(err).NotTo(HaveOccurred())
		var r results.Run
		Expect(json.Unmarshal(data, &r)).To(Succeed())
		summary, err := os.ReadFile(filepath.Join(dir, "summary.md"))
		Expect(err).NotTo(HaveOccurred())
		return code, stdout.String() + stderr.String(), &r, string(summary)
	}
	futures := func(r *results.Run) map[string]*results.Pairing {
		out := map[string]*results.Pairing{}
		for _, p := range r.Pairings {
			if p.Future {
				out[p.Host+" "+p.Client] = p
			}
		}
		return out
	}

	It("finds nothing on the unmodified working tree, with its reference and a release both ways", func(ctx SpecContext) {
		code, out, r, _ := run(ctx, "--future-peers")
		Expect(code).To(Equal(0), out)
		fs := futures(r)
		Expect(fs).To(HaveLen(3), "worktree × worktree and worktree × v1.4.190 both ways; v1.4.190 × v1.4.190 has no receiver under test")
		for _, p := range r.Pairings {
			Expect(p.Findings).To(BeEmpty(), p.Label())
		}
		Expect(out).To(ContainSubstring("[future] pass  host worktree × session client worktree · session"))
	})

	It("finds a working-tree decoder that refuses unknown fields, from its own reference and from a release host", func(ctx SpecContext) {
		code, out, r, _ := run(ctx, "--future-peers", "--env", strict)
		Expect(code).To(Equal(1), out)
		fs := futures(r)
		for _, hc := range []string{"worktree worktree", "v1.4.190 worktree"} {
			p := fs[hc]
			Expect(p).NotTo(BeNil(), hc)
			Expect(p.Status).To(Equal(results.StatusFail), hc)
			var f *results.Finding
			for i, g := range p.Findings {
				Expect(g.Kind).To(Equal(results.IntolerantDecoder), "a future-peer run reports only intolerant-decoder findings")
				if f == nil && strings.HasPrefix(g.Message, "with frames rewritten as a later release may send them: decoder-refusal: ") {
					f = &p.Findings[i]
				}
			}
			Expect(f).NotTo(BeNil(), "%s: no refusal among %v", hc, p.Findings)
			Expect(f.Step).To(Equal("hello"))
			Expect(f.Direction).To(Equal("H>C"))
			Expect(f.Detail).To(ContainSubstring("rewrites:\n  #"))
			Expect(f.Detail).To(ContainSubstring("H>C serverInfo (step hello): optional-field: added optional field /skewtestFuture"))
			Expect(p.Repro).To(HaveSuffix(" --future-peers"))
		}
		Expect(fs["worktree v1.4.190"].Findings).To(BeEmpty(), "the daemon under test decodes tolerantly")
		for _, p := range r.Pairings {
			if !p.Future {
				Expect(p.Findings).To(BeEmpty(), "the switch changes nothing until a frame carries a new field: %s", p.Label())
			}
		}
		Expect(out).To(ContainSubstring("intolerant-decoder"))
	})

	It("says which parts of the contracts the run exercised and names those it never did", func(ctx SpecContext) {
		code, out, r, summary := run(ctx)
		Expect(code).To(Equal(0), out)
		Expect(r.Coverage).NotTo(BeNil())
		items := map[string]results.CoverageItem{}
		for _, it := range r.Coverage.Items {
			items[it.Category+" "+it.Item] = it
		}
		// Every frame a pairing's timeline shows is covered for its kind.
		for _, p := range r.Pairings {
			for _, e := range p.Timeline {
				if e.Control {
					continue
				}
				it, ok := items["frame "+e.Dir+" "+e.Name+" ("+p.ClientKind+")"]
				Expect(ok).To(BeTrue(), "%s %s (%s) is a coverage item", e.Dir, e.Name, p.ClientKind)
				Expect(it.Seen).To(BeNumerically(">", 0))
			}
		}
		// A session-only run never sends a terminal frame: those are listed as never sent.
		missing := r.Coverage.Missing(results.CoverFrame)
		Expect(missing).NotTo(BeEmpty())
		for _, m := range missing {
			Expect(m.Seen).To(Equal(0))
			Expect(summary).To(ContainSubstring(m.Item), "summary.md names every frame never sent")
		}
		Expect(items).To(HaveKey("frame H>C WriteUnavailable"), "the terminal channel's frames, owed by no kind that used it")
		Expect(out).To(ContainSubstring("CONTRACT COVERAGE\n  frames "))
		Expect(out).To(ContainSubstring("frames never sent: "))
	})
})
