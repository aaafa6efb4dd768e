package infer_test

import (
	"compress/gzip"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/infer"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

var _ = Describe("Recordings", func() {
	var dir string
	write := func(rel string, r infer.Recording) string {
		GinkgoHelper()
		p := filepath.Join(dir, rel)
		Expect(os.MkdirAll(filepath.Dir(p), 0o755)).To(Succeed())
		Expect(transcript.Write(p, r.T, gzip.BestSpeed)).To(Succeed())
		return p
	}
	one := func() infer.Recording { return recording("desktop", text("C>H", "/ws", `{"type":"hello"}`)) }

	BeforeEach(func() { dir = GinkgoT().TempDir() })

	DescribeTable("are read from a report, a pairing, a transcript file or fixtures", func(files []string, arg string, want int) {
		for _, f := range files {
			write(f, one())
		}
		recs, err := infer.Load(filepath.Join(dir, arg))
		Expect(err).NotTo(HaveOccurred())
		Expect(recs).To(HaveLen(want))
		for _, r := range recs {
			Expect(r.T.Frames).To(HaveLen(1))
			Expect(r.Path).To(HavePrefix(dir))
		}
	},
		Entry("a report directory", []string{"pairings/001-a/transcript.json.gz", "pairings/002-b/transcript.json.gz", "results.json.gz"}, ".", 2),
		Entry("a pairing's directory", []string{"pairings/001-a/transcript.json.gz"}, "pairings/001-a", 1),
		Entry("a transcript file", []string{"t.json.gz"}, "t.json.gz", 1),
		Entry("a fixtures directory", []string{"v1.0.0/desktop-j.json.gz", "v1.1.0/desktop-j.json.gz", "v1.1.0/mobile-j.json.gz"}, ".", 3),
		Entry("a release's fixtures", []string{"v1.1.0/desktop-j.json.gz", "v1.1.0/mobile-j.json.gz"}, "v1.1.0", 2),
	)

	It("refuse a directory that holds none, and a file that is no transcript, as usage errors", func() {
		var ue *usage.Error
		_, err := infer.Load(dir)
		Expect(err).To(BeAssignableToTypeOf(ue))
		Expect(err).To(MatchError(ContainSubstring("holds no recording: give a report directory")))
		Expect(os.WriteFile(filepath.Join(dir, "x.json.gz"), []byte("not gzip"), 0o644)).To(Succeed())
		_, err = infer.Load(filepath.Join(dir, "x.json.gz"))
		Expect(err).To(BeAssignableToTypeOf(ue))
		Expect(err).To(MatchError(ContainSubstring("not a transcript")))
		_, err = infer.Load(filepath.Join(dir, "missing"))
		Expect(err).To(BeAssignableToTypeOf(ue))
	})

	It("split by the build that sent each frame", func() {
		labels, by := infer.BySender([]infer.Recording{
			pairing("v2", "v1", "desktop", text("C>H", "/ws", `{"type":"hello"}`), text("H>C", "/ws", `{"type":"welcome"}`),
				transcript.Frame{Dir: "H>C", Path: "/ws", Control: "ping"}),
			pairing("v1", "v1", "desktop", text("C>H", "/ws", `{"type":"hello"}`), text("H>C", "/ws", `{"type":"old"}`)),
		})
		Expect(labels).To(Equal([]string{"v1", "v2"}))
		sent := func(l string) []string {
			var out []string
			for _, r := range by[l] {
				for _, f := range r.T.Frames {
					out = append(out, f.Dir+" "+string(f.Data))
				}
			}
			return out
		}
		Expect(sent("v2")).To(Equal([]string{`H>C {"type":"welcome"}`}))
		Expect(sent("v1")).To(Equal([]string{`C>H {"type":"hello"}`, `H>C {"type":"old"}`, `C>H {"type":"hello"}`}),
			"as client of v2, then both sides of its reference pairing")
		r := draft(by["v2"]...)
		Expect(r.Contract.Channel("/ws").Frames).To(HaveLen(1))
	})

	It("write one draft per build, each with its report beside it", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "drafts")
		drafts, err := infer.PerBuild([]infer.Recording{
			pairing("v2", "team/v1", "desktop", text("C>H", "/ws", `{"type":"hello"}`), text("H>C", "/ws", `{"type":"welcome"}`)),
		}, dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(drafts).To(HaveLen(2))
		Expect(drafts[0].Label).To(Equal("team/v1"))
		Expect(drafts[0].File).To(Equal(filepath.Join(dir, "team_v1.json")), "a / in a label stays out of the path")
		Expect(drafts[1].Report).To(Equal(filepath.Join(dir, "v2.txt")))
		for _, d := range drafts {
			c, err := contract.Load(d.File)
			Expect(err).NotTo(HaveOccurred(), "a draft is a contract skewtest reads")
			Expect(c.Channel("/ws").Frames).To(HaveLen(1))
			report, err := os.ReadFile(d.Report)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(report)).To(ContainSubstring("/ws"))
		}
		_, err = infer.PerBuild(nil, "/dev/null/drafts")
		Expect(err).To(HaveOccurred(), "a directory that cannot be made")
	})
})
