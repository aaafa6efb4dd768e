package campaign

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/results"
)

var _ = Describe("A campaign's report directory", func() {
	var dir string
	pairing := func(name string) string {
		p := filepath.Join(dir, "pairings", name)
		Expect(os.MkdirAll(filepath.Join(p, "future"), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(p, "transcript.json"), []byte("{}"), 0o644)).To(Succeed())
		return p
	}
	BeforeEach(func() { dir = GinkgoT().TempDir() })

	It("keeps the pairings results.json names, and only those", func() {
		pairing("found")
		pairing("logged")
		pairing("future-found")
		pairing("passed")
		pairing("cut")
		pairing("found-2") // a name that starts like a kept one is not kept for it
		Expect(os.WriteFile(filepath.Join(dir, "pairings", "stray.txt"), nil, 0o644)).To(Succeed())
		run := &results.Run{Pairings: []*results.Pairing{
			{Transcript: "pairings/found/transcript.json"},
			{Logs: []string{"pairings/logged/host.log"}},
			{Transcript: "pairings/future-found/future/transcript.json"},
		}}
		n, err := sweep(dir, run)
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(Equal(3))
		left, _ := filepath.Glob(filepath.Join(dir, "pairings", "*"))
		var names []string
		for _, l := range left {
			names = append(names, filepath.Base(l))
		}
		Expect(names).To(ConsistOf("found", "logged", "future-found", "stray.txt"))
	})

	It("removes every pairing when results name none (the control)", func() {
		pairing("a")
		pairing("b")
		n, err := sweep(dir, &results.Run{})
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(Equal(2))
	})

	It("has nothing to do without a pairings directory", func() {
		n, err := sweep(dir, &results.Run{})
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(BeZero())
	})
})

// BenchmarkSweep sweeps a night's report directory: 2,000 pairing directories, 10 of them
// named by a results.json that lists 200,000 cases.
func BenchmarkSweep(b *testing.B) {
	cases := make([]results.CampaignCase, 200000)
	for i := range cases {
		cases[i] = results.CampaignCase{Name: fmt.Sprintf("fuzz-session-%d-pack32", i), Events: []string{"probe", "ping"}, Status: results.StatusPass}
	}
	run := &results.Run{Campaign: &results.Campaign{CaseList: cases}}
	for i := range 10 {
		run.Pairings = append(run.Pairings, &results.Pairing{Transcript: fmt.Sprintf("pairings/%04d-found/transcript.json", i)})
	}
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		for i := range 2000 {
			name := fmt.Sprintf("%04d-passed", i)
			if i < 10 {
				name = fmt.Sprintf("%04d-found", i)
			}
			if err := os.MkdirAll(filepath.Join(dir, "pairings", name), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		n, err := sweep(dir, run)
		if err != nil || n != 1990 {
			b.Fatalf("removed %d: %v", n, err)
		}
	}
}
