package campaign

import (
	"os"
	"path/filepath"

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
