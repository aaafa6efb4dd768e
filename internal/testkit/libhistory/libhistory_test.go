package libhistory_test

import (
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/testkit/libhistory"
)

var _ = Describe("wirelib's history", func() {
	It("has GOPATH-era tags, a tag that adopts modules, and protocol 2 in a commit between two tags", func(ctx SpecContext) {
		h, err := libhistory.Write(filepath.Join(GinkgoT().TempDir(), "wirelib"))
		Expect(err).NotTo(HaveOccurred())
		Expect(h.Tags).To(HaveLen(4))
		r, err := git.PlainOpen(h.Dir)
		Expect(err).NotTo(HaveOccurred())
		file := func(hash, name string) (string, bool) {
			GinkgoHelper()
			c, err := r.CommitObject(plumbing.NewHash(hash))
			Expect(err).NotTo(HaveOccurred())
			f, err := c.File(name)
			if err != nil {
				return "", false
			}
			s, err := f.Contents()
			Expect(err).NotTo(HaveOccurred())
			return s, true
		}
		for tag, mod := range map[string]bool{"v0.1.0": false, "v0.2.0": false, "v0.3.0": true, "v0.4.0": true} {
			_, ok := file(h.Tags[tag], "go.mod")
			Expect(ok).To(Equal(mod), tag)
			wire, ok := file(h.Tags[tag], "wire.go")
			Expect(ok).To(BeTrue())
			Expect(wire).To(ContainSubstring(`const Version = "` + tag + `"`))
		}

		// The protocol changes in one commit, strictly between v0.3.0 and v0.4.0, with plain
		// commits on either side of it for a commit bisect to walk.
		at := func(hash string) string {
			wire, _ := file(hash, "wire.go")
			return wire
		}
		var i3, i2, i4 int
		for i, c := range h.Commits {
			switch c.Hash {
			case h.Tags["v0.3.0"]:
				i3 = i
			case h.ProtocolTwo:
				i2 = i
			case h.Tags["v0.4.0"]:
				i4 = i
			}
			if i > 0 {
				Expect(c.Hash).NotTo(Equal(h.Commits[i-1].Hash))
			}
		}
		Expect(i3).To(BeNumerically("<", i2-1))
		Expect(i2).To(BeNumerically("<", i4))
		Expect(at(h.Commits[i2-1].Hash)).To(ContainSubstring("const Protocol = 1\n"))
		Expect(at(h.ProtocolTwo)).To(ContainSubstring("const Protocol = 2\n"))
		Expect(h.Commits[i2].Subject).To(Equal("wire: protocol 2"))

		// The working tree is v0.4.0, and it builds with nothing downloaded.
		head, err := r.Head()
		Expect(err).NotTo(HaveOccurred())
		Expect(head.Hash().String()).To(Equal(h.Tags["v0.4.0"]))
		cmd := exec.CommandContext(ctx, "go", "vet", "./...")
		cmd.Dir = h.Dir
		cmd.Env = append(cmd.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
	})

	It("gives the adopter's driver, which imports the library and reports a refused peer", func() {
		driver, err := libhistory.Adoption("driver/main.go")
		Expect(err).NotTo(HaveOccurred())
		Expect(driver).To(ContainSubstring(`"` + libhistory.Module + `"`))
		Expect(strings.Count(driver, `"event": "refused-peer"`)).To(Equal(2), "the host's and the client's")
		_, err = libhistory.Adoption("nope")
		Expect(err).To(MatchError(ContainSubstring("libhistory: ")))
	})
})
