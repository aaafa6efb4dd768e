package skew_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest"
	"github.com/skewtest/skewtest/results"
	"github.com/skewtest/skewtest/skewtesting"
)

// The working tree's host accepts permessage-deflate and its Go clients offer it (the
// compress feature); no release before it does. skewtest's tap keeps the product's
// connection as it is: compressed where both ends negotiate it, as they would without the
// tap, and recorded decompressed, so the same checks read the same frames.
var _ = Describe("notesd's compressed connections", Ordered, func() {
	var repo string

	BeforeAll(func(ctx SpecContext) {
		repo = writeHistory(ctx)
	}, NodeTimeout(5*time.Minute))

	// opened returns, per pairing, the open events' details of its transcript's connections.
	opened := func(report string, p *results.Pairing) []string {
		GinkgoHelper()
		data, err := os.ReadFile(filepath.Join(report, p.Transcript))
		Expect(err).NotTo(HaveOccurred())
		if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) { // a transcript is kept gzipped
			zr, err := gzip.NewReader(bytes.NewReader(data))
			Expect(err).NotTo(HaveOccurred())
			data, err = io.ReadAll(zr)
			Expect(err).NotTo(HaveOccurred())
		}
		var t struct {
			Conns []struct {
				Event, Detail string
			} `json:"conns"`
		}
		Expect(json.Unmarshal(data, &t)).To(Succeed())
		var out []string
		for _, c := range t.Conns {
			if c.Event == "open" {
				out = append(out, c.Detail)
			}
		}
		Expect(out).NotTo(BeEmpty(), "%s connected", p.Label())
		return out
	}
	run := func(ctx SpecContext, host string) (string, *results.Run) {
		GinkgoHelper()
		report := GinkgoT().TempDir()
		r, err := skewtesting.Matrix(ctx, skewtest.Config{Repo: repo, CacheDir: cache, ReportDir: report, Seed: 1,
			Host: host, Client: results.WorktreeLabel, Kinds: []string{"cli"}, Journeys: []string{"notes"},
			Stdout: GinkgoWriter, Stderr: GinkgoWriter})
		Expect(err).NotTo(HaveOccurred())
		Expect(r.ExitCode()).To(Equal(0))
		return report, r
	}

	It("crosses the tap compressed between two builds that both compress, and passes as before", func(ctx SpecContext) {
		report, r := run(ctx, results.WorktreeLabel)
		Expect(r.Pairings).To(HaveLen(1))
		Expect(opened(report, r.Pairings[0])).To(HaveEach("permessage-deflate"))
	}, NodeTimeout(5*time.Minute))

	It("is not compressed where the host does not accept it (a release before the feature)", func(ctx SpecContext) {
		report, r := run(ctx, "v0.3.0")
		for _, p := range r.Pairings {
			if p.Host == "v0.3.0" && p.Client == results.WorktreeLabel {
				Expect(opened(report, p)).To(HaveEach(BeEmpty()))
				return
			}
		}
		Fail("no v0.3.0 × worktree pairing")
	}, NodeTimeout(5*time.Minute))
})
